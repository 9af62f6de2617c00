/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_atomic(3) on the RDM endpoint core, initiator side: the operands
 * (and compare values) are gathered into one request (struct
 * rdm_atomic_req, rdm_rma.h), the transport's target applies it and
 * sends the old values back into the result buffers. One remote buffer
 * per operation (rma_iov_count 1); at most the transport's
 * atomic_max_bytes of operands in all (fi_atomicvalid's count).
 *
 * Completion flags: FI_ATOMIC | FI_WRITE for fi_atomic, FI_ATOMIC |
 * FI_READ for fetch and compare atomics; counters accordingly.
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "rdm_rma.h"

struct rdm_ep_amo {
	enum rdm_atomic_kind	kind;
	const struct fi_ioc	*buf;	size_t buf_count;
	const struct fi_ioc	*cmp;	size_t cmp_count;
	const struct fi_ioc	*res;	size_t res_count;
	fi_addr_t		dest;
	uint64_t		addr, key;
	enum fi_datatype	dt;
	enum fi_op		op;
	void			*context;
	uint64_t		flags;
};

/* Sum of the counts, or SIZE_MAX on a malformed list. */
static size_t rdm_ep_ioc_count(const struct fi_ioc *ioc, size_t n)
{
	size_t total = 0, i;

	if (n && !ioc)
		return SIZE_MAX;
	for (i = 0; i < n; i++) {
		if (ioc[i].count && !ioc[i].addr)
			return SIZE_MAX;
		total += ioc[i].count;
	}
	return total;
}

static uint8_t *rdm_ep_ioc_gather(uint8_t *p, const struct fi_ioc *ioc,
				  size_t n, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(p, ioc[i].addr, ioc[i].count * size);
		p += ioc[i].count * size;
	}
	return p;
}

static ssize_t rdm_ep_amo_submit(struct fid_ep *e, const struct rdm_ep_amo *a,
				 bool use_defaults)
{
	uint8_t reqbuf[sizeof(struct rdm_atomic_req) +
		       2 * RDM_ATOMIC_MAX_BYTES];
	struct rdm_atomic_req *req = (struct rdm_atomic_req *)reqbuf;
	struct iovec riov[RDM_ATOMIC_IOV_MAX];
	struct rdm_ep_rma_req r;
	uint64_t txf, rxf, flags = a->flags;
	struct rdm_ep *ep = rdm_ep_of(e, &txf, &rxf);
	size_t max, size, count, i;
	bool operand;
	uint8_t *p;
	int ret;

	ret = rdm_atomic_query(a->dt, a->op, a->kind, ep->atomic_max_bytes,
			       &max, &size);
	if (ret)
		return ret;
	/* fi_atomic(3): a fetching ATOMIC_READ ignores the source buffer,
	 * which may be NULL, alone or inside an iovec ({NULL, 1}); its
	 * count is the result's */
	operand = !(a->op == FI_ATOMIC_READ && a->kind != RDM_ATOMIC_WRITE);
	count = operand ? rdm_ep_ioc_count(a->buf, a->buf_count) :
			  rdm_ep_ioc_count(a->res, a->res_count);
	if (!count || count == SIZE_MAX || count > max)
		return -FI_EINVAL;
	if (a->kind == RDM_ATOMIC_COMPARE &&
	    rdm_ep_ioc_count(a->cmp, a->cmp_count) != count)
		return -FI_EINVAL;
	if (a->kind != RDM_ATOMIC_WRITE &&
	    (rdm_ep_ioc_count(a->res, a->res_count) != count ||
	     a->res_count > ep->rma_iov_local ||
	     a->res_count > RDM_ATOMIC_IOV_MAX))
		return -FI_EINVAL;
	if (use_defaults)
		flags |= txf & ~(uint64_t)(FI_INJECT | FI_REMOTE_CQ_DATA);

	memset(req, 0, sizeof(*req));
	req->op = (uint8_t)a->op;
	req->datatype = (uint8_t)a->dt;
	req->kind = (uint8_t)a->kind;
	req->count = (uint32_t)count;
	p = req->data;
	if (operand)
		p = rdm_ep_ioc_gather(p, a->buf, a->buf_count, size);
	else
		memset(p, 0, count * size), p += count * size;
	if (a->kind == RDM_ATOMIC_COMPARE)
		p = rdm_ep_ioc_gather(p, a->cmp, a->cmp_count, size);

	for (i = 0; a->kind != RDM_ATOMIC_WRITE && i < a->res_count; i++) {
		riov[i].iov_base = a->res[i].addr;
		riov[i].iov_len = a->res[i].count * size;
	}
	r = (struct rdm_ep_rma_req){
		.kind = RDM_RMA_ATOMIC,
		.iov = riov,
		.count = a->kind == RDM_ATOMIC_WRITE ? 0 : a->res_count,
		.dest = a->dest, .addr = a->addr, .key = a->key,
		.context = a->context, .flags = flags,
		.cq_flags = FI_ATOMIC | (a->kind == RDM_ATOMIC_WRITE ?
					 FI_WRITE : FI_READ),
		.len = count * size,
		.amo = req, .amo_len = (size_t)(p - reqbuf),
	};
	return rdm_ep_rma_submit(ep, &r);
}

