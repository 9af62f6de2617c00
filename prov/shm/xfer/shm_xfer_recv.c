/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Receiving: a command in our queue becomes a struct shm_xfer_rx for the
 * provider (shm_xfer_rx.c places it), or is a continuation, or is
 * dropped with a warning, or refused while we close (shm_xfer.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_cma.h"
#include "shm_cmd.h"
#include "shm_params.h"
#include "shm_xfer_int.h"

/* The SAR continuation of a CMA message we could not read: resume the
 * waiting rx as a SAR drain, without matching it again. */
static void shm_xfer_recv_cont(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
{
	struct shm_xfer_rx **pp, *rx;
	struct shm_rpeer *rp;

	for (pp = &ep->cont_rx; (rx = *pp); pp = &rx->next)
		if (rx->xfer_id_cont == cmd->tag)
			break;
	if (!rx || cmd->proto != SHM_PROTO_SAR || cmd->size != rx->size) {
		/* an unknown continuation */
		shm_xfer_recv_drop_warn(ep, cmd);
		return;
	}
	*pp = rx->next;
	rp = rx->rpeer;
	rx->proto = SHM_PROTO_SAR;
	memcpy(&rx->u.sar, shm_cmd_payload(cmd), sizeof(rx->u.sar));
	if (shm_xfer_rpeer_map(ep, rp) || !shm_xfer_sar_valid(rx)) {
		shm_xfer_rx_done_cb(ep, rx, -FI_EIO, 0);
		shm_xfer_rx_free(rx);
		return;
	}
	rx->nchunks = (rx->size + rp->region->geo.sar_buf_size - 1) /
		      rp->region->geo.sar_buf_size;
	rx->next = ep->sar_rx;
	ep->sar_rx = rx;
}

/* The provider's fast path (shm_xfer_ops.rx_inline): 1 when it placed
 * the message, 0 when no posted receive took it. */
static int shm_xfer_recv_offer_inline(struct shm_xfer_ep *ep,
				      const struct shm_cmd *cmd,
				      const struct shm_rpeer *rp, uint64_t size)
{
	struct shm_xfer_inline in;

	in.size = size;
	in.tag = cmd->tag;
	in.cq_data = cmd->cq_data;
	in.flags = ((cmd->flags & SHM_CF_TAGGED) ? SHM_XF_TAGGED : 0) |
		   ((cmd->flags & SHM_CF_CQ_DATA) ? SHM_XF_CQ_DATA : 0) |
		   (cmd->flags & SHM_CF_RX_MASK);
	in.src_name = rp ? rp->name : NULL;
	in.data = shm_cmd_inline_data((struct shm_cmd *)cmd);
	return ep->ops->rx_inline(ep, &in);
}

int shm_xfer_recv_msg(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
{
	struct shm_rpeer *rp;
	size_t extra = 0;
	struct shm_xfer_rx *rx;
	bool unmatched = false;
	/* read once, then checked (shm_cmd_check_msg): what we allocate,
	 * copy and later deliver follows from these values, whatever the
	 * slot says by then */
	uint64_t size = shm_cmd_once_u64(&cmd->size);
	uint32_t flags = shm_cmd_once_u32(&cmd->flags);
	uint8_t proto = shm_cmd_once_u8(&cmd->proto),
		op = shm_cmd_once_u8(&cmd->op);

	if (flags & SHM_CF_CONT) {
		shm_xfer_recv_cont(ep, cmd);
		return 0;
	}
	if (shm_cmd_check_msg(op, proto, flags, size, ep->region->inline_max))
		goto drop;
	rp = shm_xfer_rpeer(ep, cmd->src_idx, cmd->src_gen);

	switch (proto) {
	case SHM_PROTO_INLINE:
		extra = (size_t)size;
		/* without a known sender we can place it, not ack it */
		if ((flags & SHM_CF_ACK) && !rp)
			goto drop;
		/* placed straight from the slot when a receive is posted;
		 * the slot stays ours until the release */
		if (op == SHM_OP_MSG && !(flags & SHM_CF_ACK) &&
		    ep->ops->rx_inline) {
			if (shm_xfer_recv_offer_inline(ep, cmd, rp, size)) {
				ep->stats.rx_msgs++;
				shm_cmdq_release(ep->region, cmd);
				return 1;
			}
			unmatched = true;
		}
		break;
	case SHM_PROTO_SAR:
	case SHM_PROTO_CMA:
		if (!rp)
			goto drop;
		/* every split job busy: wait for one rather than copy alone
		 * (the jobs move at every poll) */
		if (proto == SHM_PROTO_CMA && shm_xfer_split_full(ep, size))
			return -FI_EAGAIN;
		/* iov_cnt: checked on our copy below */
		break;
	default:
		goto drop;
	}
	rx = shm_xfer_rx_new(ep, cmd, rp, extra);
	if (!rx)
		return -FI_EAGAIN;
	rx->size = size;
	rx->proto = proto;
	rx->cmd_flags = flags;
	rx->flags = ((flags & SHM_CF_TAGGED) ? SHM_XF_TAGGED : 0) |
		    ((flags & SHM_CF_CQ_DATA) ? SHM_XF_CQ_DATA : 0) |
		    (unmatched ? SHM_XF_UNMATCHED : 0) |
		    (flags & SHM_CF_RX_MASK);
	if (proto == SHM_PROTO_INLINE)
		memcpy(rx->data, (flags & SHM_CF_IN_HDR) ? (void *)&cmd->key :
		       shm_cmd_payload(cmd), extra);
	else if (proto == SHM_PROTO_SAR)
		memcpy(&rx->u.sar, shm_cmd_payload(cmd), sizeof(rx->u.sar));
	else
		memcpy(&rx->u.cma, shm_cmd_payload(cmd), sizeof(rx->u.cma));
	/* the private copy is what we index with: check it, not the slot */
	if (proto == SHM_PROTO_CMA && rx->u.cma.iov_cnt > SHM_CMA_IOV_MAX) {
		shm_xfer_rx_free(rx);
		goto drop;
	}
	ep->stats.rx_msgs++;
	if (op == SHM_OP_WRITE) {
		/* to registered memory, not matched (shm_xfer_rma.c) */
		rx->flags |= SHM_XF_RMA_WRITE;
		rx->key = cmd->key;
	}
	/* Everything the message needs is in rx now: free the slot before
	 * matching and placing it (a store to our own control line; the
	 * slot's line is not written, shm_cmdq.c). */
	shm_cmdq_release(ep->region, cmd);
	if (rx->flags & SHM_XF_RMA_WRITE)
		shm_xfer_rma_dispatch(ep, rx);
	else
		ep->ops->rx_msg(ep, rx);
	return 1;

drop:
	shm_xfer_recv_drop_warn(ep, cmd);
	return 0;
}

void shm_xfer_recv_drop_warn(struct shm_xfer_ep *ep, const struct shm_cmd *cmd)
{
	/* One line per SHM_XFER_DROP_WARN_EVERY drops: a process that
	 * floods our queue with garbage must not flood the log too. */
	if (ep->drops++ % SHM_XFER_DROP_WARN_EVERY)
		return;
	SHM_WARN(FI_LOG_EP_DATA, "shm: %s: dropped a malformed or orphaned "
		 "command (op %u, proto %u, size %llu, peer entry %u; %llu "
		 "dropped so far)\n", ep->name, cmd->op, cmd->proto,
		 (unsigned long long)cmd->size, cmd->src_idx,
		 (unsigned long long)ep->drops);
}

void shm_xfer_recv_reject(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
{
	struct shm_rpeer *rp;

	if (cmd->op != SHM_OP_MSG && cmd->op != SHM_OP_WRITE &&
	    cmd->op != SHM_OP_READ && cmd->op != SHM_OP_ATOMIC)
		return;
	rp = shm_xfer_rpeer(ep, cmd->src_idx, cmd->src_gen);
	if (!rp || shm_xfer_rpeer_map(ep, rp))
		return;
	if (cmd->proto == SHM_PROTO_SAR) {
		struct shm_cmd_sar *sar = shm_cmd_payload(cmd);

		/* relaxed gen: ordered by the command's commit (R1/R2) */
		if (sar->chan < rp->region->geo.sar_chan_count &&
		    pl_load_relaxed(&rp->region->sar[sar->chan].gen) ==
		    sar->chan_gen) {
			/* R3 of shm_xfer_sar.c: we never read it */
			pl_store_release(&rp->region->sar[sar->chan].done,
					 1u + FI_ECONNRESET);
			shm_xfer_ep_poke(ep, rp->region, &rp->wake);
		}
	} else if (cmd->flags & SHM_CF_ACK) {
		struct shm_ack a = { rp, rp->state, cmd->xfer_id,
				     -FI_ECONNRESET, 0, 0 };

		/* best effort: a full queue at a closing time loses it */
		(void)shm_xfer_ack_send(ep, rp, &a);
	}
}
