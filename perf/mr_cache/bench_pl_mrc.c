/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The registration cache's costs, in one run:
 *   hit        pl_mrc_get + pl_mrc_put of a cached buffer (ns)
 *   miss       the same on a buffer not cached (the cache registers it and
 *              evicts an older one): registration stand-in + cache work
 *   no cache   the stand-in alone: register + deregister (ns), the floor a
 *              miss is compared with
 *   munmap     one page unmapped with no monitor running (no cache open),
 *              then with each monitor running, of memory a cache holds
 *              ("watched") and of memory it does not: each monitor's
 *              overhead per munmap. userfaultfd: event, reader wake-up,
 *              read. memhooks: the GOT hook, its filter and two
 *              publications to the invalidation log.
 *   free       free(malloc(64)) with no monitor and under memhooks (which
 *              hooks free(), see docs/mr-cache.md)
 * The registration stand-in pins the pages the way a NIC registration
 * does (mlock/munlock); where mlock is refused it falls back to the same
 * number of cheap system calls. Prints medians (pl_bench) and ratios.
 * Usage: bench_pl_mrc [reps]  (default 31 samples per series)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_bench.h"
#include "pl_mrc.h"
#include "pl_mrc_monitor.h"

#define BUF_PAGES 4
#define NBUF 64		/* miss series: more buffers than the cache keeps */
#define BATCH 512	/* operations per sample (hit, miss, no cache) */
#define NMAP 256	/* munmaps per sample */

static size_t pg;
static int use_mlock = 1;

static int standin_reg(void *ctx, struct pl_mrc_entry *e)
{
	(void)ctx;
	if (use_mlock)
		return mlock(pl_mrc_entry_addr(e), pl_mrc_entry_len(e)) ?
		       -FI_EPERM : 0;
	(void)syscall(SYS_getppid);
	return 0;
}

static void standin_dereg(void *ctx, struct pl_mrc_entry *e)
{
	(void)ctx;
	if (use_mlock)
		(void)munlock(pl_mrc_entry_addr(e), pl_mrc_entry_len(e));
	else
		(void)syscall(SYS_getppid);
}

struct bench {
	struct pl_mrc *cache;
	char *bufs;	/* NBUF buffers of BUF_PAGES pages */
	size_t next;
};

static char *buf_at(struct bench *b, size_t i)
{
	return b->bufs + (i % NBUF) * BUF_PAGES * pg;
}

static double sample_same(void *arg)
{
	struct bench *b = arg;
	struct pl_mrc_entry *e;
	uint64_t t0 = pl_bench_now_ns();

	for (int i = 0; i < BATCH; i++) {
		if (pl_mrc_get(b->cache, b->bufs, BUF_PAGES * pg, FI_SEND, &e))
			abort();
		pl_mrc_put(b->cache, e);
	}
	return (double)(pl_bench_now_ns() - t0) / BATCH;
}

static double sample_rotate(void *arg)
{
	struct bench *b = arg;
	struct pl_mrc_entry *e;
	uint64_t t0 = pl_bench_now_ns();

	for (int i = 0; i < BATCH; i++) {
		if (pl_mrc_get(b->cache, buf_at(b, b->next++), BUF_PAGES * pg,
			       FI_SEND, &e))
			abort();
		pl_mrc_put(b->cache, e);
	}
	return (double)(pl_bench_now_ns() - t0) / BATCH;
}

static double sample_munmap(void *arg, bool watched)
{
	struct bench *b = arg;
	struct pl_mrc_entry *e;
	char *p[NMAP];
	uint64_t t0;
	int i;

	for (i = 0; i < NMAP; i++) {
		p[i] = mmap(NULL, pg, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p[i] == MAP_FAILED)
			abort();
		p[i][0] = 1;
		if (watched) {
			if (pl_mrc_get(b->cache, p[i], pg, FI_SEND, &e))
				abort();
			pl_mrc_put(b->cache, e);
		}
	}
	t0 = pl_bench_now_ns();
	for (i = 0; i < NMAP; i++)
		munmap(p[i], pg);
	t0 = pl_bench_now_ns() - t0;
	/* Apply the invalidations outside the timed part. */
	if (b->cache)
		pl_mrc_flush(b->cache);
	return (double)t0 / NMAP;
}

static double sample_munmap_watched(void *arg)
{
	return sample_munmap(arg, true);
}

static double sample_munmap_plain(void *arg)
{
	return sample_munmap(arg, false);
}

static double sample_free(void *arg)
{
	void *volatile p;
	uint64_t t0 = pl_bench_now_ns();

	(void)arg;
	for (int i = 0; i < BATCH; i++) {
		p = malloc(64);
		free(p);
	}
	return (double)(pl_bench_now_ns() - t0) / BATCH;
}

static struct pl_mrc *open_cache(size_t max_count)
{
	struct pl_mrc_attr a = {
		.reg = standin_reg, .dereg = standin_dereg,
		.name = "bench", .max_count = max_count,
		.max_size = PL_MRC_LIMIT_ENV,
	};
	struct pl_mrc *c;

	if (pl_mrc_open(&a, &c)) {
		fprintf(stderr, "cannot open a cache\n");
		exit(1);
	}
	return c;
}

