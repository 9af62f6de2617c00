/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDM endpoint core: what every FI_EP_RDM provider's endpoint has in
 * common, over a transport (rdm_transport.h). A provider embeds struct
 * rdm_ep FIRST in its endpoint, opens it with rdm_ep_init, points its
 * fid_ep's msg / tagged tables at rdm_ep_msg_ops / rdm_ep_tagged_ops,
 * registers rdm_ep_progress_poll / rdm_ep_progress_arm as its progress
 * source, and keeps for itself only control (enable, names, close) and
 * what its transport alone can do (RMA, atomics).
 *
 * Synchronization table (one struct rdm_ep):
 *
 *   state                        touched by                   serialized by
 *   base (struct pl_ep)          control calls                application
 *                                (bind/enable/close/opts)     (fi_endpoint(3))
 *   tx/rx_op_flags               fi_control (GET/SETOPSFLAG)  application
 *   match, peers, retired, txe   data calls (send/recv/       the lock (below)
 *   pool, mrecv, ux_av_gen,      cancel), the progress
 *   closing, armed, the          source, transport upcalls
 *   transport's
 *   own state                    (inside its ops)
 *   naliases                     fi_ep_alias / alias close,   application
 *                                endpoint close               (control path)
 *   matchp, mrecvp, lockp, srx,  fi_ep_bind of a shared       application
 *   stx                          context (before fi_enable),  (control path;
 *                                read by every data call      no data call
 *                                                             before enable)
 *   srx_next                     the shared receive context   its ctl mutex
 *                                (rdm_srx.c)
 *   psrx                         fi_ep_bind of a peer         application
 *                                receive context (before      (control path)
 *                                fi_enable), read by arrivals
 *   powner (atomic pointer)      fi_export_fid (once), read   release store,
 *                                by the progress source       acquire loads
 *                                without the lock             (rdm_peer_srx_owner.c)
 *   peer_proxy                   set once, on the export's    immutable
 *                                proxy endpoint
 *   xport, view, sep             rdm_ep_init, rdm_sep_init    immutable after
 *                                                             (before enable)
 *   ready, closing of a view     its enable / close, the      the scalable
 *   (a scalable endpoint's       scalable endpoint's enable   endpoint's lock
 *   context)                     and close (rdm_sep.c)        (taken through
 *                                                             xport)
 *   dirty (relaxed atomic)       locked calls write it        the lock (writes);
 *                                (rdm_ep_unlock), the source  reads need none
 *                                reads it (idle shortcut,     (a hint)
 *                                rdm_ep_progress.c)
 *   locking, asym, tops, limits  rdm_ep_init only             immutable after
 *
 * The lock, chosen once at open (rdm_ep_lock.c; DESIGN.md section 3):
 *   - a mutex (locking): taken by application data calls (which may wait
 *     for it, briefly) and TRIED by the progress source, which reports
 *     "nothing done" rather than waiting: the progress thread and an
 *     application thread driving progress never block on an endpoint an
 *     application thread is using;
 *   - none (lockless): FI_THREAD_DOMAIN with manual progress, where the
 *     application serializes every call on the domain itself (the
 *     progress context then takes no token either);
 *   - the application side of the context's asymmetric exclusion (asym):
 *     FI_THREAD_DOMAIN with auto progress; plain stores, no locked
 *     instruction; the progress thread's pass runs on the other side of
 *     it, so the source needs no lock at all.
 * An endpoint bound to a shared receive context (rdm_srx.h) matches in
 * the context's queue (matchp, mrecvp) and, when it locks, takes the
 * context's mutex (lockp) instead of its own: every endpoint of the
 * context is then serialized with every other, which is what sharing
 * one queue needs. Without locking (FI_THREAD_DOMAIN) the endpoints of
 * one domain are already serialized with each other.
 * Calls made under the lock: the transport's ops, pl_cq_write* and
 * pl_cntr_inc* (leaf objects that never call back into an endpoint) and
 * AV lookups (RCU read-side sections, never block). Lock order: the
 * endpoint lock, then anything inside the CQ / counter.
 */
#ifndef PROPEL_RDM_EP_H
#define PROPEL_RDM_EP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>

#include "pl_atomic.h"
#include "pl_av.h"
#include "pl_av_addr.h"
#include "pl_compiler.h"
#include "pl_ep.h"
#include "pl_match.h"
#include "pl_progress.h"
#include "rdm_transport.h"

