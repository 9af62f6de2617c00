/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider's entry point, in the shape lib/pl_builtin_provs.c
 * expects (struct pl_builtin_prov.ini): fi_getinfo's answer
 * (shm_info.c) and fi_fabric (shm_fabric.c).
 */
#include <rdma/fi_errno.h>

#include "shm_ep.h"
#include "shm_info.h"
#include "shm_params.h"

static int shm_getinfo(uint32_t version, const char *node,
		       const char *service, uint64_t flags,
		       const struct fi_info *hints, struct fi_info **info)
{
	return shm_info_get(version, node, service, flags, hints, info);
}

static int shm_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context)
{
	return shm_fabric_open(attr, fabric, context);
}

static void shm_cleanup(void)
{
}

struct fi_provider *shm_prov_ini(void)
{
	shm_params_define();
	shm_prov.getinfo = shm_getinfo;
	shm_prov.fabric = shm_fabric;
	shm_prov.cleanup = shm_cleanup;
	return &shm_prov;
}
