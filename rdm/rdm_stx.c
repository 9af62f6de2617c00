/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared transmit contexts for RDM providers (rdm_stx.h). */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_log.h"
#include "rdm_ep.h"
#include "rdm_stx.h"

static struct fi_ops rdm_stx_fid_ops;

static struct rdm_stx *rdm_stx_of(struct fid *fid)
{
	if (!fid || fid->fclass != FI_CLASS_STX_CTX ||
	    fid->ops != &rdm_stx_fid_ops)
		return NULL;
	return pl_container_of(fid, struct rdm_stx, stx_fid.fid);
}

static int rdm_stx_close(struct fid *fid)
{
	struct rdm_stx *stx = rdm_stx_of(fid);

	if (!stx)
		return -FI_EINVAL;
	/* acquire: pairs with the acq_rel decrement of rdm_stx_put */
	if (pl_load_acquire(&stx->refs))
		return -FI_EBUSY;
	pl_domain_child_put(stx->dom);
	free(stx);
	return 0;
}

static struct fi_ops rdm_stx_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rdm_stx_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/* The size a context reports when the application asks none (0 means
 * "the provider's choice"); caps and iov_limit 0 take any endpoint. */
#define RDM_STX_SIZE_DEFAULT	4096
/* The capabilities that concern transmission. */
#define RDM_STX_OP_CAPS	(FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC)

int rdm_stx_open(struct fid_domain *domain, struct fi_tx_attr *attr,
		 struct fid_stx **stx_p, void *context)
{
	struct pl_domain *dom = pl_domain_of(domain);
	struct rdm_stx *stx;

	if (!dom || !stx_p)
		return -FI_EINVAL;
	stx = calloc(1, sizeof(*stx));
	if (!stx)
		return -FI_ENOMEM;
	if (attr)
		stx->attr = *attr;
	if (!stx->attr.size)
		stx->attr.size = RDM_STX_SIZE_DEFAULT;
	if (attr)
		attr->size = stx->attr.size;
	stx->dom = dom;
	stx->stx_fid.fid.fclass = FI_CLASS_STX_CTX;
	stx->stx_fid.fid.context = context;
	stx->stx_fid.fid.ops = &rdm_stx_fid_ops;
	stx->stx_fid.ops = (struct fi_ops_ep *)&pl_fid_nosys_ep_ops;
	pl_domain_child_get(dom);
	*stx_p = &stx->stx_fid;
	return 0;
}

int rdm_stx_bind_ep(struct fid *stx_fid, struct rdm_ep *ep, uint64_t flags)
{
	struct rdm_stx *stx = rdm_stx_of(stx_fid);

	if (!stx || flags)
		return -FI_EINVAL;
	if (ep->base.enabled)
		return -FI_EOPBADSTATE;
	if (ep->stx || stx->dom != ep->base.dom)
		return -FI_EINVAL;
	/* the endpoint uses a subset of the context's attributes
	 * (fi_endpoint(3), fi_stx_context) */
	if ((stx->attr.caps &&
	     (ep->base.caps & RDM_STX_OP_CAPS & ~stx->attr.caps)) ||
	    (stx->attr.iov_limit && ep->iov_limit > stx->attr.iov_limit)) {
		PL_WARN(FI_LOG_EP_CTRL, "fi_ep_bind: the endpoint's transmit "
			"attributes exceed the shared context's\n");
		return -FI_EINVAL;
	}
	/* acq_rel: see struct rdm_stx */
	pl_fetch_add_acq_rel(&stx->refs, 1);
	ep->stx = stx;
	return 0;
}

void rdm_stx_put(struct rdm_stx *stx)
{
	/* acq_rel: the endpoint's last use is released to close's load */
	pl_fetch_sub_acq_rel(&stx->refs, 1);
}
