/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The older ABI nodes: fi_getinfo/fi_freeinfo/fi_dupinfo @FABRIC_1.0, 1.1,
 * 1.2 and fi_fabric@FABRIC_1.0, for binaries linked against a libfabric
 * older than 1.9.
 *
 * Structs only ever grew at their end, so an old layout is a prefix of the
 * current one. That makes handing a current-layout object to an old
 * caller safe, but not the reverse: an old caller's hints may be exactly
 * as long as its old layout, so nothing here reads past the old sizes.
 * Conversion therefore goes one way, old -> current, by copying the old
 * prefix into zeroed current structs. And since an old caller frees what
 * we return through its own (old) fi_freeinfo, which only knows the old
 * fields, results handed back carry nothing allocated beyond the old
 * layout (the nic object for ABI < 1.2; the auth keys for ABI 1.0).
 *
 * Layout history (facts of the libfabric ABI):
 *   1.0: fi_info without nic; fi_tx_attr without tclass; fi_ep_attr
 *        without auth_key_size/auth_key; fi_domain_attr up to
 *        max_ep_srx_ctx; fi_fabric_attr without api_version.
 *   1.1: fi_domain_attr gains cntr_cnt .. mr_cnt; fi_ep_attr and
 *        fi_fabric_attr reach their current layouts.
 *   1.2: fi_info gains nic.
 *   1.3 (current): fi_tx_attr and fi_domain_attr gain tclass.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_info.h"

enum pl_abi { PL_ABI_1_0, PL_ABI_1_1, PL_ABI_1_2 };

/* Sizes of the old layouts: the offset of the first field each later
 * revision appended. */
#define PL_TX_ATTR_SIZE_1_0     offsetof(struct fi_tx_attr, tclass)
#define PL_EP_ATTR_SIZE_1_0     offsetof(struct fi_ep_attr, auth_key_size)
#define PL_DOMAIN_ATTR_SIZE_1_0 offsetof(struct fi_domain_attr, cntr_cnt)
#define PL_DOMAIN_ATTR_SIZE_1_1 offsetof(struct fi_domain_attr, tclass)
#define PL_FABRIC_ATTR_SIZE_1_0 offsetof(struct fi_fabric_attr, api_version)
#define PL_INFO_SIZE_1_1        offsetof(struct fi_info, nic)

struct pl_abi_sizes {
	size_t info, tx, rx, ep, domain, fabric;
};

static const struct pl_abi_sizes pl_abi_sizes[] = {
	[PL_ABI_1_0] = { PL_INFO_SIZE_1_1, PL_TX_ATTR_SIZE_1_0,
			 sizeof(struct fi_rx_attr), PL_EP_ATTR_SIZE_1_0,
			 PL_DOMAIN_ATTR_SIZE_1_0, PL_FABRIC_ATTR_SIZE_1_0 },
	[PL_ABI_1_1] = { PL_INFO_SIZE_1_1, PL_TX_ATTR_SIZE_1_0,
			 sizeof(struct fi_rx_attr), sizeof(struct fi_ep_attr),
			 PL_DOMAIN_ATTR_SIZE_1_1, sizeof(struct fi_fabric_attr) },
	[PL_ABI_1_2] = { sizeof(struct fi_info), PL_TX_ATTR_SIZE_1_0,
			 sizeof(struct fi_rx_attr), sizeof(struct fi_ep_attr),
			 PL_DOMAIN_ATTR_SIZE_1_1, sizeof(struct fi_fabric_attr) },
};

/* A zeroed current-layout copy of an old-layout attribute struct. */
static void *pl_compat_widen(const void *old, size_t old_size, size_t size)
{
	void *attr = calloc(1, size);

	if (attr && old)
		memcpy(attr, old, old_size);
	return attr;
}

/*
 * One old-layout fi_info (not its list) as a shallow current-layout info
 * whose attribute structs are fresh, zero-extended copies; pointers inside
 * them (strings, addresses, keys) still belong to the caller. Freed with
 * pl_compat_free_shallow().
 */
