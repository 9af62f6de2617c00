/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider's objects over the engine: fabric, domain, AV wrapper
 * and the FI_EP_RDM endpoint built on the protocol layer (shm_xfer.h)
 * and the matching engine (engine/include/pl_match.h).
 *
 * Endpoint synchronization table (one struct shm_ep):
 *
 *   state                        touched by                   serialized by
 *   base (struct pl_ep)          control calls                application
 *                                (bind/enable/close/opts)     (fi_endpoint(3))
 *   xep, match, peers, txe pool  data calls (send/recv/       lock (see below)
 *   closing, mrecv               cancel), progress source
 *   naliases                     fi_ep_alias / alias close,   application
 *                                endpoint close               (control path)
 *   name                         setname (before enable),     application
 *                                getname
 *   src (progress source)        enable / close (add/remove)  the context
 *   dirty (relaxed atomic)       locked calls write it        lock (writes);
 *                                (shm_ep_unlock), the source  reads need none
 *                                reads it (idle shortcut,     (a hint)
 *                                shm_ep_progress.c)
 *
 *   The lock: a mutex taken by application data calls (which may wait
 *   for it, briefly) and TRIED by the progress source, which returns 0
 *   ("nothing done") rather than waiting: the progress thread and an
 *   application thread driving progress never block on an endpoint an
 *   application thread is using. It is not taken at all ("lockless")
 *   when the application serializes every call on the domain itself:
 *   FI_THREAD_DOMAIN with manual progress (the context then takes no
 *   token either). FI_THREAD_DOMAIN with auto progress takes the
 *   application side of the context's asymmetric exclusion instead
 *   (asym: plain stores, no locked instruction; the thread's pass runs
 *   on the other side of it, so the source needs no lock at all). Calls made under the lock: pl_cq_write* and
 *   pl_cntr_inc* (leaf objects that never call back into an endpoint)
 *   and the AV lookup (an RCU read-side section, never blocks).
 *   Lock order: endpoint lock, then anything inside the CQ/counter.
 */
#ifndef PROPEL_SHM_EP_H
#define PROPEL_SHM_EP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "pl_av.h"
#include "pl_av_addr.h"
#include "pl_fabric_obj.h"
#include "pl_compiler.h"
#include "pl_domain.h"
#include "pl_ep.h"
#include "pl_keymap.h"
#include "pl_match.h"
#include "pl_progress.h"
#include "shm_layout.h"
#include "shm_xfer.h"

/* ---- fabric (shm_fabric.c) ---- */

struct shm_fabric {
	struct pl_fabric_obj base;	/* counts domains, EQs, wait sets */
	uint32_t api_version;
};

int shm_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context);

/* ---- domain (shm_domain.c) ---- */

/* The MR mode the provider reports when the application leaves the
 * choice open; it serves the others too (shm_mr_mode.c). */
#define SHM_MR_MODE	(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY)

/* shm_mr_mode.c: the mode fi_getinfo offers for these hints (NULL: none),
 * and the one a domain opened from info runs in. */
int shm_mr_mode_offer(uint32_t version, const struct fi_info *hints);
int shm_mr_mode_domain(const struct fi_info *info, uint32_t version);

struct shm_domain {
	struct pl_domain base;		/* FIRST: the engine casts to it */
	struct pl_keymap keymap;	/* MR keys (RMA validation, S2) */
};

int shm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context);

/* ---- address vector (shm_av.c) ---- */

/* Every AV entry is a NUL-padded name of SHM_NAME_MAX bytes; the
 * application hands names packed back to back (each strlen + 1 bytes,
 * as fi_getname returns them). */
int shm_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_p, void *context);

/* ---- endpoint (shm_ep*.c) ---- */

/* Internal operation flag: a call that writes no completion (fi_inject,
 * fi_injectdata, fi_tinject...). A bit no data-transfer flag uses;
 * stripped from what applications pass. */
#define SHM_EP_F_NOCOMP	(1ULL << 62)
/* Internal: one segment of an RMA with several remote buffers; its
 * completion goes to shm_ep_rma_sub_done (shm_ep_rma_multi.c), context
 * is the parent operation. Stripped like SHM_EP_F_NOCOMP. */
#define SHM_EP_F_SUBOP	(1ULL << 61)

/* A send in flight: what its completion needs. */
struct shm_ep_txe {
	void			*context;
	uint64_t		flags;	/* FI_MSG/FI_TAGGED | FI_SEND ... */
	uint64_t		op_flags; /* as given, | SHM_EP_F_NOCOMP */
	size_t			len;
	struct shm_ep_txe	*next;	/* free list */
};

/* A reception whose data is still moving (SAR, CMA continued by SAR):
 * everything its completion needs, captured at match time. */
