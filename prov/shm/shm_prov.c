/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider's identity. Its parameters and log lines hang off it
 * already; getinfo/fabric/cleanup are filled when the provider objects
 * land (the table in lib/pl_builtin_provs.c does not list shm yet).
 */
#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "shm_params.h"

struct fi_provider shm_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(1, 17),
	.name = "shm",
};
