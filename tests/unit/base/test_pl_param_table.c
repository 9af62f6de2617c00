/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The parameter-table mechanism: pl_param_table_define, the typed getters
 * with defaults and ranges, enumeration (pl_param_foreach, the discovery
 * hook), and concurrent definitions.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "pl_log.h"
#include "pl_param.h"
#include "pl_test_child.h"

static struct fi_provider prov_tt = { .name = "tt" };
static struct fi_provider prov_mt = { .name = "mt" };

static const struct pl_param_def tt_params[] = {
	{ "spin_us", FI_PARAM_INT, "50", "Spin time" },
	{ "buf_size", FI_PARAM_SIZE_T, "8192", "Buffer size" },
	{ "eager", FI_PARAM_BOOL, "yes", "Use eager sends" },
	{ "iface", FI_PARAM_STRING, NULL, "Interface name" },
};

static char captured[8192];

static int setup(void **state)
{
	return pl_param_table_define(&prov_tt, tt_params,
				     sizeof(tt_params) / sizeof(tt_params[0]));
}

static void test_table_define_rejects_null_table(void **state)
{
	assert_int_equal(pl_param_table_define(&prov_tt, NULL, 1), -FI_EINVAL);
	assert_int_equal(pl_param_table_define(&prov_tt, NULL, 0), 0);
}

/* A bad row is reported, the good rows around it are still defined. */
static void test_table_bad_row_keeps_the_others(void **state)
{
	static const struct pl_param_def rows[] = {
		{ "ok_a", FI_PARAM_INT, "1", "fine" },
		{ "bad", FI_PARAM_INT, "1", "" },
		{ "ok_b", FI_PARAM_INT, "2", "fine" },
	};
	int v;

	assert_int_equal(pl_param_table_define(&prov_tt, rows, 3), -FI_EINVAL);
	assert_int_equal(fi_param_get_int(&prov_tt, "ok_a", &v), -FI_ENODATA);
	assert_int_equal(fi_param_get_int(&prov_tt, "bad", &v), -FI_ENOENT);
	assert_int_equal(fi_param_get_int(&prov_tt, "ok_b", &v), -FI_ENODATA);
}

static void test_get_int_unset_gives_default(void **state)
{
	unsetenv("FI_TT_SPIN_US");
	assert_int_equal(pl_param_get_int(&prov_tt, "spin_us", 50, 0, 1000),
			 50);
}

static void test_get_int_in_range_gives_value(void **state)
{
	setenv("FI_TT_SPIN_US", "1000", 1);
	assert_int_equal(pl_param_get_int(&prov_tt, "spin_us", 50, 0, 1000),
			 1000);
	unsetenv("FI_TT_SPIN_US");
}

static void test_get_int_out_of_range_warns_once_keeps_default(void **state)
{
	struct pl_capture cap;

	setenv("FI_TT_SPIN_US", "1001", 1);
	assert_int_equal(pl_capture_begin(&cap), 0);
	assert_int_equal(pl_param_get_int(&prov_tt, "spin_us", 50, 0, 1000),
			 50);
	pl_capture_end(&cap, captured, sizeof(captured));
	assert_int_equal(pl_count(captured, "<warn>"), 1);
	assert_non_null(strstr(captured, "FI_TT_SPIN_US=\"1001\""));
	assert_non_null(strstr(captured, "[0, 1000]"));
	assert_non_null(strstr(captured, "using the default 50"));
	unsetenv("FI_TT_SPIN_US");
}

static void test_get_int_malformed_warns_once_keeps_default(void **state)
{
	struct pl_capture cap;

	setenv("FI_TT_SPIN_US", "fast", 1);
	assert_int_equal(pl_capture_begin(&cap), 0);
	assert_int_equal(pl_param_get_int(&prov_tt, "spin_us", 50, 0, 1000),
			 50);
	pl_capture_end(&cap, captured, sizeof(captured));
	assert_int_equal(pl_count(captured, "<warn>"), 1);
	assert_non_null(strstr(captured, "FI_TT_SPIN_US=\"fast\""));
	assert_non_null(strstr(captured, "[0, 1000]"));
	unsetenv("FI_TT_SPIN_US");
}

