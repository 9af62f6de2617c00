/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Verbs memory regions: fi_mr_reg is ibv_reg_mr on the domain's PD. The
 * device picks the keys (FI_MR_PROV_KEY): fi_mr_key is the rkey a peer
 * names in RMA, fi_mr_desc the region itself, whose lkey the local work
 * requests carry (FI_MR_LOCAL). Remote accesses are checked by the
 * device against the rkey's range and rights, not by us.
 *
 * The domain's registration cache (DESIGN.md section 6, mr_cache/)
 * serves what is registered for local access only: fi_mr_reg without
 * remote rights, and the buffers operations name without a descriptor
 * (vrb_ep_sge.c). A region a peer may reach (FI_REMOTE_READ / WRITE) is
 * registered on its own, exactly its range with exactly its rights: a
 * cached registration may cover more (a merged neighbour), and its rkey
 * would open that to the peer.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_mrc.h"
#include "vrb_params.h"
#include "vrb_prov.h"

/*
 * On-demand paging (FI_VERBS_USE_ODP): a region registered with
 * IBV_ACCESS_ON_DEMAND is not pinned; the device faults its pages in.
 * Asked for only where the device pages on demand on RC for every
 * access the registration grants (rc_odp_caps); anything else is
 * registered pinned, and the domain says so once at open.
 */
void vrb_mr_odp_init(struct vrb_domain *d)
{
	struct ibv_device_attr_ex ex;

	d->odp = false;
	d->odp_rc_caps = 0;
	if (!vrb_params_get()->use_odp)
		return;
	memset(&ex, 0, sizeof(ex));
	if (!ibv_query_device_ex(d->verbs, NULL, &ex) &&
	    (ex.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
		d->odp = true;
		d->odp_rc_caps = ex.odp_caps.per_transport_caps.rc_odp_caps;
	}
	if (!d->odp || !(d->odp_rc_caps & IBV_ODP_SUPPORT_SEND) ||
	    !(d->odp_rc_caps & IBV_ODP_SUPPORT_RECV))
		VRB_LOG_WARN(FI_LOG_MR, "FI_VERBS_USE_ODP: %s has no on-demand "
			     "paging on RC for sends and receives; memory is "
			     "pinned\n", ibv_get_device_name(d->verbs->device));
}

/* The registration's ibv access, with IBV_ACCESS_ON_DEMAND where the
 * device pages every one of its uses on demand. */
static int vrb_mr_access(const struct vrb_domain *d, int ib)
{
	uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;

	if (!d->odp)
		return ib;
	if (ib & IBV_ACCESS_REMOTE_WRITE)
		need |= IBV_ODP_SUPPORT_WRITE;
	if (ib & IBV_ACCESS_REMOTE_READ)
		need |= IBV_ODP_SUPPORT_READ;
	if (ib & IBV_ACCESS_REMOTE_ATOMIC)
		need |= IBV_ODP_SUPPORT_ATOMIC;
	return (d->odp_rc_caps & need) == need ? ib | IBV_ACCESS_ON_DEMAND :
						 ib;
}

static int vrb_mr_cache_reg(void *ctx, struct pl_mrc_entry *e)
{
	struct vrb_domain *d = ctx;
	struct ibv_mr **mr = pl_mrc_entry_data(e);

	*mr = ibv_reg_mr(d->pd, pl_mrc_entry_addr(e), pl_mrc_entry_len(e),
			 vrb_mr_access(d, IBV_ACCESS_LOCAL_WRITE));
	return *mr ? 0 : -FI_EFAULT;
}

static void vrb_mr_cache_dereg(void *ctx, struct pl_mrc_entry *e)
{
	(void)ctx;
	(void)ibv_dereg_mr(*(struct ibv_mr **)pl_mrc_entry_data(e));
}

int vrb_mr_cache_open(struct vrb_domain *d)
{
	struct pl_mrc_attr attr = {
		.reg = vrb_mr_cache_reg,
		.dereg = vrb_mr_cache_dereg,
		.ctx = d,
		.data_size = sizeof(struct ibv_mr *),
		.name = "verbs",
		.flags = PL_MRC_MERGE,
		.max_count = PL_MRC_LIMIT_ENV,
		.max_size = PL_MRC_LIMIT_ENV,
	};

	return pl_mrc_open(&attr, &d->mrc);
}

struct ibv_mr *vrb_mr_cache_mr(struct pl_mrc_entry *e)
{
	return *(struct ibv_mr **)pl_mrc_entry_data(e);
}

#define VRB_MR_MAGIC 0x7662726dU	/* "vbrm": a desc that is ours */

struct vrb_mr {
	struct fid_mr mr_fid;
	uint32_t magic;			/* registration only */
	struct vrb_domain *dom;		/* registration only */
	struct ibv_mr *mr;		/* registration only */
	struct pl_mrc_entry *entry;	/* held cache entry, or NULL */
};

uint32_t vrb_mr_lkey(void *desc, bool *ok)
{
	struct vrb_mr *m = desc;

	/* a descriptor is the application's word: check it is a verbs MR
	 * before reading its key (a wrong desc gives -FI_EINVAL, never a
	 * wild read past a short object: every fid_mr starts with a fid,
	 * and ours has the magic right after) */
	if (!m || m->mr_fid.fid.fclass != FI_CLASS_MR ||
	    m->magic != VRB_MR_MAGIC) {
		*ok = false;
		return 0;
	}
	*ok = true;
	return m->mr->lkey;
}

static int vrb_mr_close(struct fid *fid)
{
	struct vrb_mr *m = pl_container_of(fid, struct vrb_mr, mr_fid.fid);

	if (m->entry)
		pl_mrc_put(m->dom->mrc, m->entry);
	else if (ibv_dereg_mr(m->mr))
		return -FI_EBUSY;	/* a memory window still binds it */
	m->magic = 0;
	pl_domain_child_put(&m->dom->base);
	free(m);
	return 0;
}

static struct fi_ops vrb_mr_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = vrb_mr_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

#define VRB_MR_ACCESS (FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
		       FI_REMOTE_READ | FI_REMOTE_WRITE)