/* The monitor the open caches use ("userfaultfd", "memhooks", ...). */
static const char *monitor_name(void)
{
	struct pl_mrc_monitor *mon;
	const char *name;

	if (pl_mrc_monitor_get(&mon))
		return "";
	name = mon ? mon->name : "disabled";
	pl_mrc_monitor_put(mon);
	return name;
}

static void run(const char *name, double (*fn)(void *), void *arg,
		unsigned reps, struct pl_bench_stats *st)
{
	struct pl_bench_series s = {
		.name = name, .unit = "ns", .warmup = 2, .reps = reps,
		.sample = fn, .arg = arg,
	};

	if (pl_bench_run(&s, st, NULL)) {
		fprintf(stderr, "%s failed\n", name);
		exit(1);
	}
	printf("%-36s median %10.1f ns   p10 %10.1f   p90 %10.1f\n", name,
	       st->median, st->p10, st->p90);
	pl_bench_csv_row(stderr, name, "propel", BUF_PAGES * pg, "ns", st);
}

int main(int argc, char **argv)
{
	struct pl_bench_stats hit, miss, nocache, um_none, fr_none;
	double um_over[2][2] = { { 0 } }, fr_mh = 0;
	bool have[2] = { false, false };
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : 31;
	struct bench b = { 0 };

	pg = (size_t)sysconf(_SC_PAGESIZE);
	b.bufs = mmap(NULL, NBUF * BUF_PAGES * pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b.bufs == MAP_FAILED)
		return 1;
	memset(b.bufs, 1, NBUF * BUF_PAGES * pg);
	if (mlock(b.bufs, pg)) {
		use_mlock = 0;
		printf("mlock refused: the stand-in is one system call\n");
	} else {
		munlock(b.bufs, pg);
	}
	printf("registration stand-in: %s of %d pages; %u samples per "
	       "series\n", use_mlock ? "mlock/munlock" : "getppid",
	       BUF_PAGES, reps);
	pl_bench_csv_header(stderr);

	b.cache = open_cache(NBUF / 2);
	if (!pl_mrc_enabled(b.cache)) {
		printf("the cache is disabled here (no monitor): "
		       "nothing to measure\n");
		return 0;
	}
	printf("monitor for hit/miss: %s\n", monitor_name());
	run("hit (get+put)", sample_same, &b, reps, &hit);
	/* NBUF buffers round-robin through a cache of NBUF/2: all miss. */
	run("miss (get+put, evicting)", sample_rotate, &b, reps, &miss);
	pl_mrc_close(b.cache);

	b.cache = open_cache(0);	/* pass-through */
	run("no cache (reg+dereg)", sample_rotate, &b, reps, &nocache);
	pl_mrc_close(b.cache);

	b.cache = NULL;		/* no cache open: no monitor runs */
	run("munmap, no monitor", sample_munmap_plain, &b, reps, &um_none);
	run("free(malloc(64)), no monitor", sample_free, NULL, reps, &fr_none);

	for (int m = 0; m < 2; m++) {
		const char *want = m ? "memhooks" : "userfaultfd";
		struct pl_bench_stats w, u, fr;
		char name[64];

		setenv("FI_MR_CACHE_MONITOR", want, 1);
		b.cache = open_cache(PL_MRC_LIMIT_ENV);
		if (!pl_mrc_enabled(b.cache) ||
		    strcmp(monitor_name(), want)) {
			printf("%s: not usable here\n", want);
			pl_mrc_close(b.cache);
			continue;
		}
		snprintf(name, sizeof(name), "munmap, %s, unwatched", want);
		run(name, sample_munmap_plain, &b, reps, &u);
		snprintf(name, sizeof(name), "munmap, %s, watched", want);
		run(name, sample_munmap_watched, &b, reps, &w);
		if (m) {
			run("free(malloc(64)), memhooks", sample_free, NULL,
			    reps, &fr);
			fr_mh = fr.median;
		}
		pl_mrc_close(b.cache);
		um_over[m][0] = u.median - um_none.median;
		um_over[m][1] = w.median - um_none.median;
		have[m] = true;
	}
	unsetenv("FI_MR_CACHE_MONITOR");

	printf("\nmiss / hit            %8.1fx\n",
	       pl_bench_ratio(miss.median, hit.median));
	printf("no cache / hit        %8.1fx\n",
	       pl_bench_ratio(nocache.median, hit.median));
	printf("miss - no cache       %8.1f ns (the cache's own work on a miss)\n",
	       miss.median - nocache.median);
	printf("munmap, no monitor    %8.1f ns\n", um_none.median);
	for (int m = 0; m < 2; m++)
		if (have[m])
			printf("%-12s overhead per munmap: %8.1f ns watched, "
			       "%8.1f ns unwatched\n",
			       m ? "memhooks" : "userfaultfd",
			       um_over[m][1], um_over[m][0]);
	if (have[1])
		printf("memhooks overhead per free(malloc(64)): %8.1f ns\n",
		       fr_mh - fr_none.median);
	munmap(b.bufs, NBUF * BUF_PAGES * pg);
	return 0;
}
