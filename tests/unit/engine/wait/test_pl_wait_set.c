/* SPDX-License-Identifier: BSD-2-Clause */
/* Wait sets (fi_poll(3)): open/close rules, members, fi_wait, fi_trywait
 * on the set, FI_GETWAIT native objects, manual progress while waiting,
 * bad input. One scenario per test. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_wait_set.h"
#include "pl_waitable.h"
#include "pl_cntr.h"
#include "pl_eq.h"
#include "pl_trywait.h"
#include "pl_domain.h"
#include "pl_progress.h"

static struct fid_wait *open_set(enum fi_wait_obj kind)
{
	struct fi_wait_attr attr = { .wait_obj = kind };
	struct fid_wait *ws = NULL;

	assert_int_equal(pl_wait_open(NULL, &attr, &ws), 0);
	assert_non_null(ws);
	return ws;
}

static struct fid_cntr *open_cntr_on(struct fid_domain *d,
				     struct fid_wait *ws)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_SET,
				     .wait_set = ws };
	struct fid_cntr *c = NULL;

	assert_int_equal(pl_cntr_open(d, &attr, &c, NULL), 0);
	return c;
}

static struct fid_eq *open_eq_on(struct fid_wait *ws)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_SET, .wait_set = ws };
	struct fid_eq *eq = NULL;

	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	return eq;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_open_bad_input(void **s)
{
	struct fi_wait_attr attr = { .wait_obj = FI_WAIT_FD };
	struct fid_wait *ws = NULL;

	(void)s;
	assert_int_equal(pl_wait_open(NULL, &attr, NULL), -FI_EINVAL);
	attr.flags = 1;
	assert_int_equal(pl_wait_open(NULL, &attr, &ws), -FI_EINVAL);
	attr.flags = 0;
	attr.wait_obj = FI_WAIT_NONE;
	assert_int_equal(pl_wait_open(NULL, &attr, &ws), -FI_EINVAL);
	attr.wait_obj = FI_WAIT_SET;
	assert_int_equal(pl_wait_open(NULL, &attr, &ws), -FI_EINVAL);
	attr.wait_obj = (enum fi_wait_obj)77;
	assert_int_equal(pl_wait_open(NULL, &attr, &ws), -FI_EINVAL);
	assert_null(ws);
}

static void test_kinds_and_getwaitobj(void **s)
{
	static const enum fi_wait_obj in[] = { FI_WAIT_UNSPEC, FI_WAIT_FD,
		FI_WAIT_POLLFD, FI_WAIT_MUTEX_COND, FI_WAIT_YIELD };
	static const enum fi_wait_obj out[] = { FI_WAIT_FD, FI_WAIT_FD,
		FI_WAIT_POLLFD, FI_WAIT_MUTEX_COND, FI_WAIT_YIELD };
	enum fi_wait_obj k;
	struct fid_wait *ws;

	(void)s;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		ws = open_set(in[i]);
		assert_int_equal(fi_control(&ws->fid, FI_GETWAITOBJ, &k), 0);
		assert_int_equal(k, out[i]);
		assert_int_equal(fi_close(&ws->fid), 0);
	}
	ws = open_set(FI_WAIT_FD);
	/* a NULL attr means FI_WAIT_UNSPEC */
	assert_int_equal(fi_close(&ws->fid), 0);
	assert_int_equal(pl_wait_open(NULL, NULL, &ws), 0);
	assert_int_equal(fi_control(&ws->fid, FI_GETWAITOBJ, &k), 0);
	assert_int_equal(k, FI_WAIT_FD);
	assert_int_equal(fi_close(&ws->fid), 0);
}

/* every kind times out with -FI_ETIMEDOUT after at least the timeout */
static void test_wait_timeout_each_kind(void **s)
{
	static const enum fi_wait_obj kinds[] = { FI_WAIT_FD, FI_WAIT_POLLFD,
		FI_WAIT_MUTEX_COND, FI_WAIT_YIELD };
	struct fid_wait *ws;
	int64_t t0;

	(void)s;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		ws = open_set(kinds[i]);
		t0 = now_ms();
		assert_int_equal(fi_wait(ws, 30), -FI_ETIMEDOUT);
		assert_true(now_ms() - t0 >= 30);
		assert_int_equal(fi_wait(ws, 0), -FI_ETIMEDOUT);
		assert_int_equal(fi_close(&ws->fid), 0);
	}
}

