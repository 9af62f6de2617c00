/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg(3) and fi_tagged(3) on a tcp endpoint: the posting side. A send
 * becomes an xfer in the send queue and leaves at once when the queue was
 * empty (one sendmsg of header and payload); a receive joins the posted
 * queue and, when the stream was stalled waiting for one, takes the
 * waiting message right away. Under ep->lock (tcp_ep.h).
 */
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "pl_compiler.h"
#include "tcp_ep.h"

/* Flags a send may carry (fi_sendmsg / fi_tsendmsg). */
#define TCP_SEND_FLAGS (FI_COMPLETION | FI_INJECT | FI_REMOTE_CQ_DATA | \
	FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE | \
	FI_FENCE | FI_MORE | FI_TAGGED | FI_MSG | FI_SEND)
#define TCP_RECV_FLAGS (FI_COMPLETION | FI_MULTI_RECV | FI_MORE | \
	FI_TAGGED | FI_MSG | FI_RECV)

static ssize_t tcp_ep_send_common(struct tcp_ep *ep, uint8_t op,
				  const struct iovec *iov, size_t count,
				  uint64_t tag, uint64_t data, void *context,
				  uint64_t flags, bool silent)
{
	struct tcp_post p = {
		.op = op,
		.hdr_flags = ((flags & FI_REMOTE_CQ_DATA) ? TCP_F_CQ_DATA : 0) |
			     ((flags & FI_DELIVERY_COMPLETE) ? TCP_F_ACK_REQ : 0),
		.iov = iov, .count = count, .tag_addr = tag, .data = data,
		.context = context, .flags = flags, .silent = silent,
		.cq_flags = (op == TCP_OP_TAGGED ? FI_TAGGED : FI_MSG) |
			    FI_SEND,
	};

	if (flags & ~TCP_SEND_FLAGS)
		return -FI_EBADFLAGS;
	if (op == TCP_OP_TAGGED && !(ep->base.caps & FI_TAGGED))
		return -FI_EOPNOTSUPP;
	return tcp_ep_post(ep, &p);
}

ssize_t tcp_ep_post_send(struct tcp_ep *ep, uint8_t op,
			 const struct iovec *iov, size_t count, uint64_t tag,
			 uint64_t data, void *context, uint64_t flags)
{
	return tcp_ep_send_common(ep, op, iov, count, tag, data, context,
				  flags, false);
}

ssize_t tcp_ep_post_recv(struct tcp_ep *ep, bool tagged,
			 const struct iovec *iov, size_t count, uint64_t tag,
			 uint64_t ignore, void *context, uint64_t flags)
{
	struct tcp_rx *rx;
	ssize_t ret = 0;

	if (count > TCP_IOV_MAX || (count && !iov))
		return -FI_EINVAL;
	if (flags & ~TCP_RECV_FLAGS)
		return -FI_EBADFLAGS;
	if (tagged && !(ep->base.caps & FI_TAGGED))
		return -FI_EOPNOTSUPP;
	pthread_mutex_lock(&ep->lock);
	if (ep->srx) {
		ret = -FI_EOPBADSTATE;	/* post to the shared context */
		goto out;
	}
	rx = tcp_ep_rx_get(ep);
	if (!rx) {
		ret = -FI_EAGAIN;
		goto out;
	}
	tcp_rx_fill(rx, tagged, iov, count, tag, ignore, context, flags);
	if (tagged && ep->unexp_head && tcp_ep_rx_match_unexp(ep, rx)) {
		tcp_ep_rx_put(ep, rx);
		goto out;
	}
	tcp_rxq_push(tagged ? &ep->trxq : &ep->rxq, rx);
	if (ep->rs.phase == TCP_RX_STALLED)
		tcp_ep_rx_resume(ep);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

static struct tcp_ep *tcp_ep_msg_ep(struct fid_ep *ep_fid)
{
	return pl_container_of(ep_fid, struct tcp_ep, base.ep_fid);
}

/* ---- fi_msg ---- */

static ssize_t tcp_msg_recv(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	(void)src;
	return tcp_ep_post_recv(ep, false, &iov, 1, 0, 0, context,
				ep->rx_op_flags & TCP_RECV_FLAGS);
}

static ssize_t tcp_msg_recvv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);

	(void)desc;
	(void)src;
	return tcp_ep_post_recv(ep, false, iov, count, 0, 0, context,
				ep->rx_op_flags & TCP_RECV_FLAGS);
}

static ssize_t tcp_msg_recvmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return tcp_ep_post_recv(tcp_ep_msg_ep(e), false, msg->msg_iov,
				msg->iov_count, 0, 0, msg->context, flags);
}

static ssize_t tcp_msg_send(struct fid_ep *e, const void *buf, size_t len,
			    void *desc, fi_addr_t dest, void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	(void)dest;
	return tcp_ep_post_send(ep, TCP_OP_MSG, &iov, 1, 0, 0, context,
				ep->tx_op_flags & TCP_SEND_FLAGS);
}

static ssize_t tcp_msg_sendv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t dest,
			     void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);

	(void)desc;
	(void)dest;
	return tcp_ep_post_send(ep, TCP_OP_MSG, iov, count, 0, 0, context,
				ep->tx_op_flags & TCP_SEND_FLAGS);
}

static ssize_t tcp_msg_sendmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return tcp_ep_post_send(tcp_ep_msg_ep(e), TCP_OP_MSG, msg->msg_iov,
				msg->iov_count, 0, msg->data, msg->context,
				flags);
}

