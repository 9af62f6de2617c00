/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA and atomic requests arriving at an RDM endpoint: the checks made
 * before any byte of our memory moves, the target's events, and the
 * application of an atomic request (rdm_rma.h). Called by a transport
 * under the endpoint lock, from its progress. The request's bytes come
 * from a peer: every length is checked against our own limits.
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_cq.h"
#include "pl_domain.h"
#include "rdm_rma.h"

int rdm_rma_check(struct rdm_ep *ep, struct pl_keymap *map, uint64_t key,
		  uint64_t addr, uint64_t len, uint64_t need, void **ptr_p)
{
	bool virt = ep->base.dom->mr_mode & FI_MR_VIRT_ADDR;
	uint64_t base = 0;
	int ret;

	if (len > SIZE_MAX)
		return -FI_EACCES;
	ret = pl_keymap_check(map, key, addr, (size_t)len, need, virt, &base);
	if (ret)
		return ret;
	*ptr_p = (void *)(uintptr_t)(virt ? addr : base + addr);
	return 0;
}

void rdm_rma_event(struct rdm_ep *ep, struct pl_keymap *map, uint64_t key,
		   uint64_t access, bool cq_data, uint64_t data, uint64_t len)
{
	struct fid_cntr *cntr = pl_ep_cntr(&ep->base,
		access == FI_REMOTE_READ ? PL_EP_CNTR_REMOTE_READ :
					   PL_EP_CNTR_REMOTE_WRITE);

	if (ep->closing)
		return;
	/* a counter bound to the MR itself (fi_mr_bind) */
	pl_keymap_count(map, key, access);
	if (cq_data && ep->base.rx_cq)
		pl_cq_write(ep->base.rx_cq, NULL,
			    FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA,
			    (size_t)len, NULL, data, 0, FI_ADDR_NOTAVAIL);
	if (cntr)
		pl_cntr_inc(cntr);
}

int rdm_rma_atomic(struct rdm_ep *ep, struct pl_keymap *map, uint64_t key,
		   uint64_t addr, const void *buf, size_t len,
		   size_t max_bytes, void *result, size_t *res_len_p)
{
	const struct rdm_atomic_req *req = buf;
	size_t max, size, bytes, need_len;
	uint64_t access;
	void *dst;
	int ret;

	*res_len_p = 0;
	if (len < sizeof(*req) || req->zero ||
	    req->kind > RDM_ATOMIC_COMPARE)
		return -FI_EINVAL;
	ret = rdm_atomic_query((enum fi_datatype)req->datatype,
			       (enum fi_op)req->op,
			       (enum rdm_atomic_kind)req->kind, max_bytes,
			       &max, &size);
	if (ret)
		return ret;
	if (!req->count || req->count > max)
		return -FI_EINVAL;
	bytes = (size_t)req->count * size;
	need_len = sizeof(*req) +
		   bytes * (req->kind == RDM_ATOMIC_COMPARE ? 2 : 1);
	if (len < need_len)
		return -FI_EINVAL;
	access = rdm_atomic_access((enum fi_op)req->op,
				   (enum rdm_atomic_kind)req->kind);
	ret = rdm_rma_check(ep, map, key, addr, bytes, access, &dst);
	if (ret)
		return ret;
	rdm_atomic_apply((enum fi_op)req->op, (enum fi_datatype)req->datatype,
			 req->count, dst, req->data,
			 req->kind == RDM_ATOMIC_COMPARE ? req->data + bytes :
							   NULL,
			 req->kind == RDM_ATOMIC_WRITE ? NULL : result);
	rdm_rma_event(ep, map, key, access, false, 0, 0);
	if (req->kind != RDM_ATOMIC_WRITE)
		*res_len_p = bytes;
	return 0;
}

int rdm_rma_query_atomic(size_t max_bytes, enum fi_datatype dt, enum fi_op op,
			 struct fi_atomic_attr *attr, uint64_t flags)
{
	enum rdm_atomic_kind kind;
	size_t count, size;
	int ret;

	if (!attr)
		return -FI_EINVAL;
	if (flags & ~(uint64_t)(FI_FETCH_ATOMIC | FI_COMPARE_ATOMIC))
		return -FI_EBADFLAGS;
	if ((flags & FI_FETCH_ATOMIC) && (flags & FI_COMPARE_ATOMIC))
		return -FI_EINVAL;
	kind = (flags & FI_FETCH_ATOMIC) ? RDM_ATOMIC_FETCH :
	       (flags & FI_COMPARE_ATOMIC) ? RDM_ATOMIC_COMPARE :
					     RDM_ATOMIC_WRITE;
	ret = rdm_atomic_query(dt, op, kind, max_bytes, &count, &size);
	if (ret)
		return ret;
	attr->count = count;
	attr->size = size;
	return 0;
}
