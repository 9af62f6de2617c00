/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared receive context (fi_srx_context): receives posted once and
 * taken by whichever bound endpoint's message arrives first, in posting
 * order. srx->lock guards the queues, the pool, the lists of stalled and
 * of bound endpoints and the endpoints' srx_* fields; it nests inside an
 * endpoint's lock (tcp_ep.h), never the other way: a post takes only
 * srx->lock, and wakes stalled endpoints by re-arming their sockets in
 * the data set (a system call, no ep lock), so their next progress pass
 * retries the message they hold.
 *
 * A receive canceled here is reported on the receive CQ of the oldest
 * bound endpoint that is enabled and has one (tcp_srx.c says why); a
 * cancel takes no ep->lock for it, which the list makes safe: fi_close
 * takes its endpoint off under srx->lock before the CQs it bound can go.
 */
#ifndef PROPEL_TCP_SRX_H
#define PROPEL_TCP_SRX_H

#include <pthread.h>

#include "tcp_ep.h"

struct tcp_srx {
	struct fid_ep ep_fid;		/* FI_CLASS_SRX_CTX */
	struct tcp_domain *dom;		/* open only */
	pthread_mutex_t lock;
	struct tcp_rxq rxq, trxq;
	struct tcp_rx *pool, *free;
	size_t size;
	struct tcp_ep *stalled;		/* endpoints waiting for a post */
	struct tcp_ep *bound;		/* in bind order (srx_bound_next) */
	/* canceled while no bound endpoint could report them: reported
	 * when one is enabled (tcp_srx_enable); entries of the pool */
	struct tcp_rxq canceled;
	/* bound endpoints not yet past their close's progress sync: a
	 * closing one leaves `bound` earlier, its data path may still run */
	pl_atomic_int refs;
	uint64_t op_flags;		/* open only */
};

struct tcp_srx *tcp_srx_of(struct fid *fid);
/* Take the first receive matching (tagged, tag); NULL: none, and ep is
 * put on the stalled list until the next post. Under ep->lock. */
struct tcp_rx *tcp_srx_take(struct tcp_srx *srx, bool tagged, uint64_t tag,
			    struct tcp_ep *ep);
/* Give back a FI_MULTI_RECV buffer with room left, at the head. */
void tcp_srx_requeue(struct tcp_srx *srx, struct tcp_rx *rx);
void tcp_srx_rx_put(struct tcp_srx *srx, struct tcp_rx *rx);
/* ep reads no more (its connection is gone, or it closes): off the
 * stalled list. Under ep->lock. */
void tcp_srx_forget(struct tcp_srx *srx, struct tcp_ep *ep);
/* fi_ep_bind, before fi_enable: ep joins the bound list, last, and
 * takes a reference. */
void tcp_srx_attach(struct tcp_srx *srx, struct tcp_ep *ep);
/* fi_enable succeeded: ep may report cancels, first those waiting for
 * one. Under ep->lock. */
void tcp_srx_enable(struct tcp_srx *srx, struct tcp_ep *ep);
/* fi_close, once ep->closing is set: ep leaves the bound list and is
 * never picked again. Under ep->lock. */
void tcp_srx_detach(struct tcp_srx *srx, struct tcp_ep *ep);
/* fi_close, after the progress sync: the reference goes. */
void tcp_srx_unref(struct tcp_srx *srx);

#endif
