/* SPDX-License-Identifier: BSD-2-Clause */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>

#include "pl_bench.h"

uint64_t pl_bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pl_bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile on sorted data; q in [0, 1]. */
static double pl_bench_percentile(const double *sorted, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)(n - 1) + 0.5);

	return sorted[rank < n ? rank : n - 1];
}

int pl_bench_stats_compute(double *samples, size_t n,
			   struct pl_bench_stats *stats_p)
{
	struct pl_bench_stats s = { .count = n };
	double sum = 0;
	size_t i;

	if (!samples || !n || !stats_p)
		return -EINVAL;
	qsort(samples, n, sizeof(*samples), pl_bench_cmp_double);
	for (i = 0; i < n; i++)
		sum += samples[i];
	s.min = samples[0];
	s.max = samples[n - 1];
	s.mean = sum / (double)n;
	/* The median of an even count is the mean of the middle pair. */
	s.median = n % 2 ? samples[n / 2]
			 : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
	s.p10 = pl_bench_percentile(samples, n, 0.10);
	s.p90 = pl_bench_percentile(samples, n, 0.90);
	*stats_p = s;
	return 0;
}

int pl_bench_run(const struct pl_bench_series *series,
		 struct pl_bench_stats *stats_p, double **samples_p)
{
	double *samples, *sorted;
	unsigned i;
	int ret;

	if (!series || !series->sample || !series->reps || !stats_p)
		return -EINVAL;
	samples = calloc(series->reps, sizeof(*samples));
	sorted = calloc(series->reps, sizeof(*sorted));
	if (!samples || !sorted) {
		ret = -ENOMEM;
		goto err_free;
	}
	/* Warm-up: connection set-up, page faults and cold caches land here,
	 * never in a timed sample. */
	for (i = 0; i < series->warmup; i++)
		(void)series->sample(series->arg);
	for (i = 0; i < series->reps; i++)
		samples[i] = series->sample(series->arg);

	memcpy(sorted, samples, series->reps * sizeof(*samples));
	ret = pl_bench_stats_compute(sorted, series->reps, stats_p);
	if (ret)
		goto err_free;
	free(sorted);
	if (samples_p)
		*samples_p = samples;
	else
		free(samples);
	return 0;

err_free:
	free(sorted);
	free(samples);
	return ret;
}

double pl_bench_ratio(double a, double b)
{
	return b == 0.0 ? 0.0 : a / b;
}

void pl_bench_csv_header(FILE *out)
{
	fprintf(out, "benchmark,library,size,unit,median,min,max,p10,p90,count\n");
}

void pl_bench_csv_row(FILE *out, const char *bench, const char *library,
		      size_t size, const char *unit,
		      const struct pl_bench_stats *s)
{
	fprintf(out, "%s,%s,%zu,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%zu\n", bench,
		library, size, unit, s->median, s->min, s->max, s->p10, s->p90,
		s->count);
}

const char *pl_bench_library_name(void)
{
	static char name[4096];
	Dl_info where;

	if (!dladdr((void *)fi_getinfo, &where) || !where.dli_fname)
		return "unknown";
	/* The reference lives in the system library directory; anything else
	 * is a propel build or install. */
	snprintf(name, sizeof(name), "%s:%s",
		 strncmp(where.dli_fname, "/usr/lib", 8) &&
		 strncmp(where.dli_fname, "/lib", 4) ? "propel" : "reference",
		 where.dli_fname);
	return name;
}
