/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The receive path of an RDM endpoint: posting (fi_recv*, fi_trecv*,
 * with FI_MULTI_RECV, FI_PEEK, FI_CLAIM, FI_DISCARD), arrivals from the
 * transport, placement and cancel. This file is the endpoint's ONE
 * entry into matching (pl_match): a shared receive context (fi_peer(3)
 * peer SRX) can stand behind it without the transports noticing. The
 * bytes move through the transport's rx_deliver. Everything here runs
 * under the endpoint lock (rdm_ep.h).
 *
 * Two endpoints take part in a reception, often the same one:
 *   own  the endpoint whose transport holds the message (it arrived
 *        there; a queued message names it: pl_match_unexp.owner);
 *   q    the endpoint whose queue it matches in (its matchp, mrecvp):
 *        own itself; the poster of a shared receive context (rdm_srx.h);
 *        or the receive context of a scalable endpoint the sender named
 *        (rdm_sep.h), a view without a transport of its own.
 * The completion goes to the context when there is one (q is a view),
 * else to own: the endpoint the message arrived at (fi_endpoint(3) for
 * shared receive contexts).
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_iov.h"
#include "pl_log.h"
#include "pl_rcu.h"
#include "rdm_ep.h"
#include "rdm_ep_mrecv.h"
#include "rdm_peer_srx.h"
#include "rdm_sep.h"

static uint64_t rdm_ep_rx_kind_flag(enum pl_match_kind kind)
{
	return kind == PL_MATCH_TAGGED ? FI_TAGGED : FI_MSG;
}

/* FI_SOURCE / directed receive (q's capabilities): the sender's
 * fi_addr_t in own's AV, when it is there; FI_ADDR_NOTAVAIL otherwise. */
static fi_addr_t rdm_ep_rx_src(struct rdm_ep *q, struct rdm_ep *own,
			       const void *src)
{
	if (!src || !own->base.av ||
	    !(q->base.caps & (FI_SOURCE | FI_DIRECTED_RECV)))
		return FI_ADDR_NOTAVAIL;
	return own->tops->rx_src(own, src);
}

/* The endpoint a queued message arrived at: the queue may be a shared
 * receive context's, which holds messages of several. */
static struct rdm_ep *rdm_ep_rx_owner(const struct pl_match_unexp *ux)
{
	return ux->owner;
}

/* Where a reception in q's queue of a message held by own completes. */
static struct rdm_ep *rdm_ep_rx_cqt(struct rdm_ep *q, struct rdm_ep *own)
{
	/* a message a peer holds (own is an export's proxy) completes on
	 * the peer's CQ when placed; what is reported here without placing
	 * it (a peek, a discard) goes to the queue's endpoint */
	return (q->view || own->peer_proxy) ? q : own;
}

/* The queue a message arriving at own for receive context idx matches
 * in: own's, or the named context's of a scalable endpoint. NULL: no
 * such context (the sender's idx is foreign input). */
static struct rdm_ep *rdm_ep_rx_queue(struct rdm_ep *own, uint32_t idx)
{
	if (PL_LIKELY(!own->sep))
		return idx ? NULL : own;
	return rdm_sep_rx_view(own->sep, idx);
}

/* The sender as FI_SOURCE reports it: the FI_AV_USER_ID value its
 * address was inserted with (fi_av(3): completions carry it in place of
 * the fi_addr_t; matching keeps the fi_addr_t), else the fi_addr_t. A
 * proxy's messages (rdm_peer_srx.h) come in the owner's terms already. */
fi_addr_t rdm_ep_rx_report_src(struct rdm_ep *own, fi_addr_t fa)
{
	struct pl_av_peer peer;

	if (fa == FI_ADDR_NOTAVAIL || !own->base.av ||
	    !pl_av_has_user_ids(own->base.av))
		return fa;
	pl_rcu_read_lock();
	if (!pl_av_lookup_peer(own->base.av, fa, &peer))
		fa = peer.user_id;
	pl_rcu_read_unlock();
	return fa;
}

