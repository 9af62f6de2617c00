/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Liveness of the protocol layer's peers (DESIGN.md 7a, liveness): what
 * waits for a peer that died, or that stopped reading its queue (or
 * feeding a reception) for the peer timeout, completes in error, and the
 * lost peer is marked. Called from the endpoint's passes
 * (shm_xfer_ep.c), under its serialization.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_clock.h"
#include "pl_compiler.h"
#include "pl_proc.h"
#include "shm_addr.h"
#include "shm_cma.h"
#include "shm_cmd.h"
#include "shm_params.h"
#include "shm_xfer_int.h"

/* peer is lost (its owner died: -FI_ECONNRESET; or it stalled past the
 * peer timeout: -FI_ETIMEDOUT): refuse new sends, and remove its
 * region's name if its owner is gone */
static void shm_xfer_peer_dead(struct shm_xfer_peer *peer, int why)
{
	if (peer->dead)
		return;
	peer->dead = true;
	peer->lost = why;
	(void)shm_region_unlink_dead(peer->region);
}

bool shm_xfer_live_peer_check(struct shm_xfer_ep *ep,
			      struct shm_xfer_peer *peer)
{
	if (peer->dead)
		return true;
	if (++peer->eagain % SHM_XFER_EAGAIN_CHECK)
		return false;
	/* A queue that stays full while its owner sleeps can only be one
	 * whose words another process wrote (an honest owner does not
	 * sleep with commands pending): wake it, its consumer repairs them
	 * (shm_cmdq.c (6)). Signals only an owner that said it sleeps. */
	shm_xfer_ep_poke(ep, peer->region, &peer->wake);
	if (shm_region_owner_alive(peer->region))
		return false;
	shm_xfer_peer_dead(peer, -FI_ECONNRESET);
	return true;
}

/* A sender we receive from died: remove its region's name. */
static void shm_xfer_rpeer_dead(struct shm_rpeer *rp)
{
	if (rp && rp->region)
		(void)shm_region_unlink_dead(rp->region);
}

/* Is the sender of rx still alive? (Unmapped: it never got as far as
 * mapping, look at the pid alone.) */
bool shm_xfer_live_rx_sender(const struct shm_xfer_rx *rx)
{
	const struct shm_rpeer *rp = rx->rpeer;

	if (!rp)
		return true;
	if (rp->region)
		return shm_region_owner_alive(rp->region);
	return pl_proc_alive(rp->pid, 0);
}

/*
 * Has peer, alive, stopped reading its queue (DESIGN.md 7a, liveness)?
 * True when commands have waited in it, its consumer's head unmoved,
 * for the whole peer timeout. The head and the slot words are the
 * peer's to write: a peer that lies about them can only get its own
 * operations failed (or kept waiting), which is what it asked for.
 * A queue found empty, or a head that moved, restarts the watch: a peer
 * that reads its queue but has not posted a receive is not stalled.
 */
static bool shm_xfer_peer_stalled(struct shm_xfer_ep *ep,
				  struct shm_xfer_peer *peer)
{
	/* relaxed: a sample of a word the peer stores (release) after each
	 * read; the sample only needs to change when the head moves, and
	 * nothing is read through it */
	uint64_t head = pl_load_relaxed(&peer->region->ctl->head);

	if (!ep->peer_timeout_ns)
		return false;
	if (!peer->still_since || head != peer->seen_head ||
	    !shm_cmdq_maybe_pending(peer->region)) {
		peer->seen_head = head;
		peer->still_since = ep->reap_now;
		return false;
	}
	return ep->reap_now - peer->still_since >= ep->peer_timeout_ns;
}

/* Has the transfer rx stood still (nothing copied, its sender alive)
 * for the whole peer timeout? Same rule as shm_xfer_peer_stalled, for
 * the bytes a sender owes us. */
static bool shm_xfer_rx_stalled(struct shm_xfer_ep *ep,
				struct shm_xfer_rx *rx)
{
	if (!ep->peer_timeout_ns)
		return false;
	if (!rx->still_since || rx->copied != rx->seen_copied) {
		rx->seen_copied = rx->copied;
		rx->still_since = ep->reap_now;
		return false;
	}
	return ep->reap_now - rx->still_since >= ep->peer_timeout_ns;
}

/* What peer's waiting operations get: 0 while it is fine, else why it
 * is lost. Asked once per reap pass: a window of 64 single-copy sends
 * to one peer cost 64 kill() calls and 64 reads of /proc/PID/stat per
 * pass before. */
