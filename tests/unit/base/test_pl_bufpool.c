/* SPDX-License-Identifier: BSD-2-Clause */
/* pl_bufpool, one thread: argument checks, alignment, distinct objects,
 * the maximum, growth by chunk, reuse, the serial family, placement
 * options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_bufpool.h"

static int pl_test_cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static void test_create_rejects_bad_attr(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = 64 };
	struct pl_bufpool *pool = NULL;

	assert_int_equal(pl_bufpool_create(NULL, &pool), -FI_EINVAL);
	assert_int_equal(pl_bufpool_create(&attr, NULL), -FI_EINVAL);
	attr.obj_size = 0;
	assert_int_equal(pl_bufpool_create(&attr, &pool), -FI_EINVAL);
	attr.obj_size = 64;
	attr.align = 24;
	assert_int_equal(pl_bufpool_create(&attr, &pool), -FI_EINVAL);
	attr.align = 8192;
	assert_int_equal(pl_bufpool_create(&attr, &pool), -FI_EINVAL);
	attr.align = 0;
	attr.max_objs = (size_t)UINT32_MAX;
	assert_int_equal(pl_bufpool_create(&attr, &pool), -FI_EINVAL);
	attr.max_objs = 0;
	attr.cache_objs = 4096;
	assert_int_equal(pl_bufpool_create(&attr, &pool), -FI_EINVAL);
	attr.cache_objs = 0;
	attr.flags = PL_BUFPOOL_F_NUMA_NODE;
	attr.numa_node = -3;
	assert_int_equal(pl_bufpool_create(&attr, &pool), -FI_EINVAL);
	assert_null(pool);
}

/* Many objects at once: aligned, non-overlapping, writable in full. */
static void pl_test_distinct(uint32_t flags)
{
	enum { N = 3000 };
	struct pl_bufpool_attr attr = {
		.obj_size = 200, .align = 64, .flags = flags,
	};
	bool serial = flags & PL_BUFPOOL_F_SERIAL;
	struct pl_bufpool *pool;
	void **objs = calloc(N, sizeof(*objs));
	size_t i;

	assert_non_null(objs);
	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	assert_int_equal(pl_bufpool_obj_size(pool), 200);
	for (i = 0; i < N; i++) {
		assert_int_equal(serial ? __pl_bufpool_alloc(pool, &objs[i])
					: pl_bufpool_alloc(pool, &objs[i]), 0);
		assert_int_equal((uintptr_t)objs[i] % 64, 0);
		memset(objs[i], (int)(i & 0xff), 200);
	}
	qsort(objs, N, sizeof(*objs), pl_test_cmp_ptr);
	for (i = 1; i < N; i++)
		assert_true((char *)objs[i] - (char *)objs[i - 1] >= 200);
	for (i = 0; i < N; i++) {
		if (serial)
			__pl_bufpool_free(pool, objs[i]);
		else
			pl_bufpool_free(pool, objs[i]);
	}
	pl_bufpool_destroy(pool);
	free(objs);
}

static void test_objects_are_aligned_and_distinct(void **state)
{
	pl_test_distinct(0);
}

static void test_serial_objects_are_aligned_and_distinct(void **state)
{
	pl_test_distinct(PL_BUFPOOL_F_SERIAL);
}

static void pl_test_max(uint32_t flags)
{
	struct pl_bufpool_attr attr = {
		.obj_size = 24, .max_objs = 10, .cache_objs = 4,
		.flags = flags,
	};
	bool serial = flags & PL_BUFPOOL_F_SERIAL;
	struct pl_bufpool *pool;
	void *objs[10], *extra = NULL;
	int i;

	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(serial ? __pl_bufpool_alloc(pool, &objs[i])
					: pl_bufpool_alloc(pool, &objs[i]), 0);
	assert_int_equal(serial ? __pl_bufpool_alloc(pool, &extra)
				: pl_bufpool_alloc(pool, &extra), -FI_ENOMEM);
	assert_null(extra);
	/* a freed object is available again */
	if (serial)
		__pl_bufpool_free(pool, objs[3]);
	else
		pl_bufpool_free(pool, objs[3]);
	assert_int_equal(serial ? __pl_bufpool_alloc(pool, &extra)
				: pl_bufpool_alloc(pool, &extra), 0);
	assert_ptr_equal(extra, objs[3]);
	pl_bufpool_destroy(pool);
}

static void test_max_objs_is_enforced(void **state)
{
	pl_test_max(0);
}

