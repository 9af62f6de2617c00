/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Protocol layer endpoints and peers (shm_xfer.h): open/close, the
 * progress source members, the peer table on both sides.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static pthread_once_t shm_xfer_cleanup_once = PTHREAD_ONCE_INIT;

/* Once per process, before our first region: remove the regions our
 * user's dead processes left behind (crashes, SIGKILL). */
static void shm_xfer_cleanup(void)
{
	unsigned removed = 0;

	if (!shm_region_cleanup_dead(&removed) && removed)
		SHM_INFO(FI_LOG_EP_CTRL, "shm: removed %u stale region(s)\n",
			 removed);
}

int shm_xfer_ep_open(const char *name, const struct shm_xfer_ops *ops,
		     void *user, struct shm_xfer_ep **ep_p)
{
	const struct shm_params *p = shm_params_get();
	char rname[SHM_REGION_NAME_MAX];
	struct shm_layout_req req;
	struct shm_xfer_ep *ep;
	unsigned idx;
	uint32_t i;
	pid_t pid;
	uid_t uid;
	int ret;

	if (!name || !ops || shm_addr_check(name, strlen(name) + 1))
		return -FI_EINVAL;
	/* a name that carries a pid carries ours: dead-owner cleanup
	 * trusts it when the header is gone (shm_region.c) */
	if (!shm_addr_parse(name, &pid, &uid, &idx) &&
	    (pid != getpid() || uid != getuid()))
		return -FI_EINVAL;
	ret = shm_addr_region_name(name, rname, sizeof(rname));
	if (ret < 0)
		return ret;
	pthread_once(&shm_xfer_cleanup_once, shm_xfer_cleanup);
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->ops = ops;
	ep->user = user;
	ep->pid = (uint32_t)getpid();
	ep->cma = shm_cma_available();
	ep->sar_threshold = p->sar_threshold;
	ep->split_min = p->cma_split_min;
	ep->peer_timeout_ns = (uint64_t)p->peer_timeout_ms * 1000000ull;
	ep->split_tail = &ep->split_rx;
	snprintf(ep->name, sizeof(ep->name), "%s", name);

	req = (struct shm_layout_req){
		.cmdq_slots = (uint32_t)p->rx_size,
		.inline_max = (uint32_t)p->inline_size,
		.peer_count = (uint32_t)p->max_peers,
		.sar_chan_count = (uint32_t)(p->sar_buf_count / SHM_SAR_RING),
		.sar_buf_size = (uint32_t)p->sar_buf_size,
		.split_count = SHM_SPLIT_JOBS,
	};
	/* the wake socket first: the region publishes its address (the
	 * kernel picks it, shm_wake.h); the region's O_EXCL create is
	 * the uniqueness test of the name */
	ret = shm_wake_open(&ep->wake);
	if (ret)
		goto err_free;
	ep->self_wake = ep->wake.self;
	req.wake_len = (uint32_t)(ep->wake.self.len -
				  offsetof(struct sockaddr_un, sun_path));
	req.wake_addr = (const uint8_t *)ep->wake.self.sun.sun_path;
	ret = shm_region_create(rname, &req, ep->cma ? SHM_RF_CMA : 0,
				&ep->region);
	if (ret)
		goto err_wake;

	ep->rpeers = calloc(ep->region->geo.peer_count, sizeof(*ep->rpeers));
	ep->tx_count = (uint32_t)p->tx_size;
	ep->tx = calloc(ep->tx_count, sizeof(*ep->tx));
	ep->chan_free = ep->region->geo.sar_chan_count;
	ep->chan_busy = calloc(ep->chan_free + 1, sizeof(*ep->chan_busy));
	ep->ack_cap = ep->region->geo.cmdq_slots;
	ep->acks = calloc(ep->ack_cap, sizeof(*ep->acks));
	if (!ep->rpeers || !ep->tx || !ep->chan_busy || !ep->acks) {
		ret = -FI_ENOMEM;
		goto err_region;
	}
	for (i = ep->tx_count; i-- > 0;) {
		ep->tx[i].next = ep->tx_free;
		ep->tx_free = &ep->tx[i];
	}
	*ep_p = ep;
	return 0;

err_region:
	free(ep->rpeers);
	free(ep->tx);
	free(ep->chan_busy);
	free(ep->acks);
	shm_region_close(ep->region);
err_wake:
	shm_wake_close(&ep->wake);
err_free:
	free(ep);
	return ret;
}

