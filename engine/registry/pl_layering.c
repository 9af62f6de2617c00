/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Utility providers over cores (ofi_rxm over tcp or verbs, the test
 * suite's ofi_testutil over testprov), generically for any pair.
 *
 * The utility contract: for each core that FI_PROVIDER and the
 * application's prov_name admit, the engine asks the core for everything
 * it offers at the application's address (node, service, flags, and the
 * address and fabric/domain names from the hints, every mode and mr_mode
 * bit allowed, FI_MR_LOCAL only if the core needs it (pl_layering_ask_core),
 * no capability or endpoint constraint), then calls
 *
 *	util->getinfo(version, node, service, flags, core_info, &layered)
 *
 * once per entry of that answer, core_info being a single entry
 * (next == NULL) already named after the core, read-only and owned by
 * the engine. The utility returns what it can build over it (or
 * -FI_ENODATA). Those answers are then matched against the application's
 * hints like any core's and named "core;util". A utility therefore never
 * needs to query the registry itself; when it later opens its fabric it
 * finds the core's name before the ';' of its own prov_name, and reaches
 * the core through the public calls (fi_getinfo with
 * PL_GETINFO_CORE_ONLY, fi_fabric, ...).
 */
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_getinfo.h"
#include "pl_info.h"
#include "pl_log.h"
#include "pl_prov_filter.h"
#include "pl_registry.h"

static int pl_layering_cache_init(struct pl_layering_cache *cache)
{
	size_t n = pl_registry_count();

	if (cache->done)
		return 0;
	cache->done = calloc(n ? n : 1, sizeof(*cache->done));
	cache->infos = calloc(n ? n : 1, sizeof(*cache->infos));
	if (!cache->done || !cache->infos) {
		pl_layering_cache_fini(cache);
		return -FI_ENOMEM;
	}
	cache->count = n;
	return 0;
}

void pl_layering_cache_fini(struct pl_layering_cache *cache)
{
	size_t i;

	for (i = 0; cache->infos && i < cache->count; i++)
		fi_freeinfo_1_3(cache->infos[i]);
	free(cache->done);
	free(cache->infos);
	*cache = (struct pl_layering_cache){ 0 };
}

/* What the core is asked: where the application wants to be, and how
 * its data is to progress (a utility cannot see the hints: a core that
 * answers the mode asked for passes it on to a utility that serves
 * either, as ofi_rxm does); nothing else about how, since the utility
 * decides what it needs from its core. Every mode and mr_mode bit is
 * allowed, FI_MR_LOCAL only when the core cannot do without it: a core
 * that registers local buffers itself when asked not to (verbs) then
 * answers as it will serve the utility, which hands it buffers without
 * descriptors (ofi_rxm's rendezvous, and the max_msg_size it reports,
 * depend on it). A core that needs it is asked again with it. No hints:
 * none for the core either (its defaults). */
static int pl_layering_ask_core(const struct pl_getinfo_call *call,
				const struct pl_prov *core,
				struct fi_info **raw_p)
{
	const struct fi_info *h = call->hints;
	struct fi_fabric_attr fabric = { 0 };
	struct fi_domain_attr domain = { 0 };
	struct fi_ep_attr ep = { 0 };
	struct fi_tx_attr tx = { 0 };
	struct fi_rx_attr rx = { 0 };
	struct fi_info hints = { 0 };
	int ret;

