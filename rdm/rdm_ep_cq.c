/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completions and counters of an RDM endpoint, per fi_cq(3) and
 * fi_cntr(3). Called under the endpoint lock (rdm_ep.h); after close has
 * begun (ep->closing) nothing is written: the application has stopped
 * reading and the bound objects are about to be released.
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_cq.h"
#include "rdm_ep.h"

void rdm_ep_cq_tx(struct rdm_ep *ep, void *context, uint64_t flags,
		  uint64_t op_flags, size_t len, int status)
{
	/* RMA and atomics count on the read / write counters */
	struct fid_cntr *cntr = pl_ep_cntr(&ep->base,
		!(flags & (FI_RMA | FI_ATOMIC)) ? PL_EP_CNTR_SEND :
		(flags & FI_READ) ? PL_EP_CNTR_READ : PL_EP_CNTR_WRITE);
	struct fi_cq_err_entry err;

	if (ep->closing)
		return;
	if (!status) {
		if (ep->base.tx_cq && !(op_flags & RDM_EP_F_NOCOMP) &&
		    pl_ep_op_completes(ep->base.tx_cq_flags, op_flags, false))
			pl_cq_write(ep->base.tx_cq, context, flags, 0, NULL, 0,
				    0, FI_ADDR_NOTAVAIL);
		if (cntr)
			pl_cntr_inc(cntr);
		return;
	}
	if (ep->base.tx_cq) {
		memset(&err, 0, sizeof(err));
		/* an fi_inject has no context to report; the error still
		 * surfaces (errors are always reported, fi_cq(3)) */
		err.op_context = (op_flags & RDM_EP_F_NOCOMP) ? NULL : context;
		err.flags = flags;
		err.len = len;
		err.err = -status;
		err.prov_errno = -status;
		pl_cq_write_err(ep->base.tx_cq, &err, FI_ADDR_NOTAVAIL);
	}
	if (cntr)
		pl_cntr_inc_err(cntr);
}

void rdm_ep_cq_rx(struct rdm_ep *ep, const struct rdm_ep_rxp *p, int status,
		  uint64_t len)
{
	struct fid_cntr *cntr = pl_ep_cntr(&ep->base, PL_EP_CNTR_RECV);
	struct fi_cq_err_entry err;

	if (ep->closing)
		return;
	if (!status && !p->src_err) {
		if (ep->base.rx_cq &&
		    pl_ep_op_completes(ep->base.rx_cq_flags, p->op_flags,
				       false))
			pl_cq_write(ep->base.rx_cq, p->context, p->flags,
				    (size_t)len, p->buf, p->data, p->tag,
				    p->src);
		if (cntr && !p->probe)
			pl_cntr_inc(cntr);
		return;
	}
	if (ep->base.rx_cq) {
		memset(&err, 0, sizeof(err));
		err.op_context = p->context;
		err.flags = p->flags;
		err.len = (size_t)len;
		err.buf = p->buf;
		err.data = p->data;
		err.tag = p->tag;
		if (status == -FI_ETRUNC)
			err.olen = (size_t)(p->size - len);
		if (!status) {
			/* FI_SOURCE_ERR: the data is in place; the sender
			 * is not in the AV, its address is the err_data */
			err.err = FI_EADDRNOTAVAIL;
			err.err_data = (void *)p->src_name;
			err.err_data_size = p->src_name_len;
		} else {
			err.err = -status;
			err.prov_errno = -status;
		}
		pl_cq_write_err(ep->base.rx_cq, &err, p->src);
	}
	if (cntr) {
		if (status)
			pl_cntr_inc_err(cntr);
		else
			pl_cntr_inc(cntr);
	}
}

void rdm_ep_cq_rx_err(struct rdm_ep *ep, void *context, uint64_t flags,
		      int err_code)
{
	struct fi_cq_err_entry err;

	if (ep->closing || !ep->base.rx_cq)
		return;
	memset(&err, 0, sizeof(err));
	err.op_context = context;
	err.flags = flags;
	err.err = err_code;
	err.prov_errno = err_code;
	pl_cq_write_err(ep->base.rx_cq, &err, FI_ADDR_NOTAVAIL);
}
