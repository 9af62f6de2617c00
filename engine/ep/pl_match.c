/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_match: posted-receive and unexpected-message queues (pl_match.h).
 * Every entry comes from a serial bufpool: the engine runs under its
 * owner's serialization, so no atomic is needed on the pools.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_bufpool.h"
#include "pl_match.h"

#define PL_MATCH_DEF_BUCKETS	256
#define PL_MATCH_DEF_MIN_MULTI	64

/* Debug-only overlap check: two calls inside one engine at once means the
 * owner's serialization is missing. Not atomic on purpose: it detects,
 * it does not synchronize. */
#ifndef NDEBUG
#define PL_MATCH_ENTER(m) do { assert((m)->busy == 0); (m)->busy = 1; } while (0)
#define PL_MATCH_LEAVE(m) do { (m)->busy = 0; } while (0)
#else
#define PL_MATCH_ENTER(m) do { (void)(m); } while (0)
#define PL_MATCH_LEAVE(m) do { (void)(m); } while (0)
#endif

static void pl_match_list_init(struct pl_match_link *h)
{
	h->prev = h->next = h;
}

static void pl_match_list_add_tail(struct pl_match_link *h,
				   struct pl_match_link *e)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static void pl_match_list_del(struct pl_match_link *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->prev = e->next = e;
}

#define PL_MATCH_RX(l) ((struct pl_match_rx *)(void *)(l))
#define PL_MATCH_UX(l) ((struct pl_match_unexp *)(void *)(l))

static size_t pl_match_hash(const struct pl_match *m, uint64_t tag)
{
	/* Fibonacci hashing: spreads consecutive tags across buckets. */
	return (size_t)((tag * 0x9e3779b97f4a7c15ull) >> 32) & m->bucket_mask;
}

int pl_match_init(struct pl_match *m, const struct pl_match_attr *attr)
{
	struct pl_match_attr def = { 0 };
	struct pl_bufpool_attr pa = { 0 };
	size_t nb, i;
	int ret;

	if (!m)
		return -FI_EINVAL;
	if (!attr)
		attr = &def;
	nb = attr->hash_buckets ? attr->hash_buckets : PL_MATCH_DEF_BUCKETS;
	if (nb & (nb - 1))
		return -FI_EINVAL;
	memset(m, 0, sizeof(*m));
	for (i = 0; i < PL_MATCH_KINDS; i++) {
		pl_match_list_init(&m->q[i].wild);
		pl_match_list_init(&m->q[i].unexp);
	}
	m->min_multi_recv = attr->min_multi_recv ? attr->min_multi_recv
						 : PL_MATCH_DEF_MIN_MULTI;
	if (nb > 1) {
		m->buckets = malloc(2 * nb * sizeof(*m->buckets));
		if (!m->buckets)
			return -FI_ENOMEM;
		for (i = 0; i < 2 * nb; i++)
			pl_match_list_init(&m->buckets[i]);
		/* One allocation: posted buckets, then unexpected ones. */
		m->ux_buckets = m->buckets + nb;
		m->bucket_mask = nb - 1;
	}
	pa.flags = PL_BUFPOOL_F_SERIAL;
	pa.obj_size = sizeof(struct pl_match_rx);
	pa.max_objs = attr->max_rx;
	ret = pl_bufpool_create(&pa, &m->rx_pool);
	if (ret)
		goto err_rx;
	pa.obj_size = sizeof(struct pl_match_unexp);
	pa.max_objs = attr->max_unexp;
	ret = pl_bufpool_create(&pa, &m->ux_pool);
	if (ret)
		goto err_ux;
	return 0;
err_ux:
	pl_bufpool_destroy(m->rx_pool);
err_rx:
	free(m->buckets);
	m->buckets = m->ux_buckets = NULL;
	return ret;
}

void pl_match_fini(struct pl_match *m)
{
	if (!m)
		return;
	/* The pools own every entry: destroying them frees all at once. */
	pl_bufpool_destroy(m->rx_pool);
	pl_bufpool_destroy(m->ux_pool);
	free(m->buckets);	/* ux_buckets shares it */
	memset(m, 0, sizeof(*m));
}

void pl_match_set_min_multi_recv(struct pl_match *m, size_t min)
{
	m->min_multi_recv = min;
}