	/* no hints: the core's defaults, as for the application */
	if (!h)
		return core->fi->getinfo(call->version, call->node,
					 call->service, call->flags, NULL,
					 raw_p);
	hints.mode = ~0ULL;
	hints.addr_format = h->addr_format;
	hints.src_addrlen = h->src_addrlen;
	hints.src_addr = h->src_addr;
	hints.dest_addrlen = h->dest_addrlen;
	hints.dest_addr = h->dest_addr;
	tx.mode = rx.mode = ~0ULL;
	domain.mode = ~0ULL;
	domain.mr_mode = call->version < FI_VERSION(1, 5) ? FI_MR_UNSPEC :
			 ~(FI_MR_BASIC | FI_MR_SCALABLE | FI_MR_LOCAL);
	if (h->domain_attr) {
		domain.name = h->domain_attr->name;
		domain.data_progress = h->domain_attr->data_progress;
	}
	if (h->fabric_attr)
		fabric.name = h->fabric_attr->name;
	if (h->ep_attr) {
		ep.auth_key = h->ep_attr->auth_key;
		ep.auth_key_size = h->ep_attr->auth_key_size;
	}
	hints.tx_attr = &tx;
	hints.rx_attr = &rx;
	hints.ep_attr = &ep;
	hints.domain_attr = &domain;
	hints.fabric_attr = &fabric;
	ret = core->fi->getinfo(call->version, call->node, call->service,
				call->flags, &hints, raw_p);
	/* before API 1.5 no bit can be left out (FI_MR_UNSPEC) */
	if (ret != -FI_ENODATA || call->version < FI_VERSION(1, 5))
		return ret;
	domain.mr_mode |= FI_MR_LOCAL;
	return core->fi->getinfo(call->version, call->node, call->service,
				 call->flags, &hints, raw_p);
}

static int pl_layering_core_infos(const struct pl_getinfo_call *call,
				  struct pl_layering_cache *cache, size_t idx,
				  struct fi_info **base_p)
{
	const struct pl_prov *core = pl_registry_at(idx);
	struct pl_info_list list = { NULL, &list.head };
	struct fi_info *raw = NULL;
	int ret;

	if (!cache->done[idx]) {
		ret = pl_layering_ask_core(call, core, &raw);
		if (ret) {
			if (ret != -FI_ENODATA)
				PL_INFO(FI_LOG_CORE, "%s getinfo failed: %d\n",
					core->fi->name, ret);
			raw = NULL;
		}
		ret = pl_getinfo_collect(call, core, NULL, raw, false, &list);
		if (ret)
			return ret;
		cache->done[idx] = true;
		cache->infos[idx] = list.head;
	}
	*base_p = cache->infos[idx];
	return 0;
}

static int pl_layering_over(struct pl_getinfo_call *call,
			    const struct pl_prov *util,
			    const struct pl_prov *core, struct fi_info *base)
{
	struct fi_info *entry, *next, *raw;
	int ret;

	for (entry = base; entry; entry = next) {
		/* The utility sees one entry: cut the list here for the
		 * call and mend it after. */
		next = entry->next;
		entry->next = NULL;
		raw = NULL;
		ret = util->fi->getinfo(call->version, call->node,
					call->service, call->flags, entry,
					&raw);
		entry->next = next;
		if (ret) {
			if (ret != -FI_ENODATA)
				PL_INFO(FI_LOG_CORE, "%s over %s failed: %d\n",
					util->fi->name, core->fi->name, ret);
			continue;
		}
		ret = pl_getinfo_collect(call, core, util, raw, true,
					 &call->out);
		if (ret)
			return ret;
	}
	return 0;
}

int pl_layering_getinfo(struct pl_getinfo_call *call,
			const struct pl_prov *util,
			struct pl_layering_cache *cache)
{
	const struct pl_prov_filter *filter = pl_registry_filter();
	struct fi_info *base;
	size_t i;
	int ret;

	if (util->fi->fi_version < call->version)
		return 0;
	ret = pl_layering_cache_init(cache);
	if (ret)
		return ret;

	for (i = 0; i < cache->count; i++) {
		const struct pl_prov *core = pl_registry_at(i);

		if (core->util || core->fi->fi_version < call->version ||
		    !pl_prov_filter_allows(filter, core->fi->name,
					   util->fi->name) ||
		    !pl_prov_sel_allows(&call->sel, core->fi->name,
					util->fi->name))
			continue;
		ret = pl_layering_core_infos(call, cache, i, &base);
		if (!ret)
			ret = pl_layering_over(call, util, core, base);
		if (ret)
			return ret;
	}
	return 0;
}
