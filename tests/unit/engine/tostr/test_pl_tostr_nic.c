/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_tostr_nic_print, the tostr op of the struct fid_nic objects propel
 * creates. No reference nic can be built here (tostr_oracle cannot cover
 * it), so the expected text is the layout fi_info(1) documents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_tostr.h"

static struct fi_ops nic_ops = {
	.size = sizeof(struct fi_ops),
	.tostr = pl_tostr_nic_print,
};

/* The example block of the fi_info(1) man page, verbs on mlx5. */
static const char man_example[] =
	"    nic:\n"
	"        fi_device_attr:\n"
	"            name: mlx5_0\n"
	"            device_id: 0x101b\n"
	"            device_version: 0\n"
	"            vendor_id: 0x02c9\n"
	"            driver: (null)\n"
	"            firmware: 20.33.1048\n"
	"        fi_bus_attr:\n"
	"            bus_type: FI_BUS_UNKNOWN\n"
	"        fi_link_attr:\n"
	"            address: (null)\n"
	"            mtu: 4096\n"
	"            speed: 0\n"
	"            state: FI_LINK_UP\n"
	"            network_type: InfiniBand\n";

static struct fi_device_attr dev = {
	.name = "mlx5_0", .device_id = "0x101b", .device_version = "0",
	.vendor_id = "0x02c9", .driver = NULL, .firmware = "20.33.1048",
};
static struct fi_bus_attr bus = { .bus_type = FI_BUS_UNKNOWN };
static struct fi_link_attr link_attr = {
	.address = NULL, .mtu = 4096, .speed = 0, .state = FI_LINK_UP,
	.network_type = "InfiniBand",
};

static void nic_init(struct fid_nic *nic)
{
	memset(nic, 0, sizeof(*nic));
	nic->fid.fclass = FI_CLASS_NIC;
	nic->fid.ops = &nic_ops;
	nic->device_attr = &dev;
	nic->bus_attr = &bus;
	nic->link_attr = &link_attr;
}

static void test_nic_prints_the_documented_block(void **state)
{
	struct fid_nic nic;
	char buf[1024] = "";

	nic_init(&nic);
	assert_int_equal(pl_tostr_nic_print(&nic.fid, buf, sizeof(buf)), 0);
	assert_string_equal(buf, man_example);
}

static void test_nic_pci_bus_adds_pci_block(void **state)
{
	struct fi_bus_attr pci = { .bus_type = FI_BUS_PCI,
				   .attr.pci = { .domain_id = 1, .bus_id = 0x3b,
						 .device_id = 0,
						 .function_id = 1 } };
	struct fid_nic nic;
	char buf[1024] = "";

	nic_init(&nic);
	nic.bus_attr = &pci;
	assert_int_equal(pl_tostr_nic_print(&nic.fid, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf,
		"        fi_bus_attr:\n"
		"            bus_type: FI_BUS_PCI\n"
		"            fi_pci_attr:\n"
		"                domain_id: 1\n"
		"                bus_id: 59\n"
		"                device_id: 0\n"
		"                function_id: 1\n"
		"        fi_link_attr:\n"));
}

static void test_nic_unknown_values_print_unknown(void **state)
{
	struct fi_bus_attr odd_bus = { .bus_type = (enum fi_bus_type)7 };
	struct fi_link_attr odd_link = link_attr;
	struct fid_nic nic;
	char buf[1024] = "";

	odd_link.state = (enum fi_link_state)9;
	nic_init(&nic);
	nic.bus_attr = &odd_bus;
	nic.link_attr = &odd_link;
	assert_int_equal(pl_tostr_nic_print(&nic.fid, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "            bus_type: Unknown\n"));
	assert_non_null(strstr(buf, "            state: Unknown\n"));
}

static void test_nic_null_sub_attributes_print_null(void **state)
{
	struct fid_nic nic;
	char buf[1024] = "";

	nic_init(&nic);
	nic.device_attr = NULL;
	nic.bus_attr = NULL;
	nic.link_attr = NULL;
	assert_int_equal(pl_tostr_nic_print(&nic.fid, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "    nic:\n"
				 "        fi_device_attr: (null)\n"
				 "        fi_bus_attr: (null)\n"
				 "        fi_link_attr: (null)\n");
}

static void test_nic_appends_to_existing_text(void **state)
{
	struct fid_nic nic;
	char buf[1024] = "before\n";

	nic_init(&nic);
	assert_int_equal(pl_tostr_nic_print(&nic.fid, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, "before\n    nic:\n", 16);
}

static void test_nic_small_buffer_stays_within_len(void **state)
{
	struct fid_nic nic;
	char buf[64 + 8];

	nic_init(&nic);
	for (size_t len = 1; len <= 64; len++) {
		memset(buf, 'Z', sizeof(buf));
		buf[0] = '\0';
		assert_int_equal(pl_tostr_nic_print(&nic.fid, buf, len), 0);
		assert_true(strnlen(buf, len) < len);
		for (size_t i = len; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 'Z');
	}
}

static void test_nic_rejects_null_arguments(void **state)
{
	struct fid_nic nic;
	char buf[16];

	nic_init(&nic);
	assert_int_equal(pl_tostr_nic_print(NULL, buf, sizeof(buf)),
			 -FI_EINVAL);
	assert_int_equal(pl_tostr_nic_print(&nic.fid, NULL, sizeof(buf)),
			 -FI_EINVAL);
	assert_int_equal(pl_tostr_nic_print(&nic.fid, buf, 0), -FI_EINVAL);
}

/* In fi_info text the block replaces the "nic: (nil)" line, at the end. */
static void test_nic_ends_fi_info_text(void **state)
{
	struct fid_nic nic;
	struct fi_info info = { 0 };
	char buf[4096];
	size_t n, m = strlen(man_example);

	nic_init(&nic);
	info.nic = &nic;
	assert_ptr_equal(fi_tostr_r(buf, sizeof(buf), &info, FI_TYPE_INFO),
			 buf);
	n = strlen(buf);
	assert_true(n > m);
	assert_string_equal(buf + n - m, man_example);
	assert_null(strstr(buf, "nic: "));
	assert_non_null(strstr(buf, "    fi_fabric_attr: (null)\n    nic:\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nic_prints_the_documented_block),
		cmocka_unit_test(test_nic_pci_bus_adds_pci_block),
		cmocka_unit_test(test_nic_unknown_values_print_unknown),
		cmocka_unit_test(test_nic_null_sub_attributes_print_null),
		cmocka_unit_test(test_nic_appends_to_existing_text),
		cmocka_unit_test(test_nic_small_buffer_stays_within_len),
		cmocka_unit_test(test_nic_rejects_null_arguments),
		cmocka_unit_test(test_nic_ends_fi_info_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
