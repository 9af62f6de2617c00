/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The receive side of the rxm transport (rxm_ep.h): each connection's
 * posted buffers, the checks every header passes before use (rxm_proto.h;
 * a bad one closes the connection), and the messages handed to the core:
 * an eager one straight from its buffer when a receive is posted
 * (rdm_ep_rx_inline), else copied out; a segmented one as a struct rxm_rx
 * that the core delivers into a receive, its later segments following
 * it there, or staged until then. Inside the core's serialization.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/fi_errno.h>

#include "pl_iov.h"
#include "rxm_ep.h"

static int rxm_rx_post(struct rxm_ep *ep, struct rxm_peer *peer,
		       struct rxm_rxb *rxb)
{
	ssize_t ret;

	ret = fi_recv(rxb->ep, rxb->buf, ep->lim.buf_size, NULL, 0, rxb);
	if (ret)
		return (int)ret;
	peer->rxb_posted++;
	return 0;
}

/* rxb is no longer posted nor in use: the last one frees the block. */
void rxm_ep_rxb_release(struct rxm_rxb *rxb)
{
	struct rxm_rxb_block *b = rxb->block;

	if (--b->refs)
		return;
	munmap(b->base, b->bytes);
	free(b);
}

int rxm_ep_rx_post_bufs(struct rxm_ep *ep, struct rxm_peer *peer,
			struct fid_ep *msg_ep)
{
	size_t i, n = ep->msg_rx_size, buf = ep->lim.buf_size;
	struct rxm_rxb_block *b;
	void *base;
	int ret;

	if (!n)
		return 0;
	b = malloc(sizeof(*b) + n * sizeof(b->rxb[0]));
	if (!b)
		return -FI_ENOMEM;
	base = mmap(NULL, n * buf, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		free(b);
		return -FI_ENOMEM;
	}
	b->base = base;
	b->bytes = n * buf;
	b->refs = n;
	for (i = 0; i < n; i++) {
		b->rxb[i] = (struct rxm_rxb){ .peer = peer, .ep = msg_ep,
					      .block = b,
					      .buf = b->base + i * buf };
	}
	for (i = 0; i < n; i++) {
		ret = rxm_rx_post(ep, peer, &b->rxb[i]);
		if (!ret)
			continue;
		/* a core whose receive queue is shorter than msg_rx_size:
		 * what it took is the window; the rest is released */
		size_t posted = i;

		for (; i < n; i++)
			rxm_ep_rxb_release(&b->rxb[i]);
		return ret == -FI_EAGAIN && posted ? 0 : ret;
	}
	return 0;
}

/* Post rxb again if its connection still runs on the core endpoint it
 * was posted on (a parked buffer may have outlived it), else free it. */
static void rxm_rx_post_again(struct rxm_ep *ep, struct rxm_rxb *rxb)
{
	struct rxm_peer *peer = rxb->peer;
	struct rxm_conn *conn = peer->conn;

	if (ep->rdm.closing || conn->state != RXM_CONN_CONNECTED ||
	    (rxb->ep != conn->msg_ep && rxb->ep != conn->loop_ep)) {
		rxm_ep_rxb_release(rxb);
		return;
	}
	if (rxm_rx_post(ep, peer, rxb)) {
		rxm_ep_rxb_release(rxb);
		/* a draining connection's core endpoint took its last */
		if (conn->draining && !peer->rxb_posted)
			rxm_cm_drained(&ep->cm, conn);
	}
}

/* The buffer is free again: back on its connection, unless the arrival
 * it carried took the unexpected bytes past the limit (rxm_ep.h): then
 * it waits on ep->parked, and the connection's window is one smaller. */
static void rxm_rx_repost(struct rxm_ep *ep, struct rxm_rxb *rxb)
{
	rxb->peer->rxb_posted--;
	if (ep->ux_bytes > ep->ux_limit && ep->ux_bytes > ep->ux_mark) {
		if (!ep->parked)
			RXM_LOG_DBG(FI_LOG_EP_DATA, "unexpected messages hold "
				    "%llu bytes, past FI_OFI_RXM_UNEXP_LIMIT: "
				    "their connections wait\n",
				    (unsigned long long)ep->ux_bytes);
		rxb->park_next = ep->parked;
		ep->parked = rxb;
		return;
	}
	rxm_rx_post_again(ep, rxb);
}

