/* SPDX-License-Identifier: BSD-2-Clause */
/* pl_ring, one thread: init checks, full/empty, wraparound, bursts, and
 * the modes agreeing on one slot protocol. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_ring.h"

/* A 20-byte entry: not a multiple of 8, so slot padding is exercised. */
struct pl_test_entry {
	uint32_t v[5];
};

static struct pl_ring *pl_test_ring_new(size_t entry, size_t cap)
{
	struct pl_ring *r = aligned_alloc(PL_CACHELINE, sizeof(*r));

	assert_non_null(r);
	assert_int_equal(pl_ring_init(r, entry, cap), 0);
	return r;
}

static void pl_test_ring_free(struct pl_ring *r)
{
	pl_ring_fini(r);
	free(r);
}

static void pl_test_entry_make(struct pl_test_entry *e, uint32_t n)
{
	int i;

	for (i = 0; i < 5; i++)
		e->v[i] = n * 5 + (uint32_t)i;
}

static void test_init_rejects_bad_geometry(void **state)
{
	struct pl_ring *r = aligned_alloc(PL_CACHELINE, 2 * sizeof(*r));

	assert_non_null(r);
	assert_int_equal(pl_ring_init(NULL, 8, 4), -FI_EINVAL);
	assert_int_equal(pl_ring_init(r, 0, 4), -FI_EINVAL);
	assert_int_equal(pl_ring_init(r, PL_RING_MAX_ENTRY + 1, 4),
			 -FI_EINVAL);
	assert_int_equal(pl_ring_init(r, 8, 0), -FI_EINVAL);
	assert_int_equal(pl_ring_init(r, 8, 1), -FI_EINVAL);
	assert_int_equal(pl_ring_init(r, 8, 3), -FI_EINVAL);
	assert_int_equal(pl_ring_init(r, 8, (size_t)PL_RING_MAX_CAPACITY * 2),
			 -FI_EINVAL);
	/* head and tail separation needs a cache-line aligned ring */
	assert_int_equal(pl_ring_init((struct pl_ring *)((char *)r + 8), 8, 4),
			 -FI_EINVAL);
	free(r);
}

static void test_enqueue_until_full_then_eagain(void **state)
{
	struct pl_ring *r = pl_test_ring_new(sizeof(struct pl_test_entry), 8);
	struct pl_test_entry e;
	uint32_t i;

	assert_int_equal(pl_ring_capacity(r), 8);
	assert_int_equal(pl_ring_entry_size(r), sizeof(e));
	for (i = 0; i < 8; i++) {
		pl_test_entry_make(&e, i);
		assert_int_equal(pl_ring_enqueue_mpmc(r, &e), 0);
	}
	assert_int_equal(pl_ring_enqueue_mpmc(r, &e), -FI_EAGAIN);
	assert_int_equal(pl_ring_enqueue_spsc(r, &e), -FI_EAGAIN);
	assert_int_equal(__pl_ring_enqueue(r, &e), -FI_EAGAIN);
	assert_int_equal(pl_ring_count_approx(r), 8);
	pl_test_ring_free(r);
}

static void test_dequeue_is_fifo_then_eagain_when_empty(void **state)
{
	struct pl_ring *r = pl_test_ring_new(sizeof(struct pl_test_entry), 4);
	struct pl_test_entry e, want;
	uint32_t i;

	assert_int_equal(pl_ring_dequeue_mpmc(r, &e), -FI_EAGAIN);
	for (i = 0; i < 4; i++) {
		pl_test_entry_make(&e, i);
		assert_int_equal(pl_ring_enqueue_mpmc(r, &e), 0);
	}
	for (i = 0; i < 4; i++) {
		pl_test_entry_make(&want, i);
		assert_int_equal(pl_ring_dequeue_mpmc(r, &e), 0);
		assert_memory_equal(&e, &want, sizeof(e));
	}
	assert_int_equal(pl_ring_dequeue_mpmc(r, &e), -FI_EAGAIN);
	assert_int_equal(pl_ring_dequeue_spsc(r, &e), -FI_EAGAIN);
	assert_int_equal(__pl_ring_dequeue(r, &e), -FI_EAGAIN);
	pl_test_ring_free(r);
}

/* Many laps over a small ring, with the fill level varying, in each
 * mode pairing: positions and sequence words must stay consistent. */
static void pl_test_laps(int (*enq)(struct pl_ring *, const void *),
			 int (*deq)(struct pl_ring *, void *))
{
	struct pl_ring *r = pl_test_ring_new(sizeof(struct pl_test_entry), 4);
	struct pl_test_entry e, want;
	uint32_t in = 0, out = 0, round;

	for (round = 0; round < 1000; round++) {
		uint32_t k, fill = 1 + round % 4;

		for (k = 0; k < fill; k++) {
			pl_test_entry_make(&e, in++);
			assert_int_equal(enq(r, &e), 0);
		}
		for (k = 0; k < fill; k++) {
			pl_test_entry_make(&want, out++);
			assert_int_equal(deq(r, &e), 0);
			assert_memory_equal(&e, &want, sizeof(e));
		}
	}
	assert_true(pl_ring_empty_approx(r));
	pl_test_ring_free(r);
}

static void test_wraparound_mpmc(void **state)
{
	pl_test_laps(pl_ring_enqueue_mpmc, pl_ring_dequeue_mpmc);
}

static void test_wraparound_spsc(void **state)
{
	pl_test_laps(pl_ring_enqueue_spsc, pl_ring_dequeue_spsc);
}

static void test_wraparound_serialized(void **state)
{
	pl_test_laps(__pl_ring_enqueue, __pl_ring_dequeue);
}

/* The constant-size serial calls, alone and mixed with the general
 * ones (which they must keep in step: positions and turns). */
