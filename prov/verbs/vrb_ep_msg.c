/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg on a verbs endpoint: receives are posted to the QP's receive
 * queue, sends (with immediate data for fi_senddata) to its send queue.
 * Each post takes the next slot of its ring (vrb_prov.h); the slot tells
 * the completion (vrb_ep_cq.c) what to report. A send that fits the QP's
 * inline room goes inline: the device copies it at the post, so it needs
 * no descriptor and the buffer is free at once (fi_inject).
 */
#include <arpa/inet.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "vrb_prov.h"

/* Under ep->lock: the registrations of sgl move to ring slot seq. */
static uint8_t vrb_ep_keep_mrc(struct pl_mrc_entry **row, size_t lim,
			       const struct vrb_sgl *sgl)
{
	int i;

	for (i = 0; i < sgl->nmrc && (size_t)i < lim; i++)
		row[i] = sgl->mrc[i];
	return (uint8_t)sgl->nmrc;
}

ssize_t vrb_ep_post_send(struct vrb_ep *ep, struct ibv_send_wr *wr,
			 struct vrb_sgl *sgl, void *context, uint64_t flags,
			 bool report)
{
	struct ibv_send_wr *bad;
	struct vrb_op *op;
	ssize_t ret = 0;
	size_t slot;

	pthread_mutex_lock(&ep->lock);
	if (!ep->qp) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (ep->state != VRB_EP_CONNECTED) {
		ret = -FI_ENOTCONN;
		goto out;
	}
	if (ep->tx_head - ep->tx_tail >= ep->tx_size) {
		ret = -FI_EAGAIN;	/* the application reads its CQ */
		goto out;
	}
	slot = ep->tx_head % ep->tx_size;
	op = &ep->tx_ops[slot];
	op->context = context;
	op->flags = flags;
	op->len = sgl->len;
	op->buf = NULL;
	op->report = report;
	op->canceled = false;
	op->nmrc = vrb_ep_keep_mrc(&ep->tx_mrc[slot * ep->tx_iov_limit],
				   ep->tx_iov_limit, sgl);
	wr->wr_id = ep->tx_head << 1;
	wr->next = NULL;
	wr->sg_list = sgl->sge;
	wr->num_sge = sgl->n;
	ret = ibv_post_send(ep->qp, wr, &bad);
	if (ret) {
		op->nmrc = 0;
		ret = ret == ENOMEM ? -FI_EAGAIN : -FI_EIO;
		goto out;
	}
	ep->tx_head++;
out:
	pthread_mutex_unlock(&ep->lock);
	if (ret)
		vrb_ep_sge_release(ep->dom, sgl);
	return ret;
}

static ssize_t vrb_ep_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			      uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	struct vrb_sgl sgl;
	struct ibv_recv_wr wr, *bad;
	struct vrb_op *op;
	size_t slot;
	ssize_t ret;

	if (!ep || !msg)
		return -FI_EINVAL;
	if (ep->srx)
		return -FI_EOPBADSTATE;	/* receives go to the shared context */
	ret = vrb_ep_sge_fill(ep->dom, &sgl, ep->rx_iov_limit, msg->msg_iov,
			      msg->desc, msg->iov_count, 0, FI_RECV);
	if (ret)
		return ret;
	flags |= ep->rx_op_flags;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sgl.sge;
	wr.num_sge = sgl.n;
	pthread_mutex_lock(&ep->lock);
	if (!ep->qp) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (ep->rx_head - ep->rx_tail >= ep->rx_size) {
		ret = -FI_EAGAIN;
		goto out;
	}
	slot = ep->rx_head % ep->rx_size;
	op = &ep->rx_ops[slot];
	op->context = msg->context;
	op->flags = FI_MSG | FI_RECV;
	op->len = sgl.len;
	op->buf = sgl.n ? msg->msg_iov[0].iov_base : NULL;
	op->report = pl_ep_op_completes(ep->base.rx_cq_flags, flags, false);
	op->canceled = false;
	op->nmrc = vrb_ep_keep_mrc(&ep->rx_mrc[slot * ep->rx_iov_limit],
				   ep->rx_iov_limit, &sgl);
	wr.wr_id = (ep->rx_head << 1) | 1;
	ret = ibv_post_recv(ep->qp, &wr, &bad);
	if (ret) {
		op->nmrc = 0;
		ret = ret == ENOMEM ? -FI_EAGAIN : -FI_EIO;
		goto out;
	}
	ep->rx_head++;
