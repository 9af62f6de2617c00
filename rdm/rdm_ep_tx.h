/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send path of an RDM endpoint (fi_msg and fi_tagged alike), private
 * to the adapters (rdm_ep_msg.c, rdm_ep_tagged.c): the transport's handle
 * on the destination from the peer cache, a tx entry, the transport's
 * send, the completion now or when the transport calls back
 * (rdm_ep_tx_done). Inline, so that each adapter gets the path with its
 * constant flags folded in: it is every small message's (perf/README.md,
 * "Counting instructions").
 *
 * Flow control is the application's, as fi_msg(3) says: a full queue or
 * tx table gives -FI_EAGAIN after one progress pass of our own; the
 * application drives progress (fi_cq_read) and retries.
 */
#ifndef PROPEL_RDM_EP_TX_H
#define PROPEL_RDM_EP_TX_H

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "rdm_ep.h"

/* Completion levels that wait for the receiver's placement: delivery
 * complete implies match complete (the message was matched); the data
 * placed is committed as far as this layer can tell. */
#define RDM_EP_TX_DELIVERY (FI_DELIVERY_COMPLETE | FI_MATCH_COMPLETE | \
			    FI_COMMIT_COMPLETE)

/* flags: the operation's (FI_TAGGED, FI_REMOTE_CQ_DATA, FI_INJECT,
 * FI_DELIVERY_COMPLETE, FI_COMPLETION, RDM_EP_F_NOCOMP). Called WITHOUT
 * the lock. cq_ep: where it completes, the endpoint or a transmit
 * context of a scalable endpoint, whose transport (xport) sends. */
static inline ssize_t rdm_ep_tx_send(struct rdm_ep *cq_ep,
		       const struct iovec *iov,
		       size_t count, fi_addr_t dest, uint64_t tag,
		       uint64_t data, void *context, uint64_t flags)
{
	struct rdm_ep *ep = cq_ep->xport;
	struct rdm_tx_msg msg;
	struct rdm_ep_txe *t;
	size_t len = 0, i;
	void *tpeer;
	int ret;

	/* iov_limit as fi_getinfo reports it (fi_msg(3): beyond it the
	 * call fails) */
	if (count > ep->iov_limit || (count && !iov))
		return -FI_EINVAL;
	for (i = 0; i < count; i++)
		len += iov[i].iov_len;
	if ((flags & FI_INJECT) && len > ep->inject_size)
		return -FI_EINVAL;

	rdm_ep_lock(ep);
	if (PL_UNLIKELY(!cq_ep->ready || cq_ep->view == RDM_VIEW_RX)) {
		/* a receive context sends nothing */
		ret = cq_ep->ready ? -FI_EOPNOTSUPP : -FI_EOPBADSTATE;
		goto out;
	}
	ret = rdm_ep_peer_get(ep, dest, &tpeer);
	if (ret)
		goto out;
	t = rdm_ep_txe_get(ep);
	if (!t) {
		/* every entry waits for its completion: move them on */
		rdm_ep_poll(ep, PL_PROGRESS_POLL_BUDGET);
		t = rdm_ep_txe_get(ep);
		if (!t) {
			ret = -FI_EAGAIN;
			goto out;
		}
	}
	t->cq_ep = cq_ep;
	t->context = context;
	t->flags = FI_SEND | ((flags & FI_TAGGED) ? FI_TAGGED : FI_MSG);
	t->op_flags = flags;
	t->len = len;
	msg = (struct rdm_tx_msg){
		.iov = iov,
		.iov_count = count,
		.tag = tag,
		.cq_data = data,
		.flags = ((flags & FI_TAGGED) ? RDM_TX_TAGGED : 0) |
			 ((flags & FI_REMOTE_CQ_DATA) ? RDM_TX_CQ_DATA : 0) |
			 ((flags & RDM_EP_TX_DELIVERY) ? RDM_TX_DELIVERY : 0) |
			 ((flags & FI_INJECT) ? RDM_TX_INJECT : 0),
		.rx_idx = rdm_ep_peer_rx_idx(ep, dest),
		.context = t,
	};
	ret = ep->tops->send(ep, tpeer, &msg);
	if (ret == -FI_EAGAIN) {
		rdm_ep_poll(ep, PL_PROGRESS_POLL_BUDGET);
		ret = ep->tops->send(ep, tpeer, &msg);
	}
	if (ret == 0) {
		/* an inject with no send counter has nothing to report */
		if (!(flags & RDM_EP_F_NOCOMP) ||
		    pl_ep_cntr(&cq_ep->base, PL_EP_CNTR_SEND))
			rdm_ep_cq_tx(cq_ep, context, t->flags, flags, len, 0);
		rdm_ep_txe_put(ep, t);
	} else if (ret == 1) {
		ret = 0;	/* rdm_ep_tx_done follows */
	} else {
		rdm_ep_txe_put(ep, t);
	}
out:
	rdm_ep_unlock(ep);
	/* what the transport listed goes out with no lock of ours held
	 * (rdm_transport.h) */
	if (PL_UNLIKELY(ep->tops->unlocked != NULL))
		ep->tops->unlocked(ep);
	return ret;
}

#endif /* PROPEL_RDM_EP_TX_H */
