/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider's identity (its parameters and log lines hang off
 * it) and its entry point, in the shape lib/pl_builtin_provs.c expects
 * (struct pl_builtin_prov.ini): fi_getinfo's answer (shm_info.c) and
 * fi_fabric (shm_fabric.c).
 */
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "shm_ep.h"
#include "shm_info.h"
#include "shm_params.h"

struct fi_provider shm_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(1, 17),
	.name = "shm",
};

static int shm_prov_getinfo(uint32_t version, const char *node,
			    const char *service, uint64_t flags,
			    const struct fi_info *hints, struct fi_info **info)
{
	return shm_info_get(version, node, service, flags, hints, info);
}

static int shm_prov_fabric(struct fi_fabric_attr *attr,
			   struct fid_fabric **fabric, void *context)
{
	return shm_fabric_open(attr, fabric, context);
}

static void shm_prov_cleanup(void)
{
}

struct fi_provider *shm_prov_ini(void)
{
	shm_params_define();
	shm_prov.getinfo = shm_prov_getinfo;
	shm_prov.fabric = shm_prov_fabric;
	shm_prov.cleanup = shm_prov_cleanup;
	return &shm_prov;
}
