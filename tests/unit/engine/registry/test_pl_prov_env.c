/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The environment the registry reads once per process (FI_PROVIDER,
 * FI_PROVIDER_PATH, the test provider's TESTPROV_* knobs): one scenario
 * per run, named by argv[1]; meson runs this program once per scenario
 * with that scenario's environment (tests/unit/engine/meson.build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "gi_common.h"
#include "pl_getinfo.h"

#define LAYERED "testprov;ofi_testutil"

static size_t listed(uint32_t version, uint64_t flags, struct fi_info **info)
{
	int ret;

	*info = NULL;
	ret = gi_getinfo(version, NULL, NULL, flags, NULL, info);
	if (ret == -FI_ENODATA) {
		assert_null(*info);
		return 0;
	}
	assert_int_equal(ret, 0);
	return gi_len(*info);
}

static size_t listed_free(uint32_t version, uint64_t flags)
{
	struct fi_info *info;
	size_t n = listed(version, flags, &info);

	fi_freeinfo(info);
	return n;
}

/* Does the cleanup log (TESTPROV_CLEANUP_FILE) contain line? */
static bool cleanup_logged(const char *line)
{
	const char *path = getenv("TESTPROV_CLEANUP_FILE");
	char buf[256];
	bool found = false;
	FILE *f;

	assert_non_null(path);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f))
		found |= !strcmp(buf, line);
	fclose(f);
	return found;
}

static void test_exclude_hides_core_and_its_pairs(void **state)
{
	assert_int_equal(listed_free(FI_VERSION(1, 17), 0), 0);
	/* Listing providers ignores FI_PROVIDER, as the reference does. */
	assert_int_equal(listed_free(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY), 2);
}

static void test_include_core_keeps_its_pairs(void **state)
{
	struct fi_info *info;

	assert_int_equal(listed(FI_VERSION(1, 17), 0, &info), 3);
	assert_int_equal(gi_count(info, LAYERED), 1);
	fi_freeinfo(info);
}

static void test_include_pair_lists_only_the_pair(void **state)
{
	struct fi_info *info;

	assert_int_equal(listed(FI_VERSION(1, 17), 0, &info), 1);
	assert_string_equal(info->fabric_attr->prov_name, LAYERED);
	fi_freeinfo(info);
	/* ...yet leaves the core to utilities looking up their base. */
	assert_int_equal(listed_free(FI_VERSION(1, 17), PL_GETINFO_CORE_ONLY),
			 2);
}

static void test_exclude_utility_keeps_the_core(void **state)
{
	struct fi_info *info;

	assert_int_equal(listed(FI_VERSION(1, 17), 0, &info), 2);
	assert_int_equal(gi_count(info, "testprov"), 2);
	fi_freeinfo(info);
}

static void test_include_utility_alone_lists_nothing(void **state)
{
	assert_int_equal(listed_free(FI_VERSION(1, 17), 0), 0);
	assert_int_equal(listed_free(FI_VERSION(1, 17), PL_GETINFO_CORE_ONLY),
			 0);
}

static void test_no_provider_is_enodata(void **state)
{
	assert_int_equal(listed_free(FI_VERSION(1, 17), 0), 0);
	assert_int_equal(listed_free(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY), 0);
}

static void test_provider_for_older_api_serves_only_that(void **state)
{
	/* testprov is built for 1.5 here; the utility for 1.18. */
	assert_int_equal(listed_free(FI_VERSION(1, 17), 0), 0);
	assert_int_equal(listed_free(FI_VERSION(1, 5), 0), 3);
	assert_int_equal(listed_free(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY), 2);
}

static void test_provider_for_newer_api_is_refused(void **state)
{
	struct fi_info *info;

	assert_int_equal(listed(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY, &info),
			 1);
	assert_string_equal(info->fabric_attr->prov_name, "ofi_testutil");
	fi_freeinfo(info);
	assert_true(cleanup_logged("cleanup testprov 1\n"));
}

static void test_same_name_newer_version_wins(void **state)
{
	struct fi_info *info;

	assert_int_equal(listed(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY, &info),
			 2);
	assert_int_equal(gi_find(info, "testprov", 0)->fabric_attr->
			 prov_version, TESTPROV_VERSION_2);
	fi_freeinfo(info);
	assert_true(cleanup_logged("cleanup testprov 1\n"));
}

