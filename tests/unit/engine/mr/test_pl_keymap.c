/* SPDX-License-Identifier: BSD-2-Clause */
/* Key map: insert/duplicate/remove, access/range checks, segments and
 * reserved (disabled) keys. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_keymap.h"

static void test_insert_dup_remove(void **state)
{
	(void)state;
	struct pl_keymap m;

	assert_int_equal(pl_keymap_init(&m), 0);
	assert_int_equal(pl_keymap_insert(&m, 7, 0x1000, 64, FI_REMOTE_READ), 0);
	assert_int_equal(pl_keymap_insert(&m, 7, 0x2000, 64, FI_REMOTE_READ),
			 -FI_ENOKEY);
	assert_int_equal(pl_keymap_insert(&m, 8, 0x2000, 0, FI_REMOTE_READ),
			 -FI_EINVAL);
	assert_int_equal(pl_keymap_remove(&m, 7), 0);
	assert_int_equal(pl_keymap_remove(&m, 7), -FI_ENOKEY);
	assert_int_equal(pl_keymap_check(&m, 7, 0x1000, 1, FI_REMOTE_READ,
					 true, NULL), -FI_EKEYREJECTED);
	pl_keymap_fini(&m);
}

static void test_check_ranges_access(void **state)
{
	(void)state;
	struct pl_keymap m;
	uint64_t base = 0;

	assert_int_equal(pl_keymap_init(&m), 0);
	for (uint64_t k = 0; k < 600; k++)	/* several per bucket */
		assert_int_equal(pl_keymap_insert(&m, k, 0x1000 * (k + 1), 64,
						  FI_REMOTE_READ), 0);
	assert_int_equal(pl_keymap_check(&m, 3, 0x4000, 64, FI_REMOTE_READ,
					 true, &base), 0);
	assert_int_equal(base, 0x4000);
	assert_int_equal(pl_keymap_check(&m, 3, 0x4001, 64, FI_REMOTE_READ,
					 true, NULL), -FI_EACCES);
	assert_int_equal(pl_keymap_check(&m, 3, 0x3fff, 1, FI_REMOTE_READ,
					 true, NULL), -FI_EACCES);
	assert_int_equal(pl_keymap_check(&m, 3, 0x4000, 8, FI_REMOTE_WRITE,
					 true, NULL), -FI_EACCES);
	assert_int_equal(pl_keymap_check(&m, 3, 56, 8, FI_REMOTE_READ,
					 false, NULL), 0);
	assert_int_equal(pl_keymap_check(&m, 3, 57, 8, FI_REMOTE_READ,
					 false, NULL), -FI_EACCES);
	assert_int_equal(pl_keymap_remove(&m, 300), 0);
	pl_keymap_fini(&m);
}

static void test_segments(void **state)
{
	(void)state;
	struct iovec iov[2] = { { (void *)0x1000, 16 }, { (void *)0x9000, 8 } };
	struct iovec bad[2] = { { (void *)0x1000, 16 }, { (void *)0x9000, 0 } };
	struct pl_keymap m;
	uint64_t base = 0;

	assert_int_equal(pl_keymap_init(&m), 0);
	assert_int_equal(pl_keymap_insertv(&m, 4, bad, 2, FI_REMOTE_READ, true),
			 -FI_EINVAL);
	assert_int_equal(pl_keymap_insertv(&m, 4, iov, 0, FI_REMOTE_READ, true),
			 -FI_EINVAL);
	assert_int_equal(pl_keymap_insertv(&m, 4, NULL, 1, FI_REMOTE_READ,
					   true), -FI_EINVAL);
	assert_int_equal(pl_keymap_insertv(&m, 4, iov, 2, FI_REMOTE_READ, true),
			 0);
	/* offsets 16..23 are the second segment */
	assert_int_equal(pl_keymap_check(&m, 4, 18, 4, FI_REMOTE_READ, false,
					 &base), 0);
	assert_true(base + 18 == 0x9002);
	assert_int_equal(pl_keymap_check(&m, 4, 12, 8, FI_REMOTE_READ, false,
					 NULL), -FI_EACCES);	/* straddles */
	assert_int_equal(pl_keymap_check(&m, 4, 0x9004, 4, FI_REMOTE_READ,
					 true, &base), 0);
	assert_int_equal(base, 0x9000);
	assert_int_equal(pl_keymap_check(&m, 4, 0x1010, 1, FI_REMOTE_READ,
					 true, NULL), -FI_EACCES);	/* gap */
	pl_keymap_fini(&m);
}

static void test_reserved_key(void **state)
{
	(void)state;
	struct iovec iov = { (void *)0x1000, 64 };
	struct pl_keymap m;

	assert_int_equal(pl_keymap_init(&m), 0);
	assert_int_equal(pl_keymap_insertv(&m, 5, &iov, 1, FI_REMOTE_READ,
					   false), 0);
	assert_int_equal(pl_keymap_check(&m, 5, 0x1000, 8, FI_REMOTE_READ,
					 true, NULL), -FI_EKEYREJECTED);
	assert_int_equal(pl_keymap_insert(&m, 5, 0x2000, 8, FI_REMOTE_READ),
			 -FI_ENOKEY);	/* reserved all the same */
	assert_int_equal(pl_keymap_enable(&m, 6), -FI_ENOKEY);
	assert_int_equal(pl_keymap_enable(&m, 5), 0);
	assert_int_equal(pl_keymap_check(&m, 5, 0x1000, 8, FI_REMOTE_READ,
					 true, NULL), 0);
	assert_int_equal(pl_keymap_enable(&m, 5), 0);
	assert_int_equal(pl_keymap_enable(NULL, 5), -FI_EINVAL);
	pl_keymap_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_dup_remove),
		cmocka_unit_test(test_check_ranges_access),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_reserved_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
