/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send side of the rxm transport (rxm_ep.h): a message becomes one
 * eager core message, or segments of buffer_size bytes (RXM_OP_SAR),
 * copied into tx buffers queued on the peer; the queue goes to the core
 * endpoint as far as the core takes it, now and at every poll. The send
 * completes when all its buffers did. Inside the core's serialization.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_iov.h"
#include "rxm_ep.h"

static void rxm_tx_pend(struct rxm_ep *ep, struct rxm_peer *peer)
{
	if (peer->on_pend)
		return;
	peer->on_pend = true;
	peer->pend_next = ep->pend;
	ep->pend = peer;
}

void rxm_ep_hdr_fill(struct rxm_hdr *h, uint8_t op, uint16_t flags,
		     uint32_t seg, uint64_t size, uint64_t tag,
		     uint64_t cq_data, uint64_t msg_id)
{
	memset(h, 0, sizeof(*h));
	h->version = RXM_PROTO_VERSION;
	h->op = op;
	h->flags = htole16(flags);
	h->seg = htole32(seg);
	h->size = htole64(size);
	h->tag = htole64(tag);
	h->cq_data = htole64(cq_data);
	h->msg_id = htole64(msg_id);
}

void rxm_ep_msg_hdr(struct rxm_hdr *h, uint8_t op,
		    const struct rdm_tx_msg *msg, uint64_t size,
		    uint32_t seg, uint64_t msg_id)
{
	uint16_t flags = 0;

	if (msg->flags & RDM_TX_TAGGED)
		flags |= RXM_F_TAGGED;
	if (msg->flags & RDM_TX_CQ_DATA)
		flags |= RXM_F_CQ_DATA;
	/* at most 255 (rxm_ep_transport_send refuses more) */
	flags |= (uint16_t)(msg->rx_idx << RXM_F_RX_SHIFT);
	rxm_ep_hdr_fill(h, op, flags, seg, size,
			(msg->flags & RDM_TX_TAGGED) ? msg->tag : 0,
			(msg->flags & RDM_TX_CQ_DATA) ? msg->cq_data : 0,
			msg_id);
}

struct rxm_txb *rxm_ep_txb_new(struct rxm_peer *peer, struct rxm_txop *op,
			       size_t len)
{
	struct rxm_txb *b = malloc(sizeof(*b) + len);

	if (!b)
		return NULL;
	b->next = NULL;
	b->peer = peer;
	b->op = op;
	b->len = len;
	b->delivery = false;
	return b;
}

void rxm_ep_txb_free_chain(struct rxm_txb *b)
{
	struct rxm_txb *n;

	for (; b; b = n) {
		n = b->next;
		free(b);
	}
}

void rxm_ep_tx_queue(struct rxm_ep *ep, struct rxm_peer *peer,
		     struct rxm_txb *first, struct rxm_txb *last)
{
	if (peer->txq_tail)
		peer->txq_tail->next = first;
	else
		peer->txq_head = first;
	peer->txq_tail = last;
	rxm_tx_pend(ep, peer);
	(void)rxm_ep_tx_flush(ep);
}

/* A small message to a connected peer with nothing queued before it:
 * the core copies header and payload now, so it is complete at return
 * (as a core send's completion would say later: written to the core).
 * false: the queue takes it (not connected, core full, core error). */
static bool rxm_tx_inject(struct rxm_peer *peer, const struct rdm_tx_msg *msg,
			  uint64_t size)
{
	uint8_t flat[RXM_TX_FLAT_MAX];
	struct rxm_conn *c = peer->conn;
	size_t cur = 0, off = 0;

	if (c->state != RXM_CONN_CONNECTED)
		return false;
	rxm_ep_msg_hdr((struct rxm_hdr *)flat, RXM_OP_EAGER, msg, size, 0, 0);
	(void)pl_iov_to_buf(msg->iov, msg->iov_count, &cur, &off,
			    flat + sizeof(struct rxm_hdr), (size_t)size);
	return fi_inject(c->msg_ep, flat, sizeof(struct rxm_hdr) + size,
			 0) == 0;
}