static int vrb_mr_reg(struct fid *fid, const void *buf, size_t len,
		      uint64_t access, uint64_t offset, uint64_t requested_key,
		      uint64_t flags, struct fid_mr **mr_p, void *context)
{
	struct vrb_domain *d = vrb_domain_of((struct fid_domain *)fid);
	struct vrb_mr *m;
	int ib = IBV_ACCESS_LOCAL_WRITE;

	(void)offset;		/* reserved (fi_mr(3)) */
	(void)requested_key;	/* FI_MR_PROV_KEY: the device's */
	if (!d || !buf || !len || !mr_p || (access & ~VRB_MR_ACCESS))
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	/* local write always: a receive or a read's result lands there,
	 * and remote write needs it too */
	if (access & FI_REMOTE_WRITE)
		ib |= IBV_ACCESS_REMOTE_WRITE;
	/* a target of fi_atomic is written by the peer's device */
	if ((access & FI_REMOTE_WRITE) && vrb_domain_atomics(d))
		ib |= IBV_ACCESS_REMOTE_ATOMIC;
	if (access & FI_REMOTE_READ)
		ib |= IBV_ACCESS_REMOTE_READ;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -FI_ENOMEM;
	if (!(access & (FI_REMOTE_READ | FI_REMOTE_WRITE))) {
		if (pl_mrc_get(d->mrc, buf, len, access ? access : FI_SEND,
			       &m->entry)) {
			free(m);
			return -FI_ENOMEM;
		}
		m->mr = vrb_mr_cache_mr(m->entry);
	} else {
		m->mr = ibv_reg_mr(d->pd, (void *)buf, len,
				   vrb_mr_access(d, ib));
	}
	if (!m->mr) {
		free(m);
		return -FI_ENOMEM;
	}
	m->magic = VRB_MR_MAGIC;
	m->dom = d;
	m->mr_fid.fid.fclass = FI_CLASS_MR;
	m->mr_fid.fid.context = context;
	m->mr_fid.fid.ops = &vrb_mr_fid_ops;
	m->mr_fid.mem_desc = m;
	m->mr_fid.key = m->mr->rkey;
	pl_domain_child_get(&d->base);
	*mr_p = &m->mr_fid;
	return 0;
}

static int vrb_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		       uint64_t access, uint64_t offset, uint64_t requested_key,
		       uint64_t flags, struct fid_mr **mr_p, void *context)
{
	/* mr_iov_limit is 1: a verbs MR is one virtual range */
	if (!iov || count != 1)
		return -FI_EINVAL;
	return vrb_mr_reg(fid, iov[0].iov_base, iov[0].iov_len, access,
			  offset, requested_key, flags, mr_p, context);
}

static int vrb_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			  uint64_t flags, struct fid_mr **mr_p)
{
	if (!attr)
		return -FI_EINVAL;
	if (attr->iface != FI_HMEM_SYSTEM)
		return -FI_ENOSYS;	/* no FI_HMEM */
	return vrb_mr_regv(fid, attr->mr_iov, attr->iov_count, attr->access,
			   attr->offset, attr->requested_key, flags, mr_p,
			   attr->context);
}

struct fi_ops_mr vrb_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = vrb_mr_reg,
	.regv = vrb_mr_regv,
	.regattr = vrb_mr_regattr,
};
