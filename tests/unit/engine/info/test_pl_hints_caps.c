/* SPDX-License-Identifier: BSD-2-Clause */
/* Capability selection and mr_mode negotiation (pl_hints_caps.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_hints_caps.h"

#define PROV_CAPS (FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
		   FI_REMOTE_READ | FI_REMOTE_WRITE | FI_MULTI_RECV | \
		   FI_SOURCE)

static uint64_t select_ok(uint64_t want, uint64_t have, bool strict)
{
	uint64_t caps = 0;

	assert_int_equal(pl_hints_caps_select(want, have, strict, &caps), 0);
	return caps;
}

static void test_no_request_returns_all(void **state)
{
	assert_int_equal(select_ok(0, PROV_CAPS, true), PROV_CAPS);
}

static void test_strict_request_must_be_covered(void **state)
{
	uint64_t caps;

	assert_int_equal(pl_hints_caps_select(FI_TAGGED, PROV_CAPS, true,
					      &caps), -FI_ENODATA);
	assert_int_equal(pl_hints_caps_select(FI_MSG | FI_RMA_EVENT, PROV_CAPS,
					      true, &caps), -FI_ENODATA);
	/* Inherited requests only narrow. */
	assert_int_equal(select_ok(FI_TAGGED | FI_MSG, PROV_CAPS, false),
			 FI_MSG | FI_SEND | FI_RECV);
}

static void test_unrequested_secondary_caps_are_dropped(void **state)
{
	assert_int_equal(select_ok(FI_MSG, PROV_CAPS, true),
			 FI_MSG | FI_SEND | FI_RECV);
	assert_int_equal(select_ok(FI_MSG | FI_MULTI_RECV, PROV_CAPS, true),
			 FI_MSG | FI_MULTI_RECV | FI_SEND | FI_RECV);
}

static void test_modifier_groups_are_independent(void **state)
{
	assert_int_equal(select_ok(FI_MSG | FI_RMA | FI_WRITE, PROV_CAPS,
				   true),
			 FI_MSG | FI_RMA | FI_WRITE | FI_SEND | FI_RECV);
	assert_int_equal(select_ok(FI_RECV, PROV_CAPS, true), FI_RECV);
}

static void test_provider_without_modifiers_supports_all(void **state)
{
	assert_int_equal(select_ok(FI_MSG | FI_SEND, FI_MSG, true),
			 FI_MSG | FI_SEND);
	assert_int_equal(select_ok(FI_MSG, FI_MSG, true),
			 FI_MSG | FI_SEND | FI_RECV);
}

static void test_unsupported_modifier_is_refused(void **state)
{
	uint64_t caps;

	assert_int_equal(pl_hints_caps_select(FI_MSG | FI_READ,
					      FI_MSG | FI_SEND | FI_RECV, true,
					      &caps), -FI_ENODATA);
}

static int mr(uint32_t version, int want, uint64_t app_mode, int prov,
	      uint64_t *mode_p, int *mr_p)
{
	struct fi_domain_attr dom = { .mr_mode = want };
	struct fi_info hints = { .mode = app_mode, .domain_attr = &dom };

	return pl_hints_caps_mr_mode(version, &hints, prov, mr_p, mode_p);
}

static void test_mr_bits_must_all_be_accepted(void **state)
{
	uint64_t mode = 0;
	int out;

	assert_int_equal(mr(FI_VERSION(1, 17), FI_MR_LOCAL | FI_MR_ENDPOINT,
			    0, FI_MR_LOCAL, &mode, &out), 0);
	assert_int_equal(out, FI_MR_LOCAL);
	assert_int_equal(mr(FI_VERSION(1, 17), 0, 0, FI_MR_LOCAL, &mode, &out),
			 -FI_ENODATA);
	assert_int_equal(mr(FI_VERSION(1, 17), FI_MR_BASIC | FI_MR_LOCAL, 0, 0,
			    &mode, &out), -FI_ENODATA);
}

static void test_mr_legacy_values(void **state)
{
	uint64_t mode = 0;
	int out;

	/* FI_MR_BASIC stays as asked (fi_mr(3)); local registration needs
	 * FI_LOCAL_MR from the application and is reported through it. */
	assert_int_equal(mr(FI_VERSION(1, 17), FI_MR_BASIC, FI_LOCAL_MR,
			    FI_MR_LOCAL | FI_MR_VIRT_ADDR, &mode, &out), 0);
	assert_int_equal(out, FI_MR_BASIC);
	assert_int_equal(mode, FI_LOCAL_MR);
	mode = 0;
	assert_int_equal(mr(FI_VERSION(1, 17), FI_MR_SCALABLE, FI_LOCAL_MR,
			    FI_MR_VIRT_ADDR, &mode, &out), -FI_ENODATA);
	assert_int_equal(mr(FI_VERSION(1, 4), FI_MR_UNSPEC, 0, 0, &mode, &out),
			 0);
	assert_int_equal(out, FI_MR_BASIC);
	assert_int_equal(mr(FI_VERSION(1, 4), FI_MR_UNSPEC, 0, FI_MR_ENDPOINT,
			    &mode, &out), -FI_ENODATA);
}

static void test_mr_provider_local_mr_mode_becomes_a_bit(void **state)
{
	uint64_t mode = FI_LOCAL_MR | FI_CONTEXT;
	int out;

	assert_int_equal(pl_hints_caps_mr_mode(FI_VERSION(1, 17), NULL,
					       FI_MR_BASIC, &out, &mode), 0);
	assert_int_equal(out, FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
			 FI_MR_PROV_KEY);
	assert_int_equal(mode, FI_CONTEXT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_request_returns_all),
		cmocka_unit_test(test_strict_request_must_be_covered),
		cmocka_unit_test(test_unrequested_secondary_caps_are_dropped),
		cmocka_unit_test(test_modifier_groups_are_independent),
		cmocka_unit_test(test_provider_without_modifiers_supports_all),
		cmocka_unit_test(test_unsupported_modifier_is_refused),
		cmocka_unit_test(test_mr_bits_must_all_be_accepted),
		cmocka_unit_test(test_mr_legacy_values),
		cmocka_unit_test(test_mr_provider_local_mr_mode_becomes_a_bit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