void rxm_ep_rx_unpark_all(struct rxm_ep *ep)
{
	struct rxm_rxb *rxb;

	while ((rxb = ep->parked)) {
		ep->parked = rxb->park_next;
		rxm_rx_post_again(ep, rxb);
	}
}

/* The core gave rx back (delivered or discarded): its bytes no longer
 * count, and under the limit again the parked buffers go back. */
static void rxm_rx_ux_release(struct rxm_ep *ep, struct rxm_rx *rx)
{
	if (!rx->ux_charge)
		return;
	ep->ux_bytes -= rx->ux_charge;
	rx->ux_charge = 0;
	if (ep->parked && ep->ux_bytes <= ep->ux_limit)
		rxm_ep_rx_unpark_all(ep);
}

void rxm_ep_rx_buf_failed(struct rxm_ep *ep, struct rxm_rxb *rxb)
{
	struct rxm_peer *peer = rxb->peer;
	struct rxm_conn *conn = peer->conn;
	bool last = conn && conn->draining && rxb->ep == conn->msg_ep;

	peer->rxb_posted--;
	rxm_ep_rxb_release(rxb);
	/* the core read the end of a hung-up peer's stream: everything it
	 * sent has been delivered (rxm_conn.draining) */
	if (last)
		rxm_cm_drained(&ep->cm, conn);
}

static uint32_t rxm_rx_flags(const struct rxm_hdr *h)
{
	return ((h->flags & RXM_F_TAGGED) ? RDM_RX_TAGGED : 0) |
	       ((h->flags & RXM_F_CQ_DATA) ? RDM_RX_CQ_DATA : 0);
}

/* The receive context a message names (checked by the core). */
static inline uint32_t rxm_rx_idx(const struct rxm_hdr *h)
{
	return (h->flags & RXM_F_RX_MASK) >> RXM_F_RX_SHIFT;
}

static void rxm_rx_free(struct rxm_rx *rx)
{
	free(rx->staged);
	free(rx);
}

static void rxm_rx_eager(struct rxm_ep *ep, struct rxm_rxb *rxb,
			 const struct rxm_hdr *h)
{
	const uint8_t *data = rxb->buf + sizeof(*h);
	struct rdm_rx_hdr rh = {
		.size = h->size, .tag = h->tag, .cq_data = h->cq_data,
		.flags = rxm_rx_flags(h), .src = rxb->peer->conn,
		.rx_idx = rxm_rx_idx(h),
		.data = data,
	};
	struct rxm_rx *rx;

	if (rdm_ep_rx_inline(&ep->rdm, &rh)) {
		rxm_rx_repost(ep, rxb);
		return;
	}
	/* unexpected: the bytes move out, the buffer goes back at once */
	rx = calloc(1, sizeof(*rx));
	if (rx && h->size && !(rx->staged = malloc(h->size))) {
		free(rx);
		rx = NULL;
	}
	if (!rx) {
		RXM_LOG_WARN(FI_LOG_EP_DATA, "no memory for an unexpected "
			     "message: closing its connection\n");
		struct rxm_peer *peer = rxb->peer;	/* rxb may go */

		rxm_rx_repost(ep, rxb);
		rxm_cm_disconnect(&ep->cm, peer->conn, -FI_ENOMEM);
		return;
	}
	rx->peer = rxb->peer;
	rx->size = rx->got = h->size;
	if (h->size)
		memcpy(rx->staged, data, h->size);
	rxm_ep_ux_charge(ep, rx, sizeof(*rx) + h->size);
	rxm_rx_repost(ep, rxb);
	rh.flags |= RDM_RX_UNMATCHED;
	rh.data = NULL;
	rdm_ep_rx_arrive(&ep->rdm, &rh, rx);
}

/* Place a segment's bytes: into the receive once delivered (what does
 * not fit is dropped: truncation), else into the staging buffer. */
static void rxm_rx_place(struct rxm_rx *rx, uint64_t at, const uint8_t *p,
			 size_t n)
{
	if (rx->discard || rx->status)
		return;
	if (rx->delivered)
		rx->placed += pl_iov_from_buf(rx->dest, rx->dest_cnt, at, p,
					      n);
	else
		memcpy(rx->staged + at, p, n);
}

