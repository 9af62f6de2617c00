/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared receive contexts over an ibv SRQ (vrb_srx.h). */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_mrc.h"
#include "vrb_params.h"
#include "vrb_srx.h"

static struct fi_ops vrb_srx_fid_ops;

struct vrb_srx *vrb_srx_of(struct fid *fid)
{
	if (!fid || fid->fclass != FI_CLASS_SRX_CTX ||
	    fid->ops != &vrb_srx_fid_ops)
		return NULL;
	return pl_container_of(fid, struct vrb_srx, ep_fid.fid);
}

void vrb_srx_attach(struct vrb_srx *srx)
{
	pthread_mutex_lock(&srx->lock);
	srx->bound++;
	pthread_mutex_unlock(&srx->lock);
}

void vrb_srx_detach(struct vrb_srx *srx)
{
	pthread_mutex_lock(&srx->lock);
	srx->bound--;
	pthread_mutex_unlock(&srx->lock);
}

bool vrb_srx_take(struct vrb_srx *srx, uint64_t slot, struct vrb_op *op_p,
		  struct pl_mrc_entry **mrc)
{
	int i;

	pthread_mutex_lock(&srx->lock);
	if (slot >= srx->size || !srx->posted[slot]) {
		pthread_mutex_unlock(&srx->lock);
		return false;
	}
	*op_p = srx->ops[slot];
	for (i = 0; i < op_p->nmrc; i++)
		mrc[i] = srx->mrc[slot * srx->iov_limit + i];
	srx->posted[slot] = 0;
	srx->free[srx->nfree++] = (uint32_t)slot;
	pthread_mutex_unlock(&srx->lock);
	return true;
}

ssize_t vrb_srx_left(struct vrb_srx *srx)
{
	ssize_t left;

	pthread_mutex_lock(&srx->lock);
	left = (ssize_t)srx->nfree;
	pthread_mutex_unlock(&srx->lock);
	return left;
}

static ssize_t vrb_srx_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			       uint64_t flags)
{
	struct vrb_srx *srx = ep_fid ? vrb_srx_of(&ep_fid->fid) : NULL;
	struct ibv_recv_wr wr, *bad;
	struct vrb_sgl sgl;
	struct vrb_op *op;
	uint32_t slot;
	ssize_t ret;
	int i;

	if (!srx || !msg)
		return -FI_EINVAL;
	ret = vrb_ep_sge_fill(srx->dom, &sgl, srx->iov_limit, msg->msg_iov,
			      msg->desc, msg->iov_count, 0, FI_RECV);
	if (ret)
		return ret;
	flags |= srx->op_flags;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sgl.sge;
	wr.num_sge = sgl.n;
	pthread_mutex_lock(&srx->lock);
	if (!srx->nfree) {
		ret = -FI_EAGAIN;	/* the application reads its CQs */
		goto out;
	}
	slot = srx->free[srx->nfree - 1];
	op = &srx->ops[slot];
	op->context = msg->context;
	op->flags = FI_MSG | FI_RECV;
	op->len = sgl.len;
	op->buf = sgl.n ? msg->msg_iov[0].iov_base : NULL;
	/* whether the receive asked for a completion; the endpoint it
	 * lands on decides with its FI_SELECTIVE_COMPLETION (vrb_ep_cq.c) */
	op->report = (flags & FI_COMPLETION) != 0;
	op->canceled = false;
	op->nmrc = (uint8_t)sgl.nmrc;
	for (i = 0; i < sgl.nmrc; i++)
		srx->mrc[slot * srx->iov_limit + i] = sgl.mrc[i];
	wr.wr_id = ((uint64_t)slot << 1) | 1;
	ret = ibv_post_srq_recv(srx->srq, &wr, &bad);
	if (ret) {
		op->nmrc = 0;
		ret = ret == ENOMEM ? -FI_EAGAIN : -FI_EIO;
		goto out;
	}
	srx->nfree--;
	srx->posted[slot] = 1;
out:
	pthread_mutex_unlock(&srx->lock);
	if (ret)
		vrb_ep_sge_release(srx->dom, &sgl);
	return ret;
}

