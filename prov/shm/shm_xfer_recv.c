/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Receiving: commands become struct shm_xfer_rx for the provider, which
 * places them with shm_xfer_rx_deliver; acknowledgements go back to
 * senders, queued locally when a sender's queue is full so that the
 * receiver never waits for a sender (shm_xfer.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_cma.h"
#include "shm_cmd.h"
#include "shm_params.h"
#include "shm_xfer_int.h"

void shm_xfer_rx_free(struct shm_xfer_rx *rx)
{
	struct shm_xfer_ep *ep = rx->ep;

	shm_xfer_rpeer_put(rx->rpeer);
	rx->rpeer = NULL;
	if (rx->cached && ep->rx_cache_len < SHM_XFER_RX_CACHE_MAX) {
		rx->next = ep->rx_cache;
		ep->rx_cache = rx;
		ep->rx_cache_len++;
		return;
	}
	free(rx);
}

void shm_xfer_rx_cache_drain(struct shm_xfer_ep *ep)
{
	struct shm_xfer_rx *rx;

	while ((rx = ep->rx_cache)) {
		ep->rx_cache = rx->next;
		free(rx);
	}
	ep->rx_cache_len = 0;
}

/* Does rx name a real channel of its (mapped) sender, in the generation
 * the sender gave it? A stale or corrupt command must not make us read
 * outside the sender's region. */
static bool shm_xfer_sar_valid(const struct shm_xfer_rx *rx)
{
	const struct shm_region *sr = ((struct shm_rpeer *)rx->rpeer)->region;

	if (rx->u.sar.chan >= sr->geo.sar_chan_count || !sr->geo.sar_buf_size)
		return false;
	/* relaxed: the sender stored gen before committing the command we
	 * acquired (shm_cmdq.c R1/R2 order it) */
	return pl_load_relaxed(&sr->sar[rx->u.sar.chan].gen) ==
	       rx->u.sar.chan_gen;
}

/* The SAR continuation of a CMA message we could not read: resume the
 * waiting rx as a SAR drain, without matching it again. */
static void shm_xfer_handle_cont(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
{
	struct shm_xfer_rx **pp, *rx;
	struct shm_rpeer *rp;

	for (pp = &ep->cont_rx; (rx = *pp); pp = &rx->next)
		if (rx->xfer_id_cont == cmd->tag)
			break;
	if (!rx || cmd->proto != SHM_PROTO_SAR || cmd->size != rx->size) {
		shm_xfer_drop_warn(ep, cmd);	/* unknown continuation */
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

struct shm_xfer_rx *shm_xfer_rx_new(struct shm_xfer_ep *ep,
				    const struct shm_cmd *cmd,
				    struct shm_rpeer *rp, size_t extra)
{
	bool cached = extra <= SHM_XFER_RX_CACHED_DATA;
	struct shm_xfer_rx *rx;

	if (cached && ep->rx_cache) {
		rx = ep->rx_cache;
		ep->rx_cache = rx->next;
		ep->rx_cache_len--;
	} else {
		rx = malloc(sizeof(*rx) +
			    (cached ? SHM_XFER_RX_CACHED_DATA : extra));
		if (!rx)
			return NULL;
	}
	rx->cached = cached;
	/* field by field, not a memset of the whole record (a rep stos of
	 * ~250 bytes on every message) */
	rx->size = cmd->size;
	rx->tag = cmd->tag;
	rx->cq_data = cmd->cq_data;
	rx->flags = 0;
	rx->src_name = rp ? rp->name : NULL;
	rx->context = NULL;
	rx->key = 0;
	rx->ep = ep;
	rx->next = NULL;
	rx->rpeer = rp;
	shm_xfer_rpeer_get(rp);
	rx->proto = cmd->proto;
	rx->cmd_flags = cmd->flags;
	rx->xfer_id = cmd->xfer_id;
	rx->xfer_id_cont = 0;
	rx->iov_count = 0;
	rx->cap = 0;
	rx->next_chunk = 0;
	rx->nchunks = 0;
	rx->copied = 0;
	rx->seen_copied = 0;
	rx->still_since = 0;
	rx->split_job = 0;
	rx->split_status = 0;
	return rx;
}

/* The provider's fast path (shm_xfer_ops.rx_inline): 1 when it placed
 * the message, 0 when no posted receive took it. */
static int shm_xfer_offer_inline(struct shm_xfer_ep *ep,
				 const struct shm_cmd *cmd,
				 const struct shm_rpeer *rp, uint64_t size)
{
	struct shm_xfer_inline in;

	in.size = size;
	in.tag = cmd->tag;
	in.cq_data = cmd->cq_data;
	in.flags = ((cmd->flags & SHM_CF_TAGGED) ? SHM_XF_TAGGED : 0) |
		   ((cmd->flags & SHM_CF_CQ_DATA) ? SHM_XF_CQ_DATA : 0);
	in.src_name = rp ? rp->name : NULL;
	in.data = shm_cmd_inline_data((struct shm_cmd *)cmd);
	return ep->ops->rx_inline(ep, &in);
}

int shm_xfer_handle_msg(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
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
		shm_xfer_handle_cont(ep, cmd);
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
			if (shm_xfer_offer_inline(ep, cmd, rp, size)) {
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
		    (unmatched ? SHM_XF_UNMATCHED : 0);
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
	shm_xfer_drop_warn(ep, cmd);
	return 0;
}

void shm_xfer_drop_warn(struct shm_xfer_ep *ep, const struct shm_cmd *cmd)
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

static int shm_xfer_ack_send(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
			     const struct shm_ack *a);

void shm_xfer_reject(struct shm_xfer_ep *ep, struct shm_cmd *cmd)
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
			shm_xfer_poke(ep, rp->region, &rp->wake);
		}
	} else if (cmd->flags & SHM_CF_ACK) {
		struct shm_ack a = { rp, rp->state, cmd->xfer_id,
				     -FI_ECONNRESET, 0, 0 };

		/* best effort: a full queue at a closing time loses it */
		(void)shm_xfer_ack_send(ep, rp, &a);
	}
}

int shm_xfer_ctl_send(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
		      uint8_t op, uint64_t tag, const struct shm_ack *a)
{
	struct shm_cmd *cmd;
	int ret;

	ret = shm_cmdq_claim(rp->region, ep->pid, &cmd);
	if (ret)
		return ret;
	cmd->op = op;
	cmd->proto = SHM_PROTO_INLINE;
	cmd->src_idx = UINT16_MAX;	/* names no peer entry */
	cmd->src_gen = 0;
	cmd->flags = a->flags;
	cmd->size = 0;
	cmd->tag = tag;
	cmd->cq_data = a->cookie;
	cmd->xfer_id = a->xfer_id;
	cmd->status = a->status;
	shm_cmdq_commit(rp->region, cmd);
	shm_xfer_poke(ep, rp->region, &rp->wake);
	return 0;
}

static int shm_xfer_ack_send(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
			     const struct shm_ack *a)
{
	int ret = shm_xfer_ctl_send(ep, rp, SHM_OP_ACK, 0, a);

	if (!ret)
		ep->stats.acks_tx++;
	return ret;
}

void shm_xfer_ack(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
		  uint64_t xfer_id, int status, uint32_t flags,
		  uint64_t cookie)
{
	struct shm_ack one = { rp, rp ? rp->state : 0, xfer_id, status, flags,
			       cookie }, *a;

	if (!rp || shm_xfer_rpeer_map(ep, rp))
		return;		/* unknown or gone: nobody to tell */
	/* straight out unless acks to this sender wait already (they go
	 * first); acks waiting for other senders do not hold it back */
	if (!rp->acks_queued && !shm_xfer_ack_send(ep, rp, &one))
		return;
	if (ep->ack_len == ep->ack_cap) {
		uint32_t cap = ep->ack_cap * 2, i;
		struct shm_ack *n = malloc(cap * sizeof(*n));

		if (!n) {
			SHM_WARN(FI_LOG_EP_DATA, "shm: lost an ack (ENOMEM)\n");
			return;
		}
		for (i = 0; i < ep->ack_len; i++)
			n[i] = ep->acks[(ep->ack_head + i) % ep->ack_cap];
		free(ep->acks);
		ep->acks = n;
		ep->ack_cap = cap;
		ep->ack_head = 0;
	}
	a = &ep->acks[(ep->ack_head + ep->ack_len) % ep->ack_cap];
	*a = one;
	ep->ack_len++;
	rp->acks_queued++;
	shm_xfer_rpeer_get(rp);	/* until sent or dropped */
}

/* Is queued ack a still for the sender it was queued for? The entry of
 * a sender that left may have been taken by another (shm_xfer_rpeer
 * then unmapped the old region). */
static bool shm_xfer_ack_current(const struct shm_ack *a)
{
	return a->rp->state == a->rp_state && a->rp->region;
}

/*
 * Send what the queue holds, oldest first, skipping the senders whose
 * queue is full: one full sender (stopped, dead, slow) must not hold
 * back the acknowledgements of all the others (DESIGN.md section 7a).
 * One attempt per full sender per flush (its ack_blocked stamp), so a
 * long queue for a stalled sender costs a scan, not a claim each. The
 * ring is compacted in place: kept entries move towards the head, in
 * order.
 */
int shm_xfer_ack_flush(struct shm_xfer_ep *ep)
{
	uint32_t i, kept = 0, len = ep->ack_len, cap = ep->ack_cap;
	int n = 0, ret;

	if (!++ep->ack_pass)
		ep->ack_pass = 1;
	for (i = 0; i < len; i++) {
		struct shm_ack a = ep->acks[(ep->ack_head + i) % cap];
		struct shm_rpeer *rp = a.rp;

		if (rp->ack_blocked != ep->ack_pass) {
			ret = shm_xfer_ack_current(&a) ?
			      shm_xfer_ack_send(ep, rp, &a) : -FI_ECONNRESET;
			if (ret != -FI_EAGAIN) {
				/* sent, or the sender is gone: done */
				rp->acks_queued--;
				shm_xfer_rpeer_put(rp);
				n++;
				continue;
			}
			rp->ack_blocked = ep->ack_pass;
		}
		ep->acks[(ep->ack_head + kept++) % cap] = a;
	}
	ep->ack_len = kept;
	return n;
}

void shm_xfer_ack_reap(struct shm_xfer_ep *ep)
{
	uint32_t i, kept = 0, len = ep->ack_len, cap = ep->ack_cap;

	for (i = 0; i < len; i++) {
		struct shm_ack a = ep->acks[(ep->ack_head + i) % cap];

		if (!shm_xfer_ack_current(&a) ||
		    !shm_region_owner_alive(a.rp->region)) {
			a.rp->acks_queued--;
			shm_xfer_rpeer_put(a.rp);
			continue;
		}
		ep->acks[(ep->ack_head + kept++) % cap] = a;
	}
	ep->ack_len = kept;
}

void shm_xfer_cma_refused(struct shm_xfer_rx *rx)
{
	struct shm_xfer_ep *ep = rx->ep;

	((struct shm_rpeer *)rx->rpeer)->cma_read_ok = false;
	rx->xfer_id_cont = ++ep->next_cookie;
	rx->next = ep->cont_rx;
	ep->cont_rx = rx;
	shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, 0, SHM_CF_RESEND,
		     rx->xfer_id_cont);
}

static int shm_xfer_deliver_cma(struct shm_xfer_rx *rx,
				const struct iovec *iov, size_t cnt,
				uint64_t cap, uint64_t *len_p)
{
	struct iovec local[SHM_XFER_IOV_MAX], remote[SHM_CMA_IOV_MAX],
		     rfull[SHM_CMA_IOV_MAX];
	uint64_t n = rx->size < cap ? rx->size : cap;
	size_t lc, rc, i;
	ssize_t got = 0;
	int status;

	for (i = 0; i < rx->u.cma.iov_cnt; i++) {
		rfull[i].iov_base = (void *)(uintptr_t)rx->u.cma.iov[i].base;
		rfull[i].iov_len = (size_t)rx->u.cma.iov[i].len;
	}
	lc = pl_iov_slice(iov, cnt, 0, n, local);
	rc = pl_iov_slice(rfull, rx->u.cma.iov_cnt, 0, n, remote);
	/* large enough to share with the sender (shm_xfer_split.c) */
	if (shm_xfer_split_start(rx, local, lc, n, cap))
		return 1;
	if (n)
		got = shm_cma_read(rx->u.cma.pid, local, lc, remote, rc);
	if (got == -FI_EPERM || got == -FI_ENOSYS) {
		memcpy(rx->iov, iov, cnt * sizeof(*iov));
		rx->iov_count = cnt;
		rx->cap = cap;
		shm_xfer_cma_refused(rx);
		return 1;
	}
	if (got > 0)
		/* this sender may be read: its next large messages may be
		 * split (a refusal there would come late, see
		 * shm_xfer_split.c) */
		((struct shm_rpeer *)rx->rpeer)->cma_read_ok = true;
	status = got < 0 ? (int)got : (rx->size > cap ? -FI_ETRUNC : 0);
	/* the sender's status: its buffer was read, or the copy failed */
	shm_xfer_ack(rx->ep, rx->rpeer, rx->xfer_id, got < 0 ? (int)got : 0,
		     0, 0);
	*len_p = got < 0 ? 0 : (uint64_t)got;
	return status;
}

int shm_xfer_rx_deliver(struct shm_xfer_rx *rx, const struct iovec *iov,
			size_t iov_count, uint64_t *len_p)
{
	struct shm_xfer_ep *ep = rx->ep;
	uint64_t cap, n, len = 0;
	int ret;

	if (iov_count > SHM_XFER_IOV_MAX || (iov_count && !iov)) {
		shm_xfer_rx_discard(rx);
		return -FI_EINVAL;
	}
	cap = pl_iov_total(iov, iov_count);
	switch (rx->proto) {
	case SHM_PROTO_INLINE:
		n = rx->size < cap ? rx->size : cap;
		len = pl_iov_from_buf(iov, iov_count, 0, rx->data, n);
		if (rx->cmd_flags & SHM_CF_ACK)
			shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, 0, 0, 0);
		ret = rx->size > cap ? -FI_ETRUNC : 0;
		break;
	case SHM_PROTO_CMA:
		ret = shm_xfer_deliver_cma(rx, iov, iov_count, cap, &len);
		if (ret == 1)
			return 1;	/* continues by SAR */
		break;
	case SHM_PROTO_SAR:
		ret = shm_xfer_rpeer_map(ep, rx->rpeer);
		if (!ret && !shm_xfer_sar_valid(rx))
			ret = -FI_EIO;
		if (ret) {
			shm_xfer_rx_free(rx);
			return ret;
		}
		memcpy(rx->iov, iov, iov_count * sizeof(*iov));
		rx->iov_count = iov_count;
		rx->cap = cap;
		rx->nchunks = (rx->size + ((struct shm_rpeer *)rx->rpeer)->
			       region->geo.sar_buf_size - 1) /
			      ((struct shm_rpeer *)rx->rpeer)->region->geo.
			      sar_buf_size;
		rx->next = ep->sar_rx;
		ep->sar_rx = rx;
		/* the chunks already waiting signal nobody again: a progress
		 * source asleep since they came must drain them */
		shm_xfer_self_poke(ep);
		return 1;
	default:
		ret = -FI_EINVAL;
		break;
	}
	*len_p = len;
	shm_xfer_rx_free(rx);
	return ret;
}

void shm_xfer_rx_discard(struct shm_xfer_rx *rx)
{
	struct shm_xfer_ep *ep = rx->ep;

	switch (rx->proto) {
	case SHM_PROTO_SAR:
		if (shm_xfer_rpeer_map(ep, rx->rpeer) ||
		    !shm_xfer_sar_valid(rx)) {
			shm_xfer_rx_free(rx);
			return;
		}
		/* nchunks 0: finish without an rx_done callback */
		rx->nchunks = 0;
		shm_xfer_sar_rx_finish(rx, -FI_ECANCELED);
		return;
	default:
		if (rx->cmd_flags & SHM_CF_ACK)
			shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, 0, 0, 0);
		shm_xfer_rx_free(rx);
		return;
	}
}
