/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A thread blocked in fi_cntr_wait, fi_eq_sread or fi_wait wakes for each
 * kind of event, for each kind of wait object, and times out with the
 * documented code (fi_cntr(3): -FI_ETIMEDOUT; fi_eq(3): -FI_EAGAIN; a
 * wait set: -FI_ETIMEDOUT) after at least the timeout.
 *
 * The waiter is given a long timeout (WATCHDOG_MS): a lost wake-up shows
 * as the timeout code, so the test fails instead of hanging. The main
 * thread fires the event once the waiter announced itself and a short
 * pause passed, so the waiter is usually asleep by then; if not, the
 * event is already there when it looks, which must work too. There is
 * no upper bound on any duration.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_wait_set.h"
#include "pl_cntr.h"
#include "pl_eq.h"
#include "pl_domain.h"
#include <stdlib.h>

/* Weak references: the test links without the CQ object, and tests
 * it when present. */
extern int pl_cq_open(struct fid_domain *d, struct fi_cq_attr *attr,
		      struct fid_cq **cq_p, void *context)
	__attribute__((weak));
extern int pl_cq_write(struct fid_cq *cq, void *op_context, uint64_t flags,
		       size_t len, void *buf, uint64_t data, uint64_t tag,
		       fi_addr_t src_addr) __attribute__((weak));
extern int pl_cq_write_err(struct fid_cq *cq,
			   const struct fi_cq_err_entry *err,
			   fi_addr_t src_addr) __attribute__((weak));

#define WATCHDOG_MS 20000
#define TIMEOUT_MS 50

static const enum fi_wait_obj obj_kinds[] = { FI_WAIT_UNSPEC, FI_WAIT_FD,
	FI_WAIT_MUTEX_COND, FI_WAIT_YIELD };
static const enum fi_wait_obj set_kinds[] = { FI_WAIT_FD, FI_WAIT_POLLFD,
	FI_WAIT_MUTEX_COND, FI_WAIT_YIELD };
#define NKINDS(a) (sizeof(a) / sizeof((a)[0]))

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the blocked thread ---- */

enum op { OP_CNTR_WAIT, OP_EQ_SREAD, OP_WAIT_SET };

struct waiter {
	pthread_t th;
	enum op op;
	int timeout;
	uint64_t threshold;
	struct fid_cntr *cntr;
	struct fid_eq *eq;
	struct fid_wait *ws;
	atomic_int started;
	/* results, read after join */
	ssize_t ret;
	uint32_t event;
	char buf[256];
	int64_t elapsed_ms;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	int64_t t0;

	atomic_store(&w->started, 1);
	t0 = now_ms();
	switch (w->op) {
	case OP_CNTR_WAIT:
		w->ret = fi_cntr_wait(w->cntr, w->threshold, w->timeout);
		break;
	case OP_EQ_SREAD:
		w->ret = fi_eq_sread(w->eq, &w->event, w->buf, sizeof(w->buf),
				     w->timeout, 0);
		break;
	case OP_WAIT_SET:
		w->ret = fi_wait(w->ws, w->timeout);
		break;
	}
	w->elapsed_ms = now_ms() - t0;
	return NULL;
}

static void waiter_start(struct waiter *w)
{
	atomic_init(&w->started, 0);
	assert_int_equal(pthread_create(&w->th, NULL, waiter_main, w), 0);
	while (!atomic_load(&w->started))
		sched_yield();
	usleep(20000);	/* usually asleep by now; correct either way */
}

static void waiter_join(struct waiter *w)
{
	assert_int_equal(pthread_join(w->th, NULL), 0);
}

/* ---- fi_cntr_wait ---- */

static struct fid_cntr *cntr_open(enum fi_wait_obj kind, struct fid_wait *ws)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = kind, .wait_set = ws };
	struct fid_cntr *c;

	assert_int_equal(pl_cntr_open(NULL, &attr, &c, NULL), 0);
	return c;
}

enum cntr_ev { CNTR_ADD, CNTR_SET, CNTR_ADDERR, CNTR_SETERR };

static void cntr_fire(struct fid_cntr *c, enum cntr_ev ev)
{
	switch (ev) {
	case CNTR_ADD: assert_int_equal(fi_cntr_add(c, 2), 0); break;
	case CNTR_SET: assert_int_equal(fi_cntr_set(c, 7), 0); break;
	case CNTR_ADDERR: assert_int_equal(fi_cntr_adderr(c, 1), 0); break;
	case CNTR_SETERR: assert_int_equal(fi_cntr_seterr(c, 3), 0); break;
	}
}

