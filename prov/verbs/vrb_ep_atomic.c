/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_atomic on a verbs endpoint: what the device does itself, one 8-byte
 * integer per operation (count 1) at an 8-byte aligned target address:
 *   fi_atomic          FI_SUM            fetch-and-add, result discarded
 *   fi_fetch_atomic    FI_SUM            fetch-and-add
 *                      FI_ATOMIC_READ    fetch-and-add of 0
 *   fi_compare_atomic  FI_CSWAP          compare-and-swap
 * on FI_INT64 / FI_UINT64, where the device reports atomics (atomic_cap;
 * rxe does). The operand and comparand travel in the work request (the
 * device never reads them from memory), so only the result buffer needs
 * a key: its descriptor's, or a registration from the domain's cache.
 * A non-fetching add lands its result in the endpoint's scratch word.
 * Everything else answers -FI_EOPNOTSUPP (the valid calls say so first).
 */
#include <stdint.h>
#include <string.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>

#include "vrb_prov.h"

enum vrb_atomic_kind { VRB_AT_WRITE, VRB_AT_FETCH, VRB_AT_COMPARE };

static bool vrb_atomic_ok(enum vrb_atomic_kind kind, enum fi_datatype dt,
			  enum fi_op op)
{
	if (dt != FI_INT64 && dt != FI_UINT64)
		return false;
	switch (kind) {
	case VRB_AT_WRITE:
		return op == FI_SUM;
	case VRB_AT_FETCH:
		return op == FI_SUM || op == FI_ATOMIC_READ;
	default:
		return op == FI_CSWAP;
	}
}

bool vrb_domain_atomics(const struct vrb_domain *d)
{
	return d->attr.atomic_cap != IBV_ATOMIC_NONE;
}

int vrb_domain_query_atomic(struct fid_domain *domain,
			    enum fi_datatype datatype, enum fi_op op,
			    struct fi_atomic_attr *attr, uint64_t flags)
{
	struct vrb_domain *d = vrb_domain_of(domain);
	enum vrb_atomic_kind kind = VRB_AT_WRITE;

	if (!d || !attr)
		return -FI_EINVAL;
	if (flags & ~(FI_FETCH_ATOMIC | FI_COMPARE_ATOMIC))
		return -FI_EBADFLAGS;
	if (flags & FI_COMPARE_ATOMIC)
		kind = VRB_AT_COMPARE;
	else if (flags & FI_FETCH_ATOMIC)
		kind = VRB_AT_FETCH;
	if (!vrb_domain_atomics(d) || !vrb_atomic_ok(kind, datatype, op))
		return -FI_EOPNOTSUPP;
	attr->size = sizeof(uint64_t);
	attr->count = 1;
	return 0;
}

static int vrb_atomic_valid(struct fid_ep *ep_fid, enum vrb_atomic_kind kind,
			    enum fi_datatype dt, enum fi_op op, size_t *count)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	if (!ep || !count)
		return -FI_EINVAL;
	if (!vrb_domain_atomics(ep->dom) || !vrb_atomic_ok(kind, dt, op))
		return -FI_EOPNOTSUPP;
	*count = 1;
	return 0;
}

static int vrb_ep_writevalid(struct fid_ep *ep, enum fi_datatype dt,
			     enum fi_op op, size_t *count)
{
	return vrb_atomic_valid(ep, VRB_AT_WRITE, dt, op, count);
}

static int vrb_ep_readwritevalid(struct fid_ep *ep, enum fi_datatype dt,
				 enum fi_op op, size_t *count)
{
	return vrb_atomic_valid(ep, VRB_AT_FETCH, dt, op, count);
}

static int vrb_ep_compwritevalid(struct fid_ep *ep, enum fi_datatype dt,
				 enum fi_op op, size_t *count)
{
	return vrb_atomic_valid(ep, VRB_AT_COMPARE, dt, op, count);
}

