/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Multi-recv trackers (rdm_ep_mrecv.c), private to the receive path.
 * A multi-recv buffer with placements whose data still moves gets a
 * tracker, so that the completion that releases the buffer
 * (FI_MULTI_RECV) is always the buffer's last one. Under the lock.
 */
#ifndef PROPEL_RDM_EP_MRECV_H
#define PROPEL_RDM_EP_MRECV_H

#include <stdbool.h>

#include "pl_match.h"
#include "rdm_ep.h"

struct rdm_ep_mrecv {
	struct pl_match_rx	*mrx;	 /* while posted; NULL once released */
	unsigned		pending; /* placements whose data still moves */
	bool			release; /* released: last finisher flags it */
	struct rdm_ep_mrecv	*next;
};

/* The tracker of buffer mrx, if one exists. */
struct rdm_ep_mrecv *rdm_ep_mrecv_find(struct rdm_ep *ep,
				       const struct pl_match_rx *mrx);
void rdm_ep_mrecv_free(struct rdm_ep *ep, struct rdm_ep_mrecv *m);
/* The buffer is released (its last placement, or a cancel). */
void rdm_ep_mrecv_release(struct rdm_ep_mrecv *m);
/* A placement res into buffer mrx, recorded in p: one that finishes
 * later (later) is tracked, so that the release waits for it; the
 * release moves FI_MULTI_RECV to whichever completion comes last. */
void rdm_ep_mrecv_place(struct rdm_ep *ep, struct pl_match_rx *mrx,
			const struct pl_match_result *res,
			struct rdm_ep_rxp *p, bool later);
/* The completion of p is about to be written. counted: it was among its
 * tracker's pending placements. Sets FI_MULTI_RECV on the last one. */
void rdm_ep_mrecv_settle(struct rdm_ep *ep, struct rdm_ep_rxp *p,
			 bool counted);
/* Close: free every tracker of the endpoint's own queue. */
void rdm_ep_mrecv_fini(struct rdm_ep *ep);
/* Free every tracker of a list (a shared receive context's, at close). */
void rdm_ep_mrecv_free_list(struct rdm_ep_mrecv **list);

#endif /* PROPEL_RDM_EP_MRECV_H */
