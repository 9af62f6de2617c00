/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp provider's identity and entry point, in the shape
 * lib/pl_builtin_provs.c expects: fi_getinfo's answer (tcp_info.c) and
 * fi_fabric (tcp_fabric.c).
 */
#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "tcp_params.h"
#include "tcp_prov.h"

static void tcp_cleanup(void)
{
}

struct fi_provider tcp_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(1, 17),
	.name = "tcp",
	.getinfo = tcp_info_get,
	.fabric = tcp_fabric_open,
	.cleanup = tcp_cleanup,
};

struct fi_provider *tcp_prov_ini(void)
{
	tcp_params_define();
	return &tcp_prov;
}