void shm_xfer_ep_close(struct shm_xfer_ep *ep)
{
	struct shm_xfer_rx *rx;
	struct shm_cmd *cmd;
	uint32_t i;

	if (!ep)
		return;
	/* sends in flight: the caller learns they will not complete */
	for (i = 0; i < ep->tx_count; i++)
		if (ep->tx[i].state != SHM_TX_FREE)
			ep->ops->tx_done(ep, ep->tx[i].context, -FI_ECANCELED);
	while ((rx = ep->sar_rx)) {
		ep->sar_rx = rx->next;
		shm_xfer_sar_rx_finish(rx, -FI_ECANCELED);
	}
	shm_xfer_split_abandon(ep);
	while ((rx = ep->cont_rx)) {
		ep->cont_rx = rx->next;
		shm_xfer_rx_free(rx);
	}
	shm_xfer_rd_free_all(ep);	/* replies cut short: error acks */
	/* commands nobody will read: their senders learn it (SAR channel
	 * done, or an error ack) instead of waiting for us forever */
	/* at most one round of the queue: a process that keeps writing
	 * READY words ahead of us must not keep us here */
	for (i = 0; i < ep->region->geo.cmdq_slots &&
		    (cmd = shm_cmdq_peek(ep->region)); i++) {
		shm_xfer_reject(ep, cmd);
		shm_cmdq_release(ep->region, cmd);
	}
	/* acknowledgements nobody will send now */
	while (ep->ack_len) {
		shm_xfer_rpeer_put(ep->acks[ep->ack_head].rp);
		ep->ack_head = (ep->ack_head + 1) % ep->ack_cap;
		ep->ack_len--;
	}
	for (i = 0; i < ep->region->geo.peer_count; i++) {
		struct shm_rpeer *rp = ep->rpeers[i];

		/* a sender that died: its region goes with us */
		if (rp && rp->region)
			(void)shm_region_unlink_dead(rp->region);
		shm_xfer_rpeer_put(rp);	/* the table's reference */
	}
	shm_region_close(ep->region);
	shm_wake_close(&ep->wake);
	/* last: the records freed above went back to the cache */
	shm_xfer_rx_cache_drain(ep);
	free(ep->rpeers);
	free(ep->tx);
	free(ep->chan_busy);
	free(ep->acks);
	free(ep);
}

void *shm_xfer_ep_user(const struct shm_xfer_ep *ep)
{
	return ep->user;
}

const char *shm_xfer_ep_name(const struct shm_xfer_ep *ep)
{
	return ep->name;
}

void shm_xfer_ep_stats(const struct shm_xfer_ep *ep,
		       struct shm_xfer_stats *stats_p)
{
	*stats_p = ep->stats;
}

int shm_xfer_ep_fd(const struct shm_xfer_ep *ep)
{
	return shm_wake_fd(&ep->wake);
}

bool shm_xfer_ep_armed(const struct shm_xfer_ep *ep)
{
	return ep->wake.armed;
}

/* Has a poll pass something to do besides the queue: local work to move
 * on, a wake-up to take back, a liveness timer? */
static inline bool shm_xfer_ep_pass_work(const struct shm_xfer_ep *ep)
{
	return ep->ack_len || ep->resend_tx || ep->sar_tx || ep->sar_rx ||
	       ep->rd || ep->split_rx || ep->wake.armed || ep->wake.timer_set;
}

bool shm_xfer_ep_idle(const struct shm_xfer_ep *ep)
{
	return !ep->tx_inuse && !ep->cont_rx && !shm_xfer_ep_pass_work(ep);
}

bool shm_xfer_ep_queue_hint(const struct shm_xfer_ep *ep)
{
	return shm_cmdq_maybe_pending(ep->region);
}

