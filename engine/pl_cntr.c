/* SPDX-License-Identifier: BSD-2-Clause */
#include "pl_cntr.h"
#include "pl_waitable.h"
#include "pl_atomic.h"
#include "pl_fid_nosys.h"

#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

/*
 * Fields: value/err: any thread, atomics (release on update, pairs with
 * the acquire in read/ready); thresh: the lowest threshold a waiter asked
 * for (relaxed CAS-min; only steers ready(), each waiter re-checks its
 * own threshold); refs: acq_rel, pairs with the acquire load in close.
 */
struct pl_cntr {
	struct fid_cntr cntr;
	struct pl_waitable w;
	_Atomic uint64_t value;
	_Atomic uint64_t err;
	_Atomic uint64_t err_seen;
	_Atomic uint64_t thresh;
	_Atomic int refs;
};

#define PL_CNTR(c) ((struct pl_cntr *)(c))

static bool pl_cntr_ready(struct pl_waitable *w)
{
	struct pl_cntr *c = (struct pl_cntr *)((char *)w -
					       offsetof(struct pl_cntr, w));

	/* acquire: pairs with the release updates in inc/add/set */
	return pl_load_acquire(&c->value) >= pl_load_relaxed(&c->thresh) ||
	       pl_load_acquire(&c->err) != pl_load_relaxed(&c->err_seen);
}

static uint64_t pl_cntr_read(struct fid_cntr *c)
{
	return pl_load_acquire(&PL_CNTR(c)->value);
}

static uint64_t pl_cntr_readerr(struct fid_cntr *c)
{
	uint64_t e = pl_load_acquire(&PL_CNTR(c)->err);

	/* reading the error count acknowledges it for cntr_wait */
	pl_store_relaxed(&PL_CNTR(c)->err_seen, e);
	return e;
}

static int pl_cntr_add(struct fid_cntr *c, uint64_t v)
{
	/* release: pairs with the acquire in pl_cntr_ready / read */
	atomic_fetch_add_explicit(&PL_CNTR(c)->value, v, memory_order_release);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static int pl_cntr_set(struct fid_cntr *c, uint64_t v)
{
	pl_store_release(&PL_CNTR(c)->value, v);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static int pl_cntr_adderr(struct fid_cntr *c, uint64_t v)
{
	atomic_fetch_add_explicit(&PL_CNTR(c)->err, v, memory_order_release);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static int pl_cntr_seterr(struct fid_cntr *c, uint64_t v)
{
	pl_store_release(&PL_CNTR(c)->err, v);
	pl_waitable_signal(&PL_CNTR(c)->w);
	return 0;
}

static int64_t pl_cntr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int pl_cntr_wait(struct fid_cntr *fc, uint64_t threshold, int timeout)
{
	struct pl_cntr *c = PL_CNTR(fc);
	uint64_t cur = pl_load_relaxed(&c->thresh);
	int64_t deadline = pl_cntr_now_ms() + timeout;
	int ret;

	if (pl_waitable_kind(&c->w) == FI_WAIT_NONE)
		return -FI_EINVAL;
	while (threshold < cur &&
	       !pl_cas_weak_relaxed(&c->thresh, &cur, threshold))
		;
	for (;;) {
		if (pl_load_acquire(&c->err) != pl_load_relaxed(&c->err_seen))
			{ ret = -FI_EAVAIL; break; }
		if (pl_load_acquire(&c->value) >= threshold)
			{ ret = 0; break; }
		ret = pl_waitable_wait(&c->w, timeout);
		if (ret)
			break;
		/* ready() may be true for another waiter's threshold:
		 * re-check our own (a known gap: may re-wait full timeout) */
		if (pl_load_acquire(&c->value) < threshold &&
		    pl_load_acquire(&c->err) == pl_load_relaxed(&c->err_seen)) {
			if (timeout >= 0 && pl_cntr_now_ms() >= deadline)
				{ ret = -FI_EAGAIN; break; }
			if (timeout >= 0)
				timeout = deadline > pl_cntr_now_ms() ?
					(int)(deadline - pl_cntr_now_ms()) : 0;
			sched_yield();
		}
	}
	cur = threshold;
	pl_cas_acq_rel(&c->thresh, &cur, UINT64_MAX);
	return ret;
}

static int pl_cntr_close(struct fid *fid)
{
	struct pl_cntr *c = (struct pl_cntr *)fid;

	/* acquire: pairs with the acq_rel decrement in pl_cntr_unref */
	if (pl_load_acquire(&c->refs) > 0)
		return -FI_EBUSY;
	pl_waitable_fini(&c->w);
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

	if (!cntr_p)
		return -FI_EINVAL;
	if (attr && attr->events != FI_CNTR_EVENTS_COMP)
		return -FI_ENOSYS;
	if (kind == FI_WAIT_SET)
		ws = attr->wait_set;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	/* progress context: taken from the domain once pl_domain wires it */
	ret = pl_waitable_init(&c->w, kind, ws, NULL, pl_cntr_ready);
	if (ret)
		goto err_free;
	(void)d;
	atomic_init(&c->thresh, UINT64_MAX);
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
	pl_fetch_add_acq_rel(&PL_CNTR(c)->refs, 1);
}

void pl_cntr_unref(struct fid_cntr *c)
{
	pl_fetch_sub_acq_rel(&PL_CNTR(c)->refs, 1);
}

struct pl_waitable *pl_cntr_waitable(struct fid_cntr *c)
{
	return c->fid.ops == &pl_cntr_fid_ops ? &PL_CNTR(c)->w : NULL;
}