int rxm_ep_tx_send(struct rxm_ep *ep, struct rxm_peer *peer,
		   const struct rdm_tx_msg *msg)
{
	uint64_t size = pl_iov_total(msg->iov, msg->iov_count);
	size_t per = rxm_sar_seg_payload(&ep->lim), cur = 0, off = 0;
	struct rxm_txb *first = NULL, *last = NULL, *b;
	struct rxm_txop *op;
	uint32_t nseg, i;
	uint64_t msg_id = 0, chunk;

	if (size > ep->lim.max_msg_size)
		return -FI_EMSGSIZE;
	/* above the SAR limit, the receiver reads the application's
	 * buffers itself; an inject's must be free at return */
	if (ep->rndv && size > ep->lim.sar_limit &&
	    !(msg->flags & RDM_TX_INJECT))
		return rxm_ep_rndv_send(ep, peer, msg, size);
	if (size + sizeof(struct rxm_hdr) <= ep->core_inject &&
	    !(msg->flags & RDM_TX_DELIVERY) && !peer->txq_head &&
	    rxm_tx_inject(peer, msg, size))
		return 0;
	nseg = size <= per ? 1 : (uint32_t)((size + per - 1) / per);
	op = malloc(sizeof(*op));
	if (!op)
		return -FI_ENOMEM;
	op->context = msg->context;
	op->left = nseg;
	op->status = 0;
	if (nseg > 1)
		msg_id = ++ep->next_msg_id;
	for (i = 0; i < nseg; i++) {
		chunk = size - (uint64_t)i * per < per ?
			size - (uint64_t)i * per : per;
		b = rxm_ep_txb_new(peer, op, sizeof(struct rxm_hdr) + chunk);
		if (!b)
			goto err;
		rxm_ep_msg_hdr((struct rxm_hdr *)b->buf,
			   nseg > 1 ? RXM_OP_SAR : RXM_OP_EAGER, msg, size,
			   i, msg_id);
		b->delivery = (msg->flags & RDM_TX_DELIVERY) != 0;
		(void)pl_iov_to_buf(msg->iov, msg->iov_count, &cur, &off,
				    b->buf + sizeof(struct rxm_hdr), chunk);
		rxm_ep_txb_append(&first, &last, b);
	}
	/* the whole message queues at once, behind what was queued:
	 * segments of two messages never interleave on a connection */
	rxm_ep_tx_queue(ep, peer, first, last);
	return 1;

err:
	rxm_ep_txb_free_chain(first);
	free(op);
	return -FI_ENOMEM;
}

/* One tx buffer to the core. With more queued behind it, FI_MORE: a
 * core that gathers (tcp) writes the run in one system call at its last
 * buffer, so a read's data and its ack, or a message's segments, leave
 * together and the peer reads them together; the reply to a read took
 * two sends and two reads, 4 us of a 10 us fi_read. A buffer of an
 * FI_DELIVERY_COMPLETE send asks the core for the same. */
static ssize_t rxm_tx_core_send(struct fid_ep *msg_ep, struct rxm_txb *b)
{
	struct iovec iov = { .iov_base = b->buf, .iov_len = b->len };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .context = b };
	uint64_t flags = (b->next ? FI_MORE : 0) |
			 (b->delivery ? FI_DELIVERY_COMPLETE : 0);

	if (!flags)
		return fi_send(msg_ep, b->buf, b->len, NULL, 0, b);
	return fi_sendmsg(msg_ep, &m, FI_COMPLETION | flags);
}

/* Push one peer's queue; false when the core is full (try later). */
static bool rxm_tx_push(struct rxm_ep *ep, struct rxm_peer *peer, int *work)
{
	struct rxm_conn *c = peer->conn;
	struct rxm_txb *b;
	ssize_t ret;

	if (c->state != RXM_CONN_CONNECTED)
		return false;	/* sent once connected */
	while ((b = peer->txq_head)) {
		ret = rxm_tx_core_send(c->msg_ep, b);
		if (ret == -FI_EAGAIN)
			return false;
		peer->txq_head = b->next;
		if (!peer->txq_head)
			peer->txq_tail = NULL;
		b->next = NULL;
		(*work)++;
		if (ret)
			rxm_ep_tx_done(ep, b, (int)ret);
	}
	return true;
}

int rxm_ep_tx_flush(struct rxm_ep *ep)
{
	struct rxm_peer *p = ep->pend, **pp = &ep->pend;
	int work = 0;

	while ((p = *pp)) {
		if (rxm_tx_push(ep, p, &work) || !p->txq_head) {
			*pp = p->pend_next;
			p->on_pend = false;
			p->pend_next = NULL;
		} else {
			pp = &p->pend_next;
		}
	}
	return work;
}

void rxm_ep_tx_done(struct rxm_ep *ep, struct rxm_txb *txb, int status)
{
	struct rxm_txop *op = txb->op;

	free(txb);
	if (op)	/* none: an RMA request or answer, its ack completes it */
		rxm_ep_txop_done(ep, op, status);
}

void rxm_ep_txop_done(struct rxm_ep *ep, struct rxm_txop *op, int status)
{
	if (status && !op->status)
		op->status = status;
	if (--op->left)
		return;
	rdm_ep_tx_done(&ep->rdm, op->context, op->status);
	free(op);
}

void rxm_ep_tx_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err)
{
	struct rxm_txb *b;

	while ((b = peer->txq_head)) {
		peer->txq_head = b->next;
		rxm_ep_tx_done(ep, b, err);
	}
	peer->txq_tail = NULL;
}