size_t pl_match_get_min_multi_recv(const struct pl_match *m)
{
	return m->min_multi_recv;
}

static bool pl_match_src_ok(fi_addr_t want, fi_addr_t src)
{
	return want == FI_ADDR_UNSPEC || want == src;
}

static bool pl_match_rx_ok(const struct pl_match_rx *rx, fi_addr_t src,
			   uint64_t tag)
{
	if (!pl_match_src_ok(rx->src, src))
		return false;
	return rx->kind == PL_MATCH_MSG || pl_match_tag(rx->tag, rx->ignore, tag);
}

static struct pl_match_link *pl_match_rx_list(struct pl_match *m,
					      const struct pl_match_rx *rx)
{
	if (rx->kind == PL_MATCH_TAGGED && rx->ignore == 0 && m->buckets)
		return &m->buckets[pl_match_hash(m, rx->tag)];
	return &m->q[rx->kind].wild;
}

static void pl_match_rx_enqueue(struct pl_match *m, struct pl_match_rx *rx)
{
	rx->seq = m->next_seq++;
	rx->queued = true;
	pl_match_list_add_tail(pl_match_rx_list(m, rx), &rx->link);
	m->q[rx->kind].posted++;
}

static void pl_match_rx_dequeue(struct pl_match *m, struct pl_match_rx *rx)
{
	pl_match_list_del(&rx->link);
	rx->queued = false;
	m->q[rx->kind].posted--;
}

void pl_match_rx_free(struct pl_match *m, struct pl_match_rx *rx)
{
	if (rx)
		__pl_bufpool_free(m->rx_pool, rx);
}

/* Lands a message of `size` bytes in rx; releases a multi-recv buffer
 * that falls below the threshold (fi_msg(3)). A message larger than the
 * space left is truncated into it: the threshold is the application's
 * promise of the largest message, so this is its error to see. */
static void pl_match_consume(struct pl_match *m, struct pl_match_rx *rx,
			     size_t size, struct pl_match_result *res)
{
	size_t space = rx->total - rx->used;

	res->rx = rx;
	res->offset = rx->used;
	res->len = size < space ? size : space;
	res->olen = size - res->len;
	res->multi_last = false;
	if (!(rx->flags & FI_MULTI_RECV))
		return;
	rx->used += res->len;
	if (rx->total - rx->used < m->min_multi_recv || res->olen) {
		res->multi_last = true;
		if (rx->queued)
			pl_match_rx_dequeue(m, rx);
	}
}

static struct pl_match_rx *pl_match_find_rx(struct pl_match *m,
		enum pl_match_kind kind, fi_addr_t src, uint64_t tag)
{
	struct pl_match_link *h, *l;
	struct pl_match_rx *exact = NULL;

	if (kind == PL_MATCH_TAGGED && m->buckets) {
		h = &m->buckets[pl_match_hash(m, tag)];
		for (l = h->next; l != h; l = l->next) {
			if (pl_match_rx_ok(PL_MATCH_RX(l), src, tag)) {
				exact = PL_MATCH_RX(l);
				break;
			}
		}
	}
	/* Wildcards posted after the exact candidate cannot win: stop. */
	h = &m->q[kind].wild;
	for (l = h->next; l != h; l = l->next) {
		struct pl_match_rx *rx = PL_MATCH_RX(l);

		if (exact && rx->seq > exact->seq)
			break;
		if (pl_match_rx_ok(rx, src, tag))
			return rx;
	}
	return exact;
}

int pl_match_take(struct pl_match *m, enum pl_match_kind kind,
		  const struct pl_match_hdr *h, struct pl_match_result *res_p)
{
	struct pl_match_rx *rx;

	PL_MATCH_ENTER(m);
	rx = pl_match_find_rx(m, kind, h->src, kind == PL_MATCH_TAGGED ? h->tag : 0);
	if (!rx) {
		PL_MATCH_LEAVE(m);
		return -FI_ENOMSG;
	}
	res_p->ux = NULL;
	res_p->discard = false;
	if (!(rx->flags & FI_MULTI_RECV))
		pl_match_rx_dequeue(m, rx);
	/* sets rx, offset, len, olen, multi_last */
	pl_match_consume(m, rx, h->size, res_p);
	PL_MATCH_LEAVE(m);
	return PL_MATCH_MATCHED;
}

