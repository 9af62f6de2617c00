/* SPDX-License-Identifier: BSD-2-Clause */
/* Endpoint helpers: selective-completion decision and bind-flag checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_ep.h"

static void test_selective_completion(void **state)
{
	(void)state;
	assert_true(pl_ep_op_completes(FI_TRANSMIT, 0, false));
	assert_false(pl_ep_op_completes(FI_TRANSMIT | FI_SELECTIVE_COMPLETION,
					0, false));
	assert_true(pl_ep_op_completes(FI_TRANSMIT | FI_SELECTIVE_COMPLETION,
				       FI_COMPLETION, false));
	assert_true(pl_ep_op_completes(FI_RECV | FI_SELECTIVE_COMPLETION,
				       0, true));
}

static void test_bind_flags(void **state)
{
	(void)state;
	assert_int_equal(pl_ep_bind_check(FI_CLASS_CQ, FI_TRANSMIT), 0);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_CQ, FI_RECV |
					  FI_SELECTIVE_COMPLETION), 0);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_CQ, 0), -FI_EINVAL);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_CQ, FI_TRANSMIT | FI_READ),
			 -FI_EINVAL);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_CNTR, FI_REMOTE_WRITE), 0);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_CNTR, 0), -FI_EINVAL);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_AV, 0), 0);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_AV, FI_SEND), -FI_EINVAL);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_EQ, 0), 0);
	assert_int_equal(pl_ep_bind_check(FI_CLASS_MR, 0), -FI_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selective_completion),
		cmocka_unit_test(test_bind_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
