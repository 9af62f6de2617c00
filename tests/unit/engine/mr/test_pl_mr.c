/* SPDX-License-Identifier: BSD-2-Clause */
/* Generic MR on a generic domain: keys, bad input, busy closes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_mr.h"

static char buf[256];

static struct pl_domain *open_dom(int app_mr_mode, int prov_mr_mode)
{
	static struct fi_domain_attr da;
	static struct fi_info info;
	struct pl_domain *dom = calloc(1, sizeof(*dom));

	assert_non_null(dom);
	da.mr_mode = app_mr_mode;
	info.domain_attr = &da;
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					prov_mr_mode, NULL), 0);
	return dom;
}

static void test_requested_key(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_MR_VIRT_ADDR, FI_MR_VIRT_ADDR);
	struct pl_keymap map;
	struct fid_mr *mr, *mr2;

	assert_int_equal(pl_keymap_init(&map), 0);
	assert_int_equal(pl_mr_reg(dom, &map, buf, sizeof(buf), FI_REMOTE_READ,
				   0, 42, 0, &mr, NULL), 0);
	assert_int_equal(fi_mr_key(mr), 42);
	assert_int_equal(pl_mr_reg(dom, &map, buf, 8, FI_REMOTE_READ, 0, 42,
				   0, &mr2, NULL), -FI_ENOKEY);
	assert_int_equal(pl_keymap_check(&map, 42, (uintptr_t)buf + 8, 8,
					 FI_REMOTE_READ, true, NULL), 0);
	/* the MR keeps the domain busy, a bind keeps the MR busy */
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), -FI_EBUSY);
	pl_mr_ref(mr);
	assert_int_equal(fi_close(&mr->fid), -FI_EBUSY);
	pl_mr_unref(mr);
	assert_int_equal(fi_close(&mr->fid), 0);
	assert_int_equal(pl_keymap_check(&map, 42, (uintptr_t)buf, 8,
					 FI_REMOTE_READ, true, NULL),
			 -FI_EKEYREJECTED);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
	pl_keymap_fini(&map);
}

static void test_prov_key_and_bad_input(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_MR_PROV_KEY, FI_MR_PROV_KEY);
	struct pl_keymap map;
	struct fid_mr *a, *b;

	assert_int_equal(pl_keymap_init(&map), 0);
	assert_int_equal(pl_mr_reg(dom, &map, buf, 8, FI_READ, 0, 5, 0, &a,
				   NULL), 0);
	assert_int_equal(pl_mr_reg(dom, &map, buf, 8, FI_READ, 0, 5, 0, &b,
				   NULL), 0);	/* requested key ignored */
	assert_true(fi_mr_key(a) != fi_mr_key(b));
	assert_int_equal(pl_mr_reg(dom, &map, buf, 0, FI_READ, 0, 1, 0, &b,
				   NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_reg(dom, &map, buf, 8, 1ULL << 60, 0, 1, 0, &b,
				   NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_reg(dom, &map, NULL, 8, FI_READ, 0, 1, 0, &b,
				   NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_reg(dom, &map, buf, 8, FI_READ, 0, 1, 0, NULL,
				   NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_reg(dom, &map, buf, 8, FI_READ, 0, 1, 1, &b,
				   NULL), -FI_EBADFLAGS);
	/* failed calls left b alone (output set only on success) */
	assert_int_equal(fi_close(&a->fid), 0);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), -FI_EBUSY);
	assert_int_equal(fi_close(&b->fid), 0);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
	pl_keymap_fini(&map);
}

/* A twin (pl_mr_set_twin) in another domain: closed first with its MR,
 * and a twin that cannot close keeps both open. */
static void test_twin(void **state)
{
	(void)state;
	struct pl_domain *d1 = open_dom(FI_MR_VIRT_ADDR, FI_MR_VIRT_ADDR);
	struct pl_domain *d2 = open_dom(FI_MR_VIRT_ADDR, FI_MR_VIRT_ADDR);
	struct pl_keymap m1, m2;
	struct fid_mr *mr, *twin, *other;

	assert_int_equal(pl_keymap_init(&m1), 0);
	assert_int_equal(pl_keymap_init(&m2), 0);
	assert_int_equal(pl_mr_reg(d1, &m1, buf, 64, FI_REMOTE_WRITE, 0, 42,
				   0, &mr, NULL), 0);
	assert_int_equal(pl_mr_reg(d2, &m2, buf, 64, FI_REMOTE_WRITE, 0, 42,
				   0, &twin, NULL), 0);
	assert_int_equal(pl_mr_reg(d2, &m2, buf, 8, FI_REMOTE_WRITE, 0, 43,
				   0, &other, NULL), 0);
	assert_int_equal(pl_mr_set_twin(NULL, twin), -FI_EINVAL);
	assert_int_equal(pl_mr_set_twin(mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_set_twin(mr, twin), 0);
	assert_int_equal(pl_mr_set_twin(mr, other), -FI_EINVAL);	/* one */
	/* the twin busy: neither closes, both keys stay valid */
	pl_mr_ref(twin);
	assert_int_equal(fi_close(&mr->fid), -FI_EBUSY);
	assert_int_equal(pl_keymap_check(&m1, 42, (uintptr_t)buf, 8,
					 FI_REMOTE_WRITE, true, NULL), 0);
	assert_int_equal(pl_keymap_check(&m2, 42, (uintptr_t)buf, 8,
					 FI_REMOTE_WRITE, true, NULL), 0);
	pl_mr_unref(twin);
	/* the MR's close closes its twin: both keys go */
	assert_int_equal(fi_close(&mr->fid), 0);
	assert_int_equal(pl_keymap_check(&m1, 42, (uintptr_t)buf, 8,
					 FI_REMOTE_WRITE, true, NULL),
			 -FI_EKEYREJECTED);
	assert_int_equal(pl_keymap_check(&m2, 42, (uintptr_t)buf, 8,
					 FI_REMOTE_WRITE, true, NULL),
			 -FI_EKEYREJECTED);
	assert_int_equal(fi_close(&other->fid), 0);
	/* no child left in either domain */
	assert_int_equal(pl_domain_close(&d1->domain_fid.fid), 0);
	assert_int_equal(pl_domain_close(&d2->domain_fid.fid), 0);
	pl_keymap_fini(&m1);
	pl_keymap_fini(&m2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requested_key),
		cmocka_unit_test(test_prov_key_and_bad_input),
		cmocka_unit_test(test_twin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
