/* SPDX-License-Identifier: BSD-2-Clause */
/* Sending: protocol choice, inline and CMA commands, acknowledgements
 * coming back (shm_xfer.h). SAR streaming is in shm_xfer_sar.c. */
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_xfer_int.h"

struct shm_tx *shm_xfer_send_tx_get(struct shm_xfer_ep *ep)
{
	struct shm_tx *tx = ep->tx_free;

	if (!tx)
		return NULL;
	ep->tx_free = tx->next;
	tx->next = NULL;
	tx->cma = false;
	tx->gen++;
	ep->tx_inuse++;
	return tx;
}

void shm_xfer_send_tx_put(struct shm_xfer_ep *ep, struct shm_tx *tx)
{
	tx->state = SHM_TX_FREE;
	tx->next = ep->tx_free;
	ep->tx_free = tx;
	ep->tx_inuse--;
}

uint64_t shm_xfer_send_tx_id(const struct shm_xfer_ep *ep,
			     const struct shm_tx *tx)
{
	return (uint64_t)tx->gen << 32 | (uint64_t)(tx - ep->tx);
}

enum shm_proto shm_xfer_send_proto(const struct shm_xfer_ep *ep,
				   const struct shm_xfer_peer *peer,
				   uint64_t size)
{
	if (size <= peer->region->inline_max)
		return SHM_PROTO_INLINE;
	if (peer->cma && size > ep->sar_threshold)
		return SHM_PROTO_CMA;
	return SHM_PROTO_SAR;
}

static void shm_xfer_send_cmd_fill(struct shm_cmd *cmd,
				   const struct shm_xfer_peer *peer,
			      const struct shm_xfer_msg *msg, uint64_t size,
				   enum shm_proto proto)
{
	cmd->op = (msg->flags & SHM_XF_RMA_WRITE) ? SHM_OP_WRITE : SHM_OP_MSG;
	cmd->proto = (uint8_t)proto;
	cmd->src_idx = peer->idx;
	cmd->src_gen = peer->gen;
	cmd->flags = ((msg->flags & SHM_XF_TAGGED) ? SHM_CF_TAGGED : 0) |
		     ((msg->flags & SHM_XF_CQ_DATA) ? SHM_CF_CQ_DATA : 0) |
		     (msg->flags & SHM_XF_RX_MASK);
	cmd->size = size;
	cmd->tag = msg->tag;
	cmd->cq_data = msg->cq_data;
	cmd->xfer_id = 0;
	cmd->status = 0;
	cmd->key = msg->rma_key;
}

static void shm_xfer_send_tx_record(struct shm_tx *tx,
				    const struct shm_xfer_msg *msg,
				    uint64_t size)
{
	tx->context = msg->context;
	tx->size = size;
	tx->flags = msg->flags;
	tx->tag = msg->tag;
	tx->cq_data = msg->cq_data;
	tx->cont = 0;
	tx->rma_key = msg->rma_key;
	tx->cma = false;
	tx->iov_count = msg->iov_count;
	memcpy(tx->iov, msg->iov, msg->iov_count * sizeof(*tx->iov));
}

/* Everything of a command after its state word, from a copy made before
 * the claim (see shm_xfer_send_inline). */
static void shm_xfer_send_cmd_put(struct shm_cmd *cmd,
				  const struct shm_cmd *hdr)
{
	memcpy((char *)cmd + sizeof(cmd->state),
	       (const char *)hdr + sizeof(hdr->state),
	       sizeof(*cmd) - sizeof(cmd->state));
}

/* The whole message, size bytes, gathered into dst. One buffer, the
 * common case, is one copy without the cursor walk. */
static void shm_xfer_send_gather(const struct shm_xfer_msg *msg, void *dst,
				 uint64_t size)
{
	size_t cur = 0, off = 0;

	if (msg->iov_count == 1) {
		if (size)	/* a zero-length send may name no buffer */
			memcpy(dst, msg->iov[0].iov_base, size);
	} else {
		pl_iov_to_buf(msg->iov, msg->iov_count, &cur, &off, dst,
			       size);
	}
}

