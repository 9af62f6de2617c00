/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rendezvous: messages above the SAR limit (rxm_proto.h). The sender
 * registers the application's buffers with the core domain for remote
 * reads only, under keys no peer can guess (random; the core's own when
 * it picks them), and sends RXM_OP_RNDV_REQ naming them. The receiver
 * matches the request like any message; once a receive takes it, the
 * receiver reads the bytes straight into the application's buffers with
 * the core's fi_readmsg on the connection the request came on, then
 * answers RXM_OP_RNDV_DONE (the bytes read and a status), which
 * completes the send and ends the registrations. Neither side copies
 * the payload, and an unexpected large message costs the receiver only
 * its request until a receive is posted.
 *
 * A reception that is discarded, or whose read fails, still answers
 * DONE (with the error), so the sender never waits for ever; a
 * connection that goes down fails every rendezvous of its peer on both
 * sides (rxm_ep_rndv_fail_peer). A DONE that names no waiting send is a
 * protocol error (the connection closes).
 *
 * Everything runs inside the core's serialization (rxm_ep.h).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "pl_iov.h"
#include "rxm_ep.h"

/* ---- sender ---- */

void rxm_ep_rndv_tx_free(struct rxm_rndv_tx *t)
{
	size_t i;

	for (i = 0; i < t->nmr; i++)
		(void)fi_close(&t->mr[i]->fid);
	free(t);
}

/* Register one buffer with the core for remote access: its address and
 * key as the peer names them (rxm_rndv_iov). */
int rxm_ep_rndv_reg(struct rxm_ep *ep, const struct iovec *v,
		    uint64_t access, struct fid_mr **mr_p,
		    struct rxm_rndv_iov *out)
{
	int mode = ep->dom->core_info->domain_attr->mr_mode;
	uint64_t key = 0;
	int ret, tries;

	for (tries = 0; tries < 8; tries++) {
		if (!(mode & FI_MR_PROV_KEY) &&
		    getrandom(&key, sizeof(key), 0) != sizeof(key))
			return -FI_EIO;
		ret = fi_mr_reg(ep->dom->core_domain, v->iov_base, v->iov_len,
				access, 0, key, 0, mr_p, NULL);
		if (ret != -FI_ENOKEY)
			break;	/* a random key already in use: another */
	}
	if (ret)
		return ret;
	out->addr = htole64((mode & FI_MR_VIRT_ADDR) ?
			    (uint64_t)(uintptr_t)v->iov_base : 0);
	out->len = htole64(v->iov_len);
	out->key = htole64(fi_mr_key(*mr_p));
	return 0;
}

int rxm_ep_rndv_send(struct rxm_ep *ep, struct rxm_peer *peer,
		     const struct rdm_tx_msg *msg, uint64_t size)
{
	struct rxm_rndv_req req;
	struct rxm_rndv_tx *t;
	struct rxm_txop *op;
	struct rxm_txb *b;
	size_t i, n = 0, plen;
	int ret;

	if (msg->iov_count > RXM_RNDV_IOV_MAX)
		return -FI_EINVAL;
	if (ep->rndv_write)
		return rxm_ep_rndv_write_send(ep, peer, msg, size);
	t = calloc(1, sizeof(*t));
	op = malloc(sizeof(*op));
	if (!t || !op) {
		ret = -FI_ENOMEM;
		goto err;
	}
	memset(&req, 0, sizeof(req));
	for (i = 0; i < msg->iov_count; i++) {
		if (!msg->iov[i].iov_len)
			continue;	/* the request names no empty buffer */
		ret = rxm_ep_rndv_reg(ep, &msg->iov[i], FI_REMOTE_READ,
				      &t->mr[t->nmr], &req.iov[n]);
		if (ret)
			goto err;
		t->nmr++;
		n++;
	}
	req.count = htole32((uint32_t)n);
	plen = offsetof(struct rxm_rndv_req, iov) + n * sizeof(req.iov[0]);
	b = rxm_ep_txb_new(peer, op, sizeof(struct rxm_hdr) + plen);
	if (!b) {
		ret = -FI_ENOMEM;
		goto err;
	}
	op->context = msg->context;
	op->left = 2;		/* the request's send, then DONE */
	op->status = 0;
	t->op = op;
	t->msg_id = ++ep->next_msg_id;
	rxm_ep_msg_hdr((struct rxm_hdr *)b->buf, RXM_OP_RNDV_REQ, msg, size, 0,
		       t->msg_id);
	memcpy(b->buf + sizeof(struct rxm_hdr), &req, plen);
	t->next = peer->rndv_tx;
	peer->rndv_tx = t;
	t->linked = true;
	rxm_ep_tx_queue(ep, peer, b, b);
	return 1;

err:
	free(op);
	if (t)
		rxm_ep_rndv_tx_free(t);
	return ret;
}

