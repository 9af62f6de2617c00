/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm endpoint as a progress source (progress/include/pl_progress.h) and as
 * the protocol layer's client (struct shm_xfer_ops). The source TRIES
 * the endpoint lock: when an application thread holds it (a send, a
 * post), the pass reports nothing done instead of waiting, and the next
 * pass picks the work up; arm answers -FI_EAGAIN then, so nobody sleeps
 * past it. The callbacks run inside shm_xfer_ep_poll, hence under the
 * lock, from the source or from a send's own progress pass.
 */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "shm_ep.h"

/* The source's side of the lock: tried, never waited for. Without
 * locking (FI_THREAD_DOMAIN) the pass is already exclusive: manual, by
 * the application's serialization; auto, by the context's asymmetric
 * exclusion, inside which every pass runs. */
static bool shm_ep_trylock(struct shm_ep *ep)
{
	return !ep->locking || !pthread_mutex_trylock(&ep->lock);
}

static void shm_ep_untrylock(struct shm_ep *ep)
{
	if (ep->locking) {
		/* relaxed: a hint, see shm_ep_progress_skip */
		pl_store_relaxed(&ep->dirty, 1u);
		pthread_mutex_unlock(&ep->lock);
	}
}

/*
 * Idle shortcut (locking endpoints only). A spinning poller (the
 * application on its CQ, the thread before it sleeps) would otherwise pay
 * a trylock and an unlock per pass for nothing. A full pass that leaves
 * the protocol layer idle (shm_xfer_ep_idle: nothing in flight, not
 * armed, no timer) stores dirty = 0 before it unlocks; any other locked
 * call stores 1 before it unlocks (shm_ep_unlock). While dirty reads 0
 * and the queue head reads free, no pass can have work: only a command
 * (the queue) or a locked call (dirty) can bring some. Both loads are
 * relaxed hints: a stale 0 only delays the pass to a later poll, and
 * arm() always takes the lock and re-checks under its fence.
 */
static bool shm_ep_progress_skip(struct shm_ep *ep)
{
	/* relaxed: see above */
	return ep->locking && !pl_load_relaxed(&ep->dirty) &&
	       !shm_xfer_ep_queue_hint(ep->xep);
}

/* The poll of a locking or armed endpoint (shm_ep_progress_poll). */
static PL_NOINLINE int shm_ep_progress_poll_slow(struct shm_ep *ep,
						 unsigned budget)
{
	bool armed;
	int n;

	if (shm_ep_progress_skip(ep))
		return 0;
	if (!shm_ep_trylock(ep))
		return 0;
	/* A poll disarms the endpoint (senders stop signalling). If this
	 * poll is an application's while the progress thread sleeps on our
	 * descriptor, that thread would never hear of later work: wake it,
	 * so that it re-arms before it sleeps again (or backs off while the
	 * application keeps polling). Only the first poll after an arm pays
	 * the kick: one fence and one load when the thread is awake. */
	armed = shm_xfer_ep_armed(ep->xep);
	n = shm_xfer_ep_poll(ep->xep, budget);
	if (ep->locking) {
		/* relaxed: see shm_ep_progress_skip */
		pl_store_relaxed(&ep->dirty,
				 shm_xfer_ep_idle(ep->xep) ? 0u : 1u);
		pthread_mutex_unlock(&ep->lock);
	}
	if (armed)
		pl_progress_ctx_kick(pl_domain_progress(&ep->dom->base.domain_fid));
	return n;
}

int shm_ep_progress_poll(struct pl_progress_source *src, unsigned budget)
{
	struct shm_ep *ep = pl_container_of(src, struct shm_ep, src);

	/* xep is set at enable, before the source is added */
	if (!ep->xep)
		return 0;
	/* no lock to take, no sleeping thread to tell: the protocol
	 * layer's poll, as a tail call (the spinning poller's path) */
	if (PL_LIKELY(!ep->locking && !shm_xfer_ep_armed(ep->xep)))
		return shm_xfer_ep_poll(ep->xep, budget);
	return shm_ep_progress_poll_slow(ep, budget);
}

int shm_ep_progress_arm(struct pl_progress_source *src)
{
	struct shm_ep *ep = pl_container_of(src, struct shm_ep, src);
	int ret;

	if (!shm_ep_trylock(ep))
		return -FI_EAGAIN;	/* an application call is under way */
	ret = ep->xep ? shm_xfer_ep_arm(ep->xep) : 0;
	shm_ep_untrylock(ep);
	return ret;
}

static void shm_ep_xfer_rx_msg(struct shm_xfer_ep *xep, struct shm_xfer_rx *rx)
{
	shm_ep_rx_arrive(shm_xfer_ep_user(xep), rx);
}

static int shm_ep_xfer_rx_inline(struct shm_xfer_ep *xep,
				 const struct shm_xfer_inline *in)
{
	return shm_ep_rx_inline(shm_xfer_ep_user(xep), in);
}

static void shm_ep_xfer_rx_done(struct shm_xfer_ep *xep,
				struct shm_xfer_rx *rx, int status,
				uint64_t len)
{
	struct shm_ep *ep = shm_xfer_ep_user(xep);

	if (rx->context)
		shm_ep_rx_finish(ep, rx->context, status, len);
}

static void shm_ep_xfer_tx_done(struct shm_xfer_ep *xep, void *context,
				int status)
{
	struct shm_ep *ep = shm_xfer_ep_user(xep);
	struct shm_ep_txe *t = context;

	shm_ep_tx_complete(ep, t->context, t->flags, t->op_flags, t->len,
			   status);
	shm_ep_txe_put(ep, t);
}

const struct shm_xfer_ops shm_ep_xfer_ops = {
	.rx_msg = shm_ep_xfer_rx_msg,
	.rx_inline = shm_ep_xfer_rx_inline,
	.rx_done = shm_ep_xfer_rx_done,
	.tx_done = shm_ep_xfer_tx_done,
	.rma_msg = shm_ep_rma_msg,	/* shm_ep_rma_rx.c */
	.rma_done = shm_ep_rma_done,
};
