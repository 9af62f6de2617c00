/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The registration cache against the real kernel: every way the pages
 * behind a cached range can change (munmap, mmap MAP_FIXED, madvise,
 * mremap, brk, shmdt) must make the next pl_mrc_get miss and register
 * the new pages. Run twice by meson: with the default monitor
 * (userfaultfd; skips (77) where it is not usable) and as
 * pl_mrc_memhooks with FI_MR_CACHE_MONITOR=memhooks; setup checks that
 * the monitor asked for is the one running.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <cmocka.h>

#include "pl_mrc_test.h"

#define NPAGES 4

struct fx {
	struct pl_mrc *cache;
	size_t pg;
	size_t len;
	char *buf;
};

static char *map_flags(void *at, size_t len, int fixed)
{
	char *p = mmap(at, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | fixed, -1, 0);

	if (p == MAP_FAILED)
		print_message("mmap at %p: %s\n", at, strerror(errno));
	assert_true(p != MAP_FAILED);
	pl_mrc_test_fill(p, len);
	return p;
}

static char *map_new(size_t len)
{
	return map_flags(NULL, len, 0);
}

/* New pages over existing ones (MAP_FIXED replaces them). */
static char *map_over(void *at, size_t len)
{
	return map_flags(at, len, MAP_FIXED);
}

/* New pages in a hole we just made. NOREPLACE: if another thread (a
 * sanitizer runtime, say) mapped something there meanwhile, fail
 * instead of clobbering it. */
static char *map_at(void *at, size_t len)
{
	return map_flags(at, len, MAP_FIXED_NOREPLACE);
}

/* One event through the reader before the test proper, so that whatever
 * a sanitizer's interceptors map lazily in that thread is in place and
 * does not land in a hole a test makes. */
static void warm_reader(struct pl_mrc *cache, size_t pg)
{
	struct pl_mrc_entry *e;
	char *p = map_new(pg);

	assert_int_equal(pl_mrc_get(cache, p, pg, FI_SEND, &e), 0);
	pl_mrc_put(cache, e);
	assert_int_equal(munmap(p, pg), 0);
	pl_mrc_flush(cache);
}

static int setup_flags(void **state, uint64_t flags)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(flags);
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(pl_mrc_open(&a, &f->cache), 0);
	assert_true(pl_mrc_enabled(f->cache));
	assert_string_equal(pl_mrc_test_monitor_name(),
			    pl_mrc_test_memhooks() ? "memhooks" : "userfaultfd");
	f->pg = pl_mrc_test_page();
	f->len = NPAGES * f->pg;
	warm_reader(f->cache, f->pg);
	f->buf = map_new(f->len);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_flags(state, 0);
}

static int setup_merge(void **state)
{
	return setup_flags(state, PL_MRC_MERGE);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	assert_int_equal(pl_mrc_close(f->cache), 0);
	if (f->buf)
		munmap(f->buf, f->len);
	free(f);
	return 0;
}

static struct pl_mrc_stats stats(struct fx *f)
{
	struct pl_mrc_stats s;

	pl_mrc_stats_get(f->cache, &s);
	/* warm_reader's entry counts as one miss and one invalidation. */
	s.misses--;
	s.invalidations--;
	return s;
}

/* get + check fresh + put; returns whether the entry was cached */
static bool get_fresh_put(struct fx *f, const void *addr, size_t len)
{
	struct pl_mrc_entry *e;
	bool cached;

	assert_int_equal(pl_mrc_get(f->cache, addr, len, FI_SEND | FI_RECV,
				    &e), 0);
	assert_true(pl_mrc_test_fresh(e, addr, len));
	cached = pl_mrc_entry_cached(e);
	pl_mrc_put(f->cache, e);
	return cached;
}

static void test_hit_after_put(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *e1, *e2;

	assert_int_equal(pl_mrc_get(f->cache, f->buf, f->len, FI_SEND, &e1), 0);
	pl_mrc_put(f->cache, e1);
	/* A sub-range with fewer access bits is a hit on the same entry. */
	assert_int_equal(pl_mrc_get(f->cache, f->buf + 100, 200, FI_SEND,
				    &e2), 0);
	assert_ptr_equal(e1, e2);
	pl_mrc_put(f->cache, e2);
	assert_int_equal(stats(f).hits, 1);
	assert_int_equal(stats(f).misses, 1);
	assert_int_equal(stats(f).count, 1);
}