static void test_get_size_range(void **state)
{
	struct pl_capture cap;

	setenv("FI_TT_BUF_SIZE", "0x4000", 1);
	assert_true(pl_param_get_size(&prov_tt, "buf_size", 8192, 64,
				      1 << 20) == 0x4000);
	setenv("FI_TT_BUF_SIZE", "32", 1);
	assert_int_equal(pl_capture_begin(&cap), 0);
	assert_true(pl_param_get_size(&prov_tt, "buf_size", 8192, 64,
				      1 << 20) == 8192);
	pl_capture_end(&cap, captured, sizeof(captured));
	assert_int_equal(pl_count(captured, "<warn>"), 1);
	assert_non_null(strstr(captured, "FI_TT_BUF_SIZE=\"32\""));
	assert_non_null(strstr(captured, "[64, 1048576]"));
	unsetenv("FI_TT_BUF_SIZE");
	assert_true(pl_param_get_size(&prov_tt, "buf_size", 8192, 64,
				      1 << 20) == 8192);
}

static void test_get_bool(void **state)
{
	struct pl_capture cap;

	unsetenv("FI_TT_EAGER");
	assert_true(pl_param_get_bool(&prov_tt, "eager", true));
	setenv("FI_TT_EAGER", "Off", 1);
	assert_false(pl_param_get_bool(&prov_tt, "eager", true));
	setenv("FI_TT_EAGER", "maybe", 1);
	assert_int_equal(pl_capture_begin(&cap), 0);
	assert_true(pl_param_get_bool(&prov_tt, "eager", true));
	pl_capture_end(&cap, captured, sizeof(captured));
	assert_int_equal(pl_count(captured, "<warn>"), 1);
	assert_non_null(strstr(captured, "FI_TT_EAGER=\"maybe\""));
	assert_non_null(strstr(captured, "using the default yes"));
	unsetenv("FI_TT_EAGER");
}

static void test_get_str(void **state)
{
	unsetenv("FI_TT_IFACE");
	assert_string_equal(pl_param_get_str(&prov_tt, "iface", "eth0"),
			    "eth0");
	setenv("FI_TT_IFACE", "ib0", 1);
	assert_ptr_equal(pl_param_get_str(&prov_tt, "iface", "eth0"),
			 getenv("FI_TT_IFACE"));
	unsetenv("FI_TT_IFACE");
}

static void test_getter_of_undefined_name_warns_and_keeps_default(void **state)
{
	struct pl_capture cap;

	setenv("FI_TT_NOT_DEFINED", "5", 1);
	assert_int_equal(pl_capture_begin(&cap), 0);
	assert_int_equal(pl_param_get_int(&prov_tt, "not_defined", 9, 0, 10),
			 9);
	pl_capture_end(&cap, captured, sizeof(captured));
	assert_non_null(strstr(captured, "not_defined"));
	assert_non_null(strstr(captured, "coding error"));
	unsetenv("FI_TT_NOT_DEFINED");
}

struct seen {
	bool		spin_found;
	bool		iface_found;
	bool		core_found;
	char		spin_help[256];
	char		spin_def[16];
	int		visits;
};

static int visit(const struct pl_param_info *info, void *arg)
{
	struct seen *s = arg;

	s->visits++;
	if (!strcmp(info->env_name, "FI_TT_SPIN_US")) {
		s->spin_found = true;
		assert_string_equal(info->prov_name, "tt");
		assert_string_equal(info->name, "spin_us");
		assert_int_equal(info->type, FI_PARAM_INT);
		snprintf(s->spin_help, sizeof(s->spin_help), "%s", info->help);
		snprintf(s->spin_def, sizeof(s->spin_def), "%s", info->def);
	}
	if (!strcmp(info->env_name, "FI_TT_IFACE")) {
		s->iface_found = true;
		assert_null(info->def);
	}
	if (!strcmp(info->env_name, "FI_PROGRESS_SPIN_US"))
		s->core_found = true;
	return 0;
}

