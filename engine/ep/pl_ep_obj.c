/* SPDX-License-Identifier: BSD-2-Clause */
/* The generic endpoint object (pl_ep.h): bind with references, enable
 * checks, endpoint options, per fi_endpoint(3). */
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>

#include "pl_av.h"
#include "pl_cntr.h"
#include "pl_cq.h"
#include "pl_domain.h"
#include "pl_ep.h"
#include "pl_eq.h"
#include "pl_log.h"

int pl_ep_init(struct pl_ep *ep, struct fid_domain *d,
	       const struct fi_info *info, void *context)
{
	struct pl_domain *dom = pl_domain_of(d);

	if (!ep || !dom)
		return -FI_EINVAL;
	memset(ep, 0, sizeof(*ep));
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->dom = dom;
	ep->type = (info && info->ep_attr && info->ep_attr->type) ?
		   info->ep_attr->type : FI_EP_RDM;
	ep->caps = info ? info->caps : 0;
	ep->min_multi_recv = PL_EP_MIN_MULTI_RECV_DEFAULT;
	pl_domain_child_get(dom);
	return 0;
}

/* The counter kinds named by flags, in enum order. */
static const uint64_t pl_ep_cntr_flag[PL_EP_CNTR_KINDS] = {
	[PL_EP_CNTR_SEND] = FI_SEND,
	[PL_EP_CNTR_RECV] = FI_RECV,
	[PL_EP_CNTR_READ] = FI_READ,
	[PL_EP_CNTR_WRITE] = FI_WRITE,
	[PL_EP_CNTR_REMOTE_READ] = FI_REMOTE_READ,
	[PL_EP_CNTR_REMOTE_WRITE] = FI_REMOTE_WRITE,
};

static int pl_ep_bind_cq(struct pl_ep *ep, struct fid_cq *cq, uint64_t flags)
{
	if (((flags & FI_TRANSMIT) && ep->tx_cq) ||
	    ((flags & FI_RECV) && ep->rx_cq)) {
		PL_WARN(FI_LOG_EP_CTRL, "fi_ep_bind: a CQ is already bound "
			"for that direction\n");
		return -FI_EINVAL;
	}
	if (flags & FI_TRANSMIT) {
		pl_cq_ref(cq);
		ep->tx_cq = cq;
		ep->tx_cq_flags = flags & (FI_TRANSMIT |
					   FI_SELECTIVE_COMPLETION);
	}
	if (flags & FI_RECV) {
		pl_cq_ref(cq);
		ep->rx_cq = cq;
		ep->rx_cq_flags = flags & (FI_RECV | FI_SELECTIVE_COMPLETION);
	}
	return 0;
}

static int pl_ep_bind_cntr(struct pl_ep *ep, struct fid_cntr *c,
			   uint64_t flags)
{
	int k;

	for (k = 0; k < PL_EP_CNTR_KINDS; k++)
		if ((flags & pl_ep_cntr_flag[k]) && ep->cntr[k])
			return -FI_EINVAL;
	for (k = 0; k < PL_EP_CNTR_KINDS; k++) {
		if (!(flags & pl_ep_cntr_flag[k]))
			continue;
		pl_cntr_ref(c);
		ep->cntr[k] = c;
	}
	return 0;
}

int pl_ep_bind(struct pl_ep *ep, struct fid *bfid, uint64_t flags)
{
	int ret;

	if (!ep || !bfid)
		return -FI_EINVAL;
	ret = pl_ep_bind_check(bfid->fclass, flags);
	if (ret)
		return ret;
	if (ep->enabled)
		return -FI_EOPBADSTATE;
	switch (bfid->fclass) {
	case FI_CLASS_CQ:
		return pl_ep_bind_cq(ep, (struct fid_cq *)bfid, flags);
	case FI_CLASS_CNTR:
		return pl_ep_bind_cntr(ep, (struct fid_cntr *)bfid, flags);
	case FI_CLASS_AV:
		if (ep->av)
			return -FI_EINVAL;
		/* an AV of another domain resolves another provider's
		 * addresses: refuse it */
		if (pl_av_domain((struct fid_av *)bfid) &&
		    pl_av_domain((struct fid_av *)bfid) != &ep->dom->domain_fid)
			return -FI_EINVAL;
		pl_av_ref((struct fid_av *)bfid);
		ep->av = (struct fid_av *)bfid;
		return 0;
	case FI_CLASS_EQ:
		if (ep->eq)
			return -FI_EINVAL;
		pl_eq_ref((struct fid_eq *)bfid);
		ep->eq = (struct fid_eq *)bfid;
		return 0;
	default:
		/* shared contexts are not supported by the generic object */
		return -FI_ENOSYS;
	}
}

