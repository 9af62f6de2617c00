/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_tagged(3) on the shm endpoint: the fi_msg adapters with a tag, an
 * ignore mask on receives (directed receive, FI_PEEK / FI_CLAIM /
 * FI_DISCARD through trecvmsg).
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "shm_ep.h"

/* The endpoint behind e (an alias resolves to its parent). */
static inline struct shm_ep *shm_ep_from(struct fid_ep *e)
{
	uint64_t txf, rxf;

	return shm_ep_of(e, &txf, &rxf);
}
#define SHM_EP_APP_FLAGS(f) ((f) & ~SHM_EP_F_NOCOMP)

static ssize_t shm_tagged_recvv(struct fid_ep *e, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t src,
				uint64_t tag, uint64_t ignore, void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct pl_match_recv r = {
		.iov = iov, .desc = desc, .iov_count = count, .src = src,
		.tag = tag, .ignore = ignore, .context = context,
		/* FI_MULTI_RECV is for untagged receives only */
		.flags = rx_op_flags & ~FI_MULTI_RECV,
	};

	return shm_ep_recv(ep, PL_MATCH_TAGGED, &r);
}

static ssize_t shm_tagged_recv(struct fid_ep *e, void *buf, size_t len,
			       void *desc, fi_addr_t src, uint64_t tag,
			       uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return shm_tagged_recvv(e, &iov, &desc, 1, src, tag, ignore, context);
}

static ssize_t shm_tagged_recvmsg(struct fid_ep *e,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	struct pl_match_recv r;

	if (!msg)
		return -FI_EINVAL;
	r = (struct pl_match_recv){
		.iov = msg->msg_iov, .desc = msg->desc,
		.iov_count = msg->iov_count, .src = msg->addr,
		.tag = msg->tag, .ignore = msg->ignore,
		.context = msg->context, .flags = SHM_EP_APP_FLAGS(flags),
	};
	return shm_ep_recv(shm_ep_from(e), PL_MATCH_TAGGED, &r);
}

static ssize_t shm_tagged_sendv(struct fid_ep *e, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t dest,
				uint64_t tag, void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);

	(void)desc;
	return shm_ep_send(ep, iov, count, dest, tag, 0, context,
			   tx_op_flags | FI_TAGGED);
}

static ssize_t shm_tagged_send(struct fid_ep *e, const void *buf, size_t len,
			       void *desc, fi_addr_t dest, uint64_t tag,
			       void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_tagged_sendv(e, &iov, &desc, 1, dest, tag, context);
}

static ssize_t shm_tagged_sendmsg(struct fid_ep *e,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return shm_ep_send(shm_ep_from(e), msg->msg_iov, msg->iov_count,
			   msg->addr, msg->tag, msg->data, msg->context,
			   SHM_EP_APP_FLAGS(flags) | FI_TAGGED);
}

static ssize_t shm_tagged_senddata(struct fid_ep *e, const void *buf,
				   size_t len, void *desc, uint64_t data,
				   fi_addr_t dest, uint64_t tag, void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return shm_ep_send(ep, &iov, 1, dest, tag, data, context,
			   tx_op_flags | FI_TAGGED | FI_REMOTE_CQ_DATA);
}

static ssize_t shm_tagged_inject(struct fid_ep *e, const void *buf,
				 size_t len, fi_addr_t dest, uint64_t tag)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_ep_send(ep, &iov, 1, dest, tag, 0, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_TAGGED |
			   FI_INJECT | SHM_EP_F_NOCOMP);
}

static ssize_t shm_tagged_injectdata(struct fid_ep *e, const void *buf,
				     size_t len, uint64_t data,
				     fi_addr_t dest, uint64_t tag)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_ep_send(ep, &iov, 1, dest, tag, data, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_TAGGED |
			   FI_INJECT | FI_REMOTE_CQ_DATA | SHM_EP_F_NOCOMP);
}

const struct fi_ops_tagged shm_ep_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = shm_tagged_recv,
	.recvv = shm_tagged_recvv,
	.recvmsg = shm_tagged_recvmsg,
	.send = shm_tagged_send,
	.sendv = shm_tagged_sendv,
	.sendmsg = shm_tagged_sendmsg,
	.inject = shm_tagged_inject,
	.senddata = shm_tagged_senddata,
	.injectdata = shm_tagged_injectdata,
};
