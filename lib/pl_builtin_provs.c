/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The table of providers linked into libfabric.so.1. It sits at the top of
 * the build so that engine/ never includes a provider's headers: the
 * registry only sees these entry points (the same fi_prov_ini contract an
 * external provider exports, fi_provider(3)).
 */
#include <stddef.h>
#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "pl_builtin_provs.h"

/* Each provider's entry point (prov/<name>/); declared here so that this
 * table needs no provider's headers. */
struct fi_provider *shm_prov_ini(void);
struct fi_provider *tcp_prov_ini(void);
#ifdef PROPEL_HAVE_VERBS
struct fi_provider *vrb_prov_ini(void);
#endif
struct fi_provider *rxm_prov_ini(void);

const struct pl_builtin_prov pl_builtin_provs[] = {
	{ "shm", shm_prov_ini },
#ifdef PROPEL_HAVE_VERBS
	/* before tcp, as the reference lists them: where a device is
	 * up, an application that names no provider gets RDMA */
	{ "verbs", vrb_prov_ini },
#endif
	{ "tcp", tcp_prov_ini },
	{ "ofi_rxm", rxm_prov_ini },
	{ NULL, NULL },
};