int pl_match_queue_unexp(struct pl_match *m, enum pl_match_kind kind,
			 const struct pl_match_hdr *h,
			 struct pl_match_unexp **ux_p)
{
	struct pl_match_unexp *ux;
	void *obj;
	int ret;

	PL_MATCH_ENTER(m);
	ret = __pl_bufpool_alloc(m->ux_pool, &obj);
	if (ret) {
		PL_MATCH_LEAVE(m);
		return ret;
	}
	ux = obj;
	memset(ux, 0, offsetof(struct pl_match_unexp, inline_data));
	ux->kind = kind;
	ux->src = h->src;
	ux->tag = kind == PL_MATCH_TAGGED ? h->tag : 0;
	ux->size = h->size;
	ux->data = h->data;
	ux->flags = h->flags;
	ux->prov = h->prov;
	ux->owner = h->owner;
	if (h->inline_buf && h->inline_len <= PL_MATCH_INLINE_MAX) {
		memcpy(ux->inline_data, h->inline_buf, h->inline_len);
		ux->inline_len = h->inline_len;
	}
	pl_match_list_add_tail(&m->q[kind].unexp, &ux->link);
	pl_match_list_init(&ux->hlink);
	if (kind == PL_MATCH_TAGGED && m->ux_buckets)
		pl_match_list_add_tail(&m->ux_buckets[pl_match_hash(m, ux->tag)],
				       &ux->hlink);
	m->q[kind].unexpected++;
	if (ux_p)
		*ux_p = ux;
	PL_MATCH_LEAVE(m);
	return PL_MATCH_QUEUED;
}

int pl_match_arrive(struct pl_match *m, enum pl_match_kind kind,
		    const struct pl_match_hdr *h, struct pl_match_result *res_p,
		    struct pl_match_unexp **ux_p)
{
	int ret = pl_match_take(m, kind, h, res_p);

	if (ret != -FI_ENOMSG)
		return ret;
	return pl_match_queue_unexp(m, kind, h, ux_p);
}

static struct pl_match_unexp *pl_match_find_ux(struct pl_match *m,
		enum pl_match_kind kind, const struct pl_match_recv *r)
{
	struct pl_match_link *h = &m->q[kind].unexp, *l;

	if (kind == PL_MATCH_TAGGED && r->ignore == 0 && m->ux_buckets) {
		/* Every message with exactly this tag is in its bucket, in
		 * arrival order: the first acceptable one is the oldest. */
		h = &m->ux_buckets[pl_match_hash(m, r->tag)];
		for (l = h->next; l != h; l = l->next) {
			struct pl_match_unexp *ux = (struct pl_match_unexp *)
				(void *)((char *)l - offsetof(struct pl_match_unexp, hlink));

			if (!ux->claimed && ux->tag == r->tag &&
			    pl_match_src_ok(r->src, ux->src))
				return ux;
		}
		return NULL;
	}
	for (l = h->next; l != h; l = l->next) {
		struct pl_match_unexp *ux = PL_MATCH_UX(l);

		if (ux->claimed || !pl_match_src_ok(r->src, ux->src))
			continue;
		if (kind == PL_MATCH_MSG || pl_match_tag(r->tag, r->ignore, ux->tag))
			return ux;
	}
	return NULL;
}

static struct pl_match_unexp *pl_match_find_claimed(struct pl_match *m,
		enum pl_match_kind kind, void *context)
{
	struct pl_match_link *h = &m->q[kind].unexp, *l;

	for (l = h->next; l != h; l = l->next)
		if (PL_MATCH_UX(l)->claimed &&
		    PL_MATCH_UX(l)->claim_context == context)
			return PL_MATCH_UX(l);
	return NULL;
}

static void pl_match_ux_remove(struct pl_match *m, struct pl_match_unexp *ux)
{
	pl_match_list_del(&ux->link);
	pl_match_list_del(&ux->hlink);
	m->q[ux->kind].unexpected--;
}

static int pl_match_rx_new(struct pl_match *m, enum pl_match_kind kind,
			   const struct pl_match_recv *r,
			   struct pl_match_rx **rx_p)
{
	struct pl_match_rx *rx;
	void *obj;
	size_t i;
	int ret;

