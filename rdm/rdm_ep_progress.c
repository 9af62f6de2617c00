/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An RDM endpoint as a progress source (pl_progress.h): the transport's
 * poll and arm under the endpoint's locking strategy. The source TRIES
 * the endpoint lock: when an application thread holds it (a send, a
 * post), the pass reports nothing done instead of waiting, and the next
 * pass picks the work up; arm answers -FI_EAGAIN then, so nobody sleeps
 * past it. The transport's upcalls run inside its poll, hence under the
 * lock, from the source or from a data call's own progress pass.
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "rdm_ep.h"
#include "rdm_peer_srx.h"

/*
 * Idle shortcut (locking endpoints only). A spinning poller (the
 * application on its CQ, the thread before it sleeps) would otherwise pay
 * a trylock and an unlock per pass for nothing. A full pass that leaves
 * the transport idle (ops->idle: nothing in flight, not armed, no timer)
 * stores dirty = 0 before it unlocks; any other locked call stores 1
 * before it unlocks (rdm_ep_unlock, rdm_ep_lock_untry). While dirty reads
 * 0 and the transport's queue_hint says no, no pass can have work: only
 * incoming traffic (the hint) or a locked call (dirty) can bring some.
 * Both loads are relaxed hints: a stale 0 only delays the pass to a
 * later poll, and arm() always takes the lock and re-checks under the
 * transport's own fence.
 */
static bool rdm_ep_progress_skip(struct rdm_ep *ep)
{
	/* relaxed: see above */
	return ep->locking && !pl_load_relaxed(&ep->dirty) &&
	       !ep->tops->queue_hint(ep);
}

/* The poll of a locking or armed endpoint (rdm_ep_progress_poll). */
static PL_NOINLINE int rdm_ep_progress_poll_slow(struct rdm_ep_source *s,
						 unsigned budget)
{
	struct rdm_ep *ep = s->ep;
	bool armed;
	int n;

	/* an exported queue's matches for a peer, handed over outside the
	 * lock (rdm_peer_srx.h) */
	rdm_peer_owner_flush(ep);
	/* and the transport's sends listed for after the lock
	 * (rdm_transport.h) */
	if (ep->tops->unlocked)
		ep->tops->unlocked(ep);
	if (rdm_ep_progress_skip(ep))
		return 0;
	if (!rdm_ep_lock_try(ep))
		return 0;
	/* A poll disarms the endpoint (senders stop signalling). If this
	 * poll is an application's while the progress thread sleeps on our
	 * descriptor, that thread would never hear of later work: wake it,
	 * so that it re-arms before it sleeps again (or backs off while the
	 * application keeps polling). Only the first poll after an arm pays
	 * the kick: one fence and one load when the thread is awake. */
	armed = ep->armed;
	n = rdm_ep_poll(ep, budget);
	if (ep->locking) {
		/* relaxed: see rdm_ep_progress_skip */
		pl_store_relaxed(&ep->dirty, ep->tops->idle(ep) ? 0u : 1u);
		pthread_mutex_unlock(ep->lockp);
	}
	if (armed)
		pl_progress_ctx_kick(s->ctx);
	return n;
}

int rdm_ep_progress_poll(struct pl_progress_source *src, unsigned budget)
{
	struct rdm_ep_source *s = (struct rdm_ep_source *)src;
	struct rdm_ep *ep = s->ep;

	/* the transport is up at enable, before the source is added */
	if (!ep->ready)
		return 0;
	/* no lock to take, no sleeping thread to tell, no peer to hand
	 * matches to: the transport's poll, as a tail call (the spinning
	 * poller's path); relaxed: see rdm_ep.exported */
	if (PL_LIKELY(!ep->locking && !ep->armed &&
		      !pl_load_relaxed(&ep->exported)))
		return ep->tops->poll(ep, budget);
	return rdm_ep_progress_poll_slow(s, budget);
}

int rdm_ep_progress_arm(struct pl_progress_source *src)
{
	struct rdm_ep *ep = ((struct rdm_ep_source *)src)->ep;
	int ret;

	if (!rdm_ep_lock_try(ep))
		return -FI_EAGAIN;	/* an application call is under way */
	ret = ep->ready ? ep->tops->arm(ep) : 0;
	if (!ret && ep->ready)
		ep->armed = true;
	rdm_ep_lock_untry(ep);
	return ret;
}
