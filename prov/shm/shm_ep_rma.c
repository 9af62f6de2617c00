/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma(3) on the shm endpoint, initiator side, and the submission path
 * atomics share (shm_ep_rma.h). Each protocol request names one remote
 * buffer (readmsg / writemsg with several: shm_ep_rma_multi.c) and waits
 * for the target's verdict:
 * it completes when the target acknowledged (a write placed, a read's
 * data in our buffers), or in error with what the target refused
 * (-FI_EKEYREJECTED, -FI_EACCES; see shm_ep_rma_rx.c). Inject variants
 * write no completion, but an error is still reported (fi_cq(3)).
 *
 * Completion flags: FI_RMA | FI_WRITE or FI_RMA | FI_READ; the write /
 * read counter (rdm_ep_cq.c picks it from those flags).
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "shm_ep_rma.h"
#include "shm_info.h"

static int shm_ep_rma_msg_of(const struct shm_ep_rma_req *r,
			     struct shm_xfer_msg *m, struct rdm_ep_txe *t)
{
	*m = (struct shm_xfer_msg){
		.iov = r->iov,
		.iov_count = r->count,
		.tag = r->addr,
		.cq_data = r->data,
		.rma_key = r->key,
		.context = t,
	};
	if (r->kind != SHM_EP_RMA_WRITE)
		return 0;
	m->flags = SHM_XF_RMA_WRITE |
		   ((r->flags & FI_REMOTE_CQ_DATA) ? SHM_XF_CQ_DATA : 0) |
		   ((r->flags & FI_INJECT) ? SHM_XF_INJECT : 0);
	return 0;
}

static int shm_ep_rma_xfer(struct shm_ep *ep, struct shm_xfer_peer *xp,
			   const struct shm_ep_rma_req *r,
			   const struct shm_xfer_msg *m)
{
	switch (r->kind) {
	case SHM_EP_RMA_WRITE:
		return shm_xfer_send(ep->xep, xp, m);
	case SHM_EP_RMA_READ:
		return shm_xfer_read(ep->xep, xp, m);
	default:
		return shm_xfer_atomic(ep->xep, xp, m, r->amo, r->amo_len);
	}
}

ssize_t shm_ep_rma_submit(struct shm_ep *ep, const struct shm_ep_rma_req *r)
{
	ssize_t ret;

	if (r->count && !r->iov)
		return -FI_EINVAL;
	rdm_ep_lock(&ep->rdm);
	ret = shm_ep_rma_submit_locked(ep, r);
	rdm_ep_unlock(&ep->rdm);
	return ret;
}

ssize_t shm_ep_rma_submit_locked(struct shm_ep *ep,
				 const struct shm_ep_rma_req *r)
{
	struct shm_xfer_peer *xp;
	struct shm_xfer_msg m;
	struct rdm_ep_txe *t;
	int ret;

	if (!ep->xep) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	ret = shm_ep_peer_get(ep, r->dest, &xp);
	if (ret)
		goto out;
	t = rdm_ep_txe_get(&ep->rdm);
	if (!t) {
		/* every entry waits for its completion: move them on */
		rdm_ep_poll(&ep->rdm, PL_PROGRESS_POLL_BUDGET);
		t = rdm_ep_txe_get(&ep->rdm);
		if (!t) {
			ret = -FI_EAGAIN;
			goto out;
		}
	}
	t->context = r->context;
	t->flags = r->cq_flags;
	t->op_flags = r->flags;
	t->len = r->len;
	shm_ep_rma_msg_of(r, &m, t);
	ret = shm_ep_rma_xfer(ep, xp, r, &m);
	if (ret == -FI_EAGAIN) {
		rdm_ep_poll(&ep->rdm, PL_PROGRESS_POLL_BUDGET);
		ret = shm_ep_rma_xfer(ep, xp, r, &m);
	}
	if (ret == 0) {
		/* not expected (every RMA is acknowledged), but complete */
		shm_ep_tx_complete(ep, r->context, t->flags, r->flags, r->len,
				   0);
		rdm_ep_txe_put(&ep->rdm, t);
	} else if (ret == 1) {
		ret = 0;	/* tx_done follows */
	} else {
		rdm_ep_txe_put(&ep->rdm, t);
	}
out:
	return ret;
}

static size_t shm_ep_iov_len(const struct iovec *iov, size_t count)
{
	size_t len = 0, i;

	for (i = 0; i < count; i++)
		len += iov[i].iov_len;
	return len;
}

/* Common checks and submission of one write or read. */
static ssize_t shm_ep_rma_op(struct fid_ep *e, enum shm_ep_rma_kind kind,
			     const struct iovec *iov, size_t count,
			     fi_addr_t dest, uint64_t addr, uint64_t key,
			     uint64_t data, void *context, uint64_t flags,
			     bool use_defaults)
{
	uint64_t txf, rxf;
	struct shm_ep *ep = shm_ep_of(e, &txf, &rxf);
	struct shm_ep_rma_req r;
	size_t len;

	if (count > SHM_XFER_IOV_MAX || (count && !iov))
		return -FI_EINVAL;
	if (use_defaults)
		flags |= txf & ~(uint64_t)(FI_INJECT | FI_REMOTE_CQ_DATA);
	len = shm_ep_iov_len(iov, count);
	if ((flags & FI_INJECT) && (kind != SHM_EP_RMA_WRITE ||
				    len > SHM_INJECT_SIZE))
		return -FI_EINVAL;
	r = (struct shm_ep_rma_req){
		.kind = kind, .iov = iov, .count = count, .dest = dest,
		.addr = addr, .key = key, .data = data, .context = context,
		.flags = flags, .len = len,
		.cq_flags = FI_RMA | (kind == SHM_EP_RMA_READ ? FI_READ :
				      FI_WRITE),
	};
	return shm_ep_rma_submit(ep, &r);
}

