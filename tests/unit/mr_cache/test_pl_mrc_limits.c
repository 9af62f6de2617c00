/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_MR_CACHE_MAX_COUNT / FI_MR_CACHE_MAX_SIZE: going over a limit evicts
 * unused entries, least recently used first, and never an entry in use;
 * when only entries in use remain, the new registration is handed out
 * uncached. A limit of 0 turns caching off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "pl_mrc_test.h"

#define NBUF 8

struct fx {
	struct pl_mrc *cache;
	size_t pg;
	char *base;	/* NBUF buffers of one page, a page apart */
};

static char *buf(struct fx *f, int i)
{
	return f->base + (size_t)i * 2 * f->pg;
}

static int open_with(void **state, size_t max_count, size_t max_size)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	a.max_count = max_count;
	a.max_size = max_size;
	assert_int_equal(pl_mrc_open(&a, &f->cache), 0);
	f->pg = pl_mrc_test_page();
	f->base = mmap(NULL, 2 * NBUF * f->pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(f->base != MAP_FAILED);
	pl_mrc_test_fill(f->base, 2 * NBUF * f->pg);
	*state = f;
	return 0;
}

static int setup_count3(void **state)
{
	return open_with(state, 3, SIZE_MAX);
}

static int setup_size3(void **state)
{
	/* Three one-page entries fit, a fourth does not. */
	return open_with(state, 1000, 3 * (size_t)sysconf(_SC_PAGESIZE));
}

static int setup_count0(void **state)
{
	return open_with(state, 0, SIZE_MAX);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	assert_int_equal(pl_mrc_close(f->cache), 0);
	munmap(f->base, 2 * NBUF * f->pg);
	free(f);
	return 0;
}

static struct pl_mrc_entry *get(struct fx *f, int i)
{
	struct pl_mrc_entry *e;

	assert_int_equal(pl_mrc_get(f->cache, buf(f, i), f->pg, FI_SEND, &e),
			 0);
	assert_true(pl_mrc_test_fresh(e, buf(f, i), f->pg));
	return e;
}

static struct pl_mrc_stats stats(struct fx *f)
{
	struct pl_mrc_stats s;

	pl_mrc_stats_get(f->cache, &s);
	return s;
}

/* Fill to the limit (unused), then one more: the oldest unused goes. */
static void evicts_lru(struct fx *f)
{
	struct pl_mrc_entry *e;

	pl_mrc_put(f->cache, get(f, 0));
	pl_mrc_put(f->cache, get(f, 1));
	pl_mrc_put(f->cache, get(f, 2));
	/* Touch 0: now 1 is the least recently used. */
	pl_mrc_put(f->cache, get(f, 0));
	assert_int_equal(stats(f).hits, 1);
	e = get(f, 3);
	assert_true(pl_mrc_entry_cached(e));
	pl_mrc_put(f->cache, e);
	assert_int_equal(stats(f).evictions, 1);
	assert_int_equal(stats(f).count, 3);
	/* 0 and 2 still hit; 1 misses. */
	pl_mrc_put(f->cache, get(f, 0));
	pl_mrc_put(f->cache, get(f, 2));
	assert_int_equal(stats(f).hits, 3);
	pl_mrc_put(f->cache, get(f, 1));
	assert_int_equal(stats(f).misses, 5);
}

/* Everything held: nothing may be evicted; the extra one is uncached. */
static void never_evicts_held(struct fx *f)
{
	struct pl_mrc_entry *held[3], *extra;
	uint64_t deregs;
	int i;

	for (i = 0; i < 3; i++)
		held[i] = get(f, i);
	deregs = atomic_load(&pl_mrc_test_deregs);
	extra = get(f, 3);
	assert_false(pl_mrc_entry_cached(extra));
	assert_int_equal(stats(f).evictions, 0);
	assert_int_equal(stats(f).count, 3);
	assert_int_equal(atomic_load(&pl_mrc_test_deregs), deregs);
	for (i = 0; i < 3; i++)
		assert_true(pl_mrc_entry_cached(held[i]));
	pl_mrc_put(f->cache, extra);
	assert_int_equal(atomic_load(&pl_mrc_test_deregs), deregs + 1);
	/* One released: the next new entry evicts exactly it. */
	pl_mrc_put(f->cache, held[1]);
	extra = get(f, 4);
	assert_true(pl_mrc_entry_cached(extra));
	assert_int_equal(stats(f).evictions, 1);
	pl_mrc_put(f->cache, extra);
	pl_mrc_put(f->cache, held[0]);
	pl_mrc_put(f->cache, held[2]);
	pl_mrc_put(f->cache, get(f, 0));	/* still cached: a hit */
	assert_int_equal(stats(f).hits, 1);
}

static void test_count_evicts_lru(void **state)
{
	evicts_lru(*state);
}

static void test_count_never_evicts_held(void **state)
{
	never_evicts_held(*state);
}

static void test_size_evicts_lru(void **state)
{
	evicts_lru(*state);
}

static void test_size_never_evicts_held(void **state)
{
	never_evicts_held(*state);
}

static void test_larger_than_max_size(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *e;

	pl_mrc_put(f->cache, get(f, 0));
	/* Four pages can never fit in three: uncached, and nothing is
	 * evicted for nothing. */
	assert_int_equal(pl_mrc_get(f->cache, buf(f, 1), 4 * f->pg, FI_SEND,
				    &e), 0);
	assert_false(pl_mrc_entry_cached(e));
	pl_mrc_put(f->cache, e);
	assert_int_equal(stats(f).uncached, 1);
	assert_int_equal(stats(f).evictions, 0);
	assert_int_equal(stats(f).count, 1);
}

static void test_count0_disables(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *e;
	uint64_t regs = atomic_load(&pl_mrc_test_regs);

	assert_false(pl_mrc_enabled(f->cache));
	e = get(f, 0);
	assert_false(pl_mrc_entry_cached(e));
	pl_mrc_put(f->cache, e);
	pl_mrc_put(f->cache, get(f, 0));
	assert_int_equal(atomic_load(&pl_mrc_test_regs), regs + 2);
	assert_int_equal(stats(f).hits, 0);
}

static void test_flush_keeps_held(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *held;

	held = get(f, 0);
	pl_mrc_put(f->cache, get(f, 1));
	pl_mrc_flush(f->cache);
	assert_int_equal(stats(f).count, 1);
	assert_int_equal(pl_mrc_close(f->cache), -FI_EBUSY);
	pl_mrc_put(f->cache, held);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_count_evicts_lru, setup_count3, teardown),
		cmocka_unit_test_setup_teardown(test_count_never_evicts_held, setup_count3, teardown),
		cmocka_unit_test_setup_teardown(test_size_evicts_lru, setup_size3, teardown),
		cmocka_unit_test_setup_teardown(test_size_never_evicts_held, setup_size3, teardown),
		cmocka_unit_test_setup_teardown(test_larger_than_max_size, setup_size3, teardown),
		cmocka_unit_test_setup_teardown(test_count0_disables, setup_count0, teardown),
		cmocka_unit_test_setup_teardown(test_flush_keeps_held, setup_count3, teardown),
	};

	pl_mrc_test_require_monitor();
	return cmocka_run_group_tests_name("pl_mrc_limits", tests, NULL, NULL);
}