/* Internal operation flag: a call that writes no completion (fi_inject,
 * fi_injectdata, fi_tinject...). A bit no data-transfer flag uses;
 * stripped from what applications pass. */
#define RDM_EP_F_NOCOMP	(1ULL << 62)
/* Reserved for the provider's own internal operations (shm: one segment
 * of a multi-buffer RMA); stripped from what applications pass too. */
#define RDM_EP_F_PROV	(1ULL << 61)
/* What an application may pass in a flags argument (never ours). */
#define RDM_EP_APP_FLAGS(f)	((f) & ~(RDM_EP_F_NOCOMP | RDM_EP_F_PROV))

/* Largest sender address FI_SOURCE_ERR reports (err_data). */
#define RDM_EP_ADDR_MAX	128

/* A send in flight: what its completion needs (rdm_ep_txe.c). */
struct rdm_ep_txe {
	/* where it completes: the endpoint, or the context of a scalable
	 * endpoint it was posted on (rdm_sep.h) */
	struct rdm_ep		*cq_ep;
	void			*context;
	uint64_t		flags;	  /* FI_MSG/FI_TAGGED | FI_SEND ... */
	uint64_t		op_flags; /* as given, | RDM_EP_F_NOCOMP */
	size_t			len;
	/* its completion was written before the transport was done
	 * (rdm_ep_tx_done_early): rdm_ep_tx_done only releases it */
	bool			early;
	struct rdm_ep_txe	*next;	  /* free list */
};

/* struct rdm_ep.view: an endpoint, or a context of a scalable one */
#define RDM_VIEW_NONE	0
#define RDM_VIEW_TX	1
#define RDM_VIEW_RX	2

struct rdm_ep_mrecv;
struct rdm_peer_srx;
struct fi_peer_rx_entry;
struct rdm_srx;
struct rdm_stx;
struct rdm_sep;
struct pl_bufpool;

/* A reception: everything its completion needs, captured at match time
 * (on the stack, or an rx entry while its data still moves). */
struct rdm_ep_rxp {
	struct rdm_ep		*cq_ep;	 /* completes there (as a txe's) */
	void			*context;
	uint64_t		flags;	 /* completion flags */
	uint64_t		op_flags;
	void			*buf;	 /* where the data starts */
	size_t			cap;	 /* bytes the receive can hold */
	uint64_t		size;	 /* bytes sent */
	uint64_t		tag, data;
	fi_addr_t		src;
	bool			src_err; /* FI_SOURCE_ERR: sender unknown */
	bool			probe;	 /* FI_PEEK: no counter event */
	struct rdm_ep_mrecv	*mrecv;	 /* multi-recv tracker, or NULL */
	/* a reception a peer receive context's owner gave the buffer
	 * for: given back to the owner once completed (rdm_peer_srx.h) */
	struct fi_peer_rx_entry	*peer_entry;
	size_t			src_name_len; /* bytes of src_name */
	char			src_name[RDM_EP_ADDR_MAX]; /* if src_err */
};

/* A destination as this endpoint knows it (rdm_ep_peer.c): the AV's
 * fi_addr (with its generation, so a reused slot is never taken for the
 * old peer) and the transport's handle. */
struct rdm_ep_peer {
	fi_addr_t		fi_addr;
	void			*tpeer;
	/* the fast path: the application's fi_addr_t (rx bits and all)
	 * that resolved to tpeer while the AV's epoch was av_epoch (0: not
	 * cached); a send with both unchanged skips the AV */
	fi_addr_t		dest;
	uint64_t		av_epoch;
	uint32_t		rx_idx;	 /* dest's receive context */
};