static void test_cntr_wait_wakes(void **s)
{
	static const struct { enum cntr_ev ev; uint64_t thr; int ret; } cases[] = {
		{ CNTR_ADD, 2, 0 },		/* reaches the threshold */
		{ CNTR_SET, 7, 0 },
		{ CNTR_ADDERR, 100, -FI_EAVAIL },	/* any error change */
		{ CNTR_SETERR, 100, -FI_EAVAIL },
	};
	struct waiter w;

	(void)s;
	for (size_t k = 0; k < NKINDS(obj_kinds); k++) {
		for (size_t i = 0; i < NKINDS(cases); i++) {
			memset(&w, 0, sizeof(w));
			w.op = OP_CNTR_WAIT;
			w.cntr = cntr_open(obj_kinds[k], NULL);
			w.threshold = cases[i].thr;
			w.timeout = WATCHDOG_MS;
			waiter_start(&w);
			cntr_fire(w.cntr, cases[i].ev);
			waiter_join(&w);
			assert_int_equal(w.ret, cases[i].ret);
			assert_int_equal(fi_close(&w.cntr->fid), 0);
		}
	}
}

static void test_cntr_wait_timeout(void **s)
{
	struct waiter w;

	(void)s;
	for (size_t k = 0; k < NKINDS(obj_kinds); k++) {
		memset(&w, 0, sizeof(w));
		w.op = OP_CNTR_WAIT;
		w.cntr = cntr_open(obj_kinds[k], NULL);
		fi_cntr_add(w.cntr, 1);		/* below the threshold */
		w.threshold = 2;
		w.timeout = TIMEOUT_MS;
		waiter_start(&w);
		waiter_join(&w);
		assert_int_equal(w.ret, -FI_ETIMEDOUT);
		assert_true(w.elapsed_ms >= TIMEOUT_MS);
		assert_int_equal(fi_cntr_read(w.cntr), 1);
		assert_int_equal(fi_close(&w.cntr->fid), 0);
	}
}

/* ---- fi_eq_sread ---- */

static struct fid_eq *eq_open(enum fi_wait_obj kind, struct fid_wait *ws)
{
	struct fi_eq_attr attr = { .wait_obj = kind, .wait_set = ws,
				   .flags = FI_WRITE };
	struct fid_eq *eq;

	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	return eq;
}

static const uint32_t eq_events[] = { FI_NOTIFY, FI_CONNREQ, FI_CONNECTED,
	FI_SHUTDOWN, FI_MR_COMPLETE, FI_AV_COMPLETE, FI_JOIN_COMPLETE };

static size_t eq_entry_size(uint32_t ev)
{
	return ev == FI_CONNREQ || ev == FI_CONNECTED || ev == FI_SHUTDOWN ?
	       sizeof(struct fi_eq_cm_entry) : sizeof(struct fi_eq_entry);
}

/* write one event of type ev (through fi_eq_write: the app's path) */
static void eq_fire(struct fid_eq *eq, uint32_t ev)
{
	union {
		struct fi_eq_entry e;
		struct fi_eq_cm_entry cm;
	} u;
	size_t len = eq_entry_size(ev);

	memset(&u, 0, sizeof(u));
	u.e.fid = &eq->fid;
	assert_int_equal(fi_eq_write(eq, ev, &u, len, 0), (ssize_t)len);
}

static void eq_fire_err(struct fid_eq *eq)
{
	char data[8] = "errdata";

	assert_int_equal(pl_eq_write_error(eq, &eq->fid, NULL, 9,
					   -FI_ECONNREFUSED, 3, data,
					   sizeof(data)), 0);
}

static void test_eq_sread_wakes_each_event(void **s)
{
	struct waiter w;

	(void)s;
	for (size_t k = 0; k < NKINDS(obj_kinds); k++) {
		for (size_t i = 0; i < NKINDS(eq_events); i++) {
			memset(&w, 0, sizeof(w));
			w.op = OP_EQ_SREAD;
			w.eq = eq_open(obj_kinds[k], NULL);
			w.timeout = WATCHDOG_MS;
			waiter_start(&w);
			eq_fire(w.eq, eq_events[i]);
			waiter_join(&w);
			assert_int_equal(w.ret, (ssize_t)eq_entry_size(eq_events[i]));
			assert_int_equal(w.event, eq_events[i]);
			assert_int_equal(fi_close(&w.eq->fid), 0);
		}
	}
}

static void test_eq_sread_wakes_error(void **s)
{
	struct fi_eq_err_entry err;
	struct waiter w;

	(void)s;
	for (size_t k = 0; k < NKINDS(obj_kinds); k++) {
		memset(&w, 0, sizeof(w));
		w.op = OP_EQ_SREAD;
		w.eq = eq_open(obj_kinds[k], NULL);
		w.timeout = WATCHDOG_MS;
		waiter_start(&w);
		eq_fire_err(w.eq);
		waiter_join(&w);
		assert_int_equal(w.ret, -FI_EAVAIL);
		memset(&err, 0, sizeof(err));
		assert_int_equal(fi_eq_readerr(w.eq, &err, 0), sizeof(err));
		assert_int_equal(err.err, FI_ECONNREFUSED);
		assert_int_equal(err.data, 9);
		assert_int_equal(fi_close(&w.eq->fid), 0);
	}
}

static void test_eq_sread_timeout(void **s)
{
	struct waiter w;

	(void)s;
	for (size_t k = 0; k < NKINDS(obj_kinds); k++) {
		memset(&w, 0, sizeof(w));
		w.op = OP_EQ_SREAD;
		w.eq = eq_open(obj_kinds[k], NULL);
		w.timeout = TIMEOUT_MS;
		waiter_start(&w);
		waiter_join(&w);
		assert_int_equal(w.ret, -FI_EAGAIN);
		assert_true(w.elapsed_ms >= TIMEOUT_MS);
		assert_int_equal(fi_close(&w.eq->fid), 0);
	}
}

