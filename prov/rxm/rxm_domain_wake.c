/* SPDX-License-Identifier: BSD-2-Clause */
/* The wait sets of an rxm domain (rxm_domain_wake.h). */
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "rxm_domain_wake.h"

/* Wakes only: the endpoints' own sources do the work in the same pass. */
static int rxm_domain_wake_poll(struct pl_progress_source *src,
				unsigned budget)
{
	(void)src;
	(void)budget;
	return 0;
}

/* Drains the set's descriptor; -FI_EAGAIN while a member has something
 * to read (every member is looked at, and armed, each time). */
static int rxm_domain_wake_trywait(struct rxm_domain_wake *w)
{
	struct fid *set = &w->set->fid;

	return fi_trywait(w->core_fabric, &set, 1);
}

static int rxm_domain_wake_arm(struct pl_progress_source *src)
{
	return rxm_domain_wake_trywait(
		pl_container_of(src, struct rxm_domain_wake, src));
}

static int rxm_domain_wake_bg_arm(struct pl_progress_source *src)
{
	return rxm_domain_wake_trywait(
		pl_container_of(src, struct rxm_domain_wake, bg_src));
}

int rxm_domain_wake_open(struct rxm_domain_wake *w,
			 struct fid_fabric *core_fabric,
			 struct pl_progress_ctx *ctx,
			 struct pl_progress_ctx *bg_ctx, const char *name)
{
	struct fi_wait_attr attr = { .wait_obj = FI_WAIT_FD };
	int fd = -1, ret;

	memset(w, 0, sizeof(*w));
	w->core_fabric = core_fabric;
	ret = fi_wait_open(core_fabric, &attr, &w->set);
	if (ret)
		return ret;
	ret = fi_control(&w->set->fid, FI_GETWAIT, &fd);
	if (ret)
		goto err;
	w->src = (struct pl_progress_source){
		.poll = rxm_domain_wake_poll,
		.arm = rxm_domain_wake_arm,
		.fd = fd,
		.name = name,
	};
	ret = pl_progress_source_add(ctx, &w->src);
	if (ret)
		goto err;
	w->ctx = ctx;
	if (bg_ctx) {
		w->bg_src = w->src;
		w->bg_src.arm = rxm_domain_wake_bg_arm;
		w->bg_src.ctx = NULL;
		w->bg_src.slot = 0;
		ret = pl_progress_source_add(bg_ctx, &w->bg_src);
		if (ret)
			goto err;
		w->bg_ctx = bg_ctx;
	}
	return 0;
err:
	rxm_domain_wake_close(w);
	return ret;
}

void rxm_domain_wake_close(struct rxm_domain_wake *w)
{
	if (w->bg_ctx)
		(void)pl_progress_source_remove(w->bg_ctx, &w->bg_src);
	w->bg_ctx = NULL;
	if (w->ctx)
		(void)pl_progress_source_remove(w->ctx, &w->src);
	w->ctx = NULL;
	if (w->set)
		(void)fi_close(&w->set->fid);
	w->set = NULL;
}
