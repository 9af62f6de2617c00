/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The receive path of the shm endpoint: posting (fi_recv*, fi_trecv*,
 * with FI_MULTI_RECV, FI_PEEK, FI_CLAIM, FI_DISCARD), arrivals from the
 * protocol layer, placement and cancel. Matching is pl_match's; the
 * bytes move through shm_xfer_rx_deliver. Everything here runs under
 * the endpoint lock (shm_ep.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "pl_compiler.h"
#include "shm_ep.h"
#include "shm_params.h"

static uint64_t shm_ep_kind_flag(enum pl_match_kind kind)
{
	return kind == PL_MATCH_TAGGED ? FI_TAGGED : FI_MSG;
}

/* FI_SOURCE / directed receive: the sender's fi_addr_t, when it is in
 * the AV; FI_ADDR_NOTAVAIL otherwise. */
static fi_addr_t shm_ep_src_addr(struct shm_ep *ep, const char *name)
{
	char key[SHM_NAME_MAX];
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	if (!name || !ep->base.av ||
	    !(ep->base.caps & (FI_SOURCE | FI_DIRECTED_RECV)))
		return FI_ADDR_NOTAVAIL;
	/* the AV keys on the NUL-padded name (shm_av.c) */
	strncpy(key, name, sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	pl_rcu_read_lock();
	if (pl_av_reverse_lookup(ep->base.av, key, &fa, NULL))
		fa = FI_ADDR_NOTAVAIL;
	pl_rcu_read_unlock();
	return fa;
}

static fi_addr_t shm_ep_ux_src(void *arg, const struct pl_match_unexp *ux)
{
	const struct shm_xfer_rx *rx = ux->prov;

	return shm_ep_src_addr(arg, rx->src_name);
}

/* Messages queued before their sender was in the AV take its address
 * once it is there (an insert since the last look): a directed receive
 * then matches them and FI_SOURCE reports them. */
static void shm_ep_ux_refresh(struct shm_ep *ep)
{
	uint64_t gen;

	if (!ep->base.av ||
	    !(ep->base.caps & (FI_SOURCE | FI_DIRECTED_RECV)) ||
	    (!pl_match_unexp_count(&ep->match, PL_MATCH_MSG) &&
	     !pl_match_unexp_count(&ep->match, PL_MATCH_TAGGED)))
		return;
	gen = pl_av_insert_gen(ep->base.av);
	if (gen && gen == ep->ux_av_gen)
		return;
	ep->ux_av_gen = gen;
	pl_match_unexp_resolve(&ep->match, shm_ep_ux_src, ep);
}

/* The tracker of multi-recv buffer mrx, if one exists. */
static struct shm_ep_mrecv *shm_ep_mrecv_find(struct shm_ep *ep,
					      const struct pl_match_rx *mrx)
{
	struct shm_ep_mrecv *m;

	for (m = ep->mrecv; m; m = m->next)
		if (m->mrx == mrx)
			return m;
	return NULL;
}

static struct shm_ep_mrecv *shm_ep_mrecv_new(struct shm_ep *ep,
					     struct pl_match_rx *mrx)
{
	struct shm_ep_mrecv *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mrx = mrx;
	m->next = ep->mrecv;
	ep->mrecv = m;
	return m;
}

static void shm_ep_mrecv_free(struct shm_ep *ep, struct shm_ep_mrecv *m)
{
	struct shm_ep_mrecv **pp;

	for (pp = &ep->mrecv; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			free(m);
			return;
		}
}

/* The buffer of m is released (its last placement, or a cancel): the
 * FI_MULTI_RECV flag goes on whichever completion comes last. */
static void shm_ep_mrecv_release(struct shm_ep_mrecv *m)
{
	m->mrx = NULL;
	m->release = true;
}

/*
 * Write the completion of one placement. counted: it was among m's
 * pending ones. The last completion of a released multi-recv buffer
 * carries FI_MULTI_RECV, never an earlier one.
 */
static void shm_ep_rx_settle(struct shm_ep *ep, struct shm_ep_rxp *p,
			     bool counted, int status, uint64_t len)
{
	struct shm_ep_mrecv *m = p->mrecv;

	if (m) {
		if (counted)
			m->pending--;
		if (m->release && !m->pending) {
			p->flags |= FI_MULTI_RECV;
			shm_ep_mrecv_free(ep, m);
		}
		p->mrecv = NULL;
	}
	shm_ep_rx_complete(ep, p, status, len);
}

/*
 * The completion record of placement res of message a (its header, from
 * a record or straight from a command; a->data is not read), and the
 * part of the receive it lands in: slice, returns its count.
 */
static size_t shm_ep_rxp_init(struct shm_ep *ep, enum pl_match_kind kind,
			      const struct pl_match_result *res,
			      const struct shm_xfer_inline *a, fi_addr_t src,
			      struct shm_ep_rxp *p, struct iovec *slice)
{
	const struct pl_match_rx *mrx = res->rx;
	size_t n;

	n = pl_iov_slice(mrx->iov, mrx->iov_count, res->offset, res->len,
			     slice);
	/* field by field: a compound literal would zero src_name too (a
	 * rep stos of 200 bytes per message); src_name is read only when
	 * src_err is set */
	p->context = mrx->context;
	p->flags = FI_RECV | shm_ep_kind_flag(kind) |
		   ((a->flags & SHM_XF_CQ_DATA) ? FI_REMOTE_CQ_DATA : 0) |
		   (res->multi_last ? FI_MULTI_RECV : 0);
	p->op_flags = mrx->flags;
	p->buf = n ? slice[0].iov_base :
		 (mrx->iov_count ? (char *)mrx->iov[0].iov_base + res->offset :
				   NULL);
	p->cap = res->len;
	p->size = a->size;
	p->tag = a->tag;
	p->data = (a->flags & SHM_XF_CQ_DATA) ? a->cq_data : 0;
	p->src = (ep->base.caps & FI_SOURCE) ? src : FI_ADDR_NOTAVAIL;
	p->src_err = false;
	p->probe = false;
	p->mrecv = NULL;
	p->src_name[0] = '\0';
	if ((ep->base.caps & FI_SOURCE_ERR) && src == FI_ADDR_NOTAVAIL &&
	    a->src_name) {
		p->src_err = true;
		strncpy(p->src_name, a->src_name, sizeof(p->src_name) - 1);
		p->src_name[sizeof(p->src_name) - 1] = '\0';
	}
	return n;
}

/* A multi-recv buffer: a placement that may finish later (later) is
 * tracked, so that the release waits for it; the release itself moves
 * FI_MULTI_RECV to whichever completion comes last. */
static void shm_ep_place_mrecv(struct shm_ep *ep, struct pl_match_rx *mrx,
			       const struct pl_match_result *res,
			       struct shm_ep_rxp *p, bool later)
{
	struct shm_ep_mrecv *m = shm_ep_mrecv_find(ep, mrx);

	if (!m && later)
		m = shm_ep_mrecv_new(ep, mrx);
	if (!m)
		return;
	p->mrecv = m;
	if (later)
		m->pending++;
	if (res->multi_last) {
		p->flags &= ~FI_MULTI_RECV;
		shm_ep_mrecv_release(m);
	}
}

/*
 * Place the message rx into the receive res names, complete it (now, or
 * when its data has moved) and release the match result.
 */
static void shm_ep_place(struct shm_ep *ep, enum pl_match_kind kind,
			 struct pl_match_result *res, struct shm_xfer_rx *rx,
			 fi_addr_t src)
{
	struct pl_match_rx *mrx = res->rx;
	struct iovec slice[PL_MATCH_IOV_MAX];
	struct shm_ep_rxp p, *heap = NULL;
	bool later = rx->proto != SHM_PROTO_INLINE;
	struct shm_xfer_inline a = {
		.size = rx->size, .tag = rx->tag, .cq_data = rx->cq_data,
		.flags = rx->flags, .src_name = rx->src_name,
	};
	uint64_t len = 0;
	size_t n;
	int ret;

	n = shm_ep_rxp_init(ep, kind, res, &a, src, &p, slice);
	/* the layer's own field: only bounce-buffer and single-copy
	 * receptions can finish later, so only they need their record on
	 * the heap (shm_xfer.h: rx_done gets rx->context back) */
	if (later) {
		heap = malloc(sizeof(*heap));
		if (!heap) {
			shm_xfer_rx_discard(rx);
			later = false;
		}
	}
	if (mrx->flags & FI_MULTI_RECV)
		shm_ep_place_mrecv(ep, mrx, res, &p, later);
	if (later) {
		*heap = p;
		rx->context = heap;
	} else if (rx->proto != SHM_PROTO_INLINE) {
		/* no memory for the record: the message was dropped */
		pl_match_done(&ep->match, res);
		shm_ep_rx_settle(ep, &p, false, -FI_ENOMEM, 0);
		return;
	}
	ret = shm_xfer_rx_deliver(rx, slice, n, &len);
	/* everything the completion needs was copied: the receive entry
	 * can go now (a multi-recv buffer stays posted) */
	pl_match_done(&ep->match, res);
	if (ret == 1)
		return;		/* rx_done -> shm_ep_rx_finish */
	if (heap)
		free(heap);
	shm_ep_rx_settle(ep, &p, later, ret,
			 ret && ret != -FI_ETRUNC ? 0 : len);
}

/* Place an inline message straight from its command (shm_ep_rx_inline):
 * as shm_ep_place does with the record of one, which it never needs. */
static void shm_ep_place_inline(struct shm_ep *ep, enum pl_match_kind kind,
				struct pl_match_result *res,
				const struct shm_xfer_inline *in, fi_addr_t src)
{
	struct iovec slice[PL_MATCH_IOV_MAX];
	struct shm_ep_rxp p;
	uint64_t len;
	size_t n;

	n = shm_ep_rxp_init(ep, kind, res, in, src, &p, slice);
	if (res->rx->flags & FI_MULTI_RECV)
		shm_ep_place_mrecv(ep, res->rx, res, &p, false);
	/* slice holds min(size, room) bytes: what fits */
	len = pl_iov_from_buf(slice, n, 0, in->data, res->len);
	pl_match_done(&ep->match, res);
	shm_ep_rx_settle(ep, &p, false, in->size > len ? -FI_ETRUNC : 0, len);
}

int shm_ep_rx_inline(struct shm_ep *ep, const struct shm_xfer_inline *in)
{
	enum pl_match_kind kind = (in->flags & SHM_XF_TAGGED) ?
				  PL_MATCH_TAGGED : PL_MATCH_MSG;
	struct pl_match_result res;
	struct pl_match_hdr h;

	if (ep->closing)
		return 0;	/* rx_arrive discards it */
	h = (struct pl_match_hdr){
		.src = shm_ep_src_addr(ep, in->src_name),
		.tag = in->tag,
		.size = (size_t)in->size,
	};
	if (pl_match_take(&ep->match, kind, &h, &res) != PL_MATCH_MATCHED)
		return 0;
	shm_ep_place_inline(ep, kind, &res, in, h.src);
	return 1;
}

void shm_ep_rx_finish(struct shm_ep *ep, struct shm_ep_rxp *p, int status,
		      uint64_t len)
{
	shm_ep_rx_settle(ep, p, true, status, len);
	free(p);
}

void shm_ep_rx_fini(struct shm_ep *ep)
{
	struct shm_ep_mrecv *m;

	while ((m = ep->mrecv)) {
		ep->mrecv = m->next;
		free(m);
	}
}

void shm_ep_rx_arrive(struct shm_ep *ep, struct shm_xfer_rx *rx)
{
	enum pl_match_kind kind = (rx->flags & SHM_XF_TAGGED) ?
				  PL_MATCH_TAGGED : PL_MATCH_MSG;
	struct pl_match_result res;
	struct pl_match_hdr h;
	int ret;

	if (ep->closing) {
		shm_xfer_rx_discard(rx);
		return;
	}
	h = (struct pl_match_hdr){
		.src = shm_ep_src_addr(ep, rx->src_name),
		.tag = rx->tag,
		.size = (size_t)rx->size,
		.data = rx->cq_data,
		.flags = (rx->flags & SHM_XF_CQ_DATA) ? FI_REMOTE_CQ_DATA : 0,
		.prov = rx,
	};
	/* refused by shm_ep_rx_inline in this same poll: nothing posted
	 * takes it, no need to search again */
	ret = (rx->flags & SHM_XF_UNMATCHED) ?
	      pl_match_queue_unexp(&ep->match, kind, &h, NULL) :
	      pl_match_arrive(&ep->match, kind, &h, &res, NULL);
	if (ret == PL_MATCH_QUEUED)
		return;		/* unexpected: rx waits in ux->prov */
	if (ret < 0) {
		SHM_WARN(FI_LOG_EP_DATA, "shm: message dropped: %d\n", ret);
		shm_xfer_rx_discard(rx);
		return;
	}
	shm_ep_place(ep, kind, &res, rx, h.src);
}

/* FI_PEEK: report the header; FI_DISCARD drops the message. */
static void shm_ep_peek_done(struct shm_ep *ep, enum pl_match_kind kind,
			     const struct pl_match_recv *r,
			     struct pl_match_result *res)
{
	struct pl_match_unexp *ux = res->ux;
	struct shm_ep_rxp p = {
		.context = r->context,
		.flags = FI_RECV | shm_ep_kind_flag(kind) |
			 (ux->flags & FI_REMOTE_CQ_DATA),
		.op_flags = r->flags,
		.size = ux->size,
		.tag = ux->tag,
		.data = (ux->flags & FI_REMOTE_CQ_DATA) ? ux->data : 0,
		.src = (ep->base.caps & FI_SOURCE) ? ux->src : FI_ADDR_NOTAVAIL,
		.probe = true,	/* a probe is no receive: no counter */
	};

	if (res->discard)
		shm_xfer_rx_discard(ux->prov);
	pl_match_done(&ep->match, res);
	/* the header only: length of the message, no data moved */
	shm_ep_rx_complete(ep, &p, 0, res->discard ? 0 : p.size);
}

ssize_t shm_ep_recv(struct shm_ep *ep, enum pl_match_kind kind,
		    const struct pl_match_recv *r_in)
{
	struct pl_match_recv r = *r_in;
	struct pl_match_result res;
	struct pl_match_rx *mrx;
	struct shm_xfer_rx *rx;
	fi_addr_t src;
	bool more;
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

	shm_ep_lock(ep);
	if (!ep->xep) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	shm_ep_ux_refresh(ep);
	ret = pl_match_post(&ep->match, kind, &r, &res);
	if (ret == -FI_ENOMSG) {
		shm_ep_rx_error(ep, r.context, FI_RECV | shm_ep_kind_flag(kind),
				FI_ENOMSG);
		ret = 0;
		goto out;
	}
	if (ret <= 0)
		goto out;	/* queued, or an error */
	ret = 0;
	if (r.flags & FI_PEEK) {
		shm_ep_peek_done(ep, kind, &r, &res);
		goto out;
	}
	rx = res.ux->prov;
	src = res.ux->src;
	if (res.discard) {
		/* FI_CLAIM | FI_DISCARD: the claimed message goes away */
		struct shm_ep_rxp p = {
			.context = r.context,
			.flags = FI_RECV | shm_ep_kind_flag(kind),
			.op_flags = r.flags,
			.tag = res.ux->tag,
			.src = FI_ADDR_NOTAVAIL,
		};

		shm_xfer_rx_discard(rx);
		pl_match_done(&ep->match, &res);
		shm_ep_rx_complete(ep, &p, 0, 0);
		goto out;
	}
	mrx = res.rx;
	/* read before placing: placing releases a finished receive */
	more = (r.flags & FI_MULTI_RECV) && !res.multi_last;
	shm_ep_place(ep, kind, &res, rx, src);
	/* a multi-recv buffer keeps taking queued messages until full */
	while (more &&
	       pl_match_rx_pull(&ep->match, mrx, &res) == PL_MATCH_MATCHED) {
		more = !res.multi_last;
		shm_ep_place(ep, kind, &res, res.ux->prov, res.ux->src);
	}
out:
	shm_ep_unlock(ep);
	return ret;
}

ssize_t shm_ep_cancel(fid_t fid, void *context)
{
	struct shm_ep_mrecv *m = NULL;
	struct pl_match_rx *mrx;
	struct shm_ep *ep;
	uint64_t txf, rxf;
	int ret;

	if (!fid || fid->fclass != FI_CLASS_EP)
		return -FI_EINVAL;
	ep = shm_ep_of(pl_container_of(fid, struct fid_ep, fid), &txf, &rxf);
	shm_ep_lock(ep);
	ret = pl_match_cancel(&ep->match, context, &mrx);
	if (!ret) {
		uint64_t flags = FI_RECV | shm_ep_kind_flag(mrx->kind);

		/* a multi-recv buffer with data still moving into it: the
		 * last of those completions carries FI_MULTI_RECV */
		if (mrx->flags & FI_MULTI_RECV) {
			m = shm_ep_mrecv_find(ep, mrx);
			if (m && m->pending) {
				shm_ep_mrecv_release(m);
			} else {
				if (m)
					shm_ep_mrecv_free(ep, m);
				flags |= FI_MULTI_RECV;
			}
		}
		shm_ep_rx_error(ep, mrx->context, flags, FI_ECANCELED);
		pl_match_rx_free(&ep->match, mrx);
	}
	shm_ep_unlock(ep);
	return ret;
}