	ret = __pl_bufpool_alloc(m->rx_pool, &obj);
	if (ret)
		return ret;
	rx = obj;
	/* every field set one by one, no memset of the whole entry: iov[]
	 * and desc[] beyond iov_count are never read, and zeroing 200 bytes
	 * (a rep stos) cost a tenth of a message's software path */
	pl_match_list_init(&rx->link);
	rx->seq = 0;
	rx->kind = kind;
	rx->iov_count = r->iov_count;
	rx->total = 0;
	for (i = 0; i < r->iov_count; i++) {
		rx->iov[i] = r->iov[i];
		rx->desc[i] = r->desc ? r->desc[i] : NULL;
		rx->total += r->iov[i].iov_len;
	}
	rx->used = 0;
	rx->context = r->context;
	rx->flags = r->flags;
	rx->src = r->src;
	rx->tag = kind == PL_MATCH_TAGGED ? r->tag : 0;
	rx->ignore = kind == PL_MATCH_TAGGED ? r->ignore : 0;
	rx->queued = false;
	*rx_p = rx;
	return 0;
}

static int pl_match_peek(struct pl_match *m, enum pl_match_kind kind,
			 const struct pl_match_recv *r,
			 struct pl_match_result *res)
{
	struct pl_match_unexp *ux = pl_match_find_ux(m, kind, r);

	if (!ux)
		return -FI_ENOMSG;
	res->ux = ux;
	res->len = ux->size;
	if (r->flags & FI_CLAIM) {
		ux->claimed = true;
		ux->claim_context = r->context;
	} else if (r->flags & FI_DISCARD) {
		pl_match_ux_remove(m, ux);
		res->discard = true;
	}
	return PL_MATCH_MATCHED;
}

static int pl_match_claim(struct pl_match *m, enum pl_match_kind kind,
			  const struct pl_match_recv *r,
			  struct pl_match_result *res)
{
	struct pl_match_unexp *ux = pl_match_find_claimed(m, kind, r->context);
	struct pl_match_rx *rx;
	int ret;

	if (!ux)
		return -FI_ENOMSG;
	ret = pl_match_rx_new(m, kind, r, &rx);
	if (ret)
		return ret;
	pl_match_ux_remove(m, ux);
	res->ux = ux;
	if (r->flags & FI_DISCARD) {
		res->rx = rx;
		res->discard = true;
		return PL_MATCH_MATCHED;
	}
	pl_match_consume(m, rx, ux->size, res);
	return PL_MATCH_MATCHED;
}

int pl_match_post(struct pl_match *m, enum pl_match_kind kind,
		  const struct pl_match_recv *r, struct pl_match_result *res_p)
{
	struct pl_match_unexp *ux;
	struct pl_match_rx *rx;
	int ret;

	if (!r || r->iov_count > PL_MATCH_IOV_MAX ||
	    (r->iov_count && !r->iov) || kind >= PL_MATCH_KINDS)
		return -FI_EINVAL;
	PL_MATCH_ENTER(m);
	memset(res_p, 0, sizeof(*res_p));
	if (r->flags & FI_PEEK) {
		ret = pl_match_peek(m, kind, r, res_p);
		goto out;
	}
	if (r->flags & FI_CLAIM) {
		ret = pl_match_claim(m, kind, r, res_p);
		goto out;
	}
	ret = pl_match_rx_new(m, kind, r, &rx);
	if (ret)
		goto out;
	ux = pl_match_find_ux(m, kind, r);
	if (!ux) {
		pl_match_rx_enqueue(m, rx);
		ret = PL_MATCH_QUEUED;
		goto out;
	}
	pl_match_ux_remove(m, ux);
	res_p->ux = ux;
	pl_match_consume(m, rx, ux->size, res_p);
	/* A multi-recv buffer with room left stays posted for later ones. */
	if ((rx->flags & FI_MULTI_RECV) && !res_p->multi_last)
		pl_match_rx_enqueue(m, rx);
	ret = PL_MATCH_MATCHED;
out:
	PL_MATCH_LEAVE(m);
	return ret;
}

int pl_match_rx_pull(struct pl_match *m, struct pl_match_rx *rx,
		     struct pl_match_result *res_p)
{
	struct pl_match_recv r = { .src = rx->src, .tag = rx->tag,
				   .ignore = rx->ignore };
	struct pl_match_unexp *ux;

