/* SPDX-License-Identifier: BSD-2-Clause */
/* Generic fabric object: children counted by the engine objects opened
 * on it (domain, EQ, wait set), the busy close, and a fabric that is not
 * a pl_fabric_obj left uncounted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_domain.h"
#include "pl_eq.h"
#include "pl_fabric_obj.h"
#include "pl_wait_set.h"

static void test_children_make_close_busy(void **state)
{
	struct fi_domain_attr da = { .threading = FI_THREAD_SAFE };
	struct fi_info info = { .caps = FI_MSG, .domain_attr = &da };
	struct fi_wait_attr wa = { .wait_obj = FI_WAIT_FD };
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_NONE };
	struct pl_fabric_obj f;
	struct pl_domain *dom = calloc(1, sizeof(*dom));
	struct fid_wait *ws;
	struct fid_eq *eq;

	(void)state;
	assert_non_null(dom);
	pl_fabric_obj_init(&f, FI_VERSION(1, 17), NULL);
	assert_int_equal(f.fabric_fid.fid.fclass, FI_CLASS_FABRIC);
	assert_int_equal(pl_domain_init(dom, &f.fabric_fid, &info,
					FI_VERSION(1, 17), 0, NULL), 0);
	assert_int_equal(pl_eq_open(&f.fabric_fid, &ea, &eq, NULL), 0);
	assert_int_equal(pl_wait_open(&f.fabric_fid, &wa, &ws), 0);
	assert_int_equal(pl_fabric_obj_fini(&f), -FI_EBUSY);
	assert_int_equal(pl_domain_fini(dom), 0);
	assert_int_equal(pl_fabric_obj_fini(&f), -FI_EBUSY);
	assert_int_equal(fi_close(&eq->fid), 0);
	assert_int_equal(pl_fabric_obj_fini(&f), -FI_EBUSY);
	assert_int_equal(fi_close(&ws->fid), 0);
	assert_int_equal(pl_fabric_obj_fini(&f), 0);
	free(dom);
}

/* A provider's own fabric struct, not an engine one: children open and
 * close without touching it. */
static void test_foreign_fabric_not_counted(void **state)
{
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_NONE };
	struct fid_fabric foreign = { .fid.fclass = FI_CLASS_FABRIC };
	struct fid_eq *eq;

	(void)state;
	assert_int_equal(pl_eq_open(&foreign, &ea, &eq, NULL), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
	assert_int_equal(pl_eq_open(NULL, &ea, &eq, NULL), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_children_make_close_busy),
		cmocka_unit_test(test_foreign_fabric_not_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