static void test_close_busy_with_members(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_FD);
	struct fid_cntr *c = open_cntr_on(NULL, ws);
	struct fid_eq *eq = open_eq_on(ws);

	(void)s;
	assert_int_equal(fi_close(&ws->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&c->fid), 0);
	assert_int_equal(fi_close(&ws->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&eq->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
}

static void test_member_bad_set(void **s)
{
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_SET };
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_SET };
	struct fid_wait fake = { .fid = { .fclass = FI_CLASS_WAIT } };
	struct fid_cntr *c = NULL;
	struct fid_eq *eq = NULL;

	(void)s;
	/* FI_WAIT_SET without a set, and with a set that is not ours */
	assert_int_equal(pl_cntr_open(NULL, &ca, &c, NULL), -FI_EINVAL);
	ca.wait_set = &fake;
	assert_int_equal(pl_cntr_open(NULL, &ca, &c, NULL), -FI_EINVAL);
	assert_int_equal(pl_eq_open(NULL, &ea, &eq, NULL), -FI_EINVAL);
	ea.wait_set = &fake;
	assert_int_equal(pl_eq_open(NULL, &ea, &eq, NULL), -FI_EINVAL);
	assert_null(c);
	assert_null(eq);
}

/* fi_cntr(3) / fi_eq(3): blocking on a FI_WAIT_SET member is invalid */
static void test_member_blocking_calls_invalid(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_FD);
	struct fid_cntr *c = open_cntr_on(NULL, ws);
	struct fid_eq *eq = open_eq_on(ws);
	struct fi_eq_entry ent;
	uint32_t ev;

	(void)s;
	assert_int_equal(fi_cntr_wait(c, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_eq_sread(eq, &ev, &ent, sizeof(ent), 0, 0),
			 -FI_EINVAL);
	assert_int_equal(fi_close(&c->fid), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
}

/* a counter update before fi_wait is not lost; once consumed, it is
 * not reported again (no spinning on a stale signal) */
static void test_counter_signal_pending_then_consumed(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_MUTEX_COND);
	struct fid_cntr *c = open_cntr_on(NULL, ws);

	(void)s;
	assert_int_equal(fi_cntr_add(c, 1), 0);
	assert_int_equal(fi_wait(ws, 1000), 0);
	assert_int_equal(fi_cntr_read(c), 1);
	assert_int_equal(fi_wait(ws, 10), -FI_ETIMEDOUT);
	assert_int_equal(fi_close(&c->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
}

/* a non-empty EQ member keeps fi_wait returning (level) until read */
static void test_eq_member_level(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_FD);
	struct fid_eq *eq = open_eq_on(ws);
	struct fi_eq_entry ent = { .data = 5 }, out;
	uint32_t ev;

	(void)s;
	assert_int_equal(pl_eq_write_event(eq, FI_MR_COMPLETE, &ent,
					   sizeof(ent), 0), sizeof(ent));
	assert_int_equal(fi_wait(ws, 1000), 0);	/* the signal */
	assert_int_equal(fi_wait(ws, 1000), 0);	/* still not empty */
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0),
			 sizeof(out));
	assert_int_equal(ev, FI_MR_COMPLETE);
	assert_int_equal(out.data, 5);
	assert_int_equal(fi_wait(ws, 10), -FI_ETIMEDOUT);
	assert_int_equal(fi_close(&eq->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
}

/* FI_GETWAIT on an FD set is an epoll fd; fi_trywait on the set: 0 only
 * when nothing is pending; an update after trywait makes the fd ready */
static void test_fd_getwait_trywait(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_FD);
	struct fid_cntr *c = open_cntr_on(NULL, ws);
	struct fid *fids[1] = { &ws->fid };
	struct pollfd p = { .events = POLLIN };

	(void)s;
	assert_int_equal(fi_control(&ws->fid, FI_GETWAIT, &p.fd), 0);
	assert_true(p.fd >= 0);
	assert_int_equal(pl_trywait(NULL, fids, 1), 0);
	assert_int_equal(poll(&p, 1, 0), 0);
	assert_int_equal(fi_cntr_add(c, 2), 0);
	assert_int_equal(poll(&p, 1, 1000), 1);
	/* pending signal: -FI_EAGAIN, consumed; the counter, unread, is
	 * still "changed" (level) */
	assert_int_equal(pl_trywait(NULL, fids, 1), -FI_EAGAIN);
	assert_int_equal(pl_trywait(NULL, fids, 1), -FI_EAGAIN);
	assert_int_equal(fi_cntr_read(c), 2);
	assert_int_equal(pl_trywait(NULL, fids, 1), 0);
	assert_int_equal(poll(&p, 1, 0), 0);	/* stale signal drained */
	assert_int_equal(fi_close(&c->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
}

static void test_pollfd_getwait(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_POLLFD);
	struct pollfd pfd[4];
	struct fi_wait_pollfd wp = { .nfds = 0, .fd = pfd };

	(void)s;
	assert_int_equal(fi_control(&ws->fid, FI_GETWAIT, &wp), -FI_ETOOSMALL);
	assert_int_equal(wp.nfds, 1);
	wp.nfds = 4;
	assert_int_equal(fi_control(&ws->fid, FI_GETWAIT, &wp), 0);
	assert_int_equal(wp.nfds, 1);
	assert_true(pfd[0].fd >= 0);
	assert_int_equal(pfd[0].events, POLLIN);
	assert_int_equal(fi_close(&ws->fid), 0);
}

static void test_mutex_cond_getwait(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_MUTEX_COND);
	struct fi_mutex_cond mc = { 0 };
	int fd;

	(void)s;
	assert_int_equal(fi_control(&ws->fid, FI_GETWAIT, &mc), 0);
	assert_non_null(mc.mutex);
	assert_non_null(mc.cond);
	assert_int_equal(fi_control(&ws->fid, FI_GETWAIT, NULL), -FI_EINVAL);
	assert_int_equal(fi_close(&ws->fid), 0);
	ws = open_set(FI_WAIT_YIELD);
	assert_int_equal(fi_control(&ws->fid, FI_GETWAIT, &fd), -FI_ENOSYS);
	assert_int_equal(fi_close(&ws->fid), 0);
}

