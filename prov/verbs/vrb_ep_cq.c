/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A verbs endpoint's progress source: its device CQ (sends and receives
 * of one QP), read in bunches of FI_VERBS_CQREAD_BUNCH_SIZE and written
 * to the engine's CQs and counters.
 *
 * Sleeping (DESIGN.md section 4): the source's fd is the completion
 * channel. arm() first consumes the channel's pending notifications (so
 * the level-triggered fd goes quiet), requests the next one, then polls
 * once more: a completion that arrived before the request is found there
 * (kept in the stash for the next poll, arm answers -FI_EAGAIN), one that
 * arrives after it makes the channel readable. No wake-up is lost.
 *
 * wr_id: a ring counter shifted left once, bit 0 set for receives, so a
 * completion in error (whose opcode is undefined) still names its queue
 * and slot. On an endpoint bound to a shared receive context every
 * receive is the SRX's, and the counter is its slot (vrb_srx.h).
 *
 * A receive that fi_cancel marked (vrb_ep_cancel.c) and that a message
 * then fills completes normally: the message won the race, and reporting
 * it canceled would lose the message. Flushed, it is FI_ECANCELED.
 */
#include <arpa/inet.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_cq.h"
#include "pl_mrc.h"
#include "vrb_prov.h"
#include "vrb_srx.h"

static int vrb_wc_errno(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_WR_FLUSH_ERR:
		return FI_ECANCELED;	/* the QP went down first */
	case IBV_WC_LOC_LEN_ERR:
		return FI_ETRUNC;	/* a message longer than the buffer */
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_REM_ACCESS_ERR:
		return FI_EACCES;	/* a key, range or right refused */
	case IBV_WC_REM_INV_REQ_ERR:
		return FI_EINVAL;	/* e.g. the peer's buffer too short */
	case IBV_WC_RETRY_EXC_ERR:
		return FI_ETIMEDOUT;	/* the peer stopped answering */
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return FI_ENORX;	/* no receive posted at the peer */
	case IBV_WC_REM_OP_ERR:
		return FI_EREMOTEIO;
	default:
		return FI_EIO;
	}
}

static void vrb_ep_cq_cntr(struct vrb_ep *ep, uint64_t flags, bool err)
{
	enum pl_ep_cntr_kind k;
	struct fid_cntr *c;

	if (flags & FI_RECV)
		k = PL_EP_CNTR_RECV;
	else if (flags & FI_READ)
		k = PL_EP_CNTR_READ;
	else if (flags & FI_WRITE)
		k = PL_EP_CNTR_WRITE;
	else if (flags & FI_SEND)
		k = PL_EP_CNTR_SEND;
	else
		return;
	c = pl_ep_cntr(&ep->base, k);
	if (!c)
		return;
	if (err)
		pl_cntr_inc_err(c);
	else
		pl_cntr_inc(c);
}

