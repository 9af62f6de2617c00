/* SPDX-License-Identifier: BSD-2-Clause */
/* Generic domain object: contract accessors, mr_mode negotiation, busy
 * close, EQ binding checks. Uses a domain embedded the way a provider
 * does (pl_domain first in a malloc()ed struct). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_domain.h"

static struct fi_domain_attr da;
static struct fi_info info;

static struct pl_domain *open_dom(enum fi_progress prog,
				  enum fi_threading th)
{
	struct pl_domain *dom = calloc(1, sizeof(*dom));

	assert_non_null(dom);
	da.data_progress = prog;
	da.threading = th;
	da.mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
		     FI_MR_PROV_KEY;
	info.domain_attr = &da;
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					FI_MR_VIRT_ADDR, NULL), 0);
	return dom;
}

static void test_accessors_manual(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_DOMAIN);

	assert_non_null(pl_domain_progress(&dom->domain_fid));
	assert_int_equal(pl_domain_threading(&dom->domain_fid),
			 FI_THREAD_DOMAIN);
	assert_int_equal(pl_domain_api_version(&dom->domain_fid),
			 FI_VERSION(1, 17));
	assert_int_equal(dom->mr_mode, FI_MR_VIRT_ADDR);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

static void test_auto_progress_opens(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_AUTO, FI_THREAD_UNSPEC);

	assert_int_equal(pl_domain_threading(&dom->domain_fid),
			 FI_THREAD_SAFE);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

/* A client granted no RMA or atomics is not asked for the registration
 * modes only an RMA target needs; the domain keeps the provider's choice
 * for them. One granted FI_RMA is asked. */
static void test_mr_mode_without_rma(void **state)
{
	(void)state;
	struct pl_domain *dom = calloc(1, sizeof(*dom));
	struct fi_domain_attr a = { .threading = FI_THREAD_SAFE };
	struct fi_info i = { .caps = FI_TAGGED | FI_SEND | FI_RECV,
			     .domain_attr = &a };

	assert_non_null(dom);
	assert_int_equal(pl_domain_init(dom, NULL, &i, FI_VERSION(1, 17),
					FI_MR_VIRT_ADDR | FI_MR_PROV_KEY,
					NULL), 0);
	assert_int_equal(dom->mr_mode, FI_MR_VIRT_ADDR | FI_MR_PROV_KEY);
	assert_int_equal(pl_domain_fini(dom), 0);
	i.caps |= FI_RMA;
	assert_int_equal(pl_domain_init(dom, NULL, &i, FI_VERSION(1, 17),
					FI_MR_VIRT_ADDR | FI_MR_PROV_KEY,
					NULL), -FI_ENODATA);
	free(dom);
}

static void test_null_accessors(void **state)
{
	(void)state;
	struct fid_domain plain = { .fid = { .fclass = FI_CLASS_DOMAIN } };

	assert_null(pl_domain_progress(NULL));
	/* a provider's own fid_domain: never read past its end */
	assert_null(pl_domain_progress(&plain));
	assert_int_equal(pl_domain_threading(&plain), FI_THREAD_SAFE);
	assert_int_equal(pl_domain_threading(NULL), FI_THREAD_SAFE);
	assert_int_equal(pl_domain_api_version(NULL), FI_VERSION(1, 17));
	assert_int_equal(pl_domain_init(NULL, NULL, &info, 0, 0, NULL),
			 -FI_EINVAL);
	assert_int_equal(pl_domain_bind(NULL, NULL, 0), -FI_EINVAL);
}

static void test_busy_close(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);

	pl_domain_child_get(dom);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), -FI_EBUSY);
	pl_domain_child_put(dom);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

static void test_bind_checks(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid eq = { .fclass = FI_CLASS_EQ };
	struct fid cq = { .fclass = FI_CLASS_CQ };
	struct fid *d = &dom->domain_fid.fid;

	assert_int_equal(pl_domain_bind(d, &cq, 0), -FI_EINVAL);
	assert_int_equal(pl_domain_bind(d, &eq, FI_SEND), -FI_EINVAL);
	assert_int_equal(pl_domain_bind(d, &eq, 0), 0);
	assert_int_equal(pl_domain_bind(d, &eq, 0), -FI_EALREADY);
	assert_int_equal(pl_domain_close(d), 0);
}

static void test_mr_mode(void **state)
{
	(void)state;
	uint32_t v = FI_VERSION(1, 17);

	assert_int_equal(pl_domain_mr_mode(FI_MR_LOCAL, FI_MR_PROV_KEY, v),
			 -FI_ENODATA);
	assert_int_equal(pl_domain_mr_mode(FI_MR_BASIC, FI_MR_PROV_KEY, v),
			 FI_MR_PROV_KEY);
	assert_int_equal(pl_domain_mr_mode(FI_MR_SCALABLE, 0, v), 0);
	assert_int_equal(pl_domain_mr_mode(FI_MR_UNSPEC, FI_MR_VIRT_ADDR,
					   FI_VERSION(1, 4)), FI_MR_VIRT_ADDR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accessors_manual),
		cmocka_unit_test(test_auto_progress_opens),
		cmocka_unit_test(test_null_accessors),
		cmocka_unit_test(test_mr_mode_without_rma),
		cmocka_unit_test(test_busy_close),
		cmocka_unit_test(test_bind_checks),
		cmocka_unit_test(test_mr_mode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