static fi_addr_t rdm_ep_rx_ux_src(void *arg, const struct pl_match_unexp *ux)
{
	struct rdm_ep *own = rdm_ep_rx_owner(ux);

	/* a message a peer holds: the peer knows its sender */
	if (own->peer_proxy)
		return rdm_peer_owner_resolve(own, ux->prov);
	return rdm_ep_rx_src(arg, own, own->tops->rx_src_of(own, ux->prov));
}

/* Messages queued before their sender was in the AV take its address
 * once it is there (an insert since the last look): a directed receive
 * then matches them and FI_SOURCE reports them. */
static void rdm_ep_rx_ux_refresh(struct rdm_ep *ep)
{
	struct fid_av *av = ep->xport->base.av;
	uint64_t gen;

	if (!av ||
	    !(ep->base.caps & (FI_SOURCE | FI_DIRECTED_RECV)) ||
	    (!pl_match_unexp_count(ep->matchp, PL_MATCH_MSG) &&
	     !pl_match_unexp_count(ep->matchp, PL_MATCH_TAGGED)))
		return;
	gen = pl_av_insert_gen(av);
	if (gen && gen == ep->ux_av_gen)
		return;
	ep->ux_av_gen = gen;
	pl_match_unexp_resolve(ep->matchp, rdm_ep_rx_ux_src, ep);
}

/* Write the completion of one placement (to p->cq_ep, whose multi-recv
 * trackers are its queue's). counted: it was among its multi-recv
 * tracker's pending ones (rdm_ep_mrecv.h). */
static void rdm_ep_rx_settle(struct rdm_ep_rxp *p, bool counted, int status,
			     uint64_t len)
{
	rdm_ep_mrecv_settle(p->cq_ep, p, counted);
	rdm_ep_cq_rx(p->cq_ep, p, status, len);
}

/*
 * The completion record of placement res of message h (h->data is not
 * read), and the part of the receive it lands in: slice, returns its
 * count.
 */
static size_t rdm_ep_rx_rxp_init(struct rdm_ep *q, struct rdm_ep *own,
				 enum pl_match_kind kind,
				 const struct pl_match_result *res,
				 const struct rdm_rx_hdr *h, fi_addr_t src,
				 struct rdm_ep_rxp *p, struct iovec *slice)
{
	const struct pl_match_rx *mrx = res->rx;
	size_t n;

	n = pl_iov_slice(mrx->iov, mrx->iov_count, res->offset, res->len,
			 slice);
	/* field by field: a compound literal would zero src_name too (a
	 * rep stos per message); src_name is read only when src_err is
	 * set */
	p->cq_ep = rdm_ep_rx_cqt(q, own);
	p->context = mrx->context;
	p->flags = FI_RECV | rdm_ep_rx_kind_flag(kind) |
		   ((h->flags & RDM_RX_CQ_DATA) ? FI_REMOTE_CQ_DATA : 0) |
		   (res->multi_last ? FI_MULTI_RECV : 0);
	p->op_flags = mrx->flags;
	p->buf = n ? slice[0].iov_base :
		 (mrx->iov_count ? (char *)mrx->iov[0].iov_base + res->offset :
				   NULL);
	p->cap = res->len;
	p->size = h->size;
	p->tag = h->tag;
	p->data = (h->flags & RDM_RX_CQ_DATA) ? h->cq_data : 0;
	p->src = (q->base.caps & FI_SOURCE) ? rdm_ep_rx_report_src(own, src) :
					      FI_ADDR_NOTAVAIL;
	p->src_err = false;
	p->probe = false;
	p->mrecv = NULL;
	p->peer_entry = NULL;
	if ((q->base.caps & FI_SOURCE_ERR) && src == FI_ADDR_NOTAVAIL &&
	    h->src) {
		p->src_name_len = own->tops->rx_src_name(own, h->src,
							 p->src_name,
							 sizeof(p->src_name));
		p->src_err = p->src_name_len != 0;
	}
	return n;
}

