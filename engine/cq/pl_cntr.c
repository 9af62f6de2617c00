/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completion counters. The table of who touches what is in pl_cntr.h.
 *
 * "Something to wait for" (ready(), used by fi_trywait and wait sets):
 * the value or the error count differs from what the application last
 * read (fi_cntr_read / fi_cntr_readerr record what they returned). So a
 * thread that reads the counter, calls fi_trywait and blocks cannot miss
 * an update made after its read: either trywait sees the difference or
 * the update's signal writes the fd after trywait drained it.
 * fi_cntr_wait uses its own condition instead (threshold reached, or an
 * error the application has not read yet), through
 * pl_waitable_wait_until.
 */
#include "pl_cntr.h"
#include "pl_waitable.h"
#include "pl_domain.h"
#include "pl_progress.h"
#include "pl_atomic.h"
#include "pl_fid_nosys.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

struct pl_cntr {
	struct fid_cntr cntr;
	struct pl_waitable w;
	struct pl_domain *dom;		/* immutable; NULL: not a pl_domain */
	pl_atomic_u64 value;
	pl_atomic_u64 err;
	pl_atomic_u64 value_seen;	/* last value fi_cntr_read returned */
	pl_atomic_u64 err_seen;		/* last fi_cntr_readerr result */
	pl_atomic_int refs;
};

#define PL_CNTR(c) ((struct pl_cntr *)(c))

static struct pl_cntr *pl_cntr_of_waitable(struct pl_waitable *w)
{
	return (struct pl_cntr *)((char *)w - offsetof(struct pl_cntr, w));
}

static bool pl_cntr_ready(struct pl_waitable *w)
{
	struct pl_cntr *c = pl_cntr_of_waitable(w);

	/* acquire: pairs with the release updates in add/set/adderr/seterr;
	 * the *_seen fields are hints, relaxed */
	return pl_load_acquire(&c->value) != pl_load_relaxed(&c->value_seen) ||
	       pl_load_acquire(&c->err) != pl_load_relaxed(&c->err_seen);
}

/* manual progress: reads drive the domain's sources */
static void pl_cntr_progress(struct pl_cntr *c)
{
	if (c->w.ctx)
		pl_progress_ctx_poll(c->w.ctx);
}

static uint64_t pl_cntr_read(struct fid_cntr *fc)
{
	struct pl_cntr *c = PL_CNTR(fc);
	uint64_t v;

	pl_cntr_progress(c);
	/* acquire: pairs with the release in add/set */
	v = pl_load_acquire(&c->value);
	pl_store_relaxed(&c->value_seen, v);
	return v;
}

static uint64_t pl_cntr_readerr(struct fid_cntr *fc)
{
	struct pl_cntr *c = PL_CNTR(fc);
	uint64_t e;

	pl_cntr_progress(c);
	/* acquire: pairs with the release in adderr/seterr */
	e = pl_load_acquire(&c->err);
	/* reading the error count acknowledges it for fi_cntr_wait */
	pl_store_relaxed(&c->err_seen, e);
	return e;
}