/* The segmented message ended (all bytes, or an error): finish it. */
static void rxm_rx_sar_end(struct rxm_ep *ep, struct rxm_rx *rx)
{
	int status = rx->status;

	rx->peer->sar = NULL;
	if (rx->discard) {
		rxm_rx_free(rx);
		return;
	}
	if (!rx->delivered)
		return;		/* staged whole: rx_deliver finishes it */
	if (!status && rx->placed < rx->size)
		status = -FI_ETRUNC;
	rdm_ep_rx_done(&ep->rdm, rx->ctx, status, rx->placed);
	rxm_rx_free(rx);
}

static void rxm_rx_sar(struct rxm_ep *ep, struct rxm_rxb *rxb,
		       const struct rxm_hdr *h, size_t len)
{
	struct rxm_peer *peer = rxb->peer;
	const uint8_t *data = rxb->buf + sizeof(*h);
	size_t n = len - sizeof(*h);
	uint64_t at = (uint64_t)h->seg * rxm_sar_seg_payload(&ep->lim);
	struct rxm_rx *rx = peer->sar;

	if (h->seg == 0) {
		struct rdm_rx_hdr rh = {
			.size = h->size, .tag = h->tag, .cq_data = h->cq_data,
			.flags = rxm_rx_flags(h) | RDM_RX_LATER,
			.rx_idx = rxm_rx_idx(h),
			.src = peer->conn,
		};

		if (rx)
			goto bad;	/* a message began inside another */
		rx = calloc(1, sizeof(*rx));
		if (!rx)
			goto nomem;
		rx->peer = peer;
		rx->sar = true;
		rx->size = h->size;
		rx->msg_id = h->msg_id;
		rx->got = n;
		rx->pending = data;
		rx->pending_len = n;
		peer->sar = rx;
		/* the record is held if no receive takes it now (given back
		 * at once otherwise: rx_deliver) */
		rxm_ep_ux_charge(ep, rx, sizeof(*rx));
		rdm_ep_rx_arrive(&ep->rdm, &rh, rx);
		if (peer->sar != rx) {
			/* delivered whole inside arrive, and freed */
			rxm_rx_repost(ep, rxb);
			return;
		}
		rx->pending = NULL;
		/* not matched now: the segments are staged until it is */
		if (!rx->delivered && !rx->discard) {
			rx->staged = malloc(rx->size);
			if (!rx->staged)
				goto nomem;
			rxm_ep_ux_charge(ep, rx, rx->size);
			memcpy(rx->staged, data, n);
		}
		rxm_rx_repost(ep, rxb);
		if (rx->got == rx->size)
			rxm_rx_sar_end(ep, rx);
		return;
	}
	/* a later segment: of the message under way, in order */
	if (!rx || h->msg_id != rx->msg_id || h->size != rx->size ||
	    at != rx->got)
		goto bad;
	rxm_rx_place(rx, at, data, n);
	rx->got += n;
	rxm_rx_repost(ep, rxb);
	if (rx->got == rx->size)
		rxm_rx_sar_end(ep, rx);
	return;

bad:
	RXM_LOG_WARN(FI_LOG_EP_DATA, "segment out of order: closing the "
		     "connection\n");
	rxm_rx_repost(ep, rxb);
	rxm_cm_disconnect(&ep->cm, peer->conn, -FI_EIO);
	return;
nomem:
	RXM_LOG_WARN(FI_LOG_EP_DATA, "no memory for a segmented message: "
		     "closing its connection\n");
	rxm_rx_repost(ep, rxb);
	rxm_cm_disconnect(&ep->cm, peer->conn, -FI_ENOMEM);
}

