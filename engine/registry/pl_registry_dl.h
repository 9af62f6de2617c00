/* SPDX-License-Identifier: BSD-2-Clause */
/* Loading external providers (fi_provider(3): lib<name>-fi.so exporting
 * fi_prov_ini) for the registry; called once, from its initialization. */
#ifndef PROPEL_PL_REGISTRY_DL_H
#define PROPEL_PL_REGISTRY_DL_H

#include <stdbool.h>

/*
 * path is FI_PROVIDER_PATH: directories separated by ':', optionally
 * preceded by '@' (same-name providers: first found wins rather than the
 * newest). NULL means the default, the "libfabric" directory beside the
 * library itself, as the reference's $libdir/libfabric. Returns whether
 * the '@' was given, which also governs the built-ins registered next.
 */
bool pl_registry_dl_load(const char *path);

#endif /* PROPEL_PL_REGISTRY_DL_H */