struct rdm_ep {
	struct pl_ep		base;	/* FIRST */
	const struct rdm_transport_ops *tops;
	uint64_t		tx_op_flags, rx_op_flags;
	size_t			iov_limit, inject_size, rx_size;
	size_t			atomic_max_bytes; /* operands per atomic */
	size_t			rma_iov_local;	/* local iovecs per RMA */
	bool			locking;
	/* FI_THREAD_DOMAIN auto: the context's asymmetric exclusion
	 * stands in for the lock (pl_progress.h), else NULL */
	struct pl_progress_ctx	*asym;
	/* set by the transport's owner: it has a live transport (after
	 * fi_enable); data calls answer -FI_EOPBADSTATE until then */
	bool			ready;
	bool			closing; /* no completions written any more */
	/* 1 once the receive queue is exported to a peer (powner): the
	 * progress source then takes its slow path, which hands the peer
	 * its matches (rdm_ep_progress.c). Beside ready, which every poll
	 * loads anyway; relaxed atomic, set once. */
	pl_atomic_u32		exported;
	pthread_mutex_t		lock;	 /* its own; lockp names the one used */
	pthread_mutex_t		*lockp;
	/* 1 after any locked call but an idle progress poll: the source's
	 * lock-free "nothing to do" shortcut (rdm_ep_progress.c) is off.
	 * Relaxed atomic: written under the lock, read without it. */
	pl_atomic_u32		dirty;
	/* the transport's arm answered 0 and it has not been polled since:
	 * a sleeper may rely on its fd, so the next poll kicks the context
	 * (rdm_ep_progress.c). Under the lock. */
	bool			armed;

	struct pl_match		match;	 /* its own receive queue */
	/* the receive queue in use: &match and &mrecv, or a shared receive
	 * context's (the context's list holds the endpoint: srx_next) */
	struct pl_match		*matchp;
	struct rdm_ep_mrecv	**mrecvp;
	struct rdm_srx		*srx;
	struct rdm_ep		*srx_next;
	struct rdm_stx		*stx;	 /* a shared transmit context, or NULL */
	/* fi_peer(3) (rdm_peer_srx.h): an imported peer receive context
	 * the arrivals are matched through; the export of this queue to a
	 * peer (struct rdm_peer_owner); true on an export's proxy, the
	 * holder of the messages a peer queued here */
	struct rdm_peer_srx	*psrx;
	/* the owner's entry for a message rdm_ep_rx_inline found nothing
	 * posted for, kept for that message's arrival, which follows in
	 * the same pass (rdm_peer_srx_inline); under the lock */
	struct fi_peer_rx_entry	*peer_stash;
	pl_atomic_ptr		powner;
	bool			peer_proxy;
	/* scalable endpoints (rdm_sep.h): xport is the endpoint whose
	 * transport moves this one's data and whose lock a data call takes
	 * (rdm_ep_lock(ep->xport)), itself unless this is a context of a
	 * scalable endpoint (view: no transport, no lock of its own in
	 * use); sep: the contexts of a scalable endpoint */
	struct rdm_ep		*xport;
	uint8_t			view;	 /* RDM_VIEW_* */
	struct rdm_sep		*sep;
	struct rdm_ep_peer	*peers;	 /* [npeers], by AV slot index */
	size_t			npeers;
	void			**retired; /* replaced handles, closed last */
	size_t			nretired;

	struct rdm_ep_txe	*txe;	 /* [ntxe] */
	size_t			ntxe;
	struct rdm_ep_txe	*txe_free;
	struct pl_bufpool	*rxp_pool; /* rx entries (rdm_ep_rxp.c) */
	struct rdm_ep_mrecv	*mrecv;	 /* multi-recv trackers */
	/* pl_av_insert_gen when queued messages from senders missing from
	 * the AV were last looked up again (rdm_ep_rx.c) */
	uint64_t		ux_av_gen;
	unsigned		naliases; /* control path: aliases open */
};

/* What the provider decides at open (rdm_ep_init). */
struct rdm_ep_attr {
	const struct rdm_transport_ops *tops;
	size_t			tx_size;	/* tx entries (fi_tx_size_left) */
	size_t			rx_size;	/* promised rx_attr->size */
	size_t			iov_limit;	/* per send, as fi_getinfo says */
	size_t			inject_size;
	/* operand bytes one atomic request carries (the transport's
	 * limit; fi_atomicvalid's count follows from it); 0: no atomics */
	size_t			atomic_max_bytes;
	/* the mutex whatever the threading model: a transport that runs
	 * work of its own from another thread (rxm's connection thread)
	 * tries it there */
	bool			always_lock;
	/* local iovecs one RMA request may name (at most
	 * RDM_RMA_LOCAL_IOV_MAX); 0: iov_limit */
	size_t			rma_iov_local;
};

/* ---- open / close (rdm_ep.c) ---- */