void rxm_ep_rx_arrived(struct rxm_ep *ep, struct rxm_rxb *rxb, size_t len)
{
	struct rxm_hdr h = { 0 };	/* op 0 in the warning of a runt */
	struct rxm_peer *peer;
	int ret;

	ep->ux_mark = ep->ux_bytes;
	if (len < sizeof(h)) {
		ret = -FI_EINVAL;
		goto bad;
	}
	memcpy(&h, rxb->buf, sizeof(h));
	rxm_hdr_swap(&h);
	ret = rxm_proto_check(&h, len, &ep->lim);
	if (ret)
		goto bad;
	switch (h.op) {
	case RXM_OP_EAGER:
		rxm_rx_eager(ep, rxb, &h);
		return;
	case RXM_OP_SAR:
		rxm_rx_sar(ep, rxb, &h, len);
		return;
	case RXM_OP_RNDV_REQ:
	case RXM_OP_RNDV_DONE:
	case RXM_OP_RNDV_CTS:
	case RXM_OP_RNDV_FIN:
		ret = rxm_ep_rndv_arrived(ep, rxb, &h, len);
		if (ret)
			goto bad;
		rxm_rx_repost(ep, rxb);
		return;
	default:
		/* RMA and atomics: used up before the buffer goes back */
		ret = rxm_ep_rma_arrived(ep, rxb->peer, rxb->ep, &h,
					 rxb->buf + sizeof(h),
					 len - sizeof(h));
		if (ret)
			goto bad;
		rxm_rx_repost(ep, rxb);
		return;
	}
bad:
	RXM_LOG_WARN(FI_LOG_EP_DATA, "bad message (%d, op %u): closing the "
		     "connection\n", ret, (unsigned)h.op);
	/* the repost may free rxb (its connection no longer runs): the
	 * peer first (peers live until the endpoint closes) */
	peer = rxb->peer;
	rxm_rx_repost(ep, rxb);
	rxm_cm_disconnect(&ep->cm, peer->conn, -FI_EIO);
}

void rxm_ep_rx_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err)
{
	struct rxm_rx *rx = peer->sar;

	if (!rx)
		return;
	/* a message cut short is never delivered whole */
	rx->status = err;
	peer->sar = NULL;
	if (rx->discard) {
		rxm_rx_free(rx);
		return;
	}
	if (rx->delivered) {
		rdm_ep_rx_done(&ep->rdm, rx->ctx, err, rx->placed);
		rxm_rx_free(rx);
	}
	/* else the core holds it: its delivery reports the error */
}

int rxm_ep_rx_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
		      const struct iovec *iov, size_t count, void *ctx,
		      uint64_t *len_p)
{
	uint64_t cap = pl_iov_total(iov, count);
	int status;

	rxm_rx_ux_release(ep, rx);
	if (rx->rndv)
		return rxm_ep_rndv_deliver(ep, rx, iov, count, ctx, len_p);
	if (!rx->sar) {
		*len_p = pl_iov_from_buf(iov, count, 0, rx->staged, rx->size);
		status = rx->size > cap ? -FI_ETRUNC : 0;
		rxm_rx_free(rx);
		return status;
	}
	if (count > RXM_IOV_LIMIT)
		count = RXM_IOV_LIMIT;
	memcpy(rx->dest, iov, count * sizeof(*iov));
	rx->dest_cnt = count;
	rx->ctx = ctx;
	if (rx->pending) {
		/* inside arrive: segment 0 is still in its buffer */
		rx->placed = pl_iov_from_buf(iov, count, 0, rx->pending,
					     rx->pending_len);
	} else if (rx->staged) {
		rx->placed = pl_iov_from_buf(iov, count, 0, rx->staged,
					     rx->got);
		free(rx->staged);
		rx->staged = NULL;
	}
	rx->delivered = true;
	if (rx->status || rx->got == rx->size) {
		/* all of it came (or its connection went) before now */
		status = rx->status;
		if (!status && rx->placed < rx->size)
			status = -FI_ETRUNC;
		*len_p = rx->placed;
		if (rx->peer->sar == rx)
			rx->peer->sar = NULL;
		rxm_rx_free(rx);
		return status;
	}
	return 1;	/* rdm_ep_rx_done when the last segment lands */
}

void rxm_ep_rx_discard(struct rxm_ep *ep, struct rxm_rx *rx)
{
	rxm_rx_ux_release(ep, rx);
	if (rx->rndv) {
		rxm_ep_rndv_discard(ep, rx);
		return;
	}
	if (rx->sar && rx->peer->sar == rx) {
		/* segments still to come: dropped as they arrive */
		rx->discard = true;
		free(rx->staged);
		rx->staged = NULL;
		return;
	}
	rxm_rx_free(rx);
}
