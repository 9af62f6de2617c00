/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Four threads share one cache (merging on, a small count limit so that
 * eviction runs all the time) and, each in its own arena, register,
 * hold, unmap, replace (MAP_FIXED), discard (MADV_DONTNEED) and remap
 * memory at random for PROPEL_MRC_STRESS_SECONDS (default 10; the ASan
 * and quick runs set fewer). Every entry returned must have been made on
 * the pages mapped at the time of the lookup (pl_mrc_test_fresh);
 * afterwards every registration has been deregistered exactly once.
 * Suites stress and concurrency (CI runs the latter under TSan).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <time.h>
#include <cmocka.h>

#include "pl_mrc_test.h"

#define THREADS 4
#define SLOTS 8
#define SLOT_PAGES 4
#define SLOT_STRIDE 6	/* pages: slots never touch */

struct worker {
	pthread_t tid;
	struct pl_mrc *cache;
	char *arena;
	size_t pg;
	uint64_t rng;
	double seconds;
	/* results, read after join */
	uint64_t ops;
	uint64_t lost_slots;	/* holes another thread mapped into */
	bool dead[SLOTS];
	uint64_t stale;
	uint64_t errors;
};

static uint64_t rnd(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *slot(struct worker *w, unsigned k)
{
	return w->arena + (size_t)k * SLOT_STRIDE * w->pg;
}

/* New pages over the slot's existing ones. */
static void remap(struct worker *w, char *p, size_t len)
{
	if (mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p) {
		w->errors++;
		return;
	}
	pl_mrc_test_fill(p, len);
}

/* New pages in the hole left by munmap; a hole another thread (the
 * runtime, the allocator) mapped into meanwhile is not ours any more:
 * the slot is retired, never clobbered. */
static void refill_hole(struct worker *w, unsigned k, size_t len)
{
	char *p = slot(w, k);

	if (mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != p) {
		if (errno == EEXIST) {
			w->dead[k] = true;
			w->lost_slots++;
		} else {
			w->errors++;
		}
		return;
	}
	pl_mrc_test_fill(p, len);
}

static struct pl_mrc_entry *lookup(struct worker *w, char *p, size_t len)
{
	struct pl_mrc_entry *e;
	uint64_t access = (rnd(w) & 1) ? FI_SEND : FI_SEND | FI_REMOTE_READ;

	if (pl_mrc_get(w->cache, p, len, access, &e)) {
		w->errors++;
		return NULL;
	}
	if (!pl_mrc_test_fresh(e, p, len))
		w->stale++;
	return e;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	size_t len = SLOT_PAGES * w->pg;
	struct pl_mrc_entry *e, *held;
	double end = now_s() + w->seconds;
	unsigned k;
	size_t off, n;
	char *p;

	while (now_s() < end) {
		for (int i = 0; i < 64; i++, w->ops++) {
			k = rnd(w) % SLOTS;
			if (w->dead[k])
				continue;
			p = slot(w, k);
			off = (rnd(w) % SLOT_PAGES) * w->pg + rnd(w) % 64;
			n = 1 + rnd(w) % (len - off);
			switch (rnd(w) % 8) {
			case 0: /* unmap, then new pages at the same place */
				if (munmap(p, len))
					w->errors++;
				refill_hole(w, k, len);
				break;
			case 1: /* replace part of the slot in place */
				remap(w, p + (rnd(w) % SLOT_PAGES) * w->pg,
				      w->pg);
				break;
			case 2: /* discard the pages */
				if (madvise(p, len, MADV_DONTNEED))
					w->errors++;
				pl_mrc_test_fill(p, len);
				break;
			case 3: /* hold an entry across a replacement */
				held = lookup(w, p + off, n);
				remap(w, p, len);
				e = lookup(w, p + off, n);
				if (held)
					pl_mrc_put(w->cache, held);
				if (e)
					pl_mrc_put(w->cache, e);
				break;
			default: /* register and release (hits, merges) */
				e = lookup(w, p + off, n);
				if (e)
					pl_mrc_put(w->cache, e);
				break;
			}
		}
	}
	return NULL;
}

static double stress_seconds(void)
{
	const char *s = getenv("PROPEL_MRC_STRESS_SECONDS");
	double v = s ? atof(s) : 10.0;

	return v > 0 ? v : 10.0;
}

static void test_four_threads(void **state)
{
	static struct worker w[THREADS];
	struct pl_mrc_attr a = pl_mrc_test_attr(PL_MRC_MERGE);
	size_t pg = pl_mrc_test_page();
	size_t arena_len = SLOTS * SLOT_STRIDE * pg;
	struct pl_mrc_stats st;
	struct pl_mrc *cache;
	uint64_t ops = 0, stale = 0, errors = 0, lost = 0;
	double seconds = stress_seconds();
	int i;

	(void)state;
	a.max_count = 24;
	alarm((unsigned)seconds + 120);
	assert_int_equal(pl_mrc_open(&a, &cache), 0);
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .cache = cache, .pg = pg,
			.rng = 0x9e3779b97f4a7c15ULL * (i + 1),
			.seconds = seconds };
		w[i].arena = mmap(NULL, arena_len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(w[i].arena != MAP_FAILED);
		pl_mrc_test_fill(w[i].arena, arena_len);
	}
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&w[i].tid, NULL, worker_main,
						&w[i]), 0);
	for (i = 0; i < THREADS; i++) {
		pthread_join(w[i].tid, NULL);
		ops += w[i].ops;
		stale += w[i].stale;
		errors += w[i].errors;
		lost += w[i].lost_slots;
	}
	pl_mrc_stats_get(cache, &st);
	print_message("%.1f s: %llu operations, %llu hits, %llu misses, "
		      "%llu evictions, %llu invalidations, %llu uncached, "
		      "%llu slots retired\n",
		      seconds, (unsigned long long)ops,
		      (unsigned long long)st.hits,
		      (unsigned long long)st.misses,
		      (unsigned long long)st.evictions,
		      (unsigned long long)st.invalidations,
		      (unsigned long long)st.uncached,
		      (unsigned long long)lost);
	assert_int_equal(stale, 0);
	assert_int_equal(errors, 0);
	assert_true(st.invalidations > 0);
	assert_true(st.hits > 0);
	assert_int_equal(pl_mrc_close(cache), 0);
	assert_int_equal(atomic_load(&pl_mrc_test_regs),
			 atomic_load(&pl_mrc_test_deregs));
	for (i = 0; i < THREADS; i++)
		for (unsigned k = 0; k < SLOTS; k++) {
			if (!w[i].dead[k])
				munmap(slot(&w[i], k), SLOT_PAGES * pg);
			munmap(slot(&w[i], k) + SLOT_PAGES * pg,
			       (SLOT_STRIDE - SLOT_PAGES) * pg);
		}
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_four_threads),
	};

	pl_mrc_test_require_monitor();
	return cmocka_run_group_tests_name("pl_mrc_stress", tests, NULL, NULL);
}