/*
 * Place the message trx (header h), which own's transport holds, into
 * the receive res names in q's queue, complete it (now, or when its
 * data has moved) and release the match result.
 */
static void rdm_ep_rx_place(struct rdm_ep *q, struct rdm_ep *own,
			    enum pl_match_kind kind,
			    struct pl_match_result *res,
			    const struct rdm_rx_hdr *h, void *trx,
			    fi_addr_t src)
{
	struct pl_match_rx *mrx = res->rx;
	struct iovec slice[PL_MATCH_IOV_MAX];
	struct rdm_ep_rxp p, *heap = NULL;
	bool later = h->flags & RDM_RX_LATER;
	uint64_t len = 0;
	size_t n;
	int ret;

	if (own->peer_proxy) {
		/* a peer holds it: the peer places it (rdm_peer_srx.h) */
		rdm_peer_owner_place(q, own, res);
		return;
	}
	n = rdm_ep_rx_rxp_init(q, own, kind, res, h, src, &p, slice);
	/* only deliveries that can finish later need their record kept
	 * (an rx entry of own: rdm_ep_rx_done gets it back from own's
	 * transport) */
	if (later) {
		heap = rdm_ep_rxp_get(own);
		if (!heap) {
			/* no memory for the record: the message is dropped
			 * and the receive completes in error */
			own->tops->rx_discard(own, trx);
			if (mrx->flags & FI_MULTI_RECV)
				rdm_ep_mrecv_place(p.cq_ep, mrx, res, &p,
						   false);
			pl_match_done(q->matchp, res);
			rdm_ep_rx_settle(&p, false, -FI_ENOMEM, 0);
			return;
		}
	}
	if (mrx->flags & FI_MULTI_RECV)
		rdm_ep_mrecv_place(p.cq_ep, mrx, res, &p, later);
	if (later)
		*heap = p;
	ret = own->tops->rx_deliver(own, trx, slice, n, heap, &len);
	/* everything the completion needs was copied: the receive entry
	 * can go now (a multi-recv buffer stays posted) */
	pl_match_done(q->matchp, res);
	if (ret == 1)
		return;		/* rdm_ep_rx_done follows */
	if (heap)
		rdm_ep_rxp_put(own, heap);
	rdm_ep_rx_settle(&p, later, ret, ret && ret != -FI_ETRUNC ? 0 : len);
}

/* Place an inline message straight from the transport's buffer
 * (rdm_ep_rx_inline): as rdm_ep_rx_place, without a handle. */
static void rdm_ep_rx_place_inline(struct rdm_ep *q, struct rdm_ep *own,
				   enum pl_match_kind kind,
				   struct pl_match_result *res,
				   const struct rdm_rx_hdr *h, fi_addr_t src)
{
	struct iovec slice[PL_MATCH_IOV_MAX];
	struct rdm_ep_rxp p;
	uint64_t len;
	size_t n;

	n = rdm_ep_rx_rxp_init(q, own, kind, res, h, src, &p, slice);
	if (res->rx->flags & FI_MULTI_RECV)
		rdm_ep_mrecv_place(p.cq_ep, res->rx, res, &p, false);
	/* slice holds min(size, room) bytes: what fits */
	len = pl_iov_from_buf(slice, n, 0, h->data, res->len);
	pl_match_done(q->matchp, res);
	rdm_ep_rx_settle(&p, false, h->size > len ? -FI_ETRUNC : 0, len);
}

