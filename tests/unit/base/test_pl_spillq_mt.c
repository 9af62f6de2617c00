/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_spillq under concurrency (suites unit and concurrency): a ring of 2
 * slots, so most entries go through the overflow and the queue keeps
 * switching between ring and spill mode. Producers never see -FI_EAGAIN;
 * every entry arrives exactly once, untorn, and each consumer sees each
 * producer's entries in order (the guarantee of pl_spillq.h).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_bufpool.h"
#include "pl_spillq.h"
#include "pl_test_stress.h"

#define PL_TEST_WATCHDOG_S 500

static pl_atomic_u64 pl_test_max_spilled;
/* Times a producer saw the overflow go from empty to non-empty. */
static pl_atomic_u64 pl_test_spill_entries;
static __thread bool pl_test_was_spilled;

static int pl_t_enq(void *q, const void *e)
{
	return pl_spillq_enqueue_mpmc(q, e);
}

static ssize_t pl_t_deq_mpmc(void *q, void *out, size_t n)
{
	int ret = pl_spillq_dequeue_mpmc(q, out);

	return ret ? ret : 1;
}

static ssize_t pl_t_burst_mpmc(void *q, void *out, size_t n)
{
	return pl_spillq_dequeue_burst_mpmc(q, out, n);
}

static ssize_t pl_t_deq_mpsc(void *q, void *out, size_t n)
{
	int ret = pl_spillq_dequeue_mpsc(q, out);

	return ret ? ret : 1;
}

static ssize_t pl_t_burst_mpsc(void *q, void *out, size_t n)
{
	return pl_spillq_dequeue_burst_mpsc(q, out, n);
}

/* Producers sample how deep the overflow gets, to show it was used. */
static void pl_t_sample(void *q, uint64_t seq)
{
	uint64_t n = pl_spillq_spilled_approx(q), cur;

	if (n && !pl_test_was_spilled)
		/* relaxed: a statistic read after the joins */
		pl_fetch_add_relaxed(&pl_test_spill_entries, 1);
	pl_test_was_spilled = n != 0;
	if (seq & 255)
		return;
	/* relaxed: a statistic read after the joins */
	cur = pl_load_relaxed(&pl_test_max_spilled);
	while (n > cur &&
	       !pl_cas_weak_relaxed(&pl_test_max_spilled, &cur, n))
		;
}

/* Producers that wait while the overflow is deep keep it shallow, so the
 * queue keeps entering and leaving spill mode (the transitions are where
 * the ordering rules matter). */
static void pl_t_pace(void *q, uint64_t seq)
{
	pl_t_sample(q, seq);
	while (pl_spillq_spilled_approx(q) > 4)
		sched_yield();
}

static void pl_test_spillq_run(struct pl_stress_cfg *cfg, size_t capacity)
{
	struct pl_spillq *q = aligned_alloc(PL_CACHELINE, sizeof(*q));
	struct pl_stress_result res;
	struct pl_bufpool_stats st;

	assert_non_null(q);
	assert_int_equal(pl_spillq_init(q, sizeof(struct pl_test_item),
					capacity, 0), 0);
	atomic_init(&pl_test_max_spilled, 0);
	atomic_init(&pl_test_spill_entries, 0);
	cfg->q = q;
	cfg->items = pl_stress_items();
	if (!cfg->after_enqueue)
		cfg->after_enqueue = pl_t_sample;
	pl_stress_watchdog(cfg->name, PL_TEST_WATCHDOG_S);
	assert_int_equal(pl_stress_run(cfg, &res), 0);
	pl_stress_watchdog_off();

	assert_int_equal(res.corrupt, 0);
	assert_int_equal(res.duplicates, 0);
	assert_int_equal(res.missing, 0);
	assert_int_equal(res.out_of_order, 0);
	assert_int_equal(res.enqueue_errors, 0);
	/* the overflow absorbs what the ring cannot take */
	assert_int_equal(res.enqueue_full, 0);
	assert_int_equal(res.received, cfg->items);
	assert_true(pl_spillq_empty_approx(q));
	/* the overflow was really used: nodes were allocated */
	pl_bufpool_get_stats(q->pool, &st);
	assert_true(st.objs > 0);
	assert_true(pl_load_relaxed(&pl_test_spill_entries) > 0);
	print_message("%s: overflow up to %llu entries, %zu nodes, "
		      "spill mode seen entered %llu times\n", cfg->name,
		      (unsigned long long)pl_load_relaxed(&pl_test_max_spilled),
		      st.objs,
		      (unsigned long long)pl_load_relaxed(
			      &pl_test_spill_entries));
	pl_spillq_fini(q);
	free(q);
}

