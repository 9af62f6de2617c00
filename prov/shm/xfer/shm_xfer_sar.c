/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Segmentation and reassembly through bounce buffers (shm_xfer.h, SAR).
 *
 * A channel (shm_layout.h, struct shm_sar_chan) lives in the SENDER's
 * region and carries one message at a time through SHM_SAR_RING buffers.
 * Chunk k goes to buffer k mod RING. Edges:
 *   S1 (sender, release store of FULL(k))  pairs with R1 (receiver,
 *      acquire load): the chunk's bytes are visible before it copies.
 *   R2 (receiver, release store of 0)      pairs with S2 (sender,
 *      acquire load before refilling): the receiver's copy-out is done
 *      before the sender overwrites. This is the flow control: the
 *      sender writes only into buffers whose word is 0.
 *   R3 (receiver, release store of done)   pairs with S3 (sender,
 *      acquire load): the receiver no longer reads the channel when the
 *      sender completes the send and recycles the channel.
 * Channel set-up (gen, done = 0, words = 0) is published by the
 * command's commit (release, shm_cmdq.c R1): the receiver sees it before
 * it sees the command.
 * After each move the mover pokes the other side (shm_xfer_ep_poke), whose
 * arm re-checks the channel words after its fence (shm_xfer_ep_arm).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_xfer_int.h"

static unsigned shm_xfer_sar_fill(struct shm_xfer_ep *ep, struct shm_tx *tx)
{
	struct shm_region *r = ep->region;
	struct shm_sar_chan *chan = &r->sar[tx->chan];
	uint64_t bs = r->geo.sar_buf_size, len;
	unsigned n = 0;
	uint32_t b;

	while (tx->next_chunk < tx->nchunks) {
		b = (uint32_t)(tx->next_chunk % SHM_SAR_RING);
		/* S2, acquire: pairs with R2 */
		if (pl_load_acquire(&chan->buf_state[b]))
			break;
		len = tx->size - tx->next_chunk * bs;
		if (len > bs)
			len = bs;
		pl_iov_to_buf(tx->iov, tx->iov_count, &tx->cur_iov,
			       &tx->cur_off, shm_region_sarbuf(r, tx->chan, b),
			       len);
		/* S1, release: pairs with R1 */
		pl_store_release(&chan->buf_state[b],
				 tx->next_chunk << 1 | 1);
		tx->next_chunk++;
		n++;
	}
	ep->stats.sar_chunks_tx += n;
	return n;
}