int rdm_ep_rx_inline(struct rdm_ep *own, const struct rdm_rx_hdr *hdr)
{
	enum pl_match_kind kind = (hdr->flags & RDM_RX_TAGGED) ?
				  PL_MATCH_TAGGED : PL_MATCH_MSG;
	struct rdm_ep *q = rdm_ep_rx_queue(own, hdr->rx_idx);
	struct pl_match_result res;
	struct pl_match_hdr h;

	if (!q || own->closing || q->closing)
		return 0;	/* rdm_ep_rx_arrive takes it */
	/* a peer receive context matches in its owner's queue */
	if (own->psrx)
		return rdm_peer_srx_inline(own, hdr);
	h = (struct pl_match_hdr){
		.src = rdm_ep_rx_src(q, own, hdr->src),
		.tag = hdr->tag,
		.size = (size_t)hdr->size,
	};
	if (pl_match_take(q->matchp, kind, &h, &res) != PL_MATCH_MATCHED)
		return 0;
	rdm_ep_rx_place_inline(q, own, kind, &res, hdr, h.src);
	return 1;
}

void rdm_ep_rx_done(struct rdm_ep *own, void *ctx, int status, uint64_t len)
{
	struct rdm_ep_rxp *p = ctx;

	rdm_ep_rx_settle(p, true, status, len);
	rdm_peer_srx_entry_done(own, p);
	rdm_ep_rxp_put(own, p);
}

/* The header of a held message, as rdm_ep_rx_place takes it. */
static void rdm_ep_rx_hdr_of(struct rdm_ep *ep,
			     const struct pl_match_unexp *ux,
			     struct rdm_rx_hdr *h)
{
	*h = (struct rdm_rx_hdr){
		.size = ux->size,
		.tag = ux->tag,
		.cq_data = ux->data,
		.flags = (uint32_t)ux->flags,
		.src = ep->tops->rx_src_of(ep, ux->prov),
	};
}

void rdm_ep_rx_arrive(struct rdm_ep *own, const struct rdm_rx_hdr *hdr,
		      void *trx)
{
	enum pl_match_kind kind = (hdr->flags & RDM_RX_TAGGED) ?
				  PL_MATCH_TAGGED : PL_MATCH_MSG;
	struct rdm_ep *q = rdm_ep_rx_queue(own, hdr->rx_idx);
	struct pl_match_result res;
	struct pl_match_hdr h;
	int ret;

	if (!q) {
		PL_WARN(FI_LOG_EP_DATA, "rdm: message for receive context "
			"%u, which this endpoint does not have: dropped\n",
			hdr->rx_idx);
		own->tops->rx_discard(own, trx);
		return;
	}
	if (own->closing || q->closing) {
		own->tops->rx_discard(own, trx);
		return;
	}
	if (own->psrx) {
		/* matched through the owner of a peer receive context */
		rdm_peer_srx_arrive(own, hdr, trx);
		return;
	}
	h = (struct pl_match_hdr){
		.src = rdm_ep_rx_src(q, own, hdr->src),
		.tag = hdr->tag,
		.size = (size_t)hdr->size,
		.data = hdr->cq_data,
		/* the unexpected entry keeps the transport's RDM_RX_* bits
		 * (rdm_ep_rx_hdr_of); FI_REMOTE_CQ_DATA is what PEEK
		 * reports */
		.flags = hdr->flags |
			 ((hdr->flags & RDM_RX_CQ_DATA) ? FI_REMOTE_CQ_DATA : 0),
		.prov = trx,
		.owner = own,
	};
	/* refused by rdm_ep_rx_inline in this same pass: nothing posted
	 * takes it, no need to search again */
	ret = (hdr->flags & RDM_RX_UNMATCHED) ?
	      pl_match_queue_unexp(q->matchp, kind, &h, NULL) :
	      pl_match_arrive(q->matchp, kind, &h, &res, NULL);
	if (ret == PL_MATCH_QUEUED)
		return;		/* unexpected: trx waits in ux->prov */
	if (ret < 0) {
		PL_WARN(FI_LOG_EP_DATA, "rdm: message dropped: %d\n", ret);
		own->tops->rx_discard(own, trx);
		return;
	}
	rdm_ep_rx_place(q, own, kind, &res, hdr, trx, h.src);
}

/* FI_PEEK: report the header; FI_DISCARD drops the message. The
 * completion goes to the endpoint the message arrived at (ep is where
 * the peek was posted: the same one, unless the queue is shared). */
