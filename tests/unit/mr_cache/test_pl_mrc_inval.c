/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The invalidation log: ranges come out in order, to every cursor; a
 * cursor that falls more than a ring behind is told (-FI_EOVERFLOW) and
 * jumps to now, so no range is ever silently skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_mrc_inval.h"

struct seen {
	uintptr_t next;
	size_t n;
	bool order_ok;
};

static void take(uintptr_t start, uintptr_t end, void *arg)
{
	struct seen *s = arg;

	if (start != s->next || end != start + 1)
		s->order_ok = false;
	s->next = start + 1;
	s->n++;
}

static void test_two_cursors(void **state)
{
	uint64_t c1 = pl_mrc_inval_pos(), c2 = c1;
	struct seen s1 = { .next = 1000, .order_ok = true };
	struct seen s2 = s1;
	uintptr_t i;

	(void)state;
	for (i = 1000; i < 1100; i++)
		pl_mrc_inval_publish(i, i + 1);
	assert_int_equal(pl_mrc_inval_consume(&c1, take, &s1), 0);
	assert_int_equal(s1.n, 100);
	assert_true(s1.order_ok);
	assert_int_equal(pl_mrc_inval_consume(&c2, take, &s2), 0);
	assert_int_equal(s2.n, 100);
	/* Nothing new: nothing handed out. */
	assert_int_equal(pl_mrc_inval_consume(&c1, take, &s1), 0);
	assert_int_equal(s1.n, 100);
	assert_int_equal(c1, pl_mrc_inval_pos());
}

static void test_overflow_reported(void **state)
{
	uint64_t c = pl_mrc_inval_pos();
	struct seen s = { .next = 0, .order_ok = true };
	uintptr_t i;

	(void)state;
	for (i = 0; i < PL_MRC_INVAL_SLOTS + 5; i++)
		pl_mrc_inval_publish(i, i + 1);
	assert_int_equal(pl_mrc_inval_consume(&c, take, &s), -FI_EOVERFLOW);
	assert_int_equal(c, pl_mrc_inval_pos());
	/* After the jump the cursor works again. */
	s = (struct seen){ .next = 7, .order_ok = true };
	pl_mrc_inval_publish(7, 8);
	assert_int_equal(pl_mrc_inval_consume(&c, take, &s), 0);
	assert_int_equal(s.n, 1);
}

static void test_exactly_one_ring_behind(void **state)
{
	uint64_t c = pl_mrc_inval_pos();
	struct seen s = { .next = 0, .order_ok = true };
	uintptr_t i;

	(void)state;
	for (i = 0; i < PL_MRC_INVAL_SLOTS; i++)
		pl_mrc_inval_publish(i, i + 1);
	assert_int_equal(pl_mrc_inval_consume(&c, take, &s), 0);
	assert_int_equal(s.n, PL_MRC_INVAL_SLOTS);
	assert_true(s.order_ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cursors),
		cmocka_unit_test(test_overflow_reported),
		cmocka_unit_test(test_exactly_one_ring_behind),
	};

	return cmocka_run_group_tests_name("pl_mrc_inval", tests, NULL, NULL);
}
