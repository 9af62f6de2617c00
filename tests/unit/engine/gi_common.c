/* SPDX-License-Identifier: BSD-2-Clause */
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "gi_common.h"

static int gi_check(void)
{
	const char *libdir = getenv("PROPEL_LIBDIR");
	char want[PATH_MAX], got[PATH_MAX];
	Dl_info dli;

	const char *want_prov = getenv("GI_FI_PROVIDER");
	const char *prov = getenv("FI_PROVIDER");

	if (want_prov && !*want_prov)
		want_prov = NULL;
	if (prov && (!want_prov || strcmp(prov, want_prov))) {
		/* The expectations assume meson's environment alone. */
		printf("skipped: FI_PROVIDER=%s is set in the environment\n",
		       prov);
		exit(77);
	}
	if (!libdir || !getenv("FI_PROVIDER_PATH")) {
		fprintf(stderr, "PROPEL_LIBDIR / FI_PROVIDER_PATH not set\n");
		return -1;
	}
	if (!dladdr((void *)fi_getinfo, &dli) || !dli.dli_fname ||
	    !realpath(libdir, want) || !realpath(dli.dli_fname, got) ||
	    strncmp(got, want, strlen(want))) {
		fprintf(stderr, "fi_getinfo is not propel's (%s)\n",
			dli.dli_fname ? dli.dli_fname : "?");
		return -1;
	}
	return 0;
}

int gi_setup_lazy(void **state)
{
	return gi_check();
}

int gi_setup(void **state)
{
	struct fi_info *info;

	if (gi_check())
		return -1;
	/* Load the providers now, so that their probes can be read before
	 * a test's first fi_getinfo. */
	if (!fi_getinfo(FI_VERSION(1, 17), NULL, NULL, FI_PROV_ATTR_ONLY,
			NULL, &info))
		fi_freeinfo(info);
	return 0;
}

static void *gi_probe(const char *lib, const char *sym)
{
	const char *path = getenv("FI_PROVIDER_PATH");
	char file[PATH_MAX];
	void *h, *p;

	if (path[0] == '@')
		path++;
	snprintf(file, sizeof(file), "%.*s/%s", (int)strcspn(path, ":"),
		 path, lib);
	h = dlopen(file, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = dlsym(h, sym);
	dlclose(h);	/* drops only the reference NOLOAD took */
	return p;
}

struct testprov_probe *gi_testprov_probe(void)
{
	return gi_probe("libtestprov-fi.so", "testprov_probe");
}

struct testutil_probe *gi_testutil_probe(void)
{
	return gi_probe("libtestutil-fi.so", "testutil_probe");
}

size_t gi_count(const struct fi_info *list, const char *name)
{
	size_t n = 0;

	for (; list; list = list->next)
		n += !strcmp(list->fabric_attr->prov_name, name);
	return n;
}

size_t gi_len(const struct fi_info *list)
{
	size_t n = 0;

	for (; list; list = list->next)
		n++;
	return n;
}

struct fi_info *gi_find(struct fi_info *list, const char *name,
			enum fi_ep_type type)
{
	for (; list; list = list->next)
		if (!strcmp(list->fabric_attr->prov_name, name) &&
		    (!type || list->ep_attr->type == type))
			return list;
	return NULL;
}

struct fi_info *gi_hints(const char *prov_name)
{
	struct fi_info *hints = fi_allocinfo();

	assert_non_null(hints);
	hints->mode = ~0ULL;
	hints->domain_attr->mode = ~0ULL;
	hints->domain_attr->mr_mode = ~(FI_MR_BASIC | FI_MR_SCALABLE);
	if (prov_name) {
		hints->fabric_attr->prov_name = strdup(prov_name);
		assert_non_null(hints->fabric_attr->prov_name);
	}
	return hints;
}

/* A test provider's answer: every part of its name ("core;util") is one
 * (a built-in utility such as ofi_rxm may layer over testprov too). */
static bool gi_is_test_prov(const struct fi_info *i)
{
	const char *name = i->fabric_attr ? i->fabric_attr->prov_name : NULL;
	const char *semi;

	if (!name)
		return false;
	semi = strchr(name, ';');
	if (strncmp(name, "testprov", 8) && strncmp(name, "ofi_testutil", 12))
		return false;
	return !semi || !strcmp(semi + 1, "ofi_testutil");
}

int gi_getinfo(uint32_t version, const char *node, const char *service,
	       uint64_t flags, const struct fi_info *hints,
	       struct fi_info **info)
{
	struct fi_info *list, *next, *keep = NULL, **tail = &keep;
	int ret;

	ret = fi_getinfo(version, node, service, flags, hints, info);
	if (ret)
		return ret;
	for (list = *info; list; list = next) {
		next = list->next;
		list->next = NULL;
		if (gi_is_test_prov(list)) {
			*tail = list;
			tail = &list->next;
		} else {
			fi_freeinfo(list);
		}
	}
	*info = keep;
	return keep ? 0 : -FI_ENODATA;
}

size_t gi_get(const struct fi_info *hints, struct fi_info **info)
{
	int ret;

	*info = (void *)0x1;
	ret = gi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, info);
	if (ret == -FI_ENODATA) {
		assert_null(*info);
		return 0;
	}
	assert_int_equal(ret, 0);
	assert_non_null(*info);
	return gi_len(*info);
}
