/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The memhooks monitor is installed and removed while other threads are
 * inside the intercepted functions: 4 threads map, discard (madvise
 * DONTNEED and FREE), unmap, and malloc/free large blocks in a loop
 * while the main thread opens a cache (installing the hooks), checks that
 * a replacement of its own cached buffer is seen, and closes it
 * (removing them), PROPEL_MRC_MH_CYCLES times (default 200). Every call
 * of the workers must succeed, and every check of the main thread must
 * see fresh pages. Suites stress and concurrency (CI runs it under TSan).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "pl_mrc_test.h"

#define THREADS 4
#define NPAGES 4

struct worker {
	pthread_t tid;
	size_t pg;
	uint64_t ops;		/* read after join */
	uint64_t errors;
};

static _Atomic int stop_workers;
static _Atomic int workers_running;	/* done one loop each */

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	size_t len = NPAGES * w->pg;
	char *p;
	void *m;

	while (!atomic_load_explicit(&stop_workers, memory_order_relaxed)) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			w->errors++;
			continue;
		}
		memset(p, 1, len);
		if (madvise(p, w->pg, MADV_DONTNEED) ||
		    madvise(p + w->pg, w->pg, MADV_FREE))
			w->errors++;
		if (munmap(p, len))
			w->errors++;
		m = malloc(256 << 10);
		if (!m)
			w->errors++;
		free(m);
		if (!w->ops++)
			atomic_fetch_add(&workers_running, 1);
	}
	return NULL;
}

static unsigned cycles(void)
{
	const char *v = getenv("PROPEL_MRC_MH_CYCLES");

	return v && atoi(v) > 0 ? (unsigned)atoi(v) : 200;
}

/* One start/stop of the monitor with a real check in between. */
static void cycle(size_t len)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	struct pl_mrc_entry *e;
	struct pl_mrc_stats s;
	struct pl_mrc *cache;
	char *buf;

	assert_int_equal(pl_mrc_open(&a, &cache), 0);
	assert_true(pl_mrc_enabled(cache));
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	pl_mrc_test_fill(buf, len);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	assert_true(pl_mrc_entry_cached(e));
	pl_mrc_put(cache, e);
	/* New pages in place (MAP_FIXED: no hole a worker could take). */
	assert_ptr_equal(mmap(buf, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
			 buf);
	pl_mrc_test_fill(buf, len);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	assert_true(pl_mrc_test_fresh(e, buf, len));
	pl_mrc_put(cache, e);
	pl_mrc_stats_get(cache, &s);
	assert_int_equal(s.invalidations, 1);
	assert_int_equal(pl_mrc_close(cache), 0);
	assert_int_equal(munmap(buf, len), 0);
}

static void test_install_remove_under_load(void **state)
{
	struct worker w[THREADS] = { 0 };
	size_t pg = pl_mrc_test_page();
	unsigned i, n = cycles();
	uint64_t ops = 0;

	(void)state;
	/* The monitor asked for is the one that runs. */
	assert_string_equal(pl_mrc_test_monitor_name(), "memhooks");
	for (i = 0; i < THREADS; i++) {
		w[i].pg = pg;
		assert_int_equal(pthread_create(&w[i].tid, NULL, worker_main,
						&w[i]), 0);
	}
	/* Every worker is in its loop before the first install. */
	while (atomic_load(&workers_running) < THREADS)
		sched_yield();
	for (i = 0; i < n; i++)
		cycle(NPAGES * pg);
	atomic_store(&stop_workers, 1);
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(w[i].tid, NULL), 0);
		assert_int_equal(w[i].errors, 0);
		ops += w[i].ops;
	}
	print_message("%u start/stop cycles, %llu worker loops\n", n,
		      (unsigned long long)ops);
	assert_true(ops > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_install_remove_under_load),
	};

	if (!pl_mrc_test_memhooks()) {
		printf("SKIP: run with FI_MR_CACHE_MONITOR=memhooks\n");
		return 77;
	}
	return cmocka_run_group_tests_name("pl_mrc_memhooks_mt", tests, NULL,
					   NULL);
}
