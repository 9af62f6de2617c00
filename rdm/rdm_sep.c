/* SPDX-License-Identifier: BSD-2-Clause */
/* Scalable endpoints over the RDM endpoint core (rdm_sep.h). */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_fid_nosys.h"
#include "pl_log.h"
#include "rdm_ep_mrecv.h"
#include "rdm_sep.h"

static struct fi_ops rdm_sep_view_fid_ops;
static struct fi_ops_ep rdm_sep_view_ep_ops;

static struct rdm_ep *rdm_sep_view_of(struct fid *fid)
{
	if (!fid || fid->ops != &rdm_sep_view_fid_ops)
		return NULL;
	return (struct rdm_ep *)fid;	/* base.ep_fid.fid is first */
}

/* The state slot of view v in its scalable endpoint's tables. */
static enum rdm_sep_state *rdm_sep_state_of(struct rdm_ep *v)
{
	struct rdm_sep *sep = v->xport->sep;
	size_t i;

	if (v->view == RDM_VIEW_TX) {
		for (i = 0; i < sep->ntx; i++)
			if (sep->tx[i] == v)
				return &sep->tx_state[i];
	} else {
		for (i = 0; i < sep->nrx; i++)
			if (sep->rx[i] == v)
				return &sep->rx_state[i];
	}
	return NULL;
}

/* Give the messages queued for receive context v back to the transport
 * (their senders complete as if received). Under the lock. */
static void rdm_sep_view_drop_ux(struct rdm_ep *v)
{
	struct rdm_ep *own = v->xport;
	struct pl_match_unexp *ux, *next;
	int k;

	for (k = 0; k < PL_MATCH_KINDS; k++)
		for (ux = pl_match_unexp_next(&v->match, k, NULL); ux;
		     ux = next) {
			next = pl_match_unexp_next(&v->match, k, ux);
			if (ux->prov)
				own->tops->rx_discard(own, ux->prov);
			pl_match_unexp_drop(&v->match, ux);
		}
}

static int rdm_sep_view_close(struct fid *fid)
{
	struct rdm_ep *v = rdm_sep_view_of(fid);
	enum rdm_sep_state *st;

	if (!v)
		return -FI_EINVAL;
	st = rdm_sep_state_of(v);
	if (!st || *st != RDM_SEP_OPEN)
		return -FI_EINVAL;
	rdm_ep_lock(v->xport);	/* the scalable endpoint's lock */
	v->closing = true;	/* what is still in flight reports nothing */
	v->ready = false;
	if (v->view == RDM_VIEW_RX)
		rdm_sep_view_drop_ux(v);
	rdm_ep_unlock(v->xport);
	/* its CQs and counters are the application's to close next; the
	 * memory stays until the scalable endpoint closes */
	pl_ep_fini(&v->base);
	*st = RDM_SEP_CLOSED;
	v->xport->naliases--;
	return 0;
}

/* fi_ep_bind on a context: its own CQs and counters; the address vector
 * is the scalable endpoint's (fi_scalable_ep_bind). */
static int rdm_sep_view_bind(struct fid *fid, struct fid *bfid,
			     uint64_t flags)
{
	struct rdm_ep *v = rdm_sep_view_of(fid);

	if (!v || !bfid || (bfid->fclass != FI_CLASS_CQ &&
			    bfid->fclass != FI_CLASS_CNTR))
		return -FI_EINVAL;
	return pl_ep_bind(&v->base, bfid, flags);
}

static int rdm_sep_view_enable(struct rdm_ep *v)
{
	if (v->base.enabled)
		return -FI_EOPBADSTATE;
	v->base.enabled = true;
	rdm_ep_lock(v->xport);
	v->ready = v->xport->ready;	/* else at rdm_sep_ready */
	rdm_ep_unlock(v->xport);
	return 0;
}