/* fi_poll(3): every fid in one fi_trywait uses the same kind of wait
 * object; a wait set counts as its own kind */
static void test_trywait_mismatched_kinds(void **s)
{
	struct fid_wait *ws = open_set(FI_WAIT_FD);
	struct fi_eq_attr mc_attr = { .wait_obj = FI_WAIT_MUTEX_COND };
	struct fi_eq_attr fd_attr = { .wait_obj = FI_WAIT_FD };
	struct fid_eq *mc, *fd;
	struct fid *fids[2];

	(void)s;
	assert_int_equal(pl_eq_open(NULL, &mc_attr, &mc, NULL), 0);
	assert_int_equal(pl_eq_open(NULL, &fd_attr, &fd, NULL), 0);
	fids[0] = &fd->fid;
	fids[1] = &mc->fid;
	assert_int_equal(pl_trywait(NULL, fids, 2), -FI_EINVAL);
	fids[1] = &ws->fid;	/* FD and an FD set: same kind */
	assert_int_equal(pl_trywait(NULL, fids, 2), 0);
	assert_int_equal(fi_close(&mc->fid), 0);
	assert_int_equal(fi_close(&fd->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
}

/* ---- manual progress: fi_wait drives the members' domain ---- */

struct src_state {
	struct pl_progress_source src;
	struct fid_cntr *cntr;
	int polls_left;		/* produce on the Nth poll */
};

static int src_poll(struct pl_progress_source *src, unsigned budget)
{
	struct src_state *st = (struct src_state *)src;

	(void)budget;
	if (st->polls_left > 0 && --st->polls_left == 0) {
		pl_cntr_inc(st->cntr);
		return 1;
	}
	return 0;
}

static void test_manual_progress_while_waiting(void **s)
{
	struct fi_domain_attr da = { .data_progress = FI_PROGRESS_MANUAL,
				     .threading = FI_THREAD_SAFE,
				     .mr_mode = FI_MR_LOCAL };
	struct fi_info info = { .domain_attr = &da };
	struct pl_domain *dom = calloc(1, sizeof(*dom));
	struct src_state st = { .src = { .poll = src_poll, .fd = -1 } };
	struct fid_wait *ws = open_set(FI_WAIT_FD);
	struct fid_domain *d;

	(void)s;
	assert_non_null(dom);
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	d = &dom->domain_fid;
	assert_non_null(pl_domain_progress(d));
	st.cntr = open_cntr_on(d, ws);
	/* a counter is a child of its domain */
	assert_int_equal(pl_domain_fini(dom), -FI_EBUSY);
	/* the source produces only when polled a few times: nothing but
	 * fi_wait's own progress can make it happen */
	st.polls_left = 3;
	assert_int_equal(pl_progress_source_add(dom->ctx, &st.src), 0);
	assert_int_equal(fi_wait(ws, 10000), 0);
	assert_int_equal(fi_cntr_read(st.cntr), 1);
	assert_int_equal(pl_progress_source_remove(dom->ctx, &st.src), 0);
	assert_int_equal(fi_close(&st.cntr->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
	assert_int_equal(pl_domain_fini(dom), 0);
	free(dom);
}

/* A FI_WAIT_FD counter on a manual-progress domain: the fd FI_GETWAIT
 * hands out also wakes for data that still needs progress (a source's
 * fd), so a thread that blocks on it after fi_trywait is not stranded */
static void test_fd_object_covers_progress_sources(void **s)
{
	struct fi_domain_attr da = { .data_progress = FI_PROGRESS_MANUAL,
				     .threading = FI_THREAD_SAFE,
				     .mr_mode = FI_MR_LOCAL };
	struct fi_info info = { .domain_attr = &da };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_FD };
	struct pl_domain *dom = calloc(1, sizeof(*dom));
	struct src_state st = { .src = { .poll = src_poll } };
	struct pollfd p = { .events = POLLIN };
	struct fid *fids[1];
	struct fid_cntr *c;
	uint64_t one = 1;

	(void)s;
	assert_non_null(dom);
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	st.src.fd = eventfd(0, EFD_NONBLOCK);
	assert_true(st.src.fd >= 0);
	assert_int_equal(pl_progress_source_add(dom->ctx, &st.src), 0);
	assert_int_equal(pl_cntr_open(&dom->domain_fid, &ca, &c, NULL), 0);
	st.cntr = c;
	fids[0] = &c->fid;
	assert_int_equal(fi_control(&c->fid, FI_GETWAIT, &p.fd), 0);
	assert_int_equal(pl_trywait(NULL, fids, 1), 0);
	assert_int_equal(poll(&p, 1, 0), 0);
	/* data arrives for the source: nothing has reached the counter */
	assert_int_equal(write(st.src.fd, &one, sizeof(one)), sizeof(one));
	assert_int_equal(poll(&p, 1, 1000), 1);
	assert_int_equal(pl_progress_source_remove(dom->ctx, &st.src), 0);
	assert_int_equal(fi_close(&c->fid), 0);
	close(st.src.fd);
	assert_int_equal(pl_domain_fini(dom), 0);
	free(dom);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_bad_input),
		cmocka_unit_test(test_kinds_and_getwaitobj),
		cmocka_unit_test(test_wait_timeout_each_kind),
		cmocka_unit_test(test_close_busy_with_members),
		cmocka_unit_test(test_member_bad_set),
		cmocka_unit_test(test_member_blocking_calls_invalid),
		cmocka_unit_test(test_counter_signal_pending_then_consumed),
		cmocka_unit_test(test_eq_member_level),
		cmocka_unit_test(test_fd_getwait_trywait),
		cmocka_unit_test(test_pollfd_getwait),
		cmocka_unit_test(test_mutex_cond_getwait),
		cmocka_unit_test(test_trywait_mismatched_kinds),
		cmocka_unit_test(test_manual_progress_while_waiting),
		cmocka_unit_test(test_fd_object_covers_progress_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
