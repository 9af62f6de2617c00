/* SPDX-License-Identifier: BSD-2-Clause */
/* pl_spillq, one thread: a full ring spills instead of failing, order is
 * kept across the ring/overflow boundary both ways, bursts, emptiness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_bufpool.h"
#include "pl_spillq.h"

struct pl_test_ops {
	int (*enq)(struct pl_spillq *q, const void *e);
	int (*deq)(struct pl_spillq *q, void *out);
	ssize_t (*burst)(struct pl_spillq *q, void *out, size_t n);
	uint32_t flags;
};

static const struct pl_test_ops pl_ops_mpmc = {
	pl_spillq_enqueue_mpmc, pl_spillq_dequeue_mpmc,
	pl_spillq_dequeue_burst_mpmc, 0,
};
static const struct pl_test_ops pl_ops_mpsc = {
	pl_spillq_enqueue_mpsc, pl_spillq_dequeue_mpsc,
	pl_spillq_dequeue_burst_mpsc, 0,
};
static const struct pl_test_ops pl_ops_serial = {
	__pl_spillq_enqueue, __pl_spillq_dequeue, __pl_spillq_dequeue_burst,
	PL_SPILLQ_F_SERIAL,
};

/* The constant-size calls (the CQ's), on the same 8-byte entries. */
static int pl_test_enq_sized(struct pl_spillq *q, const void *e)
{
	return __pl_spillq_enqueue_sized(q, e, sizeof(uint64_t));
}

static int pl_test_deq_sized(struct pl_spillq *q, void *out)
{
	return __pl_spillq_dequeue_sized(q, out, sizeof(uint64_t));
}

static const struct pl_test_ops pl_ops_sized = {
	pl_test_enq_sized, pl_test_deq_sized, __pl_spillq_dequeue_burst,
	PL_SPILLQ_F_SERIAL,
};

static struct pl_spillq *pl_test_q_new(size_t cap, uint32_t flags)
{
	struct pl_spillq *q = aligned_alloc(PL_CACHELINE, sizeof(*q));

	assert_non_null(q);
	assert_int_equal(pl_spillq_init(q, sizeof(uint64_t), cap, flags), 0);
	return q;
}

static void pl_test_q_free(struct pl_spillq *q)
{
	pl_spillq_fini(q);
	free(q);
}

static void test_init_rejects_bad_arguments(void **state)
{
	struct pl_spillq *q = aligned_alloc(PL_CACHELINE, sizeof(*q));

	assert_non_null(q);
	assert_int_equal(pl_spillq_init(NULL, 8, 4, 0), -FI_EINVAL);
	assert_int_equal(pl_spillq_init(q, 8, 4, 0x80), -FI_EINVAL);
	assert_int_equal(pl_spillq_init(q, 8, 3, 0), -FI_EINVAL);
	assert_int_equal(pl_spillq_init(q, 0, 4, 0), -FI_EINVAL);
	free(q);
}

/* Fill far past the ring, take some, add more, take all: strict FIFO
 * for a single thread, in every mode. */
static void pl_test_fifo_across_spill(const struct pl_test_ops *ops)
{
	struct pl_spillq *q = pl_test_q_new(4, ops->flags);
	uint64_t in = 0, out = 0, v;
	int round, k;

	for (round = 0; round < 50; round++) {
		for (k = 0; k < 7 + round % 5; k++) {
			assert_int_equal(ops->enq(q, &in), 0);
			in++;
		}
		for (k = 0; k < 3 + round % 9 && out < in; k++) {
			assert_int_equal(ops->deq(q, &v), 0);
			assert_int_equal(v, out);
			out++;
		}
	}
	assert_true(pl_spillq_spilled_approx(q) > 0);
	while (out < in) {
		assert_int_equal(ops->deq(q, &v), 0);
		assert_int_equal(v, out);
		out++;
	}
	assert_int_equal(ops->deq(q, &v), -FI_EAGAIN);
	assert_int_equal(pl_spillq_spilled_approx(q), 0);
	pl_test_q_free(q);
}

static void test_fifo_across_spill_mpmc(void **state)
{
	pl_test_fifo_across_spill(&pl_ops_mpmc);
}

static void test_fifo_across_spill_mpsc(void **state)
{
	pl_test_fifo_across_spill(&pl_ops_mpsc);
}

static void test_fifo_across_spill_serialized(void **state)
{
	pl_test_fifo_across_spill(&pl_ops_serial);
}

static void test_fifo_across_spill_sized(void **state)
{
	pl_test_fifo_across_spill(&pl_ops_sized);
}

/* Once the overflow holds anything, new entries go behind it even when
 * the ring has room again; once it is drained, the ring is used again. */
static void pl_test_spill_mode(const struct pl_test_ops *ops)
{
	struct pl_spillq *q = pl_test_q_new(2, ops->flags);
	uint64_t v, i;

	for (i = 0; i < 3; i++)
		assert_int_equal(ops->enq(q, &i), 0);
	assert_int_equal(pl_spillq_spilled_approx(q), 1);
	assert_int_equal(ops->deq(q, &v), 0);
	assert_int_equal(v, 0);
	/* the ring has a free slot, but 3 must follow 2 */
	i = 3;
	assert_int_equal(ops->enq(q, &i), 0);
	assert_int_equal(pl_spillq_spilled_approx(q), 2);
	for (i = 1; i <= 3; i++) {
		assert_int_equal(ops->deq(q, &v), 0);
		assert_int_equal(v, i);
	}
	assert_int_equal(pl_spillq_spilled_approx(q), 0);
	/* drained: back to the ring */
	i = 4;
	assert_int_equal(ops->enq(q, &i), 0);
	assert_int_equal(pl_spillq_spilled_approx(q), 0);
	assert_int_equal(ops->deq(q, &v), 0);
	assert_int_equal(v, 4);
	pl_test_q_free(q);
}