static ssize_t vrb_srx_recv(struct fid_ep *ep, void *buf, size_t len,
			    void *desc, fi_addr_t src_addr, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .desc = &desc,
			      .iov_count = 1, .addr = src_addr,
			      .context = context };

	return vrb_srx_recvmsg(ep, &msg, 0);
}

static ssize_t vrb_srx_recvv(struct fid_ep *ep, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src_addr,
			     void *context)
{
	struct fi_msg msg = { .msg_iov = iov, .desc = desc,
			      .iov_count = count, .addr = src_addr,
			      .context = context };

	return vrb_srx_recvmsg(ep, &msg, 0);
}

static ssize_t vrb_srx_rx_size_left(struct fid_ep *ep)
{
	struct vrb_srx *srx = ep ? vrb_srx_of(&ep->fid) : NULL;

	return srx ? vrb_srx_left(srx) : -FI_EINVAL;
}

static void vrb_srx_free(struct vrb_srx *srx)
{
	free(srx->ops);
	free(srx->mrc);
	free(srx->posted);
	free(srx->free);
	pthread_mutex_destroy(&srx->lock);
	free(srx);
}

static int vrb_srx_close(struct fid *fid)
{
	struct vrb_srx *srx = pl_container_of(fid, struct vrb_srx, ep_fid.fid);
	uint32_t slot;
	int i;

	pthread_mutex_lock(&srx->lock);
	if (srx->bound) {
		pthread_mutex_unlock(&srx->lock);
		return -FI_EBUSY;	/* an endpoint's QP still uses the SRQ */
	}
	pthread_mutex_unlock(&srx->lock);
	/* no QP uses the SRQ: its receives can never complete, their
	 * registrations go back with it (no completion: there is no CQ
	 * left to report on, every bound endpoint is closed) */
	(void)ibv_destroy_srq(srx->srq);
	for (slot = 0; slot < srx->size; slot++) {
		if (!srx->posted[slot])
			continue;
		for (i = 0; i < srx->ops[slot].nmrc; i++)
			pl_mrc_put(srx->dom->mrc,
				   srx->mrc[slot * srx->iov_limit + i]);
	}
	pl_domain_child_put(&srx->dom->base);
	vrb_srx_free(srx);
	return 0;
}

static struct fi_ops vrb_srx_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = vrb_srx_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/* fi_cancel is not offered on the SRX: a receive cannot be taken back
 * from an SRQ, and the SRX has no CQ of its own to report the cancel on
 * (provider.md, "fi_cancel"). */
static struct fi_ops_ep vrb_srx_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = pl_fid_nosys_ep_cancel,
	.getopt = pl_fid_nosys_ep_getopt,
	.setopt = pl_fid_nosys_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = vrb_srx_rx_size_left,
	.tx_size_left = pl_fid_nosys_ep_tx_size_left,
};

static struct fi_ops_msg vrb_srx_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = vrb_srx_recv,
	.recvv = vrb_srx_recvv,
	.recvmsg = vrb_srx_recvmsg,
	.send = pl_fid_nosys_msg_send,
	.sendv = pl_fid_nosys_msg_sendv,
	.sendmsg = pl_fid_nosys_msg_sendmsg,
	.inject = pl_fid_nosys_msg_inject,
	.senddata = pl_fid_nosys_msg_senddata,
	.injectdata = pl_fid_nosys_msg_injectdata,
};

/* Depth and iov limit: the application's, else FI_VERBS_RX_SIZE /
 * RX_IOV_LIMIT; within max_srq_wr / max_srq_sge, and the depth within
 * half of max_cqe, because each bound endpoint's CQ must hold every
 * receive of the SRQ besides its own sends (vrb_ep.c). */