/* One atomic: operand (and comparand) by value; result NULL for a
 * non-fetching one (the scratch word then takes it). */
static ssize_t vrb_atomic_post(struct vrb_ep *ep, enum vrb_atomic_kind kind,
			       const struct fi_msg_atomic *msg,
			       const void *compare, void *result,
			       void *result_desc, uint64_t flags, bool inject)
{
	struct iovec iov;
	struct ibv_send_wr wr;
	struct vrb_sgl sgl;
	uint64_t operand = 0, cmp = 0;
	bool report;
	int ret;

	if (!msg || msg->iov_count != 1 || !msg->msg_iov ||
	    msg->rma_iov_count != 1 || !msg->rma_iov)
		return -FI_EINVAL;
	if (msg->msg_iov[0].count != 1 || msg->rma_iov[0].count != 1)
		return -FI_EINVAL;	/* count 1: one 8-byte word */
	if (!vrb_domain_atomics(ep->dom) ||
	    !vrb_atomic_ok(kind, msg->datatype, msg->op))
		return -FI_EOPNOTSUPP;
	if ((msg->rma_iov[0].addr & 7) || msg->rma_iov[0].key > UINT32_MAX)
		return -FI_EINVAL;	/* the device needs alignment */
	if (msg->op != FI_ATOMIC_READ) {
		if (!msg->msg_iov[0].addr)
			return -FI_EINVAL;
		memcpy(&operand, msg->msg_iov[0].addr, sizeof(operand));
	}
	if (kind == VRB_AT_COMPARE) {
		if (!compare)
			return -FI_EINVAL;
		memcpy(&cmp, compare, sizeof(cmp));
	}
	if (kind != VRB_AT_WRITE && !result)
		return -FI_EINVAL;
	iov.iov_base = result ? result : &ep->atomic_scratch;
	iov.iov_len = sizeof(uint64_t);
	ret = vrb_ep_sge_fill(ep->dom, &sgl, 1, &iov,
			      result ? &result_desc : NULL, 1, 0, FI_READ);
	if (ret)
		return ret;
	memset(&wr, 0, sizeof(wr));
	wr.wr.atomic.remote_addr = msg->rma_iov[0].addr;
	wr.wr.atomic.rkey = (uint32_t)msg->rma_iov[0].key;
	if (kind == VRB_AT_COMPARE) {
		wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.compare_add = cmp;
		wr.wr.atomic.swap = operand;
	} else {
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.compare_add = operand;	/* 0 for a read */
	}
	flags |= ep->tx_op_flags;
	report = !inject &&
		 pl_ep_op_completes(ep->base.tx_cq_flags, flags, false);
	return vrb_ep_post_send(ep, &wr, &sgl, msg->context, FI_ATOMIC |
				(kind == VRB_AT_WRITE ? FI_WRITE : FI_READ),
				report);
}

static ssize_t vrb_ep_atomic_writemsg(struct fid_ep *ep_fid,
				      const struct fi_msg_atomic *msg,
				      uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	if (!ep)
		return -FI_EINVAL;
	return vrb_atomic_post(ep, VRB_AT_WRITE, msg, NULL, NULL, NULL, flags,
			       false);
}

/* A plain call's one operand and one target as the msg form. */
struct vrb_atomic_one {
	struct fi_ioc ioc;
	struct fi_rma_ioc rioc;
	void *desc;
	struct fi_msg_atomic msg;
};

static struct fi_msg_atomic *vrb_atomic_one(struct vrb_atomic_one *o,
					    const void *buf, size_t count,
					    void *desc, fi_addr_t dest_addr,
					    uint64_t addr, uint64_t key,
					    enum fi_datatype datatype,
					    enum fi_op op, void *context)
{
	o->ioc = (struct fi_ioc){ .addr = (void *)buf, .count = count };
	o->rioc = (struct fi_rma_ioc){ .addr = addr, .count = count,
				       .key = key };
	o->desc = desc;
	o->msg = (struct fi_msg_atomic){ .msg_iov = &o->ioc,
					 .desc = &o->desc, .iov_count = 1,
					 .addr = dest_addr,
					 .rma_iov = &o->rioc,
					 .rma_iov_count = 1,
					 .datatype = datatype, .op = op,
					 .context = context };
	return &o->msg;
}

