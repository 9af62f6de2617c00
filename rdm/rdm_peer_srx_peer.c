/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The peer's side of a peer shared receive context (rdm_peer_srx.h):
 * fi_srx_context(FI_PEER) imports an owner's struct fid_peer_srx, and an
 * endpoint bound to the import matches what arrives through the owner.
 *
 * Synchronization table (one struct rdm_peer_srx):
 *   field              touched by                       serialized by
 *   owner, dom         open only                        immutable
 *   recs, nbound,      arrivals (under their endpoint's  lock (taken inside
 *   each rec's own,    lock), the owner's start /        an endpoint's lock
 *   busy, drop_next    discard (any thread), endpoint    by arrivals; never
 *                      close, bind, close                held while one is
 *                                                        taken)
 *   a rec's trx and    its arrival, then the start /     the endpoint's lock
 *   header fields      discard that pinned it (busy)
 * The owner's start / discard may come from any thread, after the
 * owner released its own lock (rdm_peer_srx.h): it pins the record
 * (busy, under lock), releases the lock, then takes the endpoint's to
 * place or drop the message. Endpoint close pins its records the same
 * way, marks them ownerless and drops their messages: a later start /
 * discard of such a record only gives the entry back.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_iov.h"
#include "pl_log.h"
#include "rdm_ep.h"
#include "rdm_peer_srx.h"

struct rdm_peer_rec {
	struct rdm_peer_rec	*next, *prev;	/* psrx->recs */
	struct rdm_peer_srx	*psrx;
	struct rdm_ep		*own;	/* NULL once it closed */
	/* pinned: a start / discard, or its endpoint's close, works on it
	 * (the others wait on psrx->idle) */
	bool			busy;
	struct rdm_peer_rec	*drop_next;	/* endpoint close's own list */
	/* the message, as the transport handed it up */
	void			*trx;
	uint64_t		size, tag, cq_data;
	uint32_t		flags;	/* RDM_RX_* */
	fi_addr_t		src;	/* the owner's terms, or NOTAVAIL */
};

struct rdm_peer_srx {
	struct fid_ep		ep_fid;	/* FI_CLASS_SRX_CTX; FIRST */
	struct pl_domain	*dom;
	struct fid_peer_srx	*owner;
	pthread_mutex_t		lock;
	pthread_cond_t		idle;	/* a pinned record was released */
	unsigned		nbound;
	struct rdm_peer_rec	*recs;
};

static struct fi_ops rdm_peer_srx_fid_ops;

bool rdm_peer_srx_is(const struct fid *fid)
{
	return fid && fid->fclass == FI_CLASS_SRX_CTX &&
	       fid->ops == &rdm_peer_srx_fid_ops;
}

static void rdm_peer_rec_link(struct rdm_peer_srx *psrx,
			      struct rdm_peer_rec *r)
{
	r->prev = NULL;
	r->next = psrx->recs;
	if (psrx->recs)
		psrx->recs->prev = r;
	psrx->recs = r;
}

static void rdm_peer_rec_unlink(struct rdm_peer_srx *psrx,
				struct rdm_peer_rec *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		psrx->recs = r->next;
	if (r->next)
		r->next->prev = r->prev;
}

/* The sender in the owner's terms: the FI_AV_USER_ID value it was
 * inserted with (an owner inserts its peers' addresses under its own
 * fi_addr_t), else our fi_addr_t; FI_ADDR_NOTAVAIL when the endpoint
 * reports no source or the sender is not in the AV. */
static fi_addr_t rdm_peer_srx_src(struct rdm_ep *ep, const void *src)
{
	if (!src || !ep->base.av ||
	    !(ep->base.caps & (FI_SOURCE | FI_DIRECTED_RECV)))
		return FI_ADDR_NOTAVAIL;
	return rdm_ep_rx_report_src(ep, ep->tops->rx_src(ep, src));
}