static int shm_xfer_send_inline(struct shm_xfer_ep *ep,
				struct shm_xfer_peer *peer,
				const struct shm_xfer_msg *msg, uint64_t size)
{
	/* an RMA write always learns the target's verdict */
	bool ack = msg->flags & (SHM_XF_DELIVERY | SHM_XF_RMA_WRITE);
	struct shm_tx *tx = NULL;
	struct shm_cmd *cmd, hdr;
	bool in_hdr;
	int ret;

	if (ack && !(tx = shm_xfer_send_tx_get(ep)))
		return -FI_EAGAIN;
	/* The command is built here and copied in one go once claimed:
	 * the receiver polls the slot's line, and the less time passes
	 * between our claim and the commit, the less likely its read takes
	 * the line back in between (one more transfer each time). */
	shm_xfer_send_cmd_fill(&hdr, peer, msg, size, SHM_PROTO_INLINE);
	/* one line for the receiver to fetch (SHM_CF_IN_HDR) */
	in_hdr = size <= SHM_CMD_HDR_PAYLOAD_MAX && hdr.op == SHM_OP_MSG;
	if (in_hdr) {
		hdr.flags |= SHM_CF_IN_HDR;
		shm_xfer_send_gather(msg, shm_cmd_inline_data(&hdr), size);
	}
	if (ack) {
		hdr.flags |= SHM_CF_ACK;
		hdr.xfer_id = shm_xfer_send_tx_id(ep, tx);
		tx->state = SHM_TX_ACK;
		tx->context = msg->context;
		tx->peer = peer;
	}
	ret = shm_cmdq_claim(peer->region, ep->pid, &cmd);
	if (ret) {
		if (tx)
			shm_xfer_send_tx_put(ep, tx);
		return ret;
	}
	shm_xfer_send_cmd_put(cmd, &hdr);
	if (!in_hdr)
		shm_xfer_send_gather(msg, shm_cmd_payload(cmd), size);
	shm_cmdq_commit(peer->region, cmd);
	shm_xfer_ep_poke(ep, peer->region, &peer->wake);
	ep->stats.tx_inline++;
	return ack ? 1 : 0;
}

static int shm_xfer_send_cma(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
			     const struct shm_xfer_msg *msg, uint64_t size)
{
	struct shm_cmd_cma *cma;
	struct shm_cmd *cmd;
	struct shm_tx *tx;
	size_t i;
	int ret;

	tx = shm_xfer_send_tx_get(ep);
	if (!tx)
		return -FI_EAGAIN;
	ret = shm_cmdq_claim(peer->region, ep->pid, &cmd);
	if (ret) {
		shm_xfer_send_tx_put(ep, tx);
		return ret;
	}
	/* kept for a resend by SAR if the receiver cannot read us */
	shm_xfer_send_tx_record(tx, msg, size);
	tx->cma = true;
	shm_xfer_send_cmd_fill(cmd, peer, msg, size, SHM_PROTO_CMA);
	cmd->flags |= SHM_CF_ACK;
	cmd->xfer_id = shm_xfer_send_tx_id(ep, tx);
	cma = shm_cmd_payload(cmd);
	cma->pid = (int32_t)ep->pid;
	cma->iov_cnt = (uint32_t)msg->iov_count;
	for (i = 0; i < msg->iov_count; i++) {
		cma->iov[i].base = (uint64_t)(uintptr_t)msg->iov[i].iov_base;
		cma->iov[i].len = msg->iov[i].iov_len;
	}
	tx->state = SHM_TX_ACK;
	tx->context = msg->context;
	tx->peer = peer;
	shm_cmdq_commit(peer->region, cmd);
	shm_xfer_ep_poke(ep, peer->region, &peer->wake);
	ep->stats.tx_cma++;
	return 1;
}

static int shm_xfer_send_sar(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
			     const struct shm_xfer_msg *msg, uint64_t size)
{
	struct shm_tx *tx;
	int ret;

	tx = shm_xfer_send_tx_get(ep);
	if (!tx)
		return -FI_EAGAIN;
	tx->peer = peer;
	shm_xfer_send_tx_record(tx, msg, size);
	ret = shm_xfer_sar_start(ep, tx);
	if (ret < 0) {
		shm_xfer_send_tx_put(ep, tx);
		return ret;
	}
	ep->stats.tx_sar++;
	return 1;
}

