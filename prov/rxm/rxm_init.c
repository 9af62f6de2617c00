/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's identity and entry point, in the shape lib/pl_builtin_provs.c
 * expects. Its fi_getinfo is a utility's (rxm_info.c): the engine hands it
 * each core entry and names the answers "core;ofi_rxm".
 */
#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "rxm_params.h"
#include "rxm_prov.h"

struct fi_provider rxm_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(1, 17),
	.name = RXM_PROV_NAME,
	.getinfo = rxm_info_get,
	.fabric = rxm_fabric_open,
};

struct fi_provider *rxm_prov_ini(void)
{
	rxm_params_define();
	return &rxm_prov;
}
