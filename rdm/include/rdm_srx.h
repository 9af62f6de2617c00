/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared receive context (fi_srx_context, fi_endpoint(3) "SHARED
 * CONTEXTS") over the RDM endpoint core: receives posted once to the
 * context are taken by whichever bound endpoint's message matches
 * first, in posting order; a message no receive takes waits in the
 * context's one queue for the next post, whatever endpoint it arrived
 * at. Completions go to the CQ and counters of the endpoint the message
 * arrived at (the context has none of its own, as fi_endpoint(3) says).
 *
 * How: a bound endpoint matches in the context's queue (rdm_ep.matchp,
 * mrecvp) and locks the context's mutex (lockp) when it locks at all;
 * every queued message names its endpoint (pl_match_unexp.owner), whose
 * transport places it. A post on the context is made through one bound,
 * enabled endpoint (the "poster": the oldest bound), whose CQ gets the
 * completions that belong to no message: FI_ENOMSG of a peek that found
 * nothing, FI_ECANCELED of fi_cancel.
 *
 * Synchronization table (one struct rdm_srx):
 *   field                 touched by                      serialized by
 *   match, mrecv          posts, bound endpoints' data    the endpoints' lock
 *                         paths and progress              (lock, or their
 *                                                         domain's model)
 *   eps (list), nbound    bind, endpoint close, posts     ctl (a post holds
 *                         (to pick the poster)            it throughout:
 *                                                         ctl, then lock)
 *   op_flags, size, dom   open only                       immutable
 */
#ifndef PROPEL_RDM_SRX_H
#define PROPEL_RDM_SRX_H

#include <pthread.h>

#include <rdma/fi_endpoint.h>

#include "pl_domain.h"
#include "pl_match.h"

struct rdm_ep;
struct rdm_ep_mrecv;

struct rdm_srx {
	struct fid_ep		ep_fid;	/* FI_CLASS_SRX_CTX; FIRST */
	struct pl_domain	*dom;
	pthread_mutex_t		lock;	/* bound endpoints that lock take it */
	pthread_mutex_t		ctl;
	struct pl_match		match;
	struct rdm_ep_mrecv	*mrecv;
	struct rdm_ep		*eps;	/* bound, oldest first; under ctl */
	unsigned		nbound;	/* bound and not yet closed (ctl) */
	uint64_t		op_flags;
	size_t			size;
};

/* fi_srx_context for an RDM provider's domain (its fi_ops_domain). */
int rdm_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep, void *context);
/* fi_ep_bind(ep, srx): before fi_enable, once, same domain. */
int rdm_srx_bind_ep(struct fid *srx_fid, struct rdm_ep *ep, uint64_t flags);
/* Endpoint close, first: no post picks ep any more (takes ctl). */
void rdm_srx_unlink_ep(struct rdm_srx *srx, struct rdm_ep *ep);
/* Endpoint close, last: drop the endpoint's hold on the context. */
void rdm_srx_put(struct rdm_srx *srx);

#endif /* PROPEL_RDM_SRX_H */
