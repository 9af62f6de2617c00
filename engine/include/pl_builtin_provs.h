/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Contract between the registry (engine/) and the table of built-in
 * providers defined at the top of the build (lib/pl_builtin_provs.c).
 */
#ifndef PROPEL_PL_BUILTIN_PROVS_H
#define PROPEL_PL_BUILTIN_PROVS_H

#include <rdma/providers/fi_prov.h>

struct pl_builtin_prov {
	const char *name;                    /* provider name, e.g. "shm" */
	struct fi_provider *(*ini)(void);    /* as an external fi_prov_ini */
};

/* Terminated by an entry whose ini is NULL. */
extern const struct pl_builtin_prov pl_builtin_provs[];

#endif /* PROPEL_PL_BUILTIN_PROVS_H */
