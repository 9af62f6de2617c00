/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_fid_nosys.h"
#include "pl_nic.h"
#include "pl_tostr.h"

static int pl_nic_close(struct fid *fid);
static int pl_nic_control(struct fid *fid, int command, void *arg);

static struct fi_ops pl_nic_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_nic_close,		/* frees the whole description */
	.bind = pl_fid_nosys_bind,
	.control = pl_nic_control,	/* FI_DUP: a deep copy */
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_tostr_nic_print,	/* fi_tostr's "nic:" block */
	.ops_set = pl_fid_nosys_ops_set,
};

static int pl_nic_strdup(const char *src, char **dst_p)
{
	*dst_p = NULL;
	if (src && !(*dst_p = strdup(src)))
		return -FI_ENOMEM;
	return 0;
}

static int pl_nic_dup_device(const struct fi_device_attr *src,
			     struct fi_device_attr **dst_p)
{
	struct fi_device_attr *dst = calloc(1, sizeof(*dst));

	*dst_p = dst;
	if (!dst)
		return -FI_ENOMEM;
	if (pl_nic_strdup(src->name, &dst->name) ||
	    pl_nic_strdup(src->device_id, &dst->device_id) ||
	    pl_nic_strdup(src->device_version, &dst->device_version) ||
	    pl_nic_strdup(src->vendor_id, &dst->vendor_id) ||
	    pl_nic_strdup(src->driver, &dst->driver) ||
	    pl_nic_strdup(src->firmware, &dst->firmware))
		return -FI_ENOMEM;
	return 0;
}

static int pl_nic_dup_link(const struct fi_link_attr *src,
			   struct fi_link_attr **dst_p)
{
	struct fi_link_attr *dst = malloc(sizeof(*dst));

	*dst_p = dst;
	if (!dst)
		return -FI_ENOMEM;
	*dst = *src;
	dst->address = NULL;
	dst->network_type = NULL;
	if (pl_nic_strdup(src->address, &dst->address) ||
	    pl_nic_strdup(src->network_type, &dst->network_type))
		return -FI_ENOMEM;
	return 0;
}

static void pl_nic_free_parts(struct fid_nic *nic)
{
	if (nic->device_attr) {
		free(nic->device_attr->name);
		free(nic->device_attr->device_id);
		free(nic->device_attr->device_version);
		free(nic->device_attr->vendor_id);
		free(nic->device_attr->driver);
		free(nic->device_attr->firmware);
		free(nic->device_attr);
	}
	free(nic->bus_attr);
	if (nic->link_attr) {
		free(nic->link_attr->address);
		free(nic->link_attr->network_type);
		free(nic->link_attr);
	}
	free(nic);
}

static int pl_nic_copy(const struct fid_nic *nic, struct fid_nic **nic_p)
{
	struct fid_nic *dup = calloc(1, sizeof(*dup));

	if (!dup)
		return -FI_ENOMEM;
	dup->fid.fclass = FI_CLASS_NIC;
	dup->fid.context = nic->fid.context;
	dup->fid.ops = &pl_nic_ops;

	if (nic->device_attr &&
	    pl_nic_dup_device(nic->device_attr, &dup->device_attr))
		goto err_free;
	if (nic->bus_attr) {
		dup->bus_attr = malloc(sizeof(*dup->bus_attr));
		if (!dup->bus_attr)
			goto err_free;
		*dup->bus_attr = *nic->bus_attr;
	}
	if (nic->link_attr && pl_nic_dup_link(nic->link_attr, &dup->link_attr))
		goto err_free;
	*nic_p = dup;
	return 0;

err_free:
	pl_nic_free_parts(dup);
	return -FI_ENOMEM;
}

/* Ops that are neither ours nor absent belong to whoever built the nic. */
static const struct fi_ops *pl_nic_foreign_ops(const struct fid_nic *nic)
{
	const struct fi_ops *ops = nic->fid.ops;

	return ops && ops != &pl_nic_ops ? ops : NULL;
}

int pl_nic_dup(const struct fid_nic *nic, struct fid_nic **nic_p)
{
	const struct fi_ops *ops = pl_nic_foreign_ops(nic);
	struct fid_nic *dup = NULL;

	if (ops && ops->size > offsetof(struct fi_ops, control) &&
	    ops->control &&
	    !ops->control((struct fid *)&nic->fid, FI_DUP, &dup) && dup) {
		*nic_p = dup;
		return 0;
	}
	return pl_nic_copy(nic, nic_p);
}

void pl_nic_free(struct fid_nic *nic)
{
	const struct fi_ops *ops;

	if (!nic)
		return;
	ops = pl_nic_foreign_ops(nic);
	if (ops && ops->size > offsetof(struct fi_ops, close) && ops->close) {
		ops->close(&nic->fid);
		return;
	}
	pl_nic_free_parts(nic);
}

static int pl_nic_close(struct fid *fid)
{
	pl_nic_free_parts((struct fid_nic *)fid);
	return 0;
}

static int pl_nic_control(struct fid *fid, int command, void *arg)
{
	if (command != FI_DUP)
		return -FI_ENOSYS;
	if (!arg)
		return -FI_EINVAL;
	return pl_nic_copy((struct fid_nic *)fid, (struct fid_nic **)arg);
}