static void test_access_superset_misses(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *e1, *e2;

	assert_int_equal(pl_mrc_get(f->cache, f->buf, f->len, FI_SEND, &e1), 0);
	assert_int_equal(pl_mrc_get(f->cache, f->buf, f->len,
				    FI_SEND | FI_REMOTE_WRITE, &e2), 0);
	assert_ptr_not_equal(e1, e2);
	assert_true(pl_mrc_entry_access(e2) & FI_REMOTE_WRITE);
	pl_mrc_put(f->cache, e1);
	pl_mrc_put(f->cache, e2);
	assert_int_equal(stats(f).misses, 2);
}

static void test_munmap_then_map_fixed(void **state)
{
	struct fx *f = *state;

	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(munmap(f->buf, f->len), 0);
	map_at(f->buf, f->len);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).misses, 2);
	assert_int_equal(stats(f).hits, 0);
	assert_int_equal(stats(f).invalidations, 1);
}

static void test_map_fixed_over(void **state)
{
	struct fx *f = *state;

	assert_true(get_fresh_put(f, f->buf, f->len));
	/* No munmap: MAP_FIXED replaces the pages itself. */
	map_over(f->buf + f->pg, f->pg);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).misses, 2);
	assert_int_equal(stats(f).invalidations, 1);
}

static void test_munmap_part_unrelated(void **state)
{
	struct fx *f = *state;

	/* An entry on the first two pages survives an unmap of the last. */
	assert_true(get_fresh_put(f, f->buf, 2 * f->pg));
	assert_int_equal(munmap(f->buf + 3 * f->pg, f->pg), 0);
	assert_true(get_fresh_put(f, f->buf, 2 * f->pg));
	assert_int_equal(stats(f).hits, 1);
	assert_int_equal(stats(f).invalidations, 0);
	map_at(f->buf + 3 * f->pg, f->pg);
}

static void test_madvise_dontneed(void **state)
{
	struct fx *f = *state;

	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(madvise(f->buf, f->len, MADV_DONTNEED), 0);
	pl_mrc_test_fill(f->buf, f->len);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).misses, 2);
	assert_int_equal(stats(f).invalidations, 1);
}

static void test_madvise_free(void **state)
{
	struct fx *f = *state;

	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(madvise(f->buf, f->len, MADV_FREE), 0);
	pl_mrc_test_fill(f->buf, f->len);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).invalidations, 1);
}

static void test_mremap_move(void **state)
{
	struct fx *f = *state;
	char *other, *moved;

	assert_true(get_fresh_put(f, f->buf, f->len));
	other = mmap(NULL, f->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	assert_true(other != MAP_FAILED);
	moved = mremap(f->buf, f->len, f->len, MREMAP_MAYMOVE | MREMAP_FIXED,
		       other);
	assert_ptr_equal(moved, other);
	map_at(f->buf, f->len);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).misses, 2);
	assert_true(stats(f).invalidations >= 1);
	/* The moved pages kept their tokens: registering there is fine. */
	assert_true(get_fresh_put(f, moved, f->len));
	munmap(moved, f->len);
}

static void test_mremap_shrink(void **state)
{
	struct fx *f = *state;

	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_ptr_equal(mremap(f->buf, f->len, f->pg, 0), f->buf);
	map_at(f->buf + f->pg, f->len - f->pg);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).misses, 2);
	assert_int_equal(stats(f).invalidations, 1);
}

static void test_held_entry_invalidated(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *old, *e;
	uint64_t deregs;

	assert_int_equal(pl_mrc_get(f->cache, f->buf, f->len, FI_SEND, &old),
			 0);
	assert_int_equal(munmap(f->buf, f->len), 0);
	map_at(f->buf, f->len);
	assert_int_equal(pl_mrc_get(f->cache, f->buf, f->len, FI_SEND, &e), 0);
	assert_ptr_not_equal(old, e);
	assert_true(pl_mrc_test_fresh(e, f->buf, f->len));
	/* The held stale entry is deregistered at its put, not before. */
	deregs = atomic_load(&pl_mrc_test_deregs);
	pl_mrc_put(f->cache, old);
	assert_int_equal(atomic_load(&pl_mrc_test_deregs), deregs + 1);
	pl_mrc_put(f->cache, e);
	assert_int_equal(stats(f).count, 1);
}

