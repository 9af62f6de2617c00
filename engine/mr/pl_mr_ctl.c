/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic memory region (pl_mr.h): fi_mr_bind, fi_control (enable,
 * refresh, raw attributes) and the domain's raw-key controls.
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_mr.h"

static struct pl_mr *pl_mr_of(struct fid *fid)
{
	if (!fid || fid->fclass != FI_CLASS_MR)
		return NULL;
	return pl_container_of(fid, struct pl_mr, mr_fid.fid);
}

static int pl_mr_bind_ep(struct pl_mr *mr, struct fid *ep, uint64_t flags)
{
	if (!(mr->dom->mr_mode & FI_MR_ENDPOINT))
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	if (mr->ep)
		return -FI_EALREADY;
	/* HOOK(pl_ep): no endpoint reference exists yet; the MR never
	 * reads ep after this, so a closed endpoint is harmless here. */
	mr->ep = ep;
	return 0;
}

static int pl_mr_bind_cntr(struct pl_mr *mr, struct fid_cntr *c,
			   uint64_t flags)
{
	int ret;

	if (!flags)
		return -FI_EINVAL;
	/* fi_mr(3) names FI_REMOTE_WRITE only: a remote write or atomic
	 * that modifies the region counts */
	if (flags & ~(uint64_t)FI_REMOTE_WRITE)
		return -FI_EBADFLAGS;
	if (mr->cntr)
		return -FI_EALREADY;
	/* the twin counts the remote accesses that reach the memory
	 * through its provider (pl_mr_set_twin) */
	if (mr->twin) {
		ret = fi_mr_bind(mr->twin, &c->fid, flags);
		if (ret)
			return ret;
	}
	/* An engine counter (it has a waitable) is referenced, so its
	 * fi_close answers -FI_EBUSY while this MR counts into it, and the
	 * key map counts remote accesses into it (pl_keymap_count). */
	if (pl_cntr_waitable(c)) {
		ret = pl_keymap_bind_cntr(mr->map, mr->key, c, flags);
		if (ret)
			return ret;
		pl_cntr_ref(c);
		mr->cntr_ref = true;
	}
	mr->cntr = c;
	return 0;
}

int pl_mr_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct pl_mr *mr = pl_mr_of(fid);

	if (!mr || !bfid)
		return -FI_EINVAL;
	switch (bfid->fclass) {
	case FI_CLASS_EP:
	case FI_CLASS_SEP:
	case FI_CLASS_CNTR:
		break;
	default:
		return -FI_EINVAL;
	}
	/* fi_mr(3): bind first, then enable */
	if (mr->needs_enable && mr->enabled)
		return -FI_EOPBADSTATE;
	if (bfid->fclass == FI_CLASS_CNTR)
		return pl_mr_bind_cntr(mr, (struct fid_cntr *)bfid, flags);
	return pl_mr_bind_ep(mr, bfid, flags);
}

static int pl_mr_enable(struct pl_mr *mr)
{
	int ret;

	if (mr->enabled)
		return 0;
	if ((mr->dom->mr_mode & FI_MR_ENDPOINT) && !mr->ep)
		return -FI_EOPBADSTATE;
	if (mr->twin) {
		ret = fi_mr_enable(mr->twin);
		if (ret)
			return ret;
	}
	ret = pl_keymap_enable(mr->map, mr->key);
	if (ret)
		return ret;
	mr->enabled = true;
	return 0;
}

/* Does [base, base+len) lie inside one of the MR's buffers? */
static bool pl_mr_covers(const struct pl_mr *mr, uint64_t base, uint64_t len)
{
	for (size_t i = 0; i < mr->iov_count; i++) {
		uint64_t b = (uint64_t)(uintptr_t)mr->iov[i].iov_base;
		uint64_t l = mr->iov[i].iov_len;

		if (base >= b && base - b <= l && len <= l - (base - b))
			return true;
	}
	return false;
}

static int pl_mr_refresh(struct pl_mr *mr, const struct fi_mr_modify *mod)
{
	const struct fi_mr_attr *a;

	if (!mod)
		return -FI_EINVAL;
	if (mod->flags)
		return -FI_EBADFLAGS;
	a = &mod->attr;
	if (a->iov_count && !a->mr_iov)
		return -FI_EINVAL;
	for (size_t i = 0; i < a->iov_count; i++)
		if (!pl_mr_covers(mr, (uint64_t)(uintptr_t)a->mr_iov[i].iov_base,
				  a->mr_iov[i].iov_len))
			return -FI_EINVAL;
	/* System memory: the pages are the process's own, there is no
	 * device translation to rebuild; the checks are the refresh. */
	return 0;
}

static int pl_mr_raw_attr(struct pl_mr *mr, struct fi_mr_raw_attr *ra)
{
	if (!ra || !ra->key_size)
		return -FI_EINVAL;
	if (ra->flags)
		return -FI_EBADFLAGS;
	if (*ra->key_size < PL_MR_RAW_KEY_SIZE) {
		*ra->key_size = PL_MR_RAW_KEY_SIZE;	/* fi_mr(3) */
		return -FI_ETOOSMALL;
	}
	if (!ra->raw_key)
		return -FI_EINVAL;
	memcpy(ra->raw_key, &mr->key, PL_MR_RAW_KEY_SIZE);
	*ra->key_size = PL_MR_RAW_KEY_SIZE;
	if (ra->base_addr)
		*ra->base_addr = (mr->dom->mr_mode & FI_MR_VIRT_ADDR) ?
				 mr->base : 0;
	return 0;
}

int pl_mr_control(struct fid *fid, int command, void *arg)
{
	struct pl_mr *mr = pl_mr_of(fid);

	if (!mr)
		return -FI_EINVAL;
	switch (command) {
	case FI_ENABLE:
		return pl_mr_enable(mr);
	case FI_REFRESH:
		return pl_mr_refresh(mr, arg);
	case FI_GET_RAW_MR:
		return pl_mr_raw_attr(mr, arg);
	default:
		return -FI_ENOSYS;
	}
}

int pl_mr_domain_control(struct pl_domain *dom, int command, void *arg)
{
	struct fi_mr_map_raw *m = arg;

	if (!dom || !arg)
		return -FI_EINVAL;
	switch (command) {
	case FI_MAP_RAW_MR:
		if (m->flags)
			return -FI_EBADFLAGS;
		if (!m->raw_key || !m->key ||
		    m->key_size != PL_MR_RAW_KEY_SIZE)
			return -FI_EINVAL;
		memcpy(m->key, m->raw_key, PL_MR_RAW_KEY_SIZE);
		return 0;
	case FI_UNMAP_KEY:
		return 0;	/* a mapped key holds nothing */
	default:
		return -FI_ENOSYS;
	}
}
