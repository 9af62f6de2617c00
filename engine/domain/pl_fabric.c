/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_fabric: hand the attributes to the provider that produced them,
 * which fabric_attr->prov_name names: "core", or "core;util" for a
 * layered answer, which the utility serves (fi_fabric(3)). Names compare
 * without regard to case, as the reference's lookup does.
 *
 * Errors, as the reference returns them: -FI_EINVAL for a missing attr,
 * fabric, prov_name or fabric name; -FI_ENODEV when no registered
 * provider answers to the name.
 */
#include <string.h>
#include <strings.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_info.h"
#include "pl_log.h"
#include "pl_registry.h"

/* The provider serving prov_name, or NULL. */
static const struct pl_prov *pl_fabric_owner(const char *prov_name)
{
	const struct pl_prov *util, *core;
	const char *semi = strchr(prov_name, ';');
	char core_name[256];
	size_t len;

	if (!semi)
		return pl_registry_find(prov_name);

	/* "core;util": both must be registered, in those roles. */
	len = (size_t)(semi - prov_name);
	if (len >= sizeof(core_name) || strchr(semi + 1, ';'))
		return NULL;
	memcpy(core_name, prov_name, len);
	core_name[len] = '\0';
	core = pl_registry_find(core_name);
	util = pl_registry_find(semi + 1);
	if (!core || core->util || !util || !util->util)
		return NULL;
	return util;
}

PL_SYMVER_DEFAULT(fi_fabric, FABRIC_1.1)
int fi_fabric_1_1(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		  void *context)
{
	const struct pl_prov *prov;

	if (!attr || !fabric || !attr->prov_name || !attr->name)
		return -FI_EINVAL;
	prov = pl_fabric_owner(attr->prov_name);
	if (!prov) {
		PL_INFO(FI_LOG_FABRIC, "no provider %s\n", attr->prov_name);
		return -FI_ENODEV;
	}
	return prov->fi->fabric(attr, fabric, context);
}