struct shm_ep_rxp {
	void			*context;
	uint64_t		flags;	/* completion flags */
	uint64_t		op_flags;
	void			*buf;	/* where the data starts */
	size_t			cap;	/* bytes the receive can hold */
	uint64_t		size;	/* bytes sent */
	uint64_t		tag, data;
	fi_addr_t		src;
	bool			src_err; /* FI_SOURCE_ERR: sender unknown */
	bool			probe;	 /* FI_PEEK: no counter event */
	struct shm_ep_mrecv	*mrecv;	 /* multi-recv tracker, or NULL */
	char			src_name[SHM_NAME_MAX];
};

/* A multi-recv buffer with deliveries still in flight (shm_ep_rx.c):
 * the completion that releases the buffer (FI_MULTI_RECV) is held back
 * until the last of them, so it is always the buffer's last one. */
struct shm_ep_mrecv {
	struct pl_match_rx	*mrx;	 /* while posted; NULL once released */
	unsigned		pending; /* placements whose data still moves */
	bool			release; /* released: last finisher flags it */
	struct shm_ep_mrecv	*next;
};

/* A destination as this endpoint knows it: the AV's fi_addr (with its
 * generation, so a reused slot is never taken for the old peer) and the
 * protocol layer's handle. */
struct shm_ep_peer {
	fi_addr_t		fi_addr;
	struct shm_xfer_peer	*xpeer;
	/* the fast path: the application's fi_addr_t (rx bits and all)
	 * that resolved to xpeer while the AV's epoch was av_epoch (0:
	 * not cached); a send with both unchanged skips the AV */
	fi_addr_t		dest;
	uint64_t		av_epoch;
};

struct shm_ep {
	struct pl_ep		base;	/* FIRST */
	struct shm_domain	*dom;
	uint64_t		tx_op_flags, rx_op_flags;
	bool			locking;
	/* FI_THREAD_DOMAIN auto: the context's asymmetric exclusion
	 * stands in for the lock (pl_progress.h), else NULL */
	struct pl_progress_ctx	*asym;
	bool			closing; /* no completions written any more */
	pthread_mutex_t		lock;
	/* 1 after any locked call but an idle progress poll: the source's
	 * lock-free "nothing to do" shortcut (shm_ep_progress.c) is off.
	 * Relaxed atomic: written under the lock, read without it. */
	pl_atomic_u32		dirty;

	char			name[SHM_NAME_MAX];
	bool			named;	 /* setname chose it */
	bool			auto_idx; /* name ends in our ":<idx>": another
					   * index may replace it at enable */
	struct shm_xfer_ep	*xep;	 /* after enable */
	struct pl_progress_source src;
	bool			src_added;

	struct pl_match		match;
	struct shm_ep_peer	*peers;	 /* [npeers], by AV slot index */
	size_t			npeers;
	struct shm_xfer_peer	**retired; /* replaced handles, closed last */
	size_t			nretired;

	struct shm_ep_txe	*txe;	 /* [ntxe] */
	size_t			ntxe;
	struct shm_ep_txe	*txe_free;
	struct shm_ep_mrecv	*mrecv;	 /* multi-recv trackers (shm_ep_rx.c) */
	/* pl_av_insert_gen when queued messages from senders missing from
	 * the AV were last looked up again (shm_ep_rx.c); under the lock */
	uint64_t		ux_av_gen;
	unsigned		naliases; /* control path: fi_ep_alias'es open */
};

/* fi_ep_alias (shm_ep.c): the same endpoint with other default op
 * flags. Its data calls reach the endpoint through shm_ep_of(). */
struct shm_ep_alias {
	struct fid_ep		ep_fid;	/* FIRST */
	struct shm_ep		*ep;
	uint64_t		tx_op_flags, rx_op_flags;
};

extern struct fi_ops shm_ep_alias_fid_ops;

/* The endpoint behind e (itself, or an alias's parent) and the default
 * op flags of the fid used. */
static inline struct shm_ep *shm_ep_of(struct fid_ep *e, uint64_t *tx_flags,
				       uint64_t *rx_flags)
{
	struct shm_ep *ep;

	if (e->fid.ops == &shm_ep_alias_fid_ops) {
		struct shm_ep_alias *a = (struct shm_ep_alias *)e;

		*tx_flags = a->tx_op_flags;
		*rx_flags = a->rx_op_flags;
		return a->ep;
	}
	ep = (struct shm_ep *)e;	/* base.ep_fid is first */
	*tx_flags = ep->tx_op_flags;
	*rx_flags = ep->rx_op_flags;
	return ep;
}

int shm_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context);

static inline void shm_ep_lock(struct shm_ep *ep)
{
	if (ep->locking)
		pthread_mutex_lock(&ep->lock);
	else if (ep->asym)
		pl_progress_ctx_app_enter(ep->asym);
}

static inline void shm_ep_unlock(struct shm_ep *ep)
{
	if (ep->locking) {
		/* relaxed: a hint for the progress source, see dirty */
		pl_store_relaxed(&ep->dirty, 1u);
		pthread_mutex_unlock(&ep->lock);
	} else if (ep->asym) {
		pl_progress_ctx_app_leave(ep->asym);
	}
}