/* Does caps ask for that direction of messaging? */
static bool pl_ep_uses(uint64_t caps, uint64_t dir)
{
	if (caps && !(caps & (FI_MSG | FI_TAGGED)))
		return false;
	/* no direction bit at all means both (fi_getinfo(3)) */
	return !caps || !(caps & (FI_SEND | FI_RECV)) || (caps & dir);
}

int pl_ep_enable(struct pl_ep *ep)
{
	if (!ep)
		return -FI_EINVAL;
	if (ep->enabled)
		return -FI_EOPBADSTATE;
	if ((ep->type == FI_EP_RDM || ep->type == FI_EP_DGRAM) && !ep->av)
		return -FI_ENOAV;
	/* a scalable endpoint's CQs are its contexts' (fi_endpoint(3)) */
	if (ep->ep_fid.fid.fclass == FI_CLASS_SEP) {
		ep->enabled = true;
		return 0;
	}
	if (pl_ep_uses(ep->caps, FI_SEND) && !ep->tx_cq &&
	    !ep->cntr[PL_EP_CNTR_SEND])
		return -FI_ENOCQ;
	if (pl_ep_uses(ep->caps, FI_RECV) && !ep->rx_cq &&
	    !ep->cntr[PL_EP_CNTR_RECV])
		return -FI_ENOCQ;
	ep->enabled = true;
	return 0;
}

int pl_ep_setopt(struct pl_ep *ep, int level, int optname, const void *optval,
		 size_t optlen)
{
	if (!ep)
		return -FI_EINVAL;
	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		if (!optval || optlen != sizeof(size_t))
			return -FI_EINVAL;
		memcpy(&ep->min_multi_recv, optval, sizeof(size_t));
		return 0;
	default:
		/* FI_OPT_CM_DATA_SIZE included: no CM data without a
		 * connection; the other options are provider-specific */
		return -FI_ENOPROTOOPT;
	}
}

int pl_ep_getopt(struct pl_ep *ep, int level, int optname, void *optval,
		 size_t *optlen)
{
	if (!ep || !optlen)
		return -FI_EINVAL;
	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		if (*optlen < sizeof(size_t)) {
			*optlen = sizeof(size_t);
			return -FI_ETOOSMALL;
		}
		if (!optval)
			return -FI_EINVAL;
		memcpy(optval, &ep->min_multi_recv, sizeof(size_t));
		*optlen = sizeof(size_t);
		return 0;
	default:
		return -FI_ENOPROTOOPT;
	}
}

void pl_ep_fini(struct pl_ep *ep)
{
	int k;

	if (!ep || !ep->dom)
		return;
	if (ep->tx_cq)
		pl_cq_unref(ep->tx_cq);
	if (ep->rx_cq)
		pl_cq_unref(ep->rx_cq);
	/* one reference was taken per kind bound (pl_ep_bind_cntr) */
	for (k = 0; k < PL_EP_CNTR_KINDS; k++) {
		if (ep->cntr[k])
			pl_cntr_unref(ep->cntr[k]);
		ep->cntr[k] = NULL;
	}
	if (ep->av)
		pl_av_unref(ep->av);
	if (ep->eq)
		pl_eq_unref(ep->eq);
	pl_domain_child_put(ep->dom);
	ep->tx_cq = ep->rx_cq = NULL;
	ep->av = NULL;
	ep->eq = NULL;
	ep->dom = NULL;
}