/* Initialize ep (zeroed by the caller) on domain from info: the engine
 * endpoint, the locking strategy, matching, the tx entries, default op
 * flags and the data-path tables (msg, tagged; the provider sets the
 * others). -FI_EINVAL, -FI_ENOMEM. */
int rdm_ep_init(struct rdm_ep *ep, struct fid_domain *domain,
		struct fi_info *info, const struct rdm_ep_attr *attr,
		void *context);
/* fi_enable's checks (pl_ep_enable) and what the core derives from the
 * options set before it. The provider then brings its transport up,
 * sets ready and adds its progress source. */
int rdm_ep_enable(struct rdm_ep *ep);
/* Close, first half, before the provider closes its transport: no more
 * completions are written and the unexpected messages the core holds go
 * back to the transport (rx_discard). Takes the lock. */
void rdm_ep_close_rx(struct rdm_ep *ep);
/* Close, second half, once the transport cannot call up any more: the
 * peer handles (peer_close), multi-recv trackers, matching, the pools. */
void rdm_ep_fini(struct rdm_ep *ep);
/* fi_control's commands the core answers: FI_GETOPSFLAG, FI_SETOPSFLAG,
 * FI_ALIAS; -FI_ENOSYS for the others (the provider's). */
int rdm_ep_control(struct rdm_ep *ep, int command, void *arg);
/* fi_setopt through the engine, then what the core derives from it. */
int rdm_ep_setopt(struct rdm_ep *ep, int level, int optname,
		  const void *optval, size_t optlen);

/* ---- the lock (rdm_ep_lock.c; calls inline) ---- */

int rdm_ep_lock_init(struct rdm_ep *ep, struct fid_domain *domain,
		     bool always);
void rdm_ep_lock_fini(struct rdm_ep *ep);

static inline void rdm_ep_lock(struct rdm_ep *ep)
{
	if (ep->locking)
		pthread_mutex_lock(ep->lockp);
	else if (ep->asym)
		pl_progress_ctx_app_enter(ep->asym);
}

static inline void rdm_ep_unlock(struct rdm_ep *ep)
{
	if (ep->locking) {
		/* relaxed: a hint for the progress source, see dirty */
		pl_store_relaxed(&ep->dirty, 1u);
		pthread_mutex_unlock(ep->lockp);
	} else if (ep->asym) {
		pl_progress_ctx_app_leave(ep->asym);
	}
}

/* The progress source's side: tried, never waited for. Without locking
 * the pass is already exclusive: manual, by the application's
 * serialization; auto, by the context's asymmetric exclusion, inside
 * which every pass runs. */
bool rdm_ep_lock_try(struct rdm_ep *ep);
void rdm_ep_lock_untry(struct rdm_ep *ep);

/* ---- aliases (rdm_ep_alias.c) ---- */

/* fi_ep_alias: the same endpoint with other default op flags. Its data
 * calls reach the endpoint through rdm_ep_of(). */
struct rdm_ep_alias {
	struct fid_ep		ep_fid;	/* FIRST */
	struct rdm_ep		*ep;
	uint64_t		tx_op_flags, rx_op_flags;
};

extern struct fi_ops rdm_ep_alias_fid_ops;

int rdm_ep_alias_open(struct rdm_ep *ep, struct fi_alias *alias);
/* FI_GETOPSFLAG / FI_SETOPSFLAG on a pair of default op flags. */
int rdm_ep_alias_opsflag(uint64_t *tx, uint64_t *rx, int command,
			 uint64_t *flags);

/* The endpoint behind e (itself, or an alias's parent) and the default
 * op flags of the fid used. */
static inline struct rdm_ep *rdm_ep_of(struct fid_ep *e, uint64_t *tx_flags,
				       uint64_t *rx_flags)
{
	struct rdm_ep *ep;

	if (e->fid.ops == &rdm_ep_alias_fid_ops) {
		struct rdm_ep_alias *a = (struct rdm_ep_alias *)e;

		*tx_flags = a->tx_op_flags;
		*rx_flags = a->rx_op_flags;
		return a->ep;
	}
	ep = (struct rdm_ep *)e;	/* base.ep_fid is first */
	*tx_flags = ep->tx_op_flags;
	*rx_flags = ep->rx_op_flags;
	return ep;
}