/* Give the owner its entry back. */
static void rdm_peer_srx_free_entry(struct fi_peer_rx_entry *entry)
{
	entry->srx->owner_ops->free_entry(entry);
}

void rdm_peer_srx_entry_done(struct rdm_ep *ep, struct rdm_ep_rxp *p)
{
	(void)ep;
	if (p->peer_entry)
		rdm_peer_srx_free_entry(p->peer_entry);
	p->peer_entry = NULL;
}

/* The reception record of a message placed into entry's buffers (its
 * capacity is set once the entry is checked: rdm_peer_srx_rxp_bufs). */
static struct rdm_ep_rxp rdm_peer_srx_rxp(struct rdm_ep *ep,
					  struct fi_peer_rx_entry *entry,
					  uint64_t size, uint64_t tag,
					  uint64_t cq_data, uint32_t flags,
					  fi_addr_t src)
{
	bool cq = flags & RDM_RX_CQ_DATA;

	return (struct rdm_ep_rxp){
		.cq_ep = ep,
		.context = entry->context,
		.flags = FI_RECV |
			 ((flags & RDM_RX_TAGGED) ? FI_TAGGED : FI_MSG) |
			 (cq ? FI_REMOTE_CQ_DATA : 0) |
			 (entry->flags & FI_MULTI_RECV),
		.op_flags = entry->flags,
		.size = size,
		.tag = tag,
		.data = cq ? cq_data : 0,
		.src = (ep->base.caps & FI_SOURCE) ? src : FI_ADDR_NOTAVAIL,
		.peer_entry = entry,
	};
}

/* The owner's entry is foreign to us: its iov count is checked before
 * use. */
static bool rdm_peer_srx_entry_ok(const struct fi_peer_rx_entry *entry)
{
	if (entry->count <= PL_MATCH_IOV_MAX && (!entry->count || entry->iov))
		return true;
	PL_WARN(FI_LOG_EP_DATA, "rdm: the peer receive context's owner gave "
		"%zu buffers: message dropped\n", entry->count);
	return false;
}

/* After rdm_peer_srx_entry_ok: the receive's buffers into p. */
static void rdm_peer_srx_rxp_bufs(struct rdm_ep_rxp *p,
				  const struct fi_peer_rx_entry *entry)
{
	p->cap = pl_iov_total(entry->iov, entry->count);
	p->buf = entry->count ? entry->iov[0].iov_base : NULL;
}

/*
 * Place the message trx (header h, sender src) into the receive the
 * owner gave (entry) and complete it on ep's CQ, now or when its data
 * has moved (rdm_ep_rx_done); the entry goes back with the completion.
 * The entry is the owner's: its iov count is checked before use. Under
 * ep's lock.
 */
static void rdm_peer_srx_place(struct rdm_ep *ep,
			       struct fi_peer_rx_entry *entry,
			       uint64_t size, uint64_t tag, uint64_t cq_data,
			       uint32_t flags, fi_addr_t src, void *trx)
{
	struct rdm_ep_rxp p = rdm_peer_srx_rxp(ep, entry, size, tag, cq_data,
					       flags, src);
	struct rdm_ep_rxp *heap = NULL;
	uint64_t len = 0;
	int ret;

	if (!rdm_peer_srx_entry_ok(entry)) {
		ep->tops->rx_discard(ep, trx);
		rdm_ep_cq_rx(ep, &p, -FI_EINVAL, 0);
		rdm_peer_srx_entry_done(ep, &p);
		return;
	}
	rdm_peer_srx_rxp_bufs(&p, entry);
	if (flags & RDM_RX_LATER) {
		heap = rdm_ep_rxp_get(ep);
		if (!heap) {
			ep->tops->rx_discard(ep, trx);
			rdm_ep_cq_rx(ep, &p, -FI_ENOMEM, 0);
			rdm_peer_srx_entry_done(ep, &p);
			return;
		}
		*heap = p;
	}
	ret = ep->tops->rx_deliver(ep, trx, entry->iov, entry->count, heap,
				   &len);
	if (ret == 1)
		return;		/* rdm_ep_rx_done completes it */
	if (heap)
		rdm_ep_rxp_put(ep, heap);
	rdm_ep_cq_rx(ep, &p, ret, ret && ret != -FI_ETRUNC ? 0 : len);
	rdm_peer_srx_entry_done(ep, &p);
}

