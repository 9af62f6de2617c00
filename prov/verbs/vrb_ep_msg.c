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

int vrb_ep_sge_fill(struct ibv_sge *sge, size_t max, const struct iovec *iov,
		    void **desc, size_t count, size_t *len_p, bool *nodesc_p)
{
	size_t i, len = 0;
	bool ok, nodesc = false;

	if (count > max || (count && !iov))
		return -FI_EINVAL;
	for (i = 0; i < count; i++) {
		sge[i].addr = (uintptr_t)iov[i].iov_base;
		sge[i].length = (uint32_t)iov[i].iov_len;
		sge[i].lkey = vrb_mr_lkey(desc ? desc[i] : NULL, &ok);
		/* FI_MR_LOCAL: a buffer the device reads or writes must be
		 * registered; the caller lets an inline send through */
		if (!ok)
			sge[i].lkey = 0;
		if (iov[i].iov_len > UINT32_MAX)
			return -FI_EMSGSIZE;
		len += iov[i].iov_len;
		if (!ok && iov[i].iov_len)
			nodesc = true;
	}
	*len_p = len;
	*nodesc_p = nodesc;
	return (int)count;
}

ssize_t vrb_ep_post_send(struct vrb_ep *ep, struct ibv_send_wr *wr,
			 void *context, uint64_t flags, size_t len,
			 bool report)
{
	struct ibv_send_wr *bad;
	struct vrb_op *op;
	ssize_t ret = 0;

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
	op = &ep->tx_ops[ep->tx_head % ep->tx_size];
	op->context = context;
	op->flags = flags;
	op->len = len;
	op->buf = NULL;
	op->report = report;
	wr->wr_id = ep->tx_head << 1;
	wr->next = NULL;
	ret = ibv_post_send(ep->qp, wr, &bad);
	if (ret) {
		ret = ret == ENOMEM ? -FI_EAGAIN : -FI_EIO;
		goto out;
	}
	ep->tx_head++;
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

static ssize_t vrb_ep_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			      uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	struct ibv_sge sge[VRB_IOV_MAX];
	struct ibv_recv_wr wr, *bad;
	struct vrb_op *op;
	size_t len;
	bool nodesc;
	int n;
	ssize_t ret = 0;

	if (!ep || !msg)
		return -FI_EINVAL;
	n = vrb_ep_sge_fill(sge, ep->rx_iov_limit, msg->msg_iov, msg->desc,
			    msg->iov_count, &len, &nodesc);
	if (n < 0)
		return n;
	if (nodesc)
		return -FI_EINVAL;	/* FI_MR_LOCAL: desc required */
	flags |= ep->rx_op_flags;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	wr.num_sge = n;
	pthread_mutex_lock(&ep->lock);
	if (!ep->qp) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (ep->rx_head - ep->rx_tail >= ep->rx_size) {
		ret = -FI_EAGAIN;
		goto out;
	}
	op = &ep->rx_ops[ep->rx_head % ep->rx_size];
	op->context = msg->context;
	op->flags = FI_MSG | FI_RECV;
	op->len = len;
	op->buf = n ? msg->msg_iov[0].iov_base : NULL;
	op->report = pl_ep_op_completes(ep->base.rx_cq_flags, flags, false);
	wr.wr_id = (ep->rx_head << 1) | 1;
	ret = ibv_post_recv(ep->qp, &wr, &bad);
	if (ret) {
		ret = ret == ENOMEM ? -FI_EAGAIN : -FI_EIO;
		goto out;
	}
	ep->rx_head++;
out:
	pthread_mutex_unlock(&ep->lock);
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
	struct ibv_sge sge[VRB_IOV_MAX];
	struct ibv_send_wr wr;
	size_t len;
	bool report, nodesc;
	int n;

	if (!msg)
		return -FI_EINVAL;
	n = vrb_ep_sge_fill(sge, ep->tx_iov_limit, msg->msg_iov, msg->desc,
			    msg->iov_count, &len, &nodesc);
	if (n < 0)
		return n;
	flags |= ep->tx_op_flags;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = IBV_WR_SEND;
	if (flags & FI_REMOTE_CQ_DATA) {
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl((uint32_t)msg->data);
	}
	if (len <= ep->inline_size) {
		wr.send_flags |= IBV_SEND_INLINE;
	} else if (inject || (flags & FI_INJECT)) {
		return -FI_EMSGSIZE;	/* past the inline room */
	} else if (nodesc) {
		return -FI_EINVAL;	/* FI_MR_LOCAL: desc required */
	}
	report = !inject &&
		 pl_ep_op_completes(ep->base.tx_cq_flags, flags, false);
	return vrb_ep_post_send(ep, &wr, msg->context, FI_MSG | FI_SEND, len,
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
