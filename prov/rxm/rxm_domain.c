/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rxm domain: the core's domain underneath (its fi_info found with
 * PL_GETINFO_CORE_ONLY at our source address and kept as the template of
 * every core endpoint), the engine's CQs, counters, MRs and AV.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_cq.h"
#include "pl_fid_nosys.h"
#include "pl_info.h"
#include "pl_mr.h"
#include "pl_poll.h"
#include "rdm_rma.h"
#include "rdm_srx.h"
#include "rdm_stx.h"
#include "rxm_ep.h"
#include "rxm_params.h"
#include "rxm_prov.h"

static struct fi_ops rxm_domain_fid_ops;

static struct rxm_domain *rxm_domain_of(struct fid *fid)
{
	if (!fid || fid->fclass != FI_CLASS_DOMAIN ||
	    fid->ops != &rxm_domain_fid_ops)
		return NULL;
	return pl_container_of(fid, struct rxm_domain, base.domain_fid.fid);
}

static int rxm_domain_close(struct fid *fid)
{
	struct rxm_domain *d = rxm_domain_of(fid);
	int ret;

	if (!d)
		return -FI_EINVAL;
	/* fi_domain(3): children first. The shm peer domain is one of
	 * them (pl_domain_init2 counts it) but ours to close; nothing else
	 * can open meanwhile (close runs alone). acquire: as
	 * pl_domain_busy's, a child's teardown is seen. */
	if (pl_load_acquire(&d->base.children) > (d->shm.domain ? 1 : 0))
		return -FI_EBUSY;
	ret = rxm_shm_domain_close(&d->shm);
	if (ret)
		return ret;
	/* out of the progress contexts before the domain's closes (close
	 * runs alone: no child can appear meanwhile) */
	rxm_domain_wake_close(&d->cm_wake);
	rxm_domain_wake_close(&d->data_wake);
	ret = pl_domain_fini(&d->base);
	if (ret)
		return ret;
	(void)fi_close(&d->core_domain->fid);
	fi_freeinfo_1_3(d->core_info);
	pl_keymap_fini(&d->keymap);
	free(d);
	return 0;
}

/* A registration just made (ret 0, *mr_p) gets its shm twin; without
 * one it is undone (rxm_shm_mr_twin). */
static int rxm_domain_mr_done(struct rxm_domain *d, int ret,
			      struct fid_mr **mr_p)
{
	if (ret)
		return ret;
	ret = rxm_shm_mr_twin(&d->shm, *mr_p);
	if (ret) {
		RXM_LOG_WARN(FI_LOG_MR, "no shm twin for a registration "
			     "(%s): refused\n", fi_strerror(-ret));
		(void)fi_close(&(*mr_p)->fid);
		*mr_p = NULL;
	}
	return ret;
}

static int rxm_domain_mr_reg(struct fid *fid, const void *buf, size_t len,
			     uint64_t access, uint64_t offset,
			     uint64_t requested_key, uint64_t flags,
			     struct fid_mr **mr_p, void *context)
{
	struct rxm_domain *d = rxm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return rxm_domain_mr_done(d, pl_mr_reg(&d->base, &d->keymap, buf, len,
						access, offset, requested_key,
						flags, mr_p, context),
				  mr_p);
}

static int rxm_domain_mr_regv(struct fid *fid, const struct iovec *iov,
			      size_t count, uint64_t access, uint64_t offset,
			      uint64_t requested_key, uint64_t flags,
			      struct fid_mr **mr_p, void *context)
{
	struct rxm_domain *d = rxm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return rxm_domain_mr_done(d, pl_mr_regv(&d->base, &d->keymap, iov,
						 count, access, offset,
						 requested_key, flags, mr_p,
						 context),
				  mr_p);
}

static int rxm_domain_mr_regattr(struct fid *fid,
				 const struct fi_mr_attr *attr,
				 uint64_t flags, struct fid_mr **mr_p)
{
	struct rxm_domain *d = rxm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return rxm_domain_mr_done(d, pl_mr_regattr(&d->base, &d->keymap,
						    attr, flags, mr_p),
				  mr_p);
}