/* A kept no-match entry whose message never came up (the transport
 * could not make its record and offers it again): back to the owner. */
static void rdm_peer_srx_unstash(struct rdm_ep *ep)
{
	struct fi_peer_rx_entry *entry = ep->peer_stash;

	if (!entry)
		return;
	ep->peer_stash = NULL;
	rdm_peer_srx_free_entry(entry);
}

static int rdm_peer_srx_get(struct rdm_ep *ep, const struct rdm_rx_hdr *hdr,
			    fi_addr_t src, struct fi_peer_rx_entry **entry)
{
	struct fid_peer_srx *owner = ep->psrx->owner;

	return (hdr->flags & RDM_RX_TAGGED) ?
	       owner->owner_ops->get_tag(owner, src, hdr->tag, entry) :
	       owner->owner_ops->get_msg(owner, src, (size_t)hdr->size,
					 entry);
}

/* An inline message placed from the transport's hands: no record of the
 * transport's, no copy of the bytes before they reach the buffer. */
int rdm_peer_srx_inline(struct rdm_ep *ep, const struct rdm_rx_hdr *hdr)
{
	struct fi_peer_rx_entry *entry = NULL;
	fi_addr_t src = rdm_peer_srx_src(ep, hdr->src);
	struct rdm_ep_rxp p;
	uint64_t len;
	int ret;

	rdm_peer_srx_unstash(ep);
	ret = rdm_peer_srx_get(ep, hdr, src, &entry);
	if (ret == -FI_ENOENT && entry) {
		/* nothing posted: the arrival that follows queues it with
		 * this entry (RDM_RX_UNMATCHED) instead of asking again */
		ep->peer_stash = entry;
		return 0;
	}
	if (ret || !entry || !rdm_peer_srx_entry_ok(entry)) {
		if (!ret && entry)
			rdm_peer_srx_free_entry(entry);
		return 0;	/* the arrival asks again, and reports */
	}
	p = rdm_peer_srx_rxp(ep, entry, hdr->size, hdr->tag, hdr->cq_data,
			     hdr->flags, src);
	rdm_peer_srx_rxp_bufs(&p, entry);
	len = pl_iov_from_buf(entry->iov, entry->count, 0, hdr->data,
			      hdr->size < p.cap ? hdr->size : p.cap);
	rdm_ep_cq_rx(ep, &p, hdr->size > len ? -FI_ETRUNC : 0, len);
	rdm_peer_srx_entry_done(ep, &p);
	return 1;
}

