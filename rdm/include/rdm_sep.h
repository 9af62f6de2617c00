/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scalable endpoints (fi_scalable_ep, fi_endpoint(3) "SCALABLE
 * ENDPOINTS") over the RDM endpoint core: one address, one transport,
 * and transmit and receive contexts, each with its own CQ and counters,
 * the receive contexts each with their own queue, named by senders
 * (FI_NAMED_RX_CTX: fi_rx_addr's index travels with the message,
 * rdm_tx_msg.rx_idx to rdm_rx_hdr.rx_idx).
 *
 * A provider opens its endpoint as for fi_endpoint, then rdm_sep_init
 * makes it the scalable endpoint: its class becomes FI_CLASS_SEP, it
 * takes no data calls, and it gets every context at once (static
 * allocation, which fi_endpoint(3) allows), so that a message for a
 * context the application has not asked for yet waits in that
 * context's queue. A context is a view (struct rdm_ep with view set):
 * its own binding of CQs and counters, op flags and (receive) queue,
 * but the scalable endpoint's transport (xport), tx entries and lock.
 * Contexts serialize with each other on that lock: their independence
 * is the application's (no synchronization needed between them), not a
 * promise of parallel progress.
 *
 * Lifetime: a context is handed out once (fi_tx_context / fi_rx_context)
 * and closed once; its memory lives until the scalable endpoint closes,
 * so that a completion still in flight for a closed context finds it
 * (closing: dropped). The scalable endpoint's close is -FI_EBUSY while
 * a context is open (counted in naliases, as aliases are).
 *
 * Not offered on contexts: RMA and atomics (their tables are -FI_ENOSYS,
 * and fi_scalable_ep refuses an info that asks FI_RMA or FI_ATOMIC),
 * shared contexts, reopening a closed context.
 *
 * Synchronization: the context tables are written at rdm_sep_init and
 * read-only after; a view's state (open, closing, ready, bindings) is
 * changed by control calls under the scalable endpoint's lock or before
 * fi_enable, as for an endpoint (rdm_ep.h).
 */
#ifndef PROPEL_RDM_SEP_H
#define PROPEL_RDM_SEP_H

#include <rdma/fi_endpoint.h>

#include "rdm_ep.h"

/* Contexts one scalable endpoint may have, each way. */
#define RDM_SEP_CTX_MAX	64

enum rdm_sep_state { RDM_SEP_UNUSED, RDM_SEP_OPEN, RDM_SEP_CLOSED };

struct rdm_sep {
	struct fi_ops_ep	ops;	  /* the provider's, with the context
					   * calls */
	size_t			ntx, nrx;
	struct rdm_ep		**tx, **rx;	/* views */
	enum rdm_sep_state	*tx_state, *rx_state;
};

/* fi_scalable_ep for a provider whose fi_endpoint is ep_open (its
 * endpoint embeds struct rdm_ep first): the endpoint, then
 * rdm_sep_init. -FI_EOPNOTSUPP for an info asking FI_RMA or FI_ATOMIC
 * (contexts carry messages only). */
int rdm_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_p, void *context,
		 int (*ep_open)(struct fid_domain *, struct fi_info *,
				struct fid_ep **, void *));
/* Make ep (the provider's, opened from info, not enabled) a scalable
 * endpoint with info's tx_ctx_cnt / rx_ctx_cnt contexts. */
int rdm_sep_init(struct rdm_ep *ep, struct fid_domain *domain,
		 struct fi_info *info);
/* The scalable endpoint's transport is up (after its fi_enable): its
 * enabled contexts may move data. */
void rdm_sep_ready(struct rdm_ep *ep);
/* Close, first half (rdm_ep_close_rx): messages queued for contexts go
 * back to the transport. Under ep's lock. */
void rdm_sep_close_rx(struct rdm_ep *ep);
/* Close, second half (rdm_ep_fini): free the contexts. */
void rdm_sep_fini(struct rdm_ep *ep);

/* The receive context idx (NULL: no such context). */
static inline struct rdm_ep *rdm_sep_rx_view(const struct rdm_sep *sep,
					     uint32_t idx)
{
	return idx < sep->nrx ? sep->rx[idx] : NULL;
}

#endif /* PROPEL_RDM_SEP_H */
