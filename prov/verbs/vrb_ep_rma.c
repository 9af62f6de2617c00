/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma on a verbs endpoint: RDMA read and write work requests (write
 * with immediate data for fi_writedata, which consumes one of the
 * target's posted receives, as the hardware does). Addresses are virtual
 * (FI_MR_VIRT_ADDR) and keys the target's rkeys (32 bits): the target's
 * device checks range and rights, and a refusal completes here in error
 * (FI_EACCES).
 */
#include <arpa/inet.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "pl_compiler.h"
#include "vrb_prov.h"

/* One RMA operation: kind IBV_WR_RDMA_READ or IBV_WR_RDMA_WRITE. */
static ssize_t vrb_ep_rma_common(struct vrb_ep *ep,
				 const struct fi_msg_rma *msg, uint64_t flags,
				 enum ibv_wr_opcode kind, bool inject)
{
	bool inl = kind == IBV_WR_RDMA_WRITE;
	struct vrb_sgl sgl;
	struct ibv_send_wr wr;
	bool report;
	int ret;

	if (!msg || msg->rma_iov_count != 1 || !msg->rma_iov)
		return -FI_EINVAL;	/* rma_iov_limit is 1 */
	if (msg->rma_iov[0].key > UINT32_MAX)
		return -FI_EINVAL;	/* not a verbs rkey */
	flags |= ep->tx_op_flags;
	/* a read's result is written by the device: never inline */
	ret = vrb_ep_sge_fill(ep->dom, &sgl, ep->tx_iov_limit, msg->msg_iov,
			      msg->desc, msg->iov_count,
			      inl ? ep->inline_size : 0,
			      inl ? FI_WRITE : FI_READ);
	if (ret)
		return ret;
	if (sgl.len > msg->rma_iov[0].len) {
		vrb_ep_sge_release(ep->dom, &sgl);
		return -FI_EINVAL;	/* past the remote buffer named */
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = kind;
	wr.wr.rdma.remote_addr = msg->rma_iov[0].addr;
	wr.wr.rdma.rkey = (uint32_t)msg->rma_iov[0].key;
	if (kind == IBV_WR_RDMA_WRITE && (flags & FI_REMOTE_CQ_DATA)) {
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl((uint32_t)msg->data);
	}
	if (inl && sgl.len <= ep->inline_size) {
		wr.send_flags |= IBV_SEND_INLINE;
	} else if (inject || (flags & FI_INJECT)) {
		vrb_ep_sge_release(ep->dom, &sgl);
		return -FI_EMSGSIZE;	/* past the inline room */
	}
	report = !inject &&
		 pl_ep_op_completes(ep->base.tx_cq_flags, flags, false);
	return vrb_ep_post_send(ep, &wr, &sgl, msg->context, FI_RMA |
				(inl ? FI_WRITE : FI_READ), report);
}

static ssize_t vrb_ep_readmsg(struct fid_ep *ep_fid,
			      const struct fi_msg_rma *msg, uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	if (!ep)
		return -FI_EINVAL;
	return vrb_ep_rma_common(ep, msg, flags, IBV_WR_RDMA_READ, false);
}

static ssize_t vrb_ep_writemsg(struct fid_ep *ep_fid,
			       const struct fi_msg_rma *msg, uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	if (!ep)
		return -FI_EINVAL;
	return vrb_ep_rma_common(ep, msg, flags, IBV_WR_RDMA_WRITE, false);
}

static ssize_t vrb_ep_readv(struct fid_ep *ep, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t src_addr,
			    uint64_t addr, uint64_t key, void *context)
{
	struct fi_rma_iov r = { .addr = addr, .key = key, .len = SIZE_MAX };
	struct fi_msg_rma msg = { .msg_iov = iov, .desc = desc,
				  .iov_count = count, .addr = src_addr,
				  .rma_iov = &r, .rma_iov_count = 1,
				  .context = context };

	return vrb_ep_readmsg(ep, &msg, 0);
}

static ssize_t vrb_ep_read(struct fid_ep *ep, void *buf, size_t len,
			   void *desc, fi_addr_t src_addr, uint64_t addr,
			   uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return vrb_ep_readv(ep, &iov, &desc, 1, src_addr, addr, key, context);
}

static ssize_t vrb_ep_writev(struct fid_ep *ep, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t dest_addr,
			     uint64_t addr, uint64_t key, void *context)
{
	struct fi_rma_iov r = { .addr = addr, .key = key, .len = SIZE_MAX };
	struct fi_msg_rma msg = { .msg_iov = iov, .desc = desc,
				  .iov_count = count, .addr = dest_addr,
				  .rma_iov = &r, .rma_iov_count = 1,
				  .context = context };

	return vrb_ep_writemsg(ep, &msg, 0);
}

static ssize_t vrb_ep_write(struct fid_ep *ep, const void *buf, size_t len,
			    void *desc, fi_addr_t dest_addr, uint64_t addr,
			    uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return vrb_ep_writev(ep, &iov, &desc, 1, dest_addr, addr, key,
			     context);
}

static ssize_t vrb_ep_writedata(struct fid_ep *ep, const void *buf,
				size_t len, void *desc, uint64_t data,
				fi_addr_t dest_addr, uint64_t addr,
				uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_rma_iov r = { .addr = addr, .key = key, .len = len };
	struct fi_msg_rma msg = { .msg_iov = &iov, .desc = &desc,
				  .iov_count = 1, .addr = dest_addr,
				  .rma_iov = &r, .rma_iov_count = 1,
				  .context = context, .data = data };

	return vrb_ep_writemsg(ep, &msg, FI_REMOTE_CQ_DATA);
}

static ssize_t vrb_ep_inject_common(struct fid_ep *ep_fid, const void *buf,
				    size_t len, uint64_t data, uint64_t addr,
				    uint64_t key, uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_rma_iov r = { .addr = addr, .key = key, .len = len };
	struct fi_msg_rma msg = { .msg_iov = &iov, .iov_count = 1,
				  .rma_iov = &r, .rma_iov_count = 1,
				  .data = data };

	if (!ep)
		return -FI_EINVAL;
	return vrb_ep_rma_common(ep, &msg, flags | FI_INJECT,
				 IBV_WR_RDMA_WRITE, true);
}

static ssize_t vrb_ep_inject_write(struct fid_ep *ep, const void *buf,
				   size_t len, fi_addr_t dest_addr,
				   uint64_t addr, uint64_t key)
{
	(void)dest_addr;	/* connected: the peer is the endpoint's */
	return vrb_ep_inject_common(ep, buf, len, 0, addr, key, 0);
}

static ssize_t vrb_ep_inject_writedata(struct fid_ep *ep, const void *buf,
				       size_t len, uint64_t data,
				       fi_addr_t dest_addr, uint64_t addr,
				       uint64_t key)
{
	(void)dest_addr;
	return vrb_ep_inject_common(ep, buf, len, data, addr, key,
				    FI_REMOTE_CQ_DATA);
}

struct fi_ops_rma vrb_ep_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = vrb_ep_read,
	.readv = vrb_ep_readv,
	.readmsg = vrb_ep_readmsg,
	.write = vrb_ep_write,
	.writev = vrb_ep_writev,
	.writemsg = vrb_ep_writemsg,
	.inject = vrb_ep_inject_write,
	.writedata = vrb_ep_writedata,
	.injectdata = vrb_ep_inject_writedata,
};
