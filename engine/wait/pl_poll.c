/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Poll sets: an array of members under one mutex (contract in
 * pl_poll.h). fi_poll is a control-rate call, so a mutex keeps it simple;
 * the members' own hot paths are untouched (ready() is lock-free).
 */
#include "pl_poll.h"
#include "pl_cq.h"
#include "pl_cntr.h"
#include "pl_eq.h"
#include "pl_waitable.h"
#include "pl_domain.h"
#include "pl_progress.h"
#include "pl_fid_nosys.h"

#include <pthread.h>
#include <stdlib.h>

struct pl_poll_member {
	struct fid *fid;
	struct pl_waitable *w;
	uint64_t value, err;		/* counters: last reported */
};

struct pl_poll {
	struct fid_poll poll;
	struct pl_domain *dom;		/* immutable; NULL: foreign domain */
	pthread_mutex_t lock;		/* everything below */
	struct pl_poll_member *mem;
	size_t nmem, cap;
};

#define PL_POLL(p) ((struct pl_poll *)(p))

static struct pl_waitable *pl_poll_waitable(struct fid *fid)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return pl_cq_waitable((struct fid_cq *)fid);
	case FI_CLASS_CNTR:
		return pl_cntr_waitable((struct fid_cntr *)fid);
	case FI_CLASS_EQ:
		return pl_eq_waitable((struct fid_eq *)fid);
	default:
		return NULL;
	}
}

static void pl_poll_ref(struct fid *fid, int delta)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		(delta > 0 ? pl_cq_ref : pl_cq_unref)((struct fid_cq *)fid);
		break;
	case FI_CLASS_CNTR:
		(delta > 0 ? pl_cntr_ref : pl_cntr_unref)((struct fid_cntr *)fid);
		break;
	default:
		(delta > 0 ? pl_eq_ref : pl_eq_unref)((struct fid_eq *)fid);
		break;
	}
}

static ssize_t pl_poll_find(struct pl_poll *p, const struct fid *fid)
{
	size_t i;

	for (i = 0; i < p->nmem; i++)
		if (p->mem[i].fid == fid)
			return (ssize_t)i;
	return -1;
}

static int pl_poll_add(struct fid_poll *ps, struct fid *fid, uint64_t flags)
{
	struct pl_poll *p = PL_POLL(ps);
	struct pl_poll_member *n;
	struct pl_waitable *w;
	int ret = 0;

	(void)flags;
	if (!fid)
		return -FI_EINVAL;
	w = pl_poll_waitable(fid);
	if (!w)
		return -FI_EINVAL;
	pthread_mutex_lock(&p->lock);
	if (pl_poll_find(p, fid) >= 0) {
		ret = -FI_EALREADY;
		goto out;
	}
	if (p->nmem == p->cap) {
		n = realloc(p->mem, (p->cap * 2 + 4) * sizeof(*n));
		if (!n) {
			ret = -FI_ENOMEM;
			goto out;
		}
		p->mem = n;
		p->cap = p->cap * 2 + 4;
	}
	n = &p->mem[p->nmem];
	*n = (struct pl_poll_member){ .fid = fid, .w = w };
	if (fid->fclass == FI_CLASS_CNTR)
		pl_cntr_values((struct fid_cntr *)fid, &n->value, &n->err);
	pl_poll_ref(fid, 1);
	p->nmem++;
out:
	pthread_mutex_unlock(&p->lock);
	return ret;
}

static int pl_poll_del(struct fid_poll *ps, struct fid *fid, uint64_t flags)
{
	struct pl_poll *p = PL_POLL(ps);
	ssize_t i;

	(void)flags;
	if (!fid)
		return -FI_EINVAL;
	pthread_mutex_lock(&p->lock);
	i = pl_poll_find(p, fid);
	if (i < 0) {
		pthread_mutex_unlock(&p->lock);
		return -FI_ENOENT;
	}
	/* keep the order of the others: fi_poll reports in add order */
	for (; (size_t)i + 1 < p->nmem; i++)
		p->mem[i] = p->mem[i + 1];
	p->nmem--;
	pthread_mutex_unlock(&p->lock);
	pl_poll_ref(fid, -1);
	return 0;
}

/* one pass over each distinct context (members of one domain share it) */
static void pl_poll_progress(struct pl_poll *p)
{
	struct pl_progress_ctx *ctx;
	size_t i, j;

	if (p->dom && p->dom->ctx)
		pl_progress_ctx_poll(p->dom->ctx);
	for (i = 0; i < p->nmem; i++) {
		ctx = p->mem[i].w->ctx;
		if (!ctx || (p->dom && ctx == p->dom->ctx))
			continue;
		for (j = 0; j < i && p->mem[j].w->ctx != ctx; j++)
			;
		if (j == i)
			pl_progress_ctx_poll(ctx);
	}
}

static bool pl_poll_member_ready(struct pl_poll_member *m)
{
	uint64_t v, e;

	if (m->fid->fclass != FI_CLASS_CNTR)
		return m->w->ready(m->w);
	if (pl_cntr_values((struct fid_cntr *)m->fid, &v, &e))
		return false;
	if (v == m->value && e == m->err)
		return false;
	m->value = v;
	m->err = e;
	return true;
}

static int pl_poll_poll(struct fid_poll *ps, void **context, int count)
{
	struct pl_poll *p = PL_POLL(ps);
	size_t i;
	int n = 0;

	if (count < 0 || (count && !context))
		return -FI_EINVAL;
	pthread_mutex_lock(&p->lock);
	pl_poll_progress(p);
	for (i = 0; i < p->nmem && n < count; i++)
		if (pl_poll_member_ready(&p->mem[i]))
			context[n++] = p->mem[i].fid->context;
	pthread_mutex_unlock(&p->lock);
	return n;
}

static int pl_poll_close(struct fid *fid)
{
	struct pl_poll *p = (struct pl_poll *)fid;
	size_t n;

	pthread_mutex_lock(&p->lock);
	n = p->nmem;
	pthread_mutex_unlock(&p->lock);
	if (n)
		return -FI_EBUSY;
	if (p->dom)
		pl_domain_child_put(p->dom);
	pthread_mutex_destroy(&p->lock);
	free(p->mem);
	free(p);
	return 0;
}

static struct fi_ops pl_poll_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_poll_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_poll pl_poll_ops = {
	.size = sizeof(struct fi_ops_poll),
	.poll = pl_poll_poll,
	.poll_add = pl_poll_add,
	.poll_del = pl_poll_del,
};

int pl_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		 struct fid_poll **pollset_p)
{
	struct pl_poll *p;

	if (!pollset_p || (attr && attr->flags))
		return -FI_EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	p->dom = pl_domain_of(domain);
	if (p->dom)
		pl_domain_child_get(p->dom);
	p->poll.fid.fclass = FI_CLASS_POLL;
	p->poll.fid.ops = &pl_poll_fid_ops;
	p->poll.ops = &pl_poll_ops;
	*pollset_p = &p->poll;
	return 0;
}
