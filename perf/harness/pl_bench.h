/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The benchmark harness every program under perf/ shares: a monotonic
 * clock, an untimed warm-up, repeated samples, order statistics, the ratio
 * of two runs and CSV rows.
 *
 * Benchmarks print medians and ratios; they never pass or fail on a time
 * (machines are shared and noisy). Nothing here is thread-safe: one
 * pl_bench_series per measuring thread.
 */
#ifndef PROPEL_PL_BENCH_H
#define PROPEL_PL_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pl_bench_now_ns(void);

struct pl_bench_stats {
	size_t count;
	double median;
	double min;
	double max;
	double mean;
	double p10;     /* spread: 10th and 90th percentiles */
	double p90;
};

/*
 * One measurement: run `warmup` untimed calls, then `reps` timed calls of
 * sample(arg), each returning its own figure (ns per op, MB/s, ...), so
 * the callback decides what one sample means (a batch of iterations,
 * typically, to rise above clock resolution).
 */
struct pl_bench_series {
	const char *name;        /* benchmark name, for CSV */
	const char *unit;        /* "us", "MB/s", "Mmsg/s", ... */
	unsigned warmup;
	unsigned reps;
	double (*sample)(void *arg);
	void *arg;
};

/* Runs the series; samples_p (optional, reps entries, caller frees) gets
 * the raw samples. Returns 0 or a negative errno. */
int pl_bench_run(const struct pl_bench_series *series,
		 struct pl_bench_stats *stats_p, double **samples_p);

/* Order statistics of n samples (the array is sorted in place). */
int pl_bench_stats_compute(double *samples, size_t n,
			   struct pl_bench_stats *stats_p);

/* a / b, or 0 when b is 0; a ratio > 1 means a is larger. */
double pl_bench_ratio(double a, double b);

/* CSV: one header, then one row per (benchmark, library, size) result. */
void pl_bench_csv_header(FILE *out);
void pl_bench_csv_row(FILE *out, const char *bench, const char *library,
		      size_t size, const char *unit,
		      const struct pl_bench_stats *stats);

/* The library a benchmark binary actually loaded ("propel:<path>" or
 * "reference:<path>"), from the file that provides fi_getinfo. */
const char *pl_bench_library_name(void);

#endif /* PROPEL_PL_BENCH_H */