static int rdm_sep_view_control(struct fid *fid, int command, void *arg)
{
	struct rdm_ep *v = rdm_sep_view_of(fid);

	if (!v)
		return -FI_EINVAL;
	switch (command) {
	case FI_ENABLE:
		return rdm_sep_view_enable(v);
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		return rdm_ep_alias_opsflag(&v->tx_op_flags, &v->rx_op_flags,
					    command, arg);
	default:
		return -FI_ENOSYS;
	}
}

static int rdm_sep_view_setopt(fid_t fid, int level, int optname,
			       const void *optval, size_t optlen)
{
	struct rdm_ep *v = rdm_sep_view_of(fid);

	if (!v)
		return -FI_EINVAL;
	return rdm_ep_setopt(v, level, optname, optval, optlen);
}

static int rdm_sep_view_getopt(fid_t fid, int level, int optname,
			       void *optval, size_t *optlen)
{
	struct rdm_ep *v = rdm_sep_view_of(fid);

	if (!v)
		return -FI_EINVAL;
	return pl_ep_getopt(&v->base, level, optname, optval, optlen);
}

static struct fi_ops rdm_sep_view_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rdm_sep_view_close,
	.bind = rdm_sep_view_bind,
	.control = rdm_sep_view_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep rdm_sep_view_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = rdm_ep_rx_cancel,
	.getopt = rdm_sep_view_getopt,
	.setopt = rdm_sep_view_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = rdm_ep_rx_size_left,
	.tx_size_left = rdm_ep_tx_size_left,
};