static void test_brk_shrink_regrow(void **state)
{
	struct fx *f = *state;
	uintptr_t b0, region;
	size_t pad, len = f->len;

	/* Keep malloc from moving the break while we own its top. */
	free(malloc(1 << 20));
	b0 = (uintptr_t)sbrk(0);
	region = (b0 + f->pg - 1) & ~(uintptr_t)(f->pg - 1);
	pad = region - b0;
	assert_true(sbrk((intptr_t)(pad + len)) != (void *)-1);
	pl_mrc_test_fill((void *)region, len);
	assert_true(get_fresh_put(f, (void *)region, len));
	if ((uintptr_t)sbrk(0) != region + len) {
		/* Someone else moved the break: not ours to shrink. */
		print_message("break moved by another allocator; skipping\n");
		skip();
	}
	assert_true(sbrk(-(intptr_t)len) != (void *)-1);
	assert_true(sbrk((intptr_t)len) != (void *)-1);
	pl_mrc_test_fill((void *)region, len);
	assert_true(get_fresh_put(f, (void *)region, len));
	assert_int_equal(stats(f).misses, 2);
	assert_int_equal(stats(f).invalidations, 1);
	pl_mrc_flush(f->cache);
	if ((uintptr_t)sbrk(0) == region + len)
		(void)sbrk(-(intptr_t)(pad + len));
}

/*
 * SysV shared memory. userfaultfd: the kernel refuses to register it, so
 * its registrations are handed out uncached (made at every get, dropped
 * at every put) and a shmdt/shmat at the same address can never be
 * served stale. memhooks: it is cached, and shmdt invalidates it.
 */
static void test_shmat_shmdt(void **state)
{
	struct fx *f = *state;
	bool mh = pl_mrc_test_memhooks();
	uint64_t regs;
	int id;
	char *p, *q;

	id = shmget(IPC_PRIVATE, f->len, IPC_CREAT | 0600);
	assert_true(id >= 0);
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	assert_true(p != (void *)-1);
	pl_mrc_test_fill(p, f->len);
	regs = atomic_load(&pl_mrc_test_regs);
	assert_true(get_fresh_put(f, p, f->len) == mh);
	if (mh)	/* a hit while attached */
		assert_true(get_fresh_put(f, p, f->len));
	assert_int_equal(shmdt(p), 0);

	id = shmget(IPC_PRIVATE, f->len, IPC_CREAT | 0600);
	assert_true(id >= 0);
	q = shmat(id, p, 0);
	shmctl(id, IPC_RMID, NULL);
	assert_ptr_equal(q, p);
	pl_mrc_test_fill(q, f->len);
	assert_true(get_fresh_put(f, q, f->len) == mh);
	assert_int_equal(atomic_load(&pl_mrc_test_regs), regs + 2);
	if (mh) {
		assert_int_equal(stats(f).hits, 1);
		assert_int_equal(stats(f).invalidations, 1);
		assert_int_equal(stats(f).uncached, 0);
	} else {
		assert_int_equal(stats(f).uncached, 2);
		assert_int_equal(stats(f).count, 0);
	}
	assert_int_equal(shmdt(q), 0);
}

static void test_merge_adjacent(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *e;

	assert_true(get_fresh_put(f, f->buf, 2 * f->pg));
	assert_true(get_fresh_put(f, f->buf + 2 * f->pg, 2 * f->pg));
	assert_int_equal(stats(f).count, 1);
	assert_int_equal(pl_mrc_get(f->cache, f->buf + f->pg, 2 * f->pg,
				    FI_SEND, &e), 0);
	assert_ptr_equal(pl_mrc_entry_addr(e), f->buf);
	assert_int_equal(pl_mrc_entry_len(e), f->len);
	pl_mrc_put(f->cache, e);
	assert_int_equal(stats(f).hits, 1);
	/* Unmapping one page drops the merged entry. */
	assert_int_equal(munmap(f->buf + 3 * f->pg, f->pg), 0);
	map_at(f->buf + 3 * f->pg, f->pg);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).invalidations, 1);
}