static void vrb_ep_cq_one(struct vrb_ep *ep, const struct ibv_wc *wc)
{
	bool rx = wc->wr_id & 1;
	uint64_t seq = wc->wr_id >> 1, data = 0, flags;
	struct fid_cq *cq = rx ? ep->base.rx_cq : ep->base.tx_cq;
	struct pl_mrc_entry *mrc[VRB_IOV_MAX];
	struct fi_cq_err_entry err;
	struct vrb_op op;
	size_t len, slot;
	int i;

	if (rx && ep->srx) {
		/* a receive of the shared context: its slot, not our ring */
		if (!vrb_srx_take(ep->srx, seq, &op, mrc))
			return;	/* names no posted slot: not ours */
		op.report = pl_ep_op_completes(ep->base.rx_cq_flags,
					       op.report ? FI_COMPLETION : 0,
					       false);
		goto taken;
	}
	/* the slot is free once copied: a later post may reuse it */
	pthread_mutex_lock(&ep->lock);
	if (rx) {
		slot = seq % ep->rx_size;
		op = ep->rx_ops[slot];
		for (i = 0; i < op.nmrc; i++)
			mrc[i] = ep->rx_mrc[slot * ep->rx_iov_limit + i];
		ep->rx_tail++;
	} else {
		slot = seq % ep->tx_size;
		op = ep->tx_ops[slot];
		for (i = 0; i < op.nmrc; i++)
			mrc[i] = ep->tx_mrc[slot * ep->tx_iov_limit + i];
		ep->tx_tail++;
	}
	pthread_mutex_unlock(&ep->lock);
taken:
	/* the device is done with the buffers: their registrations may go
	 * back to the cache (no lock held: a put may deregister) */
	for (i = 0; i < op.nmrc; i++)
		pl_mrc_put(ep->dom->mrc, mrc[i]);
	flags = op.flags;
	if (wc->status != IBV_WC_SUCCESS) {
		vrb_ep_cq_cntr(ep, flags, true);
		if (!cq)
			return;
		memset(&err, 0, sizeof(err));
		err.op_context = op.context;
		err.flags = flags;
		err.len = op.len;
		err.buf = op.buf;
		err.err = vrb_wc_errno(wc->status);
		err.prov_errno = (int)wc->status;
		(void)pl_cq_write_err(cq, &err, FI_ADDR_NOTAVAIL);
		return;
	}
	len = 0;
	if (rx) {
		if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
			/* a peer's fi_writedata: the data went to our MR,
			 * the receive only carried the immediate */
			flags = FI_RMA | FI_REMOTE_WRITE;
		} else {
			len = wc->byte_len;
		}
		if (wc->wc_flags & IBV_WC_WITH_IMM) {
			flags |= FI_REMOTE_CQ_DATA;
			data = ntohl(wc->imm_data);
		}
	}
	vrb_ep_cq_cntr(ep, flags, false);
	if (!op.report || !cq)
		return;
	(void)pl_cq_write(cq, op.context, flags, len,
			  rx && !(flags & FI_RMA) ? op.buf : NULL, data, 0,
			  FI_ADDR_NOTAVAIL);
}

int vrb_ep_cq_poll(struct pl_progress_source *src, unsigned budget)
{
	struct vrb_ep *ep = pl_container_of(src, struct vrb_ep, src);
	struct ibv_wc wc[VRB_STASH_MAX];
	unsigned done = 0;
	int i, n, want;

	/* what arm() took off the CQ comes first: it is older */
	for (i = 0; i < ep->nstash; i++)
		vrb_ep_cq_one(ep, &ep->stash[i]);
	done += (unsigned)ep->nstash;
	ep->nstash = 0;
	while (done < budget) {
		want = (int)(budget - done);
		if (want > (int)ep->bunch)
			want = (int)ep->bunch;
		n = ibv_poll_cq(ep->cq, want, wc);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			vrb_ep_cq_one(ep, &wc[i]);
		done += (unsigned)n;
		if (n < want)
			break;	/* the CQ is empty */
	}
	return (int)done;
}

int vrb_ep_cq_arm(struct pl_progress_source *src)
{
	struct vrb_ep *ep = pl_container_of(src, struct vrb_ep, src);
	struct ibv_cq *cq;
	void *ctx;
	int n;

	if (ep->nstash)
		return -FI_EAGAIN;
	/* notifications already delivered: consumed and acknowledged, so
	 * the channel's fd reads empty until the next one */
	while (!ibv_get_cq_event(ep->cch, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(ep->cq, 0))
		return -FI_EAGAIN;	/* cannot promise a wake-up */
	n = ibv_poll_cq(ep->cq, VRB_STASH_MAX, ep->stash);
	if (n > 0) {
		ep->nstash = n;
		return -FI_EAGAIN;
	}
	return 0;
}

void vrb_ep_cq_drain(struct vrb_ep *ep)
{
	struct ibv_wc wc[VRB_STASH_MAX];
	int i, n;

	if (!ep->cq)
		return;
	for (i = 0; i < ep->nstash; i++)
		vrb_ep_cq_one(ep, &ep->stash[i]);
	ep->nstash = 0;
	while ((n = ibv_poll_cq(ep->cq, VRB_STASH_MAX, wc)) > 0)
		for (i = 0; i < n; i++)
			vrb_ep_cq_one(ep, &wc[i]);
}
