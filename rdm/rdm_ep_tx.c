/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send path of an RDM endpoint (fi_msg and fi_tagged alike): the
 * transport's handle on the destination from the peer cache, a tx
 * entry, the transport's send, the completion now or when the transport
 * calls back (rdm_ep_tx_done).
 *
 * Flow control is the application's, as fi_msg(3) says: a full queue or
 * tx table gives -FI_EAGAIN after one progress pass of our own; the
 * application drives progress (fi_cq_read) and retries.
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "rdm_ep.h"

ssize_t rdm_ep_tx_send(struct rdm_ep *ep, const struct iovec *iov,
		       size_t count, fi_addr_t dest, uint64_t tag,
		       uint64_t data, void *context, uint64_t flags)
{
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
	if (!ep->ready) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	ret = rdm_ep_peer_get(ep, dest, &tpeer);
	if (ret)
		goto out;
	t = rdm_ep_txe_get(ep);
	if (!t) {
		/* every entry waits for its completion: move them on */
		ep->tops->poll(ep, PL_PROGRESS_POLL_BUDGET);
		t = rdm_ep_txe_get(ep);
		if (!t) {
			ret = -FI_EAGAIN;
			goto out;
		}
	}
	t->context = context;
	t->flags = FI_SEND | ((flags & FI_TAGGED) ? FI_TAGGED : FI_MSG);
	t->op_flags = flags;
	t->len = len;
	msg = (struct rdm_tx_msg){
		.iov = iov,
		.iov_count = count,
		.tag = tag,
		.cq_data = data,
		.flags = flags,
		.context = t,
	};
	ret = ep->tops->send(ep, tpeer, &msg);
	if (ret == -FI_EAGAIN) {
		ep->tops->poll(ep, PL_PROGRESS_POLL_BUDGET);
		ret = ep->tops->send(ep, tpeer, &msg);
	}
	if (ret == 0) {
		/* an inject with no send counter has nothing to report */
		if (!(flags & RDM_EP_F_NOCOMP) ||
		    pl_ep_cntr(&ep->base, PL_EP_CNTR_SEND))
			rdm_ep_cq_tx(ep, context, t->flags, flags, len, 0);
		rdm_ep_txe_put(ep, t);
	} else if (ret == 1) {
		ret = 0;	/* rdm_ep_tx_done follows */
	} else {
		rdm_ep_txe_put(ep, t);
	}
out:
	rdm_ep_unlock(ep);
	return ret;
}

void rdm_ep_tx_done(struct rdm_ep *ep, void *context, int status)
{
	struct rdm_ep_txe *t = context;

	rdm_ep_cq_tx(ep, t->context, t->flags, t->op_flags, t->len, status);
	rdm_ep_txe_put(ep, t);
}

/* Free tx entries (a send that needs none takes none either);
 * -FI_EOPBADSTATE before fi_enable. */
ssize_t rdm_ep_tx_size_left(struct fid_ep *e)
{
	struct rdm_ep *ep = rdm_ep_of_fid(&e->fid);
	struct rdm_ep_txe *t;
	ssize_t n = 0;

	rdm_ep_lock(ep);
	if (!ep->ready)
		n = -FI_EOPBADSTATE;
	else
		for (t = ep->txe_free; t; t = t->next)
			n++;
	rdm_ep_unlock(ep);
	return n;
}