static void rdm_ep_rx_peek_done(struct rdm_ep *ep, enum pl_match_kind kind,
				const struct pl_match_recv *r,
				struct pl_match_result *res)
{
	struct pl_match_unexp *ux = res->ux;
	struct rdm_ep *own = rdm_ep_rx_owner(ux);
	struct rdm_ep *cqt = rdm_ep_rx_cqt(ep, own);
	struct rdm_ep_rxp p = {
		.cq_ep = cqt,
		.context = r->context,
		.flags = FI_RECV | rdm_ep_rx_kind_flag(kind) |
			 (ux->flags & FI_REMOTE_CQ_DATA),
		.op_flags = r->flags,
		.size = ux->size,
		.tag = ux->tag,
		.data = (ux->flags & FI_REMOTE_CQ_DATA) ? ux->data : 0,
		.src = (ep->base.caps & FI_SOURCE) ?
		       rdm_ep_rx_report_src(own, ux->src) : FI_ADDR_NOTAVAIL,
		.probe = true,	/* a probe is no receive: no counter */
	};

	if (res->discard)
		own->tops->rx_discard(own, ux->prov);
	pl_match_done(ep->matchp, res);
	/* the header only: length of the message, no data moved */
	rdm_ep_cq_rx(cqt, &p, 0, res->discard ? 0 : p.size);
}

/* A matched queued message: placed, or dropped (FI_CLAIM|FI_DISCARD),
 * by the endpoint it arrived at (its transport holds it, its CQ gets
 * the completion). */
static void rdm_ep_rx_claimed(struct rdm_ep *q, enum pl_match_kind kind,
			      const struct pl_match_recv *r,
			      struct pl_match_result *res)
{
	struct rdm_ep *own = rdm_ep_rx_owner(res->ux);
	struct pl_match_rx *mrx;
	struct rdm_rx_hdr h;
	bool more;

	if (res->discard) {
		struct rdm_ep_rxp p = {
			.cq_ep = rdm_ep_rx_cqt(q, own),
			.context = r->context,
			.flags = FI_RECV | rdm_ep_rx_kind_flag(kind),
			.op_flags = r->flags,
			.tag = res->ux->tag,
			.src = FI_ADDR_NOTAVAIL,
		};

		own->tops->rx_discard(own, res->ux->prov);
		pl_match_done(q->matchp, res);
		rdm_ep_cq_rx(p.cq_ep, &p, 0, 0);
		return;
	}
	mrx = res->rx;
	/* read before placing: placing releases a finished receive */
	more = (r->flags & FI_MULTI_RECV) && !res->multi_last;
	rdm_ep_rx_hdr_of(own, res->ux, &h);
	rdm_ep_rx_place(q, own, kind, res, &h, res->ux->prov, res->ux->src);
	/* a multi-recv buffer keeps taking queued messages until full */
	while (more &&
	       pl_match_rx_pull(q->matchp, mrx, res) == PL_MATCH_MATCHED) {
		more = !res->multi_last;
		own = rdm_ep_rx_owner(res->ux);
		rdm_ep_rx_hdr_of(own, res->ux, &h);
		rdm_ep_rx_place(q, own, kind, res, &h, res->ux->prov,
				res->ux->src);
	}
}

