/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_param_define / fi_param_get semantics (fi_provider(3)): naming,
 * -FI_ENOENT / -FI_ENODATA / -FI_EINVAL, parsing of every type, warnings
 * on malformed values, argument checks.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "pl_log.h"
#include "pl_param.h"
#include "pl_test_child.h"

static struct fi_provider prov_pt = { .name = "pt" };
static struct fi_provider prov_pt_twin = { .name = "pt" };
static struct fi_provider prov_odd = { .name = "odd-name;x" };
static struct fi_provider prov_unnamed = { .name = NULL };

static char captured[8192];

static void define_pt_params(void)
{
	assert_int_equal(fi_param_define(&prov_pt, "i", FI_PARAM_INT,
					 "an int %d", 1), 0);
	assert_int_equal(fi_param_define(&prov_pt, "b", FI_PARAM_BOOL,
					 "a bool"), 0);
	assert_int_equal(fi_param_define(&prov_pt, "z", FI_PARAM_SIZE_T,
					 "a size"), 0);
	assert_int_equal(fi_param_define(&prov_pt, "s", FI_PARAM_STRING,
					 "a string"), 0);
}

static int setup(void **state)
{
	define_pt_params();
	return 0;
}

static void test_define_rejects_bad_arguments(void **state)
{
	assert_int_equal(fi_param_define(&prov_pt, NULL, FI_PARAM_INT, "h"),
			 -FI_EINVAL);
	assert_int_equal(fi_param_define(&prov_pt, "", FI_PARAM_INT, "h"),
			 -FI_EINVAL);
	assert_int_equal(fi_param_define(&prov_pt, "x", FI_PARAM_INT, NULL),
			 -FI_EINVAL);
	/* fi_provider(3): the help must be non-empty. */
	assert_int_equal(fi_param_define(&prov_pt, "x", FI_PARAM_INT, ""),
			 -FI_EINVAL);
	assert_int_equal(fi_param_define(&prov_pt, "x",
					 (enum fi_param_type)17, "h"),
			 -FI_EINVAL);
	assert_int_equal(fi_param_define(&prov_unnamed, "x", FI_PARAM_INT,
					 "h"), -FI_EINVAL);
}

static void test_get_rejects_null_arguments(void **state)
{
	int v = 0;

	assert_int_equal(fi_param_get(&prov_pt, NULL, &v), -FI_EINVAL);
	assert_int_equal(fi_param_get(&prov_pt, "i", NULL), -FI_EINVAL);
}

static void test_get_undefined_is_enoent(void **state)
{
	int v = 99;

	setenv("FI_PT_NEVER", "5", 1);
	assert_int_equal(fi_param_get_int(&prov_pt, "never", &v), -FI_ENOENT);
	assert_int_equal(v, 99);
	unsetenv("FI_PT_NEVER");
}

/* Definitions belong to the provider object that made them. */
static void test_get_through_other_provider_is_enoent(void **state)
{
	int v = 99;

	setenv("FI_PT_I", "5", 1);
	assert_int_equal(fi_param_get_int(&prov_pt_twin, "i", &v), -FI_ENOENT);
	assert_int_equal(v, 99);
	unsetenv("FI_PT_I");
}

static void test_get_unset_is_enodata(void **state)
{
	int v = 99;

	unsetenv("FI_PT_I");
	assert_int_equal(fi_param_get_int(&prov_pt, "i", &v), -FI_ENODATA);
	assert_int_equal(v, 99);
}

static void test_redefinition_is_harmless(void **state)
{
	int v = 0;

	assert_int_equal(fi_param_define(&prov_pt, "i", FI_PARAM_INT,
					 "again"), 0);
	setenv("FI_PT_I", "3", 1);
	assert_int_equal(fi_param_get_int(&prov_pt, "i", &v), 0);
	assert_int_equal(v, 3);
	unsetenv("FI_PT_I");
}

static void test_env_name_prefix(void **state)
{
	char buf[64];

	assert_int_equal(pl_param_env_name(&prov_odd, "Spin_us", buf,
					   sizeof(buf)),
			 (int)strlen("FI_ODD_NAME_X_SPIN_US"));
	assert_string_equal(buf, "FI_ODD_NAME_X_SPIN_US");
	pl_param_env_name(NULL, "log_level", buf, sizeof(buf));
	assert_string_equal(buf, "FI_LOG_LEVEL");
	pl_param_env_name(&pl_core_prov, "log_level", buf, sizeof(buf));
	assert_string_equal(buf, "FI_LOG_LEVEL");
	assert_int_equal(pl_param_env_name(&prov_pt, "i", buf, 4),
			 -FI_ETOOSMALL);
}