/* The full pass: everything shm_xfer_ep_poll may have to do. */
static PL_NOINLINE int shm_xfer_ep_poll_pass(struct shm_xfer_ep *ep,
					     unsigned budget)
{
	struct shm_region *r = ep->region;
	bool blocked = false;
	struct shm_cmd *cmd;
	unsigned done = 0;
	int ret;

	shm_wake_awake(&ep->wake, r);
	if (ep->ack_len)
		done += (unsigned)shm_xfer_ack_flush(ep);
	/* split copies first: they hold jobs that new messages wait for */
	if (ep->split_rx)
		done += (unsigned)shm_xfer_split_progress(ep, budget);
	while (done < budget && (cmd = shm_cmdq_peek(r))) {
		/* Every command is checked before a handler uses it
		 * (shm_cmd.h): messages by shm_xfer_handle_msg, on the
		 * values it reads once (the path of every message pays for
		 * one check, not two); the others here. */
		switch (cmd->op) {
		case SHM_OP_MSG:
			ret = shm_xfer_handle_msg(ep, cmd);
			break;
		case SHM_OP_ACK:
			shm_xfer_handle_ack(ep, cmd);
			ret = 0;
			break;
		case SHM_OP_WRITE:
		case SHM_OP_READ:
		case SHM_OP_ATOMIC:
			ret = shm_cmd_check(cmd, shm_cmd_payload(cmd),
					    r->inline_max);
			ret = ret ? ret : shm_xfer_handle_rma(ep, cmd);
			break;
		case SHM_OP_DATA:
			ret = shm_cmd_check(cmd, shm_cmd_payload(cmd),
					    r->inline_max);
			if (!ret)
				shm_xfer_handle_data(ep, cmd);
			break;
		case SHM_OP_SPLIT:
			shm_xfer_split_help(ep, cmd);
			ret = 0;
			break;
		default:
			ret = 0;	/* NOP, or from a newer peer: skip */
			break;
		}
		if (PL_UNLIKELY(ret == -FI_EINVAL)) {
			/* malformed (foreign bytes): free the slot */
			shm_xfer_drop_warn(ep, cmd);
			ret = 0;
		}
		if (ret == -FI_EAGAIN) {
			/* no memory for the rx, or every split job busy:
			 * leave the command queued, the next poll retries.
			 * The rest of this poll still runs: it frees what
			 * the command waits for, and its idle count leads to
			 * the liveness check that frees a dead helper's job */
			blocked = true;
			break;
		}
		if (ret != 1)	/* 1: the handler released the slot */
			shm_cmdq_release(r, cmd);
		done++;
	}
	if (ep->resend_tx && done < budget)
		done += (unsigned)shm_xfer_resend_progress(ep);
	if (ep->sar_tx && done < budget)
		done += (unsigned)shm_xfer_sar_tx_progress(ep, budget - done);
	if (ep->sar_rx && done < budget)
		done += (unsigned)shm_xfer_sar_rx_progress(ep, budget - done);
	if (ep->rd && done < budget)
		done += (unsigned)shm_xfer_rd_progress(ep, budget - done);
	if (ep->split_rx && done < budget)
		done += (unsigned)shm_xfer_split_progress(ep, budget - done);
	if (!done && ++ep->polls >= SHM_XFER_PEER_CHECK) {
		ep->polls = 0;
		shm_xfer_reap_dead(ep);
	} else if (shm_wake_timer_due(&ep->wake)) {
		/* we slept with work that waits for a peer (arm) */
		shm_xfer_reap_dead(ep);
	}
	return done ? (int)done : blocked ? -FI_EAGAIN : 0;
}

int shm_xfer_ep_poll(struct shm_xfer_ep *ep, unsigned budget)
{
	/* Most polls find nothing: no pass work, nothing committed at the
	 * head slot, no peer check due. They return here, after a few
	 * loads, without the full pass's frame: the sooner an idle poll
	 * comes round to the head slot again, the sooner a command is seen
	 * (a receiver spinning on an empty CQ, S3). */
	if (PL_LIKELY(!shm_xfer_ep_pass_work(ep) &&
		      ep->polls < SHM_XFER_PEER_CHECK - 1 &&
		      !shm_cmdq_peek(ep->region))) {
		ep->polls++;
		return 0;
	}
	return shm_xfer_ep_poll_pass(ep, budget);
}

/* Does something of ours wait for a peer to move (so that a dead peer
 * would hold it forever)? Slow path: only before sleeping. */
static bool shm_xfer_waits_on_peer(const struct shm_xfer_ep *ep)
{
	uint32_t i;

	if (ep->sar_tx || ep->sar_rx || ep->cont_rx)
		return true;
	for (i = 0; i < ep->tx_count; i++)
		if (ep->tx[i].state == SHM_TX_ACK)
			return true;
	return false;
}

