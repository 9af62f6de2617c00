/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA and atomic requests of the protocol layer (shm_xfer.h, "RMA and
 * atomics"). The rule this file keeps: no byte of a target's memory is
 * read or written before the TARGET has validated the request against
 * its own registrations (ops->rma_msg), and the process that then copies
 * is either the target itself or the initiator copying into ITS OWN
 * buffers:
 *
 *   write   a message (INLINE / SAR / CMA) tagged SHM_OP_WRITE; the
 *           target validates, then places it (memcpy from the slot or
 *           the bounce buffers, or process_vm_readv from the initiator)
 *           and acknowledges; a refusal is an error ack (SAR: `done`).
 *   read    SHM_OP_READ names the initiator's result iovecs; the target
 *           validates, then process_vm_writev's its registered bytes into
 *           them (both sides CMA-capable, larger than one slot) or sends
 *           them as SHM_OP_DATA commands through the initiator's queue,
 *           then acknowledges.
 *   atomic  SHM_OP_ATOMIC carries the provider's request inline; the
 *           target validates and applies it in its progress (so requests
 *           from any number of processes on one word are serialized by
 *           the target), the fetched values return as SHM_OP_DATA.
 *
 * Replies that find the initiator's queue full wait in ep->rd and are
 * retried by every poll: the target never waits for an initiator.
 * Threading: as the rest of the layer (one thread drives an endpoint).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_cma.h"
#include "shm_params.h"
#include "shm_cmd.h"
#include "shm_xfer_int.h"

/* Full-queue retries of a reply between two liveness checks of its
 * initiator (a dead initiator must not keep the reply forever). */
#define SHM_RD_PEER_CHECK	4096

static void shm_xfer_rma_cmd_fill(struct shm_cmd *cmd, uint8_t op,
				  const struct shm_xfer_peer *peer,
				  const struct shm_xfer_msg *msg,
				  uint64_t size, uint64_t xfer_id)
{
	cmd->op = op;
	cmd->proto = SHM_PROTO_INLINE;
	cmd->src_idx = peer->idx;
	cmd->src_gen = peer->gen;
	cmd->flags = SHM_CF_ACK;
	cmd->size = size;
	cmd->tag = msg->tag;
	cmd->cq_data = 0;
	cmd->xfer_id = xfer_id;
	cmd->status = 0;
	cmd->key = msg->rma_key;
}

static void shm_xfer_rma_tx_fill(struct shm_tx *tx, struct shm_xfer_peer *peer,
				 const struct shm_xfer_msg *msg, uint64_t size)
{
	tx->state = SHM_TX_ACK;
	tx->peer = peer;
	tx->context = msg->context;
	tx->flags = msg->flags;
	tx->size = size;
	tx->cont = 0;
	tx->rma_key = msg->rma_key;
	tx->iov_count = msg->iov_count;
	memcpy(tx->iov, msg->iov, msg->iov_count * sizeof(*tx->iov));
}

int shm_xfer_rma_read(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
		      const struct shm_xfer_msg *msg)
{
	struct shm_cmd_cma *cma;
	struct shm_cmd *cmd;
	struct shm_tx *tx;
	uint64_t size;
	size_t i;
	int ret;

	if (msg->iov_count > SHM_XFER_IOV_MAX || (msg->iov_count && !msg->iov))
		return -FI_EINVAL;
	if (sizeof(*cma) > peer->region->inline_max)
		return -FI_EMSGSIZE;
	size = pl_iov_total(msg->iov, msg->iov_count);
	tx = shm_xfer_send_tx_get(ep);
	if (!tx)
		return -FI_EAGAIN;
	ret = shm_cmdq_claim(peer->region, ep->pid, &cmd);
	if (ret) {
		shm_xfer_send_tx_put(ep, tx);
		return ret;
	}
	shm_xfer_rma_tx_fill(tx, peer, msg, size);
	shm_xfer_rma_cmd_fill(cmd, SHM_OP_READ, peer, msg, size,
			      shm_xfer_send_tx_id(ep, tx));
	cma = shm_cmd_payload(cmd);
	cma->pid = (int32_t)ep->pid;
	/* more iovecs than a command holds: none, the target answers with
	 * DATA, which we place through tx->iov */
	cma->iov_cnt = msg->iov_count <= SHM_CMA_IOV_MAX ?
		       (uint32_t)msg->iov_count : 0;
	for (i = 0; i < cma->iov_cnt; i++) {
		cma->iov[i].base = (uint64_t)(uintptr_t)msg->iov[i].iov_base;
		cma->iov[i].len = msg->iov[i].iov_len;
	}
	shm_cmdq_commit(peer->region, cmd);
	shm_xfer_ep_poke(ep, peer->region, &peer->wake);
	return 1;
}

int shm_xfer_rma_atomic(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
			const struct shm_xfer_msg *msg, const void *req,
			size_t req_len)
{
	struct shm_cmd *cmd;
	struct shm_tx *tx;
	int ret;

	if (msg->iov_count > SHM_XFER_IOV_MAX || (msg->iov_count && !msg->iov) ||
	    !req)
		return -FI_EINVAL;
	if (req_len > peer->region->inline_max)
		return -FI_EMSGSIZE;
	tx = shm_xfer_send_tx_get(ep);
	if (!tx)
		return -FI_EAGAIN;
	ret = shm_cmdq_claim(peer->region, ep->pid, &cmd);
	if (ret) {
		shm_xfer_send_tx_put(ep, tx);
		return ret;
	}
	shm_xfer_rma_tx_fill(tx, peer, msg,
			     pl_iov_total(msg->iov, msg->iov_count));
	shm_xfer_rma_cmd_fill(cmd, SHM_OP_ATOMIC, peer, msg, req_len,
			      shm_xfer_send_tx_id(ep, tx));
	memcpy(shm_cmd_payload(cmd), req, req_len);
	shm_cmdq_commit(peer->region, cmd);
	shm_xfer_ep_poke(ep, peer->region, &peer->wake);
	return 1;
}

/* Initiator: a piece of a read or fetch result. Checked against the
 * request it names, so a stale or corrupt command writes nothing. */
void shm_xfer_rma_data(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
{
	uint64_t id = shm_cmd_once_u64(&cmd->xfer_id),
		 size = shm_cmd_once_u64(&cmd->size),
		 off = shm_cmd_once_u64(&cmd->cq_data);
	uint32_t idx = (uint32_t)id;
	uint32_t gen = (uint32_t)(id >> 32);
	struct shm_tx *tx;

	if (idx >= ep->tx_count)
		return;
	tx = &ep->tx[idx];
	if (tx->gen != gen || tx->state != SHM_TX_ACK ||
	    size > ep->region->inline_max ||
	    off > tx->size || size > tx->size - off)
		return;
	pl_iov_from_buf(tx->iov, tx->iov_count, off, shm_cmd_payload(cmd),
		       size);
}

void shm_xfer_rma_dispatch(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx)
{
	if (ep->ops->rma_msg)
		ep->ops->rma_msg(ep, rx);
	else if (rx->flags & SHM_XF_RMA_WRITE)
		shm_xfer_rma_rx_fail(rx, -FI_EOPNOTSUPP);
	else
		shm_xfer_rma_rx_reply(rx, NULL, 0, -FI_EOPNOTSUPP, false);
}

int shm_xfer_rma_request(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
{
	/* read once: what we allocate and copy follows from this value,
	 * whatever the slot says later */
	uint8_t op = shm_cmd_once_u8(&cmd->op);
	struct shm_xfer_rx *rx;
	struct shm_rpeer *rp;
	size_t extra = 0;

	if (op == SHM_OP_WRITE)
		return shm_xfer_recv_msg(ep, cmd);
	rp = shm_xfer_rpeer(ep, cmd->src_idx, cmd->src_gen);
	if (!rp)
		goto drop;	/* nobody to answer */
	/* proto INLINE: shm_cmd_check; the size read once and bounded
	 * again, the iovec count checked on our copy below */
	if (op != SHM_OP_READ) {
		extra = (size_t)shm_cmd_once_u64(&cmd->size);
		if (extra > ep->region->inline_max)
			goto drop;
	}
	rx = shm_xfer_rx_new(ep, cmd, rp, extra);	/* proto INLINE */
	if (!rx)
		return -FI_EAGAIN;
	rx->proto = SHM_PROTO_INLINE;
	if (op != SHM_OP_READ)
		rx->size = extra;
	rx->key = cmd->key;
	rx->flags = op == SHM_OP_READ ? SHM_XF_RMA_READ : SHM_XF_ATOMIC;
	if (op == SHM_OP_READ)
		memcpy(&rx->u.cma, shm_cmd_payload(cmd), sizeof(rx->u.cma));
	else
		memcpy(rx->data, shm_cmd_payload(cmd), extra);
	if (op == SHM_OP_READ && rx->u.cma.iov_cnt > SHM_CMA_IOV_MAX) {
		shm_xfer_rx_free(rx);
		goto drop;
	}
	ep->stats.rx_msgs++;
	shm_xfer_rma_dispatch(ep, rx);
	return 0;

drop:
	shm_xfer_recv_drop_warn(ep, cmd);
	return 0;
}

/* Push as many DATA chunks of rd as the initiator's queue takes, then
 * the final ack. 1: all sent; -FI_EAGAIN: queue full, retry later;
 * other negative: the initiator is closing, give up. */
static int shm_xfer_rma_rd_send(struct shm_xfer_ep *ep, struct shm_rd *rd)
{
	struct shm_region *r = rd->rp->region;
	uint64_t chunk = r->inline_max, n;
	struct shm_cmd *cmd;
	bool pushed = false;
	int ret = 0;

	if (!chunk)
		return -FI_EINVAL;
	while (rd->off < rd->len) {
		ret = shm_cmdq_claim(r, ep->pid, &cmd);
		if (ret)
			break;
		n = rd->len - rd->off < chunk ? rd->len - rd->off : chunk;
		cmd->op = SHM_OP_DATA;
		cmd->proto = SHM_PROTO_INLINE;
		cmd->src_idx = UINT16_MAX;	/* names no peer entry */
		cmd->src_gen = 0;
		cmd->flags = 0;
		cmd->size = n;
		cmd->tag = 0;
		cmd->cq_data = rd->off;
		cmd->xfer_id = rd->xfer_id;
		cmd->status = 0;
		cmd->key = 0;
		memcpy(shm_cmd_payload(cmd), rd->src + rd->off, (size_t)n);
		shm_cmdq_commit(r, cmd);
		rd->off += n;
		pushed = true;
	}
	if (pushed)
		shm_xfer_ep_poke(ep, r, &rd->rp->wake);
	if (rd->off < rd->len)
		return ret;
	/* after every DATA of the request: the queue keeps our order */
	shm_xfer_ack(ep, rd->rp, rd->xfer_id, 0, 0, 0);
	return 1;
}

static void shm_xfer_rma_rd_queue(struct shm_xfer_ep *ep, struct shm_rd *rd)
{
	shm_xfer_rpeer_get(rd->rp);	/* the rx's goes when it is freed */
	rd->next = NULL;
	if (!ep->rd)
		ep->rd_tail = &ep->rd;
	*ep->rd_tail = rd;
	ep->rd_tail = &rd->next;
}

int shm_xfer_rma_rd_progress(struct shm_xfer_ep *ep, unsigned budget)
{
	struct shm_rd **pp = &ep->rd, *rd;
	unsigned n = 0;
	int ret;

	while ((rd = *pp) && n < budget) {
		ret = shm_xfer_rma_rd_send(ep, rd);
		if (ret == -FI_EAGAIN &&
		    (++rd->fails % SHM_RD_PEER_CHECK ||
		     shm_region_owner_alive(rd->rp->region))) {
			pp = &rd->next;
			continue;
		}
		/* sent, or the initiator is gone / closing */
		*pp = rd->next;
		if (!*pp)
			ep->rd_tail = pp;
		shm_xfer_rpeer_put(rd->rp);
		free(rd);
		n++;
	}
	return (int)n;
}

void shm_xfer_rma_rd_free_all(struct shm_xfer_ep *ep)
{
	struct shm_rd *rd;

	while ((rd = ep->rd)) {
		ep->rd = rd->next;
		/* best effort: the initiator learns the reply is cut short */
		shm_xfer_ack(ep, rd->rp, rd->xfer_id, -FI_ECONNRESET, 0, 0);
		shm_xfer_rpeer_put(rd->rp);
		free(rd);
	}
	ep->rd_tail = &ep->rd;
}

/* Process-vm-write the reply into the initiator's iovecs. Returns 0
 * (done, acked), 1 (refused by the kernel, or the command did not carry
 * the iovecs: send it as DATA instead). */
static int shm_xfer_rma_reply_cma(struct shm_xfer_rx *rx, const void *src,
				  uint64_t len)
{
	struct shm_rpeer *rp = rx->rpeer;
	struct iovec local = { (void *)src, (size_t)len };
	struct iovec remote[SHM_CMA_IOV_MAX];
	uint64_t left = len;
	size_t rc = 0, i;
	ssize_t got;

	for (i = 0; i < rx->u.cma.iov_cnt && left; i++) {
		remote[rc].iov_base = (void *)(uintptr_t)rx->u.cma.iov[i].base;
		remote[rc].iov_len = rx->u.cma.iov[i].len < left ?
				     (size_t)rx->u.cma.iov[i].len : (size_t)left;
		left -= remote[rc].iov_len;
		if (remote[rc].iov_len)
			rc++;
	}
	if (left)
		return 1;	/* iovecs not in the command: send DATA */
	/* the pid we write into is the one that claimed the peer entry, not
	 * whatever the command says */
	got = shm_cma_write(rp->pid, &local, 1, remote, rc);
	if (got == -FI_EPERM || got == -FI_ENOSYS)
		return 1;
	shm_xfer_ack(rx->ep, rp, rx->xfer_id,
		     got < 0 ? (int)got : ((uint64_t)got == len ? 0 : -FI_EIO),
		     0, 0);
	return 0;
}

void shm_xfer_rma_rx_reply(struct shm_xfer_rx *rx, const void *src,
			   uint64_t len, int status, bool copy)
{
	struct shm_xfer_ep *ep = rx->ep;
	struct shm_rpeer *rp = rx->rpeer;
	struct shm_rd *rd;

	if (shm_xfer_rpeer_map(ep, rp))
		goto out;	/* initiator gone: nobody to answer */
	if (status || !len || !src) {
		shm_xfer_ack(ep, rp, rx->xfer_id, status, 0, 0);
		goto out;
	}
	if ((rx->flags & SHM_XF_RMA_READ) && ep->cma &&
	    (rp->region->geo.flags & SHM_RF_CMA) &&
	    len > rp->region->inline_max &&
	    !shm_xfer_rma_reply_cma(rx, src, len))
		goto out;
	rd = malloc(sizeof(*rd) + (copy ? len : 0));
	if (!rd) {
		shm_xfer_ack(ep, rp, rx->xfer_id, -FI_ENOMEM, 0, 0);
		goto out;
	}
	memset(rd, 0, sizeof(*rd));
	rd->rp = rp;
	rd->xfer_id = rx->xfer_id;
	rd->len = len;
	if (copy) {
		memcpy(rd->own, src, (size_t)len);
		rd->src = rd->own;
	} else {
		rd->src = src;
	}
	/* behind replies already waiting, or at once */
	if (ep->rd || shm_xfer_rma_rd_send(ep, rd) == -FI_EAGAIN)
		shm_xfer_rma_rd_queue(ep, rd);
	else
		free(rd);
out:
	shm_xfer_rx_free(rx);
}

void shm_xfer_rma_rx_fail(struct shm_xfer_rx *rx, int status)
{
	struct shm_xfer_ep *ep = rx->ep;
	struct shm_rpeer *rp = rx->rpeer;

	if (status >= 0)
		status = -FI_EIO;
	if (rx->proto == SHM_PROTO_SAR) {
		struct shm_region *sr;

		if (!rp || shm_xfer_rpeer_map(ep, rp))
			goto out;
		sr = rp->region;
		/* relaxed gen: ordered by the command's commit (R1/R2 of
		 * shm_xfer_sar.c); an unknown channel is not ours to touch */
		if (rx->u.sar.chan < sr->geo.sar_chan_count &&
		    pl_load_relaxed(&sr->sar[rx->u.sar.chan].gen) ==
		    rx->u.sar.chan_gen) {
			/* R3, release: pairs with S3; we never read it */
			pl_store_release(&sr->sar[rx->u.sar.chan].done,
					 1u + (uint32_t)-status);
			shm_xfer_ep_poke(ep, sr, &rp->wake);
		}
	} else if (rp && (rx->cmd_flags & SHM_CF_ACK)) {
		shm_xfer_ack(ep, rp, rx->xfer_id, status, 0, 0);
	}
out:
	shm_xfer_rx_free(rx);
}