static ssize_t vrb_ep_atomic_write(struct fid_ep *ep, const void *buf,
				   size_t count, void *desc,
				   fi_addr_t dest_addr, uint64_t addr,
				   uint64_t key, enum fi_datatype datatype,
				   enum fi_op op, void *context)
{
	struct vrb_atomic_one o;

	return vrb_ep_atomic_writemsg(ep, vrb_atomic_one(&o, buf, count, desc,
							 dest_addr, addr, key,
							 datatype, op,
							 context), 0);
}

static ssize_t vrb_ep_atomic_writev(struct fid_ep *ep,
				    const struct fi_ioc *iov, void **desc,
				    size_t count, fi_addr_t dest_addr,
				    uint64_t addr, uint64_t key,
				    enum fi_datatype datatype, enum fi_op op,
				    void *context)
{
	struct fi_rma_ioc rioc = { .addr = addr, .count = 1, .key = key };
	struct fi_msg_atomic msg = { .msg_iov = iov, .desc = desc,
				     .iov_count = count, .addr = dest_addr,
				     .rma_iov = &rioc, .rma_iov_count = 1,
				     .datatype = datatype, .op = op,
				     .context = context };

	return vrb_ep_atomic_writemsg(ep, &msg, 0);
}

static ssize_t vrb_ep_atomic_inject(struct fid_ep *ep_fid, const void *buf,
				    size_t count, fi_addr_t dest_addr,
				    uint64_t addr, uint64_t key,
				    enum fi_datatype datatype, enum fi_op op)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	struct vrb_atomic_one o;

	if (!ep)
		return -FI_EINVAL;
	return vrb_atomic_post(ep, VRB_AT_WRITE,
			       vrb_atomic_one(&o, buf, count, NULL, dest_addr,
					      addr, key, datatype, op, NULL),
			       NULL, NULL, NULL, FI_INJECT, true);
}

static ssize_t vrb_ep_atomic_readwritemsg(struct fid_ep *ep_fid,
					  const struct fi_msg_atomic *msg,
					  struct fi_ioc *resultv,
					  void **result_desc,
					  size_t result_count, uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	if (!ep || !resultv || result_count != 1 || resultv[0].count != 1)
		return -FI_EINVAL;
	return vrb_atomic_post(ep, VRB_AT_FETCH, msg, NULL, resultv[0].addr,
			       result_desc ? result_desc[0] : NULL, flags,
			       false);
}

static ssize_t vrb_ep_atomic_readwrite(struct fid_ep *ep, const void *buf,
				       size_t count, void *desc, void *result,
				       void *result_desc, fi_addr_t dest_addr,
				       uint64_t addr, uint64_t key,
				       enum fi_datatype datatype,
				       enum fi_op op, void *context)
{
	struct fi_ioc res = { .addr = result, .count = count };
	struct vrb_atomic_one o;

	return vrb_ep_atomic_readwritemsg(ep, vrb_atomic_one(&o, buf, count,
							     desc, dest_addr,
							     addr, key,
							     datatype, op,
							     context),
					  &res, &result_desc, 1, 0);
}

static ssize_t vrb_ep_atomic_readwritev(struct fid_ep *ep,
					const struct fi_ioc *iov, void **desc,
					size_t count, struct fi_ioc *resultv,
					void **result_desc,
					size_t result_count,
					fi_addr_t dest_addr, uint64_t addr,
					uint64_t key,
					enum fi_datatype datatype,
					enum fi_op op, void *context)
{
	struct fi_rma_ioc rioc = { .addr = addr, .count = 1, .key = key };
	struct fi_msg_atomic msg = { .msg_iov = iov, .desc = desc,
				     .iov_count = count, .addr = dest_addr,
				     .rma_iov = &rioc, .rma_iov_count = 1,
				     .datatype = datatype, .op = op,
				     .context = context };