static int rxm_domain_control(struct fid *fid, int command, void *arg)
{
	struct rxm_domain *d = rxm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_domain_control(&d->base, command, arg);
}

/* fi_query_atomic (rdm_rma.h): what one buffer carries. */
static int rxm_domain_query_atomic(struct fid_domain *domain,
				   enum fi_datatype dt, enum fi_op op,
				   struct fi_atomic_attr *attr, uint64_t flags)
{
	if (!rxm_domain_of(domain ? &domain->fid : NULL))
		return -FI_EINVAL;
	return rdm_rma_query_atomic(
		rxm_ep_atomic_max(rxm_params_get()->buffer_size), dt, op,
		attr, flags);
}

/* The registration mode the domain runs in: the two bits that change
 * what a peer names (fi_mr(3)), as the application's fi_info sets them
 * (none: offsets and the application's keys, what rxm answers when
 * asked nothing); the legacy FI_MR_BASIC means both. */
static int rxm_domain_mr_mode(const struct fi_info *info, uint32_t version)
{
	int m = info->domain_attr->mr_mode;

	if (m == FI_MR_BASIC || (m == FI_MR_UNSPEC &&
				 FI_VERSION_LT(version, FI_VERSION(1, 5))))
		return FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
	if (m == FI_MR_SCALABLE)
		return 0;
	return m & (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY);
}

static struct fi_ops rxm_domain_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rxm_domain_close,
	.bind = pl_domain_bind,
	.control = rxm_domain_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_domain rxm_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = rxm_av_open,
	.cq_open = pl_cq_open,
	.endpoint = rxm_ep_open,
	.scalable_ep = rxm_sep_open,
	.cntr_open = pl_cntr_open,
	.poll_open = pl_poll_open,
	.stx_ctx = rdm_stx_open,
	.srx_ctx = rdm_srx_open,
	.query_atomic = rxm_domain_query_atomic,
	.query_collective = pl_fid_nosys_domain_query_collective,
	.endpoint2 = pl_fid_nosys_domain_endpoint2,
};

static struct fi_ops_mr rxm_domain_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = rxm_domain_mr_reg,
	.regv = rxm_domain_mr_regv,
	.regattr = rxm_domain_mr_regattr,
};

/* The core's entry for this domain: same fabric, domain and source
 * address, FI_EP_MSG, messages. */
static int rxm_domain_core_info(struct rxm_fabric *fab,
				const struct fi_info *info, uint32_t version,
				struct fi_info **core_p)
{
	struct fi_info *hints = fi_allocinfo(), *core = NULL;
	int ret = -FI_ENOMEM;

	if (!hints)
		return ret;
	hints->ep_attr->type = FI_EP_MSG;
	/* remote reads carry rendezvous (rxm_ep_rndv.c), remote writes its
	 * write-based mode (rxm_ep_rndv_write.c); a core without them is
	 * asked again for messages alone */
	hints->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE |
		      FI_REMOTE_WRITE;
	hints->addr_format = info->addr_format;
	if (info->src_addr && info->src_addrlen) {
		hints->src_addr = malloc(info->src_addrlen);
		if (!hints->src_addr)
			goto out;
		memcpy(hints->src_addr, info->src_addr, info->src_addrlen);
		hints->src_addrlen = info->src_addrlen;
	}
	hints->fabric_attr->prov_name = strdup(fab->core_name);
	if (info->fabric_attr && info->fabric_attr->name)
		hints->fabric_attr->name = strdup(info->fabric_attr->name);
	if (info->domain_attr && info->domain_attr->name)
		hints->domain_attr->name = strdup(info->domain_attr->name);
	/* every mode but FI_MR_LOCAL: rxm hands the core its own buffers
	 * without descriptors, so a core that registers local buffers
	 * itself when not asked to (verbs, through its cache) is asked not
	 * to require it, and rendezvous stays on (rxm_core_rndv) */
	hints->domain_attr->mr_mode = ~(FI_MR_BASIC | FI_MR_SCALABLE |
					FI_MR_LOCAL);
	hints->mode = ~0ULL;
	ret = fi_getinfo_1_3(version, NULL, NULL, PL_GETINFO_CORE_ONLY, hints,
			     &core);
	if (ret == -FI_ENODATA) {
		hints->caps = FI_MSG;
		ret = fi_getinfo_1_3(version, NULL, NULL,
				     PL_GETINFO_CORE_ONLY, hints, &core);
	}
	if (!ret) {
		/* the first answer; the rest are other addresses */
		fi_freeinfo_1_3(core->next);
		core->next = NULL;
		*core_p = core;
	}
out:
	fi_freeinfo_1_3(hints);
	return ret;
}