static inline struct rdm_ep *rdm_ep_of_fid(struct fid *fid)
{
	uint64_t txf, rxf;

	return rdm_ep_of(pl_container_of(fid, struct fid_ep, fid), &txf, &rxf);
}

/* ---- data-path tables (rdm_ep_msg.c, rdm_ep_tagged.c) ---- */

extern const struct fi_ops_msg rdm_ep_msg_ops;
extern const struct fi_ops_tagged rdm_ep_tagged_ops;

/* ---- completions and counters (rdm_ep_cq.c; under the lock) ---- */

void rdm_ep_cq_tx(struct rdm_ep *ep, void *context, uint64_t flags,
		  uint64_t op_flags, size_t len, int status);
void rdm_ep_cq_rx(struct rdm_ep *ep, const struct rdm_ep_rxp *p, int status,
		  uint64_t len);
void rdm_ep_cq_rx_err(struct rdm_ep *ep, void *context, uint64_t flags,
		      int err);

/* ---- tx entries (rdm_ep_txe.c; get / put under the lock) ---- */

int rdm_ep_txe_init(struct rdm_ep *ep, size_t n);
void rdm_ep_txe_fini(struct rdm_ep *ep);

/* A free entry or NULL. */
static inline struct rdm_ep_txe *rdm_ep_txe_get(struct rdm_ep *ep)
{
	struct rdm_ep_txe *t = ep->txe_free;

	if (t)
		ep->txe_free = t->next;
	return t;
}

static inline void rdm_ep_txe_put(struct rdm_ep *ep, struct rdm_ep_txe *t)
{
	t->next = ep->txe_free;
	ep->txe_free = t;
}

/* ---- rx entries (rdm_ep_rxp.c; under the lock) ---- */

int rdm_ep_rxp_init(struct rdm_ep *ep);
void rdm_ep_rxp_fini(struct rdm_ep *ep);
/* A record for a reception that finishes later, or NULL (no memory). */
struct rdm_ep_rxp *rdm_ep_rxp_get(struct rdm_ep *ep);
void rdm_ep_rxp_put(struct rdm_ep *ep, struct rdm_ep_rxp *p);

/* ---- the per-peer cache (rdm_ep_peer.c; under the lock) ---- */

/* The AV slot of an fi_addr_t: the engine's encoding (pl_av_addr.h). */
static inline size_t rdm_ep_peer_slot(fi_addr_t a)
{
	return (size_t)pl_av_table_handle_idx(a);
}

/* The cache miss of rdm_ep_peer_get: look dest up in the AV and open
 * (peer_open) or reuse the transport's handle on it. */
int rdm_ep_peer_lookup(struct rdm_ep *ep, fi_addr_t dest, void **tpeer_p);
/* Close every handle (peer_close); close only. */
void rdm_ep_peer_fini(struct rdm_ep *ep);

/* The receive context of dest (fi_rx_addr), right after a successful
 * rdm_ep_peer_get(ep, dest). */
static inline uint32_t rdm_ep_peer_rx_idx(const struct rdm_ep *ep,
					  fi_addr_t dest)
{
	return ep->peers[rdm_ep_peer_slot(dest)].rx_idx;
}

/* The transport's handle on dest. Inline: the cache hit of a send to an
 * address sent to before (same fi_addr_t, AV epoch unchanged) skips the
 * AV. */
static inline int rdm_ep_peer_get(struct rdm_ep *ep, fi_addr_t dest,
				  void **tpeer_p)
{
	struct rdm_ep_peer *e;
	uint64_t epoch;

	if (PL_LIKELY(ep->base.av && rdm_ep_peer_slot(dest) < ep->npeers)) {
		epoch = pl_av_epoch(ep->base.av);
		e = &ep->peers[rdm_ep_peer_slot(dest)];
		if (PL_LIKELY(epoch && e->av_epoch == epoch &&
			      e->dest == dest && e->tpeer)) {
			*tpeer_p = e->tpeer;
			return 0;
		}
	}
	return rdm_ep_peer_lookup(ep, dest, tpeer_p);
}

/* ---- send path (rdm_ep_tx.c) ---- */

