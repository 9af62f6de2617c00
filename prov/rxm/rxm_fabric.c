/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rxm fabric: the core's fabric underneath, found by the name before
 * the ';' of our prov_name ("tcp;ofi_rxm", pl_layering.c) and opened
 * through the public call. EQs, wait sets and fi_trywait are the
 * engine's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_info.h"
#include "pl_trywait.h"
#include "pl_wait_set.h"
#include "rxm_prov.h"

static int rxm_fabric_close(struct fid *fid)
{
	struct rxm_fabric *fab = pl_container_of(fid, struct rxm_fabric,
						 base.fabric_fid.fid);
	int ret;

	ret = pl_fabric_obj_fini(&fab->base);
	if (ret)
		return ret;	/* children remain: -FI_EBUSY */
	if (fab->cm_ctx)
		(void)pl_progress_ctx_close(fab->cm_ctx);
	if (fab->core_fabric) {
		ret = fi_close(&fab->core_fabric->fid);
		if (ret)
			RXM_LOG_WARN(FI_LOG_FABRIC, "the core fabric stays "
				     "open: %d\n", ret);
	}
	free(fab);
	return 0;
}

static struct fi_ops rxm_fabric_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rxm_fabric_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_fabric rxm_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = rxm_domain_open,
	.passive_ep = pl_fid_nosys_fabric_passive_ep,	/* RDM: none */
	.eq_open = pl_eq_open,
	.wait_open = pl_wait_open,
	.trywait = pl_trywait,
	.domain2 = rxm_domain_open2,
};

int rxm_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context)
{
	struct fi_fabric_attr core_attr;
	struct rxm_fabric *fab;
	const char *semi;
	size_t n;
	int ret;

	if (!attr || !fabric_p || !attr->prov_name)
		return -FI_EINVAL;
	semi = strchr(attr->prov_name, ';');
	n = semi ? (size_t)(semi - attr->prov_name) : 0;
	if (!n || n >= sizeof(fab->core_name))
		return -FI_ENODATA;	/* no core named: not ours */
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	memcpy(fab->core_name, attr->prov_name, n);
	core_attr = *attr;
	core_attr.prov_name = fab->core_name;
	core_attr.fabric = NULL;
	ret = fi_fabric_1_1(&core_attr, &fab->core_fabric, fab);
	if (ret) {
		free(fab);
		return ret;
	}
	ret = pl_progress_ctx_open(FI_PROGRESS_AUTO, FI_THREAD_SAFE, NULL,
				   &fab->cm_ctx);
	if (ret) {
		(void)fi_close(&fab->core_fabric->fid);
		free(fab);
		return ret;
	}
	pl_fabric_obj_init(&fab->base, attr->api_version, context);
	fab->base.fabric_fid.fid.ops = &rxm_fabric_fid_ops;
	fab->base.fabric_fid.ops = &rxm_fabric_ops;
	*fabric_p = &fab->base.fabric_fid;
	return 0;
}
