/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared transmit context (fi_stx_context, fi_endpoint(3) "SHARED
 * CONTEXTS") for RDM providers. fi_endpoint(3) makes it "mostly opaque
 * to an application": operations are still posted to the endpoint and
 * complete to the endpoint's CQs and counters. An RDM transport already
 * multiplexes every peer of an endpoint over one set of queues, so
 * there is nothing further to share: the context is the object the
 * application binds (attributes checked at bind: the endpoint's transmit
 * attributes must be a subset of the context's), counted so that it
 * cannot close under a bound endpoint (-FI_EBUSY).
 */
#ifndef PROPEL_RDM_STX_H
#define PROPEL_RDM_STX_H

#include <rdma/fi_endpoint.h>

#include "pl_atomic.h"
#include "pl_domain.h"

struct rdm_ep;

struct rdm_stx {
	struct fid_stx		stx_fid; /* FI_CLASS_STX_CTX; FIRST */
	struct pl_domain	*dom;	 /* open only */
	struct fi_tx_attr	attr;	 /* open only */
	/* bound endpoints: acq_rel increments and decrements, paired with
	 * close's acquire load (an endpoint's last use happens before) */
	pl_atomic_int		refs;
};

int rdm_stx_open(struct fid_domain *domain, struct fi_tx_attr *attr,
		 struct fid_stx **stx, void *context);
/* fi_ep_bind(ep, stx): before fi_enable, once, same domain. */
int rdm_stx_bind_ep(struct fid *stx_fid, struct rdm_ep *ep, uint64_t flags);
void rdm_stx_put(struct rdm_stx *stx);

#endif /* PROPEL_RDM_STX_H */