static ssize_t shm_rma_readv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return shm_ep_rma_op(e, SHM_EP_RMA_READ, iov, count, src, addr, key,
			     0, context, 0, true);
}

static ssize_t shm_rma_read(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, uint64_t addr,
			    uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return shm_rma_readv(e, &iov, &desc, 1, src, addr, key, context);
}

static ssize_t shm_rma_msg_check(const struct fi_msg_rma *msg,
				 uint64_t *len_p)
{
	size_t len, rlen = 0, i;

	if (!msg || !msg->rma_iov_count || !msg->rma_iov ||
	    msg->rma_iov_count > SHM_EP_RMA_IOV_MAX ||
	    (msg->iov_count && !msg->msg_iov) ||
	    msg->iov_count > SHM_XFER_IOV_MAX)
		return -FI_EINVAL;
	len = shm_ep_iov_len(msg->msg_iov, msg->msg_iov ? msg->iov_count : 0);
	for (i = 0; i < msg->rma_iov_count; i++)
		rlen += msg->rma_iov[i].len;
	if (len > rlen)
		return -FI_EINVAL;
	*len_p = len;
	return 0;
}

static ssize_t shm_rma_readmsg(struct fid_ep *e, const struct fi_msg_rma *msg,
			       uint64_t flags)
{
	uint64_t len;
	ssize_t ret = shm_rma_msg_check(msg, &len);

	if (ret)
		return ret;
	if (msg->rma_iov_count > 1)
		return shm_ep_rma_multi(e, SHM_EP_RMA_READ, msg,
					RDM_EP_APP_FLAGS(flags));
	return shm_ep_rma_op(e, SHM_EP_RMA_READ, msg->msg_iov, msg->iov_count,
			     msg->addr, msg->rma_iov[0].addr,
			     msg->rma_iov[0].key, 0, msg->context,
			     RDM_EP_APP_FLAGS(flags), false);
}

static ssize_t shm_rma_writev(struct fid_ep *e, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t dest,
			      uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return shm_ep_rma_op(e, SHM_EP_RMA_WRITE, iov, count, dest, addr, key,
			     0, context, 0, true);
}

static ssize_t shm_rma_write(struct fid_ep *e, const void *buf, size_t len,
			     void *desc, fi_addr_t dest, uint64_t addr,
			     uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_rma_writev(e, &iov, &desc, 1, dest, addr, key, context);
}

static ssize_t shm_rma_writemsg(struct fid_ep *e,
				const struct fi_msg_rma *msg, uint64_t flags)
{
	uint64_t len;
	ssize_t ret = shm_rma_msg_check(msg, &len);

	if (ret)
		return ret;
	if (msg->rma_iov_count > 1)
		return shm_ep_rma_multi(e, SHM_EP_RMA_WRITE, msg,
					RDM_EP_APP_FLAGS(flags));
	return shm_ep_rma_op(e, SHM_EP_RMA_WRITE, msg->msg_iov,
			     msg->iov_count, msg->addr, msg->rma_iov[0].addr,
			     msg->rma_iov[0].key, msg->data, msg->context,
			     RDM_EP_APP_FLAGS(flags), false);
}

static ssize_t shm_rma_writedata(struct fid_ep *e, const void *buf,
				 size_t len, void *desc, uint64_t data,
				 fi_addr_t dest, uint64_t addr, uint64_t key,
				 void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return shm_ep_rma_op(e, SHM_EP_RMA_WRITE, &iov, 1, dest, addr, key,
			     data, context, FI_REMOTE_CQ_DATA, true);
}

static ssize_t shm_rma_inject(struct fid_ep *e, const void *buf, size_t len,
			      fi_addr_t dest, uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_ep_rma_op(e, SHM_EP_RMA_WRITE, &iov, 1, dest, addr, key, 0,
			     NULL, FI_INJECT | RDM_EP_F_NOCOMP, true);
}

static ssize_t shm_rma_injectdata(struct fid_ep *e, const void *buf,
				  size_t len, uint64_t data, fi_addr_t dest,
				  uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_ep_rma_op(e, SHM_EP_RMA_WRITE, &iov, 1, dest, addr, key,
			     data, NULL,
			     FI_INJECT | FI_REMOTE_CQ_DATA | RDM_EP_F_NOCOMP,
			     true);
}

const struct fi_ops_rma shm_ep_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = shm_rma_read,
	.readv = shm_rma_readv,
	.readmsg = shm_rma_readmsg,
	.write = shm_rma_write,
	.writev = shm_rma_writev,
	.writemsg = shm_rma_writemsg,
	.inject = shm_rma_inject,
	.writedata = shm_rma_writedata,
	.injectdata = shm_rma_injectdata,
};