static ssize_t rdm_amo_writev(struct fid_ep *e, const struct fi_ioc *iov,
			      void **desc, size_t count, fi_addr_t dest,
			      uint64_t addr, uint64_t key, enum fi_datatype dt,
			      enum fi_op op, void *context)
{
	struct rdm_ep_amo a = {
		.kind = RDM_ATOMIC_WRITE, .buf = iov, .buf_count = count,
		.dest = dest, .addr = addr, .key = key, .dt = dt, .op = op,
		.context = context,
	};

	(void)desc;
	return rdm_ep_amo_submit(e, &a, true);
}

static ssize_t rdm_amo_write(struct fid_ep *e, const void *buf, size_t count,
			     void *desc, fi_addr_t dest, uint64_t addr,
			     uint64_t key, enum fi_datatype dt, enum fi_op op,
			     void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };

	return rdm_amo_writev(e, &ioc, &desc, 1, dest, addr, key, dt, op,
			      context);
}

static ssize_t rdm_amo_writemsg(struct fid_ep *e,
				const struct fi_msg_atomic *msg,
				uint64_t flags)
{
	struct rdm_ep_amo a;

	if (!msg || msg->rma_iov_count != 1 || !msg->rma_iov)
		return -FI_EINVAL;
	a = (struct rdm_ep_amo){
		.kind = RDM_ATOMIC_WRITE, .buf = msg->msg_iov,
		.buf_count = msg->iov_count, .dest = msg->addr,
		.addr = msg->rma_iov[0].addr, .key = msg->rma_iov[0].key,
		.dt = msg->datatype, .op = msg->op, .context = msg->context,
		.flags = RDM_EP_APP_FLAGS(flags),
	};
	return rdm_ep_amo_submit(e, &a, false);
}

static ssize_t rdm_amo_inject(struct fid_ep *e, const void *buf, size_t count,
			      fi_addr_t dest, uint64_t addr, uint64_t key,
			      enum fi_datatype dt, enum fi_op op)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct rdm_ep_amo a = {
		.kind = RDM_ATOMIC_WRITE, .buf = &ioc, .buf_count = 1,
		.dest = dest, .addr = addr, .key = key, .dt = dt, .op = op,
		.flags = FI_INJECT | RDM_EP_F_NOCOMP,
	};

	return rdm_ep_amo_submit(e, &a, true);
}

static ssize_t rdm_amo_readwritev(struct fid_ep *e, const struct fi_ioc *iov,
				  void **desc, size_t count,
				  struct fi_ioc *resultv, void **result_desc,
				  size_t result_count, fi_addr_t dest,
				  uint64_t addr, uint64_t key,
				  enum fi_datatype dt, enum fi_op op,
				  void *context)
{
	struct rdm_ep_amo a = {
		.kind = RDM_ATOMIC_FETCH, .buf = iov, .buf_count = count,
		.res = resultv, .res_count = result_count, .dest = dest,
		.addr = addr, .key = key, .dt = dt, .op = op,
		.context = context,
	};

	(void)desc;
	(void)result_desc;
	return rdm_ep_amo_submit(e, &a, true);
}

static ssize_t rdm_amo_readwrite(struct fid_ep *e, const void *buf,
				 size_t count, void *desc, void *result,
				 void *result_desc, fi_addr_t dest,
				 uint64_t addr, uint64_t key,
				 enum fi_datatype dt, enum fi_op op,
				 void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return rdm_amo_readwritev(e, buf ? &ioc : NULL, &desc, buf ? 1 : 0,
				  &res, &result_desc, 1, dest, addr, key, dt,
				  op, context);
}

static ssize_t rdm_amo_readwritemsg(struct fid_ep *e,
				    const struct fi_msg_atomic *msg,
				    struct fi_ioc *resultv, void **result_desc,
				    size_t result_count, uint64_t flags)
{
	struct rdm_ep_amo a;

	(void)result_desc;
	if (!msg || msg->rma_iov_count != 1 || !msg->rma_iov)
		return -FI_EINVAL;
	a = (struct rdm_ep_amo){
		.kind = RDM_ATOMIC_FETCH, .buf = msg->msg_iov,
		.buf_count = msg->iov_count, .res = resultv,
		.res_count = result_count, .dest = msg->addr,
		.addr = msg->rma_iov[0].addr, .key = msg->rma_iov[0].key,
		.dt = msg->datatype, .op = msg->op, .context = msg->context,
		.flags = RDM_EP_APP_FLAGS(flags),
	};
	return rdm_ep_amo_submit(e, &a, false);
}