/* fi_domain, and fi_domain2's flags (pl_domain_init2: FI_PEER joins a
 * propel owner's progress context, docs/peer.md; the core domain keeps
 * its own). */
static int rxm_domain_open_flags(struct fid_fabric *fabric,
				 struct fi_info *info,
				 struct fid_domain **domain_p, uint64_t flags,
				 void *context)
{
	struct rxm_fabric *fab;
	struct rxm_domain *d;
	uint32_t version;
	int ret;

	if (!fabric || !info || !info->domain_attr || !domain_p)
		return -FI_EINVAL;
	if (info->addr_format != FI_SOCKADDR_IN &&
	    info->addr_format != FI_SOCKADDR_IN6)
		return -FI_EINVAL;
	fab = pl_container_of(fabric, struct rxm_fabric, base.fabric_fid);
	version = fabric->api_version ? fabric->api_version :
		  FI_VERSION(1, 17);
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FI_ENOMEM;
	d->fab = fab;
	d->addrlen = info->addr_format == FI_SOCKADDR_IN6 ?
		     sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	ret = pl_keymap_init(&d->keymap);
	if (ret)
		goto err_free;
	ret = rxm_domain_core_info(fab, info, version, &d->core_info);
	if (ret)
		goto err_keymap;
	ret = fi_domain(fab->core_fabric, d->core_info, &d->core_domain, d);
	if (ret)
		goto err_info;
	ret = pl_domain_init2(&d->base, fabric, info, version,
			      rxm_domain_mr_mode(info, version), flags,
			      context);
	if (ret)
		goto err_core;
	/* the fabric's connection thread runs endpoints' passes, which
	 * write the application's CQs (rxm_ep_bg_poll) */
	d->base.own_writer_thread = true;
	d->base.domain_fid.fid.ops = &rxm_domain_fid_ops;
	d->base.domain_fid.ops = &rxm_domain_ops;
	d->base.domain_fid.mr = &rxm_domain_mr_ops;
	ret = rxm_domain_wake_open(&d->data_wake, fab->core_fabric,
				   pl_domain_progress(&d->base.domain_fid),
				   NULL, "ofi_rxm core completions");
	if (ret)
		goto err_base;
	ret = rxm_domain_wake_open(&d->cm_wake, fab->core_fabric,
				   pl_domain_progress(&d->base.domain_fid),
				   fab->cm_ctx, "ofi_rxm connections");
	if (ret)
		goto err_data;
	/* after pl_domain_init2: shm joins this domain's progress context,
	 * found among the live domains */
	if (rxm_params_get()->use_shm)
		rxm_shm_domain_open(&d->shm, &d->base.domain_fid, version);
	*domain_p = &d->base.domain_fid;
	return 0;

err_data:
	rxm_domain_wake_close(&d->data_wake);
err_base:
	(void)pl_domain_fini(&d->base);
err_core:
	(void)fi_close(&d->core_domain->fid);
err_info:
	fi_freeinfo_1_3(d->core_info);
err_keymap:
	pl_keymap_fini(&d->keymap);
err_free:
	free(d);
	return ret;
}

int rxm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context)
{
	return rxm_domain_open_flags(fabric, info, domain_p, 0, context);
}

int rxm_domain_open2(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain_p, uint64_t flags,
		     void *context)
{
	return rxm_domain_open_flags(fabric, info, domain_p, flags, context);
}