	PL_MATCH_ENTER(m);
	ux = rx->queued ? pl_match_find_ux(m, rx->kind, &r) : NULL;
	if (!ux) {
		PL_MATCH_LEAVE(m);
		return PL_MATCH_QUEUED;
	}
	memset(res_p, 0, sizeof(*res_p));
	pl_match_ux_remove(m, ux);
	res_p->ux = ux;
	pl_match_consume(m, rx, ux->size, res_p);
	PL_MATCH_LEAVE(m);
	return PL_MATCH_MATCHED;
}

void pl_match_done(struct pl_match *m, struct pl_match_result *res)
{
	PL_MATCH_ENTER(m);
	/* A plain or claiming peek leaves its entry queued: keep it. */
	if (res->ux && res->ux->link.next == &res->ux->link)
		__pl_bufpool_free(m->ux_pool, res->ux);
	if (res->rx && !(res->rx->queued))
		__pl_bufpool_free(m->rx_pool, res->rx);
	res->ux = NULL;
	res->rx = NULL;
	PL_MATCH_LEAVE(m);
}

static struct pl_match_rx *pl_match_scan_ctx(struct pl_match_link *h,
					     void *context)
{
	struct pl_match_link *l;

	for (l = h->next; l != h; l = l->next)
		if (PL_MATCH_RX(l)->context == context)
			return PL_MATCH_RX(l);
	return NULL;
}

int pl_match_cancel(struct pl_match *m, void *context,
		    struct pl_match_rx **rx_p)
{
	struct pl_match_rx *rx = NULL, *c;
	size_t i;

	PL_MATCH_ENTER(m);
	/* The oldest posted receive with this context, any queue. */
	for (i = 0; i < PL_MATCH_KINDS; i++) {
		c = pl_match_scan_ctx(&m->q[i].wild, context);
		if (c && (!rx || c->seq < rx->seq))
			rx = c;
	}
	for (i = 0; m->buckets && i <= m->bucket_mask; i++) {
		c = pl_match_scan_ctx(&m->buckets[i], context);
		if (c && (!rx || c->seq < rx->seq))
			rx = c;
	}
	if (!rx) {
		PL_MATCH_LEAVE(m);
		return -FI_ENOENT;
	}
	pl_match_rx_dequeue(m, rx);
	*rx_p = rx;
	PL_MATCH_LEAVE(m);
	return 0;
}

void pl_match_unexp_drop(struct pl_match *m, struct pl_match_unexp *ux)
{
	PL_MATCH_ENTER(m);
	pl_match_ux_remove(m, ux);
	__pl_bufpool_free(m->ux_pool, ux);
	PL_MATCH_LEAVE(m);
}

struct pl_match_unexp *pl_match_unexp_next(struct pl_match *m,
		enum pl_match_kind kind, struct pl_match_unexp *prev)
{
	struct pl_match_link *h = &m->q[kind].unexp;
	struct pl_match_link *l = prev ? prev->link.next : h->next;

	return l == h ? NULL : PL_MATCH_UX(l);
}

size_t pl_match_unexp_resolve(struct pl_match *m,
			      fi_addr_t (*resolve)(void *arg,
						   const struct pl_match_unexp *ux),
			      void *arg)
{
	struct pl_match_unexp *ux;
	size_t left = 0;
	int k;

	PL_MATCH_ENTER(m);
	/* the source is not a key of any queue or bucket (tagged entries
	 * hash by tag), so it changes in place */
	for (k = 0; k < PL_MATCH_KINDS; k++) {
		for (ux = pl_match_unexp_next(m, k, NULL); ux;
		     ux = pl_match_unexp_next(m, k, ux)) {
			if (ux->src != FI_ADDR_NOTAVAIL)
				continue;
			ux->src = resolve(arg, ux);
			if (ux->src == FI_ADDR_NOTAVAIL)
				left++;
		}
	}
	PL_MATCH_LEAVE(m);
	return left;
}

size_t pl_match_posted_count(const struct pl_match *m, enum pl_match_kind k)
{
	return m->q[k].posted;
}

size_t pl_match_unexp_count(const struct pl_match *m, enum pl_match_kind k)
{
	return m->q[k].unexpected;
}