/* ---- fi_wait on a wait set ---- */

static struct fid_wait *set_open(enum fi_wait_obj kind)
{
	struct fi_wait_attr attr = { .wait_obj = kind };
	struct fid_wait *ws;

	assert_int_equal(pl_wait_open(NULL, &attr, &ws), 0);
	return ws;
}

static void wait_set_case(enum fi_wait_obj kind, int which)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT,
				  .wait_obj = FI_WAIT_SET };
	struct fi_cq_err_entry cqerr = { .err = FI_EIO };
	struct fi_domain_attr da = { .data_progress = FI_PROGRESS_MANUAL,
				     .threading = FI_THREAD_SAFE,
				     .mr_mode = FI_MR_LOCAL };
	struct fi_info info = { .domain_attr = &da };
	struct pl_domain *dom = NULL;
	struct fid_cq *cq = NULL;
	struct waiter w;

	memset(&w, 0, sizeof(w));
	w.op = OP_WAIT_SET;
	w.ws = set_open(kind);
	w.cntr = cntr_open(FI_WAIT_SET, w.ws);
	w.eq = eq_open(FI_WAIT_SET, w.ws);
	if (which >= 6) {
		/* the CQ needs a pl_domain (manual progress: fi_wait also
		 * drives its context) */
		dom = calloc(1, sizeof(*dom));
		assert_non_null(dom);
		assert_int_equal(pl_domain_init(dom, NULL, &info,
						FI_VERSION(1, 17), 0, NULL), 0);
		cqa.wait_set = w.ws;
		assert_int_equal(pl_cq_open(&dom->domain_fid, &cqa, &cq, NULL),
				 0);
	}
	w.timeout = WATCHDOG_MS;
	waiter_start(&w);
	switch (which) {
	case 0: cntr_fire(w.cntr, CNTR_ADD); break;
	case 1: cntr_fire(w.cntr, CNTR_SET); break;
	case 2: cntr_fire(w.cntr, CNTR_ADDERR); break;
	case 3: eq_fire(w.eq, FI_CONNECTED); break;
	case 4: eq_fire(w.eq, FI_NOTIFY); break;
	case 5: eq_fire_err(w.eq); break;
	case 6:
		assert_int_equal(pl_cq_write(cq, NULL, FI_SEND, 0, NULL, 0, 0,
					     FI_ADDR_NOTAVAIL), 0);
		break;
	case 7:
		assert_int_equal(pl_cq_write_err(cq, &cqerr,
						 FI_ADDR_NOTAVAIL), 0);
		break;
	}
	waiter_join(&w);
	assert_int_equal(w.ret, 0);
	if (cq) {
		assert_int_equal(fi_close(&cq->fid), 0);
		assert_int_equal(pl_domain_fini(dom), 0);
		free(dom);
	}
	assert_int_equal(fi_close(&w.cntr->fid), 0);
	assert_int_equal(fi_close(&w.eq->fid), 0);
	assert_int_equal(fi_close(&w.ws->fid), 0);
}

static void test_wait_set_wakes_each_member(void **s)
{
	(void)s;
	for (size_t k = 0; k < NKINDS(set_kinds); k++)
		for (int which = 0; which < 6; which++)
			wait_set_case(set_kinds[k], which);
}

static void test_wait_set_wakes_cq_member(void **s)
{
	(void)s;
	if (!pl_cq_open || !pl_cq_write || !pl_cq_write_err)
		skip();
	for (size_t k = 0; k < NKINDS(set_kinds); k++)
		for (int which = 6; which < 8; which++)
			wait_set_case(set_kinds[k], which);
}

static void test_wait_set_timeout(void **s)
{
	struct waiter w;

	(void)s;
	for (size_t k = 0; k < NKINDS(set_kinds); k++) {
		memset(&w, 0, sizeof(w));
		w.op = OP_WAIT_SET;
		w.ws = set_open(set_kinds[k]);
		w.cntr = cntr_open(FI_WAIT_SET, w.ws);
		w.timeout = TIMEOUT_MS;
		waiter_start(&w);
		waiter_join(&w);
		assert_int_equal(w.ret, -FI_ETIMEDOUT);
		assert_true(w.elapsed_ms >= TIMEOUT_MS);
		assert_int_equal(fi_close(&w.cntr->fid), 0);
		assert_int_equal(fi_close(&w.ws->fid), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cntr_wait_wakes),
		cmocka_unit_test(test_cntr_wait_timeout),
		cmocka_unit_test(test_eq_sread_wakes_each_event),
		cmocka_unit_test(test_eq_sread_wakes_error),
		cmocka_unit_test(test_eq_sread_timeout),
		cmocka_unit_test(test_wait_set_wakes_each_member),
		cmocka_unit_test(test_wait_set_wakes_cq_member),
		cmocka_unit_test(test_wait_set_timeout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