ssize_t rdm_ep_rx_post(struct rdm_ep *ep, enum pl_match_kind kind,
		       const struct pl_match_recv *r_in)
{
	struct pl_match_recv r = *r_in;
	struct pl_match_result res;
	int ret;

	if (r.iov_count > PL_MATCH_IOV_MAX || (r.iov_count && !r.iov))
		return -FI_EINVAL;
	if ((r.flags & FI_MULTI_RECV) &&
	    (kind != PL_MATCH_MSG || r.iov_count != 1))
		return -FI_EINVAL;
	/* a source matters only to an endpoint asked for directed receive
	 * (fi_msg(3)); FI_ADDR_UNSPEC and NOTAVAIL both mean any */
	if (!(ep->base.caps & FI_DIRECTED_RECV) || r.src == FI_ADDR_NOTAVAIL)
		r.src = FI_ADDR_UNSPEC;

	/* a context of a scalable endpoint is serialized by that endpoint's
	 * lock: every lock of a data call is taken through xport */
	rdm_ep_lock(ep->xport);
	if (!ep->ready || ep->view == RDM_VIEW_TX || ep->psrx) {
		/* a transmit context receives nothing; an endpoint of a
		 * peer receive context takes its receives from the owner */
		ret = ep->ready ? -FI_EOPNOTSUPP : -FI_EOPBADSTATE;
		goto out;
	}
	rdm_ep_rx_ux_refresh(ep);
	ret = pl_match_post(ep->matchp, kind, &r, &res);
	if (ret == -FI_ENOMSG) {
		rdm_ep_cq_rx_err(ep, r.context,
				 FI_RECV | rdm_ep_rx_kind_flag(kind),
				 FI_ENOMSG);
		ret = 0;
		goto out;
	}
	if (ret <= 0)
		goto out;	/* queued, or an error */
	ret = 0;
	if (r.flags & FI_PEEK)
		rdm_ep_rx_peek_done(ep, kind, &r, &res);
	else
		rdm_ep_rx_claimed(ep, kind, &r, &res);
out:
	rdm_ep_unlock(ep->xport);
	/* a peer's messages matched or dropped by this post */
	rdm_peer_owner_flush(ep);
	return ret;
}

ssize_t rdm_ep_rx_cancel(fid_t fid, void *context)
{
	if (!fid || (fid->fclass != FI_CLASS_EP &&
		     fid->fclass != FI_CLASS_RX_CTX &&
		     fid->fclass != FI_CLASS_TX_CTX))
		return -FI_EINVAL;
	return rdm_ep_rx_cancel_on(rdm_ep_of_fid(fid), context);
}

ssize_t rdm_ep_rx_cancel_on(struct rdm_ep *ep, void *context)
{
	struct rdm_ep_mrecv *m = NULL;
	struct pl_match_rx *mrx;
	int ret;

	rdm_ep_lock(ep->xport);
	ret = pl_match_cancel(ep->matchp, context, &mrx);
	if (!ret) {
		uint64_t flags = FI_RECV | rdm_ep_rx_kind_flag(mrx->kind);

		/* a multi-recv buffer with data still moving into it: the
		 * last of those completions carries FI_MULTI_RECV */
		if (mrx->flags & FI_MULTI_RECV) {
			m = rdm_ep_mrecv_find(ep, mrx);
			if (m && m->pending) {
				rdm_ep_mrecv_release(m);
			} else {
				if (m)
					rdm_ep_mrecv_free(ep, m);
				flags |= FI_MULTI_RECV;
			}
		}
		rdm_ep_cq_rx_err(ep, mrx->context, flags, FI_ECANCELED);
		pl_match_rx_free(ep->matchp, mrx);
	}
	rdm_ep_unlock(ep->xport);
	return ret;
}

/* rx_attr->size less the receives posted (the matching engine takes any
 * number; the size is what we promised); -FI_EOPBADSTATE before
 * fi_enable. */
ssize_t rdm_ep_rx_size_left(struct fid_ep *e)
{
	struct rdm_ep *ep = rdm_ep_of_fid(&e->fid);
	size_t posted;
	ssize_t n;

	rdm_ep_lock(ep->xport);
	if (!ep->ready) {
		n = -FI_EOPBADSTATE;
	} else {
		posted = pl_match_posted_count(ep->matchp, PL_MATCH_MSG) +
			 pl_match_posted_count(ep->matchp, PL_MATCH_TAGGED);
		n = posted < ep->rx_size ? (ssize_t)(ep->rx_size - posted) : 0;
	}
	rdm_ep_unlock(ep->xport);
	return n;
}
