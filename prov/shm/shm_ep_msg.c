/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg(3) on the shm endpoint: thin adapters onto the shared send and
 * receive paths (shm_ep_tx.c, shm_ep_rx.c). Calls without a flags
 * argument use the endpoint's default op_flags (fi_endpoint(3)).
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "shm_ep.h"

/* The endpoint behind e (an alias resolves to its parent). */
static inline struct shm_ep *shm_ep_from(struct fid_ep *e)
{
	uint64_t txf, rxf;

	return shm_ep_of(e, &txf, &rxf);
}
/* What an application may pass in a flags argument (never ours). */
#define SHM_EP_APP_FLAGS(f) ((f) & ~SHM_EP_F_NOCOMP)

static ssize_t shm_msg_recvv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct pl_match_recv r = {
		.iov = iov, .desc = desc, .iov_count = count, .src = src,
		.context = context, .flags = rx_op_flags,
	};

	return shm_ep_recv(ep, PL_MATCH_MSG, &r);
}

static ssize_t shm_msg_recv(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return shm_msg_recvv(e, &iov, &desc, 1, src, context);
}

static ssize_t shm_msg_recvmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	struct pl_match_recv r;

	if (!msg)
		return -FI_EINVAL;
	r = (struct pl_match_recv){
		.iov = msg->msg_iov, .desc = msg->desc,
		.iov_count = msg->iov_count, .src = msg->addr,
		.context = msg->context, .flags = SHM_EP_APP_FLAGS(flags),
	};
	return shm_ep_recv(shm_ep_from(e), PL_MATCH_MSG, &r);
}

static ssize_t shm_msg_sendv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t dest,
			     void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);

	(void)desc;
	return shm_ep_send(ep, iov, count, dest, 0, 0, context,
			   tx_op_flags);
}

static ssize_t shm_msg_send(struct fid_ep *e, const void *buf, size_t len,
			    void *desc, fi_addr_t dest, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_msg_sendv(e, &iov, &desc, 1, dest, context);
}

static ssize_t shm_msg_sendmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return shm_ep_send(shm_ep_from(e), msg->msg_iov, msg->iov_count,
			   msg->addr, 0, msg->data, msg->context,
			   SHM_EP_APP_FLAGS(flags));
}

static ssize_t shm_msg_senddata(struct fid_ep *e, const void *buf, size_t len,
				void *desc, uint64_t data, fi_addr_t dest,
				void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return shm_ep_send(ep, &iov, 1, dest, 0, data, context,
			   tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t shm_msg_inject(struct fid_ep *e, const void *buf, size_t len,
			      fi_addr_t dest)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_ep_send(ep, &iov, 1, dest, 0, 0, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_INJECT |
			   SHM_EP_F_NOCOMP);
}

static ssize_t shm_msg_injectdata(struct fid_ep *e, const void *buf,
				  size_t len, uint64_t data, fi_addr_t dest)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct shm_ep *ep = shm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return shm_ep_send(ep, &iov, 1, dest, 0, data, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_INJECT |
			   FI_REMOTE_CQ_DATA | SHM_EP_F_NOCOMP);
}

const struct fi_ops_msg shm_ep_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = shm_msg_recv,
	.recvv = shm_msg_recvv,
	.recvmsg = shm_msg_recvmsg,
	.send = shm_msg_send,
	.sendv = shm_msg_sendv,
	.sendmsg = shm_msg_sendmsg,
	.inject = shm_msg_inject,
	.senddata = shm_msg_senddata,
	.injectdata = shm_msg_injectdata,
};