static void test_serial_max_objs_is_enforced(void **state)
{
	pl_test_max(PL_BUFPOOL_F_SERIAL);
}

static void test_grows_one_chunk_at_a_time(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = 32, .chunk_objs = 100 };
	struct pl_bufpool_stats st;
	struct pl_bufpool *pool;
	void *obj;
	size_t i;

	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	pl_bufpool_get_stats(pool, &st);
	assert_int_equal(st.chunks, 0);
	assert_int_equal(pl_bufpool_alloc(pool, &obj), 0);
	pl_bufpool_get_stats(pool, &st);
	assert_int_equal(st.chunks, 1);
	assert_true(st.per_chunk >= 100);
	assert_int_equal(st.objs, st.per_chunk);
	/* exhaust the first chunk: the next allocation maps a second */
	for (i = 1; i < st.per_chunk; i++)
		assert_int_equal(pl_bufpool_alloc(pool, &obj), 0);
	assert_int_equal(pl_bufpool_alloc(pool, &obj), 0);
	pl_bufpool_get_stats(pool, &st);
	assert_int_equal(st.chunks, 2);
	/* destroy with everything still allocated releases it all */
	pl_bufpool_destroy(pool);
}

/* Free then alloc in a loop reuses memory instead of growing. */
static void test_reuse_does_not_grow(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = 48 };
	struct pl_bufpool_stats st;
	struct pl_bufpool *pool;
	void *objs[64];
	int round, i;

	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	for (round = 0; round < 1000; round++) {
		for (i = 0; i < 64; i++)
			assert_int_equal(pl_bufpool_alloc(pool, &objs[i]), 0);
		for (i = 0; i < 64; i++)
			pl_bufpool_free(pool, objs[i]);
	}
	pl_bufpool_get_stats(pool, &st);
	assert_int_equal(st.chunks, 1);
	pl_bufpool_destroy(pool);
}

static void test_null_free_and_destroy_are_no_ops(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = 8 };
	struct pl_bufpool *pool;

	pl_bufpool_destroy(NULL);
	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	pl_bufpool_free(pool, NULL);
	pl_bufpool_destroy(pool);
	attr.flags = PL_BUFPOOL_F_SERIAL;
	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	__pl_bufpool_free(pool, NULL);
	pl_bufpool_destroy(pool);
}

/* MAP_HUGETLB is used when the system has huge pages reserved and
 * falls back silently otherwise; either way the pool works. */
static void test_hugetlb_request_works_with_or_without_huge_pages(void **state)
{
	struct pl_bufpool_attr attr = {
		.obj_size = 4096, .flags = PL_BUFPOOL_F_HUGETLB,
	};
	struct pl_bufpool_stats st;
	struct pl_bufpool *pool;
	void *obj;

	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	assert_int_equal(pl_bufpool_alloc(pool, &obj), 0);
	memset(obj, 0x5a, 4096);
	pl_bufpool_get_stats(pool, &st);
	assert_int_equal(st.chunk_bytes, 2u * 1024 * 1024);
	print_message("hugetlb chunks: %s\n", st.hugetlb ? "yes" : "no "
		      "(none reserved; normal pages + MADV_HUGEPAGE)");
	pl_bufpool_free(pool, obj);
	pl_bufpool_destroy(pool);
}

/* An explicit node that exists (0 always does) is accepted; placement
 * is skipped silently where NUMA is unavailable. */
static void test_explicit_numa_node(void **state)
{
	struct pl_bufpool_attr attr = {
		.obj_size = 64, .numa_node = 0,
		.flags = PL_BUFPOOL_F_NUMA_NODE,
	};
	struct pl_bufpool *pool;
	void *obj;

	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	assert_int_equal(pl_bufpool_alloc(pool, &obj), 0);
	memset(obj, 1, 64);
	pl_bufpool_free(pool, obj);
	pl_bufpool_destroy(pool);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_rejects_bad_attr),
		cmocka_unit_test(test_objects_are_aligned_and_distinct),
		cmocka_unit_test(test_serial_objects_are_aligned_and_distinct),
		cmocka_unit_test(test_max_objs_is_enforced),
		cmocka_unit_test(test_serial_max_objs_is_enforced),
		cmocka_unit_test(test_grows_one_chunk_at_a_time),
		cmocka_unit_test(test_reuse_does_not_grow),
		cmocka_unit_test(test_null_free_and_destroy_are_no_ops),
		cmocka_unit_test(
			test_hugetlb_request_works_with_or_without_huge_pages),
		cmocka_unit_test(test_explicit_numa_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