int shm_xfer_send(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
		  const struct shm_xfer_msg *msg)
{
	enum shm_proto proto;
	uint64_t size;
	int ret;

	if (msg->iov_count > SHM_XFER_IOV_MAX || (msg->iov_count && !msg->iov))
		return -FI_EINVAL;
	if (peer->dead)
		return -FI_ECONNREFUSED;	/* its owner died */
	size = pl_iov_total(msg->iov, msg->iov_count);
	proto = shm_xfer_send_proto(ep, peer, size);
	/* CMA reads the user buffer later: not for inject, and only with
	 * the iovec count a command holds */
	if (proto == SHM_PROTO_CMA && ((msg->flags & SHM_XF_INJECT) ||
				       msg->iov_count > SHM_CMA_IOV_MAX))
		proto = SHM_PROTO_SAR;
	switch (proto) {
	case SHM_PROTO_INLINE:
		ret = shm_xfer_send_inline(ep, peer, msg, size);
		break;
	case SHM_PROTO_CMA:
		ret = shm_xfer_send_cma(ep, peer, msg, size);
		break;
	default:
		ret = shm_xfer_send_sar(ep, peer, msg, size);
		break;
	}
	if (ret == -FI_EAGAIN) {
		ep->stats.tx_eagain++;
		/* no room at a dead target never frees up */
		if (shm_xfer_live_peer_check(ep, peer))
			ret = -FI_ECONNREFUSED;
	} else if (ret == 1) {
		/* our sleeping progress waits too */
		shm_xfer_ep_self_poke(ep);
	}
	return ret;
}

void shm_xfer_send_acked(struct shm_xfer_ep *ep, const struct shm_cmd *cmd)
{
	uint32_t idx = (uint32_t)cmd->xfer_id, gen = (uint32_t)(cmd->xfer_id >> 32);
	struct shm_tx *tx;
	void *context;
	int status;

	ep->stats.acks_rx++;
	if (idx >= ep->tx_count)
		return;
	tx = &ep->tx[idx];
	if (tx->gen != gen || tx->state != SHM_TX_ACK)
		return;	/* stale or duplicate: ignore */
	if (cmd->flags & SHM_CF_RESEND) {
		/* the receiver may not read us: never again CMA to it, and
		 * send this message's data by SAR as its continuation */
		int ret;

		tx->peer->cma = false;
		tx->cont = cmd->cq_data;
		ret = shm_xfer_sar_start(ep, tx);
		if (ret == -FI_EAGAIN) {
			tx->state = SHM_TX_RESEND;
			tx->next = ep->resend_tx;
			ep->resend_tx = tx;
			return;
		}
		if (ret >= 0)
			return;
		context = tx->context;
		shm_xfer_send_tx_put(ep, tx);
		ep->ops->tx_done(ep, context, ret);
		return;
	}
	context = tx->context;
	shm_xfer_send_tx_put(ep, tx);
	/* the status is the receiver's word: 0 or a negative FI_E* code,
	 * anything else (which a negation would overflow) is an error of
	 * its own */
	status = cmd->status;
	if (status > 0 || status < -SHM_XFER_STATUS_MAX)
		status = -FI_EIO;
	ep->ops->tx_done(ep, context, status);
}

int shm_xfer_send_resend_progress(struct shm_xfer_ep *ep)
{
	struct shm_tx **pp = &ep->resend_tx, *tx;
	int n = 0, ret;

	while ((tx = *pp)) {
		*pp = tx->next;
		ret = shm_xfer_sar_start(ep, tx);
		if (ret == -FI_EAGAIN) {
			/* put back and stop: resources are short */
			tx->next = *pp;
			*pp = tx;
			break;
		}
		n++;
		if (ret < 0) {
			void *context = tx->context;

			shm_xfer_send_tx_put(ep, tx);
			ep->ops->tx_done(ep, context, ret);
		}
	}
	return n;
}