static int pl_cntr_add(struct fid_cntr *c, uint64_t v)
{
	/* release: pairs with the acquire in read / ready / wait */
	atomic_fetch_add_explicit(&PL_CNTR(c)->value, v, memory_order_release);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static int pl_cntr_set(struct fid_cntr *c, uint64_t v)
{
	/* release: pairs with the acquire in read / ready / wait */
	pl_store_release(&PL_CNTR(c)->value, v);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static int pl_cntr_adderr(struct fid_cntr *c, uint64_t v)
{
	/* release: pairs with the acquire in readerr / ready / wait */
	atomic_fetch_add_explicit(&PL_CNTR(c)->err, v, memory_order_release);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static int pl_cntr_seterr(struct fid_cntr *c, uint64_t v)
{
	/* release: pairs with the acquire in readerr / ready / wait */
	pl_store_release(&PL_CNTR(c)->err, v);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static bool pl_cntr_unread_err(struct pl_cntr *c)
{
	/* acquire: pairs with the release in adderr/seterr */
	return pl_load_acquire(&c->err) != pl_load_relaxed(&c->err_seen);
}

static bool pl_cntr_wait_pred(struct pl_waitable *w, void *arg)
{
	struct pl_cntr *c = pl_cntr_of_waitable(w);

	return pl_cntr_unread_err(c) ||
	       pl_load_acquire(&c->value) >= *(const uint64_t *)arg;
}

static int64_t pl_cntr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A counter without a wait object has nothing to sleep on: the wait
 * polls (driving manual progress) and yields the CPU between polls, as
 * clients written for the reference expect of fi_cntr_wait there. */
static int pl_cntr_wait_poll(struct pl_cntr *c, uint64_t threshold,
			     int timeout)
{
	int64_t deadline = timeout < 0 ? INT64_MAX :
			   pl_cntr_now_ms() + timeout;

	for (;;) {
		pl_cntr_progress(c);
		if (pl_cntr_unread_err(c))
			return -FI_EAVAIL;
		/* acquire: pairs with the release in add/set, as in read */
		if (pl_load_acquire(&c->value) >= threshold)
			return 0;
		if (pl_cntr_now_ms() >= deadline)
			return -FI_ETIMEDOUT;
		sched_yield();
	}
}

/*
 * fi_cntr(3): 0 once value >= threshold; -FI_EAVAIL when the error count
 * changed since the application last read it (a change while waiting
 * unblocks the waiter); -FI_ETIMEDOUT; -FI_EINVAL for FI_WAIT_SET
 * counters (the set is what one waits on). FI_WAIT_NONE polls.
 */
static int pl_cntr_wait(struct fid_cntr *fc, uint64_t threshold, int timeout)
{
	struct pl_cntr *c = PL_CNTR(fc);
	enum fi_wait_obj kind = pl_waitable_kind(&c->w);
	int ret;

	if (kind == FI_WAIT_SET)
		return -FI_EINVAL;
	if (kind == FI_WAIT_NONE)
		return pl_cntr_wait_poll(c, threshold, timeout);
	ret = pl_waitable_wait_until(&c->w, timeout, pl_cntr_wait_pred,
				     &threshold);
	if (ret == -FI_EAGAIN)
		return -FI_ETIMEDOUT;
	if (ret)
		return ret;
	return pl_cntr_unread_err(c) ? -FI_EAVAIL : 0;
}

static int pl_cntr_close(struct fid *fid)
{
	struct pl_cntr *c = (struct pl_cntr *)fid;

	/* acquire: pairs with the acq_rel decrement in pl_cntr_unref */
	if (pl_load_acquire(&c->refs) > 0)
		return -FI_EBUSY;
	pl_waitable_fini(&c->w);
	if (c->dom)
		pl_domain_child_put(c->dom);
	free(c);
	return 0;
}

static int pl_cntr_control(struct fid *fid, int command, void *arg)
{
	return pl_waitable_control(&((struct pl_cntr *)fid)->w, command, arg);
}

static struct fi_ops pl_cntr_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_cntr_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_cntr_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_cntr pl_cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = pl_cntr_read,
	.readerr = pl_cntr_readerr,
	.add = pl_cntr_add,
	.set = pl_cntr_set,
	.wait = pl_cntr_wait,
	.adderr = pl_cntr_adderr,
	.seterr = pl_cntr_seterr,
};

int pl_cntr_open(struct fid_domain *d, struct fi_cntr_attr *attr,
		 struct fid_cntr **cntr_p, void *context)
{
	enum fi_wait_obj kind = attr ? attr->wait_obj : FI_WAIT_UNSPEC;
	struct fid_wait *ws = NULL;
	struct pl_cntr *c;
	int ret;

	if (!cntr_p || (attr && attr->flags))
		return -FI_EINVAL;
	if (attr && attr->events != FI_CNTR_EVENTS_COMP)
		return -FI_ENOSYS;
	if (kind == FI_WAIT_SET)
		ws = attr->wait_set;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	c->dom = pl_domain_of(d);
	/* the domain's context: reads and waits drive manual progress */
	ret = pl_waitable_init(&c->w, kind, ws,
			       c->dom ? c->dom->ctx : NULL, pl_cntr_ready);
	if (ret)
		goto err_free;
	if (c->dom)
		pl_domain_child_get(c->dom);
	c->cntr.fid.fclass = FI_CLASS_CNTR;
	c->cntr.fid.context = context;
	c->cntr.fid.ops = &pl_cntr_fid_ops;
	c->cntr.ops = &pl_cntr_ops;
	*cntr_p = &c->cntr;
	return 0;
err_free:
	free(c);
	return ret;
}

void pl_cntr_inc(struct fid_cntr *c)
{
	pl_cntr_add(c, 1);
}

void pl_cntr_inc_err(struct fid_cntr *c)
{
	pl_cntr_adderr(c, 1);
}

void pl_cntr_ref(struct fid_cntr *c)
{
	/* acq_rel: pairs with the acquire load in close */
	pl_fetch_add_acq_rel(&PL_CNTR(c)->refs, 1);
}

void pl_cntr_unref(struct fid_cntr *c)
{
	/* acq_rel: the holder's last use happens before close's acquire */
	pl_fetch_sub_acq_rel(&PL_CNTR(c)->refs, 1);
}

struct pl_waitable *pl_cntr_waitable(struct fid_cntr *c)
{
	return c && c->fid.ops == &pl_cntr_fid_ops ? &PL_CNTR(c)->w : NULL;
}

int pl_cntr_values(struct fid_cntr *c, uint64_t *value_p, uint64_t *err_p)
{
	if (!pl_cntr_waitable(c))
		return -FI_EINVAL;
	pl_cntr_progress(PL_CNTR(c));
	/* acquire: pairs with the release updates */
	*value_p = pl_load_acquire(&PL_CNTR(c)->value);
	*err_p = pl_load_acquire(&PL_CNTR(c)->err);
	return 0;
}
