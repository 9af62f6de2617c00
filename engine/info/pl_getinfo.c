/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_getinfo: ask every admitted provider, in registry order, and keep
 * what satisfies the hints (pl_hints_match.c). Cores answer the
 * application's hints themselves; utilities are asked once per core
 * (pl_layering.c). The order of the result is the registry's: external
 * providers (typically a vendor's) first, then the built-ins as their
 * table ranks them, best first.
 *
 * Outcomes the reference defines and we keep: a version newer than we
 * accept is -FI_ENOSYS with *info untouched; no match is -FI_ENODATA with
 * *info set to NULL (fi_getinfo(3) says so); a provider failing is logged
 * and skipped. Where the reference crashes (info == NULL) we answer
 * -FI_EINVAL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_getinfo.h"
#include "pl_hints_match.h"
#include "pl_info.h"
#include "pl_log.h"
#include "pl_nic.h"
#include "pl_prov_filter.h"
#include "pl_registry.h"

static void pl_info_list_init(struct pl_info_list *list)
{
	list->head = NULL;
	list->tail = &list->head;
}

static void pl_info_list_append(struct pl_info_list *list,
				struct fi_info *info)
{
	info->next = NULL;
	*list->tail = info;
	list->tail = &info->next;
}

/* fi_info(3) hands out every attribute struct; a provider that left one
 * out gets a zeroed one, so neither matching nor applications meet NULL.
 * A nic described without fid ops (plain malloc'd parts) is replaced by
 * our copy, so that applications can fi_close/FI_DUP/fi_tostr it. */
static int pl_getinfo_complete(struct fi_info *info)
{
	struct fid_nic *nic;

	if (info->nic && !info->nic->fid.ops) {
		if (pl_nic_dup(info->nic, &nic))
			return -FI_ENOMEM;
		pl_nic_free(info->nic);
		info->nic = nic;
	}

#define PL_COMPLETE(field)						\
	do {								\
		if (!info->field &&					\
		    !(info->field = calloc(1, sizeof(*info->field))))	\
			return -FI_ENOMEM;				\
	} while (0)
	PL_COMPLETE(tx_attr);
	PL_COMPLETE(rx_attr);
	PL_COMPLETE(ep_attr);
	PL_COMPLETE(domain_attr);
	PL_COMPLETE(fabric_attr);
#undef PL_COMPLETE
	return 0;
}

static int pl_getinfo_name(struct fi_info *info, const char *name,
			   const struct pl_prov *owner, uint32_t version)
{
	char *copy = strdup(name);

	if (!copy)
		return -FI_ENOMEM;
	free(info->fabric_attr->prov_name);
	info->fabric_attr->prov_name = copy;
	info->fabric_attr->prov_version = owner->fi->version;
	info->fabric_attr->api_version = version;
	return 0;
}

int pl_getinfo_collect(const struct pl_getinfo_call *call,
		       const struct pl_prov *core, const struct pl_prov *util,
		       struct fi_info *raw, bool match,
		       struct pl_info_list *list)
{
	const struct pl_prov *owner = util ? util : core;
	struct fi_info *info, *next;
	char *name = NULL;
	int ret = 0;

	if (util) {
		if (asprintf(&name, "%s;%s", core->fi->name,
			     util->fi->name) < 0) {
			name = NULL;
			ret = -FI_ENOMEM;
		}
	}
	for (info = raw; info; info = next) {
		next = info->next;
		info->next = NULL;
		if (!ret)
			ret = pl_getinfo_complete(info);
		if (!ret)
			ret = pl_getinfo_name(info, name ? name : core->fi->name,
					      owner, call->version);
		if (ret || (match && pl_hints_match(call->version, call->hints,
						    info))) {
			fi_freeinfo_1_3(info);
			continue;
		}
		pl_info_list_append(list, info);
	}
	free(name);
	return ret;
}

static int pl_getinfo_core(struct pl_getinfo_call *call,
			   const struct pl_prov *core, bool core_only,
			   bool peer)
{
	const struct pl_prov_filter *filter = pl_registry_filter();
	const char *name = core->fi->name;
	struct fi_info *raw = NULL;
	int ret;

	if (peer ? !pl_prov_filter_allows_peer(filter, name) :
	    core_only ? !pl_prov_filter_allows_base(filter, name) :
			!pl_prov_filter_allows(filter, name, NULL))
		return 0;
	if (!pl_prov_sel_allows(&call->sel, name, NULL))
		return 0;
	/* fi_provider(3): a provider serves only API versions up to the
	 * one it was built for. */
	if (core->fi->fi_version < call->version) {
		PL_INFO(FI_LOG_CORE, "%s supports API up to %u.%u; skipped\n",
			name, FI_MAJOR(core->fi->fi_version),
			FI_MINOR(core->fi->fi_version));
		return 0;
	}
	ret = core->fi->getinfo(call->version, call->node, call->service,
				call->flags, call->hints, &raw);
	if (ret) {
		if (ret != -FI_ENODATA)
			PL_INFO(FI_LOG_CORE, "%s getinfo failed: %d\n", name,
				ret);
		return 0;
	}
	return pl_getinfo_collect(call, core, NULL, raw, true, &call->out);
}

/* FI_PROV_ATTR_ONLY: one blank entry per registered provider, usable here
 * or not, FI_PROVIDER notwithstanding (as the reference lists them). */
static int pl_getinfo_provs(struct fi_info **info)
{
	size_t i, n = pl_registry_count();
	struct pl_info_list list;
	struct fi_info *entry;

	pl_info_list_init(&list);
	for (i = 0; i < n; i++) {
		const struct pl_prov *prov = pl_registry_at(i);

		entry = fi_dupinfo_1_3(NULL);
		if (!entry || !(entry->fabric_attr->prov_name =
				strdup(prov->fi->name))) {
			fi_freeinfo_1_3(entry);
			fi_freeinfo_1_3(list.head);
			return -FI_ENOMEM;
		}
		entry->fabric_attr->prov_version = prov->fi->version;
		pl_info_list_append(&list, entry);
	}
	*info = list.head;
	return list.head ? 0 : -FI_ENODATA;
}

PL_SYMVER_DEFAULT(fi_getinfo, FABRIC_1.3)
int fi_getinfo_1_3(uint32_t version, const char *node, const char *service,
		   uint64_t flags, const struct fi_info *hints,
		   struct fi_info **info)
{
	struct pl_layering_cache cache = { 0 };
	struct pl_getinfo_call call;
	bool core_only = flags & (PL_GETINFO_CORE_ONLY | PL_GETINFO_PEER);
	bool peer = flags & PL_GETINFO_PEER;
	size_t i, n;
	int ret;

	if (!info)
		return -FI_EINVAL;
	/* Any major other than 1 is newer (2.x) or malformed (above 0xffff
	 * it does not fit); 0.x is accepted, as the reference does, and gets
	 * the oldest semantics. */
	if (version > PL_API_VERSION_MAX) {
		PL_WARN(FI_LOG_CORE, "API version %u.%u requested; this "
			"library implements up to %u.%u\n", FI_MAJOR(version),
			FI_MINOR(version), FI_MAJOR(PL_API_VERSION_MAX),
			FI_MINOR(PL_API_VERSION_MAX));
		return -FI_ENOSYS;
	}
	pl_registry_init();
	if (flags & FI_PROV_ATTR_ONLY)
		return pl_getinfo_provs(info);

	flags &= ~PL_GETINFO_PEER;
	ret = pl_hints_match_check(node, service, flags, hints);
	if (ret)
		return ret;

	call = (struct pl_getinfo_call){
		.version = version,
		.node = node,
		.service = service,
		.flags = flags & ~PL_GETINFO_CORE_ONLY,
		.hints = hints,
	};
	pl_info_list_init(&call.out);
	ret = pl_prov_sel_parse(hints && hints->fabric_attr ?
				hints->fabric_attr->prov_name : NULL,
				&call.sel);
	if (ret)
		return ret;

	n = pl_registry_count();
	for (i = 0; i < n && !ret; i++) {
		const struct pl_prov *prov = pl_registry_at(i);

		if (!prov->util)
			ret = pl_getinfo_core(&call, prov, core_only, peer);
		else if (!core_only)
			ret = pl_layering_getinfo(&call, prov, &cache);
	}
	pl_layering_cache_fini(&cache);
	pl_prov_sel_fini(&call.sel);

	if (ret) {
		fi_freeinfo_1_3(call.out.head);
		return ret;
	}
	*info = call.out.head;
	return call.out.head ? 0 : -FI_ENODATA;
}