	return vrb_ep_atomic_readwritemsg(ep, &msg, resultv, result_desc,
					  result_count, 0);
}

static ssize_t vrb_ep_atomic_compwritemsg(struct fid_ep *ep_fid,
					  const struct fi_msg_atomic *msg,
					  const struct fi_ioc *comparev,
					  void **compare_desc,
					  size_t compare_count,
					  struct fi_ioc *resultv,
					  void **result_desc,
					  size_t result_count, uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	(void)compare_desc;	/* the comparand travels by value */
	if (!ep || !comparev || compare_count != 1 ||
	    comparev[0].count != 1 || !resultv || result_count != 1 ||
	    resultv[0].count != 1)
		return -FI_EINVAL;
	return vrb_atomic_post(ep, VRB_AT_COMPARE, msg, comparev[0].addr,
			       resultv[0].addr,
			       result_desc ? result_desc[0] : NULL, flags,
			       false);
}

static ssize_t vrb_ep_atomic_compwrite(struct fid_ep *ep, const void *buf,
				       size_t count, void *desc,
				       const void *compare,
				       void *compare_desc, void *result,
				       void *result_desc,
				       fi_addr_t dest_addr, uint64_t addr,
				       uint64_t key,
				       enum fi_datatype datatype,
				       enum fi_op op, void *context)
{
	struct fi_ioc cmp = { .addr = (void *)compare, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };
	struct vrb_atomic_one o;

	return vrb_ep_atomic_compwritemsg(ep, vrb_atomic_one(&o, buf, count,
							     desc, dest_addr,
							     addr, key,
							     datatype, op,
							     context),
					  &cmp, &compare_desc, 1, &res,
					  &result_desc, 1, 0);
}

static ssize_t vrb_ep_atomic_compwritev(struct fid_ep *ep,
					const struct fi_ioc *iov, void **desc,
					size_t count,
					const struct fi_ioc *comparev,
					void **compare_desc,
					size_t compare_count,
					struct fi_ioc *resultv,
					void **result_desc,
					size_t result_count,
					fi_addr_t dest_addr, uint64_t addr,
					uint64_t key,
					enum fi_datatype datatype,
					enum fi_op op, void *context)
{
	struct fi_rma_ioc rioc = { .addr = addr, .count = 1, .key = key };
	struct fi_msg_atomic msg = { .msg_iov = iov, .desc = desc,
				     .iov_count = count, .addr = dest_addr,
				     .rma_iov = &rioc, .rma_iov_count = 1,
				     .datatype = datatype, .op = op,
				     .context = context };

	return vrb_ep_atomic_compwritemsg(ep, &msg, comparev, compare_desc,
					  compare_count, resultv, result_desc,
					  result_count, 0);
}

struct fi_ops_atomic vrb_ep_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = vrb_ep_atomic_write,
	.writev = vrb_ep_atomic_writev,
	.writemsg = vrb_ep_atomic_writemsg,
	.inject = vrb_ep_atomic_inject,
	.readwrite = vrb_ep_atomic_readwrite,
	.readwritev = vrb_ep_atomic_readwritev,
	.readwritemsg = vrb_ep_atomic_readwritemsg,
	.compwrite = vrb_ep_atomic_compwrite,
	.compwritev = vrb_ep_atomic_compwritev,
	.compwritemsg = vrb_ep_atomic_compwritemsg,
	.writevalid = vrb_ep_writevalid,
	.readwritevalid = vrb_ep_readwritevalid,
	.compwritevalid = vrb_ep_compwritevalid,
};