out:
	pthread_mutex_unlock(&ep->lock);
	if (ret)
		vrb_ep_sge_release(ep->dom, &sgl);
	return ret;
}

static ssize_t vrb_ep_recv(struct fid_ep *ep, void *buf, size_t len,
			   void *desc, fi_addr_t src_addr, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .desc = &desc,
			      .iov_count = 1, .addr = src_addr,
			      .context = context };

	return vrb_ep_recvmsg(ep, &msg, 0);
}

static ssize_t vrb_ep_recvv(struct fid_ep *ep, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t src_addr,
			    void *context)
{
	struct fi_msg msg = { .msg_iov = iov, .desc = desc,
			      .iov_count = count, .addr = src_addr,
			      .context = context };

	return vrb_ep_recvmsg(ep, &msg, 0);
}

/* Every send: msg, its flags (FI_REMOTE_CQ_DATA with msg->data, FI_INJECT
 * ...), and whether a completion is reported (false for fi_inject). */
static ssize_t vrb_ep_send_common(struct vrb_ep *ep, const struct fi_msg *msg,
				  uint64_t flags, bool inject)
{
	struct vrb_sgl sgl;
	struct ibv_send_wr wr;
	bool report;
	int ret;

	if (!msg)
		return -FI_EINVAL;
	flags |= ep->tx_op_flags;
	ret = vrb_ep_sge_fill(ep->dom, &sgl, ep->tx_iov_limit, msg->msg_iov,
			      msg->desc, msg->iov_count, ep->inline_size,
			      FI_SEND);
	if (ret)
		return ret;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	if (flags & FI_REMOTE_CQ_DATA) {
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl((uint32_t)msg->data);
	}
	if (sgl.len <= ep->inline_size) {
		wr.send_flags |= IBV_SEND_INLINE;
	} else if (inject || (flags & FI_INJECT)) {
		vrb_ep_sge_release(ep->dom, &sgl);
		return -FI_EMSGSIZE;	/* past the inline room */
	}
	report = !inject &&
		 pl_ep_op_completes(ep->base.tx_cq_flags, flags, false);
	return vrb_ep_post_send(ep, &wr, &sgl, msg->context, FI_MSG | FI_SEND,
				report);
}

static ssize_t vrb_ep_sendmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			      uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	if (!ep)
		return -FI_EINVAL;
	return vrb_ep_send_common(ep, msg, flags, false);
}

static ssize_t vrb_ep_send(struct fid_ep *ep, const void *buf, size_t len,
			   void *desc, fi_addr_t dest_addr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .desc = &desc,
			      .iov_count = 1, .addr = dest_addr,
			      .context = context };

	return vrb_ep_sendmsg(ep, &msg, 0);
}

static ssize_t vrb_ep_sendv(struct fid_ep *ep, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t dest_addr,
			    void *context)
{
	struct fi_msg msg = { .msg_iov = iov, .desc = desc,
			      .iov_count = count, .addr = dest_addr,
			      .context = context };

	return vrb_ep_sendmsg(ep, &msg, 0);
}

static ssize_t vrb_ep_senddata(struct fid_ep *ep, const void *buf, size_t len,
			       void *desc, uint64_t data, fi_addr_t dest_addr,
			       void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .desc = &desc,
			      .iov_count = 1, .addr = dest_addr,
			      .context = context, .data = data };

	return vrb_ep_sendmsg(ep, &msg, FI_REMOTE_CQ_DATA);
}

static ssize_t vrb_ep_inject(struct fid_ep *ep_fid, const void *buf,
			     size_t len, fi_addr_t dest_addr)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
			      .addr = dest_addr };

	if (!ep)
		return -FI_EINVAL;
	return vrb_ep_send_common(ep, &msg, FI_INJECT, true);
}

static ssize_t vrb_ep_injectdata(struct fid_ep *ep_fid, const void *buf,
				 size_t len, uint64_t data, fi_addr_t dest_addr)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
			      .addr = dest_addr, .data = data };

	if (!ep)
		return -FI_EINVAL;
	return vrb_ep_send_common(ep, &msg, FI_INJECT | FI_REMOTE_CQ_DATA,
				  true);
}

struct fi_ops_msg vrb_ep_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = vrb_ep_recv,
	.recvv = vrb_ep_recvv,
	.recvmsg = vrb_ep_recvmsg,
	.send = vrb_ep_send,
	.sendv = vrb_ep_sendv,
	.sendmsg = vrb_ep_sendmsg,
	.inject = vrb_ep_inject,
	.senddata = vrb_ep_senddata,
	.injectdata = vrb_ep_injectdata,
};
