/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The owner's side of a peer shared receive context (rdm_peer_srx.h):
 * an RDM endpoint's receive queue exported as a struct fid_peer_srx.
 *
 * Synchronization table (one struct rdm_peer_owner):
 *   field               touched by                     serialized by
 *   peer_srx, owner_ops, export (once), endpoint close  the application
 *   proxy, ep                                          (control path)
 *   peer_ops            the peer, inside its            the application
 *                       fi_srx_context (before use)     (set-up order)
 *   pending, npend,     get / queue / free_entry (the   the endpoint's
 *   queued, out,        peer's thread), posts and       lock
 *   free_recs, the      progress (the owner's), close
 *   records listed
 *   hint                written under the lock, read    relaxed atomic:
 *                       by flush without it             a hint (below)
 *   freed               free_entry pushes (any thread,  a lock-free
 *                       no lock); the owner takes the   stack: pushes
 *                       whole stack under the lock      CAS, the owner
 *                       (rdm_peer_owner_collect)        exchanges
 *   rdm_ep.powner       export (once), flush unlocked   release store,
 *                                                       acquire loads
 * A record (struct rdm_peer_ownrec) belongs to the peer between the
 * owner's answer to get (or its start / discard) and the peer's next
 * call on it (queue, free_entry); to the owner otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_iov.h"
#include "pl_log.h"
#include "rdm_ep.h"
#include "rdm_peer_srx.h"

struct rdm_peer_ownrec {
	struct fi_peer_rx_entry	entry;	/* FIRST: what the peer holds */
	struct rdm_peer_owner	*po;
	struct rdm_peer_ownrec	*next;	/* po->pending, po->free_recs */
	bool			tagged;
	bool			discard; /* pending: dropped, not started */
	struct iovec		iov[PL_MATCH_IOV_MAX];
	void			*desc[PL_MATCH_IOV_MAX];
};

struct rdm_peer_owner {
	struct fid_peer_srx	peer_srx;	/* FIRST: the export */
	struct fi_ops_srx_owner	owner_ops;
	struct fi_ops_srx_peer	peer_ops;
	struct rdm_ep		*ep;
	/* pl_match_unexp.owner of the messages the peer holds: an
	 * endpoint without a transport, whose rx_discard lists a discard
	 * (rdm_ep_rx.c places its matches through rdm_peer_owner_place) */
	struct rdm_ep		proxy;
	struct rdm_peer_ownrec	*pending, *pending_tail;
	size_t			npend;	/* records listed in pending */
	size_t			queued;	/* records in the match queue */
	pl_atomic_u32		hint;	/* npend != 0, for flush */
	size_t			out;	/* records not freed yet */
	/* records freed, kept for the next get: no allocation per
	 * message once the pool has grown to what is in flight */
	struct rdm_peer_ownrec	*free_recs;
	/* records the peer freed since the owner last collected them
	 * (linked by next): free_entry takes no lock, once per message */
	pl_atomic_ptr		freed;
};

/* Under the lock: the records the peer freed join free_recs, and leave
 * the count of those it holds. */
static void rdm_peer_owner_collect(struct rdm_peer_owner *po)
{
	struct rdm_peer_ownrec *rec, *next;

	/* relaxed look first: the exchange is a locked instruction */
	if (!pl_load_relaxed(&po->freed))
		return;
	/* acquire: pairs with free_entry's release CAS, so each record's
	 * next (and its content) is the pusher's */
	for (rec = pl_exchange_acq_rel(&po->freed, NULL); rec; rec = next) {
		next = rec->next;
		rec->next = po->free_recs;
		po->free_recs = rec;
		po->out--;
	}
}

static struct rdm_peer_owner *rdm_peer_owner_of(struct fid_peer_srx *srx)
{
	return (struct rdm_peer_owner *)srx;	/* peer_srx is first */
}

/* Under the lock: rec goes to the peer at the next flush, in order. */
static void rdm_peer_owner_list(struct rdm_peer_owner *po,
				struct rdm_peer_ownrec *rec, bool discard)
{
	rec->discard = discard;
	rec->next = NULL;
	if (po->pending_tail)
		po->pending_tail->next = rec;
	else
		po->pending = rec;
	po->pending_tail = rec;
	po->npend++;
	/* relaxed: a hint for flush's unlocked look, which reads the
	 * list itself under the lock */
	pl_store_relaxed(&po->hint, 1u);
}

/* The receive res names, as the peer's entry: the whole buffer (a
 * tagged get carries no size, and the peer checks what fits), or the
 * part of a multi-recv buffer the message takes. */
static void rdm_peer_owner_fill(struct rdm_peer_ownrec *rec,
				const struct pl_match_result *res)
{
	const struct pl_match_rx *mrx = res->rx;
	struct fi_peer_rx_entry *e = &rec->entry;
	size_t n, i;

	if (mrx->flags & FI_MULTI_RECV) {
		n = pl_iov_slice(mrx->iov, mrx->iov_count, res->offset,
				 res->len, rec->iov);
	} else {
		n = mrx->iov_count;
		memcpy(rec->iov, mrx->iov, n * sizeof(rec->iov[0]));
	}
	for (i = 0; i < n; i++)
		rec->desc[i] = i < mrx->iov_count ? mrx->desc[i] : NULL;
	e->iov = rec->iov;
	e->desc = rec->desc;
	e->count = n;
	e->context = mrx->context;
	/* the receive's own flags, and FI_MULTI_RECV only on the message
	 * that releases a multi-recv buffer */
	e->flags = (mrx->flags & ~FI_MULTI_RECV) |
		   (res->multi_last ? FI_MULTI_RECV : 0);
}

static int rdm_peer_owner_get(struct fid_peer_srx *srx,
			      enum pl_match_kind kind, fi_addr_t addr,
			      size_t size, uint64_t tag,
			      struct fi_peer_rx_entry **entry)
{
	struct rdm_peer_owner *po = rdm_peer_owner_of(srx);
	struct rdm_ep *ep = po->ep;
	struct pl_match_result res;
	struct rdm_peer_ownrec *rec;
	struct pl_match_hdr h = {
		.src = (ep->base.caps & FI_DIRECTED_RECV) ?
		       addr : FI_ADDR_NOTAVAIL,
		.tag = tag,
		.size = size,
	};
	int ret;

	if (!entry)
		return -FI_EINVAL;
	rdm_ep_lock(ep->xport);
	if (!ep->ready || ep->closing) {
		rdm_ep_unlock(ep->xport);
		return -FI_ECANCELED;
	}
	if (!po->free_recs)
		rdm_peer_owner_collect(po);
	rec = po->free_recs;
	if (rec)
		po->free_recs = rec->next;
	else if (!(rec = malloc(sizeof(*rec)))) {
		rdm_ep_unlock(ep->xport);
		return -FI_ENOMEM;
	}
	*rec = (struct rdm_peer_ownrec){
		.po = po,
		.tagged = kind == PL_MATCH_TAGGED,
		.entry = { .srx = srx, .addr = addr, .size = size,
			   .tag = tag, .owner_context = rec },
	};
	ret = pl_match_take(ep->matchp, kind, &h, &res);
	if (ret == PL_MATCH_MATCHED) {
		rdm_peer_owner_fill(rec, &res);
		pl_match_done(ep->matchp, &res);
	}
	po->out++;
	rdm_ep_unlock(ep->xport);
	*entry = &rec->entry;
	return ret == PL_MATCH_MATCHED ? 0 : -FI_ENOENT;
}

static int rdm_peer_owner_get_msg(struct fid_peer_srx *srx, fi_addr_t addr,
				  size_t size, struct fi_peer_rx_entry **entry)
{
	return rdm_peer_owner_get(srx, PL_MATCH_MSG, addr, size, 0, entry);
}

static int rdm_peer_owner_get_tag(struct fid_peer_srx *srx, fi_addr_t addr,
				  uint64_t tag,
				  struct fi_peer_rx_entry **entry)
{
	return rdm_peer_owner_get(srx, PL_MATCH_TAGGED, addr, 0, tag, entry);
}

/* The peer queues a message get found no receive for. A receive may
 * have been posted since (the owner's lock was released in between):
 * it is searched for again, and a match goes back at the next flush. */
static int rdm_peer_owner_queue(struct fi_peer_rx_entry *entry)
{
	struct rdm_peer_ownrec *rec = entry ? entry->owner_context : NULL;
	struct rdm_peer_owner *po;
	struct pl_match_result res;
	struct pl_match_hdr h;
	struct rdm_ep *ep;
	int ret;

	if (!rec || &rec->entry != entry)
		return -FI_EINVAL;
	po = rec->po;
	ep = po->ep;
	/* its sender may have been inserted since the peer looked (the
	 * AV's refresh at the next post would not see it again) */
	if (entry->addr == FI_ADDR_NOTAVAIL &&
	    (ep->base.caps & (FI_SOURCE | FI_DIRECTED_RECV)))
		entry->addr = rdm_peer_srx_entry_src(&po->peer_ops, entry);
	h = (struct pl_match_hdr){
		.src = (ep->base.caps & FI_DIRECTED_RECV) ?
		       entry->addr : FI_ADDR_NOTAVAIL,
		.tag = entry->tag,
		.size = entry->size,
		.prov = rec,
		.owner = &po->proxy,
	};
	rdm_ep_lock(ep->xport);
	if (!ep->ready || ep->closing) {
		rdm_ep_unlock(ep->xport);
		return -FI_ECANCELED;
	}
	ret = pl_match_arrive(ep->matchp,
			      rec->tagged ? PL_MATCH_TAGGED : PL_MATCH_MSG,
			      &h, &res, NULL);
	if (ret == PL_MATCH_QUEUED) {
		po->queued++;
		ret = 0;
	} else if (ret == PL_MATCH_MATCHED) {
		rdm_peer_owner_fill(rec, &res);
		pl_match_done(ep->matchp, &res);
		rdm_peer_owner_list(po, rec, false);
		ret = 0;
	}
	rdm_ep_unlock(ep->xport);
	return ret;
}

static void rdm_peer_owner_free_entry(struct fi_peer_rx_entry *entry)
{
	struct rdm_peer_ownrec *rec = entry ? entry->owner_context : NULL;
	struct rdm_peer_owner *po;
	void *head;

	if (!rec)
		return;
	/* no lock: pushed for the owner's next collect, which counts it
	 * out of the peer's hands */
	po = rec->po;
	/* relaxed: a first guess; the CAS checks it */
	head = pl_load_relaxed(&po->freed);
	do
		rec->next = head;
	/* release: rec's next and content before it is visible (pairs
	 * with the collect's exchange) */
	while (!pl_cas_weak_release(&po->freed, &head, rec));
}

void rdm_peer_owner_place(struct rdm_ep *q, struct rdm_ep *proxy,
			  struct pl_match_result *res)
{
	struct rdm_peer_ownrec *rec = res->ux->prov;
	struct rdm_peer_owner *po = pl_container_of(proxy,
						    struct rdm_peer_owner,
						    proxy);

	rdm_peer_owner_fill(rec, res);
	pl_match_done(q->matchp, res);
	po->queued--;
	rdm_peer_owner_list(po, rec, false);
}

/* The proxy's transport: what rdm_ep_rx.c asks of a message's holder. */
static void rdm_peer_proxy_rx_discard(struct rdm_ep *proxy, void *trx)
{
	struct rdm_peer_owner *po = pl_container_of(proxy,
						    struct rdm_peer_owner,
						    proxy);

	po->queued--;
	rdm_peer_owner_list(po, trx, true);
}

static fi_addr_t rdm_peer_proxy_rx_src(struct rdm_ep *proxy, const void *src)
{
	(void)proxy;
	(void)src;
	return FI_ADDR_NOTAVAIL;
}

fi_addr_t rdm_peer_owner_resolve(struct rdm_ep *proxy, void *trx)
{
	struct rdm_peer_owner *po = pl_container_of(proxy,
						    struct rdm_peer_owner,
						    proxy);
	struct rdm_peer_ownrec *rec = trx;

	/* under the owner's lock, the entry queued: the owner's to write */
	if (rec->entry.addr == FI_ADDR_NOTAVAIL)
		rec->entry.addr = rdm_peer_srx_entry_src(&po->peer_ops,
							 &rec->entry);
	return rec->entry.addr;
}

static const void *rdm_peer_proxy_rx_src_of(struct rdm_ep *proxy, void *trx)
{
	(void)proxy;
	(void)trx;
	return NULL;	/* the peer gave its address at queue time */
}

static size_t rdm_peer_proxy_rx_src_name(struct rdm_ep *proxy,
					 const void *src, char *buf,
					 size_t size)
{
	(void)proxy;
	(void)src;
	(void)buf;
	(void)size;
	return 0;
}

static const struct rdm_transport_ops rdm_peer_proxy_tops = {
	.rx_discard = rdm_peer_proxy_rx_discard,
	.rx_src = rdm_peer_proxy_rx_src,
	.rx_src_of = rdm_peer_proxy_rx_src_of,
	.rx_src_name = rdm_peer_proxy_rx_src_name,
};

void rdm_peer_owner_flush_slow(struct rdm_ep *ep)
{
	struct rdm_peer_owner *po = pl_load_acquire(&ep->powner);
	struct rdm_peer_ownrec *rec, *next;
	struct fi_ops_srx_peer *ops;

	/* relaxed: a hint; a listing that this load misses is handed over
	 * by the flush that follows it (every path that lists one flushes
	 * after its unlock, or the next progress pass does) */
	if (!po || !pl_load_relaxed(&po->hint))
		return;
	rdm_ep_lock(ep->xport);
	rec = po->pending;
	po->pending = po->pending_tail = NULL;
	po->npend = 0;
	pl_store_relaxed(&po->hint, 0u);
	rdm_ep_unlock(ep->xport);
	ops = &po->peer_ops;
	for (; rec; rec = next) {
		next = rec->next;
		if (rec->discard)
			(void)(rec->tagged ? ops->discard_tag(&rec->entry) :
					     ops->discard_msg(&rec->entry));
		else
			(void)(rec->tagged ? ops->start_tag(&rec->entry) :
					     ops->start_msg(&rec->entry));
	}
}

bool rdm_peer_owner_busy(struct rdm_ep *ep)
{
	struct rdm_peer_owner *po = pl_load_acquire(&ep->powner);
	bool busy;

	if (!po)
		return false;
	rdm_ep_lock(ep->xport);
	rdm_peer_owner_collect(po);
	/* queued and listed records are ours: close discards them; the
	 * others are the peer's, in use */
	busy = po->out > po->queued + po->npend;
	rdm_ep_unlock(ep->xport);
	return busy;
}

void rdm_peer_owner_free(struct rdm_ep *ep)
{
	/* close: no other thread reaches ep any more */
	struct rdm_peer_owner *po = pl_load_relaxed(&ep->powner);
	struct rdm_peer_ownrec *rec;

	if (!po)
		return;
	rdm_peer_owner_collect(po);
	while ((rec = po->free_recs)) {
		po->free_recs = rec->next;
		free(rec);
	}
	free(po);
	pl_store_relaxed(&ep->powner, NULL);
}

int rdm_peer_owner_export(struct rdm_ep *ep, uint64_t flags,
			  struct fid **fid_p)
{
	struct rdm_peer_owner *po;

	if (!fid_p || (flags & ~FI_PEER))
		return -FI_EINVAL;
	if (ep->srx || ep->sep || ep->view != RDM_VIEW_NONE || ep->psrx)
		return -FI_EOPNOTSUPP;
	if (!ep->ready)
		return -FI_EOPBADSTATE;
	po = pl_load_acquire(&ep->powner);
	if (po) {
		*fid_p = &po->peer_srx.ep_fid.fid;
		return 0;
	}
	po = calloc(1, sizeof(*po));
	if (!po)
		return -FI_ENOMEM;
	po->ep = ep;
	po->proxy.tops = &rdm_peer_proxy_tops;
	po->proxy.peer_proxy = true;
	po->proxy.xport = &po->proxy;
	po->owner_ops = (struct fi_ops_srx_owner){
		.size = sizeof(struct fi_ops_srx_owner),
		.get_msg = rdm_peer_owner_get_msg,
		.get_tag = rdm_peer_owner_get_tag,
		.queue_msg = rdm_peer_owner_queue,
		.queue_tag = rdm_peer_owner_queue,
		.free_entry = rdm_peer_owner_free_entry,
	};
	po->peer_ops.size = sizeof(struct fi_ops_srx_peer);
	po->peer_srx.owner_ops = &po->owner_ops;
	po->peer_srx.peer_ops = &po->peer_ops;
	/* a handle for the peer's import: no fid call of its own (the
	 * endpoint's close frees it) */
	po->peer_srx.ep_fid.fid.fclass = FI_CLASS_PEER_SRX;
	po->peer_srx.ep_fid.fid.context = ep;
	po->peer_srx.ep_fid.fid.ops =
		(struct fi_ops *)&pl_fid_nosys_fid_ops;
	po->peer_srx.ep_fid.ops = (struct fi_ops_ep *)&pl_fid_nosys_ep_ops;
	po->peer_srx.ep_fid.cm = (struct fi_ops_cm *)&pl_fid_nosys_cm_ops;
	po->peer_srx.ep_fid.msg = (struct fi_ops_msg *)&pl_fid_nosys_msg_ops;
	po->peer_srx.ep_fid.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops;
	po->peer_srx.ep_fid.tagged =
		(struct fi_ops_tagged *)&pl_fid_nosys_tagged_ops;
	po->peer_srx.ep_fid.atomic =
		(struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	po->peer_srx.ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	/* release: pairs with flush's acquire load (the progress source
	 * runs it without the lock), which then sees po built */
	pl_store_release(&ep->powner, (void *)po);
	/* relaxed: a hint for the progress source's fast path, which then
	 * reaches the slow path's flush (it loads powner with acquire) */
	pl_store_relaxed(&ep->exported, 1u);
	*fid_p = &po->peer_srx.ep_fid.fid;
	return 0;
}