static void test_same_name_first_found_wins_with_at(void **state)
{
	struct fi_info *info;

	assert_int_equal(listed(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY, &info),
			 2);
	assert_int_equal(gi_find(info, "testprov", 0)->fabric_attr->
			 prov_version, TESTPROV_VERSION_1);
	fi_freeinfo(info);
	assert_true(cleanup_logged("cleanup testprov 2\n"));
}

static void test_library_found_twice_registers_once(void **state)
{
	struct fi_info *info;

	assert_int_equal(listed(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY, &info),
			 2);
	fi_freeinfo(info);
	assert_int_equal(listed_free(FI_VERSION(1, 17), 0), 3);
	/* Nothing was dropped, so no cleanup ran before exit. */
	assert_false(cleanup_logged("cleanup testprov 1\n"));
}

static void test_cleanup_runs_at_exit(void **state)
{
	int status;
	pid_t pid;

	assert_false(cleanup_logged("cleanup testprov 1\n"));
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct fi_info *info;

		if (!gi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, NULL, &info))
			fi_freeinfo(info);
		exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	assert_true(cleanup_logged("cleanup testprov 1\n"));
}

#define RACERS 8

static pthread_barrier_t race_start;

static void *race_first_call(void *arg)
{
	struct fi_info *info = NULL;
	size_t *n = arg;

	pthread_barrier_wait(&race_start);
	if (!gi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, NULL, &info))
		*n = gi_len(info);
	fi_freeinfo(info);
	return NULL;
}

static void test_first_calls_racing_initialize_once(void **state)
{
	pthread_t threads[RACERS];
	size_t found[RACERS] = { 0 };
	int i;

	/* Nothing has touched the library yet (lazy setup): all threads
	 * hit the one-time initialization together. */
	assert_int_equal(pthread_barrier_init(&race_start, NULL, RACERS), 0);
	for (i = 0; i < RACERS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL,
						race_first_call, &found[i]), 0);
	for (i = 0; i < RACERS; i++) {
		assert_int_equal(pthread_join(threads[i], NULL), 0);
		assert_int_equal(found[i], 3);
	}
	pthread_barrier_destroy(&race_start);
	assert_int_equal(listed_free(FI_VERSION(1, 17), FI_PROV_ATTR_ONLY), 2);
}

static const struct {
	const char *name;
	struct CMUnitTest test;
} scenarios[] = {
#define SCENARIO(name, fn) { name, cmocka_unit_test(fn) }
	SCENARIO("exclude", test_exclude_hides_core_and_its_pairs),
	SCENARIO("include", test_include_core_keeps_its_pairs),
	SCENARIO("pair", test_include_pair_lists_only_the_pair),
	SCENARIO("exclude_util", test_exclude_utility_keeps_the_core),
	SCENARIO("util_only", test_include_utility_alone_lists_nothing),
	SCENARIO("no_provider", test_no_provider_is_enodata),
	SCENARIO("old_provider", test_provider_for_older_api_serves_only_that),
	SCENARIO("new_provider", test_provider_for_newer_api_is_refused),
	SCENARIO("dup_newer", test_same_name_newer_version_wins),
	SCENARIO("dup_order", test_same_name_first_found_wins_with_at),
	SCENARIO("exit_cleanup", test_cleanup_runs_at_exit),
	SCENARIO("same_dir_twice", test_library_found_twice_registers_once),
	SCENARIO("threads", test_first_calls_racing_initialize_once),
	/* FI_PROVIDER=^testprov from FI_TUNING_PROFILE... */
	SCENARIO("profile", test_exclude_hides_core_and_its_pairs),
	/* ...and FI_PROVIDER=testprov in the environment overriding it. */
	SCENARIO("profile_overridden", test_include_core_keeps_its_pairs),
#undef SCENARIO
};

int main(int argc, char **argv)
{
	const char *log = getenv("TESTPROV_CLEANUP_FILE");
	size_t i;

	/* Start from an empty cleanup log: nothing has loaded yet. */
	if (log)
		unlink(log);
	for (i = 0; argc > 1 && i < sizeof(scenarios) / sizeof(scenarios[0]);
	     i++) {
		if (strcmp(argv[1], scenarios[i].name))
			continue;
		return _cmocka_run_group_tests(scenarios[i].name,
					       &scenarios[i].test, 1,
					       strcmp(argv[1], "threads") ?
					       gi_setup : gi_setup_lazy, NULL);
	}
	fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
	return 1;
}
