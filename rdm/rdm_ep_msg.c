/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg(3) on an RDM endpoint: thin adapters onto the shared send and
 * receive paths (rdm_ep_tx.c, rdm_ep_rx.c). Calls without a flags
 * argument use the endpoint's default op_flags (fi_endpoint(3)).
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "rdm_ep.h"
#include "rdm_ep_tx.h"


static ssize_t rdm_ep_msg_recvv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct pl_match_recv r = rdm_ep_recv_of(iov, desc, count, src, 0, 0,
						context, rx_op_flags);

	return rdm_ep_rx_post(ep, PL_MATCH_MSG, &r);
}

static ssize_t rdm_ep_msg_recv(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return rdm_ep_msg_recvv(e, &iov, &desc, 1, src, context);
}

static ssize_t rdm_ep_msg_recvmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	struct pl_match_recv r;

	if (!msg)
		return -FI_EINVAL;
	r = rdm_ep_recv_of_msg(msg, flags);
	return rdm_ep_rx_post(rdm_ep_of_fid(&e->fid), PL_MATCH_MSG, &r);
}

static ssize_t rdm_ep_msg_sendv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t dest,
			     void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);

	(void)desc;
	return rdm_ep_tx_send(ep, iov, count, dest, 0, 0, context,
			   tx_op_flags);
}

static ssize_t rdm_ep_msg_send(struct fid_ep *e, const void *buf, size_t len,
			    void *desc, fi_addr_t dest, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_msg_sendv(e, &iov, &desc, 1, dest, context);
}

static ssize_t rdm_ep_msg_sendmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return rdm_ep_tx_send(rdm_ep_of_fid(&e->fid), msg->msg_iov, msg->iov_count,
			   msg->addr, 0, msg->data, msg->context,
			   RDM_EP_APP_FLAGS(flags));
}

static ssize_t rdm_ep_msg_senddata(struct fid_ep *e, const void *buf, size_t len,
				void *desc, uint64_t data, fi_addr_t dest,
				void *context)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return rdm_ep_tx_send(ep, &iov, 1, dest, 0, data, context,
			   tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t rdm_ep_msg_inject(struct fid_ep *e, const void *buf, size_t len,
			      fi_addr_t dest)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_tx_send(ep, &iov, 1, dest, 0, 0, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_INJECT |
			   RDM_EP_F_NOCOMP);
}

static ssize_t rdm_ep_msg_injectdata(struct fid_ep *e, const void *buf,
				  size_t len, uint64_t data, fi_addr_t dest)
{
	uint64_t tx_op_flags, rx_op_flags;
	struct rdm_ep *ep = rdm_ep_of(e, &tx_op_flags, &rx_op_flags);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rdm_ep_tx_send(ep, &iov, 1, dest, 0, data, NULL,
			   (tx_op_flags & ~FI_COMPLETION) | FI_INJECT |
			   FI_REMOTE_CQ_DATA | RDM_EP_F_NOCOMP);
}

const struct fi_ops_msg rdm_ep_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = rdm_ep_msg_recv,
	.recvv = rdm_ep_msg_recvv,
	.recvmsg = rdm_ep_msg_recvmsg,
	.send = rdm_ep_msg_send,
	.sendv = rdm_ep_msg_sendv,
	.sendmsg = rdm_ep_msg_sendmsg,
	.inject = rdm_ep_msg_inject,
	.senddata = rdm_ep_msg_senddata,
	.injectdata = rdm_ep_msg_injectdata,
};
