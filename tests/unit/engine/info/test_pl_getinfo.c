/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_getinfo through the real libfabric.so.1 with the external test
 * providers (testprov/) on FI_PROVIDER_PATH and FI_PROVIDER unset:
 * discovery, layering, prov_name selection, what reaches the providers,
 * API versions and refused arguments. Hint matching proper is in
 * test_pl_getinfo_hints.c; FI_PROVIDER variations, which need a fresh
 * process each, in test_pl_prov_env.c.
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
#include "pl_getinfo.h"

#define LAYERED "testprov;ofi_testutil"

static void test_testprov_is_found_through_provider_path(void **state)
{
	struct fi_info *info;

	assert_int_equal(gi_get(NULL, &info), 3);
	assert_int_equal(gi_count(info, "testprov"), 2);
	assert_int_equal(gi_count(info, LAYERED), 1);
	assert_non_null(gi_testprov_probe());
	fi_freeinfo(info);
}

static void test_results_follow_registry_order(void **state)
{
	struct fi_info *info;

	/* Libraries load in name order (libtestprov < libtestutil) and a
	 * utility's answers sit at its place in the registry; a provider's
	 * own order is kept. */
	assert_int_equal(gi_get(NULL, &info), 3);
	assert_string_equal(info->fabric_attr->prov_name, "testprov");
	assert_int_equal(info->ep_attr->type, FI_EP_MSG);
	assert_int_equal(info->next->ep_attr->type, FI_EP_RDM);
	assert_string_equal(info->next->next->fabric_attr->prov_name, LAYERED);
	fi_freeinfo(info);
}

static void test_answers_carry_provider_and_api_versions(void **state)
{
	struct fi_info *info, *i;

	assert_int_equal(gi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, NULL,
				    &info), 0);
	for (i = info; i; i = i->next) {
		assert_int_equal(i->fabric_attr->api_version,
				 FI_VERSION(1, 9));
		/* A pair is the utility's answer, so its version. */
		assert_int_equal(i->fabric_attr->prov_version,
				 strcmp(i->fabric_attr->prov_name, LAYERED) ?
				 TESTPROV_VERSION_1 : TESTUTIL_VERSION);
	}
	fi_freeinfo(info);
}

static void test_prov_attr_only_lists_every_provider(void **state)
{
	struct fi_info *info;

	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, NULL,
				    FI_PROV_ATTR_ONLY, NULL, &info), 0);
	assert_int_equal(gi_len(info), 2);
	assert_int_equal(gi_count(info, "testprov"), 1);
	assert_int_equal(gi_count(info, "ofi_testutil"), 1);
	assert_int_equal(info->fabric_attr->prov_version, TESTPROV_VERSION_1);
	assert_non_null(info->ep_attr);
	assert_null(info->fabric_attr->name);
	fi_freeinfo(info);
}

static void test_layered_answer_is_named_core_first(void **state)
{
	struct fi_info *hints = gi_hints(LAYERED), *info;
	struct testutil_probe *up;

	assert_int_equal(gi_get(hints, &info), 1);
	assert_string_equal(info->fabric_attr->prov_name, LAYERED);
	assert_int_equal(info->ep_attr->type, FI_EP_RDM);
	assert_int_equal(info->mode, 0);
	/* Built over the MSG core answer: its domain and address. */
	assert_string_equal(info->domain_attr->name, TESTPROV_DOMAIN_A);
	assert_int_equal(info->addr_format, FI_SOCKADDR_IN);
	fi_freeinfo(info);
	fi_freeinfo(hints);

	up = gi_testutil_probe();
	assert_non_null(up);
	assert_string_equal(up->core_prov_name, "testprov");
	assert_false(up->saw_list);
}

static void test_prov_name_of_a_core_selects_it_and_its_pairs(void **state)
{
	struct fi_info *hints = gi_hints("testprov"), *info;

	assert_int_equal(gi_get(hints, &info), 3);
	fi_freeinfo(info);
	free(hints->fabric_attr->prov_name);
	hints->fabric_attr->prov_name = strdup("TestProv");
	assert_int_equal(gi_get(hints, &info), 3);
	fi_freeinfo(info);
	fi_freeinfo(hints);
}

static void test_prov_name_of_a_utility_selects_only_pairs(void **state)
{
	struct fi_info *hints = gi_hints("ofi_testutil"), *info;

	assert_int_equal(gi_get(hints, &info), 1);
	assert_string_equal(info->fabric_attr->prov_name, LAYERED);
	fi_freeinfo(info);
	fi_freeinfo(hints);
}

static void test_prov_name_pair_matches_in_either_order(void **state)
{
	struct fi_info *hints = gi_hints("ofi_testutil;testprov"), *info;

	assert_int_equal(gi_get(hints, &info), 1);
	assert_string_equal(info->fabric_attr->prov_name, LAYERED);
	fi_freeinfo(info);
	fi_freeinfo(hints);
}

