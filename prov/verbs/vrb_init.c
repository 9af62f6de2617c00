/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs provider's identity and entry point, in the shape
 * lib/pl_builtin_provs.c expects: fi_getinfo's answer (vrb_info.c) and
 * fi_fabric (vrb_fabric.c). Built only where rdma-core is found.
 */
#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "vrb_params.h"
#include "vrb_prov.h"

static void vrb_cleanup(void)
{
}

struct fi_provider vrb_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(1, 17),
	.name = "verbs",
	.getinfo = vrb_info_get,
	.fabric = vrb_fabric_open,
	.cleanup = vrb_cleanup,
};

struct fi_provider *vrb_prov_ini(void)
{
	vrb_params_define();
	return &vrb_prov;
}