static int pl_test_enq_sized(struct pl_ring *r, const void *e)
{
	return __pl_ring_enqueue_sized(r, e, sizeof(struct pl_test_entry));
}

static int pl_test_deq_sized(struct pl_ring *r, void *out)
{
	return __pl_ring_dequeue_sized(r, out, sizeof(struct pl_test_entry));
}

static void test_wraparound_sized(void **state)
{
	struct pl_ring *r = pl_test_ring_new(sizeof(struct pl_test_entry), 2);
	struct pl_test_entry e;

	pl_test_laps(pl_test_enq_sized, pl_test_deq_sized);
	pl_test_laps(pl_test_enq_sized, __pl_ring_dequeue);
	pl_test_laps(__pl_ring_enqueue, pl_test_deq_sized);
	/* full and empty answer as the general calls do */
	pl_test_entry_make(&e, 1);
	assert_int_equal(pl_test_enq_sized(r, &e), 0);
	assert_int_equal(pl_test_enq_sized(r, &e), 0);
	assert_int_equal(pl_test_enq_sized(r, &e), -FI_EAGAIN);
	assert_int_equal(pl_test_deq_sized(r, &e), 0);
	assert_int_equal(pl_test_deq_sized(r, &e), 0);
	assert_int_equal(pl_test_deq_sized(r, &e), -FI_EAGAIN);
	pl_test_ring_free(r);
}

static void test_modes_mix_on_one_ring(void **state)
{
	pl_test_laps(pl_ring_enqueue_spsc, pl_ring_dequeue_mpmc);
	pl_test_laps(pl_ring_enqueue_mpmc, pl_ring_dequeue_mpsc);
	pl_test_laps(__pl_ring_enqueue, pl_ring_dequeue_spsc);
}

static void pl_test_burst(ssize_t (*burst)(struct pl_ring *, void *, size_t))
{
	struct pl_ring *r = pl_test_ring_new(sizeof(struct pl_test_entry), 8);
	struct pl_test_entry e, out[16], want;
	uint32_t i;

	assert_int_equal(burst(r, out, 4), -FI_EAGAIN);
	assert_int_equal(burst(r, out, 0), 0);
	/* move the positions so the next burst crosses the array's end */
	for (i = 0; i < 6; i++) {
		pl_test_entry_make(&e, 100 + i);
		assert_int_equal(pl_ring_enqueue_mpmc(r, &e), 0);
		assert_int_equal(pl_ring_dequeue_mpmc(r, &e), 0);
	}
	for (i = 0; i < 5; i++) {
		pl_test_entry_make(&e, i);
		assert_int_equal(pl_ring_enqueue_mpmc(r, &e), 0);
	}
	/* asks for more than there is: takes what is published */
	assert_int_equal(burst(r, out, 16), 5);
	for (i = 0; i < 5; i++) {
		pl_test_entry_make(&want, i);
		assert_memory_equal(&out[i], &want, sizeof(want));
	}
	/* a full ring, taken in two bursts */
	for (i = 0; i < 8; i++) {
		pl_test_entry_make(&e, 10 + i);
		assert_int_equal(pl_ring_enqueue_mpmc(r, &e), 0);
	}
	assert_int_equal(burst(r, out, 3), 3);
	assert_int_equal(burst(r, out + 3, 16), 5);
	for (i = 0; i < 8; i++) {
		pl_test_entry_make(&want, 10 + i);
		assert_memory_equal(&out[i], &want, sizeof(want));
	}
	assert_int_equal(burst(r, out, 16), -FI_EAGAIN);
	pl_test_ring_free(r);
}

static void test_burst_mpmc(void **state)
{
	pl_test_burst(pl_ring_dequeue_burst_mpmc);
}

static void test_burst_spsc(void **state)
{
	pl_test_burst(pl_ring_dequeue_burst_spsc);
}

static void test_burst_serialized(void **state)
{
	pl_test_burst(__pl_ring_dequeue_burst);
}

static void test_empty_and_count_track_the_content(void **state)
{
	struct pl_ring *r = pl_test_ring_new(48, 4);
	unsigned char e[48] = { 1 };

	assert_true(pl_ring_empty_approx(r));
	assert_int_equal(pl_ring_count_approx(r), 0);
	assert_int_equal(pl_ring_enqueue_mpmc(r, e), 0);
	assert_false(pl_ring_empty_approx(r));
	assert_int_equal(pl_ring_count_approx(r), 1);
	assert_int_equal(pl_ring_enqueue_spsc(r, e), 0);
	assert_int_equal(pl_ring_count_approx(r), 2);
	assert_int_equal(pl_ring_dequeue_mpmc(r, e), 0);
	assert_int_equal(pl_ring_dequeue_mpmc(r, e), 0);
	assert_true(pl_ring_empty_approx(r));
	assert_int_equal(pl_ring_tail_pos(r), 2);
	assert_int_equal(pl_ring_head_pos(r), 2);
	pl_test_ring_free(r);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects_bad_geometry),
		cmocka_unit_test(test_enqueue_until_full_then_eagain),
		cmocka_unit_test(test_dequeue_is_fifo_then_eagain_when_empty),
		cmocka_unit_test(test_wraparound_mpmc),
		cmocka_unit_test(test_wraparound_spsc),
		cmocka_unit_test(test_wraparound_serialized),
		cmocka_unit_test(test_wraparound_sized),
		cmocka_unit_test(test_modes_mix_on_one_ring),
		cmocka_unit_test(test_burst_mpmc),
		cmocka_unit_test(test_burst_spsc),
		cmocka_unit_test(test_burst_serialized),
		cmocka_unit_test(test_empty_and_count_track_the_content),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