int shm_xfer_sar_start(struct shm_xfer_ep *ep, struct shm_tx *tx)
{
	struct shm_region *r = ep->region;
	uint64_t bs = r->geo.sar_buf_size;
	struct shm_xfer_peer *peer = tx->peer;
	struct shm_cmd_sar *sar;
	struct shm_sar_chan *chan;
	struct shm_cmd *cmd;
	uint32_t c, gen;
	int ret;

	if (!bs)
		return -FI_EINVAL;	/* region built without channels */
	tx->nchunks = (tx->size + bs - 1) / bs;
	if ((tx->flags & SHM_XF_INJECT) && tx->nchunks > SHM_SAR_RING)
		return -FI_EINVAL;
	if (!ep->chan_free)
		return -FI_EAGAIN;
	for (c = 0; ep->chan_busy[c]; c++)
		;
	ret = shm_cmdq_claim(peer->region, ep->pid, &cmd);
	if (ret)
		return ret;
	chan = &r->sar[c];
	/* relaxed, all four: published by the commit below (release) */
	gen = pl_load_relaxed(&chan->gen) + 1;
	pl_store_relaxed(&chan->gen, gen);
	pl_store_relaxed(&chan->done, 0u);
	for (uint32_t b = 0; b < SHM_SAR_RING; b++)
		pl_store_relaxed(&chan->buf_state[b], 0ull);
	ep->chan_busy[c] = true;
	ep->chan_free--;
	tx->chan = c;
	tx->next_chunk = 0;
	tx->cur_iov = 0;
	tx->cur_off = 0;
	/* the first RING chunks go before the command: a receiver that
	 * matches at once finds data, and an inject's buffer is free */
	shm_xfer_sar_fill(ep, tx);

	cmd->op = (tx->flags & SHM_XF_RMA_WRITE) && !tx->cont ?
		  SHM_OP_WRITE : SHM_OP_MSG;
	cmd->proto = SHM_PROTO_SAR;
	cmd->src_idx = peer->idx;
	cmd->src_gen = peer->gen;
	cmd->flags = ((tx->flags & SHM_XF_TAGGED) ? SHM_CF_TAGGED : 0) |
		     ((tx->flags & SHM_XF_CQ_DATA) ? SHM_CF_CQ_DATA : 0) |
		     (tx->flags & SHM_XF_RX_MASK) |
		     (tx->cont ? SHM_CF_CONT : 0);
	cmd->size = tx->size;
	/* a continuation names the receiver's waiting message instead */
	cmd->tag = tx->cont ? tx->cont : tx->tag;
	cmd->cq_data = tx->cq_data;
	cmd->xfer_id = 0;
	cmd->status = 0;
	cmd->key = tx->rma_key;
	sar = shm_cmd_payload(cmd);
	sar->chan = c;
	sar->chan_gen = gen;
	shm_cmdq_commit(peer->region, cmd);
	shm_xfer_ep_poke(ep, peer->region, &peer->wake);

	tx->state = SHM_TX_SAR;
	tx->next = ep->sar_tx;
	ep->sar_tx = tx;
	return 1;
}

int shm_xfer_sar_tx_progress(struct shm_xfer_ep *ep, unsigned budget)
{
	struct shm_tx **pp = &ep->sar_tx, *tx;
	unsigned n = 0, k;

	while ((tx = *pp) && n < budget) {
		struct shm_sar_chan *chan = &ep->region->sar[tx->chan];
		uint32_t done;

		/* S3, acquire: pairs with R3 */
		done = pl_load_acquire(&chan->done);
		if (done) {
			void *context = tx->context;

			*pp = tx->next;
			ep->chan_busy[tx->chan] = false;
			ep->chan_free++;
			shm_xfer_send_tx_put(ep, tx);
			/* the receiver's word: 1 + a positive code, anything
			 * larger is an error of its own */
			ep->ops->tx_done(ep, context, done - 1 <=
					 SHM_XFER_STATUS_MAX ?
					 -(int)(done - 1) : -FI_EIO);
			n++;
			continue;
		}
		k = shm_xfer_sar_fill(ep, tx);
		if (k) {
			shm_xfer_ep_poke(ep, tx->peer->region, &tx->peer->wake);
			n += k;
		}
		pp = &tx->next;
	}
	return (int)n;
}

static struct shm_sar_chan *shm_xfer_sar_rx_chan(struct shm_xfer_rx *rx)
{
	struct shm_rpeer *rp = rx->rpeer;

	return &rp->region->sar[rx->u.sar.chan];
}

void shm_xfer_sar_rx_finish(struct shm_xfer_rx *rx, int status)
{
	struct shm_xfer_ep *ep = rx->ep;
	struct shm_rpeer *rp = rx->rpeer;

	/* The sender completes with 0 after truncation or discard (those
	 * are the receiver's business), with -FI_ECONNRESET when we close
	 * in the middle of the message (nchunks != 0 with ECANCELED). */
	uint32_t done = status == -FI_ECANCELED && rx->nchunks ?
			1u + FI_ECONNRESET : 1u;

	/* our side first (the receive's completion, an RMA write's
	 * events), so that the sender's completion implies it */
	if (status != -FI_ECANCELED && rx->nchunks)
		shm_xfer_rx_done_cb(ep, rx, status, rx->copied);
	/* R3, release: pairs with S3 */
	pl_store_release(&shm_xfer_sar_rx_chan(rx)->done, done);
	shm_xfer_ep_poke(ep, rp->region, &rp->wake);
	shm_xfer_rx_free(rx);
}

