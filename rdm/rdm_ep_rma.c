/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma(3) on the RDM endpoint core, initiator side, and the submission
 * path atomics share (rdm_rma.h): each request goes to the transport's
 * rma op with a tx entry as its context, and completes through
 * rdm_ep_tx_done when the target answered. Inject variants write no
 * completion, but an error is still reported (fi_cq(3)).
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_iov.h"
#include "rdm_rma.h"

static int rdm_ep_rma_xfer(struct rdm_ep *ep, void *tpeer,
			   const struct rdm_ep_rma_req *r,
			   struct rdm_ep_txe *t)
{
	struct rdm_rma_msg m = {
		.kind = r->kind,
		.iov = r->iov,
		.iov_count = r->count,
		.addr = r->addr,
		.key = r->key,
		.cq_data = r->data,
		.amo = r->amo,
		.amo_len = r->amo_len,
		.context = t,
	};

	if (r->kind == RDM_RMA_WRITE)
		m.flags = ((r->flags & FI_REMOTE_CQ_DATA) ? RDM_TX_CQ_DATA : 0) |
			  ((r->flags & FI_INJECT) ? RDM_TX_INJECT : 0);
	return ep->tops->rma(ep, tpeer, &m);
}

ssize_t rdm_ep_rma_submit(struct rdm_ep *ep, const struct rdm_ep_rma_req *r)
{
	ssize_t ret;

	if (r->count && !r->iov)
		return -FI_EINVAL;
	rdm_ep_lock(ep);
	ret = rdm_ep_rma_submit_locked(ep, r);
	rdm_ep_unlock(ep);
	/* a transport that lists what it hands to a peer provider hands
	 * it over now, with no lock of ours held (rdm_transport.h) */
	if (PL_UNLIKELY(ep->tops->unlocked != NULL))
		ep->tops->unlocked(ep);
	return ret;
}

ssize_t rdm_ep_rma_submit_locked(struct rdm_ep *ep,
				 const struct rdm_ep_rma_req *r)
{
	struct rdm_ep_txe *t;
	void *tpeer;
	int ret;

	if (!ep->ready)
		return -FI_EOPBADSTATE;
	if (!ep->tops->rma)
		return -FI_EOPNOTSUPP;
	ret = rdm_ep_peer_get(ep, r->dest, &tpeer);
	if (ret)
		return ret;
	t = rdm_ep_txe_get(ep);
	if (!t) {
		/* every entry waits for its completion: move them on */
		rdm_ep_poll(ep, PL_PROGRESS_POLL_BUDGET);
		t = rdm_ep_txe_get(ep);
		if (!t)
			return -FI_EAGAIN;
	}
	t->cq_ep = ep;
	t->context = r->context;
	t->flags = r->cq_flags;
	t->op_flags = r->flags;
	t->len = r->len;
	ret = rdm_ep_rma_xfer(ep, tpeer, r, t);
	if (ret == -FI_EAGAIN) {
		rdm_ep_poll(ep, PL_PROGRESS_POLL_BUDGET);
		ret = rdm_ep_rma_xfer(ep, tpeer, r, t);
	}
	if (ret == 0) {
		/* complete on the spot (rdm_transport.h) */
		rdm_ep_tx_done(ep, t, 0);
	} else if (ret == 1) {
		ret = 0;	/* rdm_ep_tx_done follows */
	} else {
		rdm_ep_txe_put(ep, t);
	}
	return ret;
}

/* Common checks and submission of one write or read. */
static ssize_t rdm_ep_rma_op(struct fid_ep *e, enum rdm_rma_kind kind,
			     const struct iovec *iov, size_t count,
			     fi_addr_t dest, uint64_t addr, uint64_t key,
			     uint64_t data, void *context, uint64_t flags,
			     bool use_defaults)
{
	uint64_t txf, rxf;
	struct rdm_ep *ep = rdm_ep_of(e, &txf, &rxf);
	struct rdm_ep_rma_req r;
	size_t len;

	if (count > ep->rma_iov_local || (count && !iov))
		return -FI_EINVAL;
	if (use_defaults)
		flags |= txf & ~(uint64_t)(FI_INJECT | FI_REMOTE_CQ_DATA);
	len = pl_iov_total(iov, count);
	if ((flags & FI_INJECT) && (kind != RDM_RMA_WRITE ||
				    len > ep->inject_size))
		return -FI_EINVAL;
	r = (struct rdm_ep_rma_req){
		.kind = kind, .iov = iov, .count = count, .dest = dest,
		.addr = addr, .key = key, .data = data, .context = context,
		.flags = flags, .len = len,
		.cq_flags = FI_RMA | (kind == RDM_RMA_READ ? FI_READ :
				      FI_WRITE),
	};
	return rdm_ep_rma_submit(ep, &r);
}

