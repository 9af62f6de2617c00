/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_tagged(3) on an RDM endpoint: the fi_msg adapters with a tag, an
 * ignore mask on receives (directed receive, FI_PEEK / FI_CLAIM /
 * FI_DISCARD through trecvmsg).
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "rdm_ep.h"
#include "rdm_ep_tx.h"

static ssize_t rdm_ep_tagged_recvv(struct fid_ep *e, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t src,
				uint64_t tag, uint64_t ignore, void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	/* FI_MULTI_RECV is for untagged receives only */
	struct pl_match_recv r = rdm_ep_recv_of(iov, desc, count, src, tag,
						ignore, context,
						rx_op_flags & ~FI_MULTI_RECV);

	return rdm_ep_rx_post(ep, PL_MATCH_TAGGED, &r);
}

static ssize_t rdm_ep_tagged_recv(struct fid_ep *e, void *buf, size_t len,
			       void *desc, fi_addr_t src, uint64_t tag,
			       uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return rdm_ep_tagged_recvv(e, &iov, &desc, 1, src, tag, ignore, context);
}

static ssize_t rdm_ep_tagged_recvmsg(struct fid_ep *e,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	struct pl_match_recv r;

	if (!msg)
		return -FI_EINVAL;
	r = rdm_ep_recv_of_tmsg(msg, flags);
	return rdm_ep_rx_post(rdm_ep_of_fid(&e->fid), PL_MATCH_TAGGED, &r);
}

static ssize_t rdm_ep_tagged_sendv(struct fid_ep *e, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t dest,
				uint64_t tag, void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);

	(void)desc;
	return rdm_ep_tx_send(ep, iov, count, dest, tag, 0, context,
			   tx_op_flags | FI_TAGGED);
}

static ssize_t rdm_ep_tagged_send(struct fid_ep *e, const void *buf, size_t len,
			       void *desc, fi_addr_t dest, uint64_t tag,
			       void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_tagged_sendv(e, &iov, &desc, 1, dest, tag, context);
}

static ssize_t rdm_ep_tagged_sendmsg(struct fid_ep *e,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return rdm_ep_tx_send(rdm_ep_of_fid(&e->fid), msg->msg_iov, msg->iov_count,
			   msg->addr, msg->tag, msg->data, msg->context,
			   RDM_EP_APP_FLAGS(flags) | FI_TAGGED);
}

static ssize_t rdm_ep_tagged_senddata(struct fid_ep *e, const void *buf,
				   size_t len, void *desc, uint64_t data,
				   fi_addr_t dest, uint64_t tag, void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return rdm_ep_tx_send(ep, &iov, 1, dest, tag, data, context,
			   tx_op_flags | FI_TAGGED | FI_REMOTE_CQ_DATA);
}

static ssize_t rdm_ep_tagged_inject(struct fid_ep *e, const void *buf,
				 size_t len, fi_addr_t dest, uint64_t tag)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_tx_send(ep, &iov, 1, dest, tag, 0, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_TAGGED |
			   FI_INJECT | RDM_EP_F_NOCOMP);
}

static ssize_t rdm_ep_tagged_injectdata(struct fid_ep *e, const void *buf,
				     size_t len, uint64_t data,
				     fi_addr_t dest, uint64_t tag)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_tx_send(ep, &iov, 1, dest, tag, data, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_TAGGED |
			   FI_INJECT | FI_REMOTE_CQ_DATA | RDM_EP_F_NOCOMP);
}

const struct fi_ops_tagged rdm_ep_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = rdm_ep_tagged_recv,
	.recvv = rdm_ep_tagged_recvv,
	.recvmsg = rdm_ep_tagged_recvmsg,
	.send = rdm_ep_tagged_send,
	.sendv = rdm_ep_tagged_sendv,
	.sendmsg = rdm_ep_tagged_sendmsg,
	.inject = rdm_ep_tagged_inject,
	.senddata = rdm_ep_tagged_senddata,
	.injectdata = rdm_ep_tagged_injectdata,
};
