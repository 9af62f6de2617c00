/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma(3) on a tcp endpoint, emulated over the stream: a write carries
 * its payload and is acknowledged by the target once placed (or refused:
 * the target checks key, range and access before any byte lands, and the
 * refusal comes back as the initiator's error completion); a read sends a
 * request and completes when the answer's payload is in place. An
 * operation that names several remote buffers (fi_readmsg / fi_writemsg,
 * up to TCP_RMA_IOV_MAX) is sent as one wire operation per buffer, its
 * parts (TCP_F_PART on all but the last); it completes once, when every
 * part did (tcp_xfer.owner). Under ep->lock (tcp_ep.h).
 */
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "pl_compiler.h"
#include "pl_iov.h"
#include "tcp_ep.h"

#define TCP_RMA_FLAGS (FI_COMPLETION | FI_INJECT | FI_REMOTE_CQ_DATA | \
	FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE | \
	FI_FENCE | FI_MORE | FI_RMA | FI_READ | FI_WRITE)

static ssize_t tcp_rma_post(struct tcp_ep *ep, bool is_read,
			    const struct iovec *iov, size_t count,
			    uint64_t addr, uint64_t key, uint64_t data,
			    void *context, uint64_t flags, bool silent)
{
	struct tcp_post p = {
		.op = is_read ? TCP_OP_READ_REQ : TCP_OP_WRITE,
		/* a write is always acknowledged: the target's refusal must
		 * reach the initiator as an error completion */
		.hdr_flags = is_read ? 0 : (uint8_t)(TCP_F_ACK_REQ |
			((flags & FI_REMOTE_CQ_DATA) ? TCP_F_CQ_DATA : 0)),
		.iov = iov, .count = count, .tag_addr = addr, .key = key,
		.data = data, .context = context, .flags = flags,
		.silent = silent,
		.cq_flags = FI_RMA | (is_read ? FI_READ : FI_WRITE),
	};

	if (flags & ~TCP_RMA_FLAGS)
		return -FI_EBADFLAGS;
	if (!(ep->base.caps & FI_RMA))
		return -FI_EOPNOTSUPP;
	if (is_read && (flags & (FI_INJECT | FI_REMOTE_CQ_DATA)))
		return -FI_EINVAL;
	return tcp_ep_post(ep, &p);
}

/* fi_readmsg / fi_writemsg: one part per remote buffer, each taking its
 * share of the local iovs in order. */
static ssize_t tcp_rma_post_msg(struct tcp_ep *ep, bool is_read,
				const struct fi_msg_rma *msg, uint64_t flags)
{
	struct iovec piece[TCP_RMA_IOV_MAX][TCP_IOV_MAX];
	struct tcp_post p[TCP_RMA_IOV_MAX];
	size_t n, i, total;
	uint64_t off = 0;

	if (!msg || !msg->rma_iov || !msg->rma_iov_count ||
	    msg->rma_iov_count > TCP_RMA_IOV_MAX ||
	    msg->iov_count > TCP_IOV_MAX ||
	    (msg->iov_count && !msg->msg_iov))
		return -FI_EINVAL;
	n = msg->rma_iov_count;
	total = tcp_iov_total(msg->msg_iov, msg->iov_count);
	for (i = 0; i < n; i++)
		off += msg->rma_iov[i].len;
	if (off != total)
		return -FI_EINVAL;
	if (n == 1)
		return tcp_rma_post(ep, is_read, msg->msg_iov, msg->iov_count,
				    msg->rma_iov[0].addr, msg->rma_iov[0].key,
				    msg->data, msg->context, flags, false);
	if (flags & ~TCP_RMA_FLAGS)
		return -FI_EBADFLAGS;
	if (!(ep->base.caps & FI_RMA))
		return -FI_EOPNOTSUPP;
	if (is_read && (flags & (FI_INJECT | FI_REMOTE_CQ_DATA)))
		return -FI_EINVAL;
	/* an inject's bytes are copied at the call: all of them, once */
	if ((flags & FI_INJECT) && total > ep->max_inject)
		return -FI_EINVAL;
	for (i = 0, off = 0; i < n; i++) {
		bool last = i + 1 == n;
		uint8_t hf = last ? 0 : TCP_F_PART;

		if (!is_read)
			hf |= TCP_F_ACK_REQ |
			      ((last && (flags & FI_REMOTE_CQ_DATA)) ?
			       TCP_F_CQ_DATA : 0);
		p[i] = (struct tcp_post){
			.op = is_read ? TCP_OP_READ_REQ : TCP_OP_WRITE,
			.hdr_flags = hf,
			.iov = piece[i],
			.count = pl_iov_slice(msg->msg_iov, msg->iov_count, off,
					      msg->rma_iov[i].len, piece[i]),
			.tag_addr = msg->rma_iov[i].addr,
			.key = msg->rma_iov[i].key,
			.data = msg->data,
			.context = msg->context,
			.flags = flags,
			.cq_flags = FI_RMA | (is_read ? FI_READ : FI_WRITE),
		};
		off += msg->rma_iov[i].len;
	}
	return tcp_ep_post_parts(ep, p, n);
}