static unsigned shm_xfer_sar_drain(struct shm_xfer_rx *rx)
{
	struct shm_rpeer *rp = rx->rpeer;
	struct shm_region *sr = rp->region;
	struct shm_sar_chan *chan = shm_xfer_sar_rx_chan(rx);
	uint64_t bs = sr->geo.sar_buf_size, off, len, w;
	unsigned n = 0;
	uint32_t b;

	while (rx->next_chunk < rx->nchunks) {
		b = (uint32_t)(rx->next_chunk % SHM_SAR_RING);
		/* R1, acquire: pairs with S1 */
		w = pl_load_acquire(&chan->buf_state[b]);
		if (w != (rx->next_chunk << 1 | 1))
			break;
		off = rx->next_chunk * bs;
		len = rx->size - off < bs ? rx->size - off : bs;
		if (off < rx->cap)
			rx->copied += pl_iov_from_buf(rx->iov, rx->iov_count, off,
				shm_region_sarbuf(sr, rx->u.sar.chan, b),
				len < rx->cap - off ? len : rx->cap - off);
		/* R2, release: pairs with S2 */
		pl_store_release(&chan->buf_state[b], 0ull);
		rx->next_chunk++;
		n++;
	}
	rx->ep->stats.sar_chunks_rx += n;
	return n;
}

int shm_xfer_sar_rx_progress(struct shm_xfer_ep *ep, unsigned budget)
{
	struct shm_xfer_rx **pp = &ep->sar_rx, *rx;
	unsigned n = 0, k;

	while ((rx = *pp) && n < budget) {
		k = shm_xfer_sar_drain(rx);
		n += k;
		if (rx->next_chunk == rx->nchunks) {
			*pp = rx->next;
			shm_xfer_sar_rx_finish(rx, rx->size > rx->cap ?
					       -FI_ETRUNC : 0);
			n++;
			continue;
		}
		if (k) {
			struct shm_rpeer *rp = rx->rpeer;

			shm_xfer_ep_poke(ep, rp->region, &rp->wake);
		}
		pp = &rx->next;
	}
	return (int)n;
}

bool shm_xfer_sar_ready(struct shm_xfer_ep *ep)
{
	struct shm_xfer_rx *rx;
	struct shm_tx *tx;

	/* relaxed loads: ordered by the caller's seq_cst fence (W1) */
	for (tx = ep->sar_tx; tx; tx = tx->next) {
		struct shm_sar_chan *chan = &ep->region->sar[tx->chan];

		if (pl_load_relaxed(&chan->done))
			return true;
		if (tx->next_chunk < tx->nchunks &&
		    !pl_load_relaxed(&chan->buf_state[tx->next_chunk %
						      SHM_SAR_RING]))
			return true;
	}
	for (rx = ep->sar_rx; rx; rx = rx->next)
		if (pl_load_relaxed(&shm_xfer_sar_rx_chan(rx)->buf_state[
			    rx->next_chunk % SHM_SAR_RING]) ==
		    (rx->next_chunk << 1 | 1))
			return true;
	return false;
}

/* Does rx name a real channel of its (mapped) sender, in the generation
 * the sender gave it? A stale or corrupt command must not make us read
 * outside the sender's region. */
bool shm_xfer_sar_valid(const struct shm_xfer_rx *rx)
{
	const struct shm_region *sr = ((struct shm_rpeer *)rx->rpeer)->region;

	if (rx->u.sar.chan >= sr->geo.sar_chan_count || !sr->geo.sar_buf_size)
		return false;
	/* relaxed: the sender stored gen before committing the command we
	 * acquired (shm_cmdq.c R1/R2 order it) */
	return pl_load_relaxed(&sr->sar[rx->u.sar.chan].gen) ==
	       rx->u.sar.chan_gen;
}