static void test_non_alnum_provider_name_reads_sanitized_variable(void **state)
{
	int v = 0;

	assert_int_equal(fi_param_define(&prov_odd, "spin_us", FI_PARAM_INT,
					 "odd"), 0);
	setenv("FI_ODD_NAME_X_SPIN_US", "17", 1);
	assert_int_equal(fi_param_get_int(&prov_odd, "spin_us", &v), 0);
	assert_int_equal(v, 17);
	unsetenv("FI_ODD_NAME_X_SPIN_US");
}

/* NULL and &pl_core_prov are the same, prefix-less, core. */
static void test_core_parameters_have_no_prefix(void **state)
{
	char *s = NULL;

	setenv("FI_LOG_PROV", "tcp", 1);
	assert_int_equal(fi_param_get_str(NULL, "log_prov", &s), 0);
	assert_string_equal(s, "tcp");
	s = NULL;
	assert_int_equal(fi_param_get_str(&pl_core_prov, "log_prov", &s), 0);
	assert_string_equal(s, "tcp");
	unsetenv("FI_LOG_PROV");
	assert_int_equal(fi_param_get_str(NULL, "log_prov", &s), -FI_ENODATA);
}

static void test_int_parsing(void **state)
{
	static const struct {
		const char	*text;
		int		value;
	} cases[] = {
		{ "12", 12 }, { "-5", -5 }, { "+7", 7 }, { " 12 ", 12 },
		{ "0x10", 16 }, { "010", 8 }, { "2147483647", INT_MAX },
		{ "-2147483648", INT_MIN },
	};
	size_t i;
	int v;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("FI_PT_I", cases[i].text, 1);
		v = 0;
		assert_int_equal(fi_param_get_int(&prov_pt, "i", &v), 0);
		assert_int_equal(v, cases[i].value);
	}
	unsetenv("FI_PT_I");
}

static void test_int_malformed_is_einval_with_warning(void **state)
{
	static const char *const bad[] = {
		"12abc", "abc", "", "2147483648", "99999999999", "1.5",
	};
	struct pl_capture cap;
	size_t i;
	int v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("FI_PT_I", bad[i], 1);
		v = 99;
		assert_int_equal(pl_capture_begin(&cap), 0);
		assert_int_equal(fi_param_get_int(&prov_pt, "i", &v),
				 -FI_EINVAL);
		pl_capture_end(&cap, captured, sizeof(captured));
		assert_int_equal(v, 99);
		assert_int_equal(pl_count(captured, "<warn>"), 1);
		assert_non_null(strstr(captured, "FI_PT_I=\""));
		assert_non_null(strstr(captured,
				       "an integer in [-2147483648, 2147483647]"));
	}
	unsetenv("FI_PT_I");
}

static void test_bool_spellings(void **state)
{
	static const struct {
		const char	*text;
		int		value;
	} cases[] = {
		{ "1", 1 }, { "yes", 1 }, { "true", 1 }, { "on", 1 },
		{ "YES", 1 }, { "True", 1 }, { "ON", 1 }, { " on ", 1 },
		{ "0", 0 }, { "no", 0 }, { "false", 0 }, { "off", 0 },
		{ "NO", 0 }, { "FALSE", 0 }, { "Off", 0 },
	};
	size_t i;
	int v;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("FI_PT_B", cases[i].text, 1);
		v = 99;
		assert_int_equal(fi_param_get_bool(&prov_pt, "b", &v), 0);
		assert_int_equal(v, cases[i].value);
	}
	unsetenv("FI_PT_B");
}