static ssize_t rdm_amo_compwritev(struct fid_ep *e, const struct fi_ioc *iov,
				  void **desc, size_t count,
				  const struct fi_ioc *comparev,
				  void **compare_desc, size_t compare_count,
				  struct fi_ioc *resultv, void **result_desc,
				  size_t result_count, fi_addr_t dest,
				  uint64_t addr, uint64_t key,
				  enum fi_datatype dt, enum fi_op op,
				  void *context)
{
	struct rdm_ep_amo a = {
		.kind = RDM_ATOMIC_COMPARE, .buf = iov, .buf_count = count,
		.cmp = comparev, .cmp_count = compare_count, .res = resultv,
		.res_count = result_count, .dest = dest, .addr = addr,
		.key = key, .dt = dt, .op = op, .context = context,
	};

	(void)desc;
	(void)compare_desc;
	(void)result_desc;
	return rdm_ep_amo_submit(e, &a, true);
}

static ssize_t rdm_amo_compwrite(struct fid_ep *e, const void *buf,
				 size_t count, void *desc, const void *compare,
				 void *compare_desc, void *result,
				 void *result_desc, fi_addr_t dest,
				 uint64_t addr, uint64_t key,
				 enum fi_datatype dt, enum fi_op op,
				 void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct fi_ioc cmp = { .addr = (void *)compare, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return rdm_amo_compwritev(e, &ioc, &desc, 1, &cmp, &compare_desc, 1,
				  &res, &result_desc, 1, dest, addr, key, dt,
				  op, context);
}

static ssize_t rdm_amo_compwritemsg(struct fid_ep *e,
				    const struct fi_msg_atomic *msg,
				    const struct fi_ioc *comparev,
				    void **compare_desc, size_t compare_count,
				    struct fi_ioc *resultv, void **result_desc,
				    size_t result_count, uint64_t flags)
{
	struct rdm_ep_amo a;

	(void)compare_desc;
	(void)result_desc;
	if (!msg || msg->rma_iov_count != 1 || !msg->rma_iov)
		return -FI_EINVAL;
	a = (struct rdm_ep_amo){
		.kind = RDM_ATOMIC_COMPARE, .buf = msg->msg_iov,
		.buf_count = msg->iov_count, .cmp = comparev,
		.cmp_count = compare_count, .res = resultv,
		.res_count = result_count, .dest = msg->addr,
		.addr = msg->rma_iov[0].addr, .key = msg->rma_iov[0].key,
		.dt = msg->datatype, .op = msg->op, .context = msg->context,
		.flags = RDM_EP_APP_FLAGS(flags),
	};
	return rdm_ep_amo_submit(e, &a, false);
}

static int rdm_amo_valid(struct fid_ep *e, enum fi_datatype dt,
			 enum fi_op op, enum rdm_atomic_kind kind,
			 size_t *count)
{
	uint64_t txf, rxf;
	struct rdm_ep *ep;
	size_t n;
	int ret;

	if (!e || !count)
		return -FI_EINVAL;
	ep = rdm_ep_of(e, &txf, &rxf);
	ret = rdm_atomic_query(dt, op, kind, ep->atomic_max_bytes, &n, NULL);
	if (ret)
		return ret;
	*count = n;
	return 0;
}

static int rdm_amo_writevalid(struct fid_ep *e, enum fi_datatype dt,
			      enum fi_op op, size_t *count)
{
	return rdm_amo_valid(e, dt, op, RDM_ATOMIC_WRITE, count);
}

static int rdm_amo_readwritevalid(struct fid_ep *e, enum fi_datatype dt,
				  enum fi_op op, size_t *count)
{
	return rdm_amo_valid(e, dt, op, RDM_ATOMIC_FETCH, count);
}

static int rdm_amo_compwritevalid(struct fid_ep *e, enum fi_datatype dt,
				  enum fi_op op, size_t *count)
{
	return rdm_amo_valid(e, dt, op, RDM_ATOMIC_COMPARE, count);
}

const struct fi_ops_atomic rdm_ep_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = rdm_amo_write,
	.writev = rdm_amo_writev,
	.writemsg = rdm_amo_writemsg,
	.inject = rdm_amo_inject,
	.readwrite = rdm_amo_readwrite,
	.readwritev = rdm_amo_readwritev,
	.readwritemsg = rdm_amo_readwritemsg,
	.compwrite = rdm_amo_compwrite,
	.compwritev = rdm_amo_compwritev,
	.compwritemsg = rdm_amo_compwritemsg,
	.writevalid = rdm_amo_writevalid,
	.readwritevalid = rdm_amo_readwritevalid,
	.compwritevalid = rdm_amo_compwritevalid,
};
