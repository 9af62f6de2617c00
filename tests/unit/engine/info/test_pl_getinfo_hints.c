/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hint matching, seen through fi_getinfo. testprov answers A (MSG) and B
 * (RDM) whatever the hints, and ofi_testutil one RDM pair over A (see
 * testprov/testprov.h), so each count below is the engine's filtering.
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
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "gi_common.h"

#define LAYERED "testprov;ofi_testutil"

/* A, B and the pair, for hints h: how many answers survive. */
static size_t survivors(struct fi_info *h, struct fi_info **info)
{
	size_t n = gi_get(h, info);

	return n;
}

static size_t count_and_free(struct fi_info *h)
{
	struct fi_info *info;
	size_t n = survivors(h, &info);

	fi_freeinfo(info);
	return n;
}

static void test_no_caps_reports_the_providers_caps(void **state)
{
	struct fi_info *h = gi_hints("testprov"), *info;

	assert_int_equal(survivors(h, &info), 3);
	assert_int_equal(gi_find(info, "testprov", FI_EP_MSG)->caps,
			 TESTPROV_A_CAPS);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

static void test_primary_caps_return_only_what_was_asked(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info, *a;

	h->caps = FI_MSG;
	assert_int_equal(survivors(h, &info), 3);
	a = gi_find(info, "testprov", FI_EP_MSG);
	/* No RMA, and no unrequested secondary (MULTI_RECV, SOURCE, ...). */
	assert_int_equal(a->caps, FI_MSG | FI_SEND | FI_RECV);
	assert_int_equal(a->tx_attr->caps, FI_MSG | FI_SEND);
	assert_int_equal(a->rx_attr->caps, FI_MSG | FI_RECV);
	assert_int_equal(gi_find(info, LAYERED, 0)->caps,
			 FI_MSG | FI_SEND | FI_RECV);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

static void test_unsupported_primary_cap_filters(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info;

	h->caps = FI_TAGGED;
	assert_int_equal(survivors(h, &info), 2);
	assert_null(gi_find(info, "testprov", FI_EP_MSG));
	fi_freeinfo(info);
	h->caps = FI_ATOMIC;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_modifiers_given_or_implied(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info;

	h->caps = FI_RMA | FI_READ;
	assert_int_equal(survivors(h, &info), 1);
	assert_int_equal(info->caps, FI_RMA | FI_READ);
	fi_freeinfo(info);

	h->caps = FI_RMA;
	assert_int_equal(survivors(h, &info), 1);
	assert_int_equal(info->caps, FI_RMA | FI_READ | FI_WRITE |
			 FI_REMOTE_READ | FI_REMOTE_WRITE);
	fi_freeinfo(info);

	/* A modifier of another group does not stand for FI_MSG's. */
	h->caps = FI_MSG | FI_READ;
	assert_int_equal(survivors(h, &info), 1);
	assert_int_equal(info->caps, FI_MSG | FI_READ | FI_SEND | FI_RECV);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

static void test_requested_secondary_caps_must_be_supported(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info;

	h->caps = FI_MSG | FI_SOURCE;
	assert_int_equal(survivors(h, &info), 1);
	assert_int_equal(info->caps, FI_MSG | FI_SOURCE | FI_SEND | FI_RECV);
	fi_freeinfo(info);
	h->caps = FI_MSG | FI_RMA_EVENT;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_domain_caps_requested_must_be_there(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->domain_attr->caps = FI_LOCAL_COMM;
	/* A and the pair built over it have it; B has none. */
	assert_int_equal(count_and_free(h), 2);
	fi_freeinfo(h);
}

static void test_required_mode_not_set_filters(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info;

	h->mode = 0;
	assert_int_equal(survivors(h, &info), 2);
	assert_null(gi_find(info, "testprov", FI_EP_MSG));
	fi_freeinfo(info);
	fi_freeinfo(h);
}

static void test_unneeded_mode_bits_come_back_cleared(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info;

	h->mode = FI_CONTEXT | FI_CONTEXT2 | FI_MSG_PREFIX;
	assert_int_equal(survivors(h, &info), 3);
	assert_int_equal(gi_find(info, "testprov", FI_EP_MSG)->mode,
			 FI_CONTEXT);
	assert_int_equal(gi_find(info, "testprov", FI_EP_RDM)->mode, 0);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

static void test_ep_type(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->ep_attr->type = FI_EP_MSG;
	assert_int_equal(count_and_free(h), 1);
	h->ep_attr->type = FI_EP_RDM;
	assert_int_equal(count_and_free(h), 2);
	h->ep_attr->type = FI_EP_DGRAM;
	assert_int_equal(count_and_free(h), 0);
	h->ep_attr->type = 99;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_addr_format(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->addr_format = FI_SOCKADDR;		/* any sockaddr */
	assert_int_equal(count_and_free(h), 2);
	h->addr_format = FI_SOCKADDR_IN;
	assert_int_equal(count_and_free(h), 2);
	h->addr_format = FI_SOCKADDR_IN6;
	assert_int_equal(count_and_free(h), 0);
	h->addr_format = FI_ADDR_STR;
	assert_int_equal(count_and_free(h), 1);
	fi_freeinfo(h);
}

static void test_fabric_and_domain_names(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->fabric_attr->name = strdup(TESTPROV_FABRIC);
	assert_int_equal(count_and_free(h), 3);
	h->domain_attr->name = strdup(TESTPROV_DOMAIN_B);
	assert_int_equal(count_and_free(h), 1);
	free(h->domain_attr->name);
	h->domain_attr->name = strdup(TESTPROV_DOMAIN_A);
	assert_int_equal(count_and_free(h), 2);
	free(h->fabric_attr->name);
	h->fabric_attr->name = strdup("otherfab");
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_sizes_above_provider_maxima_filter(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->tx_attr->size = 1024;		/* A's, B has 256 */
	assert_int_equal(count_and_free(h), 2);
	h->tx_attr->size = 1025;
	assert_int_equal(count_and_free(h), 0);
	h->tx_attr->size = 0;
	h->tx_attr->inject_size = 1;		/* B injects nothing */
	assert_int_equal(count_and_free(h), 2);
	h->tx_attr->inject_size = 0;
	h->rx_attr->iov_limit = 5;
	assert_int_equal(count_and_free(h), 0);
	h->rx_attr->iov_limit = 0;
	h->ep_attr->max_msg_size = (1 << 16) + 1;
	assert_int_equal(count_and_free(h), 2);
	h->ep_attr->max_msg_size = 0;
	h->domain_attr->cq_cnt = 17;
	assert_int_equal(count_and_free(h), 0);
	h->domain_attr->cq_cnt = 0;
	h->domain_attr->ep_cnt = 64;		/* A has 128, B 16 */
	assert_int_equal(count_and_free(h), 2);
	fi_freeinfo(h);
}

static void test_shared_context_needs_provider_support(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->ep_attr->tx_ctx_cnt = FI_SHARED_CONTEXT;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_protocol(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->ep_attr->protocol = FI_PROTO_SOCK_TCP;
	assert_int_equal(count_and_free(h), 1);
	h->ep_attr->protocol_version = 2;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_threading_served_by_promised_serialization(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info, *i;

	h->domain_attr->threading = FI_THREAD_DOMAIN;
	assert_int_equal(survivors(h, &info), 3);
	/* Reported back as the application's model, for the provider. */
	for (i = info; i; i = i->next)
		assert_int_equal(i->domain_attr->threading, FI_THREAD_DOMAIN);
	fi_freeinfo(info);
	h->domain_attr->threading = FI_THREAD_FID;	/* B needs DOMAIN */
	assert_int_equal(count_and_free(h), 2);
	h->domain_attr->threading = FI_THREAD_SAFE;
	assert_int_equal(count_and_free(h), 2);
	h->domain_attr->threading = 99;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_progress_and_resource_management(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->domain_attr->data_progress = FI_PROGRESS_AUTO;
	assert_int_equal(count_and_free(h), 2);		/* B is manual */
	h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	assert_int_equal(count_and_free(h), 3);		/* auto serves */
	h->domain_attr->data_progress = 0;
	h->domain_attr->control_progress = 9;
	assert_int_equal(count_and_free(h), 0);
	h->domain_attr->control_progress = 0;
	h->domain_attr->resource_mgmt = FI_RM_ENABLED;
	assert_int_equal(count_and_free(h), 2);
	h->domain_attr->resource_mgmt = FI_RM_DISABLED;
	assert_int_equal(count_and_free(h), 3);
	fi_freeinfo(h);
}

static void test_av_type(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info;

	h->domain_attr->av_type = FI_AV_MAP;		/* B is TABLE only */
	assert_int_equal(survivors(h, &info), 2);
	assert_int_equal(info->domain_attr->av_type, FI_AV_MAP);
	fi_freeinfo(info);
	h->domain_attr->av_type = FI_AV_TABLE;
	assert_int_equal(count_and_free(h), 3);
	h->domain_attr->av_type = 7;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_mr_mode_bits(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info, *a;

	h->domain_attr->mr_mode = 0;		/* A needs FI_MR_LOCAL */
	assert_int_equal(count_and_free(h), 2);
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_PROV_KEY |
				  FI_MR_VIRT_ADDR;
	assert_int_equal(survivors(h, &info), 3);
	a = gi_find(info, "testprov", FI_EP_MSG);
	assert_int_equal(a->domain_attr->mr_mode,
			 FI_MR_LOCAL | FI_MR_PROV_KEY);
	fi_freeinfo(info);
	h->domain_attr->mr_mode = FI_MR_BASIC | FI_MR_LOCAL;	/* mixed */
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

/* A needs FI_MR_PROV_KEY for its RMA: a client granted no RMA or
 * atomics is not asked for it (nor for any other RMA-target bit), one
 * granted FI_RMA is. */
static void test_mr_rma_target_bits_only_for_rma(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info, *a;

	h->domain_attr->mr_mode = FI_MR_LOCAL;
	assert_int_equal(count_and_free(h), 2);	/* caps 0: A's RMA too */
	h->caps = FI_MSG;
	assert_int_equal(survivors(h, &info), 3);
	a = gi_find(info, "testprov", FI_EP_MSG);
	assert_non_null(a);
	assert_int_equal(a->domain_attr->mr_mode, FI_MR_LOCAL);
	fi_freeinfo(info);
	h->caps = FI_MSG | FI_RMA;
	assert_int_equal(count_and_free(h), 0);	/* only A has RMA */
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_PROV_KEY;
	assert_int_equal(survivors(h, &info), 1);
	assert_int_equal(info->domain_attr->mr_mode,
			 FI_MR_LOCAL | FI_MR_PROV_KEY);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

static void test_mr_basic_with_local_mr_mode(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info, *a;

	h->domain_attr->mr_mode = FI_MR_BASIC;
	assert_int_equal(survivors(h, &info), 3);
	a = gi_find(info, "testprov", FI_EP_MSG);
	assert_int_equal(a->domain_attr->mr_mode, FI_MR_BASIC);
	assert_true(a->mode & FI_LOCAL_MR);
	fi_freeinfo(info);
	h->mode = FI_CONTEXT;			/* no FI_LOCAL_MR */
	assert_int_equal(count_and_free(h), 2);
	fi_freeinfo(h);
}

static void test_api_before_1_5_gets_legacy_mr_mode(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info, *a;

	h->domain_attr->mr_mode = FI_MR_UNSPEC;
	assert_int_equal(gi_getinfo(FI_VERSION(1, 4), NULL, NULL, 0, h,
				    &info), 0);
	a = gi_find(info, "testprov", FI_EP_MSG);
	assert_int_equal(a->domain_attr->mr_mode, FI_MR_BASIC);
	assert_int_equal(a->mode, FI_CONTEXT | FI_LOCAL_MR);
	assert_int_equal(gi_find(info, "testprov", FI_EP_RDM)->domain_attr->
			 mr_mode, FI_MR_BASIC);
	fi_freeinfo(info);

	h->domain_attr->mr_mode = FI_MR_SCALABLE;	/* A needs local */
	h->mode = ~FI_LOCAL_MR;
	assert_int_equal(gi_getinfo(FI_VERSION(1, 4), NULL, NULL, 0, h,
				    &info), 0);
	assert_int_equal(gi_len(info), 2);
	assert_int_equal(info->domain_attr->mr_mode, FI_MR_SCALABLE);
	fi_freeinfo(info);
	fi_freeinfo(h);

	assert_int_equal(gi_getinfo(FI_VERSION(1, 4), NULL, NULL, 0, NULL,
				    &info), 0);
	a = gi_find(info, "testprov", FI_EP_MSG);
	assert_int_equal(a->domain_attr->mr_mode, FI_MR_BASIC);
	assert_true(a->mode & FI_LOCAL_MR);
	fi_freeinfo(info);
}

static void test_message_and_completion_order(void **state)
{
	struct fi_info *h = gi_hints(NULL);

	h->tx_attr->msg_order = FI_ORDER_SAS;	/* A has it, B does not */
	assert_int_equal(count_and_free(h), 2);
	h->tx_attr->msg_order = 0;
	h->rx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_RAW;
	assert_int_equal(count_and_free(h), 0);
	h->rx_attr->msg_order = 0;
	h->tx_attr->comp_order = FI_ORDER_STRICT;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_tag_format_must_fit_and_is_echoed(void **state)
{
	struct fi_info *h = gi_hints("testprov"), *info;

	h->ep_attr->type = FI_EP_RDM;
	h->ep_attr->mem_tag_format = 0xffff;
	assert_int_equal(survivors(h, &info), 2);
	assert_int_equal(info->ep_attr->mem_tag_format, 0xffff);
	fi_freeinfo(info);
	h->ep_attr->mem_tag_format = 1ULL << 63;
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

/* Default op_flags asked for in the hints come back as the endpoint's
 * defaults where the provider can serve them, and refuse it where not
 * (A: multi-recv and inject 64; B: neither). */
static void test_op_flags_from_hints(void **state)
{
	struct fi_info *h = gi_hints(NULL), *info, *a;

	assert_int_equal(survivors(h, &info), 3);
	assert_int_equal(gi_find(info, "testprov", FI_EP_MSG)->rx_attr->op_flags,
			 0);
	fi_freeinfo(info);

	h->rx_attr->op_flags = FI_MULTI_RECV;
	assert_int_equal(survivors(h, &info), 1);
	a = gi_find(info, "testprov", FI_EP_MSG);
	assert_non_null(a);
	assert_int_equal(a->rx_attr->op_flags, FI_MULTI_RECV);
	fi_freeinfo(info);
	h->rx_attr->op_flags = 0;

	/* the pair inherits A's inject size; B has none */
	h->tx_attr->op_flags = FI_INJECT | FI_COMPLETION;
	assert_int_equal(survivors(h, &info), 2);
	assert_null(gi_find(info, "testprov", FI_EP_RDM));
	for (a = info; a; a = a->next)
		assert_int_equal(a->tx_attr->op_flags,
				 FI_INJECT | FI_COMPLETION);
	fi_freeinfo(info);

	h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
	assert_int_equal(survivors(h, &info), 3);
	for (a = info; a; a = a->next)
		assert_int_equal(a->tx_attr->op_flags, FI_DELIVERY_COMPLETE);
	fi_freeinfo(info);

	/* not defaults at all, or not of that direction */
	h->tx_attr->op_flags = FI_MULTI_RECV;
	assert_int_equal(count_and_free(h), 0);
	h->tx_attr->op_flags = 0;
	h->rx_attr->op_flags = FI_INJECT;
	assert_int_equal(count_and_free(h), 0);
	h->rx_attr->op_flags = 0;
	h->tx_attr->op_flags = FI_COMMIT_COMPLETE;	/* no FI_RMA_PMEM */
	assert_int_equal(count_and_free(h), 0);
	fi_freeinfo(h);
}

static void test_passive_endpoint_handle_is_returned(void **state)
{
	struct fi_info *h = gi_hints("testprov"), *info;
	struct fid pep = { .fclass = FI_CLASS_PEP };

	h->handle = &pep;
	h->ep_attr->type = FI_EP_MSG;
	assert_int_equal(survivors(h, &info), 1);
	assert_ptr_equal(info->handle, &pep);
	fi_freeinfo(info);
	h->handle = NULL;	/* not ours to free */
	fi_freeinfo(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_caps_reports_the_providers_caps),
		cmocka_unit_test(test_primary_caps_return_only_what_was_asked),
		cmocka_unit_test(test_unsupported_primary_cap_filters),
		cmocka_unit_test(test_modifiers_given_or_implied),
		cmocka_unit_test(test_requested_secondary_caps_must_be_supported),
		cmocka_unit_test(test_domain_caps_requested_must_be_there),
		cmocka_unit_test(test_required_mode_not_set_filters),
		cmocka_unit_test(test_unneeded_mode_bits_come_back_cleared),
		cmocka_unit_test(test_ep_type),
		cmocka_unit_test(test_addr_format),
		cmocka_unit_test(test_fabric_and_domain_names),
		cmocka_unit_test(test_sizes_above_provider_maxima_filter),
		cmocka_unit_test(test_shared_context_needs_provider_support),
		cmocka_unit_test(test_protocol),
		cmocka_unit_test(test_threading_served_by_promised_serialization),
		cmocka_unit_test(test_progress_and_resource_management),
		cmocka_unit_test(test_av_type),
		cmocka_unit_test(test_mr_mode_bits),
		cmocka_unit_test(test_mr_rma_target_bits_only_for_rma),
		cmocka_unit_test(test_mr_basic_with_local_mr_mode),
		cmocka_unit_test(test_api_before_1_5_gets_legacy_mr_mode),
		cmocka_unit_test(test_message_and_completion_order),
		cmocka_unit_test(test_tag_format_must_fit_and_is_echoed),
		cmocka_unit_test(test_passive_endpoint_handle_is_returned),
		cmocka_unit_test(test_op_flags_from_hints),
	};

	return cmocka_run_group_tests(tests, gi_setup, NULL);
}