static void test_bool_malformed_is_einval_with_warning(void **state)
{
	static const char *const bad[] = { "2", "-1", "y", "n", "", "10",
					   "t", "yess" };
	struct pl_capture cap;
	size_t i;
	int v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("FI_PT_B", bad[i], 1);
		v = 99;
		assert_int_equal(pl_capture_begin(&cap), 0);
		assert_int_equal(fi_param_get_bool(&prov_pt, "b", &v),
				 -FI_EINVAL);
		pl_capture_end(&cap, captured, sizeof(captured));
		assert_int_equal(v, 99);
		assert_non_null(strstr(captured, "FI_PT_B=\""));
		assert_non_null(strstr(captured, "yes/no"));
	}
	unsetenv("FI_PT_B");
}

static void test_size_parsing(void **state)
{
	static const struct {
		const char	*text;
		size_t		value;
	} cases[] = {
		{ "0", 0 }, { "4096", 4096 }, { "0x1000", 4096 },
		{ " 7 ", 7 }, { "-1", SIZE_MAX },
		{ "18446744073709551615", SIZE_MAX },
	};
	size_t i, v;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("FI_PT_Z", cases[i].text, 1);
		v = 99;
		assert_int_equal(fi_param_get_size_t(&prov_pt, "z", &v), 0);
		assert_true(v == cases[i].value);
	}
	unsetenv("FI_PT_Z");
}

/* The reference takes no unit suffix (it reads "1k" as 1): we refuse it. */
static void test_size_malformed_is_einval_with_warning(void **state)
{
	static const char *const bad[] = { "1k", "4M", "-2", "",
					   "18446744073709551616", "x" };
	struct pl_capture cap;
	size_t i, v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("FI_PT_Z", bad[i], 1);
		v = 99;
		assert_int_equal(pl_capture_begin(&cap), 0);
		assert_int_equal(fi_param_get_size_t(&prov_pt, "z", &v),
				 -FI_EINVAL);
		pl_capture_end(&cap, captured, sizeof(captured));
		assert_true(v == 99);
		assert_non_null(strstr(captured, "FI_PT_Z=\""));
		assert_non_null(strstr(captured, "no unit suffix"));
	}
	unsetenv("FI_PT_Z");
}

/* The string belongs to the environment: the very pointer comes back. */
static void test_string_is_the_environment_string(void **state)
{
	char *s = NULL;

	setenv("FI_PT_S", "hello world", 1);
	assert_int_equal(fi_param_get_str(&prov_pt, "s", &s), 0);
	assert_ptr_equal(s, getenv("FI_PT_S"));
	setenv("FI_PT_S", "", 1);
	assert_int_equal(fi_param_get_str(&prov_pt, "s", &s), 0);
	assert_string_equal(s, "");
	unsetenv("FI_PT_S");
}

/* Lookup names are case-sensitive, as with the reference. */
static void test_name_lookup_is_case_sensitive(void **state)
{
	int v = 99;

	setenv("FI_PT_I", "1", 1);
	assert_int_equal(fi_param_get_int(&prov_pt, "I", &v), -FI_ENOENT);
	assert_int_equal(v, 99);
	unsetenv("FI_PT_I");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_define_rejects_bad_arguments),
		cmocka_unit_test(test_get_rejects_null_arguments),
		cmocka_unit_test(test_get_undefined_is_enoent),
		cmocka_unit_test(test_get_through_other_provider_is_enoent),
		cmocka_unit_test(test_get_unset_is_enodata),
		cmocka_unit_test(test_redefinition_is_harmless),
		cmocka_unit_test(test_env_name_prefix),
		cmocka_unit_test(test_non_alnum_provider_name_reads_sanitized_variable),
		cmocka_unit_test(test_core_parameters_have_no_prefix),
		cmocka_unit_test(test_int_parsing),
		cmocka_unit_test(test_int_malformed_is_einval_with_warning),
		cmocka_unit_test(test_bool_spellings),
		cmocka_unit_test(test_bool_malformed_is_einval_with_warning),
		cmocka_unit_test(test_size_parsing),
		cmocka_unit_test(test_size_malformed_is_einval_with_warning),
		cmocka_unit_test(test_string_is_the_environment_string),
		cmocka_unit_test(test_name_lookup_is_case_sensitive),
	};

	/* Warnings must be visible and nothing may come from a profile. */
	setenv("FI_LOG_LEVEL", "warn", 1);
	unsetenv("FI_LOG_PROV");
	unsetenv("FI_LOG_SUBSYS");
	unsetenv("FI_TUNING_PROFILE");
	return cmocka_run_group_tests(tests, setup, NULL);
}