extern const struct fi_ops_msg shm_ep_msg_ops;
extern const struct fi_ops_tagged shm_ep_tagged_ops;

/* shm_ep_progress.c: the protocol callbacks and the progress source */
extern const struct shm_xfer_ops shm_ep_xfer_ops;
int shm_ep_progress_poll(struct pl_progress_source *src, unsigned budget);
int shm_ep_progress_arm(struct pl_progress_source *src);

/* shm_ep_tx.c: the send path shared by fi_msg and fi_tagged.
 * flags: the operation's (FI_TAGGED selects the tagged protocol bit,
 * FI_REMOTE_CQ_DATA sends data, FI_INJECT, FI_DELIVERY_COMPLETE,
 * FI_COMPLETION). Called WITHOUT the lock. */
ssize_t shm_ep_send(struct shm_ep *ep, const struct iovec *iov, size_t count,
		    fi_addr_t dest, uint64_t tag, uint64_t data,
		    void *context, uint64_t flags);

void shm_ep_txe_put(struct shm_ep *ep, struct shm_ep_txe *t);
/* Under the lock: a free txe or NULL; the protocol handle on dest
 * (opened on first use; -FI_EAGAIN while the target does not exist). */
struct shm_ep_txe *shm_ep_txe_get(struct shm_ep *ep);
int shm_ep_peer_lookup(struct shm_ep *ep, fi_addr_t dest,
		       struct shm_xfer_peer **xp_p);

/* AV slot index of an fi_addr_t (the engine's encoding, pl_av_addr.h). */
#define SHM_EP_SLOT(a)	((size_t)pl_av_table_handle_idx(a))

/* Inline: the cache hit of a send to an address sent to before (same
 * fi_addr_t, AV epoch unchanged) skips the AV; anything else looks it
 * up (shm_ep_peer_lookup). */
static inline int shm_ep_peer_get(struct shm_ep *ep, fi_addr_t dest,
				  struct shm_xfer_peer **xp_p)
{
	struct shm_ep_peer *e;
	uint64_t epoch;

	if (PL_LIKELY(ep->base.av && SHM_EP_SLOT(dest) < ep->npeers)) {
		epoch = pl_av_epoch(ep->base.av);
		e = &ep->peers[SHM_EP_SLOT(dest)];
		if (PL_LIKELY(epoch && e->av_epoch == epoch &&
			      e->dest == dest && e->xpeer)) {
			*xp_p = e->xpeer;
			return 0;
		}
	}
	return shm_ep_peer_lookup(ep, dest, xp_p);
}

/* shm_ep_rma.c, shm_ep_atomic.c: fi_rma and fi_atomic (initiator side);
 * shm_ep_rma_rx.c: requests arriving at a target (xfer ops rma_msg,
 * rma_done). */
extern const struct fi_ops_rma shm_ep_rma_ops;
extern const struct fi_ops_atomic shm_ep_atomic_ops;
void shm_ep_rma_sub_done(struct shm_ep *ep, void *parent, int status);
void shm_ep_rma_msg(struct shm_xfer_ep *xep, struct shm_xfer_rx *rx);
void shm_ep_rma_done(struct shm_xfer_ep *xep, struct shm_xfer_rx *rx,
		     int status, uint64_t len);

/* shm_ep_rx.c: the receive path. kind and r as pl_match_post takes them
 * (r->flags are the operation's). Called WITHOUT the lock. */
ssize_t shm_ep_recv(struct shm_ep *ep, enum pl_match_kind kind,
		    const struct pl_match_recv *r);
/* An incoming message (under the lock, from the progress source). */
void shm_ep_rx_arrive(struct shm_ep *ep, struct shm_xfer_rx *rx);
/* shm_xfer_ops.rx_inline: 1 when a posted receive took the message and
 * its completion is written, 0 when none takes it. */
int shm_ep_rx_inline(struct shm_ep *ep, const struct shm_xfer_inline *in);
/* A delivery in progress finished (under the lock). */
void shm_ep_rx_finish(struct shm_ep *ep, struct shm_ep_rxp *p, int status,
		      uint64_t len);
ssize_t shm_ep_cancel(fid_t fid, void *context);
/* Close: free the multi-recv trackers (under the lock). */
void shm_ep_rx_fini(struct shm_ep *ep);

/* shm_ep_cq.c: completions and counters (under the lock) */
void shm_ep_tx_complete(struct shm_ep *ep, void *context, uint64_t flags,
			uint64_t op_flags, size_t len, int status);
void shm_ep_rx_complete(struct shm_ep *ep, const struct shm_ep_rxp *p,
			int status, uint64_t len);
void shm_ep_rx_error(struct shm_ep *ep, void *context, uint64_t flags,
		     int err);

#endif /* PROPEL_SHM_EP_H */