/* A context of owner: the core's endpoint object without a transport. */
static struct rdm_ep *rdm_sep_view_new(struct rdm_ep *owner,
				       struct fid_domain *domain,
				       struct fi_info *info, uint8_t kind)
{
	struct rdm_ep_attr attr = {
		.tops = owner->tops,
		.tx_size = 1,		/* the scalable endpoint's are used */
		.rx_size = owner->rx_size,
		.iov_limit = owner->iov_limit,
		.inject_size = owner->inject_size,
	};
	struct rdm_ep *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (rdm_ep_init(v, domain, info, &attr, NULL)) {
		free(v);
		return NULL;
	}
	v->view = kind;
	/* one transport, one lock: data calls lock through xport */
	v->xport = owner;
	v->base.ep_fid.fid.fclass = kind == RDM_VIEW_TX ? FI_CLASS_TX_CTX :
							  FI_CLASS_RX_CTX;
	v->base.ep_fid.fid.ops = &rdm_sep_view_fid_ops;
	v->base.ep_fid.ops = &rdm_sep_view_ep_ops;
	v->base.ep_fid.cm = (struct fi_ops_cm *)&pl_fid_nosys_cm_ops;
	v->base.ep_fid.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops;
	v->base.ep_fid.atomic =
		(struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	return v;
}

static void rdm_sep_view_free(struct rdm_ep *v)
{
	if (!v)
		return;
	rdm_ep_fini(v);
	free(v);
}

/* fi_tx_context / fi_rx_context: hand out context index of one way. */
static int rdm_sep_ctx_get(struct fid_ep *sep_fid, uint8_t kind, int index,
			   uint64_t *op_flags, struct fid_ep **ctx_p,
			   void *context)
{
	struct rdm_ep *ep = rdm_ep_of_fid(&sep_fid->fid);
	struct rdm_sep *sep = ep->sep;
	size_t n = kind == RDM_VIEW_TX ? sep->ntx : sep->nrx;
	enum rdm_sep_state *st;
	struct rdm_ep *v;

	if (!ctx_p || index < 0 || (size_t)index >= n)
		return -FI_EINVAL;
	v = kind == RDM_VIEW_TX ? sep->tx[index] : sep->rx[index];
	st = kind == RDM_VIEW_TX ? &sep->tx_state[index] :
				   &sep->rx_state[index];
	if (*st != RDM_SEP_UNUSED) {
		PL_WARN(FI_LOG_EP_CTRL, "fi_%s_context: context %d is %s\n",
			kind == RDM_VIEW_TX ? "tx" : "rx", index,
			*st == RDM_SEP_OPEN ? "open already" :
			"closed (contexts are not reopened)");
		return -FI_EBUSY;
	}
	if (op_flags && *op_flags) {
		if (kind == RDM_VIEW_TX)
			v->tx_op_flags = *op_flags;
		else
			v->rx_op_flags = *op_flags;
	}
	if (op_flags)
		*op_flags = kind == RDM_VIEW_TX ? v->tx_op_flags :
						  v->rx_op_flags;
	v->base.ep_fid.fid.context = context;
	*st = RDM_SEP_OPEN;
	ep->naliases++;		/* the scalable endpoint's close waits */
	*ctx_p = &v->base.ep_fid;
	return 0;
}

static int rdm_sep_tx_ctx(struct fid_ep *sep, int index,
			  struct fi_tx_attr *attr, struct fid_ep **tx_ep,
			  void *context)
{
	struct rdm_ep *ep = rdm_ep_of_fid(&sep->fid);
	int ret;

	ret = rdm_sep_ctx_get(sep, RDM_VIEW_TX, index,
			      attr ? &attr->op_flags : NULL, tx_ep, context);
	if (!ret && attr) {
		/* what the context has: the scalable endpoint's */
		attr->size = ep->ntxe;
		attr->iov_limit = ep->iov_limit;
		attr->inject_size = ep->inject_size;
	}
	return ret;
}

static int rdm_sep_rx_ctx(struct fid_ep *sep, int index,
			  struct fi_rx_attr *attr, struct fid_ep **rx_ep,
			  void *context)
{
	struct rdm_ep *ep = rdm_ep_of_fid(&sep->fid);
	int ret;

	ret = rdm_sep_ctx_get(sep, RDM_VIEW_RX, index,
			      attr ? &attr->op_flags : NULL, rx_ep, context);
	if (!ret && attr) {
		attr->size = ep->rx_size;
		attr->iov_limit = ep->iov_limit;
	}
	return ret;
}

static struct rdm_ep **rdm_sep_views_new(struct rdm_ep *ep,
					 struct fid_domain *domain,
					 struct fi_info *info, uint8_t kind,
					 size_t n)
{
	struct rdm_ep **v = calloc(n, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		v[i] = rdm_sep_view_new(ep, domain, info, kind);
		if (!v[i]) {
			while (i--)
				rdm_sep_view_free(v[i]);
			free(v);
			return NULL;
		}
	}
	return v;
}

static size_t rdm_sep_count(size_t want)
{
	return want ? want : 1;
}

int rdm_sep_init(struct rdm_ep *ep, struct fid_domain *domain,
		 struct fi_info *info)
{
	struct rdm_sep *sep;
	size_t ntx, nrx;