static void test_prov_name_refusal_removes_pairs(void **state)
{
	struct fi_info *hints = gi_hints("testprov;^ofi_testutil"), *info;

	assert_int_equal(gi_get(hints, &info), 2);
	assert_int_equal(gi_count(info, "testprov"), 2);
	fi_freeinfo(info);
	free(hints->fabric_attr->prov_name);
	hints->fabric_attr->prov_name = strdup("^testprov");
	assert_int_equal(gi_get(hints, &info), 0);
	fi_freeinfo(hints);
}

static void test_prov_name_unknown_or_comma_list_matches_nothing(void **state)
{
	const char *names[] = { "nonexist", "testprov,ofi_testutil",
				"testprov;ofi_testutil;other" };
	struct fi_info *hints, *info;
	size_t i;

	for (i = 0; i < 3; i++) {
		hints = gi_hints(names[i]);
		assert_int_equal(gi_get(hints, &info), 0);
		fi_freeinfo(hints);
	}
}

static void test_node_service_flags_reach_the_providers(void **state)
{
	struct testprov_probe *pp = gi_testprov_probe();
	struct testutil_probe *up = gi_testutil_probe();
	struct fi_info *info;

	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), "10.1.2.3", "7471",
				    FI_NUMERICHOST, NULL, &info), 0);
	fi_freeinfo(info);
	assert_string_equal(pp->node, "10.1.2.3");
	assert_string_equal(pp->service, "7471");
	assert_int_equal(pp->flags, FI_NUMERICHOST);
	assert_int_equal(pp->version, FI_VERSION(1, 17));
	assert_true(pp->hints_null);
	assert_string_equal(up->node, "10.1.2.3");
	assert_int_equal(up->flags, FI_NUMERICHOST);

	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, "7471",
				    FI_SOURCE, NULL, &info), 0);
	fi_freeinfo(info);
	assert_true(pp->node_null);
	assert_int_equal(pp->flags, FI_SOURCE);
}

static void test_core_only_flag_skips_layering_and_is_not_passed_on(void **state)
{
	struct testprov_probe *pp = gi_testprov_probe();
	struct fi_info *info;

	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, NULL,
				    PL_GETINFO_CORE_ONLY, NULL, &info), 0);
	assert_int_equal(gi_len(info), 2);
	assert_int_equal(gi_count(info, "testprov"), 2);
	assert_int_equal(pp->flags, 0);
	fi_freeinfo(info);
}

static void test_api_versions_up_to_1_18_are_accepted(void **state)
{
	struct fi_info *info;
	unsigned minor;

	for (minor = 0; minor <= 18; minor++) {
		info = NULL;
		assert_int_equal(gi_getinfo(FI_VERSION(1, minor), NULL, NULL,
					    0, NULL, &info), 0);
		assert_non_null(info);
		fi_freeinfo(info);
	}
	/* Major 0 is not rejected by the reference either. */
	assert_int_equal(gi_getinfo(FI_VERSION(0, 5), NULL, NULL, 0, NULL,
				    &info), 0);
	fi_freeinfo(info);
}

static void test_newer_or_malformed_versions_are_enosys(void **state)
{
	const uint32_t bad[] = { FI_VERSION(1, 19), FI_VERSION(2, 0),
				 FI_VERSION(1, 0xffff), 0xdeadbeef,
				 UINT32_MAX };
	struct fi_info *info;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		info = (void *)0x1;
		assert_int_equal(gi_getinfo(bad[i], NULL, NULL, 0, NULL, &info),
				 -FI_ENOSYS);
		assert_ptr_equal(info, (void *)0x1);
		assert_int_equal(gi_getinfo(bad[i], NULL, NULL,
					    FI_PROV_ATTR_ONLY, NULL, &info),
				 -FI_ENOSYS);
	}
}

static void test_null_info_pointer_is_einval(void **state)
{
	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, NULL,
				    NULL), -FI_EINVAL);
}

static void test_source_without_node_or_service_is_einval(void **state)
{
	struct fi_info *info = (void *)0x1;

	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, NULL, FI_SOURCE,
				    NULL, &info), -FI_EINVAL);
	assert_ptr_equal(info, (void *)0x1);
}

static void test_address_or_key_without_length_is_einval(void **state)
{
	struct fi_info *hints = gi_hints(NULL), *info;
	uint8_t key[4] = { 1, 2, 3, 4 };

	hints->src_addr = malloc(16);
	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints,
				    &info), -FI_EINVAL);
	/* With FI_SOURCE the field is ignored (gi_getinfo(3)). */
	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, "1", FI_SOURCE,
				    hints, &info), 0);
	fi_freeinfo(info);
	free(hints->src_addr);
	hints->src_addr = NULL;

	hints->ep_attr->auth_key = key;
	assert_int_equal(gi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints,
				    &info), -FI_EINVAL);
	hints->ep_attr->auth_key = NULL;
	fi_freeinfo(hints);
}