static int shm_xfer_peer_lost(struct shm_xfer_ep *ep,
			      struct shm_xfer_peer *peer)
{
	if (peer->dead)
		return peer->lost;
	if (peer->alive_pass == ep->reap_pass)
		return 0;
	if (!shm_region_owner_alive(peer->region)) {
		shm_xfer_peer_dead(peer, -FI_ECONNRESET);
		return peer->lost;
	}
	if (shm_xfer_peer_stalled(ep, peer)) {
		SHM_WARN(FI_LOG_EP_DATA,
			 "shm: peer %s read nothing from its queue for %" PRIu64
			 " ms: its operations fail with FI_ETIMEDOUT\n",
			 peer->name, (uint64_t)(ep->peer_timeout_ns / 1000000u));
		shm_xfer_peer_dead(peer, -FI_ETIMEDOUT);
		return peer->lost;
	}
	peer->alive_pass = ep->reap_pass;
	return 0;
}

/* Why the sender of rx is lost (its owner died, or it fed us nothing
 * for the peer timeout), or 0. */
static int shm_xfer_rx_lost(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx)
{
	if (!shm_xfer_live_rx_sender(rx)) {
		shm_xfer_rpeer_dead(rx->rpeer);
		return -FI_ECONNRESET;
	}
	if (shm_xfer_rx_stalled(ep, rx)) {
		SHM_WARN(FI_LOG_EP_DATA,
			 "shm: a transfer from %s moved no byte for %" PRIu64
			 " ms: it fails with FI_ETIMEDOUT\n",
			 rx->src_name ? rx->src_name : "?",
			 (uint64_t)(ep->peer_timeout_ns / 1000000u));
		return -FI_ETIMEDOUT;
	}
	return 0;
}

/*
 * Complete in error what waits for a peer that is lost: sends whose
 * target died (-FI_ECONNRESET) or stalled past the peer timeout
 * (-FI_ETIMEDOUT), and receptions whose sender did (the same codes,
 * with the bytes already placed). The lost peer is marked (later sends:
 * -FI_ECONNREFUSED) and a dead one's region name removed. Called every
 * SHM_XFER_PEER_CHECK idle polls and when the liveness timer expires;
 * cheap when nothing waits.
 */
void shm_xfer_live_reap(struct shm_xfer_ep *ep)
{
	struct shm_xfer_rx **rpp, *rx;
	struct shm_tx **pp, *tx;
	uint32_t i;
	int why;

	/* a new pass: every peer is asked again (0 is "never asked") */
	if (!++ep->reap_pass)
		ep->reap_pass = 1;
	ep->reap_now = pl_clock_now_ns();

	for (pp = &ep->sar_tx; (tx = *pp);) {
		if (!(why = shm_xfer_peer_lost(ep, tx->peer))) {
			pp = &tx->next;
			continue;
		}
		void *context = tx->context;

		*pp = tx->next;
		ep->chan_busy[tx->chan] = false;
		ep->chan_free++;
		shm_xfer_send_tx_put(ep, tx);
		ep->ops->tx_done(ep, context, why);
	}
	for (i = 0; i < ep->tx_count; i++) {
		tx = &ep->tx[i];
		if (tx->state == SHM_TX_ACK &&
		    (why = shm_xfer_peer_lost(ep, tx->peer))) {
			void *context = tx->context;

			shm_xfer_send_tx_put(ep, tx);
			ep->ops->tx_done(ep, context, why);
		}
	}
	for (pp = &ep->resend_tx; (tx = *pp);) {
		if (!(why = shm_xfer_peer_lost(ep, tx->peer))) {
			pp = &tx->next;
			continue;
		}
		void *context = tx->context;

		*pp = tx->next;
		shm_xfer_send_tx_put(ep, tx);
		ep->ops->tx_done(ep, context, why);
	}
	for (rpp = &ep->sar_rx; (rx = *rpp);) {
		if (!(why = shm_xfer_rx_lost(ep, rx))) {
			rpp = &rx->next;
			continue;
		}
		*rpp = rx->next;
		shm_xfer_rx_done_cb(ep, rx, why, rx->copied);
		shm_xfer_rx_free(rx);
	}
	for (rpp = &ep->cont_rx; (rx = *rpp);) {
		if (!(why = shm_xfer_rx_lost(ep, rx))) {
			rpp = &rx->next;
			continue;
		}
		*rpp = rx->next;
		shm_xfer_rx_done_cb(ep, rx, why, rx->copied);
		shm_xfer_rx_free(rx);
	}
	shm_xfer_split_reap(ep);
	/* acknowledgements to senders that died: nobody will read them,
	 * and they would keep the endpoint from sleeping */
	if (ep->ack_len)
		shm_xfer_ack_reap(ep);
}
