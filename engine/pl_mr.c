/* SPDX-License-Identifier: BSD-2-Clause */
/* Generic memory region (pl_mr.h). */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_mr.h"

/* Provider keys: unique in the process, so unique in every map. */
static pl_atomic_u64 pl_mr_next_key = 1;

static int pl_mr_close(struct fid *fid)
{
	struct pl_mr *mr = pl_container_of(fid, struct pl_mr, mr_fid.fid);

	/* acquire: pairs with the acq_rel decrement in pl_mr_unref */
	if (pl_load_acquire(&mr->refs) != 0)
		return -FI_EBUSY;
	pl_keymap_remove(mr->map, mr->mr_fid.key);
	pl_domain_child_put(mr->dom);
	free(mr);
	return 0;
}

static struct fi_ops pl_mr_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_mr_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

int pl_mr_reg(struct pl_domain *dom, struct pl_keymap *map, const void *buf,
	      size_t len, uint64_t access, uint64_t offset,
	      uint64_t requested_key, uint64_t flags, struct fid_mr **mr_p,
	      void *context)
{
	struct pl_mr *mr;
	uint64_t key;
	int ret;

	(void)offset;
	if (!dom || !map || !buf || !mr_p || !len ||
	    (access & ~(uint64_t)PL_MR_ACCESS_BITS))
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	/* relaxed: only uniqueness matters */
	key = (dom->mr_mode & FI_MR_PROV_KEY) ?
	      pl_fetch_add_relaxed(&pl_mr_next_key, 1) : requested_key;
	ret = pl_keymap_insert(map, key, (uint64_t)(uintptr_t)buf, len, access);
	if (ret)
		goto err_free;
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = context;
	mr->mr_fid.fid.ops = &pl_mr_fid_ops;
	mr->mr_fid.mem_desc = mr;
	mr->mr_fid.key = key;
	mr->dom = dom;
	mr->map = map;
	mr->base = (uint64_t)(uintptr_t)buf;
	mr->len = len;
	mr->access = access;
	pl_domain_child_get(dom);
	*mr_p = &mr->mr_fid;
	return 0;
err_free:
	free(mr);
	return ret;
}

void pl_mr_ref(struct fid_mr *mr)
{
	struct pl_mr *m = pl_container_of(mr, struct pl_mr, mr_fid);
	pl_fetch_add_acq_rel(&m->refs, 1);
}

void pl_mr_unref(struct fid_mr *mr)
{
	struct pl_mr *m = pl_container_of(mr, struct pl_mr, mr_fid);
	pl_fetch_sub_acq_rel(&m->refs, 1);
}