void rdm_peer_srx_arrive(struct rdm_ep *ep, const struct rdm_rx_hdr *hdr,
			 void *trx)
{
	struct rdm_peer_srx *psrx = ep->psrx;
	struct fid_peer_srx *owner = psrx->owner;
	bool tagged = hdr->flags & RDM_RX_TAGGED;
	struct fi_peer_rx_entry *entry = NULL;
	fi_addr_t src = rdm_peer_srx_src(ep, hdr->src);
	struct rdm_peer_rec *r;
	int ret;

	if ((hdr->flags & RDM_RX_UNMATCHED) && ep->peer_stash) {
		/* rdm_peer_srx_inline's no-match for this very message */
		entry = ep->peer_stash;
		ep->peer_stash = NULL;
		ret = -FI_ENOENT;
	} else {
		rdm_peer_srx_unstash(ep);
		ret = rdm_peer_srx_get(ep, hdr, src, &entry);
	}
	if (!ret && entry) {
		rdm_peer_srx_place(ep, entry, hdr->size, hdr->tag,
				   hdr->cq_data, hdr->flags, src, trx);
		return;
	}
	if (ret != -FI_ENOENT || !entry) {
		PL_WARN(FI_LOG_EP_DATA, "rdm: the peer receive context's "
			"owner took no message (%d): dropped\n", ret);
		ep->tops->rx_discard(ep, trx);
		return;
	}
	/* nothing posted: the owner queues it, and starts it later */
	r = calloc(1, sizeof(*r));
	if (!r) {
		PL_WARN(FI_LOG_EP_DATA, "rdm: no memory for a message the "
			"peer receive context's owner queues: dropped\n");
		ep->tops->rx_discard(ep, trx);
		rdm_peer_srx_free_entry(entry);
		return;
	}
	*r = (struct rdm_peer_rec){
		.psrx = psrx, .own = ep, .trx = trx,
		.size = hdr->size, .tag = hdr->tag, .cq_data = hdr->cq_data,
		.flags = hdr->flags, .src = src,
	};
	entry->peer_context = r;
	pthread_mutex_lock(&psrx->lock);
	rdm_peer_rec_link(psrx, r);
	pthread_mutex_unlock(&psrx->lock);
	ret = tagged ? owner->owner_ops->queue_tag(entry) :
		       owner->owner_ops->queue_msg(entry);
	if (!ret)
		return;
	PL_WARN(FI_LOG_EP_DATA, "rdm: the peer receive context's owner "
		"could not queue a message (%d): dropped\n", ret);
	pthread_mutex_lock(&psrx->lock);
	rdm_peer_rec_unlink(psrx, r);
	pthread_mutex_unlock(&psrx->lock);
	ep->tops->rx_discard(ep, trx);
	rdm_peer_srx_free_entry(entry);
	free(r);
}

/* The owner's start (place) or discard of a queued message. */
static int rdm_peer_srx_resume(struct fi_peer_rx_entry *entry, bool place)
{
	struct rdm_peer_rec *r = entry ? entry->peer_context : NULL;
	struct rdm_peer_srx *psrx;
	bool placed = false;
	struct rdm_ep *ep;

	if (!r)
		return -FI_EINVAL;
	psrx = r->psrx;
	pthread_mutex_lock(&psrx->lock);
	/* pinned by its endpoint's close: wait until it is settled */
	while (r->busy)
		pthread_cond_wait(&psrx->idle, &psrx->lock);
	ep = r->own;
	r->busy = true;
	pthread_mutex_unlock(&psrx->lock);
	if (ep) {
		rdm_ep_lock(ep->xport);
		placed = place && !ep->closing;
		if (placed)
			rdm_peer_srx_place(ep, entry, r->size, r->tag,
					   r->cq_data, r->flags, r->src,
					   r->trx);
		else
			/* FI_DISCARD, or the endpoint is closing (its
			 * completions are no longer written) */
			ep->tops->rx_discard(ep, r->trx);
		rdm_ep_unlock(ep->xport);
	}
	pthread_mutex_lock(&psrx->lock);
	rdm_peer_rec_unlink(psrx, r);
	r->busy = false;
	pthread_cond_broadcast(&psrx->idle);
	pthread_mutex_unlock(&psrx->lock);
	/* placed: the entry went back with its completion (now or when
	 * the data lands); dropped: it goes back now (fi_peer(3): control
	 * returns to the peer, which frees it) */
	if (!placed)
		rdm_peer_srx_free_entry(entry);
	free(r);
	return 0;
}

static int rdm_peer_srx_start(struct fi_peer_rx_entry *entry)
{
	return rdm_peer_srx_resume(entry, true);
}

fi_addr_t rdm_peer_srx_entry_src(const struct fi_ops_srx_peer *ops,
				 struct fi_peer_rx_entry *entry)
{
	struct rdm_peer_rec *r;
	fi_addr_t fa = FI_ADDR_NOTAVAIL;
	struct rdm_ep *ep;

