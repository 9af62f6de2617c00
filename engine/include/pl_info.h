/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The current-ABI implementations of the info entry points, bound to
 * fi_getinfo/fi_freeinfo/fi_dupinfo@@FABRIC_1.3 and fi_fabric@@FABRIC_1.1.
 * Internal callers (the compat nodes in pl_info_compat.c) call these names
 * directly rather than through the interposable exported ones.
 */
#ifndef PROPEL_PL_INFO_H
#define PROPEL_PL_INFO_H

#include <rdma/fabric.h>

/* ep_attr->mem_tag_format of a provider whose tags are 64 plain bits
 * with no fields of its own (the value the reference's providers report
 * for that case): an application may lay out any format in them. */
#define PL_TAG_FORMAT_GENERIC	0xaaaaaaaaaaaaaaaaULL

/*
 * fi_getinfo flag for utility providers looking up their core: answer
 * from core providers only, with no layering, and let FI_PROVIDER admit a
 * core it names only inside a pair ("tcp;ofi_rxm" still lets rxm find
 * tcp). Meaningless as an application's flag (it is FI_DIRECTED_RECV
 * elsewhere); the bit the reference reserves for the same purpose; never
 * passed on to providers.
 */
#define PL_GETINFO_CORE_ONLY	(1ULL << 59)
/* With PL_GETINFO_CORE_ONLY, for a provider looking up the core it opens
 * as its peer (fi_peer(3)): FI_PROVIDER's include list does not apply,
 * its exclude list does (pl_prov_filter_allows_peer). A bit no
 * fi_getinfo flag uses; never passed on to providers. */
#define PL_GETINFO_PEER		(1ULL << 58)

int fi_getinfo_1_3(uint32_t version, const char *node, const char *service,
		   uint64_t flags, const struct fi_info *hints,
		   struct fi_info **info);
void fi_freeinfo_1_3(struct fi_info *info);
struct fi_info *fi_dupinfo_1_3(const struct fi_info *info);
int fi_fabric_1_1(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		  void *context);

#endif /* PROPEL_PL_INFO_H */