static struct fi_info *pl_compat_widen_info(const void *old, enum pl_abi abi)
{
	const struct pl_abi_sizes *sz = &pl_abi_sizes[abi];
	const struct fi_info *o = old; /* only fields < sz->info are read */
	struct fi_info *info;

	info = pl_compat_widen(old, sz->info, sizeof(*info));
	if (!info)
		return NULL;
	info->next = NULL;
	info->tx_attr = NULL;
	info->rx_attr = NULL;
	info->ep_attr = NULL;
	info->domain_attr = NULL;
	info->fabric_attr = NULL;

	if (o->tx_attr && !(info->tx_attr = pl_compat_widen(o->tx_attr, sz->tx,
			sizeof(struct fi_tx_attr))))
		goto err;
	if (o->rx_attr && !(info->rx_attr = pl_compat_widen(o->rx_attr, sz->rx,
			sizeof(struct fi_rx_attr))))
		goto err;
	if (o->ep_attr && !(info->ep_attr = pl_compat_widen(o->ep_attr, sz->ep,
			sizeof(struct fi_ep_attr))))
		goto err;
	if (o->domain_attr && !(info->domain_attr = pl_compat_widen(
			o->domain_attr, sz->domain, sizeof(struct fi_domain_attr))))
		goto err;
	if (o->fabric_attr && !(info->fabric_attr = pl_compat_widen(
			o->fabric_attr, sz->fabric, sizeof(struct fi_fabric_attr))))
		goto err;
	return info;
err:
	free(info->domain_attr);
	free(info->ep_attr);
	free(info->rx_attr);
	free(info->tx_attr);
	free(info);
	return NULL;
}

static void pl_compat_free_shallow(struct fi_info *info)
{
	free(info->fabric_attr);
	free(info->domain_attr);
	free(info->ep_attr);
	free(info->rx_attr);
	free(info->tx_attr);
	free(info);
}

/* A deep, current-layout copy of an old-layout list. */
static struct fi_info *pl_compat_dup_list(const void *old, enum pl_abi abi)
{
	struct fi_info *head = NULL, **tail = &head, *wide, *dup;
	const struct fi_info *o;

	for (o = old; o; o = o->next) {
		wide = pl_compat_widen_info(o, abi);
		if (!wide)
			goto err;
		dup = fi_dupinfo_1_3(wide);
		pl_compat_free_shallow(wide);
		if (!dup)
			goto err;
		*tail = dup;
		tail = &dup->next;
	}
	return head;
err:
	fi_freeinfo_1_3(head);
	return NULL;
}

/*
 * Make current-layout results safe to hand to an old caller: release and
 * clear what lies beyond its layout, since its fi_freeinfo will not see it.
 */
static void pl_compat_narrow_list(struct fi_info *info, enum pl_abi abi)
{
	for (; info; info = info->next) {
		if (abi < PL_ABI_1_2 && info->nic) {
			fi_close(&info->nic->fid);
			info->nic = NULL;
		}
		if (abi > PL_ABI_1_0)
			continue;
		if (info->ep_attr) {
			free(info->ep_attr->auth_key);
			info->ep_attr->auth_key = NULL;
			info->ep_attr->auth_key_size = 0;
		}
		if (info->domain_attr) {
			free(info->domain_attr->auth_key);
			info->domain_attr->auth_key = NULL;
			info->domain_attr->auth_key_size = 0;
		}
	}
}