static struct tcp_ep *tcp_rma_ep(struct fid_ep *e)
{
	return pl_container_of(e, struct tcp_ep, base.ep_fid);
}

static ssize_t tcp_rma_read(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, uint64_t addr,
			    uint64_t key, void *context)
{
	struct tcp_ep *ep = tcp_rma_ep(e);
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	(void)src;
	return tcp_rma_post(ep, true, &iov, 1, addr, key, 0, context,
			    ep->tx_op_flags & TCP_RMA_FLAGS &
			    ~(uint64_t)FI_INJECT, false);
}

static ssize_t tcp_rma_readv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     uint64_t addr, uint64_t key, void *context)
{
	struct tcp_ep *ep = tcp_rma_ep(e);

	(void)desc;
	(void)src;
	return tcp_rma_post(ep, true, iov, count, addr, key, 0, context,
			    ep->tx_op_flags & TCP_RMA_FLAGS &
			    ~(uint64_t)FI_INJECT, false);
}

static ssize_t tcp_rma_readmsg(struct fid_ep *e, const struct fi_msg_rma *msg,
			       uint64_t flags)
{
	return tcp_rma_post_msg(tcp_rma_ep(e), true, msg, flags);
}

static ssize_t tcp_rma_write(struct fid_ep *e, const void *buf, size_t len,
			     void *desc, fi_addr_t dest, uint64_t addr,
			     uint64_t key, void *context)
{
	struct tcp_ep *ep = tcp_rma_ep(e);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	(void)dest;
	return tcp_rma_post(ep, false, &iov, 1, addr, key, 0, context,
			    ep->tx_op_flags & TCP_RMA_FLAGS, false);
}

static ssize_t tcp_rma_writev(struct fid_ep *e, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t dest,
			      uint64_t addr, uint64_t key, void *context)
{
	struct tcp_ep *ep = tcp_rma_ep(e);

	(void)desc;
	(void)dest;
	return tcp_rma_post(ep, false, iov, count, addr, key, 0, context,
			    ep->tx_op_flags & TCP_RMA_FLAGS, false);
}

static ssize_t tcp_rma_writemsg(struct fid_ep *e,
				const struct fi_msg_rma *msg, uint64_t flags)
{
	return tcp_rma_post_msg(tcp_rma_ep(e), false, msg, flags);
}

static ssize_t tcp_rma_inject(struct fid_ep *e, const void *buf, size_t len,
			      fi_addr_t dest, uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)dest;
	return tcp_rma_post(tcp_rma_ep(e), false, &iov, 1, addr, key, 0, NULL,
			    FI_INJECT, true);
}

static ssize_t tcp_rma_writedata(struct fid_ep *e, const void *buf,
				 size_t len, void *desc, uint64_t data,
				 fi_addr_t dest, uint64_t addr, uint64_t key,
				 void *context)
{
	struct tcp_ep *ep = tcp_rma_ep(e);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	(void)dest;
	return tcp_rma_post(ep, false, &iov, 1, addr, key, data, context,
			    (ep->tx_op_flags & TCP_RMA_FLAGS) |
			    FI_REMOTE_CQ_DATA, false);
}

static ssize_t tcp_rma_injectdata(struct fid_ep *e, const void *buf,
				  size_t len, uint64_t data, fi_addr_t dest,
				  uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)dest;
	return tcp_rma_post(tcp_rma_ep(e), false, &iov, 1, addr, key, data,
			    NULL, FI_INJECT | FI_REMOTE_CQ_DATA, true);
}

struct fi_ops_rma tcp_ep_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = tcp_rma_read,
	.readv = tcp_rma_readv,
	.readmsg = tcp_rma_readmsg,
	.write = tcp_rma_write,
	.writev = tcp_rma_writev,
	.writemsg = tcp_rma_writemsg,
	.inject = tcp_rma_inject,
	.writedata = tcp_rma_writedata,
	.injectdata = tcp_rma_injectdata,
};