	if (!info || !info->ep_attr || ep->base.enabled)
		return -FI_EINVAL;
	ntx = rdm_sep_count(info->ep_attr->tx_ctx_cnt);
	nrx = rdm_sep_count(info->ep_attr->rx_ctx_cnt);
	if (ntx > RDM_SEP_CTX_MAX || nrx > RDM_SEP_CTX_MAX) {
		PL_WARN(FI_LOG_EP_CTRL, "fi_scalable_ep: %zu/%zu contexts, at "
			"most %d each way (FI_SHARED_CONTEXT is not one)\n",
			ntx, nrx, RDM_SEP_CTX_MAX);
		return -FI_EINVAL;
	}
	sep = calloc(1, sizeof(*sep));
	if (!sep)
		return -FI_ENOMEM;
	sep->ntx = ntx;
	sep->nrx = nrx;
	sep->tx_state = calloc(ntx, sizeof(*sep->tx_state));
	sep->rx_state = calloc(nrx, sizeof(*sep->rx_state));
	if (!sep->tx_state || !sep->rx_state)
		goto err;
	sep->tx = rdm_sep_views_new(ep, domain, info, RDM_VIEW_TX, ntx);
	if (!sep->tx)
		goto err;
	sep->rx = rdm_sep_views_new(ep, domain, info, RDM_VIEW_RX, nrx);
	if (!sep->rx)
		goto err;
	sep->ops = *ep->base.ep_fid.ops;
	sep->ops.tx_ctx = rdm_sep_tx_ctx;
	sep->ops.rx_ctx = rdm_sep_rx_ctx;
	ep->sep = sep;
	/* fi_endpoint(3): a scalable endpoint carries no data itself */
	ep->base.ep_fid.fid.fclass = FI_CLASS_SEP;
	ep->base.ep_fid.ops = &sep->ops;
	ep->base.ep_fid.msg = (struct fi_ops_msg *)&pl_fid_nosys_msg_ops;
	ep->base.ep_fid.tagged =
		(struct fi_ops_tagged *)&pl_fid_nosys_tagged_ops;
	ep->base.ep_fid.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops;
	ep->base.ep_fid.atomic =
		(struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	return 0;

err:
	if (sep->tx)
		for (size_t i = 0; i < ntx; i++)
			rdm_sep_view_free(sep->tx[i]);
	free(sep->tx);
	free(sep->tx_state);
	free(sep->rx_state);
	free(sep);
	return -FI_ENOMEM;
}

int rdm_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_p, void *context,
		 int (*ep_open)(struct fid_domain *, struct fi_info *,
				struct fid_ep **, void *))
{
	struct fid_ep *e;
	int ret;

	if (!info || !sep_p)
		return -FI_EINVAL;
	if (info->caps & (FI_RMA | FI_ATOMIC)) {
		PL_WARN(FI_LOG_EP_CTRL, "fi_scalable_ep: contexts carry "
			"messages only, not FI_RMA or FI_ATOMIC\n");
		return -FI_EOPNOTSUPP;
	}
	ret = ep_open(domain, info, &e, context);
	if (ret)
		return ret;
	ret = rdm_sep_init(rdm_ep_of_fid(&e->fid), domain, info);
	if (ret) {
		fi_close(&e->fid);
		return ret;
	}
	*sep_p = e;
	return 0;
}

void rdm_sep_ready(struct rdm_ep *ep)
{
	struct rdm_sep *sep = ep->sep;
	size_t i;

	rdm_ep_lock(ep);
	for (i = 0; i < sep->ntx; i++)
		if (sep->tx_state[i] == RDM_SEP_OPEN &&
		    sep->tx[i]->base.enabled)
			sep->tx[i]->ready = true;
	for (i = 0; i < sep->nrx; i++)
		if (sep->rx_state[i] == RDM_SEP_OPEN &&
		    sep->rx[i]->base.enabled)
			sep->rx[i]->ready = true;
	rdm_ep_unlock(ep);
}

void rdm_sep_close_rx(struct rdm_ep *ep)
{
	struct rdm_sep *sep = ep->sep;
	size_t i;

	for (i = 0; i < sep->ntx; i++)
		sep->tx[i]->closing = true;
	for (i = 0; i < sep->nrx; i++) {
		sep->rx[i]->closing = true;
		rdm_sep_view_drop_ux(sep->rx[i]);
	}
}

void rdm_sep_fini(struct rdm_ep *ep)
{
	struct rdm_sep *sep = ep->sep;
	size_t i;

	for (i = 0; i < sep->ntx; i++)
		rdm_sep_view_free(sep->tx[i]);
	for (i = 0; i < sep->nrx; i++)
		rdm_sep_view_free(sep->rx[i]);
	free(sep->tx);
	free(sep->rx);
	free(sep->tx_state);
	free(sep->rx_state);
	free(sep);
	ep->sep = NULL;
}