static void test_mpmc_tiny_ring_4_producers_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "spillq mpmc 4x2 ring 2",
		.enqueue = pl_t_enq, .dequeue = pl_t_deq_mpmc,
		.producers = 4, .consumers = 2, .burst = 1,
	};

	pl_test_spillq_run(&cfg, 2);
}

static void test_mpmc_burst_tiny_ring_4_producers_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "spillq mpmc burst 4x2 ring 2",
		.enqueue = pl_t_enq, .dequeue = pl_t_burst_mpmc,
		.producers = 4, .consumers = 2, .burst = 16,
	};

	pl_test_spillq_run(&cfg, 2);
}

static void test_mpsc_tiny_ring_4_producers_1_consumer(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "spillq mpsc 4x1 ring 2",
		.enqueue = pl_t_enq, .dequeue = pl_t_deq_mpsc,
		.producers = 4, .consumers = 1, .burst = 1,
	};

	pl_test_spillq_run(&cfg, 2);
}

static void test_mpsc_burst_tiny_ring_4_producers_1_consumer(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "spillq mpsc burst 4x1 ring 2",
		.enqueue = pl_t_enq, .dequeue = pl_t_burst_mpsc,
		.producers = 4, .consumers = 1, .burst = 16,
	};

	pl_test_spillq_run(&cfg, 2);
}

static void test_mpmc_paced_tiny_ring_4_producers_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "spillq mpmc paced 4x2 ring 2",
		.enqueue = pl_t_enq, .dequeue = pl_t_deq_mpmc,
		.producers = 4, .consumers = 2, .burst = 1,
		.after_enqueue = pl_t_pace,
	};

	pl_test_spillq_run(&cfg, 2);
}

static void test_mpmc_paced_burst_4_producers_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "spillq mpmc paced burst 4x2 ring 4",
		.enqueue = pl_t_enq, .dequeue = pl_t_burst_mpmc,
		.producers = 4, .consumers = 2, .burst = 3,
		.after_enqueue = pl_t_pace,
	};

	pl_test_spillq_run(&cfg, 4);
}

static void test_mpsc_paced_tiny_ring_4_producers_1_consumer(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "spillq mpsc paced 4x1 ring 2",
		.enqueue = pl_t_enq, .dequeue = pl_t_burst_mpsc,
		.producers = 4, .consumers = 1, .burst = 3,
		.after_enqueue = pl_t_pace,
	};

	pl_test_spillq_run(&cfg, 2);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpmc_tiny_ring_4_producers_2_consumers),
		cmocka_unit_test(
			test_mpmc_burst_tiny_ring_4_producers_2_consumers),
		cmocka_unit_test(test_mpsc_tiny_ring_4_producers_1_consumer),
		cmocka_unit_test(
			test_mpsc_burst_tiny_ring_4_producers_1_consumer),
		cmocka_unit_test(
			test_mpmc_paced_tiny_ring_4_producers_2_consumers),
		cmocka_unit_test(
			test_mpmc_paced_burst_4_producers_2_consumers),
		cmocka_unit_test(
			test_mpsc_paced_tiny_ring_4_producers_1_consumer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
