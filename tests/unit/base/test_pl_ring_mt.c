/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_ring under concurrency (suites unit and concurrency; CI runs the
 * latter under ThreadSanitizer): entries of fi_cq_tagged_entry size plus a
 * flag word move from producers to consumers in each mode; every entry
 * arrives exactly once, untorn, and each consumer sees each producer's
 * entries in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_ring.h"
#include "pl_test_stress.h"

#define PL_TEST_WATCHDOG_S 500

static int pl_t_enq_mpmc(void *q, const void *e)
{
	return pl_ring_enqueue_mpmc(q, e);
}

static int pl_t_enq_spsc(void *q, const void *e)
{
	return pl_ring_enqueue_spsc(q, e);
}

static ssize_t pl_t_deq_mpmc(void *q, void *out, size_t n)
{
	int ret = pl_ring_dequeue_mpmc(q, out);

	return ret ? ret : 1;
}

static ssize_t pl_t_deq_spsc(void *q, void *out, size_t n)
{
	int ret = pl_ring_dequeue_spsc(q, out);

	return ret ? ret : 1;
}

static ssize_t pl_t_burst_mpmc(void *q, void *out, size_t n)
{
	return pl_ring_dequeue_burst_mpmc(q, out, n);
}

static ssize_t pl_t_burst_spsc(void *q, void *out, size_t n)
{
	return pl_ring_dequeue_burst_spsc(q, out, n);
}

static void pl_test_ring_run(struct pl_stress_cfg *cfg, size_t capacity)
{
	struct pl_ring *r = aligned_alloc(PL_CACHELINE, sizeof(*r));
	struct pl_stress_result res;

	assert_non_null(r);
	assert_int_equal(pl_ring_init(r, sizeof(struct pl_test_item),
				      capacity), 0);
	cfg->q = r;
	cfg->items = pl_stress_items();
	pl_stress_watchdog(cfg->name, PL_TEST_WATCHDOG_S);
	assert_int_equal(pl_stress_run(cfg, &res), 0);
	pl_stress_watchdog_off();

	assert_int_equal(res.corrupt, 0);
	assert_int_equal(res.duplicates, 0);
	assert_int_equal(res.missing, 0);
	assert_int_equal(res.out_of_order, 0);
	assert_int_equal(res.enqueue_errors, 0);
	assert_int_equal(res.received, cfg->items);
	assert_true(pl_ring_empty_approx(r));
	pl_ring_fini(r);
	free(r);
}

static void test_mpmc_4_producers_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "ring mpmc 4x2",
		.enqueue = pl_t_enq_mpmc, .dequeue = pl_t_deq_mpmc,
		.producers = 4, .consumers = 2, .burst = 1,
	};

	pl_test_ring_run(&cfg, 256);
}

/* A ring of 2 slots: producers and consumers meet on every slot. */
static void test_mpmc_tiny_ring_4_producers_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "ring mpmc tiny 4x2",
		.enqueue = pl_t_enq_mpmc, .dequeue = pl_t_deq_mpmc,
		.producers = 4, .consumers = 2, .burst = 1,
	};

	pl_test_ring_run(&cfg, 2);
}

static void test_mpmc_burst_4_producers_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "ring mpmc burst 4x2",
		.enqueue = pl_t_enq_mpmc, .dequeue = pl_t_burst_mpmc,
		.producers = 4, .consumers = 2, .burst = 16,
	};

	pl_test_ring_run(&cfg, 64);
}

static void test_mpsc_4_producers_1_consumer(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "ring mpsc 4x1",
		.enqueue = pl_t_enq_mpmc, .dequeue = pl_t_burst_spsc,
		.producers = 4, .consumers = 1, .burst = 8,
	};

	pl_test_ring_run(&cfg, 64);
}

static void test_spsc_1_producer_1_consumer(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "ring spsc 1x1",
		.enqueue = pl_t_enq_spsc, .dequeue = pl_t_deq_spsc,
		.producers = 1, .consumers = 1, .burst = 1,
	};

	pl_test_ring_run(&cfg, 16);
}

/* One producer with the cheap single-producer enqueue, many consumers. */
static void test_spmc_1_producer_2_consumers(void **state)
{
	struct pl_stress_cfg cfg = {
		.name = "ring spmc 1x2",
		.enqueue = pl_t_enq_spsc, .dequeue = pl_t_burst_mpmc,
		.producers = 1, .consumers = 2, .burst = 4,
	};

	pl_test_ring_run(&cfg, 16);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpmc_4_producers_2_consumers),
		cmocka_unit_test(test_mpmc_tiny_ring_4_producers_2_consumers),
		cmocka_unit_test(test_mpmc_burst_4_producers_2_consumers),
		cmocka_unit_test(test_mpsc_4_producers_1_consumer),
		cmocka_unit_test(test_spsc_1_producer_1_consumer),
		cmocka_unit_test(test_spmc_1_producer_2_consumers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
