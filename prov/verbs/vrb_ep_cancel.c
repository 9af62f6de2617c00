/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_cancel on a verbs endpoint, and what fi_close owes the operations
 * that never completed.
 *
 * Verbs has no call that takes a posted work request back from a queue:
 * a receive stays in the QP's receive queue until a message fills it or
 * the QP is flushed. So a cancel only marks the receive:
 *  - a message that arrives in it completes it normally (fi_cancel(3)
 *    lets an operation the cancel could not stop complete as usual, and
 *    reporting it canceled would lose the message);
 *  - flushed (fi_shutdown, the peer's disconnect, an error), it
 *    completes with FI_ECANCELED, as every flushed operation does;
 *  - still posted when the endpoint closes, it completes with
 *    FI_ECANCELED then, as every operation still pending does (so the
 *    CQs, which outlive the endpoint, account for every buffer: rxm
 *    frees its receive buffers on those completions, as over tcp).
 * The mark matters for a receive posted without FI_COMPLETION under
 * FI_SELECTIVE_COMPLETION: canceled, it is reported at close too.
 * Sends, RMA and atomics are on the wire as soon as they are posted:
 * they are not cancelable and, like a context nothing was posted with,
 * answer -FI_ENOENT. So does a receive already canceled.
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_cq.h"
#include "pl_mrc.h"
#include "vrb_prov.h"

ssize_t vrb_ep_cancel(fid_t fid, void *context)
{
	struct vrb_ep *ep;
	struct vrb_op *op;
	ssize_t ret = -FI_ENOENT;
	uint64_t s;

	if (!fid)
		return -FI_EINVAL;
	ep = vrb_ep_of(pl_container_of(fid, struct fid_ep, fid));
	if (!ep)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	/* oldest first: the one a message would take next */
	for (s = ep->rx_tail; s != ep->rx_head; s++) {
		op = &ep->rx_ops[s % ep->rx_size];
		if (op->context == context && !op->canceled) {
			op->canceled = true;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/* One pending operation of a closing endpoint: its registrations go
 * back; FI_ECANCELED on cq unless it asked for no completion (an
 * inject, or FI_SELECTIVE_COMPLETION without FI_COMPLETION) and was not
 * canceled. */
static void vrb_ep_cancel_one(struct vrb_ep *ep, struct vrb_op *op,
			      struct pl_mrc_entry **mrc, struct fid_cq *cq)
{
	struct fi_cq_err_entry err;
	int i;

	for (i = 0; i < op->nmrc; i++)
		pl_mrc_put(ep->dom->mrc, mrc[i]);
	if (!cq || !(op->report || op->canceled))
		return;
	memset(&err, 0, sizeof(err));
	err.op_context = op->context;
	err.flags = op->flags;
	err.buf = op->buf;
	err.err = FI_ECANCELED;
	(void)pl_cq_write_err(cq, &err, FI_ADDR_NOTAVAIL);
}

/* Under no lock: fi_close, after the QP is destroyed and the progress
 * source removed, so nothing else reads or writes the rings. */
void vrb_ep_cancel_flush(struct vrb_ep *ep)
{
	uint64_t s;
	size_t slot;

	for (s = ep->tx_tail; s != ep->tx_head; s++) {
		slot = s % ep->tx_size;
		vrb_ep_cancel_one(ep, &ep->tx_ops[slot],
				  &ep->tx_mrc[slot * ep->tx_iov_limit],
				  ep->base.tx_cq);
	}
	for (s = ep->rx_tail; s != ep->rx_head; s++) {
		slot = s % ep->rx_size;
		vrb_ep_cancel_one(ep, &ep->rx_ops[slot],
				  &ep->rx_mrc[slot * ep->rx_iov_limit],
				  ep->base.rx_cq);
	}
	ep->tx_tail = ep->tx_head;
	ep->rx_tail = ep->rx_head;
}