static void vrb_srx_limits(struct vrb_srx *srx, const struct fi_rx_attr *attr)
{
	const struct vrb_params *p = vrb_params_get();
	const struct ibv_device_attr *a = &srx->dom->attr;
	size_t size = (attr && attr->size) ? attr->size : p->rx_size;
	size_t iov = (attr && attr->iov_limit) ? attr->iov_limit :
		     p->rx_iov_limit;

	if (size > (size_t)a->max_srq_wr)
		size = (size_t)a->max_srq_wr;
	if (size > (size_t)a->max_cqe / 2)
		size = (size_t)a->max_cqe / 2;
	if (iov > (size_t)a->max_srq_sge)
		iov = (size_t)a->max_srq_sge;
	if (iov > VRB_IOV_MAX)
		iov = VRB_IOV_MAX;
	srx->size = (uint32_t)(size ? size : 1);
	srx->iov_limit = iov ? iov : 1;
}

int vrb_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep_p, void *context)
{
	struct vrb_domain *dom = vrb_domain_of(domain);
	struct ibv_srq_init_attr sa;
	struct vrb_srx *srx;
	uint32_t i;
	int ret;

	if (!dom || !rx_ep_p)
		return -FI_EINVAL;
	if (dom->attr.max_srq <= 0 || dom->attr.max_srq_wr <= 0)
		return -FI_ENOSYS;	/* the device has no SRQ */
	if (attr && (attr->caps & ~(FI_MSG | FI_RECV | FI_LOCAL_COMM |
				   FI_REMOTE_COMM)))
		return -FI_EOPNOTSUPP;	/* tags, multi-receive ... */
	srx = calloc(1, sizeof(*srx));
	if (!srx)
		return -FI_ENOMEM;
	pthread_mutex_init(&srx->lock, NULL);
	srx->dom = dom;
	srx->op_flags = attr ? attr->op_flags : 0;
	vrb_srx_limits(srx, attr);
	srx->ops = calloc(srx->size, sizeof(*srx->ops));
	srx->mrc = calloc((size_t)srx->size * srx->iov_limit,
			  sizeof(*srx->mrc));
	srx->posted = calloc(srx->size, sizeof(*srx->posted));
	srx->free = calloc(srx->size, sizeof(*srx->free));
	if (!srx->ops || !srx->mrc || !srx->posted || !srx->free) {
		ret = -FI_ENOMEM;
		goto err_free;
	}
	/* slot 0 on top: the first receives take the low slots */
	for (i = 0; i < srx->size; i++)
		srx->free[i] = srx->size - 1 - i;
	srx->nfree = srx->size;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = srx->size;
	sa.attr.max_sge = (uint32_t)srx->iov_limit;
	srx->srq = ibv_create_srq(dom->pd, &sa);
	if (!srx->srq) {
		VRB_LOG_WARN(FI_LOG_EP_CTRL, "ibv_create_srq of %u receives "
			     "failed\n", srx->size);
		ret = -FI_ENOMEM;
		goto err_free;
	}
	srx->ep_fid.fid.fclass = FI_CLASS_SRX_CTX;
	srx->ep_fid.fid.context = context;
	srx->ep_fid.fid.ops = &vrb_srx_fid_ops;
	srx->ep_fid.ops = &vrb_srx_ops;
	srx->ep_fid.cm = (struct fi_ops_cm *)&pl_fid_nosys_cm_ops;
	srx->ep_fid.msg = &vrb_srx_msg_ops;
	srx->ep_fid.tagged = (struct fi_ops_tagged *)&pl_fid_nosys_tagged_ops;
	srx->ep_fid.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops;
	srx->ep_fid.atomic = (struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	srx->ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	pl_domain_child_get(&dom->base);
	*rx_ep_p = &srx->ep_fid;
	return 0;

err_free:
	vrb_srx_free(srx);
	return ret;
}
