/* SPDX-License-Identifier: BSD-2-Clause */
/* Generic memory region (pl_mr.h): registration and close. */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_rcu.h"
#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_mr.h"

/* Provider keys: unique in the process, so unique in every map. */
static pl_atomic_u64 pl_mr_next_key = 1;

static int pl_mr_close(struct fid *fid)
{
	struct pl_mr *mr;

	if (!fid)
		return -FI_EINVAL;
	mr = pl_container_of(fid, struct pl_mr, mr_fid.fid);
	/* acquire: pairs with the acq_rel decrement in pl_mr_unref */
	if (pl_load_acquire(&mr->refs) != 0)
		return -FI_EBUSY;
	/* the twin first: once it is gone no peer reaches the memory, and
	 * if it cannot go, both stay as they were */
	if (mr->twin) {
		int ret = fi_close(&mr->twin->fid);

		if (ret)
			return ret;
		mr->twin = NULL;
	}
	pl_keymap_remove(mr->map, mr->key);
	if (mr->cntr_ref) {
		/* a remote access counting into the counter may still be
		 * inside its read-side section (pl_keymap_count): once the
		 * removed entry's reclaim has run, none is */
		pl_rcu_barrier();
		pl_cntr_unref(mr->cntr);
	}
	pl_domain_child_put(mr->dom);
	free(mr);
	return 0;
}

static struct fi_ops pl_mr_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_mr_close,
	.bind = pl_mr_bind,
	.control = pl_mr_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/* The flags a registration call may carry in this domain. */
static uint64_t pl_mr_reg_flags(const struct pl_domain *dom)
{
	return (dom->mr_mode & FI_MR_RMA_EVENT) ? FI_RMA_EVENT : 0;
}

/* Checks shared by reg, regv and regattr, before anything is allocated. */
static int pl_mr_check_args(struct pl_domain *dom, struct pl_keymap *map,
			    const struct iovec *iov, size_t count,
			    uint64_t access, uint64_t flags,
			    struct fid_mr **mr_p)
{
	if (!dom || !map || !iov || !mr_p || !count ||
	    (access & ~(uint64_t)PL_MR_ACCESS_BITS))
		return -FI_EINVAL;
	if (count > dom->mr_iov_limit)
		return -FI_EINVAL;
	for (size_t i = 0; i < count; i++)
		if (!iov[i].iov_base || !iov[i].iov_len)
			return -FI_EINVAL;
	if (flags & ~pl_mr_reg_flags(dom))
		return -FI_EBADFLAGS;
	return 0;
}

static int pl_mr_create(struct pl_domain *dom, struct pl_keymap *map,
			const struct iovec *iov, size_t count,
			uint64_t access, uint64_t requested_key,
			uint64_t flags, struct fid_mr **mr_p, void *context)
{
	struct pl_mr *mr;
	uint64_t key, len = 0;
	int ret;

	ret = pl_mr_check_args(dom, map, iov, count, access, flags, mr_p);
	if (ret)
		return ret;
	if (dom->mr_mode & FI_MR_PROV_KEY) {
		/* relaxed: only uniqueness matters */
		key = pl_fetch_add_relaxed(&pl_mr_next_key, 1);
	} else {
		if (requested_key == FI_KEY_NOTAVAIL)
			return -FI_EKEYREJECTED;
		key = requested_key;
	}
	mr = calloc(1, sizeof(*mr) + count * sizeof(mr->iov[0]));
	if (!mr)
		return -FI_ENOMEM;
	mr->needs_enable = (dom->mr_mode & FI_MR_ENDPOINT) ||
			   (flags & FI_RMA_EVENT);
	/* a disabled MR reserves its key: a second MR cannot take it */
	ret = pl_keymap_insertv(map, key, iov, count, access,
				!mr->needs_enable);
	if (ret)
		goto err_free;
	for (size_t i = 0; i < count; i++) {
		mr->iov[i] = iov[i];
		len += iov[i].iov_len;	/* no overflow: the map checked */
	}
	mr->iov_count = count;
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = context;
	mr->mr_fid.fid.ops = &pl_mr_fid_ops;
	mr->mr_fid.mem_desc = mr;
	/* fi_mr(3): with FI_MR_RAW the key comes from fi_mr_raw_attr */
	mr->mr_fid.key = (dom->mr_mode & FI_MR_RAW) ? FI_KEY_NOTAVAIL : key;
	mr->key = key;
	mr->dom = dom;
	mr->map = map;
	mr->base = (uint64_t)(uintptr_t)iov[0].iov_base;
	mr->len = len;
	mr->access = access;
	mr->enabled = !mr->needs_enable;
	pl_store_relaxed(&mr->refs, 0);	/* published with *mr_p */
	pl_domain_child_get(dom);
	*mr_p = &mr->mr_fid;
	return 0;
err_free:
	free(mr);
	return ret;
}

