/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FABRIC_1.0..1.2 nodes, called the way an old binary calls them: the
 * versioned symbols are looked up with dlvsym() in the real libfabric.so.1,
 * and every old-layout object is allocated at exactly its old size, so an
 * AddressSanitizer build catches any read past the old layout.
 */
#include <dlfcn.h>
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

/* Old layout sizes: where each later ABI appended its first field. */
#define TX_SIZE_1_0     offsetof(struct fi_tx_attr, tclass)
#define EP_SIZE_1_0     offsetof(struct fi_ep_attr, auth_key_size)
#define DOMAIN_SIZE_1_0 offsetof(struct fi_domain_attr, cntr_cnt)
#define DOMAIN_SIZE_1_1 offsetof(struct fi_domain_attr, tclass)
#define FABRIC_SIZE_1_0 offsetof(struct fi_fabric_attr, api_version)
#define INFO_SIZE_1_1   offsetof(struct fi_info, nic)

typedef int (*getinfo_fn)(uint32_t, const char *, const char *, uint64_t,
			  const void *, void **);
typedef void (*freeinfo_fn)(void *);
typedef void *(*dupinfo_fn)(const void *);
typedef int (*fabric_fn)(const void *, struct fid_fabric **, void *);

static void *lib;

static int open_lib(void **state)
{
	char path[4096];
	const char *dir = getenv("PROPEL_LIBDIR");

	if (!dir) {
		fprintf(stderr, "PROPEL_LIBDIR is not set\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/libfabric.so.1", dir);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
	return lib ? 0 : -1;
}

static int close_lib(void **state)
{
	dlclose(lib);
	return 0;
}

static void *sym(const char *name, const char *node)
{
	void *f = dlvsym(lib, name, node);

	if (!f)
		fail_msg("%s@%s not found", name, node);
	return f;
}

static void *exact_dup(const void *src, size_t size)
{
	void *p = malloc(size);

	assert_non_null(p);
	memcpy(p, src, size);
	return p;
}

/* An ABI 1.0 fi_info as an old application builds it by hand: every
 * struct exactly as long as its 1.0 layout, strings its own. */
static struct fi_info *make_info_1_0(void)
{
	struct fi_tx_attr tx = { .caps = FI_MSG, .size = 64, .iov_limit = 4 };
	struct fi_rx_attr rx = { .caps = FI_MSG, .size = 128 };
	struct fi_ep_attr ep = { .type = FI_EP_RDM, .max_msg_size = 4096 };
	struct fi_domain_attr dom = { .threading = FI_THREAD_SAFE,
				      .mr_mode = FI_MR_BASIC, .cq_cnt = 3 };
	struct fi_fabric_attr fab = { .prov_version = 7 };
	struct fi_info info = { .caps = FI_MSG | FI_TAGGED, .mode = FI_CONTEXT,
				.addr_format = FI_SOCKADDR_IN };

	info.tx_attr = exact_dup(&tx, TX_SIZE_1_0);
	info.rx_attr = exact_dup(&rx, sizeof(rx));
	info.ep_attr = exact_dup(&ep, EP_SIZE_1_0);
	dom.name = strdup("dom0");
	info.domain_attr = exact_dup(&dom, DOMAIN_SIZE_1_0);
	fab.name = strdup("fab0");
	fab.prov_name = strdup("no-such-provider");
	info.fabric_attr = exact_dup(&fab, FABRIC_SIZE_1_0);
	return exact_dup(&info, INFO_SIZE_1_1);
}

static void test_dupinfo_1_0_copies_old_fields_without_overread(void **state)
{
	dupinfo_fn dup = sym("fi_dupinfo", "FABRIC_1.0");
	freeinfo_fn free_1_0 = sym("fi_freeinfo", "FABRIC_1.0");
	struct fi_info *old = make_info_1_0(), *copy;

	copy = dup(old);
	assert_non_null(copy);
	assert_int_equal(copy->caps, FI_MSG | FI_TAGGED);
	assert_int_equal(copy->mode, FI_CONTEXT);
	assert_int_equal(copy->tx_attr->size, 64);
	assert_int_equal(copy->tx_attr->iov_limit, 4);
	assert_int_equal(copy->rx_attr->size, 128);
	assert_int_equal(copy->ep_attr->type, FI_EP_RDM);
	assert_int_equal(copy->domain_attr->cq_cnt, 3);
	assert_int_equal(copy->fabric_attr->prov_version, 7);
	/* deep: strings are the copy's own */
	assert_string_equal(copy->domain_attr->name, "dom0");
	assert_ptr_not_equal(copy->domain_attr->name, old->domain_attr->name);
	assert_string_equal(copy->fabric_attr->prov_name, "no-such-provider");
	free_1_0(copy);
	/* The application's own hand-built old info frees cleanly too (LSan
	 * reports anything left behind). */
	free_1_0(old);
}

static void test_dupinfo_null_allocates_for_every_old_node(void **state)
{
	static const char *const nodes[] = { "FABRIC_1.0", "FABRIC_1.1", "FABRIC_1.2" };
	size_t i;

	for (i = 0; i < 3; i++) {
		dupinfo_fn dup = sym("fi_dupinfo", nodes[i]);
		freeinfo_fn fr = sym("fi_freeinfo", nodes[i]);
		struct fi_info *info = dup(NULL);

		assert_non_null(info);
		assert_non_null(info->tx_attr);
		assert_non_null(info->domain_attr);
		assert_non_null(info->fabric_attr);
		fr(info);
	}
}

static void test_getinfo_1_0_reads_only_old_hints(void **state)
{
	getinfo_fn getinfo = sym("fi_getinfo", "FABRIC_1.0");
	freeinfo_fn free_1_0 = sym("fi_freeinfo", "FABRIC_1.0");
	struct fi_info *hints = make_info_1_0();
	void *info = (void *)0x1;

	/* No provider is named no-such-provider: nothing matches, and the
	 * output pointer is left alone. */
	assert_int_equal(getinfo(FI_VERSION(1, 4), NULL, NULL, 0, hints, &info),
			 -FI_ENODATA);
	assert_ptr_equal(info, (void *)0x1);
	free_1_0(hints);
}

static void test_getinfo_old_nodes_reject_null_output(void **state)
{
	assert_int_equal(((getinfo_fn)sym("fi_getinfo", "FABRIC_1.0"))(
		FI_VERSION(1, 0), NULL, NULL, 0, NULL, NULL), -FI_EINVAL);
	assert_int_equal(((getinfo_fn)sym("fi_getinfo", "FABRIC_1.1"))(
		FI_VERSION(1, 5), NULL, NULL, 0, NULL, NULL), -FI_EINVAL);
	assert_int_equal(((getinfo_fn)sym("fi_getinfo", "FABRIC_1.2"))(
		FI_VERSION(1, 7), NULL, NULL, 0, NULL, NULL), -FI_EINVAL);
}

static void test_dupinfo_1_1_widens_domain_attr(void **state)
{
	dupinfo_fn dup = sym("fi_dupinfo", "FABRIC_1.1");
	freeinfo_fn fr = sym("fi_freeinfo", "FABRIC_1.1");
	struct fi_domain_attr dom = { .cntr_cnt = 9, .mr_cnt = 11 };
	struct fi_info info = { .caps = FI_RMA }, *old, *copy;

	info.domain_attr = exact_dup(&dom, DOMAIN_SIZE_1_1);
	old = exact_dup(&info, INFO_SIZE_1_1);
	copy = dup(old);
	assert_non_null(copy);
	assert_int_equal(copy->domain_attr->cntr_cnt, 9);
	assert_int_equal(copy->domain_attr->mr_cnt, 11);
	/* the field ABI 1.1 lacks reads as zero, not as heap garbage */
	assert_int_equal(copy->domain_attr->tclass, 0);
	fr(copy);
	fr(old);
}

static void test_fabric_1_0_rejects_null_attr(void **state)
{
	fabric_fn fabric = sym("fi_fabric", "FABRIC_1.0");
	struct fid_fabric *fab;

	assert_int_equal(fabric(NULL, &fab, NULL), -FI_EINVAL);
}

static void test_fabric_1_0_reads_only_old_attr(void **state)
{
	fabric_fn fabric = sym("fi_fabric", "FABRIC_1.0");
	struct fi_fabric_attr attr = { .name = "none",
				       .prov_name = "no-such-provider" };
	struct fid_fabric *fab = NULL;
	void *old = exact_dup(&attr, FABRIC_SIZE_1_0);

	/* No such provider: a clean error, and no read of api_version. */
	assert_true(fabric(old, &fab, NULL) < 0);
	assert_null(fab);
	free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dupinfo_1_0_copies_old_fields_without_overread),
		cmocka_unit_test(test_dupinfo_null_allocates_for_every_old_node),
		cmocka_unit_test(test_getinfo_1_0_reads_only_old_hints),
		cmocka_unit_test(test_getinfo_old_nodes_reject_null_output),
		cmocka_unit_test(test_dupinfo_1_1_widens_domain_attr),
		cmocka_unit_test(test_fabric_1_0_rejects_null_attr),
		cmocka_unit_test(test_fabric_1_0_reads_only_old_attr),
	};

	return cmocka_run_group_tests(tests, open_lib, close_lib);
}
