/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_fabric dispatch to the provider named by prov_name (core or
 * core;utility), and fi_open's named objects and refusals, through the
 * real libfabric.so.1 with the test providers loaded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "gi_common.h"

#define LAYERED "testprov;ofi_testutil"

static struct fi_info *first_named(const char *name, struct fi_info **all)
{
	struct fi_info *info;

	assert_int_equal(gi_get(NULL, all), 3);
	info = gi_find(*all, name, 0);
	assert_non_null(info);
	return info;
}

static void test_fabric_dispatches_to_the_core(void **state)
{
	struct fi_info *all, *info = first_named("testprov", &all);
	struct testprov_probe *pp = gi_testprov_probe();
	struct fid_fabric *fabric = NULL;
	int calls, ctx;

	assert_non_null(pp);
	calls = pp->fabric_calls;

	assert_int_equal(fi_fabric(info->fabric_attr, &fabric, &ctx), 0);
	assert_non_null(fabric);
	assert_int_equal(fabric->fid.fclass, FI_CLASS_FABRIC);
	assert_ptr_equal(fabric->fid.context, &ctx);
	assert_int_equal(pp->fabric_calls, calls + 1);
	assert_ptr_equal(pp->fabric_context, &ctx);
	assert_int_equal(fi_close(&fabric->fid), 0);
	fi_freeinfo(all);
}

static void test_fabric_of_a_pair_goes_to_the_utility(void **state)
{
	struct fi_info *all, *info = first_named(LAYERED, &all);
	struct testutil_probe *up = gi_testutil_probe();
	struct fid_fabric *fabric = NULL;
	int calls;

	assert_non_null(up);
	calls = up->fabric_calls;

	assert_int_equal(fi_fabric(info->fabric_attr, &fabric, NULL), 0);
	assert_int_equal(up->fabric_calls, calls + 1);
	assert_string_equal(up->fabric_prov_name, LAYERED);
	assert_int_equal(fi_close(&fabric->fid), 0);
	fi_freeinfo(all);
}

static void test_fabric_provider_name_is_case_insensitive(void **state)
{
	struct fi_fabric_attr attr = { .name = TESTPROV_FABRIC,
				       .prov_name = "TESTPROV" };
	struct fid_fabric *fabric;

	assert_int_equal(fi_fabric(&attr, &fabric, NULL), 0);
	assert_int_equal(fi_close(&fabric->fid), 0);
}

static void test_fabric_unknown_provider_is_enodev(void **state)
{
	const char *names[] = { "nonexist", "ofi_testutil;testprov",
				"testprov;nonexist", "testprov;testprov",
				"testprov;ofi_testutil;x" };
	struct fi_fabric_attr attr = { .name = TESTPROV_FABRIC };
	struct fid_fabric *fabric = (void *)0x1;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		attr.prov_name = (char *)names[i];
		assert_int_equal(fi_fabric(&attr, &fabric, NULL), -FI_ENODEV);
		assert_ptr_equal(fabric, (void *)0x1);
	}
}

static void test_fabric_missing_arguments_are_einval(void **state)
{
	struct fi_fabric_attr attr = { .name = TESTPROV_FABRIC,
				       .prov_name = "testprov" };
	struct fid_fabric *fabric;

	assert_int_equal(fi_fabric(NULL, &fabric, NULL), -FI_EINVAL);
	assert_int_equal(fi_fabric(&attr, NULL, NULL), -FI_EINVAL);
	attr.prov_name = NULL;
	assert_int_equal(fi_fabric(&attr, &fabric, NULL), -FI_EINVAL);
	attr.prov_name = "testprov";
	attr.name = NULL;
	assert_int_equal(fi_fabric(&attr, &fabric, NULL), -FI_EINVAL);
}

static void test_open_unknown_name_is_enosys(void **state)
{
	struct fid *fid = (void *)0x1;

	assert_int_equal(fi_open(FI_VERSION(1, 17), "no_such_object", NULL, 0,
				 0, &fid, NULL), -FI_ENOSYS);
	assert_int_equal(fi_open(FI_VERSION(1, 17), "", NULL, 0, 0, &fid,
				 NULL), -FI_ENOSYS);
	assert_ptr_equal(fid, (void *)0x1);
}

static void test_open_mr_cache_gives_the_cache_fid(void **state)
{
	struct fid *fid = NULL;

	assert_int_equal(fi_open(FI_VERSION(1, 17), "mr_cache", NULL, 0, 0,
				 &fid, NULL), 0);
	assert_non_null(fid);
	assert_int_equal(fid->fclass, FI_CLASS_MR_CACHE);
	assert_int_equal(fi_close(fid), 0);
	/* names compare without regard to case */
	fid = NULL;
	assert_int_equal(fi_open(FI_VERSION(1, 17), "MR_Cache", NULL, 0, 0,
				 &fid, NULL), 0);
	assert_int_equal(fid->fclass, FI_CLASS_MR_CACHE);
	assert_int_equal(fi_close(fid), 0);
}

static void test_open_null_name_or_fid_is_einval(void **state)
{
	struct fid *fid;

	assert_int_equal(fi_open(FI_VERSION(1, 17), NULL, NULL, 0, 0, &fid,
				 NULL), -FI_EINVAL);
	assert_int_equal(fi_open(FI_VERSION(1, 17), "logging", NULL, 0, 0,
				 NULL, NULL), -FI_EINVAL);
}

static void test_open_logging_gives_a_log_fid(void **state)
{
	struct fid *fid = NULL;
	int ctx;

	assert_int_equal(fi_open(FI_VERSION(1, 17), "logging", NULL, 0, 0,
				 &fid, &ctx), 0);
	assert_non_null(fid);
	assert_int_equal(fid->fclass, FI_CLASS_LOG);
	assert_ptr_equal(fid->context, &ctx);
	assert_int_equal(fi_close(fid), 0);
	/* The name compares without regard to case, as the reference's. */
	assert_int_equal(fi_open(FI_VERSION(1, 17), "Logging", NULL, 0, 0,
				 &fid, NULL), 0);
	assert_int_equal(fi_close(fid), 0);
}

static void test_open_logging_bad_flags(void **state)
{
	struct fid *fid = (void *)0x1;

	assert_int_equal(fi_open(FI_VERSION(1, 17), "logging", NULL, 0, 1,
				 &fid, NULL), -FI_EBADFLAGS);
	assert_ptr_equal(fid, (void *)0x1);
}

static void test_open_logging_refuses_attributes(void **state)
{
	struct fid *fid = (void *)0x1;
	int attr;

	assert_int_equal(fi_open(FI_VERSION(1, 17), "logging", &attr,
				 sizeof(attr), 0, &fid, NULL), -FI_EINVAL);
	assert_ptr_equal(fid, (void *)0x1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fabric_dispatches_to_the_core),
		cmocka_unit_test(test_fabric_of_a_pair_goes_to_the_utility),
		cmocka_unit_test(test_fabric_provider_name_is_case_insensitive),
		cmocka_unit_test(test_fabric_unknown_provider_is_enodev),
		cmocka_unit_test(test_fabric_missing_arguments_are_einval),
		cmocka_unit_test(test_open_unknown_name_is_enosys),
		cmocka_unit_test(test_open_mr_cache_gives_the_cache_fid),
		cmocka_unit_test(test_open_null_name_or_fid_is_einval),
		cmocka_unit_test(test_open_logging_gives_a_log_fid),
		cmocka_unit_test(test_open_logging_bad_flags),
		cmocka_unit_test(test_open_logging_refuses_attributes),
	};

	return cmocka_run_group_tests(tests, gi_setup, NULL);
}
