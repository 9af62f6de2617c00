/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs domain: one RDMA device (info->domain_attr->name), its
 * protection domain, and the engine's generic domain (progress context,
 * threading, mr_mode). The device context is rdma_cm's own
 * (rdma_get_devices), so that the QPs made on this PD can be handed to
 * rdma_cm ids, whose contexts are the same ones. CQs, counters and poll
 * sets are the engine's; each enabled endpoint adds its own progress
 * source to the domain's context (vrb_ep_cq.c).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_cq.h"
#include "pl_fid_nosys.h"
#include "pl_mrc.h"
#include "pl_poll.h"
#include "vrb_prov.h"
#include "vrb_srx.h"

static struct fi_ops vrb_domain_fid_ops;

struct vrb_domain *vrb_domain_of(struct fid_domain *d)
{
	if (!d || d->fid.fclass != FI_CLASS_DOMAIN ||
	    d->fid.ops != &vrb_domain_fid_ops)
		return NULL;
	return pl_container_of(d, struct vrb_domain, base.domain_fid);
}

static int vrb_domain_close(struct fid *fid)
{
	struct vrb_domain *d = pl_container_of(fid, struct vrb_domain,
					       base.domain_fid.fid);
	int ret;

	ret = pl_domain_fini(&d->base);
	if (ret)
		return ret;	/* children remain: -FI_EBUSY */
	/* every holder (MR, endpoint) is closed: nothing in use */
	(void)pl_mrc_close(d->mrc);
	(void)ibv_dealloc_pd(d->pd);
	rdma_free_devices(d->devs);
	free(d);
	return 0;
}

static struct fi_ops vrb_domain_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = vrb_domain_close,
	.bind = pl_domain_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_domain vrb_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = pl_fid_nosys_domain_av_open,	/* MSG endpoints only */
	.cq_open = pl_cq_open,
	.endpoint = vrb_ep_open,
	.scalable_ep = pl_fid_nosys_domain_scalable_ep,
	.cntr_open = pl_cntr_open,
	.poll_open = pl_poll_open,
	.stx_ctx = pl_fid_nosys_domain_stx_ctx,
	.srx_ctx = vrb_srx_open,
	.query_atomic = vrb_domain_query_atomic,
	.query_collective = pl_fid_nosys_domain_query_collective,
	.endpoint2 = pl_fid_nosys_domain_endpoint2,
};

int vrb_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context)
{
	struct ibv_port_attr pa;
	struct vrb_domain *d;
	int ret, i, n = 0;

	if (!fabric || !info || !info->domain_attr || !domain_p)
		return -FI_EINVAL;
	if (!info->domain_attr->name)
		return -FI_EINVAL;
	ret = vrb_fork_check();
	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FI_ENOMEM;
	d->fab = pl_container_of(fabric, struct vrb_fabric, base.fabric_fid);
	d->devs = rdma_get_devices(&n);
	for (i = 0; d->devs && i < n; i++)
		if (!strcmp(ibv_get_device_name(d->devs[i]->device),
			    info->domain_attr->name))
			d->verbs = d->devs[i];
	if (!d->verbs) {
		ret = -FI_ENODEV;
		goto err_devs;
	}
	if (ibv_query_device(d->verbs, &d->attr)) {
		ret = -FI_EIO;
		goto err_devs;
	}
	/* the message size limit of the first port (the one rdma_cm
	 * binds for a single-port device); enough for checks */
	d->max_msg_size = ibv_query_port(d->verbs, 1, &pa) ? (1u << 31) :
			  pa.max_msg_sz;
	vrb_mr_odp_init(d);
	d->pd = ibv_alloc_pd(d->verbs);
	if (!d->pd) {
		ret = -FI_ENOMEM;
		goto err_devs;
	}
	ret = vrb_mr_cache_open(d);
	if (ret)
		goto err_pd;
	/* FI_MR_LOCAL only for an application that takes it: for one
	 * that does not, buffers without a descriptor are registered
	 * through the cache (vrb_ep_sge.c) */
	ret = pl_domain_init(&d->base, fabric, info, fabric->api_version ?
			     fabric->api_version : FI_VERSION(1, 17),
			     (VRB_MR_MODE & ~FI_MR_LOCAL) |
			     (info->domain_attr->mr_mode & FI_MR_LOCAL),
			     context);
	if (ret)
		goto err_mrc;
	d->base.domain_fid.fid.ops = &vrb_domain_fid_ops;
	d->base.domain_fid.ops = &vrb_domain_ops;
	d->base.domain_fid.mr = &vrb_mr_ops;
	*domain_p = &d->base.domain_fid;
	return 0;

err_mrc:
	(void)pl_mrc_close(d->mrc);
err_pd:
	(void)ibv_dealloc_pd(d->pd);
err_devs:
	if (d->devs)
		rdma_free_devices(d->devs);
	free(d);
	return ret;
}
