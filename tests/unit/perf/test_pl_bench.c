/* SPDX-License-Identifier: BSD-2-Clause */
/* The shared benchmark harness: statistics, warm-up accounting, CSV. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pl_bench.h"

static void test_median_of_odd_count_is_middle_value(void **state)
{
	double s[] = { 9, 1, 5, 3, 7 };
	struct pl_bench_stats st;

	assert_int_equal(pl_bench_stats_compute(s, 5, &st), 0);
	assert_true(st.median == 5.0);
	assert_true(st.min == 1.0);
	assert_true(st.max == 9.0);
	assert_true(st.mean == 5.0);
	assert_int_equal(st.count, 5);
}

static void test_median_of_even_count_is_mean_of_middle_pair(void **state)
{
	double s[] = { 4, 1, 3, 2 };
	struct pl_bench_stats st;

	assert_int_equal(pl_bench_stats_compute(s, 4, &st), 0);
	assert_true(st.median == 2.5);
}

static void test_percentiles_bracket_the_median(void **state)
{
	double s[101];
	struct pl_bench_stats st;
	int i;

	for (i = 0; i <= 100; i++)
		s[i] = 100 - i;
	assert_int_equal(pl_bench_stats_compute(s, 101, &st), 0);
	assert_true(st.p10 == 10.0);
	assert_true(st.p90 == 90.0);
	assert_true(st.median == 50.0);
}

static void test_stats_reject_empty_input(void **state)
{
	double s[1] = { 0 };
	struct pl_bench_stats st;

	assert_int_equal(pl_bench_stats_compute(s, 0, &st), -22);
	assert_int_equal(pl_bench_stats_compute(NULL, 1, &st), -22);
}

static unsigned calls;

static double count_calls(void *arg)
{
	return (double)++calls;
}

static void test_warmup_samples_are_not_recorded(void **state)
{
	struct pl_bench_series series = {
		.name = "count", .unit = "n", .warmup = 3, .reps = 4,
		.sample = count_calls,
	};
	struct pl_bench_stats st;
	double *raw = NULL;

	calls = 0;
	assert_int_equal(pl_bench_run(&series, &st, &raw), 0);
	assert_int_equal(calls, 7);
	/* Timed samples are calls 4..7, in call order. */
	assert_true(raw[0] == 4.0 && raw[3] == 7.0);
	assert_true(st.min == 4.0 && st.max == 7.0);
	free(raw);
}

static void test_ratio_of_zero_denominator_is_zero(void **state)
{
	assert_true(pl_bench_ratio(3.0, 1.5) == 2.0);
	assert_true(pl_bench_ratio(3.0, 0.0) == 0.0);
}

static void test_csv_row_has_every_column(void **state)
{
	double s[] = { 1, 2, 3 };
	struct pl_bench_stats st;
	char buf[512] = { 0 };
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	assert_int_equal(pl_bench_stats_compute(s, 3, &st), 0);
	pl_bench_csv_header(f);
	pl_bench_csv_row(f, "lat", "propel", 8, "us", &st);
	fclose(f);
	assert_string_equal(buf,
		"benchmark,library,size,unit,median,min,max,p10,p90,count\n"
		"lat,propel,8,us,2,1,3,1,3,3\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_of_odd_count_is_middle_value),
		cmocka_unit_test(test_median_of_even_count_is_mean_of_middle_pair),
		cmocka_unit_test(test_percentiles_bracket_the_median),
		cmocka_unit_test(test_stats_reject_empty_input),
		cmocka_unit_test(test_warmup_samples_are_not_recorded),
		cmocka_unit_test(test_ratio_of_zero_denominator_is_zero),
		cmocka_unit_test(test_csv_row_has_every_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
