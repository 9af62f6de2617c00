/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The memhooks monitor's GOT patching (FI_MR_CACHE_MONITOR=memhooks):
 *   chain    another library's munmap (pl_mrc_other_hook.c, linked
 *            before libc) is still called while our hook is installed
 *            and after it is removed; our hook still sees the unmap.
 *   dlopen   a library loaded after the monitor started has its munmap
 *            call intercepted (the dlopen hook patched it).
 *   free     glibc's free() of a large block unmaps it internally (no
 *            GOT): the free hook invalidates the block anyway.
 *   restart  start/stop/start: the slots lead to the same functions.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "pl_mrc_test.h"

#define NPAGES 4

extern _Atomic unsigned long pl_mrc_other_hook_calls;

static struct pl_mrc *open_cache(void)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	struct pl_mrc *cache;

	assert_int_equal(pl_mrc_open(&a, &cache), 0);
	assert_true(pl_mrc_enabled(cache));
	assert_string_equal(pl_mrc_test_monitor_name(), "memhooks");
	return cache;
}

static char *map_fill(void *at, size_t len)
{
	char *p = mmap(at, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS |
		       (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);

	assert_true(p != MAP_FAILED);
	if (at)
		assert_ptr_equal(p, at);
	pl_mrc_test_fill(p, len);
	return p;
}

static bool get_fresh_put(struct pl_mrc *cache, void *p, size_t len)
{
	struct pl_mrc_entry *e;
	bool cached;

	assert_int_equal(pl_mrc_get(cache, p, len, FI_SEND, &e), 0);
	assert_true(pl_mrc_test_fresh(e, p, len));
	cached = pl_mrc_entry_cached(e);
	pl_mrc_put(cache, e);
	return cached;
}

static uint64_t invalidations(struct pl_mrc *cache)
{
	struct pl_mrc_stats s;

	pl_mrc_stats_get(cache, &s);
	return s.invalidations;
}

/* One munmap from this executable: did the other hook see it? */
static bool other_hook_sees_munmap(void)
{
	size_t len = pl_mrc_test_page();
	unsigned long before = atomic_load(&pl_mrc_other_hook_calls);
	char *p = map_fill(NULL, len);

	assert_int_equal(munmap(p, len), 0);
	return atomic_load(&pl_mrc_other_hook_calls) == before + 1;
}

static void test_chain(void **state)
{
	size_t len = NPAGES * pl_mrc_test_page();
	struct pl_mrc *cache;
	unsigned long calls;
	char *buf;

	(void)state;
	assert_true(other_hook_sees_munmap());		/* before us */
	cache = open_cache();
	buf = map_fill(NULL, len);
	assert_true(get_fresh_put(cache, buf, len));
	calls = atomic_load(&pl_mrc_other_hook_calls);
	assert_int_equal(munmap(buf, len), 0);
	/* Our hook chained to the other one... */
	assert_int_equal(atomic_load(&pl_mrc_other_hook_calls), calls + 1);
	map_fill(buf, len);
	/* ...and saw the unmap itself. */
	assert_true(get_fresh_put(cache, buf, len));
	assert_int_equal(invalidations(cache), 1);
	assert_int_equal(pl_mrc_close(cache), 0);
	assert_true(other_hook_sees_munmap());		/* after us */
	munmap(buf, len);
}

static void test_dlopen_patched(void **state)
{
	size_t len = NPAGES * pl_mrc_test_page();
	const char *path = getenv("PL_MRC_DL_UNMAPPER");
	int (*unmap)(void *, size_t);
	struct pl_mrc *cache;
	void *lib;
	char *buf;

	(void)state;
	if (!path) {
		print_message("PL_MRC_DL_UNMAPPER is not set\n");
		skip();
	}
	cache = open_cache();
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(lib);
	unmap = (int (*)(void *, size_t))dlsym(lib, "pl_mrc_dl_unmap");
	assert_non_null(unmap);
	buf = map_fill(NULL, len);
	assert_true(get_fresh_put(cache, buf, len));
	assert_int_equal(unmap(buf, len), 0);
	map_fill(buf, len);
	assert_true(get_fresh_put(cache, buf, len));
	assert_int_equal(invalidations(cache), 1);
	assert_int_equal(pl_mrc_close(cache), 0);
	dlclose(lib);
	munmap(buf, len);
}

/* A block well above glibc's mmap threshold: free() unmaps it with an
 * internal call and the next malloc of the same size may get new pages
 * at the same address. The cache must not serve the old registration. */
static void test_free_large_block(void **state)
{
	size_t len = 64 * pl_mrc_test_page() * 16;	/* 4 MiB with 4 KiB pages */
	struct pl_mrc *cache;
	unsigned long calls;
	char *p, *q;

	(void)state;
	/* Keep both blocks mmapped (no dynamic threshold); a sanitizer's
	 * allocator ignores it, and the checks below hold either way. */
	(void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
	cache = open_cache();
	/* Page-aligned: the stand-in registration reads whole pages. */
	p = aligned_alloc(pl_mrc_test_page(), len);
	assert_non_null(p);
	pl_mrc_test_fill(p, len);
	assert_true(get_fresh_put(cache, p, len));
	calls = atomic_load(&pl_mrc_other_hook_calls);
	free(p);
	print_message("free() unmapped %s; ", atomic_load(
		      &pl_mrc_other_hook_calls) == calls ?
		      "without a GOT call (internal munmap)" :
		      "through a GOT slot");
	q = aligned_alloc(pl_mrc_test_page(), len);
	print_message("the next malloc returned %s address\n",
		      q == p ? "the same" : "another");
	assert_non_null(q);
	pl_mrc_test_fill(q, len);
	/* Same address or not, the entry is fresh (a stale one would not
	 * match the tokens just written to the new pages). */
	assert_true(get_fresh_put(cache, q, len));
	assert_int_equal(invalidations(cache), 1);
	free(q);
	assert_int_equal(pl_mrc_close(cache), 0);
}

static void test_restart(void **state)
{
	size_t len = NPAGES * pl_mrc_test_page();
	struct pl_mrc *cache;
	char *buf;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		cache = open_cache();
		buf = map_fill(NULL, len);
		assert_true(get_fresh_put(cache, buf, len));
		assert_int_equal(munmap(buf, len), 0);
		map_fill(buf, len);
		assert_true(get_fresh_put(cache, buf, len));
		assert_int_equal(invalidations(cache), 1);
		assert_int_equal(pl_mrc_close(cache), 0);
		munmap(buf, len);
		assert_true(other_hook_sees_munmap());
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_dlopen_patched),
		cmocka_unit_test(test_free_large_block),
		cmocka_unit_test(test_restart),
	};

	if (!pl_mrc_test_memhooks()) {
		printf("SKIP: run with FI_MR_CACHE_MONITOR=memhooks\n");
		return 77;
	}
	return cmocka_run_group_tests_name("pl_mrc_memhooks_got", tests,
					   NULL, NULL);
}
