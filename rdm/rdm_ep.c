/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDM endpoint core's object: open, the control commands it answers
 * for every provider (op flags, aliases, FI_OPT_MIN_MULTI_RECV) and the
 * two halves of close around the provider's transport. The provider
 * keeps enable, names and the rest of fi_control (rdm_ep.h).
 */
#include <rdma/fi_errno.h>

#include "pl_fid_nosys.h"
#include "rdm_ep.h"
#include "rdm_rma.h"
#include "rdm_ep_mrecv.h"
#include "rdm_sep.h"
#include "rdm_peer_srx.h"
#include "rdm_srx.h"
#include "rdm_stx.h"

int rdm_ep_init(struct rdm_ep *ep, struct fid_domain *domain,
		struct fi_info *info, const struct rdm_ep_attr *attr,
		void *context)
{
	struct pl_match_attr mattr = { 0 };
	int ret;

	if (!attr || !attr->tops)
		return -FI_EINVAL;
	ret = pl_ep_init(&ep->base, domain, info, context);
	if (ret)
		return ret;
	ep->base.type = FI_EP_RDM;
	ep->tops = attr->tops;
	ep->iov_limit = attr->iov_limit;
	ep->inject_size = attr->inject_size;
	ep->atomic_max_bytes = attr->atomic_max_bytes < RDM_ATOMIC_MAX_BYTES ?
			       attr->atomic_max_bytes : RDM_ATOMIC_MAX_BYTES;
	ep->rma_iov_local = attr->rma_iov_local ? attr->rma_iov_local :
			    attr->iov_limit;
	if (ep->rma_iov_local > RDM_RMA_LOCAL_IOV_MAX)
		ep->rma_iov_local = RDM_RMA_LOCAL_IOV_MAX;
	ep->rx_size = attr->rx_size;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	ret = rdm_ep_lock_init(ep, domain, attr->always_lock);
	if (ret)
		goto err_base;
	ret = pl_match_init(&ep->match, &mattr);
	if (ret)
		goto err_lock;
	ep->matchp = &ep->match;
	ep->mrecvp = &ep->mrecv;
	ep->xport = ep;
	ret = rdm_ep_txe_init(ep, attr->tx_size);
	if (ret)
		goto err_match;
	ret = rdm_ep_rxp_init(ep);
	if (ret)
		goto err_txe;
	ep->base.ep_fid.msg = (struct fi_ops_msg *)&rdm_ep_msg_ops;
	ep->base.ep_fid.tagged = (struct fi_ops_tagged *)&rdm_ep_tagged_ops;
	ep->base.ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	return 0;

err_txe:
	rdm_ep_txe_fini(ep);
err_match:
	pl_match_fini(&ep->match);
err_lock:
	rdm_ep_lock_fini(ep);
err_base:
	pl_ep_fini(&ep->base);
	return ret;
}

int rdm_ep_enable(struct rdm_ep *ep)
{
	int ret;

	ret = pl_ep_enable(&ep->base);
	if (ret)
		return ret;
	/* the transport is not up yet: no other thread reaches match (a
	 * shared receive context keeps its own option) */
	if (!ep->srx)
		pl_match_set_min_multi_recv(&ep->match,
					    ep->base.min_multi_recv);
	return 0;
}

