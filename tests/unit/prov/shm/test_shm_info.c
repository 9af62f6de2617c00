/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider's fi_getinfo answer (prov/shm/shm_info.c): addresses
 * resolved as the reference's fi_shm(7) says, node-local capabilities
 * only, sizes from FI_SHM_*. The entry point is checked for shape; the
 * provider is not registered in libfabric yet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_info.h"
#include "shm_info.h"
#include "shm_params.h"

static void test_default_addresses(void **state)
{
	struct fi_info *info = NULL;
	char want[64];

	assert_int_equal(shm_info_get(FI_VERSION(1, 17), NULL, NULL, 0, NULL,
				      &info), 0);
	snprintf(want, sizeof(want), "fi_shm://%d", (int)getpid());
	assert_string_equal(info->src_addr, want);
	assert_int_equal(info->src_addrlen, strlen(want) + 1);
	assert_null(info->dest_addr);
	assert_int_equal(info->addr_format, FI_ADDR_STR);
	fi_freeinfo_1_3(info);
}

static void test_node_service(void **state)
{
	struct fi_info *info = NULL;

	/* destination by default... */
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), "localhost", "s", 0,
				      NULL, &info), 0);
	assert_string_equal(info->dest_addr, "fi_ns://localhost:s");
	assert_non_null(info->src_addr);
	assert_int_equal(strncmp(info->src_addr, "fi_shm://", 9), 0);
	fi_freeinfo_1_3(info);
	/* ...source with FI_SOURCE */
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), NULL, "svc",
				      FI_SOURCE, NULL, &info), 0);
	assert_string_equal(info->src_addr, "fi_ns://svc");
	assert_null(info->dest_addr);
	fi_freeinfo_1_3(info);
	/* a full FI_ADDR_STR is kept as is */
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), "fi_shm://9:0:1",
				      NULL, 0, NULL, &info), 0);
	assert_string_equal(info->dest_addr, "fi_shm://9:0:1");
	fi_freeinfo_1_3(info);
}

/* shm reaches this host only: a destination node that names another
 * is refused (fabtests' negative test "fi_rdm g00n13s"); this host's
 * names and addresses, pids and full shm names are taken */
static void test_remote_node(void **state)
{
	struct fi_info *info = NULL;
	char host[256];
	const char *local[] = { "localhost", "127.0.0.1", "::1", "4242",
				"fi_shm://9:0:1", host };

	assert_int_equal(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), "g00n13s", NULL, 0,
				      NULL, &info), -FI_ENODATA);
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), "g00n13s", "9228", 0,
				      NULL, &info), -FI_ENODATA);
	/* TEST-NET-1 (RFC 5737): never an interface of a test machine */
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), "192.0.2.1", NULL, 0,
				      NULL, &info), -FI_ENODATA);
	/* as a source the node is only a name */
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), "g00n13s", NULL,
				      FI_SOURCE, NULL, &info), 0);
	fi_freeinfo_1_3(info);
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
		info = NULL;
		assert_int_equal(shm_info_get(FI_VERSION(1, 17), local[i],
					      NULL, 0, NULL, &info), 0);
		fi_freeinfo_1_3(info);
	}
}

static void test_hint_addresses(void **state)
{
	struct fi_info *hints = fi_dupinfo_1_3(NULL), *info = NULL;

	hints->addr_format = FI_ADDR_STR;
	hints->src_addr = strdup("fi_ns://mine");
	hints->src_addrlen = strlen("fi_ns://mine") + 1;
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), NULL, NULL, 0,
				      hints, &info), 0);
	assert_string_equal(info->src_addr, "fi_ns://mine");
	fi_freeinfo_1_3(info);
	hints->addr_format = FI_SOCKADDR_IN;
	assert_int_equal(shm_info_get(FI_VERSION(1, 17), NULL, NULL, 0,
				      hints, &info), -FI_EINVAL);
	fi_freeinfo_1_3(hints);
}

static void test_attributes(void **state)
{
	const struct shm_params *p = shm_params_get();
	struct fi_info *info = NULL;

	assert_int_equal(shm_info_get(FI_VERSION(1, 17), NULL, NULL, 0, NULL,
				      &info), 0);
	assert_int_equal(info->ep_attr->type, FI_EP_RDM);
	assert_true(info->caps & FI_LOCAL_COMM);
	assert_false(info->caps & FI_REMOTE_COMM);
	assert_false(info->domain_attr->caps & FI_REMOTE_COMM);
	assert_true((info->caps & (FI_MSG | FI_TAGGED)) == (FI_MSG | FI_TAGGED));
	assert_int_equal(info->tx_attr->inject_size, 4096);
	assert_int_equal(info->tx_attr->size, p->tx_size);
	assert_int_equal(info->rx_attr->size, p->rx_size);
	assert_int_equal(info->domain_attr->data_progress, FI_PROGRESS_MANUAL);
	assert_string_equal(info->fabric_attr->prov_name, "shm");
	assert_string_equal(info->domain_attr->name, "shm");
	fi_freeinfo_1_3(info);
}

static void test_entry_point(void **state)
{
	struct fi_provider *prov = shm_prov_ini();
	struct fid_fabric *fab;

	assert_string_equal(prov->name, "shm");
	assert_non_null(prov->getinfo);
	assert_int_equal(prov->fabric(NULL, &fab, NULL), -FI_EINVAL);
	{
		struct fi_fabric_attr fa = { .name = "shm", .prov_name = "shm",
					     .api_version = FI_VERSION(1, 17) };
		struct fi_fabric_attr other = { .name = "tcp",
						.prov_name = "shm" };

		assert_int_equal(prov->fabric(&other, &fab, NULL),
				 -FI_ENODATA);
		assert_int_equal(prov->fabric(&fa, &fab, NULL), 0);
		assert_int_equal(fab->fid.fclass, FI_CLASS_FABRIC);
		assert_int_equal(fi_close(&fab->fid), 0);
	}
	prov->cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_addresses),
		cmocka_unit_test(test_node_service),
		cmocka_unit_test(test_remote_node),
		cmocka_unit_test(test_hint_addresses),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_entry_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
