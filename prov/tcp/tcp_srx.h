/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared receive context (fi_srx_context): receives posted once and
 * taken by whichever bound endpoint's message arrives first, in posting
 * order. srx->lock guards the queues, the pool and the list of stalled
 * endpoints; it nests inside an endpoint's lock (tcp_ep.h), never the
 * other way: a post takes only srx->lock, and wakes stalled endpoints by
 * re-arming their sockets in the data set (a system call, no ep lock),
 * so their next progress pass retries the message they hold.
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
	pl_atomic_int refs;		/* bound endpoints */
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
/* An endpoint leaves (close, unbind): off the stalled list. */
void tcp_srx_forget(struct tcp_srx *srx, struct tcp_ep *ep);
void tcp_srx_ref(struct tcp_srx *srx);
void tcp_srx_unref(struct tcp_srx *srx);

#endif
