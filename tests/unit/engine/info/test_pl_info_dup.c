/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_allocinfo / fi_dupinfo / fi_freeinfo through the real
 * libfabric.so.1: deep copies that share nothing with their source, and
 * freeing of objects an application assembled itself with malloc and
 * strdup. Run under AddressSanitizer these also prove nothing leaks and
 * nothing is freed twice.
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

static void *memdup(const void *src, size_t len)
{
	void *p = malloc(len);

	assert_non_null(p);
	memcpy(p, src, len);
	return p;
}

/* An fi_info filled the way an application fills hints: strdup'd names,
 * malloc'd addresses and keys, a NIC with no ops. */
static struct fi_info *app_info(void)
{
	static const uint8_t key[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t addr[16] = { 2, 0, 0x1d, 0x2f, 127, 0, 0, 1 };
	struct fi_info *info = fi_allocinfo();
	struct fid_nic *nic;

	assert_non_null(info);
	info->caps = FI_MSG | FI_TAGGED;
	info->mode = FI_CONTEXT;
	info->addr_format = FI_SOCKADDR_IN;
	info->src_addr = memdup(addr, sizeof(addr));
	info->src_addrlen = sizeof(addr);
	info->dest_addr = memdup(addr, sizeof(addr));
	info->dest_addrlen = sizeof(addr);
	info->handle = (fid_t)0x1234;
	info->tx_attr->size = 77;
	info->rx_attr->size = 78;
	info->ep_attr->type = FI_EP_RDM;
	info->ep_attr->auth_key = memdup(key, sizeof(key));
	info->ep_attr->auth_key_size = sizeof(key);
	info->domain_attr->name = strdup("dom");
	info->domain_attr->auth_key = memdup(key, 4);
	info->domain_attr->auth_key_size = 4;
	info->domain_attr->domain = (struct fid_domain *)0x5678;
	info->fabric_attr->name = strdup("fab");
	info->fabric_attr->prov_name = strdup("prov");
	info->fabric_attr->fabric = (struct fid_fabric *)0x9abc;

	nic = calloc(1, sizeof(*nic));
	assert_non_null(nic);
	nic->fid.fclass = FI_CLASS_NIC;
	nic->device_attr = calloc(1, sizeof(*nic->device_attr));
	nic->device_attr->name = strdup("nic0");
	nic->device_attr->driver = strdup("drv");
	nic->bus_attr = calloc(1, sizeof(*nic->bus_attr));
	nic->bus_attr->bus_type = FI_BUS_PCI;
	nic->bus_attr->attr.pci.device_id = 9;
	nic->link_attr = calloc(1, sizeof(*nic->link_attr));
	nic->link_attr->address = strdup("aa:bb");
	nic->link_attr->network_type = strdup("Ethernet");
	nic->link_attr->mtu = 9000;
	info->nic = nic;
	return info;
}

static void test_allocinfo_has_zeroed_attribute_structs(void **state)
{
	struct fi_info *info = fi_allocinfo();
	struct fi_domain_attr zero = { 0 };

	assert_non_null(info);
	assert_non_null(info->tx_attr);
	assert_non_null(info->rx_attr);
	assert_non_null(info->ep_attr);
	assert_non_null(info->fabric_attr);
	assert_memory_equal(info->domain_attr, &zero, sizeof(zero));
	assert_null(info->nic);
	assert_null(info->next);
	assert_int_equal(info->caps, 0);
	fi_freeinfo(info);
}

static void test_freeinfo_releases_what_the_application_allocated(void **state)
{
	/* Under ASan: no leak, no invalid free. */
	fi_freeinfo(app_info());
}

static void test_freeinfo_of_null_is_harmless(void **state)
{
	fi_freeinfo(NULL);
}

static void test_dupinfo_copies_deeply(void **state)
{
	struct fi_info *src = app_info(), *dup = fi_dupinfo(src);

	assert_non_null(dup);
	assert_ptr_not_equal(dup->src_addr, src->src_addr);
	assert_memory_equal(dup->src_addr, src->src_addr, src->src_addrlen);
	assert_int_equal(dup->dest_addrlen, src->dest_addrlen);
	assert_ptr_not_equal(dup->ep_attr, src->ep_attr);
	assert_ptr_not_equal(dup->ep_attr->auth_key, src->ep_attr->auth_key);
	assert_memory_equal(dup->ep_attr->auth_key, src->ep_attr->auth_key, 8);
	assert_ptr_not_equal(dup->domain_attr->name, src->domain_attr->name);
	assert_string_equal(dup->domain_attr->name, "dom");
	assert_memory_equal(dup->domain_attr->auth_key,
			    src->domain_attr->auth_key, 4);
	assert_ptr_not_equal(dup->fabric_attr->prov_name,
			     src->fabric_attr->prov_name);
	assert_string_equal(dup->fabric_attr->prov_name, "prov");
	assert_string_equal(dup->fabric_attr->name, "fab");
	assert_int_equal(dup->tx_attr->size, 77);
	assert_int_equal(dup->rx_attr->size, 78);
	assert_int_equal(dup->caps, src->caps);
	/* References are copied as references. */
	assert_ptr_equal(dup->handle, src->handle);
	assert_ptr_equal(dup->domain_attr->domain, src->domain_attr->domain);
	assert_ptr_equal(dup->fabric_attr->fabric, src->fabric_attr->fabric);

	/* Freeing the source first proves the copy shares nothing. */
	fi_freeinfo(src);
	assert_string_equal(dup->domain_attr->name, "dom");
	fi_freeinfo(dup);
}

static void test_dupinfo_copies_the_nic(void **state)
{
	struct fi_info *src = app_info(), *dup = fi_dupinfo(src);
	struct fid_nic *nic, *again = NULL;

	assert_non_null(dup);
	nic = dup->nic;
	assert_non_null(nic);
	assert_ptr_not_equal(nic, src->nic);
	assert_int_equal(nic->fid.fclass, FI_CLASS_NIC);
	assert_string_equal(nic->device_attr->name, "nic0");
	assert_string_equal(nic->device_attr->driver, "drv");
	assert_null(nic->device_attr->firmware);
	assert_int_equal(nic->bus_attr->attr.pci.device_id, 9);
	assert_string_equal(nic->link_attr->network_type, "Ethernet");
	assert_int_equal(nic->link_attr->mtu, 9000);
	fi_freeinfo(src);

	/* Our copy carries ops: FI_DUP and close work on it, as on a nic
	 * the reference returns. */
	assert_non_null(nic->fid.ops);
	assert_int_equal(fi_control(&nic->fid, FI_DUP, &again), 0);
	assert_non_null(again);
	assert_string_equal(again->link_attr->address, "aa:bb");
	assert_int_equal(fi_close(&again->fid), 0);
	fi_freeinfo(dup);
}

static int foreign_dups, foreign_closes;

static int foreign_close(struct fid *fid)
{
	foreign_closes++;
	free(fid);
	return 0;
}

static int foreign_control(struct fid *fid, int cmd, void *arg)
{
	struct fid_nic *copy;

	if (cmd != FI_DUP)
		return -FI_ENOSYS;
	foreign_dups++;
	copy = calloc(1, sizeof(*copy));
	assert_non_null(copy);
	*copy = *(struct fid_nic *)fid;
	*(struct fid_nic **)arg = copy;
	return 0;
}

static struct fi_ops foreign_ops = {
	.size = sizeof(struct fi_ops),
	.close = foreign_close,
	.control = foreign_control,
};

static void test_nic_with_its_own_ops_copies_and_frees_itself(void **state)
{
	struct fi_info *src = fi_allocinfo(), *dup;

	src->nic = calloc(1, sizeof(*src->nic));
	src->nic->fid.fclass = FI_CLASS_NIC;
	src->nic->fid.ops = &foreign_ops;
	dup = fi_dupinfo(src);
	assert_non_null(dup);
	assert_int_equal(foreign_dups, 1);
	fi_freeinfo(dup);
	fi_freeinfo(src);
	assert_int_equal(foreign_closes, 2);
}

static void test_dupinfo_keeps_absent_parts_absent(void **state)
{
	struct fi_info src = { .caps = FI_RMA }, *dup;

	src.next = &src;	/* never followed */
	dup = fi_dupinfo(&src);
	assert_non_null(dup);
	assert_null(dup->next);
	assert_null(dup->tx_attr);
	assert_null(dup->fabric_attr);
	assert_null(dup->src_addr);
	assert_int_equal(dup->caps, FI_RMA);
	fi_freeinfo(dup);
}

static void test_dupinfo_of_address_without_length_copies_none(void **state)
{
	struct fi_info *src = fi_allocinfo(), *dup;

	src->src_addr = malloc(4);
	dup = fi_dupinfo(src);
	assert_non_null(dup);
	assert_null(dup->src_addr);
	fi_freeinfo(dup);
	fi_freeinfo(src);
}

static void test_freeinfo_frees_the_whole_list(void **state)
{
	struct fi_info *head = app_info();

	head->next = app_info();
	head->next->next = fi_dupinfo(head);
	fi_freeinfo(head);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allocinfo_has_zeroed_attribute_structs),
		cmocka_unit_test(test_freeinfo_releases_what_the_application_allocated),
		cmocka_unit_test(test_freeinfo_of_null_is_harmless),
		cmocka_unit_test(test_dupinfo_copies_deeply),
		cmocka_unit_test(test_dupinfo_copies_the_nic),
		cmocka_unit_test(test_nic_with_its_own_ops_copies_and_frees_itself),
		cmocka_unit_test(test_dupinfo_keeps_absent_parts_absent),
		cmocka_unit_test(test_dupinfo_of_address_without_length_copies_none),
		cmocka_unit_test(test_freeinfo_frees_the_whole_list),
	};

	return cmocka_run_group_tests(tests, gi_setup, NULL);
}
