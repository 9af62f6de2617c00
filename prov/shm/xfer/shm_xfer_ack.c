/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Acknowledgements and other control commands back to senders, queued
 * locally per sender when its queue is full, so that the receiver never
 * waits for a sender and one stalled sender delays only its own
 * (DESIGN.md 7a, liveness; shm_xfer.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_cma.h"
#include "shm_cmd.h"
#include "shm_params.h"
#include "shm_xfer_int.h"

int shm_xfer_ack_ctl_send(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
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
	shm_xfer_ep_poke(ep, rp->region, &rp->wake);
	return 0;
}

int shm_xfer_ack_send(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
		      const struct shm_ack *a)
{
	int ret = shm_xfer_ack_ctl_send(ep, rp, SHM_OP_ACK, 0, a);

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