void rdm_ep_close_rx(struct rdm_ep *ep)
{
	struct pl_match_unexp *ux, *next;
	int k;

	/* no post on the shared receive context picks this one any more */
	if (ep->srx)
		rdm_srx_unlink_ep(ep->srx, ep);
	rdm_ep_lock(ep);
	ep->closing = true;
	if (ep->sep)
		rdm_sep_close_rx(ep);
	/* unexpected messages still held: their senders complete. A
	 * shared queue keeps other endpoints' messages; this one's leave
	 * it, since nothing could place them any more. */
	for (k = 0; k < PL_MATCH_KINDS; k++)
		for (ux = pl_match_unexp_next(ep->matchp, k, NULL); ux;
		     ux = next) {
			next = pl_match_unexp_next(ep->matchp, k, ux);
			if (ux->owner != ep &&
			    !((struct rdm_ep *)ux->owner)->peer_proxy)
				continue;
			if (ux->prov)
				((struct rdm_ep *)ux->owner)->tops->rx_discard(
					ux->owner, ux->prov);
			pl_match_unexp_drop(ep->matchp, ux);
		}
	rdm_ep_unlock(ep);
	/* the peer's messages dropped above go back to it; the messages
	 * this endpoint's peer receive context's owner holds for it are
	 * dropped (rdm_peer_srx.h) */
	rdm_peer_owner_flush(ep);
	if (ep->psrx)
		rdm_peer_srx_ep_closed(ep);
}

void rdm_ep_fini(struct rdm_ep *ep)
{
	/* the contexts first: they take this endpoint's lock */
	if (ep->sep)
		rdm_sep_fini(ep);
	rdm_ep_lock(ep);
	rdm_ep_mrecv_fini(ep);
	rdm_ep_peer_fini(ep);
	rdm_ep_unlock(ep);
	pl_match_fini(&ep->match);
	pl_ep_fini(&ep->base);
	/* after the last use of the context's lock */
	if (ep->srx)
		rdm_srx_put(ep->srx);
	if (ep->stx)
		rdm_stx_put(ep->stx);
	if (ep->psrx)
		rdm_peer_srx_put(ep->psrx);
	rdm_peer_owner_free(ep);
	rdm_ep_lock_fini(ep);
	rdm_ep_rxp_fini(ep);
	rdm_ep_txe_fini(ep);
}

int rdm_ep_control(struct rdm_ep *ep, int command, void *arg)
{
	switch (command) {
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		return rdm_ep_alias_opsflag(&ep->tx_op_flags, &ep->rx_op_flags,
					    command, arg);
	case FI_ALIAS:
		return rdm_ep_alias_open(ep, arg);
	case FI_EXPORT_FID: {
		/* fi_export_fid: the receive queue for a peer provider */
		struct fi_fid_export *exp = arg;

		if (!exp)
			return -FI_EINVAL;
		return rdm_peer_owner_export(ep, exp->flags, exp->fid);
	}
	default:
		return -FI_ENOSYS;
	}
}

int rdm_ep_setopt(struct rdm_ep *ep, int level, int optname,
		  const void *optval, size_t optlen)
{
	int ret;

	ret = pl_ep_setopt(&ep->base, level, optname, optval, optlen);
	if (!ret && optname == FI_OPT_MIN_MULTI_RECV && !ep->srx) {
		rdm_ep_lock(ep->xport);
		pl_match_set_min_multi_recv(&ep->match,
					    ep->base.min_multi_recv);
		rdm_ep_unlock(ep->xport);
	}
	return ret;
}

int rdm_ep_bind(struct rdm_ep *ep, struct fid *bfid, uint64_t flags)
{
	if (!bfid)
		return -FI_EINVAL;
	/* a scalable endpoint's contexts already share its queue and lock
	 * (rdm_sep.h): shared contexts on top are not offered */
	if (ep->sep && (bfid->fclass == FI_CLASS_SRX_CTX ||
			bfid->fclass == FI_CLASS_STX_CTX))
		return -FI_EOPNOTSUPP;
	switch (bfid->fclass) {
	case FI_CLASS_SRX_CTX:
		if (rdm_peer_srx_is(bfid))
			return rdm_peer_srx_bind_ep(bfid, ep, flags);
		return rdm_srx_bind_ep(bfid, ep, flags);
	case FI_CLASS_STX_CTX:
		return rdm_stx_bind_ep(bfid, ep, flags);
	default:
		return pl_ep_bind(&ep->base, bfid, flags);
	}
}