int shm_xfer_ep_arm(struct shm_xfer_ep *ep)
{
	/* local work that needs no peer to move first: poll again. A split
	 * copy waits at most for the chunk its helper is copying. */
	if (ep->ack_len || ep->resend_tx || ep->rd || ep->split_rx)
		return -FI_EAGAIN;
	/* a sleep must not outlast a dead peer by more than the timer:
	 * the wake-up descriptor becomes readable when it expires. A timer
	 * that cannot be started means no promise: do not sleep. */
	if (shm_xfer_waits_on_peer(ep) &&
	    shm_wake_timer_start(&ep->wake, SHM_XFER_PEER_CHECK_MS))
		return -FI_EAGAIN;
	if (!ep->sar_tx && !ep->sar_rx)
		return shm_wake_arm(&ep->wake, ep->region);
	/* SAR in flight: the peer pokes us after it moves (it fills or
	 * empties a buffer, then shm_xfer_poke), so the re-check after the
	 * fence must cover the channels too. relaxed: ordered by W1. */
	pl_store_relaxed(&ep->region->ctl->asleep, 1u);
	ep->wake.armed = true;
	/* W1 of shm_wake.h, for channel words as for the queue */
	pl_fence_seq_cst();
	if (shm_cmdq_pending(ep->region) || shm_xfer_sar_ready(ep)) {
		shm_wake_awake(&ep->wake, ep->region);
		return -FI_EAGAIN;
	}
	return 0;
}

void shm_xfer_poke(struct shm_xfer_ep *ep, struct shm_region *r,
		   const struct shm_wake_addr *wake)
{
	if (shm_wake_signal(ep->wake.tx_fd, r, wake) > 0)
		ep->stats.wakes_tx++;
}

void shm_xfer_self_poke(struct shm_xfer_ep *ep)
{
	/* armed is owner state, read under the same serialization as the
	 * source's arm (the endpoint lock or the application's own): true
	 * only between an arm and the next poll, so an awake endpoint pays
	 * this branch and nothing else */
	if (ep->wake.armed)
		shm_xfer_poke(ep, ep->region, &ep->self_wake);
}

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