int pl_mr_reg(struct pl_domain *dom, struct pl_keymap *map, const void *buf,
	      size_t len, uint64_t access, uint64_t offset,
	      uint64_t requested_key, uint64_t flags, struct fid_mr **mr_p,
	      void *context)
{
	struct iovec iov = { (void *)buf, len };

	(void)offset;	/* reserved by fi_mr(3) */
	return pl_mr_create(dom, map, &iov, 1, access, requested_key, flags,
			    mr_p, context);
}

int pl_mr_regv(struct pl_domain *dom, struct pl_keymap *map,
	       const struct iovec *iov, size_t count, uint64_t access,
	       uint64_t offset, uint64_t requested_key, uint64_t flags,
	       struct fid_mr **mr_p, void *context)
{
	(void)offset;	/* reserved by fi_mr(3) */
	return pl_mr_create(dom, map, iov, count, access, requested_key,
			    flags, mr_p, context);
}

int pl_mr_regattr(struct pl_domain *dom, struct pl_keymap *map,
		  const struct fi_mr_attr *attr, uint64_t flags,
		  struct fid_mr **mr_p)
{
	if (!attr)
		return -FI_EINVAL;
	/* Only the 1.17 fields exist: an application built against 1.17
	 * passes a struct that ends at the device union. */
	if (attr->auth_key || attr->auth_key_size)
		return -FI_EINVAL;
	switch (attr->iface) {
	case FI_HMEM_SYSTEM:
		break;	/* device is not interpreted for system memory */
	case FI_HMEM_CUDA:
	case FI_HMEM_ROCR:
	case FI_HMEM_ZE:
	case FI_HMEM_NEURON:
	case FI_HMEM_SYNAPSEAI:
		return -FI_ENOSYS;
	default:
		return -FI_EINVAL;
	}
	return pl_mr_create(dom, map, attr->mr_iov, attr->iov_count,
			    attr->access, attr->requested_key, flags, mr_p,
			    attr->context);
}

int pl_mr_set_twin(struct fid_mr *mr, struct fid_mr *twin)
{
	struct pl_mr *m;

	if (!mr || !twin)
		return -FI_EINVAL;
	m = pl_container_of(mr, struct pl_mr, mr_fid);
	if (m->twin)
		return -FI_EINVAL;
	m->twin = twin;
	return 0;
}

void pl_mr_ref(struct fid_mr *mr)
{
	struct pl_mr *m = pl_container_of(mr, struct pl_mr, mr_fid);
	/* acq_rel: pairs with the acquire load in pl_mr_close */
	pl_fetch_add_acq_rel(&m->refs, 1);
}

void pl_mr_unref(struct fid_mr *mr)
{
	struct pl_mr *m = pl_container_of(mr, struct pl_mr, mr_fid);
	/* acq_rel: pairs with the acquire load in pl_mr_close */
	pl_fetch_sub_acq_rel(&m->refs, 1);
}
