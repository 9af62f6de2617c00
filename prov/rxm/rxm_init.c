/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's identity. It is not in lib/pl_builtin_provs.c yet: it has no
 * fi_getinfo and no endpoint so far (rxm_prov.h), and a provider that
 * answers fi_getinfo must be usable. Until then the structure names the
 * provider in the log lines of what exists.
 */
#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "rxm_prov.h"

struct fi_provider rxm_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(1, 17),
	.name = RXM_PROV_NAME,
};
