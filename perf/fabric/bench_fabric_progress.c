/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What progress costs, in one run:
 *
 *   pingpong_manual   8 B tagged ping-pong (-s), half round trip in us, on
 *   pingpong_auto     a FI_PROGRESS_MANUAL and then a FI_PROGRESS_AUTO
 *                     domain (the same loop: the application still reads
 *                     its CQs; with auto a progress thread may run too)
 *   idle_cpu_auto     an FI_PROGRESS_AUTO domain and endpoint that moved
 *                     one message and then sit idle for 2 s: the CPU time
 *                     of the whole process (every thread, getrusage)
 *                     over those 2 s as a percentage of one core
 *
 * A library that refuses a mode at fi_getinfo gets a "n/a on this
 * library" line (no comma, so CSV readers skip it) and the run goes on;
 * the exit status stays 0.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <rdma/fi_errno.h>
#include <time.h>

#include "bf_common.h"
#include "pl_bench.h"

#define PR_IDLE_S 2

struct pr_state {
	struct bf_side *side;
	unsigned seq;
};

static double pr_sample(void *arg)
{
	struct pr_state *st = arg;
	struct bf_side *s = st->side;
	unsigned i, iters = s->opts->iters;
	uint64_t t0 = pl_bench_now_ns();

	for (i = 0; i < iters; i++, st->seq++) {
		bf_recv(s, s->opts->size, st->seq);
		bf_send(s, s->opts->size, st->seq);
		bf_wait(s, s->tx_done, s->rx_done + 1);
	}
	return (double)(pl_bench_now_ns() - t0) / 1e3 / (2.0 * iters);
}

static int pr_pingpong_body(struct bf_side *side, void *arg)
{
	const struct bf_opts *o = side->opts;
	const char *bench = arg;
	struct pr_state st = { .side = side };
	struct pl_bench_stats stats;
	struct pl_bench_series series = {
		.name = bench, .unit = "us", .warmup = o->warmup,
		.reps = o->reps, .sample = pr_sample, .arg = &st,
	};
	uint64_t i, tx0, total = (uint64_t)(o->warmup + o->reps) * o->iters;

	if (side->rank == 0) {
		if (pl_bench_run(&series, &stats, NULL))
			return 1;
		pl_bench_csv_row(stdout, bench, pl_bench_library_name(),
				 o->size, "us", &stats);
		fflush(stdout);
		return 0;
	}
	tx0 = side->tx_done;
	for (i = 0; i < total; i++) {
		bf_recv(side, o->size, (unsigned)i);
		bf_wait(side, side->tx_done, side->rx_done + 1);
		bf_send(side, o->size, (unsigned)i);
	}
	/* every send completes before returning (see bench_fabric_pingpong:
	 * under manual progress a bounce-buffer send needs its sender) */
	bf_wait(side, tx0 + total, side->rx_done);
	return 0;
}

static uint64_t pr_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
	       1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
	       1000u;
}

static int pr_idle_body(struct bf_side *side, void *arg)
{
	const struct bf_opts *o = side->opts;
	struct timespec idle = { .tv_sec = PR_IDLE_S };
	struct pl_bench_stats stats;
	uint64_t c0, c1, t0, t1;
	double pct;

	(void)arg;
	/* one message each way: the domain has done real work before */
	bf_recv(side, o->size, 0);
	if (side->rank == 0)
		bf_send(side, o->size, 0);
	bf_wait(side, side->tx_done, 1);
	if (side->rank == 1)
		bf_send(side, o->size, 0);
	bf_wait(side, side->tx_done, 1);
	bf_barrier(side);
	/* both processes idle together; rank 0 measures itself */
	c0 = pr_cpu_ns();
	t0 = pl_bench_now_ns();
	while (nanosleep(&idle, &idle))
		;
	c1 = pr_cpu_ns();
	t1 = pl_bench_now_ns();
	if (side->rank == 0) {
		pct = 100.0 * (double)(c1 - c0) / (double)(t1 - t0);
		pl_bench_stats_compute(&pct, 1, &stats);
		pl_bench_csv_row(stdout, "idle_cpu_auto", pl_bench_library_name(),
				 0, "%", &stats);
		fflush(stdout);
	}
	return 0;
}

/* Runs body on a domain with the given progress, or prints n/a. */
static int pr_run(struct bf_opts *opts, enum fi_progress progress,
		  const char *bench, int (*body)(struct bf_side *, void *))
{
	int ret;

	opts->progress = progress;
	ret = bf_probe(opts);
	if (ret) {
		printf("# %s n/a on this library (%s): fi_getinfo with "
		       "data_progress %s returned %d (%s)\n", bench,
		       pl_bench_library_name(),
		       progress == FI_PROGRESS_AUTO ? "AUTO" : "MANUAL", ret,
		       fi_strerror(-ret));
		return 0;
	}
	return bf_run_pair(opts, body, (void *)bench);
}

int main(int argc, char **argv)
{
	struct bf_opts opts;
	int rc = 0;

	bf_opts_parse(argc, argv, NULL, &opts);
	opts.tagged = true;
	if (!opts.size)
		opts.size = 8;
	opts.min_size = opts.max_size = opts.size;
	pl_bench_csv_header(stdout);
	rc |= pr_run(&opts, FI_PROGRESS_MANUAL, "pingpong_manual",
		     pr_pingpong_body);
	rc |= pr_run(&opts, FI_PROGRESS_AUTO, "pingpong_auto",
		     pr_pingpong_body);
	rc |= pr_run(&opts, FI_PROGRESS_AUTO, "idle_cpu_auto", pr_idle_body);
	return rc;
}
