/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Manual progress: pl_progress_ctx_poll drives the sources, the token
 * keeps two application threads out of one source, and sources may be
 * added and removed around and inside polls.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "pl_progress_test.h"

static struct pl_progress_ctx *open_manual(enum fi_threading threading)
{
	struct pl_progress_ctx *ctx = NULL;

	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_MANUAL, threading,
					      NULL, &ctx), 0);
	assert_non_null(ctx);
	return ctx;
}

static void test_poll_drives_every_source(void **state)
{
	struct pl_progress_ctx *ctx = open_manual(FI_THREAD_SAFE);
	struct pt_src s[3];
	int i;

	for (i = 0; i < 3; i++) {
		pt_src_init_efd(&s[i]);
		assert_int_equal(pl_progress_source_add(ctx, &s[i].src), 0);
	}
	pt_efd_produce(&s[0], 2);
	pt_efd_produce(&s[2], 5);
	assert_int_equal(pl_progress_ctx_poll(ctx), 7);
	assert_int_equal(pl_progress_ctx_poll(ctx), 0);
	for (i = 0; i < 3; i++) {
		/* One poll() per source per pass, busy or not. */
		assert_int_equal(pl_load_relaxed(&s[i].polls), 2);
		assert_int_equal(pl_progress_source_remove(ctx, &s[i].src), 0);
		pt_src_fini(&s[i]);
	}
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_token_strategy_by_threading(void **state)
{
	static const enum fi_threading with_token[] = {
		FI_THREAD_UNSPEC, FI_THREAD_SAFE, FI_THREAD_FID,
		FI_THREAD_COMPLETION, FI_THREAD_ENDPOINT,
	};
	struct pl_progress_info info;
	struct pl_progress_ctx *ctx;
	size_t i;

	ctx = open_manual(FI_THREAD_DOMAIN);
	pl_progress_ctx_info(ctx, &info);
	assert_int_equal(info.uses_token, 0);
	assert_int_equal(info.data_progress, FI_PROGRESS_MANUAL);
	assert_int_equal(info.thread_tid, 0);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);

	/* Two CQs of one domain may be read at once under COMPLETION
	 * and ENDPOINT, so only DOMAIN drops the token. */
	for (i = 0; i < sizeof(with_token) / sizeof(with_token[0]); i++) {
		ctx = open_manual(with_token[i]);
		pl_progress_ctx_info(ctx, &info);
		assert_int_equal(info.uses_token, 1);
		assert_int_equal(pl_progress_ctx_close(ctx), 0);
	}
}

static void test_serial_mode_polls(void **state)
{
	struct pl_progress_ctx *ctx = open_manual(FI_THREAD_DOMAIN);
	struct pt_src s;

	pt_src_init_kick(&s);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pt_kick_produce(ctx, &s, 3);
	assert_int_equal(pl_progress_ctx_poll(ctx), 3);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

struct poller_arg {
	struct pl_progress_ctx *ctx;
	pthread_barrier_t *start;
	unsigned rounds;
};

static void *poller(void *p)
{
	struct poller_arg *a = p;
	unsigned i;

	pthread_barrier_wait(a->start);
	for (i = 0; i < a->rounds; i++)
		(void)pl_progress_ctx_poll(a->ctx);
	return NULL;
}

static void test_token_prevents_concurrent_poll(void **state)
{
	struct pl_progress_ctx *ctx = open_manual(FI_THREAD_SAFE);
	struct poller_arg arg = { .ctx = ctx, .rounds = 20000 };
	pthread_barrier_t start;
	pthread_t t[2];
	struct pt_src s;
	int i;

	pt_src_init_kick(&s);
	s.busy = 1;
	s.linger = 200;	/* widen the window a second poller could use */
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pthread_barrier_init(&start, NULL, 2);
	arg.start = &start;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, poller, &arg), 0);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);

	assert_int_equal(pl_load_relaxed(&s.overlaps), 0);
	assert_true(pl_load_relaxed(&s.polls) > 0);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pthread_barrier_destroy(&start);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static int failing_poll(struct pl_progress_source *src, unsigned budget)
{
	return -FI_EIO;
}

