/* SPDX-License-Identifier: BSD-2-Clause */
/* Key map: insert/duplicate/remove and access/range checks. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_dup_remove),
		cmocka_unit_test(test_check_ranges_access),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