static void test_hints_without_attribute_structs_are_wildcards(void **state)
{
	struct fi_info hints = { .mode = ~0ULL }, *info;

	/* A hand-built fi_info with no attribute struct at all. */
	assert_int_equal(gi_get(&hints, &info), 3);
	fi_freeinfo(info);
}

static void test_returned_infos_have_every_attribute_struct(void **state)
{
	struct fi_info *info, *i;

	assert_int_equal(gi_get(NULL, &info), 3);
	for (i = info; i; i = i->next) {
		assert_non_null(i->tx_attr);
		assert_non_null(i->rx_attr);
		assert_non_null(i->ep_attr);
		assert_non_null(i->domain_attr);
		assert_non_null(i->fabric_attr);
	}
	fi_freeinfo(info);
}

static void test_provider_nic_comes_back_as_a_full_object(void **state)
{
	struct fi_info *info, *a;
	struct fid_nic *copy = NULL;

	assert_int_equal(gi_get(NULL, &info), 3);
	a = gi_find(info, "testprov", FI_EP_MSG);
	/* testprov builds its nic from plain mallocs, with no ops. */
	assert_non_null(a->nic);
	assert_non_null(a->nic->fid.ops);
	assert_string_equal(a->nic->device_attr->name, TESTPROV_NIC);
	assert_non_null(strstr(fi_tostr(a, FI_TYPE_INFO), TESTPROV_NIC));
	assert_int_equal(fi_control(&a->nic->fid, FI_DUP, &copy), 0);
	assert_string_equal(copy->link_attr->address, "00:11:22:33:44:55");
	assert_int_equal(fi_close(&copy->fid), 0);
	fi_freeinfo(info);
}

static void test_hints_are_not_modified(void **state)
{
	struct fi_info *hints = gi_hints("testprov"), *copy, *info;

	hints->caps = FI_MSG;
	hints->ep_attr->type = FI_EP_MSG;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->domain_attr->av_type = FI_AV_MAP;
	hints->ep_attr->mem_tag_format = 0xff;
	copy = fi_dupinfo(hints);
	assert_non_null(copy);

	assert_int_equal(gi_get(hints, &info), 1);
	fi_freeinfo(info);
	assert_int_equal(hints->caps, copy->caps);
	assert_int_equal(hints->mode, copy->mode);
	assert_memory_equal(hints->tx_attr, copy->tx_attr,
			    sizeof(*hints->tx_attr));
	assert_memory_equal(hints->rx_attr, copy->rx_attr,
			    sizeof(*hints->rx_attr));
	assert_memory_equal(hints->ep_attr, copy->ep_attr,
			    sizeof(*hints->ep_attr));
	assert_int_equal(hints->domain_attr->threading,
			 copy->domain_attr->threading);
	assert_int_equal(hints->domain_attr->mr_mode,
			 copy->domain_attr->mr_mode);
	assert_string_equal(hints->fabric_attr->prov_name, "testprov");
	fi_freeinfo(copy);
	fi_freeinfo(hints);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_testprov_is_found_through_provider_path),
		cmocka_unit_test(test_results_follow_registry_order),
		cmocka_unit_test(test_answers_carry_provider_and_api_versions),
		cmocka_unit_test(test_prov_attr_only_lists_every_provider),
		cmocka_unit_test(test_layered_answer_is_named_core_first),
		cmocka_unit_test(test_prov_name_of_a_core_selects_it_and_its_pairs),
		cmocka_unit_test(test_prov_name_of_a_utility_selects_only_pairs),
		cmocka_unit_test(test_prov_name_pair_matches_in_either_order),
		cmocka_unit_test(test_prov_name_refusal_removes_pairs),
		cmocka_unit_test(test_prov_name_unknown_or_comma_list_matches_nothing),
		cmocka_unit_test(test_node_service_flags_reach_the_providers),
		cmocka_unit_test(test_core_only_flag_skips_layering_and_is_not_passed_on),
		cmocka_unit_test(test_api_versions_up_to_1_18_are_accepted),
		cmocka_unit_test(test_newer_or_malformed_versions_are_enosys),
		cmocka_unit_test(test_null_info_pointer_is_einval),
		cmocka_unit_test(test_source_without_node_or_service_is_einval),
		cmocka_unit_test(test_address_or_key_without_length_is_einval),
		cmocka_unit_test(test_hints_without_attribute_structs_are_wildcards),
		cmocka_unit_test(test_returned_infos_have_every_attribute_struct),
		cmocka_unit_test(test_provider_nic_comes_back_as_a_full_object),
		cmocka_unit_test(test_hints_are_not_modified),
	};

	return cmocka_run_group_tests(tests, gi_setup, NULL);
}