	/* another provider's peer: its peer_context is not ours to read */
	if (!ops || ops->start_msg != rdm_peer_srx_start || !entry ||
	    !(r = entry->peer_context))
		return FI_ADDR_NOTAVAIL;
	/* psrx->lock is a leaf (no lock is taken under it), so the owner
	 * may take it under its own. A record being started or dropped
	 * (busy) or whose endpoint closed (own NULL) is left alone: its
	 * message may be going. Otherwise the message is held by its
	 * transport until the owner starts or discards it, and rx_src_of /
	 * rx_src read only what the transport fixed when it handed the
	 * message up and the AV (under RCU): neither needs ep's lock
	 * (rdm_transport.h). */
	pthread_mutex_lock(&r->psrx->lock);
	fa = r->src;
	ep = r->own;
	if (fa == FI_ADDR_NOTAVAIL && ep && !r->busy && r->trx) {
		fa = rdm_peer_srx_src(ep, ep->tops->rx_src_of(ep, r->trx));
		/* FI_SOURCE of the completion the start writes */
		r->src = fa;
	}
	pthread_mutex_unlock(&r->psrx->lock);
	return fa;
}

static int rdm_peer_srx_discard(struct fi_peer_rx_entry *entry)
{
	return rdm_peer_srx_resume(entry, false);
}

void rdm_peer_srx_ep_closed(struct rdm_ep *ep)
{
	struct rdm_peer_srx *psrx = ep->psrx;
	struct rdm_peer_rec *r, *drop = NULL;

	rdm_ep_lock(ep);
	rdm_peer_srx_unstash(ep);
	rdm_ep_unlock(ep);

	/* Take ep's records (the owner still holds their entries, so they
	 * stay listed): wait until none is pinned by a start, then pin
	 * them ourselves and mark them ownerless. closing is set, so no
	 * arrival of ep makes a new one. */
	pthread_mutex_lock(&psrx->lock);
again:
	for (r = psrx->recs; r; r = r->next) {
		if (r->own != ep)
			continue;
		if (r->busy) {
			pthread_cond_wait(&psrx->idle, &psrx->lock);
			goto again;	/* the list may have changed */
		}
		r->own = NULL;
		r->busy = true;
		r->drop_next = drop;
		drop = r;
	}
	pthread_mutex_unlock(&psrx->lock);
	/* their messages leave with the endpoint; its lock is never taken
	 * while ours is held (arrivals take ours inside theirs) */
	rdm_ep_lock(ep->xport);
	for (r = drop; r; r = r->drop_next)
		ep->tops->rx_discard(ep, r->trx);
	rdm_ep_unlock(ep->xport);
	pthread_mutex_lock(&psrx->lock);
	for (r = drop; r; r = r->drop_next) {
		r->trx = NULL;
		r->busy = false;
	}
	pthread_cond_broadcast(&psrx->idle);
	pthread_mutex_unlock(&psrx->lock);
}

void rdm_peer_srx_put(struct rdm_peer_srx *psrx)
{
	pthread_mutex_lock(&psrx->lock);
	psrx->nbound--;
	pthread_mutex_unlock(&psrx->lock);
}

int rdm_peer_srx_bind_ep(struct fid *fid, struct rdm_ep *ep, uint64_t flags)
{
	struct rdm_peer_srx *psrx;

	if (!rdm_peer_srx_is(fid) || flags)
		return -FI_EINVAL;
	psrx = pl_container_of(fid, struct rdm_peer_srx, ep_fid.fid);
	if (ep->base.enabled)
		return -FI_EOPBADSTATE;
	/* one receive context per endpoint, of its own domain; a context
	 * of a scalable endpoint has its own queue to keep (rdm_sep.h) */
	if (ep->psrx || ep->srx || ep->sep || ep->view != RDM_VIEW_NONE ||
	    psrx->dom != ep->base.dom)
		return -FI_EINVAL;
	pthread_mutex_lock(&psrx->lock);
	psrx->nbound++;
	pthread_mutex_unlock(&psrx->lock);
	ep->psrx = psrx;
	return 0;
}

