/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_getparams / fi_freeparams through the real libfabric.so.1, public
 * API only: every defined parameter comes back with its variable name,
 * type, help and current value, in the struct fi_param layout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

static struct fi_provider prov_gp = { .name = "gp" };

static const struct fi_param *find(const struct fi_param *params, int count,
				   const char *name)
{
	int i;

	for (i = 0; i < count; i++) {
		if (!strcmp(params[i].name, name))
			return &params[i];
	}
	return NULL;
}

/* The library under test must be propel's, not the reference's. */
static void test_library_is_propel(void **state)
{
	const char *libdir = getenv("PROPEL_LIBDIR");
	char dir[PATH_MAX], lib[PATH_MAX];
	Dl_info where;

	assert_non_null(libdir);
	assert_true(dladdr((void *)fi_getparams, &where));
	assert_non_null(where.dli_fname);
	assert_non_null(realpath(libdir, dir));
	assert_non_null(realpath(where.dli_fname, lib));
	assert_int_equal(strncmp(lib, dir, strlen(dir)), 0);
	assert_int_equal(lib[strlen(dir)], '/');
}

static void test_getparams_rejects_null(void **state)
{
	struct fi_param *params = NULL;
	int count = -1;

	assert_int_equal(fi_getparams(NULL, &count), -FI_EINVAL);
	assert_int_equal(count, -1);
	assert_int_equal(fi_getparams(&params, NULL), -FI_EINVAL);
	assert_null(params);
	fi_freeparams(NULL);
}

static void test_getparams_lists_core_params(void **state)
{
	const struct fi_param *p;
	struct fi_param *params;
	int count;

	unsetenv("FI_LOG_LEVEL");
	setenv("FI_PROGRESS_SPIN_US", "7", 1);
	assert_int_equal(fi_getparams(&params, &count), 0);
	assert_true(count > 0);
	assert_null(params[count].name);	/* zeroed terminator */

	p = find(params, count, "FI_LOG_LEVEL");
	assert_non_null(p);
	assert_int_equal(p->type, FI_PARAM_STRING);
	assert_non_null(strstr(p->help_string, "(default: warn)"));
	assert_null(p->value);

	p = find(params, count, "FI_PROGRESS_SPIN_US");
	assert_non_null(p);
	assert_int_equal(p->type, FI_PARAM_INT);
	assert_non_null(p->value);
	assert_string_equal(p->value, "7");
	/* A copy: the caller frees it with fi_freeparams. */
	assert_ptr_not_equal(p->value, getenv("FI_PROGRESS_SPIN_US"));

	assert_non_null(find(params, count, "FI_TUNING_PROFILE"));
	assert_non_null(find(params, count, "FI_PROVIDER"));
	assert_non_null(find(params, count, "FI_UNIVERSE_SIZE"));
	fi_freeparams(params);
	unsetenv("FI_PROGRESS_SPIN_US");
}

/* A provider's help carries its name first, as the reference shows it. */
static void test_getparams_lists_provider_params(void **state)
{
	const struct fi_param *p;
	struct fi_param *params;
	int count;

	assert_int_equal(fi_param_define(&prov_gp, "rx_size", FI_PARAM_SIZE_T,
					 "Receive queue depth %d", 3), 0);
	setenv("FI_GP_RX_SIZE", "512", 1);
	assert_int_equal(fi_getparams(&params, &count), 0);
	p = find(params, count, "FI_GP_RX_SIZE");
	assert_non_null(p);
	assert_int_equal(p->type, FI_PARAM_SIZE_T);
	assert_string_equal(p->help_string, "gp: Receive queue depth 3");
	assert_string_equal(p->value, "512");
	fi_freeparams(params);
	unsetenv("FI_GP_RX_SIZE");
}

/* Each name once, even after a redefinition. */
static void test_getparams_lists_each_once(void **state)
{
	struct fi_param *params;
	int count, i, n = 0;

	assert_int_equal(fi_param_define(&prov_gp, "twice", FI_PARAM_INT,
					 "first"), 0);
	assert_int_equal(fi_param_define(&prov_gp, "twice", FI_PARAM_INT,
					 "second"), 0);
	assert_int_equal(fi_getparams(&params, &count), 0);
	for (i = 0; i < count; i++) {
		if (!strcmp(params[i].name, "FI_GP_TWICE")) {
			n++;
			assert_string_equal(params[i].help_string, "gp: first");
		}
	}
	fi_freeparams(params);
	assert_int_equal(n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library_is_propel),
		cmocka_unit_test(test_getparams_rejects_null),
		cmocka_unit_test(test_getparams_lists_core_params),
		cmocka_unit_test(test_getparams_lists_provider_params),
		cmocka_unit_test(test_getparams_lists_each_once),
	};

	unsetenv("FI_TUNING_PROFILE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
