/* SPDX-License-Identifier: BSD-2-Clause */
/* Key map: lookups race with insert/remove of other keys and of the key
 * being looked up; a lookup sees either the entry or nothing, never freed
 * memory (ASan/TSan builds check that). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_keymap.h"

#define ROUNDS 2000
static struct pl_keymap map;
static pl_atomic_int stop;

static void *reader(void *arg)
{
	(void)arg;
	/* acquire: pairs with the release store of stop in the writer */
	while (!pl_load_acquire(&stop)) {
		for (uint64_t k = 0; k < 16; k++) {
			int r = pl_keymap_check(&map, k, 0x1000 * (k + 1), 8,
						FI_REMOTE_READ, true, NULL);
			assert_true(r == 0 || r == -FI_EKEYREJECTED);
		}
	}
	return NULL;
}

static void test_lookup_vs_remove(void **state)
{
	(void)state;
	pthread_t t[2];

	assert_int_equal(pl_keymap_init(&map), 0);
	pl_store_relaxed(&stop, 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, reader, NULL), 0);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t k = (uint64_t)r % 16;
		assert_int_equal(pl_keymap_insert(&map, k, 0x1000 * (k + 1), 64,
						  FI_REMOTE_READ), 0);
		assert_int_equal(pl_keymap_remove(&map, k), 0);
	}
	pl_store_release(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pl_keymap_fini(&map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_vs_remove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