static int rdm_peer_srx_close(struct fid *fid)
{
	struct rdm_peer_srx *psrx =
		pl_container_of(fid, struct rdm_peer_srx, ep_fid.fid);

	pthread_mutex_lock(&psrx->lock);
	/* a bound endpoint, or a message the owner still holds (its entry
	 * names a record of ours: the owner discards it when its own
	 * endpoint closes) */
	if (psrx->nbound || psrx->recs) {
		pthread_mutex_unlock(&psrx->lock);
		return -FI_EBUSY;
	}
	pthread_mutex_unlock(&psrx->lock);
	pthread_cond_destroy(&psrx->idle);
	pthread_mutex_destroy(&psrx->lock);
	pl_domain_child_put(psrx->dom);
	free(psrx);
	return 0;
}

static struct fi_ops rdm_peer_srx_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rdm_peer_srx_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/* Receives are posted to the owner (fi_peer(3)): every data call here
 * answers -FI_ENOSYS. */
static struct fi_ops_ep rdm_peer_srx_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = pl_fid_nosys_ep_cancel,
	.getopt = pl_fid_nosys_ep_getopt,
	.setopt = pl_fid_nosys_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = pl_fid_nosys_ep_rx_size_left,
	.tx_size_left = pl_fid_nosys_ep_tx_size_left,
};

int rdm_peer_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		      struct fid_ep **rx_ep, void *context)
{
	struct pl_domain *dom = pl_domain_of(domain);
	struct fi_peer_srx_context *pctx = context;
	struct fid_peer_srx *owner;
	struct rdm_peer_srx *psrx;

	if (!dom || !rx_ep || !attr || !(attr->op_flags & FI_PEER) ||
	    (attr->op_flags & ~FI_PEER))
		return -FI_EINVAL;
	if (!pctx || pctx->size < sizeof(*pctx) || !pctx->srx)
		return -FI_EINVAL;
	owner = pctx->srx;
	if (!owner->owner_ops ||
	    owner->owner_ops->size < sizeof(struct fi_ops_srx_owner) ||
	    !owner->owner_ops->get_msg || !owner->owner_ops->get_tag ||
	    !owner->owner_ops->queue_msg || !owner->owner_ops->queue_tag ||
	    !owner->owner_ops->free_entry || !owner->peer_ops ||
	    owner->peer_ops->size < sizeof(struct fi_ops_srx_peer))
		return -FI_EINVAL;
	psrx = calloc(1, sizeof(*psrx));
	if (!psrx)
		return -FI_ENOMEM;
	pthread_mutex_init(&psrx->lock, NULL);
	pthread_cond_init(&psrx->idle, NULL);
	psrx->dom = dom;
	psrx->owner = owner;
	/* fi_peer(3): the peer fills these in before it returns */
	owner->peer_ops->start_msg = rdm_peer_srx_start;
	owner->peer_ops->start_tag = rdm_peer_srx_start;
	owner->peer_ops->discard_msg = rdm_peer_srx_discard;
	owner->peer_ops->discard_tag = rdm_peer_srx_discard;
	psrx->ep_fid.fid.fclass = FI_CLASS_SRX_CTX;
	psrx->ep_fid.fid.context = context;
	psrx->ep_fid.fid.ops = &rdm_peer_srx_fid_ops;
	psrx->ep_fid.ops = &rdm_peer_srx_ep_ops;
	psrx->ep_fid.cm = (struct fi_ops_cm *)&pl_fid_nosys_cm_ops;
	psrx->ep_fid.msg = (struct fi_ops_msg *)&pl_fid_nosys_msg_ops;
	psrx->ep_fid.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops;
	psrx->ep_fid.tagged = (struct fi_ops_tagged *)&pl_fid_nosys_tagged_ops;
	psrx->ep_fid.atomic = (struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	psrx->ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	pl_domain_child_get(dom);
	*rx_ep = &psrx->ep_fid;
	return 0;
}