static void test_poll_reports_source_error(void **state)
{
	struct pl_progress_ctx *ctx = open_manual(FI_THREAD_SAFE);
	struct pl_progress_source bad = { .poll = failing_poll, .fd = -1 };
	struct pl_progress_stats st;
	struct pt_src s;

	pt_src_init_efd(&s);
	assert_int_equal(pl_progress_source_add(ctx, &bad), 0);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	/* No work anywhere: the failure is the answer. */
	assert_int_equal(pl_progress_ctx_poll(ctx), -FI_EIO);
	/* Work elsewhere wins; the failing source is still counted. */
	pt_efd_produce(&s, 1);
	assert_int_equal(pl_progress_ctx_poll(ctx), 1);
	pl_progress_ctx_stats(ctx, &st);
	assert_int_equal(st.errors, 2);
	assert_int_equal(st.passes, 2);
	assert_int_equal(pl_progress_source_remove(ctx, &bad), 0);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

/* A source that, once, removes itself and another, and adds a third. */
struct reentrant_src {
	struct pl_progress_source src;
	struct pl_progress_ctx *ctx;
	struct pl_progress_source *victim;
	struct pl_progress_source *newcomer;
	int remove_ret, remove_victim_ret, add_ret;
	int calls;
};

static int reentrant_poll(struct pl_progress_source *src, unsigned budget)
{
	struct reentrant_src *r = (struct reentrant_src *)src;

	if (r->calls++ == 0) {
		r->remove_victim_ret = pl_progress_source_remove(r->ctx,
								 r->victim);
		r->add_ret = pl_progress_source_add(r->ctx, r->newcomer);
		r->remove_ret = pl_progress_source_remove(r->ctx, &r->src);
	}
	return 0;
}

static void reentrant_case(enum fi_threading threading)
{
	struct pl_progress_ctx *ctx = open_manual(threading);
	struct reentrant_src r = { .src = { .poll = reentrant_poll, .fd = -1 } };
	struct pt_src victim, newcomer;

	pt_src_init_kick(&victim);
	pt_src_init_kick(&newcomer);
	r.ctx = ctx;
	r.victim = &victim.src;
	r.newcomer = &newcomer.src;
	assert_int_equal(pl_progress_source_add(ctx, &r.src), 0);
	assert_int_equal(pl_progress_source_add(ctx, &victim.src), 0);

	/* Would deadlock if the token were not recognised as ours. */
	(void)pl_progress_ctx_poll(ctx);
	assert_int_equal(r.remove_victim_ret, 0);
	assert_int_equal(r.add_ret, 0);
	assert_int_equal(r.remove_ret, 0);
	pl_store_relaxed(&victim.alive, 0);

	pt_kick_produce(ctx, &newcomer, 4);
	assert_int_equal(pl_progress_ctx_poll(ctx), 4);
	assert_int_equal(r.calls, 1);
	assert_int_equal(pl_load_relaxed(&victim.violations), 0);
	assert_int_equal(pl_progress_source_remove(ctx, &r.src), -FI_ENOENT);
	assert_int_equal(pl_progress_source_remove(ctx, &newcomer.src), 0);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_add_remove_inside_poll(void **state)
{
	reentrant_case(FI_THREAD_SAFE);
	reentrant_case(FI_THREAD_DOMAIN);
}

static void test_bad_arguments(void **state)
{
	struct pl_progress_ctx *ctx = (struct pl_progress_ctx *)&ctx;
	struct pl_progress_attr attr = { .numa_node = -2 };
	struct pl_progress_source nopoll = { .fd = -1 };
	struct pt_src s;

	assert_int_equal(pl_progress_ctx_open(7, FI_THREAD_SAFE, NULL, &ctx),
			 -FI_EINVAL);
	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_MANUAL, 42, NULL,
					      &ctx), -FI_EINVAL);
	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_MANUAL,
					      FI_THREAD_SAFE, &attr, &ctx),
			 -FI_EINVAL);
	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_MANUAL,
					      FI_THREAD_SAFE, NULL, NULL),
			 -FI_EINVAL);
	/* Output untouched on failure. */
	assert_ptr_equal(ctx, (struct pl_progress_ctx *)&ctx);
	assert_int_equal(pl_progress_ctx_close(NULL), -FI_EINVAL);

	ctx = open_manual(FI_THREAD_SAFE);
	pt_src_init_kick(&s);
	assert_int_equal(pl_progress_source_add(ctx, NULL), -FI_EINVAL);
	assert_int_equal(pl_progress_source_add(NULL, &s.src), -FI_EINVAL);
	assert_int_equal(pl_progress_source_add(ctx, &nopoll), -FI_EINVAL);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), -FI_ENOENT);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), -FI_EALREADY);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), -FI_ENOENT);
	assert_int_equal(pl_progress_ctx_trywait(NULL), -FI_EINVAL);
	assert_int_equal(pl_progress_ctx_wait_fd(NULL), -FI_EINVAL);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_same_fd_twice_is_refused(void **state)
{
	struct pl_progress_ctx *ctx = open_manual(FI_THREAD_SAFE);
	struct pt_src a, b;

	pt_src_init_efd(&a);
	pt_src_init_efd(&b);
	close(b.efd);
	b.efd = -1;
	b.src.fd = a.efd;
	assert_int_equal(pl_progress_source_add(ctx, &a.src), 0);
	assert_int_equal(pl_progress_source_add(ctx, &b.src), -FI_EBUSY);
	assert_int_equal(pl_progress_source_remove(ctx, &b.src), -FI_ENOENT);
	assert_int_equal(pl_progress_source_remove(ctx, &a.src), 0);
	pt_src_fini(&a);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_trywait_and_wait_fd(void **state)
{
	struct pl_progress_ctx *ctx = open_manual(FI_THREAD_SAFE);
	struct pollfd pfd = { .events = POLLIN };
	struct pt_src s;

	pt_src_init_efd(&s);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pfd.fd = pl_progress_ctx_wait_fd(ctx);
	assert_true(pfd.fd >= 0);

	pt_efd_produce(&s, 1);
	/* Pending work: never safe to sleep. */
	assert_int_equal(pl_progress_ctx_trywait(ctx), -FI_EAGAIN);
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_int_equal(pl_progress_ctx_poll(ctx), 1);
	assert_int_equal(pl_progress_ctx_trywait(ctx), 0);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	/* Armed: new work makes the wait fd readable. */
	pt_efd_produce(&s, 1);
	assert_int_equal(poll(&pfd, 1, 1000 * (int)PT_WATCHDOG_S), 1);

	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

struct churn_arg {
	struct pl_progress_ctx *ctx;
	pl_atomic_int stop;
};

static void *churn_poller(void *p)
{
	struct churn_arg *a = p;

	/* Relaxed: the test's own stop flag, joined afterwards. */
	while (!pl_load_relaxed(&a->stop))
		(void)pl_progress_ctx_poll(a->ctx);
	return NULL;
}

static void test_remove_while_another_thread_polls(void **state)
{
	struct pl_progress_ctx *ctx = open_manual(FI_THREAD_SAFE);
	struct churn_arg arg = { .ctx = ctx };
	struct pt_src *s;
	pthread_t t;
	int round;

	assert_int_equal(pthread_create(&t, NULL, churn_poller, &arg), 0);
	for (round = 0; round < 2000; round++) {
		/* Fresh memory each round: a use after remove would show
		 * up under the sanitizers, not just in `violations`. */
		s = malloc(sizeof(*s));
		assert_non_null(s);
		if (round & 1)
			pt_src_init_efd(s);
		else
			pt_src_init_kick(s);
		s->busy = 1;
		assert_int_equal(pl_progress_source_add(ctx, &s->src), 0);
		if (round & 1)
			pt_efd_produce(s, 1);
		sched_yield();
		assert_int_equal(pl_progress_source_remove(ctx, &s->src), 0);
		pl_store_relaxed(&s->alive, 0);
		assert_int_equal(pl_load_relaxed(&s->inside), 0);
		assert_int_equal(pl_load_relaxed(&s->violations), 0);
		pt_src_fini(s);
		free(s);
	}
	pl_store_relaxed(&arg.stop, 1);
	pthread_join(t, NULL);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poll_drives_every_source),
		cmocka_unit_test(test_token_strategy_by_threading),
		cmocka_unit_test(test_serial_mode_polls),
		cmocka_unit_test(test_token_prevents_concurrent_poll),
		cmocka_unit_test(test_poll_reports_source_error),
		cmocka_unit_test(test_add_remove_inside_poll),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_same_fd_twice_is_refused),
		cmocka_unit_test(test_trywait_and_wait_fd),
		cmocka_unit_test(test_remove_while_another_thread_polls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
