/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logging: filtering by FI_LOG_LEVEL, FI_LOG_PROV and FI_LOG_SUBSYS, the
 * line format, fi_log_ready's rate limit, bad arguments. The logging
 * configuration is read once per process, so each scenario runs in a
 * forked child whose stderr the parent inspects (pl_test_child.h).
 */
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/providers/fi_log.h>

#include "pl_log.h"
#include "pl_test_child.h"

static struct fi_provider prov_tcp = { .name = "tcp" };
static struct fi_provider prov_shm = { .name = "shm" };
static struct pl_child_result res;

/* One message per (provider, level, subsystem) a scenario looks for. */
static void child_emit_matrix(void *arg)
{
	FI_WARN(&prov_tcp, FI_LOG_CQ, "tcp-warn-cq\n");
	FI_INFO(&prov_tcp, FI_LOG_CQ, "tcp-info-cq\n");
	FI_LOG(&prov_tcp, FI_LOG_DEBUG, FI_LOG_CQ, "tcp-debug-cq\n");
	FI_TRACE(&prov_tcp, FI_LOG_CQ, "tcp-trace-cq\n");
	FI_WARN(&prov_tcp, FI_LOG_MR, "tcp-warn-mr\n");
	FI_WARN(&prov_tcp, FI_LOG_AV, "tcp-warn-av\n");
	FI_WARN(&prov_shm, FI_LOG_CQ, "shm-warn-cq\n");
	PL_WARN(FI_LOG_CORE, "core-warn-core\n");
}

/* Run fn in a child with the FI_LOG_* variables unset, then env set. */
static void run_fn(void (*fn)(void *), const char *const *env)
{
	const char *base[16] = { "FI_LOG_LEVEL", "FI_LOG_PROV",
				 "FI_LOG_SUBSYS", "FI_LOG_INTERVAL",
				 "FI_TUNING_PROFILE" };
	size_t n = 5;

	for (; env && *env && n < 15; env++)
		base[n++] = *env;
	base[n] = NULL;
	assert_int_equal(pl_child_run(fn, NULL, base, &res), 0);
	if (res.status)
		fprintf(stderr, "child output:\n%s", res.out);
	assert_int_equal(res.status, 0);
}

static void run(const char *const *env)
{
	run_fn(child_emit_matrix, env);
}

#define SHOWN(tag) assert_non_null(strstr(res.out, tag "\n"))
#define HIDDEN(tag) assert_null(strstr(res.out, tag "\n"))

static void test_default_level_is_warn(void **state)
{
	run(NULL);
	SHOWN("tcp-warn-cq");
	SHOWN("core-warn-core");
	HIDDEN("tcp-trace-cq");
	HIDDEN("tcp-info-cq");
	HIDDEN("tcp-debug-cq");
}

static void test_level_info_case_insensitive(void **state)
{
	const char *env[] = { "FI_LOG_LEVEL=INFO", NULL };

	run(env);
	SHOWN("tcp-warn-cq");
	SHOWN("tcp-trace-cq");
	SHOWN("tcp-info-cq");
	HIDDEN("tcp-debug-cq");
}

static void test_level_trace(void **state)
{
	const char *env[] = { "FI_LOG_LEVEL=trace", NULL };

	run(env);
	SHOWN("tcp-trace-cq");
	HIDDEN("tcp-info-cq");
}

static void test_level_debug_shows_all(void **state)
{
	const char *env[] = { "FI_LOG_LEVEL=debug", NULL };

	run(env);
	SHOWN("tcp-warn-cq");
	SHOWN("tcp-info-cq");
	SHOWN("tcp-debug-cq");
}

static void test_level_none_is_silent(void **state)
{
	const char *env[] = { "FI_LOG_LEVEL=none", NULL };

	run(env);
	assert_string_equal(res.out, "");
}

/* The reference takes names only; a number is a bad value here. */
static void test_bad_level_warns_and_keeps_warn(void **state)
{
	const char *env[] = { "FI_LOG_LEVEL=2", NULL };

	run(env);
	assert_non_null(strstr(res.out, "FI_LOG_LEVEL=\"2\" is not valid"));
	assert_non_null(strstr(res.out, "warn, trace, info, debug or none"));
	assert_int_equal(pl_count(res.out, "FI_LOG_LEVEL=\"2\""), 1);
	SHOWN("tcp-warn-cq");
	HIDDEN("tcp-info-cq");
}

static void test_prov_filter_includes(void **state)
{
	const char *env[] = { "FI_LOG_PROV=tcp", NULL };

	run(env);
	SHOWN("tcp-warn-cq");
	HIDDEN("shm-warn-cq");
	SHOWN("core-warn-core");	/* the core is never filtered out */
}

