/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Protocol layer endpoints (shm_xfer.h): open/close and the progress
 * source members. The peer table is shm_xfer_peer.c (sender's side) and
 * shm_xfer_rpeer.c (receiver's), liveness shm_xfer_live.c.
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
static void shm_xfer_ep_cleanup(void)
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
	pthread_once(&shm_xfer_cleanup_once, shm_xfer_ep_cleanup);
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
	shm_xfer_rma_rd_free_all(ep);	/* replies cut short: error acks */
	/* commands nobody will read: their senders learn it (SAR channel
	 * done, or an error ack) instead of waiting for us forever */
	/* at most one round of the queue: a process that keeps writing
	 * READY words ahead of us must not keep us here */
	for (i = 0; i < ep->region->geo.cmdq_slots &&
		    (cmd = shm_cmdq_peek(ep->region)); i++) {
		shm_xfer_recv_reject(ep, cmd);
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
		 * (shm_cmd.h): messages by shm_xfer_recv_msg, on the
		 * values it reads once (the path of every message pays for
		 * one check, not two); the others here. */
		switch (cmd->op) {
		case SHM_OP_MSG:
			ret = shm_xfer_recv_msg(ep, cmd);
			break;
		case SHM_OP_ACK:
			shm_xfer_send_acked(ep, cmd);
			ret = 0;
			break;
		case SHM_OP_WRITE:
		case SHM_OP_READ:
		case SHM_OP_ATOMIC:
			ret = shm_cmd_check(cmd, shm_cmd_payload(cmd),
					    r->inline_max);
			ret = ret ? ret : shm_xfer_rma_request(ep, cmd);
			break;
		case SHM_OP_DATA:
			ret = shm_cmd_check(cmd, shm_cmd_payload(cmd),
					    r->inline_max);
			if (!ret)
				shm_xfer_rma_data(ep, cmd);
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
			shm_xfer_recv_drop_warn(ep, cmd);
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
		done += (unsigned)shm_xfer_send_resend_progress(ep);
	if (ep->sar_tx && done < budget)
		done += (unsigned)shm_xfer_sar_tx_progress(ep, budget - done);
	if (ep->sar_rx && done < budget)
		done += (unsigned)shm_xfer_sar_rx_progress(ep, budget - done);
	if (ep->rd && done < budget)
		done += (unsigned)shm_xfer_rma_rd_progress(ep, budget - done);
	if (ep->split_rx && done < budget)
		done += (unsigned)shm_xfer_split_progress(ep, budget - done);
	if (!done && ++ep->polls >= SHM_XFER_PEER_CHECK) {
		ep->polls = 0;
		shm_xfer_live_reap(ep);
	} else if (shm_wake_timer_due(&ep->wake)) {
		/* we slept with work that waits for a peer (arm) */
		shm_xfer_live_reap(ep);
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
static bool shm_xfer_ep_waits_on_peer(const struct shm_xfer_ep *ep)
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
	if (shm_xfer_ep_waits_on_peer(ep) &&
	    shm_wake_timer_start(&ep->wake, SHM_XFER_PEER_CHECK_MS))
		return -FI_EAGAIN;
	if (!ep->sar_tx && !ep->sar_rx)
		return shm_wake_arm(&ep->wake, ep->region);
	/* SAR in flight: the peer pokes us after it moves (it fills or
	 * empties a buffer, then shm_xfer_ep_poke), so the re-check after the
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

void shm_xfer_ep_poke(struct shm_xfer_ep *ep, struct shm_region *r,
		      const struct shm_wake_addr *wake)
{
	if (shm_wake_signal(ep->wake.tx_fd, r, wake) > 0)
		ep->stats.wakes_tx++;
}

void shm_xfer_ep_self_poke(struct shm_xfer_ep *ep)
{
	/* armed is owner state, read under the same serialization as the
	 * source's arm (the endpoint lock or the application's own): true
	 * only between an arm and the next poll, so an awake endpoint pays
	 * this branch and nothing else */
	if (ep->wake.armed)
		shm_xfer_ep_poke(ep, ep->region, &ep->self_wake);
}
