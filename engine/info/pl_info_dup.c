/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_dupinfo / fi_freeinfo (and fi_allocinfo, the header's
 * fi_dupinfo(NULL)).
 *
 * Ownership contract: every pointer an fi_info owns (addresses, attribute
 * structs, their strings and auth keys, the nic) is a separate malloc'd
 * block released with free(). Applications rely on it: they strdup names
 * into hints from fi_allocinfo and hand them to fi_freeinfo (DESIGN.md
 * section 9). What an fi_info merely references is never copied nor
 * freed: handle, fabric_attr->fabric, domain_attr->domain.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_info.h"
#include "pl_nic.h"

/*
 * The copy helpers below attach what they make to *dst_p as soon as it
 * exists, even when a later step fails, so that the caller's single
 * error path (fi_freeinfo_1_3 of the duplicate) releases all of it.
 */

/* A copy of len bytes at src; none (NULL) when there is nothing to copy. */
static int pl_info_dup_mem(const void *src, size_t len, void **dst_p)
{
	*dst_p = NULL;
	if (!src || !len)
		return 0;
	*dst_p = malloc(len);
	if (!*dst_p)
		return -FI_ENOMEM;
	memcpy(*dst_p, src, len);
	return 0;
}

static int pl_info_dup_str(const char *src, char **dst_p)
{
	*dst_p = NULL;
	if (src && !(*dst_p = strdup(src)))
		return -FI_ENOMEM;
	return 0;
}

static int pl_info_dup_ep(const struct fi_ep_attr *src,
			  struct fi_ep_attr **dst_p)
{
	struct fi_ep_attr *dst = malloc(sizeof(*dst));

	*dst_p = dst;
	if (!dst)
		return -FI_ENOMEM;
	*dst = *src;
	return pl_info_dup_mem(src->auth_key, src->auth_key_size,
			       (void **)&dst->auth_key);
}

static int pl_info_dup_domain(const struct fi_domain_attr *src,
			      struct fi_domain_attr **dst_p)
{
	struct fi_domain_attr *dst = malloc(sizeof(*dst));

	*dst_p = dst;
	if (!dst)
		return -FI_ENOMEM;
	*dst = *src;
	dst->auth_key = NULL;
	if (pl_info_dup_str(src->name, &dst->name))
		return -FI_ENOMEM;
	return pl_info_dup_mem(src->auth_key, src->auth_key_size,
			       (void **)&dst->auth_key);
}

static int pl_info_dup_fabric(const struct fi_fabric_attr *src,
			      struct fi_fabric_attr **dst_p)
{
	struct fi_fabric_attr *dst = malloc(sizeof(*dst));

	*dst_p = dst;
	if (!dst)
		return -FI_ENOMEM;
	*dst = *src;
	dst->prov_name = NULL;
	if (pl_info_dup_str(src->name, &dst->name))
		return -FI_ENOMEM;
	return pl_info_dup_str(src->prov_name, &dst->prov_name);
}

/* A zeroed fi_info with every attribute struct, as fi_allocinfo promises. */
static struct fi_info *pl_info_dup_blank(void)
{
	struct fi_info *info = calloc(1, sizeof(*info));

	if (!info)
		return NULL;
	info->tx_attr = calloc(1, sizeof(*info->tx_attr));
	info->rx_attr = calloc(1, sizeof(*info->rx_attr));
	info->ep_attr = calloc(1, sizeof(*info->ep_attr));
	info->domain_attr = calloc(1, sizeof(*info->domain_attr));
	info->fabric_attr = calloc(1, sizeof(*info->fabric_attr));
	if (!info->tx_attr || !info->rx_attr || !info->ep_attr ||
	    !info->domain_attr || !info->fabric_attr) {
		fi_freeinfo_1_3(info);
		return NULL;
	}
	return info;
}

/* Duplicates one fi_info, never the list behind it (next is NULL). */
PL_SYMVER_DEFAULT(fi_dupinfo, FABRIC_1.3)
struct fi_info *fi_dupinfo_1_3(const struct fi_info *info)
{
	struct fi_info *dup;

	if (!info)
		return pl_info_dup_blank();

	dup = malloc(sizeof(*dup));
	if (!dup)
		return NULL;
	*dup = *info;
	/* Until each is copied below, the duplicate owns none of these,
	 * so that the error path frees only what was made here. */
	dup->next = NULL;
	dup->src_addr = dup->dest_addr = NULL;
	dup->tx_attr = NULL;
	dup->rx_attr = NULL;
	dup->ep_attr = NULL;
	dup->domain_attr = NULL;
	dup->fabric_attr = NULL;
	dup->nic = NULL;

	if (pl_info_dup_mem(info->src_addr, info->src_addrlen,
			    &dup->src_addr) ||
	    pl_info_dup_mem(info->dest_addr, info->dest_addrlen,
			    &dup->dest_addr) ||
	    pl_info_dup_mem(info->tx_attr, info->tx_attr ?
			    sizeof(*info->tx_attr) : 0,
			    (void **)&dup->tx_attr) ||
	    pl_info_dup_mem(info->rx_attr, info->rx_attr ?
			    sizeof(*info->rx_attr) : 0,
			    (void **)&dup->rx_attr))
		goto err_free;
	if (info->ep_attr && pl_info_dup_ep(info->ep_attr, &dup->ep_attr))
		goto err_free;
	if (info->domain_attr &&
	    pl_info_dup_domain(info->domain_attr, &dup->domain_attr))
		goto err_free;
	if (info->fabric_attr &&
	    pl_info_dup_fabric(info->fabric_attr, &dup->fabric_attr))
		goto err_free;
	if (info->nic && pl_nic_dup(info->nic, &dup->nic))
		goto err_free;
	return dup;

err_free:
	fi_freeinfo_1_3(dup);
	return NULL;
}

PL_SYMVER_DEFAULT(fi_freeinfo, FABRIC_1.3)
void fi_freeinfo_1_3(struct fi_info *info)
{
	struct fi_info *next;

	for (; info; info = next) {
		next = info->next;
		free(info->src_addr);
		free(info->dest_addr);
		free(info->tx_attr);
		free(info->rx_attr);
		if (info->ep_attr) {
			free(info->ep_attr->auth_key);
			free(info->ep_attr);
		}
		if (info->domain_attr) {
			free(info->domain_attr->name);
			free(info->domain_attr->auth_key);
			free(info->domain_attr);
		}
		if (info->fabric_attr) {
			free(info->fabric_attr->name);
			free(info->fabric_attr->prov_name);
			free(info->fabric_attr);
		}
		pl_nic_free(info->nic);
		free(info);
	}
}