static void test_spill_mode_mpmc(void **state)
{
	pl_test_spill_mode(&pl_ops_mpmc);
}

static void test_spill_mode_serialized(void **state)
{
	pl_test_spill_mode(&pl_ops_serial);
}

static void test_spill_mode_sized(void **state)
{
	pl_test_spill_mode(&pl_ops_sized);
}

/* The sized and the general serial calls share one queue: entries put by
 * either come out of either in order, through spills (the CQ writes
 * sized and its burst reads would take what is left). */
static void test_sized_and_general_mix(void **state)
{
	struct pl_spillq *q = pl_test_q_new(4, PL_SPILLQ_F_SERIAL);
	uint64_t in = 0, out = 0, v;
	int round, k;

	for (round = 0; round < 200; round++) {
		for (k = 0; k < 1 + round % 7; k++, in++)
			assert_int_equal((k & 1) ? __pl_spillq_enqueue(q, &in) :
					 pl_test_enq_sized(q, &in), 0);
		for (k = 0; k < 1 + round % 5 && out < in; k++, out++) {
			assert_int_equal((round & 1) ? __pl_spillq_dequeue(q, &v) :
					 pl_test_deq_sized(q, &v), 0);
			assert_int_equal(v, out);
		}
	}
	while (out < in) {
		assert_int_equal(pl_test_deq_sized(q, &v), 0);
		assert_int_equal(v, out++);
	}
	assert_int_equal(pl_test_deq_sized(q, &v), -FI_EAGAIN);
	assert_true(pl_spillq_empty_approx(q));
	pl_test_q_free(q);
}

static void pl_test_burst(const struct pl_test_ops *ops)
{
	struct pl_spillq *q = pl_test_q_new(4, ops->flags);
	uint64_t out[32], i;

	assert_int_equal(ops->burst(q, out, 8), -FI_EAGAIN);
	assert_int_equal(ops->burst(q, out, 0), 0);
	for (i = 0; i < 20; i++)
		assert_int_equal(ops->enq(q, &i), 0);
	assert_int_equal(ops->burst(q, out, 6), 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(out[i], i);
	assert_int_equal(ops->burst(q, out, 32), 14);
	for (i = 0; i < 14; i++)
		assert_int_equal(out[i], 6 + i);
	assert_int_equal(ops->burst(q, out, 32), -FI_EAGAIN);
	pl_test_q_free(q);
}

static void test_burst_mpmc(void **state)
{
	pl_test_burst(&pl_ops_mpmc);
}

static void test_burst_mpsc(void **state)
{
	pl_test_burst(&pl_ops_mpsc);
}

static void test_burst_serialized(void **state)
{
	pl_test_burst(&pl_ops_serial);
}

static void test_empty_approx_covers_ring_and_overflow(void **state)
{
	struct pl_spillq *q = pl_test_q_new(2, 0);
	uint64_t v = 7;

	assert_true(pl_spillq_empty_approx(q));
	assert_int_equal(pl_spillq_enqueue_mpmc(q, &v), 0);
	assert_false(pl_spillq_empty_approx(q));
	assert_int_equal(pl_spillq_enqueue_mpmc(q, &v), 0);
	assert_int_equal(pl_spillq_enqueue_mpmc(q, &v), 0);
	assert_int_equal(pl_spillq_dequeue_mpmc(q, &v), 0);
	assert_int_equal(pl_spillq_dequeue_mpmc(q, &v), 0);
	/* the ring is empty, the overflow is not */
	assert_true(pl_ring_empty_approx(&q->ring));
	assert_false(pl_spillq_empty_approx(q));
	assert_int_equal(pl_spillq_dequeue_mpmc(q, &v), 0);
	assert_true(pl_spillq_empty_approx(q));
	pl_test_q_free(q);
}

/* fini with entries still queued releases everything (LSan checks). */
static void test_fini_with_entries_queued(void **state)
{
	struct pl_spillq *q = pl_test_q_new(2, 0);
	uint64_t i;

	for (i = 0; i < 1000; i++)
		assert_int_equal(pl_spillq_enqueue_mpmc(q, &i), 0);
	pl_test_q_free(q);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects_bad_arguments),
		cmocka_unit_test(test_fifo_across_spill_mpmc),
		cmocka_unit_test(test_fifo_across_spill_mpsc),
		cmocka_unit_test(test_fifo_across_spill_serialized),
		cmocka_unit_test(test_spill_mode_mpmc),
		cmocka_unit_test(test_spill_mode_serialized),
		cmocka_unit_test(test_fifo_across_spill_sized),
		cmocka_unit_test(test_spill_mode_sized),
		cmocka_unit_test(test_sized_and_general_mix),
		cmocka_unit_test(test_burst_mpmc),
		cmocka_unit_test(test_burst_mpsc),
		cmocka_unit_test(test_burst_serialized),
		cmocka_unit_test(test_empty_approx_covers_ring_and_overflow),
		cmocka_unit_test(test_fini_with_entries_queued),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