static int rxm_rndv_done_in(struct rxm_ep *ep, struct rxm_peer *peer,
			    const struct rxm_hdr *h)
{
	struct rxm_rndv_tx **pp, *t;

	for (pp = &peer->rndv_tx; (t = *pp); pp = &t->next)
		if (t->msg_id == h->msg_id)
			break;
	if (!t)
		/* the answer of a connection that ended (and failed its
		 * sends) was still in the core's queue: nothing to do;
		 * otherwise it names nothing we sent */
		return peer->conn->state == RXM_CONN_CONNECTED ? -FI_EIO : 0;
	if (t->writing)
		return -FI_EIO;	/* it asked for the bytes already */
	*pp = t->next;
	t->linked = false;
	rxm_ep_txop_done(ep, t->op, -(int)h->seg);
	rxm_ep_rndv_tx_free(t);
	return 0;
}

/* ---- receiver ---- */

static void rxm_rndv_unlink(struct rxm_rx *rx)
{
	struct rxm_rx **pp;

	for (pp = &rx->peer->rndv_rx; *pp; pp = &(*pp)->rndv_next)
		if (*pp == rx) {
			*pp = rx->rndv_next;
			return;
		}
}

void rxm_ep_rndv_free(struct rxm_rx *rx)
{
	size_t i;

	rxm_rndv_unlink(rx);
	for (i = 0; i < rx->nmr; i++)
		(void)fi_close(&rx->mr[i]->fid);
	free(rx);
}

/* DONE to the sender, with what was read and how it went; nothing when
 * the connection is gone (the sender failed it already). */
void rxm_ep_rndv_answer(struct rxm_ep *ep, struct rxm_rx *rx, uint64_t len,
			int status)
{
	struct rxm_txb *b;

	if (rx->status || rx->peer->conn->state != RXM_CONN_CONNECTED)
		return;
	b = rxm_ep_txb_new(rx->peer, NULL, sizeof(struct rxm_hdr));
	if (!b) {
		rxm_cm_disconnect(&ep->cm, rx->peer->conn, -FI_ENOMEM);
		return;
	}
	rxm_ep_hdr_fill((struct rxm_hdr *)b->buf, RXM_OP_RNDV_DONE, 0,
			rxm_wire_errno(status), len, 0, 0, rx->msg_id);
	rxm_ep_tx_queue(ep, rx->peer, b, b);
}