bool shm_xfer_peer_check(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer)
{
	if (peer->dead)
		return true;
	if (++peer->eagain % SHM_XFER_EAGAIN_CHECK)
		return false;
	/* A queue that stays full while its owner sleeps can only be one
	 * whose words another process wrote (an honest owner does not
	 * sleep with commands pending): wake it, its consumer repairs them
	 * (shm_cmdq.c (6)). Signals only an owner that said it sleeps. */
	shm_xfer_poke(ep, peer->region, &peer->wake);
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
bool shm_xfer_rx_sender_alive(const struct shm_xfer_rx *rx)
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
	if (!shm_xfer_rx_sender_alive(rx)) {
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
void shm_xfer_reap_dead(struct shm_xfer_ep *ep)
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
		shm_xfer_tx_put(ep, tx);
		ep->ops->tx_done(ep, context, why);
	}
	for (i = 0; i < ep->tx_count; i++) {
		tx = &ep->tx[i];
		if (tx->state == SHM_TX_ACK &&
		    (why = shm_xfer_peer_lost(ep, tx->peer))) {
			void *context = tx->context;

			shm_xfer_tx_put(ep, tx);
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
		shm_xfer_tx_put(ep, tx);
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

/* ---- receiver side: our own peer table ---- */

struct shm_rpeer *shm_xfer_rpeer(struct shm_xfer_ep *ep, uint16_t idx,
				 uint32_t gen)
{
	struct shm_rpeer *rp, *old;
	struct shm_peer_ent *e;
	uint32_t st;

	/* idx < our own count: the table was sized from it (a header's
	 * count may say anything) */
	if (idx >= ep->region->geo.peer_count)
		return NULL;
	old = ep->rpeers[idx];
	if (PL_LIKELY(old && old->state == ((gen << 2) | SHM_PEER_LIVE)))
		return old;
	e = &ep->region->peers[idx];
	/* acquire: pairs with the release store of LIVE in
	 * shm_xfer_peer_open: the name and pid are visible */
	st = pl_load_acquire(&e->state);
	if (st != ((gen << 2) | SHM_PEER_LIVE))
		return NULL;	/* entry changed hands: a stale command */
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return NULL;
	rp->pid = e->pid;
	memcpy(rp->name, e->name, sizeof(rp->name));
	rp->name[sizeof(rp->name) - 1] = '\0';
	rp->state = st;
	rp->refs = 1;		/* the table's */
	ep->rpeers[idx] = rp;
	/* what still refers to the previous generation keeps it */
	shm_xfer_rpeer_put(old);
	return rp;
}

void shm_xfer_rpeer_put(struct shm_rpeer *rp)
{
	if (!rp || --rp->refs)
		return;
	shm_region_unmap(rp->region);
	free(rp);
}

int shm_xfer_rpeer_map(struct shm_xfer_ep *ep, struct shm_rpeer *rp)
{
	char rname[SHM_REGION_NAME_MAX];
	int ret;

	if (rp->region)
		return 0;
	ret = shm_addr_region_name(rp->name, rname, sizeof(rname));
	if (ret < 0)
		return ret;
	ret = shm_region_map(rname, &rp->region);
	if (ret)
		return ret;
	ret = shm_wake_addr_of(&rp->wake, rp->region);
	if (ret) {
		shm_region_unmap(rp->region);
		rp->region = NULL;
	}
	return ret;
}

/* ---- sender side: an entry in the target's table ---- */

static int shm_xfer_peer_claim(struct shm_xfer_ep *ep, struct shm_xfer_peer *p)
{
	struct shm_region *r = p->region;
	uint64_t start = 0;
	uint32_t i, st, gen;
	int pass;

	(void)pl_proc_start_time((pid_t)ep->pid, &start);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < r->geo.peer_count; i++) {
			struct shm_peer_ent *e = &r->peers[i];

			/* acquire: pairs with the release of LIVE or FREE,
			 * so pid and start below are the claimer's (the
			 * CAS that follows decides anyway) */
			st = pl_load_acquire(&e->state);
			if ((st & 3) != SHM_PEER_FREE) {
				/* second pass: take back the entries of
				 * senders that died without freeing them */
				if (!pass || (st & 3) != SHM_PEER_LIVE ||
				    pl_proc_alive(e->pid, e->start))
					continue;
			}
			gen = (st >> 2) + 1;
			/* acquire: pairs with the release that freed it,
			 * so the previous claimer's writes are done */
			if (!pl_cas_acquire(&e->state, &st,
					    (gen << 2) | SHM_PEER_BUSY))
				continue;
			e->pid = (int32_t)ep->pid;
			e->start = start;
			memcpy(e->name, ep->name, sizeof(e->name));
			/* release: pairs with the acquire in
			 * shm_xfer_rpeer: name and pid before LIVE */
			pl_store_release(&e->state, (gen << 2) | SHM_PEER_LIVE);
			p->idx = (uint16_t)i;
			p->gen = gen;
			return 0;
		}
	}
	return -FI_EAGAIN;
}

int shm_xfer_peer_open(struct shm_xfer_ep *ep, const char *name,
		       struct shm_xfer_peer **peer_p)
{
	char rname[SHM_REGION_NAME_MAX];
	struct shm_xfer_peer *p;
	int ret;

	if (!name || shm_addr_check(name, strlen(name) + 1))
		return -FI_EINVAL;
	ret = shm_addr_region_name(name, rname, sizeof(rname));
	if (ret < 0)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	p->ep = ep;
	snprintf(p->name, sizeof(p->name), "%s", name);
	ret = shm_region_map(rname, &p->region);
	if (ret)
		goto err_free;
	ret = shm_wake_addr_of(&p->wake, p->region);
	if (ret)
		goto err_unmap;
	p->cma = ep->cma && (p->region->geo.flags & SHM_RF_CMA);
	ret = shm_xfer_peer_claim(ep, p);
	if (ret)
		goto err_unmap;
	*peer_p = p;
	return 0;

err_unmap:
	shm_region_unmap(p->region);
err_free:
	free(p);
	return ret;
}

void shm_xfer_peer_close(struct shm_xfer_peer *p)
{
	struct shm_peer_ent *e;

	if (!p)
		return;
	e = &p->region->peers[p->idx];
	/* release: our commands (already queued) stay valid until the
	 * owner reads them; pairs with the claim CAS of the next user */
	pl_store_release(&e->state, (p->gen << 2) | SHM_PEER_FREE);
	/* a target that died unnoticed: its region goes with our handle */
	(void)shm_region_unlink_dead(p->region);
	shm_region_unmap(p->region);
	free(p);
}