static ssize_t tcp_msg_inject(struct fid_ep *e, const void *buf, size_t len,
			      fi_addr_t dest)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)dest;
	return tcp_ep_send_common(tcp_ep_msg_ep(e), TCP_OP_MSG, &iov, 1, 0, 0,
				  NULL, FI_INJECT, true);
}

static ssize_t tcp_msg_senddata(struct fid_ep *e, const void *buf,
				size_t len, void *desc, uint64_t data,
				fi_addr_t dest, void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	(void)dest;
	return tcp_ep_post_send(ep, TCP_OP_MSG, &iov, 1, 0, data, context,
				(ep->tx_op_flags & TCP_SEND_FLAGS) |
				FI_REMOTE_CQ_DATA);
}

static ssize_t tcp_msg_injectdata(struct fid_ep *e, const void *buf,
				  size_t len, uint64_t data, fi_addr_t dest)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)dest;
	return tcp_ep_send_common(tcp_ep_msg_ep(e), TCP_OP_MSG, &iov, 1, 0,
				  data, NULL, FI_INJECT | FI_REMOTE_CQ_DATA,
				  true);
}

struct fi_ops_msg tcp_ep_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = tcp_msg_recv,
	.recvv = tcp_msg_recvv,
	.recvmsg = tcp_msg_recvmsg,
	.send = tcp_msg_send,
	.sendv = tcp_msg_sendv,
	.sendmsg = tcp_msg_sendmsg,
	.inject = tcp_msg_inject,
	.senddata = tcp_msg_senddata,
	.injectdata = tcp_msg_injectdata,
};

/* ---- fi_tagged ---- */

static ssize_t tcp_tagged_recv(struct fid_ep *e, void *buf, size_t len,
			       void *desc, fi_addr_t src, uint64_t tag,
			       uint64_t ignore, void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	(void)src;
	return tcp_ep_post_recv(ep, true, &iov, 1, tag, ignore, context,
				ep->rx_op_flags & TCP_RECV_FLAGS &
				~(uint64_t)FI_MULTI_RECV);
}

static ssize_t tcp_tagged_recvv(struct fid_ep *e, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t src,
				uint64_t tag, uint64_t ignore, void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);

	(void)desc;
	(void)src;
	return tcp_ep_post_recv(ep, true, iov, count, tag, ignore, context,
				ep->rx_op_flags & TCP_RECV_FLAGS &
				~(uint64_t)FI_MULTI_RECV);
}

static ssize_t tcp_tagged_recvmsg(struct fid_ep *e,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	if (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD | FI_MULTI_RECV))
		return -FI_EOPNOTSUPP;	/* not offered on MSG endpoints */
	return tcp_ep_post_recv(tcp_ep_msg_ep(e), true, msg->msg_iov,
				msg->iov_count, msg->tag, msg->ignore,
				msg->context, flags);
}

static ssize_t tcp_tagged_send(struct fid_ep *e, const void *buf, size_t len,
			       void *desc, fi_addr_t dest, uint64_t tag,
			       void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	(void)dest;
	return tcp_ep_post_send(ep, TCP_OP_TAGGED, &iov, 1, tag, 0, context,
				ep->tx_op_flags & TCP_SEND_FLAGS);
}

static ssize_t tcp_tagged_sendv(struct fid_ep *e, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t dest,
				uint64_t tag, void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);

	(void)desc;
	(void)dest;
	return tcp_ep_post_send(ep, TCP_OP_TAGGED, iov, count, tag, 0,
				context, ep->tx_op_flags & TCP_SEND_FLAGS);
}

static ssize_t tcp_tagged_sendmsg(struct fid_ep *e,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return tcp_ep_post_send(tcp_ep_msg_ep(e), TCP_OP_TAGGED, msg->msg_iov,
				msg->iov_count, msg->tag, msg->data,
				msg->context, flags);
}

static ssize_t tcp_tagged_inject(struct fid_ep *e, const void *buf,
				 size_t len, fi_addr_t dest, uint64_t tag)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)dest;
	return tcp_ep_send_common(tcp_ep_msg_ep(e), TCP_OP_TAGGED, &iov, 1,
				  tag, 0, NULL, FI_INJECT, true);
}

static ssize_t tcp_tagged_senddata(struct fid_ep *e, const void *buf,
				   size_t len, void *desc, uint64_t data,
				   fi_addr_t dest, uint64_t tag, void *context)
{
	struct tcp_ep *ep = tcp_ep_msg_ep(e);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	(void)dest;
	return tcp_ep_post_send(ep, TCP_OP_TAGGED, &iov, 1, tag, data,
				context, (ep->tx_op_flags & TCP_SEND_FLAGS) |
				FI_REMOTE_CQ_DATA);
}

static ssize_t tcp_tagged_injectdata(struct fid_ep *e, const void *buf,
				     size_t len, uint64_t data,
				     fi_addr_t dest, uint64_t tag)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)dest;
	return tcp_ep_send_common(tcp_ep_msg_ep(e), TCP_OP_TAGGED, &iov, 1,
				  tag, data, NULL,
				  FI_INJECT | FI_REMOTE_CQ_DATA, true);
}

struct fi_ops_tagged tcp_ep_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = tcp_tagged_recv,
	.recvv = tcp_tagged_recvv,
	.recvmsg = tcp_tagged_recvmsg,
	.send = tcp_tagged_send,
	.sendv = tcp_tagged_sendv,
	.sendmsg = tcp_tagged_sendmsg,
	.inject = tcp_tagged_inject,
	.senddata = tcp_tagged_senddata,
	.injectdata = tcp_tagged_injectdata,
};
