/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared receive context (fi_srx_context) on a verbs domain: one
 * ibv SRQ whose receives serve every endpoint bound to it (fi_ep_bind
 * before fi_enable makes the endpoint's QP with the SRQ instead of a
 * receive queue of its own).
 *
 * The device consumes SRQ receives for whichever QP a message arrives
 * on, and each QP reports on its own endpoint's CQ, so receives complete
 * out of posting order across endpoints: the slots are a table with a
 * free stack, not a ring. A receive's wr_id is (slot << 1) | 1, the
 * endpoint's completion (vrb_ep_cq.c) hands it back with vrb_srx_take.
 *
 * Who touches what: srx->lock guards the slot table (ops, mrc, posted),
 * the free stack and `bound`; it is taken by posts (any application
 * thread), by completions (the domain's progress pass) and by fi_cancel,
 * never together with an endpoint's lock (lock order: ep->lock is never
 * held when srx->lock is taken, nor the other way round). The fields
 * marked "open only" are written once by vrb_srx_open.
 */
#ifndef PROPEL_VRB_SRX_H
#define PROPEL_VRB_SRX_H

#include "vrb_prov.h"

struct vrb_srx {
	struct fid_ep ep_fid;		/* FI_CLASS_SRX_CTX */
	struct vrb_domain *dom;		/* open only */
	struct ibv_srq *srq;		/* open only */
	uint32_t size;			/* open only: slots, the SRQ's depth */
	size_t iov_limit;		/* open only: within max_srq_sge */
	uint64_t op_flags;		/* open only: rx_attr->op_flags */
	pthread_mutex_t lock;
	struct vrb_op *ops;		/* lock: per slot */
	struct pl_mrc_entry **mrc;	/* lock: per slot, iov_limit each */
	uint8_t *posted;		/* lock: slot is in the SRQ */
	uint32_t *free;			/* lock: stack of free slots */
	uint32_t nfree;			/* lock */
	unsigned bound;			/* lock: endpoints bound, not closed */
};

int vrb_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep_p, void *context);
/* The verbs SRX behind fid, NULL when it is none. */
struct vrb_srx *vrb_srx_of(struct fid *fid);
/* fi_ep_bind: one more endpoint holds srx (fi_close of srx answers
 * -FI_EBUSY until vrb_srx_detach). */
void vrb_srx_attach(struct vrb_srx *srx);
void vrb_srx_detach(struct vrb_srx *srx);
/*
 * A completion named slot (wr_id >> 1): copies its record and its held
 * registrations (op_p->nmrc of them into mrc) and frees the slot.
 * Returns false for a slot that is not posted (never ours: the caller
 * drops the completion).
 */
bool vrb_srx_take(struct vrb_srx *srx, uint64_t slot, struct vrb_op *op_p,
		  struct pl_mrc_entry **mrc);
/* Receives that may still be posted (fi_rx_size_left). */
ssize_t vrb_srx_left(struct vrb_srx *srx);

#endif
