/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals of one fi_getinfo call, shared by pl_getinfo.c (cores) and
 * pl_layering.c (utilities over cores). A call's state belongs to the
 * calling thread; the registry it reads is immutable, so concurrent
 * fi_getinfo calls need no lock (fi_getinfo(3) allows them).
 */
#ifndef PROPEL_PL_GETINFO_H
#define PROPEL_PL_GETINFO_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>

#include "pl_info.h"
#include "pl_prov_sel.h"
#include "pl_registry.h"

/* PL_GETINFO_CORE_ONLY: pl_info.h */

struct pl_info_list {
	struct fi_info	*head;
	struct fi_info	**tail;
};

struct pl_getinfo_call {
	uint32_t		version;
	const char		*node;
	const char		*service;
	uint64_t		flags;	/* as providers see them */
	const struct fi_info	*hints;
	struct pl_prov_sel	sel;	/* hints->fabric_attr->prov_name */
	struct pl_info_list	out;	/* what the application will get */
};

/*
 * Take ownership of raw, the list a provider returned: give each entry
 * every attribute struct and its name ("core" or "core;util"), versions
 * and api_version; with match, keep only entries that satisfy the hints.
 * Survivors are appended to list, the rest freed. Errors: -FI_ENOMEM
 * (raw is freed all the same).
 */
int pl_getinfo_collect(const struct pl_getinfo_call *call,
		       const struct pl_prov *core, const struct pl_prov *util,
		       struct fi_info *raw, bool match,
		       struct pl_info_list *list);

/* Per-call memo of each core's answer to the layering query. */
struct pl_layering_cache {
	size_t		count;
	bool		*done;
	struct fi_info	**infos;
};

/*
 * Append what util offers over every core that FI_PROVIDER and the
 * selection admit. Errors: -FI_ENOMEM; a provider's own failure only
 * removes its answers.
 */
int pl_layering_getinfo(struct pl_getinfo_call *call,
			const struct pl_prov *util,
			struct pl_layering_cache *cache);
void pl_layering_cache_fini(struct pl_layering_cache *cache);

#endif /* PROPEL_PL_GETINFO_H */