static void test_prov_filter_list(void **state)
{
	const char *env[] = { "FI_LOG_PROV= TCP , shm", NULL };

	run(env);
	SHOWN("tcp-warn-cq");
	SHOWN("shm-warn-cq");
}

static void test_prov_filter_excludes(void **state)
{
	const char *env[] = { "FI_LOG_PROV=^tcp", NULL };

	run(env);
	HIDDEN("tcp-warn-cq");
	SHOWN("shm-warn-cq");
	SHOWN("core-warn-core");
}

static void test_subsys_filter_includes(void **state)
{
	const char *env[] = { "FI_LOG_SUBSYS=cq,av", NULL };

	run(env);
	SHOWN("tcp-warn-cq");
	SHOWN("tcp-warn-av");
	HIDDEN("tcp-warn-mr");
	HIDDEN("core-warn-core");
}

static void test_subsys_filter_excludes(void **state)
{
	const char *env[] = { "FI_LOG_SUBSYS=^CQ", NULL };

	run(env);
	HIDDEN("tcp-warn-cq");
	HIDDEN("shm-warn-cq");
	SHOWN("tcp-warn-mr");
	SHOWN("core-warn-core");
}

static void test_unknown_subsys_warns(void **state)
{
	const char *env[] = { "FI_LOG_SUBSYS=mr,bogus", NULL };

	run(env);
	assert_non_null(strstr(res.out, "FI_LOG_SUBSYS: unknown subsystem "
				       "\"bogus\""));
	SHOWN("tcp-warn-mr");
	HIDDEN("tcp-warn-cq");
}

static void child_format(void *arg)
{
	fi_log(&prov_tcp, FI_LOG_WARN, FI_LOG_EP_DATA, "some_func", 123,
	       "formatted %d %s\n", 42, "text");
	fi_log(NULL, FI_LOG_INFO, FI_LOG_CNTR, "other", 7, "nullprov\n");
}

/* libfabric:<pid>:<seconds>::<prov>:<subsys>:<func>():<line><<level>> */
static void test_line_format_matches_reference(void **state)
{
	const char *env[] = { NULL };
	char pattern[256];
	regex_t re;

	run_fn(child_format, env);
	snprintf(pattern, sizeof(pattern), "^libfabric:[0-9]+:[0-9]+::tcp:"
		 "ep_data:some_func\\(\\):123<warn> formatted 42 text\n"
		 "libfabric:[0-9]+:[0-9]+::core:cntr:other\\(\\):7<info> "
		 "nullprov\n$");
	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED), 0);
	if (regexec(&re, res.out, 0, NULL, 0))
		fail_msg("unexpected output: [%s]", res.out);
	regfree(&re);
}

static void child_enabled_bad_args(void *arg)
{
	PL_CHILD_CHECK(fi_log_enabled(&prov_tcp, FI_LOG_WARN, FI_LOG_CORE));
	PL_CHILD_CHECK(!fi_log_enabled(&prov_tcp, FI_LOG_MAX, FI_LOG_CORE));
	PL_CHILD_CHECK(!fi_log_enabled(&prov_tcp, (enum fi_log_level)-1,
				       FI_LOG_CORE));
	PL_CHILD_CHECK(!fi_log_enabled(&prov_tcp, FI_LOG_WARN,
				       FI_LOG_SUBSYS_MAX));
	PL_CHILD_CHECK(fi_log_enabled(NULL, FI_LOG_WARN, FI_LOG_CORE));
	/* Must not crash. */
	fi_log(&prov_tcp, FI_LOG_WARN, FI_LOG_CORE, NULL, 1, "nofunc\n");
	fi_log(&prov_tcp, FI_LOG_WARN, FI_LOG_CORE, "f", 1, NULL);
	fi_log(&prov_tcp, FI_LOG_MAX, FI_LOG_SUBSYS_MAX, "f", 1, "odd\n");
}

static void test_bad_arguments_are_harmless(void **state)
{
	const char *env[] = { "FI_LOG_LEVEL=debug", "FI_LOG_PROV=^shm", NULL };

	run_fn(child_enabled_bad_args, env);
	SHOWN("nofunc");
	SHOWN("odd");
}