static int rxm_rndv_req_in(struct rxm_ep *ep, struct rxm_rxb *rxb,
			   const struct rxm_hdr *h, size_t len)
{
	size_t plen = len - sizeof(*h);
	struct rdm_rx_hdr rh = {
		.size = h->size, .tag = h->tag, .cq_data = h->cq_data,
		.flags = RDM_RX_LATER |
			 ((h->flags & RXM_F_TAGGED) ? RDM_RX_TAGGED : 0) |
			 ((h->flags & RXM_F_CQ_DATA) ? RDM_RX_CQ_DATA : 0),
		.rx_idx = (h->flags & RXM_F_RX_MASK) >> RXM_F_RX_SHIFT,
		.src = rxb->peer->conn,
	};
	struct rxm_rx *rx = calloc(1, sizeof(*rx));

	if (!rx)
		return -FI_ENOMEM;
	if (h->flags & RXM_F_RNDV_WRITE) {
		/* the sender writes once we name our buffers */
		rx->write_mode = true;
	} else {
		/* our own copy, checked in host order (rxm_rndv_check) */
		memcpy(&rx->req, rxb->buf + sizeof(*h),
		       plen < sizeof(rx->req) ? plen : sizeof(rx->req));
		rxm_rndv_req_swap(&rx->req, le32toh(rx->req.count));
		if (rxm_rndv_check(&rx->req, plen, h->size)) {
			free(rx);
			return -FI_EIO;
		}
	}
	rx->peer = rxb->peer;
	rx->size = h->size;
	rx->msg_id = h->msg_id;
	rx->rndv = true;
	rx->read_ep = rxb->ep;
	rx->rndv_next = rx->peer->rndv_rx;
	rx->peer->rndv_rx = rx;
	/* held while no receive takes it (rxm_ep.h) */
	rxm_ep_ux_charge(ep, rx, sizeof(*rx));
	rdm_ep_rx_arrive(&ep->rdm, &rh, rx);
	return 0;
}

int rxm_ep_rndv_arrived(struct rxm_ep *ep, struct rxm_rxb *rxb,
			const struct rxm_hdr *h, size_t len)
{
	switch (h->op) {
	case RXM_OP_RNDV_DONE:
		return rxm_rndv_done_in(ep, rxb->peer, h);
	case RXM_OP_RNDV_CTS:
		return rxm_ep_rndv_cts_in(ep, rxb, h, len);
	case RXM_OP_RNDV_FIN:
		return rxm_ep_rndv_fin_in(ep, rxb->peer, h);
	default:
		return rxm_rndv_req_in(ep, rxb, h, len);
	}
}

/* Post the read of rx: -FI_EAGAIN when the core has no room now. */
static int rxm_rndv_post(struct rxm_ep *ep, struct rxm_rx *rx)
{
	struct fi_rma_iov rma[RXM_RNDV_IOV_MAX];
	uint64_t left = rx->placed;
	struct fi_msg_rma m;
	size_t i, n = 0;
	ssize_t ret;

	(void)ep;
	for (i = 0; i < rx->req.count && left; i++) {
		rma[n].addr = rx->req.iov[i].addr;
		rma[n].len = rx->req.iov[i].len < left ?
			     rx->req.iov[i].len : left;
		rma[n].key = rx->req.iov[i].key;
		left -= rma[n].len;
		n++;
	}
	m = (struct fi_msg_rma){
		.msg_iov = rx->dest, .iov_count = rx->dest_cnt,
		.rma_iov = rma, .rma_iov_count = n, .context = rx,
	};
	ret = fi_readmsg(rx->read_ep, &m, 0);
	if (!ret)
		rx->reading = true;
	return (int)ret;
}

static void rxm_rndv_wait(struct rxm_ep *ep, struct rxm_rx *rx)
{
	rx->on_wait = true;
	rx->wait_next = ep->rndv_wait;
	ep->rndv_wait = rx;
}

static void rxm_rndv_unwait(struct rxm_ep *ep, struct rxm_rx *rx)
{
	struct rxm_rx **pp;

	for (pp = &ep->rndv_wait; *pp; pp = &(*pp)->wait_next)
		if (*pp == rx) {
			*pp = rx->wait_next;
			break;
		}
	rx->on_wait = false;
}

/* The reception is over (read, failed or nothing to read): answer the
 * sender, then the core. */
static void rxm_rndv_finish(struct rxm_ep *ep, struct rxm_rx *rx, int status)
{
	uint64_t len = status ? 0 : rx->placed;

	rxm_ep_rndv_answer(ep, rx, len, status);
	if (!status && rx->placed < rx->size)
		status = -FI_ETRUNC;
	if (rx->status)
		status = rx->status;
	rdm_ep_rx_done(&ep->rdm, rx->ctx, status, len);
	rxm_ep_rndv_free(rx);
}

