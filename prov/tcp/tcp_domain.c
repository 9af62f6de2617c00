/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp domain: the engine's generic domain (progress context,
 * threading, mr_mode), the key map its MRs register into (an RMA target
 * checks every remote access against it), and the data set: the epoll
 * set of the domain's connected sockets, registered as the context's one
 * source (tcp_prov.h). CQs, counters, poll sets and MRs are the engine's.
 */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_cq.h"
#include "pl_fid_nosys.h"
#include "pl_mr.h"
#include "pl_poll.h"
#include "tcp_params.h"
#include "tcp_prov.h"

static struct fi_ops tcp_domain_fid_ops;

struct tcp_domain *tcp_domain_of(struct fid_domain *d)
{
	if (!d || d->fid.fclass != FI_CLASS_DOMAIN ||
	    d->fid.ops != &tcp_domain_fid_ops)
		return NULL;
	return pl_container_of(d, struct tcp_domain, base.domain_fid);
}

static int tcp_domain_close(struct fid *fid)
{
	struct tcp_domain *d = pl_container_of(fid, struct tcp_domain,
					       base.domain_fid.fid);
	struct pl_progress_ctx *ctx = d->base.ctx;
	int ret;

	/* children first: pl_domain_fini refuses while any remains, and
	 * the source must stay until then; acquire: pairs with
	 * pl_domain_child_put's acq_rel decrement */
	if (pl_load_acquire(&d->base.children))
		return -FI_EBUSY;
	(void)pl_progress_source_remove(ctx, &d->data_set.src);
	ret = pl_domain_fini(&d->base);
	if (ret) {
		(void)pl_progress_source_add(ctx, &d->data_set.src);
		return ret;
	}
	tcp_fabric_watch_leave(d->fab, d);
	tcp_sockset_fini(&d->data_set);
	pl_keymap_fini(&d->keymap);
	free(d);
	return 0;
}

static int tcp_domain_mr_reg(struct fid *fid, const void *buf, size_t len,
			     uint64_t access, uint64_t offset,
			     uint64_t requested_key, uint64_t flags,
			     struct fid_mr **mr_p, void *context)
{
	struct tcp_domain *d = tcp_domain_of((struct fid_domain *)fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_reg(&d->base, &d->keymap, buf, len, access, offset,
			 requested_key, flags, mr_p, context);
}

static int tcp_domain_mr_regv(struct fid *fid, const struct iovec *iov,
			      size_t count, uint64_t access, uint64_t offset,
			      uint64_t requested_key, uint64_t flags,
			      struct fid_mr **mr_p, void *context)
{
	struct tcp_domain *d = tcp_domain_of((struct fid_domain *)fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_regv(&d->base, &d->keymap, iov, count, access, offset,
			  requested_key, flags, mr_p, context);
}

static int tcp_domain_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
				 uint64_t flags, struct fid_mr **mr_p)
{
	struct tcp_domain *d = tcp_domain_of((struct fid_domain *)fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_regattr(&d->base, &d->keymap, attr, flags, mr_p);
}

static int tcp_domain_control(struct fid *fid, int command, void *arg)
{
	struct tcp_domain *d = tcp_domain_of((struct fid_domain *)fid);

	if (!d)
		return -FI_EINVAL;
	return pl_mr_domain_control(&d->base, command, arg);
}

static struct fi_ops tcp_domain_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = tcp_domain_close,
	.bind = pl_domain_bind,
	.control = tcp_domain_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_domain tcp_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = pl_fid_nosys_domain_av_open,	/* MSG endpoints only */
	.cq_open = pl_cq_open,
	.endpoint = tcp_ep_open,
	.scalable_ep = pl_fid_nosys_domain_scalable_ep,
	.cntr_open = pl_cntr_open,
	.poll_open = pl_poll_open,
	.stx_ctx = pl_fid_nosys_domain_stx_ctx,
	.srx_ctx = tcp_srx_open,
	.query_atomic = pl_fid_nosys_domain_query_atomic,
	.query_collective = pl_fid_nosys_domain_query_collective,
	.endpoint2 = pl_fid_nosys_domain_endpoint2,
};

static struct fi_ops_mr tcp_domain_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = tcp_domain_mr_reg,
	.regv = tcp_domain_mr_regv,
	.regattr = tcp_domain_mr_regattr,
};

/* fi_domain, and fi_domain2's flags (pl_domain_init2: FI_PEER joins a
 * propel owner's progress context, docs/peer.md). */
static int tcp_domain_open_flags(struct fid_fabric *fabric,
				 struct fi_info *info,
				 struct fid_domain **domain_p, uint64_t flags,
				 void *context)
{
	struct tcp_fabric *fab;
	struct tcp_domain *d;
	int ret;

	if (!fabric || !info || !info->domain_attr || !domain_p)
		return -FI_EINVAL;
	fab = pl_container_of(fabric, struct tcp_fabric, base.fabric_fid);
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FI_ENOMEM;
	d->fab = fab;
	ret = pl_keymap_init(&d->keymap);
	if (ret)
		goto err_free;
	ret = pl_domain_init2(&d->base, fabric, info, fabric->api_version ?
			      fabric->api_version : FI_VERSION(1, 17), 0,
			      flags, context);
	if (ret)
		goto err_keymap;
	d->virt_addr = (d->base.mr_mode & FI_MR_VIRT_ADDR) != 0;
	/* the domain's progress, not info's: a peer domain takes its
	 * owner's */
	d->coalesce = tcp_params_get()->tx_coalesce &&
		      d->base.data_progress != FI_PROGRESS_AUTO;
	/* the sockets go straight into the domain's context's set (see
	 * tcp_sockset.shared); a context with no set (a forked child's:
	 * the call answers -FI_E*) gets one of the set's own */
	ret = tcp_sockset_init(&d->data_set, "tcp data", true,
			       pl_progress_ctx_wait_fd(d->base.ctx));
	if (ret)
		goto err_domain;
	d->data_set.on_detach = tcp_fabric_watch_arm;
	d->data_set.on_detach_arg = fab;
	ret = pl_progress_source_add(d->base.ctx, &d->data_set.src);
	if (ret)
		goto err_set;
	tcp_fabric_watch_join(fab, d);
	d->base.domain_fid.fid.ops = &tcp_domain_fid_ops;
	d->base.domain_fid.ops = &tcp_domain_ops;
	d->base.domain_fid.mr = &tcp_domain_mr_ops;
	*domain_p = &d->base.domain_fid;
	return 0;

err_set:
	tcp_sockset_fini(&d->data_set);
err_domain:
	(void)pl_domain_fini(&d->base);
err_keymap:
	pl_keymap_fini(&d->keymap);
err_free:
	free(d);
	return ret;
}

int tcp_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context)
{
	return tcp_domain_open_flags(fabric, info, domain_p, 0, context);
}

int tcp_domain_open2(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain_p, uint64_t flags,
		     void *context)
{
	return tcp_domain_open_flags(fabric, info, domain_p, flags, context);
}