/* Upcall: a send that answered 1 completed (context: msg->context). */
void rdm_ep_tx_done(struct rdm_ep *ep, void *context, int status);
/* A send whose bytes the transport copied (a buffered send) completes for
 * the application now, with success; the transport's later
 * rdm_ep_tx_done(context) only releases the entry, and a failure then
 * is logged, the application having been told (as when bytes a socket
 * took never arrive). Under the lock, between the transport's send
 * answering 1 and its rdm_ep_tx_done. */
void rdm_ep_tx_done_early(struct rdm_ep *ep, void *context);
/* fi_tx_size_left. */
ssize_t rdm_ep_tx_size_left(struct fid_ep *e);

/* ---- receive path (rdm_ep_rx.c) ---- */

/* A receive as the fi_msg / fi_tagged calls describe it (the endpoint's
 * adapters and a shared receive context's build it alike). */
static inline struct pl_match_recv rdm_ep_recv_of(const struct iovec *iov,
		void **desc, size_t count, fi_addr_t src, uint64_t tag,
		uint64_t ignore, void *context, uint64_t flags)
{
	return (struct pl_match_recv){
		.iov = iov, .desc = desc, .iov_count = count, .src = src,
		.tag = tag, .ignore = ignore, .context = context,
		.flags = flags,
	};
}

static inline struct pl_match_recv rdm_ep_recv_of_msg(const struct fi_msg *m,
						      uint64_t flags)
{
	return rdm_ep_recv_of(m->msg_iov, m->desc, m->iov_count, m->addr, 0,
			      0, m->context, RDM_EP_APP_FLAGS(flags));
}

static inline struct pl_match_recv
rdm_ep_recv_of_tmsg(const struct fi_msg_tagged *m, uint64_t flags)
{
	return rdm_ep_recv_of(m->msg_iov, m->desc, m->iov_count, m->addr,
			      m->tag, m->ignore, m->context,
			      RDM_EP_APP_FLAGS(flags));
}

/* kind and r as pl_match_post takes them (r->flags are the operation's).
 * Called WITHOUT the lock. */
ssize_t rdm_ep_rx_post(struct rdm_ep *ep, enum pl_match_kind kind,
		       const struct pl_match_recv *r);
/* Upcalls, rdm_transport.h. */
void rdm_ep_rx_arrive(struct rdm_ep *ep, const struct rdm_rx_hdr *hdr,
		      void *trx);
int rdm_ep_rx_inline(struct rdm_ep *ep, const struct rdm_rx_hdr *hdr);
void rdm_ep_rx_done(struct rdm_ep *ep, void *ctx, int status, uint64_t len);
/* The sender fa as FI_SOURCE reports it: its FI_AV_USER_ID value when
 * the AV holds one, else fa (the peer receive context passes it to its
 * owner the same way, rdm_peer_srx.h). Under the lock. */
fi_addr_t rdm_ep_rx_report_src(struct rdm_ep *own, fi_addr_t fa);
/* fi_cancel and fi_rx_size_left. */
ssize_t rdm_ep_rx_cancel(fid_t fid, void *context);
/* fi_cancel of a receive in ep's queue: the error completion goes to ep. */
ssize_t rdm_ep_rx_cancel_on(struct rdm_ep *ep, void *context);
/* fi_ep_bind: shared contexts (rdm_srx.h, rdm_stx.h), then the rest
 * (pl_ep_bind). */
int rdm_ep_bind(struct rdm_ep *ep, struct fid *bfid, uint64_t flags);
ssize_t rdm_ep_rx_size_left(struct fid_ep *e);

/* ---- the progress source (rdm_ep_progress.c) ---- */

/* A progress pass of the transport from a data call (under the lock):
 * every poll goes through here or the source, which keep armed. */
static inline int rdm_ep_poll(struct rdm_ep *ep, unsigned budget)
{
	ep->armed = false;
	return ep->tops->poll(ep, budget);
}

/* The endpoint as a progress source: the transport's poll and arm under
 * the endpoint's locking strategy. The provider embeds one, fills src's
 * fd and name, ep and ctx, and adds src to ctx after fi_enable. */
struct rdm_ep_source {
	struct pl_progress_source src;	/* FIRST */
	struct rdm_ep		*ep;
	struct pl_progress_ctx	*ctx;	/* kicked after an armed poll */
};

int rdm_ep_progress_poll(struct pl_progress_source *src, unsigned budget);
int rdm_ep_progress_arm(struct pl_progress_source *src);

#endif /* PROPEL_RDM_EP_H */
