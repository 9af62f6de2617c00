/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Built against the REFERENCE headers and linked against the REFERENCE
 * libfabric (Debian's libfabric-dev), exactly as a third-party program
 * would be. It references every exported entry point so that the dynamic
 * loader must resolve each versioned name (fi_getinfo@FABRIC_1.3,
 * fi_fabric@FABRIC_1.1, fi_tostr_r@FABRIC_1.4, fi_open@FABRIC_1.5,
 * fi_log_ready@FABRIC_1.6, ...) in whichever libfabric.so.1 it loads.
 *
 * It prints which file provided fi_getinfo, so the driving script can
 * prove which library ran.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>
#include <rdma/providers/fi_log.h>

/* Taking addresses keeps every import in the binary even where a call
 * would be skipped at run time. */
static void *const imports[] = {
	(void *)fi_getinfo, (void *)fi_freeinfo, (void *)fi_dupinfo,
	(void *)fi_fabric, (void *)fi_version, (void *)fi_strerror,
	(void *)fi_tostr, (void *)fi_tostr_r, (void *)fi_log_enabled,
	(void *)fi_log, (void *)fi_log_ready, (void *)fi_param_define,
	(void *)fi_param_get, (void *)fi_getparams, (void *)fi_freeparams,
	(void *)fi_open,
};

int main(void)
{
	struct fi_info *hints, *info = NULL;
	struct fi_param *params = NULL;
	int count = 0, ret;
	Dl_info where;
	char buf[64];

	if (!dladdr((void *)fi_getinfo, &where) || !where.dli_fname) {
		fprintf(stderr, "dladdr failed\n");
		return 1;
	}
	printf("loaded: %s\n", where.dli_fname);
	printf("imports: %zu\n", sizeof(imports) / sizeof(imports[0]));

	printf("version: %u.%u\n", FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
	printf("strerror(FI_ETRUNC): %s\n", fi_strerror(FI_ETRUNC));
	printf("tostr_r: %s\n", fi_tostr_r(buf, sizeof(buf), &(enum fi_ep_type){FI_EP_RDM},
					   FI_TYPE_EP_TYPE) ? "ok" : "null");

	hints = fi_allocinfo();
	if (!hints) {
		fprintf(stderr, "fi_allocinfo failed\n");
		return 1;
	}
	/* A provider name nobody registers: both libraries must answer
	 * -FI_ENODATA, not crash or invent a match. */
	hints->fabric_attr->prov_name = strdup("no-such-provider");
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	printf("getinfo(no-such-provider): %s\n", ret == -FI_ENODATA ? "-FI_ENODATA" : fi_strerror(-ret));
	if (!ret)
		fi_freeinfo(info);
	fi_freeinfo(hints);

	ret = fi_getparams(&params, &count);
	printf("getparams: %s\n", ret ? fi_strerror(-ret) : "ok");
	if (!ret)
		fi_freeparams(params);
	return 0;
}
