/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Peer shared receive contexts (fi_peer(3), "PEER SRX"; DESIGN.md
 * sections 3 and 7) over the RDM endpoint core, both roles:
 *
 * OWNER (rdm_peer_srx_owner.c). An endpoint's receive queue exported as
 * a struct fid_peer_srx (fi_export_fid on the endpoint), so that another
 * provider's endpoints take their receives from it: a message arriving
 * there asks get_msg / get_tag for a posted receive (matched in this
 * endpoint's queue, in posting order, with its own receives); if none
 * is posted it is queued here (queue_msg / queue_tag) among this
 * endpoint's own unexpected messages, as a pl_match_unexp whose owner
 * is the export's proxy endpoint (rdm_ep.peer_proxy), and a later post
 * hands it back to the peer with start_msg / start_tag (or
 * discard_msg / discard_tag for FI_DISCARD and close). The peer writes
 * the completion (its CQ: normally a peer CQ of the owner's) and gives
 * the entry back with free_entry.
 *
 * PEER (rdm_peer_srx_peer.c). fi_srx_context with FI_PEER in
 * attr->op_flags and a struct fi_peer_srx_context: an import of another
 * provider's (or our own) fid_peer_srx. An endpoint bound to it matches
 * every arriving message through the owner's get / queue calls instead
 * of its own queue, and fills the owner's fi_ops_srx_peer with start /
 * discard. Receives are posted to the owner, never here (the import's
 * msg and tagged calls answer -FI_ENOSYS).
 *
 * Lock order (the one rule that keeps the two roles from deadlocking):
 * the peer calls get / queue / free_entry while holding its endpoint's
 * serialization (its transport's upcalls run there), and the owner's
 * calls take the owner endpoint's. The owner therefore NEVER calls
 * start / discard with its own serialization held: matches found under
 * it are listed (rdm_peer_owner.pending) and the list is handed over
 * after the lock is released (rdm_peer_srx_owner_flush, from the post
 * path, close, and the endpoint's progress source). An owner provider
 * outside propel must keep the same rule with its own locks.
 *
 * A message that reaches the peer before its sender is in the AV is
 * queued with FI_ADDR_NOTAVAIL; when the owner's AV grows it looks the
 * sender up again (rdm_peer_srx_entry_src, through the owner's
 * unexpected-queue refresh in rdm_ep_rx.c), so that a directed receive
 * posted after the insert matches it, as for the owner's own messages.
 * Only a peer of ours can be asked (1.17's fi_peer has no call for it).
 *
 * Not offered yet: an owner queue that is itself a shared receive
 * context or a scalable endpoint's (export refused, -FI_EOPNOTSUPP);
 * remote CQ data of a peer's queued message in an owner's FI_PEEK
 * (the 1.17 entry has no field for it: reported without
 * FI_REMOTE_CQ_DATA); FI_MULTI_RECV buffers filled by a peer are
 * released with the FI_MULTI_RECV flag on the completion of the
 * message that filled them, whatever order the peer completes in.
 */
#ifndef PROPEL_RDM_PEER_SRX_H
#define PROPEL_RDM_PEER_SRX_H

#include <pthread.h>
#include <stdbool.h>

#include <rdma/fi_endpoint.h>
#include <rdma/fi_ext.h>

#include "pl_compiler.h"
#include "pl_domain.h"
#include "rdm_ep.h"

struct rdm_ep;
struct rdm_rx_hdr;
struct rdm_ep_rxp;

/* ---- the owner's side (rdm_peer_srx_owner.c) ---- */

struct rdm_peer_owner;

/* fi_export_fid(FI_EXPORT_FID) on an RDM endpoint: its receive queue as
 * a struct fid_peer_srx (*fid_p: its ep_fid.fid), made once and kept
 * until the endpoint closes. -FI_EOPNOTSUPP: a queue this cannot
 * export (above); -FI_EOPBADSTATE: before fi_enable; -FI_EINVAL. */
int rdm_peer_owner_export(struct rdm_ep *ep, uint64_t flags,
			  struct fid **fid_p);
/* Hand the matches and discards listed under the lock to the peer (see
 * the lock order above). Called WITHOUT ep's lock. The inline check
 * costs an endpoint that exports nothing one relaxed load. */
void rdm_peer_owner_flush_slow(struct rdm_ep *ep);
static inline void rdm_peer_owner_flush(struct rdm_ep *ep)
{
	/* relaxed: set once at export; the slow path loads it again with
	 * acquire (rdm_peer_srx_owner.c) */
	if (PL_UNLIKELY(pl_load_relaxed(&ep->powner) != NULL))
		rdm_peer_owner_flush_slow(ep);
}
/* Endpoint close: -FI_EBUSY while a peer still imports the export. */
bool rdm_peer_owner_busy(struct rdm_ep *ep);
/* Endpoint close, last (after rdm_ep_close_rx and the flush). */
void rdm_peer_owner_free(struct rdm_ep *ep);

/* The proxy's part in rdm_ep_rx.c: a match of a message the peer holds
 * (own->peer_proxy) in q's queue: fill the peer's entry from res and
 * list it for start; releases res. Under q's lock. */
struct pl_match_result;
void rdm_peer_owner_place(struct rdm_ep *q, struct rdm_ep *proxy,
			  struct pl_match_result *res);

/* The proxy's part in the unexpected-queue refresh (rdm_ep_rx.c): the
 * sender of a message the peer holds (trx: its record), looked up again
 * when the queue has it as FI_ADDR_NOTAVAIL. Under the owner's lock. */
fi_addr_t rdm_peer_owner_resolve(struct rdm_ep *proxy, void *trx);

/* ---- the peer's side (rdm_peer_srx_peer.c) ---- */

/* The import object fi_srx_context(FI_PEER) makes. */
struct rdm_peer_srx;

/* fi_srx_context with FI_PEER: attr->op_flags has FI_PEER, context a
 * struct fi_peer_srx_context. */
int rdm_peer_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		      struct fid_ep **rx_ep, void *context);
/* Is fid such an import (fi_ep_bind dispatches on it)? */
bool rdm_peer_srx_is(const struct fid *fid);
/* fi_ep_bind(ep, import): before fi_enable, once. */
int rdm_peer_srx_bind_ep(struct fid *fid, struct rdm_ep *ep, uint64_t flags);
/* A message arrived at ep, which is bound to an import: matched through
 * the owner (delivered now, later, or queued there). Under ep's lock. */
void rdm_peer_srx_arrive(struct rdm_ep *ep, const struct rdm_rx_hdr *hdr,
			 void *trx);
/* rdm_ep_rx_inline for ep bound to an import: 1 when the owner had a
 * receive posted and the message is placed and completed, 0 otherwise
 * (the owner's no-match entry is kept for the arrival that follows,
 * flagged RDM_RX_UNMATCHED). Under ep's lock. */
int rdm_peer_srx_inline(struct rdm_ep *ep, const struct rdm_rx_hdr *hdr);
/* Endpoint close, after rdm_ep_close_rx set closing (no arrival makes
 * a record any more): the messages the owner still holds for ep are
 * dropped here (rx_discard) and their records answer the owner's later
 * start / discard with free_entry alone. Takes ep's lock. */
void rdm_peer_srx_ep_closed(struct rdm_ep *ep);
/* Endpoint close, last: the endpoint's hold on the import. */
void rdm_peer_srx_put(struct rdm_peer_srx *psrx);
/* A completion of ep's written (rdm_ep_rx.c): give the owner its entry
 * back. */
void rdm_peer_srx_entry_done(struct rdm_ep *ep, struct rdm_ep_rxp *p);
/* The sender of a message queued at an owner without one (it arrived
 * before its address was in the AV), looked up again now, in the
 * owner's terms; FI_ADDR_NOTAVAIL while it is still unknown, and for an
 * entry of a peer that is not ours (ops: the owner's fi_ops_srx_peer, as
 * the peer filled it; the 1.17 interface has no call for this). The
 * owner calls it with or without its lock. */
fi_addr_t rdm_peer_srx_entry_src(const struct fi_ops_srx_peer *ops,
				 struct fi_peer_rx_entry *entry);

#endif /* PROPEL_RDM_PEER_SRX_H */