static void test_merge_keeps_held(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *a, *b;

	assert_int_equal(pl_mrc_get(f->cache, f->buf, 2 * f->pg, FI_SEND, &a),
			 0);
	assert_int_equal(pl_mrc_get(f->cache, f->buf + f->pg, 3 * f->pg,
				    FI_RECV, &b), 0);
	/* b replaced a in the tree; a stays valid until its put. */
	assert_int_equal(pl_mrc_entry_len(b), f->len);
	assert_int_equal(pl_mrc_entry_access(b), FI_SEND | FI_RECV);
	assert_true(pl_mrc_test_fresh(a, f->buf, 2 * f->pg));
	pl_mrc_put(f->cache, a);
	pl_mrc_put(f->cache, b);
	assert_int_equal(stats(f).count, 1);
}

/*
 * The pages change while a miss registers them (the cache's lock is not
 * held then), and another call drains the cache's invalidations before
 * the miss inserts its entry: the miss must still see the change, drop
 * its registration of the old pages and register the new ones.
 */
static struct fx *during_reg_fx;

static void change_during_reg(struct pl_mrc_entry *e)
{
	struct fx *f = during_reg_fx;
	struct pl_mrc_stats s;

	(void)e;
	pl_mrc_test_after_reg = NULL;
	map_over(f->buf, f->len);		/* new pages, new tokens */
	pl_mrc_stats_get(f->cache, &s);		/* drains the cursor */
}

static void test_changed_during_reg(void **state)
{
	struct fx *f = *state;
	uint64_t regs = atomic_load(&pl_mrc_test_regs);

	during_reg_fx = f;
	pl_mrc_test_after_reg = change_during_reg;
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_null(pl_mrc_test_after_reg);
	assert_int_equal(atomic_load(&pl_mrc_test_regs), regs + 2);
	assert_true(get_fresh_put(f, f->buf, f->len));
	assert_int_equal(stats(f).hits, 1);
}

/* Whether the mapping holding addr is registered with a uffd in WP mode
 * ("uw" among the VmFlags of /proc/self/smaps). */
static bool watched(const void *addr)
{
	char line[512];
	uintptr_t lo, hi, a = (uintptr_t)addr;
	bool in = false, ret = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			ret = strstr(line, " uw") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Dropping an entry unregisters the pages no other entry covers, so an
 * unmap of memory the cache no longer holds costs no event. */
static void test_dropped_range_unwatched(void **state)
{
	struct fx *f = *state;
	struct pl_mrc_entry *a, *b;

	if (pl_mrc_test_memhooks()) {
		print_message("userfaultfd registrations only\n");
		skip();
	}
	assert_int_equal(pl_mrc_get(f->cache, f->buf, 2 * f->pg, FI_SEND, &a),
			 0);
	assert_int_equal(pl_mrc_get(f->cache, f->buf + f->pg, 3 * f->pg,
				    FI_SEND, &b), 0);
	assert_true(watched(f->buf));
	assert_true(watched(f->buf + 3 * f->pg));
	pl_mrc_put(f->cache, a);
	pl_mrc_flush(f->cache);
	/* Page 0 was a's alone; page 1 is still b's. */
	assert_false(watched(f->buf));
	assert_true(watched(f->buf + f->pg));
	pl_mrc_put(f->cache, b);
	pl_mrc_flush(f->cache);
	assert_false(watched(f->buf + f->pg));
	assert_false(watched(f->buf + 3 * f->pg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hit_after_put, setup, teardown),
		cmocka_unit_test_setup_teardown(test_access_superset_misses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_munmap_then_map_fixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_fixed_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_munmap_part_unrelated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_madvise_dontneed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_madvise_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mremap_move, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mremap_shrink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_entry_invalidated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_brk_shrink_regrow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shmat_shmdt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropped_range_unwatched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_during_reg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_adjacent, setup_merge, teardown),
		cmocka_unit_test_setup_teardown(test_merge_keeps_held, setup_merge, teardown),
	};

	pl_mrc_test_require_monitor();
	return cmocka_run_group_tests_name(pl_mrc_test_memhooks() ?
					   "pl_mrc_memhooks" : "pl_mrc_uffd",
					   tests, NULL, NULL);
}