static ssize_t rdm_rma_readv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return rdm_ep_rma_op(e, RDM_RMA_READ, iov, count, src, addr, key, 0,
			     context, 0, true);
}

static ssize_t rdm_rma_read(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, uint64_t addr,
			    uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return rdm_rma_readv(e, &iov, &desc, 1, src, addr, key, context);
}

/* A message naming remote buffers: their lengths cover the local ones. */
static ssize_t rdm_rma_msg_check(struct fid_ep *e, const struct fi_msg_rma *msg)
{
	uint64_t txf, rxf;
	struct rdm_ep *ep = rdm_ep_of(e, &txf, &rxf);
	size_t len, rlen = 0, i;

	if (!msg || !msg->rma_iov_count || !msg->rma_iov ||
	    msg->rma_iov_count > RDM_RMA_IOV_MAX ||
	    (msg->iov_count && !msg->msg_iov) ||
	    msg->iov_count > ep->rma_iov_local)
		return -FI_EINVAL;
	len = pl_iov_total(msg->msg_iov, msg->msg_iov ? msg->iov_count : 0);
	for (i = 0; i < msg->rma_iov_count; i++)
		rlen += msg->rma_iov[i].len;
	return len > rlen ? -FI_EINVAL : 0;
}

static ssize_t rdm_rma_msg(struct fid_ep *e, enum rdm_rma_kind kind,
			   const struct fi_msg_rma *msg, uint64_t flags)
{
	uint64_t txf, rxf;
	ssize_t ret = rdm_rma_msg_check(e, msg);

	if (ret)
		return ret;
	if (msg->rma_iov_count > 1)
		return rdm_ep_rma_multi(rdm_ep_of(e, &txf, &rxf), kind, msg,
					RDM_EP_APP_FLAGS(flags));
	return rdm_ep_rma_op(e, kind, msg->msg_iov, msg->iov_count, msg->addr,
			     msg->rma_iov[0].addr, msg->rma_iov[0].key,
			     kind == RDM_RMA_WRITE ? msg->data : 0,
			     msg->context, RDM_EP_APP_FLAGS(flags), false);
}

static ssize_t rdm_rma_readmsg(struct fid_ep *e, const struct fi_msg_rma *msg,
			       uint64_t flags)
{
	return rdm_rma_msg(e, RDM_RMA_READ, msg, flags);
}

static ssize_t rdm_rma_writev(struct fid_ep *e, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t dest,
			      uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return rdm_ep_rma_op(e, RDM_RMA_WRITE, iov, count, dest, addr, key, 0,
			     context, 0, true);
}

static ssize_t rdm_rma_write(struct fid_ep *e, const void *buf, size_t len,
			     void *desc, fi_addr_t dest, uint64_t addr,
			     uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_rma_writev(e, &iov, &desc, 1, dest, addr, key, context);
}

static ssize_t rdm_rma_writemsg(struct fid_ep *e,
				const struct fi_msg_rma *msg, uint64_t flags)
{
	return rdm_rma_msg(e, RDM_RMA_WRITE, msg, flags);
}

static ssize_t rdm_rma_writedata(struct fid_ep *e, const void *buf,
				 size_t len, void *desc, uint64_t data,
				 fi_addr_t dest, uint64_t addr, uint64_t key,
				 void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return rdm_ep_rma_op(e, RDM_RMA_WRITE, &iov, 1, dest, addr, key, data,
			     context, FI_REMOTE_CQ_DATA, true);
}

static ssize_t rdm_rma_inject(struct fid_ep *e, const void *buf, size_t len,
			      fi_addr_t dest, uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_rma_op(e, RDM_RMA_WRITE, &iov, 1, dest, addr, key, 0,
			     NULL, FI_INJECT | RDM_EP_F_NOCOMP, true);
}

static ssize_t rdm_rma_injectdata(struct fid_ep *e, const void *buf,
				  size_t len, uint64_t data, fi_addr_t dest,
				  uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_rma_op(e, RDM_RMA_WRITE, &iov, 1, dest, addr, key, data,
			     NULL,
			     FI_INJECT | FI_REMOTE_CQ_DATA | RDM_EP_F_NOCOMP,
			     true);
}

const struct fi_ops_rma rdm_ep_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = rdm_rma_read,
	.readv = rdm_rma_readv,
	.readmsg = rdm_rma_readmsg,
	.write = rdm_rma_write,
	.writev = rdm_rma_writev,
	.writemsg = rdm_rma_writemsg,
	.inject = rdm_rma_inject,
	.writedata = rdm_rma_writedata,
	.injectdata = rdm_rma_injectdata,
};
