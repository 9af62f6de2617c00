/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Write-based rendezvous (rxm_proto.h; the sender's
 * FI_OFI_RXM_USE_RNDV_WRITE). The sender's RNDV_REQ names no buffer and
 * registers nothing. Once a receive takes the request, the receiver
 * registers the part of its buffers the message fills for remote writes
 * (random keys, as the read mode's) and answers RNDV_CTS naming them;
 * the sender checks the CTS against its own copy of what it sent (the
 * bytes asked for at most the message's, the entries by rxm_rndv_check),
 * writes its buffers there with the core's fi_writemsg on the
 * connection the CTS came on, and once the write completed sends
 * RNDV_FIN with the write's status: the connection delivers in order, so
 * the bytes are in place before the FIN arrives, and the FIN completes
 * the reception and closes its registrations.
 *
 * The send completes in two shares (struct rxm_txop): the request's core
 * send, and either the FIN's core send or an RNDV_DONE from a receiver
 * that took nothing or could not register. A connection that ends fails
 * both sides (rxm_ep_rndv_fail_peer); a write the core holds then comes
 * back in error first. A CTS or FIN that names nothing waiting is a
 * protocol error (the connection closes).
 *
 * Everything runs inside the core's serialization (rxm_ep.h).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "rxm_ep.h"

/* ---- sender ---- */

int rxm_ep_rndv_write_send(struct rxm_ep *ep, struct rxm_peer *peer,
			   const struct rdm_tx_msg *msg, uint64_t size)
{
	struct rxm_rndv_tx *t = calloc(1, sizeof(*t));
	struct rxm_txop *op = malloc(sizeof(*op));
	struct rxm_hdr *h;
	struct rxm_txb *b;
	size_t i;

	if (!t || !op)
		goto err;
	for (i = 0; i < msg->iov_count; i++)
		if (msg->iov[i].iov_len)
			t->iov[t->iov_cnt++] = msg->iov[i];
	b = rxm_ep_txb_new(peer, op, sizeof(struct rxm_hdr));
	if (!b)
		goto err;
	op->context = msg->context;
	op->left = 2;		/* the request's send, then FIN's or DONE */
	op->status = 0;
	t->op = op;
	t->peer = peer;
	t->size = size;
	t->write_mode = true;
	t->msg_id = ++ep->next_msg_id;
	h = (struct rxm_hdr *)b->buf;
	rxm_ep_msg_hdr(h, RXM_OP_RNDV_REQ, msg, size, 0, t->msg_id);
	h->flags = htole16(le16toh(h->flags) | RXM_F_RNDV_WRITE);
	t->next = peer->rndv_tx;
	peer->rndv_tx = t;
	t->linked = true;
	rxm_ep_tx_queue(ep, peer, b, b);
	return 1;

err:
	free(op);
	free(t);
	return -FI_ENOMEM;
}

static void rxm_rndv_tx_unlink(struct rxm_rndv_tx *t)
{
	struct rxm_rndv_tx **pp;

	if (!t->linked)
		return;
	for (pp = &t->peer->rndv_tx; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	t->linked = false;
}

/* The write is over (completed, or could not be posted): FIN to the
 * receiver with its status, whose send is the operation's last share. */
static void rxm_rndv_write_end(struct rxm_ep *ep, struct rxm_rndv_tx *t,
			       int status)
{
	struct rxm_txop *op = t->op;
	struct rxm_txb *b;

	t->writing = false;
	rxm_rndv_tx_unlink(t);
	if (t->peer->conn->state != RXM_CONN_CONNECTED) {
		/* no FIN can tell the receiver, whose reception fails */
		rxm_ep_txop_done(ep, op, status ? status : -FI_ECONNRESET);
		free(t);
		return;
	}
	b = rxm_ep_txb_new(t->peer, op, sizeof(struct rxm_hdr));
	if (!b) {
		rxm_cm_disconnect(&ep->cm, t->peer->conn, -FI_ENOMEM);
		rxm_ep_txop_done(ep, op, -FI_ENOMEM);
		free(t);
		return;
	}
	if (status && !op->status)
		op->status = status;
	rxm_ep_hdr_fill((struct rxm_hdr *)b->buf, RXM_OP_RNDV_FIN, 0,
			rxm_wire_errno(status), status ? 0 : t->written, 0, 0,
			t->msg_id);
	rxm_ep_tx_queue(ep, t->peer, b, b);
	free(t);
}

/* Post the write the CTS asked for: -FI_EAGAIN when the core has no
 * room now. */
static int rxm_rndv_write_post(struct rxm_rndv_tx *t)
{
	struct iovec src[RXM_RNDV_IOV_MAX];
	uint64_t left = t->written;
	struct fi_msg_rma m;
	size_t i, n = 0;
	ssize_t ret;

	for (i = 0; i < t->iov_cnt && left; i++) {
		src[n] = t->iov[i];
		if (src[n].iov_len > left)
			src[n].iov_len = (size_t)left;
		left -= src[n].iov_len;
		n++;
	}
	m = (struct fi_msg_rma){
		.msg_iov = src, .iov_count = n,
		.rma_iov = t->target, .rma_iov_count = t->ntarget,
		.context = t,
	};
	ret = fi_writemsg(t->write_ep, &m, 0);
	if (!ret)
		t->writing = true;
	return (int)ret;
}

static void rxm_rndv_wwait(struct rxm_ep *ep, struct rxm_rndv_tx *t)
{
	t->on_wwait = true;
	t->wait_next = ep->rndv_wwait;
	ep->rndv_wwait = t;
}

void rxm_ep_rndv_write_unwait(struct rxm_ep *ep, struct rxm_rndv_tx *t)
{
	struct rxm_rndv_tx **pp;

	for (pp = &ep->rndv_wwait; *pp; pp = &(*pp)->wait_next)
		if (*pp == t) {
			*pp = t->wait_next;
			break;
		}
	t->on_wwait = false;
	t->wait_next = NULL;
}

int rxm_ep_rndv_cts_in(struct rxm_ep *ep, struct rxm_rxb *rxb,
		       const struct rxm_hdr *h, size_t len)
{
	size_t plen = len - sizeof(*h);
	struct rxm_peer *peer = rxb->peer;
	struct rxm_rndv_req req;
	struct rxm_rndv_tx *t;
	uint32_t i;
	int ret;

	for (t = peer->rndv_tx; t; t = t->next)
		if (t->msg_id == h->msg_id)
			break;
	if (!t)
		/* as for DONE: a connection that ended failed it already */
		return peer->conn->state == RXM_CONN_CONNECTED ? -FI_EIO : 0;
	/* one CTS, for a write-based send, asking at most its bytes */
	if (!t->write_mode || t->ntarget || h->size > t->size)
		return -FI_EIO;
	/* our own copy, checked in host order */
	memset(&req, 0, sizeof(req));
	memcpy(&req, rxb->buf + sizeof(*h),
	       plen < sizeof(req) ? plen : sizeof(req));
	rxm_rndv_req_swap(&req, le32toh(req.count));
	if (rxm_rndv_check(&req, plen, h->size))
		return -FI_EIO;
	for (i = 0; i < req.count; i++)
		t->target[i] = (struct fi_rma_iov){
			.addr = req.iov[i].addr,
			.len = req.iov[i].len,
			.key = req.iov[i].key,
		};
	t->ntarget = req.count;
	t->written = h->size;
	t->write_ep = rxb->ep;
	ret = rxm_rndv_write_post(t);
	if (ret == -FI_EAGAIN)
		rxm_rndv_wwait(ep, t);
	else if (ret)
		rxm_rndv_write_end(ep, t, ret);
	return 0;
}

void rxm_ep_rndv_write_done(struct rxm_ep *ep, struct rxm_rndv_tx *t,
			    int status)
{
	rxm_rndv_write_end(ep, t, status);
}

int rxm_ep_rndv_write_progress(struct rxm_ep *ep)
{
	struct rxm_rndv_tx *t, *next, *still = NULL;
	int work = 0, ret;

	t = ep->rndv_wwait;
	ep->rndv_wwait = NULL;
	for (; t; t = next) {
		next = t->wait_next;
		t->on_wwait = false;
		t->wait_next = NULL;
		ret = rxm_rndv_write_post(t);
		if (ret == -FI_EAGAIN) {
			t->on_wwait = true;
			t->wait_next = still;
			still = t;
			continue;
		}
		work++;
		if (ret)
			rxm_rndv_write_end(ep, t, ret);
	}
	ep->rndv_wwait = still;
	return work;
}

/* ---- receiver ---- */

int rxm_ep_rndv_write_accept(struct rxm_ep *ep, struct rxm_rx *rx)
{
	struct rxm_rndv_req req;
	struct rxm_txb *b;
	size_t i, plen;
	int ret;

	memset(&req, 0, sizeof(req));
	for (i = 0; i < rx->dest_cnt; i++) {
		ret = rxm_ep_rndv_reg(ep, &rx->dest[i], FI_REMOTE_WRITE,
				      &rx->mr[rx->nmr], &req.iov[i]);
		if (ret)
			goto fail;
		rx->nmr++;
	}
	req.count = htole32((uint32_t)rx->dest_cnt);
	plen = offsetof(struct rxm_rndv_req, iov) +
	       rx->dest_cnt * sizeof(req.iov[0]);
	b = rxm_ep_txb_new(rx->peer, NULL, sizeof(struct rxm_hdr) + plen);
	if (!b) {
		ret = -FI_ENOMEM;
		goto fail;
	}
	rxm_ep_hdr_fill((struct rxm_hdr *)b->buf, RXM_OP_RNDV_CTS, 0, 0,
			rx->placed, 0, 0, rx->msg_id);
	memcpy(b->buf + sizeof(struct rxm_hdr), &req, plen);
	rx->awaiting_fin = true;
	RXM_LOG_DBG(FI_LOG_EP_DATA, "rendezvous by write: CTS for %llu "
		    "bytes in %zu buffers\n", (unsigned long long)rx->placed,
		    rx->dest_cnt);
	rxm_ep_tx_queue(ep, rx->peer, b, b);
	return 1;	/* the FIN completes it (rxm_ep_rndv_fin_in) */

fail:
	/* the sender completes with the error, as for a failed read */
	rxm_ep_rndv_answer(ep, rx, 0, ret);
	rxm_ep_rndv_free(rx);
	return ret;
}

int rxm_ep_rndv_fin_in(struct rxm_ep *ep, struct rxm_peer *peer,
		       const struct rxm_hdr *h)
{
	struct rxm_rx *rx;
	uint64_t len;
	int status = -(int)h->seg;

	for (rx = peer->rndv_rx; rx; rx = rx->rndv_next)
		if (rx->awaiting_fin && rx->msg_id == h->msg_id)
			break;
	if (!rx)
		return peer->conn->state == RXM_CONN_CONNECTED ? -FI_EIO : 0;
	/* a successful write wrote exactly what the CTS named */
	if (!status && h->size != rx->placed)
		return -FI_EIO;
	len = status ? 0 : rx->placed;
	if (!status && rx->placed < rx->size)
		status = -FI_ETRUNC;
	rdm_ep_rx_done(&ep->rdm, rx->ctx, status, len);
	rxm_ep_rndv_free(rx);
	return 0;
}
