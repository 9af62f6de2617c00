/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send path's out-of-line half: the completion of a send the
 * transport finished later, and fi_tx_size_left. The send itself is
 * inline in the adapters (rdm_ep_tx.h).
 */
#include <rdma/fi_errno.h>

#include "pl_log.h"
#include "rdm_ep.h"
#include "rdm_rma.h"

void rdm_ep_tx_done(struct rdm_ep *ep, void *context, int status)
{
	struct rdm_ep_txe *t = context;

	if (t->early) {
		/* the application was told at rdm_ep_tx_done_early. A
		 * destination it removed from the AV meanwhile is its own
		 * doing (fi_av(3): operations to a removed address may
		 * fail): said at info level, or a program that removes
		 * peers while it sends would log once per message */
		if (status == -FI_EADDRNOTAVAIL)
			PL_INFO(FI_LOG_EP_DATA, "rdm: a buffered send, "
				"completed already, found its destination "
				"removed from the AV\n");
		else if (status)
			PL_WARN(FI_LOG_EP_DATA, "rdm: a buffered send, "
				"completed already, did not arrive (%d)\n",
				status);
		t->early = false;
	} else if (t->op_flags & RDM_EP_F_SUBOP)
		/* a request of a multi-buffer RMA: its parent completes */
		rdm_ep_rma_sub_done(ep, t->context, status);
	else
		rdm_ep_cq_tx(t->cq_ep, t->context, t->flags, t->op_flags,
			     t->len, status);
	rdm_ep_txe_put(ep, t);
}

void rdm_ep_tx_done_early(struct rdm_ep *ep, void *context)
{
	struct rdm_ep_txe *t = context;

	(void)ep;
	if (t->early || (t->op_flags & RDM_EP_F_SUBOP))
		return;
	rdm_ep_cq_tx(t->cq_ep, t->context, t->flags, t->op_flags, t->len, 0);
	t->early = true;
}

/* Free tx entries (a send that needs none takes none either);
 * -FI_EOPBADSTATE before fi_enable. */
ssize_t rdm_ep_tx_size_left(struct fid_ep *e)
{
	struct rdm_ep *cq_ep = rdm_ep_of_fid(&e->fid);
	/* a transmit context shares its scalable endpoint's entries */
	struct rdm_ep *ep = cq_ep->xport;
	struct rdm_ep_txe *t;
	ssize_t n = 0;

	rdm_ep_lock(ep);
	if (!cq_ep->ready)
		n = -FI_EOPBADSTATE;
	else
		for (t = ep->txe_free; t; t = t->next)
			n++;
	rdm_ep_unlock(ep);
	return n;
}