/* The help as fi_info -e shows it: "<prov>: <help> (default: <def>)". */
static void test_foreach_lists_table_with_defaults(void **state)
{
	struct seen s = { 0 };

	assert_int_equal(pl_param_foreach(visit, &s), 0);
	assert_true(s.spin_found);
	assert_true(s.iface_found);
	assert_true(s.core_found);
	assert_string_equal(s.spin_help, "tt: Spin time (default: 50)");
	assert_string_equal(s.spin_def, "50");
}

static int stop_at_third(const struct pl_param_info *info, void *arg)
{
	int *n = arg;

	return ++*n == 3 ? 42 : 0;
}

static void test_foreach_stops_on_nonzero(void **state)
{
	int n = 0;

	assert_int_equal(pl_param_foreach(stop_at_third, &n), 42);
	assert_int_equal(n, 3);
	assert_int_equal(pl_param_foreach(NULL, NULL), -FI_EINVAL);
}

static int hook_calls;
static struct fi_provider prov_late = { .name = "late" };

static void discover_hook(void)
{
	hook_calls++;
	fi_param_define(&prov_late, "knob", FI_PARAM_INT, "late knob");
}

/* What the engine's hook defines is listed by fi_getparams. */
static void test_getparams_runs_discovery_hook(void **state)
{
	struct fi_param *params;
	int count, i;
	bool found = false;

	pl_param_discover_hook_set(discover_hook);
	assert_int_equal(fi_getparams(&params, &count), 0);
	pl_param_discover_hook_set(NULL);
	assert_int_equal(hook_calls, 1);
	for (i = 0; i < count; i++)
		found |= !strcmp(params[i].name, "FI_LATE_KNOB");
	fi_freeparams(params);
	assert_true(found);
}

#define MT_THREADS 8
#define MT_PARAMS 32

static void *define_many(void *arg)
{
	char name[32];
	int i;

	(void)arg;
	for (i = 0; i < MT_PARAMS; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		if (fi_param_define(&prov_mt, name, FI_PARAM_INT, "mt %d", i))
			return (void *)1;
	}
	return NULL;
}

static int count_mt(const struct pl_param_info *info, void *arg)
{
	int *n = arg;

	if (!strcmp(info->prov_name, "mt"))
		++*n;
	return 0;
}

/* Racing definitions of the same names leave exactly one of each. */
static void test_concurrent_definitions_are_deduplicated(void **state)
{
	pthread_t threads[MT_THREADS];
	void *ret;
	int i, n = 0;

	for (i = 0; i < MT_THREADS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, define_many,
						NULL), 0);
	for (i = 0; i < MT_THREADS; i++) {
		assert_int_equal(pthread_join(threads[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(pl_param_foreach(count_mt, &n), 0);
	assert_int_equal(n, MT_PARAMS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_define_rejects_null_table),
		cmocka_unit_test(test_table_bad_row_keeps_the_others),
		cmocka_unit_test(test_get_int_unset_gives_default),
		cmocka_unit_test(test_get_int_in_range_gives_value),
		cmocka_unit_test(test_get_int_out_of_range_warns_once_keeps_default),
		cmocka_unit_test(test_get_int_malformed_warns_once_keeps_default),
		cmocka_unit_test(test_get_size_range),
		cmocka_unit_test(test_get_bool),
		cmocka_unit_test(test_get_str),
		cmocka_unit_test(test_getter_of_undefined_name_warns_and_keeps_default),
		cmocka_unit_test(test_foreach_lists_table_with_defaults),
		cmocka_unit_test(test_foreach_stops_on_nonzero),
		cmocka_unit_test(test_getparams_runs_discovery_hook),
		cmocka_unit_test(test_concurrent_definitions_are_deduplicated),
	};

	setenv("FI_LOG_LEVEL", "warn", 1);
	unsetenv("FI_LOG_PROV");
	unsetenv("FI_LOG_SUBSYS");
	unsetenv("FI_TUNING_PROFILE");
	return cmocka_run_group_tests(tests, setup, NULL);
}