static void child_ready_long_interval(void *arg)
{
	uint64_t site = 0;

	PL_CHILD_CHECK(fi_log_ready(&prov_tcp, FI_LOG_WARN, FI_LOG_CQ, &site));
	PL_CHILD_CHECK(site != 0);
	PL_CHILD_CHECK(!fi_log_ready(&prov_tcp, FI_LOG_WARN, FI_LOG_CQ, &site));
	/* Disabled messages are never ready. */
	site = 0;
	PL_CHILD_CHECK(!fi_log_ready(&prov_tcp, FI_LOG_DEBUG, FI_LOG_CQ,
				     &site));
	PL_CHILD_CHECK(fi_log_ready(&prov_tcp, FI_LOG_WARN, FI_LOG_CQ, NULL));
}

static void test_ready_rate_limits_a_site(void **state)
{
	const char *env[] = { "FI_LOG_INTERVAL=100000000", NULL };

	run_fn(child_ready_long_interval, env);
}

static void child_ready_zero_interval(void *arg)
{
	uint64_t site = 0;

	PL_CHILD_CHECK(fi_log_ready(&prov_tcp, FI_LOG_WARN, FI_LOG_CQ, &site));
	PL_CHILD_CHECK(fi_log_ready(&prov_tcp, FI_LOG_WARN, FI_LOG_CQ, &site));
}

static void test_ready_zero_interval_always_ready(void **state)
{
	const char *env[] = { "FI_LOG_INTERVAL=0", NULL };

	run_fn(child_ready_zero_interval, env);
}

static void child_sparse_macro(void *arg)
{
	int i;

	for (i = 0; i < 3; i++)
		FI_WARN_SPARSE(&prov_tcp, FI_LOG_CQ, "sparse\n");
}

static void test_sparse_macro_prints_once_per_interval(void **state)
{
	const char *env[] = { "FI_LOG_INTERVAL=100000000", NULL };

	run_fn(child_sparse_macro, env);
	assert_int_equal(pl_count(res.out, "sparse\n"), 1);
}

static void child_errno_kept(void *arg)
{
	errno = EAGAIN;
	PL_WARN(FI_LOG_CORE, "keeps errno\n");
	PL_CHILD_CHECK(errno == EAGAIN);
}

static void test_pl_log_keeps_errno(void **state)
{
	run_fn(child_errno_kept, NULL);
	SHOWN("keeps errno");
}

#define RACERS 8

static void *racer(void *arg)
{
	FI_WARN(&prov_tcp, FI_LOG_CQ, "racer %d\n", (int)(intptr_t)arg);
	FI_WARN_SPARSE(&prov_shm, FI_LOG_CQ, "sparse racer\n");
	return NULL;
}

static void child_race_first_use(void *arg)
{
	pthread_t threads[RACERS];
	int i;

	for (i = 0; i < RACERS; i++)
		PL_CHILD_CHECK(!pthread_create(&threads[i], NULL, racer,
					       (void *)(intptr_t)i));
	for (i = 0; i < RACERS; i++)
		PL_CHILD_CHECK(!pthread_join(threads[i], NULL));
}

/* Threads racing to the first log call all get the one configuration;
 * what the set-up itself had to say is said once. */
static void test_racing_first_use(void **state)
{
	const char *env[] = { "FI_LOG_SUBSYS=cq,bogus",
			      "FI_LOG_INTERVAL=100000000", NULL };
	char tag[32];
	int i;

	run_fn(child_race_first_use, env);
	for (i = 0; i < RACERS; i++) {
		snprintf(tag, sizeof(tag), "racer %d\n", i);
		assert_non_null(strstr(res.out, tag));
	}
	assert_int_equal(pl_count(res.out, "unknown subsystem \"bogus\""), 1);
	assert_int_equal(pl_count(res.out, "sparse racer\n"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_level_is_warn),
		cmocka_unit_test(test_level_info_case_insensitive),
		cmocka_unit_test(test_level_trace),
		cmocka_unit_test(test_level_debug_shows_all),
		cmocka_unit_test(test_level_none_is_silent),
		cmocka_unit_test(test_bad_level_warns_and_keeps_warn),
		cmocka_unit_test(test_prov_filter_includes),
		cmocka_unit_test(test_prov_filter_list),
		cmocka_unit_test(test_prov_filter_excludes),
		cmocka_unit_test(test_subsys_filter_includes),
		cmocka_unit_test(test_subsys_filter_excludes),
		cmocka_unit_test(test_unknown_subsys_warns),
		cmocka_unit_test(test_line_format_matches_reference),
		cmocka_unit_test(test_bad_arguments_are_harmless),
		cmocka_unit_test(test_ready_rate_limits_a_site),
		cmocka_unit_test(test_ready_zero_interval_always_ready),
		cmocka_unit_test(test_sparse_macro_prints_once_per_interval),
		cmocka_unit_test(test_pl_log_keeps_errno),
		cmocka_unit_test(test_racing_first_use),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
