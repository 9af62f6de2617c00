/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm domain: the engine's generic domain (progress context,
 * threading, mr_mode) plus the key map its MRs register into. CQs,
 * counters and MRs are the engine's objects; AVs the engine's behind a
 * thin name wrapper (shm_av.c); endpoints are shm_ep.c's. The MR calls
 * and the raw-key domain controls are the engine's (engine/include/pl_mr.h).
 */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_cq.h"
#include "pl_fid_nosys.h"
#include "pl_mr.h"
#include "pl_poll.h"
#include "rdm_rma.h"
#include "rdm_srx.h"
#include "rdm_stx.h"
#include "shm_atomic.h"
#include "shm_ep.h"

static int shm_domain_close(struct fid *fid)
{
	struct shm_domain *d = pl_container_of(fid, struct shm_domain,
					       base.domain_fid.fid);
	int ret;

	ret = pl_domain_fini(&d->base);
	if (ret)
		return ret;
	pl_keymap_fini(&d->keymap);
	free(d);
	return 0;
}

/* The shm domain behind a domain fid, or NULL. */
static struct shm_domain *shm_domain_of(struct fid *fid)
{
	if (!fid || fid->fclass != FI_CLASS_DOMAIN)
		return NULL;
	return pl_container_of(fid, struct shm_domain, base.domain_fid.fid);
}

static int shm_domain_mr_reg(struct fid *fid, const void *buf, size_t len,
			     uint64_t access, uint64_t offset,
			     uint64_t requested_key, uint64_t flags,
			     struct fid_mr **mr_p, void *context)
{
	struct shm_domain *d = shm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_reg(&d->base, &d->keymap, buf, len, access, offset,
			 requested_key, flags, mr_p, context);
}

static int shm_domain_mr_regv(struct fid *fid, const struct iovec *iov,
			      size_t count, uint64_t access, uint64_t offset,
			      uint64_t requested_key, uint64_t flags,
			      struct fid_mr **mr_p, void *context)
{
	struct shm_domain *d = shm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_regv(&d->base, &d->keymap, iov, count, access, offset,
			  requested_key, flags, mr_p, context);
}

static int shm_domain_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
				 uint64_t flags, struct fid_mr **mr_p)
{
	struct shm_domain *d = shm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_regattr(&d->base, &d->keymap, attr, flags, mr_p);
}

/* fi_control on the domain: FI_MAP_RAW_MR / FI_UNMAP_KEY (fi_mr(3)). */
static int shm_domain_control(struct fid *fid, int command, void *arg)
{
	struct shm_domain *d = shm_domain_of(fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_domain_control(&d->base, command, arg);
}

/* fi_query_atomic: flags 0 (fi_atomic), FI_FETCH_ATOMIC or
 * FI_COMPARE_ATOMIC (shm_atomic.h). */
static int shm_domain_query_atomic(struct fid_domain *domain,
				   enum fi_datatype dt, enum fi_op op,
				   struct fi_atomic_attr *attr, uint64_t flags)
{
	if (!domain)
		return -FI_EINVAL;
	return rdm_rma_query_atomic(SHM_ATOMIC_MAX_BYTES, dt, op, attr, flags);
}

static struct fi_ops shm_domain_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = shm_domain_close,
	.bind = pl_domain_bind,
	.control = shm_domain_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_domain shm_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = shm_av_open,
	.cq_open = pl_cq_open,
	.endpoint = shm_ep_open,
	.scalable_ep = shm_sep_open,
	.cntr_open = pl_cntr_open,
	.poll_open = pl_poll_open,
	.stx_ctx = rdm_stx_open,
	.srx_ctx = rdm_srx_open,
	.query_atomic = shm_domain_query_atomic,
	.query_collective = pl_fid_nosys_domain_query_collective,
	.endpoint2 = pl_fid_nosys_domain_endpoint2,
};

static struct fi_ops_mr shm_domain_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = shm_domain_mr_reg,
	.regv = shm_domain_mr_regv,
	.regattr = shm_domain_mr_regattr,
};

/* fi_domain, and fi_domain2's flags (pl_domain_init2: FI_PEER joins a
 * propel owner's progress context, docs/peer.md). */
static int shm_domain_open_flags(struct fid_fabric *fabric,
				 struct fi_info *info,
				 struct fid_domain **domain_p, uint64_t flags,
				 void *context)
{
	struct shm_domain *d;
	uint32_t version;
	int ret;

	if (!fabric || !info || !info->domain_attr || !domain_p)
		return -FI_EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FI_ENOMEM;
	ret = pl_keymap_init(&d->keymap);
	if (ret)
		goto err_free;
	version = fabric->api_version ? fabric->api_version :
					FI_VERSION(1, 17);
	ret = pl_domain_init2(&d->base, fabric, info, version,
			      shm_mr_mode_domain(info, version), flags,
			      context);
	if (ret)
		goto err_keymap;
	d->base.domain_fid.fid.ops = &shm_domain_fid_ops;
	d->base.domain_fid.ops = &shm_domain_ops;
	d->base.domain_fid.mr = &shm_domain_mr_ops;
	*domain_p = &d->base.domain_fid;
	return 0;

err_keymap:
	pl_keymap_fini(&d->keymap);
err_free:
	free(d);
	return ret;
}

int shm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context)
{
	return shm_domain_open_flags(fabric, info, domain_p, 0, context);
}

int shm_domain_open2(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain_p, uint64_t flags,
		     void *context)
{
	return shm_domain_open_flags(fabric, info, domain_p, flags, context);
}