int rxm_ep_rndv_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
			const struct iovec *iov, size_t count, void *ctx,
			uint64_t *len_p)
{
	uint64_t cap = pl_iov_total(iov, count), want, have = 0;
	size_t i;
	int ret, status;

	if (rx->status) {
		/* its connection went while the core held it */
		status = rx->status;
		*len_p = 0;
		rxm_ep_rndv_free(rx);
		return status;
	}
	want = rx->size < cap ? rx->size : cap;
	/* the application's buffers, cut to what is read */
	rx->dest_cnt = 0;
	for (i = 0; i < count && i < RXM_IOV_LIMIT && have < want; i++) {
		struct iovec v = iov[i];

		if (v.iov_len > want - have)
			v.iov_len = (size_t)(want - have);
		if (!v.iov_len)
			continue;
		rx->dest[rx->dest_cnt++] = v;
		have += v.iov_len;
	}
	rx->placed = have;
	rx->ctx = ctx;
	rx->delivered = true;
	if (!rx->placed) {
		status = rx->size ? -FI_ETRUNC : 0;
		rxm_ep_rndv_answer(ep, rx, 0, 0);
		*len_p = 0;
		rxm_ep_rndv_free(rx);
		return status;
	}
	if (rx->write_mode) {
		ret = rxm_ep_rndv_write_accept(ep, rx);
		if (ret < 0)
			*len_p = 0;
		return ret;
	}
	ret = rxm_rndv_post(ep, rx);
	if (ret == -FI_EAGAIN) {
		rxm_rndv_wait(ep, rx);
		return 1;
	}
	if (ret) {
		rxm_ep_rndv_answer(ep, rx, 0, ret);
		*len_p = 0;
		rxm_ep_rndv_free(rx);
		return ret;
	}
	return 1;	/* rxm_ep_rndv_read_done, then rdm_ep_rx_done */
}

void rxm_ep_rndv_read_done(struct rxm_ep *ep, struct rxm_rx *rx, int status)
{
	rx->reading = false;
	rxm_rndv_finish(ep, rx, status);
}

int rxm_ep_rndv_progress(struct rxm_ep *ep)
{
	struct rxm_rx *rx, *next, *still = NULL;
	int work = 0, ret;

	rx = ep->rndv_wait;
	ep->rndv_wait = NULL;
	for (; rx; rx = next) {
		next = rx->wait_next;
		rx->on_wait = false;
		ret = rxm_rndv_post(ep, rx);
		if (ret == -FI_EAGAIN) {
			rx->on_wait = true;
			rx->wait_next = still;
			still = rx;
			continue;
		}
		work++;
		if (ret)
			rxm_rndv_finish(ep, rx, ret);
	}
	ep->rndv_wait = still;
	return work;
}

void rxm_ep_rndv_discard(struct rxm_ep *ep, struct rxm_rx *rx)
{
	/* FI_DISCARD: the sender completes as if it had been received;
	 * an endpoint closing never took it: its connection's end fails
	 * the send instead */
	if (!ep->rdm.closing)
		rxm_ep_rndv_answer(ep, rx, 0, 0);
	rxm_ep_rndv_free(rx);
}

void rxm_ep_rndv_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err)
{
	struct rxm_rndv_tx *t;
	struct rxm_rx *rx, *next;

	while ((t = peer->rndv_tx)) {
		peer->rndv_tx = t->next;
		t->linked = false;
		if (t->writing)
			continue;	/* the core completes its write in
					 * error: rxm_ep_rndv_write_done */
		if (t->on_wwait)
			rxm_ep_rndv_write_unwait(ep, t);
		rxm_ep_txop_done(ep, t->op, err);
		rxm_ep_rndv_tx_free(t);
	}
	for (rx = peer->rndv_rx; rx; rx = next) {
		next = rx->rndv_next;
		if (rx->reading)
			continue;	/* the core completes its read in error */
		if (rx->on_wait || rx->awaiting_fin) {
			if (rx->on_wait)
				rxm_rndv_unwait(ep, rx);
			rx->status = err;
			rxm_rndv_finish(ep, rx, err);
			continue;
		}
		/* held by the core: its delivery reports the error */
		rx->status = err;
	}
}