/* Free an old-layout list, touching only fields its layout has. */
static void pl_compat_free_list(void *old, enum pl_abi abi)
{
	struct fi_info *info, *next;

	for (info = old; info; info = next) {
		/* next and every pointer read below lie inside all layouts,
		 * except those guarded by the ABI check. */
		next = info->next;
		free(info->src_addr);
		free(info->dest_addr);
		free(info->tx_attr);
		free(info->rx_attr);
		if (info->ep_attr) {
			if (abi > PL_ABI_1_0)
				free(info->ep_attr->auth_key);
			free(info->ep_attr);
		}
		if (info->domain_attr) {
			free(info->domain_attr->name);
			if (abi > PL_ABI_1_0)
				free(info->domain_attr->auth_key);
			free(info->domain_attr);
		}
		if (info->fabric_attr) {
			free(info->fabric_attr->name);
			free(info->fabric_attr->prov_name);
			free(info->fabric_attr);
		}
		if (abi >= PL_ABI_1_2 && info->nic)
			fi_close(&info->nic->fid);
		free(info);
	}
}

static int pl_compat_getinfo(enum pl_abi abi, uint32_t version,
			     const char *node, const char *service,
			     uint64_t flags, const void *old_hints,
			     void **info_p)
{
	struct fi_info *hints = NULL, *info = NULL;
	int ret;

	if (!info_p)
		return -FI_EINVAL;
	if (old_hints) {
		hints = pl_compat_dup_list(old_hints, abi);
		if (!hints)
			return -FI_ENOMEM;
	}
	ret = fi_getinfo_1_3(version, node, service, flags, hints, &info);
	fi_freeinfo_1_3(hints);
	if (ret)
		return ret;
	pl_compat_narrow_list(info, abi);
	*info_p = info;
	return 0;
}

static void *pl_compat_dupinfo(enum pl_abi abi, const void *old)
{
	struct fi_info *dup;

	/* fi_allocinfo() passes NULL: a fresh, current-layout info is a valid
	 * (larger) old one too. */
	if (!old)
		return fi_dupinfo_1_3(NULL);
	dup = pl_compat_widen_info(old, abi);
	if (!dup)
		return NULL;
	/* Only the first entry: fi_dupinfo copies one fi_info, not a list. */
	{
		struct fi_info *deep = fi_dupinfo_1_3(dup);

		pl_compat_free_shallow(dup);
		dup = deep;
	}
	pl_compat_narrow_list(dup, abi);
	return dup;
}

#define PL_COMPAT_NODE(sfx, vnode, abi)                                       \
PL_SYMVER_COMPAT(fi_getinfo, vnode)                                           \
int fi_getinfo_##sfx(uint32_t version, const char *node, const char *service,\
		     uint64_t flags, const void *hints, void **info)         \
{                                                                             \
	return pl_compat_getinfo(abi, version, node, service, flags, hints,   \
				 info);                                       \
}                                                                             \
PL_SYMVER_COMPAT(fi_freeinfo, vnode)                                          \
void fi_freeinfo_##sfx(void *info)                                            \
{                                                                             \
	pl_compat_free_list(info, abi);                                       \
}                                                                             \
PL_SYMVER_COMPAT(fi_dupinfo, vnode)                                           \
void *fi_dupinfo_##sfx(const void *info)                                      \
{                                                                             \
	return pl_compat_dupinfo(abi, info);                                  \
}

/* Thin typed entry points only (STYLE.md habit 7): the logic is above. */
PL_COMPAT_NODE(1_0, FABRIC_1.0, PL_ABI_1_0)
PL_COMPAT_NODE(1_1, FABRIC_1.1, PL_ABI_1_1)
PL_COMPAT_NODE(1_2, FABRIC_1.2, PL_ABI_1_2)

/* ABI 1.0's fi_fabric_attr has no api_version: the caller predates 1.5,
 * so it is treated as an API 1.0 caller. */
PL_SYMVER_COMPAT(fi_fabric, FABRIC_1.0)
int fi_fabric_1_0(const void *attr_1_0, struct fid_fabric **fabric,
		  void *context)
{
	struct fi_fabric_attr attr = { 0 };

	if (!attr_1_0)
		return -FI_EINVAL;
	memcpy(&attr, attr_1_0, PL_FABRIC_ATTR_SIZE_1_0);
	attr.api_version = FI_VERSION(1, 0);
	return fi_fabric_1_1(&attr, fabric, context);
}
