/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider registry: the providers loaded from FI_PROVIDER_PATH
 * followed by the built-in ones (lib/pl_builtin_provs.c, in table order),
 * the reference's discovery order, which is also the order in which
 * fi_getinfo reports them. Of two providers with one name the newer
 * version is kept, or the first found when FI_PROVIDER_PATH starts with
 * '@' (the reference's rule, as its fi_info -e documents).
 *
 * A provider whose name starts with "ofi_" is a utility (fi_provider(3)
 * naming, as the reference does): it is never listed on its own but
 * layered over every core, and its results are named "core;utility".
 * The utility contract (what its getinfo receives) is in pl_layering.c.
 *
 * Concurrency: pl_registry_init() runs the loading once (pthread_once);
 * afterwards the registry is immutable until the library's destructor,
 * so every accessor may be called from any thread without a lock. All
 * accessors initialize on first use.
 */
#ifndef PROPEL_PL_REGISTRY_H
#define PROPEL_PL_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "pl_prov_filter.h"

/* The newest API version fi_getinfo accepts and a provider may be built
 * for: 1.18 has 1.17's struct layouts (DESIGN.md section 1). */
#define PL_API_VERSION_MAX	FI_VERSION(1, 18)

#define PL_UTIL_PREFIX		"ofi_"

struct pl_prov {
	struct fi_provider	*fi;		/* what its ini returned */
	void			*dlhandle;	/* NULL when built in */
	bool			util;		/* layers over cores */
};

/* Load the providers and read FI_PROVIDER, once; cheap afterwards. */
void pl_registry_init(void);

size_t pl_registry_count(void);
const struct pl_prov *pl_registry_at(size_t idx);

/* The provider of that name (case-insensitive), or NULL. */
const struct pl_prov *pl_registry_find(const char *name);

/* FI_PROVIDER as parsed at initialization. */
const struct pl_prov_filter *pl_registry_filter(void);

bool pl_registry_is_util_name(const char *name);

/*
 * For the loaders only, during initialization: register what an ini
 * returned (NULL: it declined). origin names it in messages. A provider
 * that is rejected, or loses to one of the same name (first found when
 * by_order, else the newer version), gets its cleanup() call and its
 * library is closed.
 */
void pl_registry_add(struct fi_provider *prov, void *dlhandle,
		     const char *origin, bool by_order);

/* For the loaders: is this library (a dlopen handle) registered already? */
bool pl_registry_has_handle(const void *dlhandle);

#endif /* PROPEL_PL_REGISTRY_H */
