/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA and atomics on rxm, emulated over the connection's messages
 * (rxm_proto.h, "RMA and atomics"): the initiator's side of the
 * transport's rma op (rdm_rma.h), and the target's handling, which
 * checks every request against this domain's registrations
 * (rdm_rma_check) before a byte of its memory moves and answers each
 * one, in order, with an ack.
 *
 * Initiator. A request copies what it sends into tx buffers (so the
 * application's source buffer is free when the call returns) and waits
 * on its peer's queue (rma_head..rma_tail) for its answers. A write or
 * read past one buffer goes by the core instead (rxm_ep_rma_core.c):
 * its request names our buffers, which stay the application's until
 * the answer. The target answers emulated requests as it reads them,
 * and those by the core when their transfer ends, so an answer names
 * its request by id; one that names none waiting is a protocol error
 * that closes the connection, and the requests still queued fail with
 * the connection (rxm_ep_rma_fail_peer).
 *
 * Everything runs inside the core's serialization (rxm_ep.h).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_iov.h"
#include "rxm_ep.h"

#define RXM_RMA_HDRS	(sizeof(struct rxm_hdr) + sizeof(struct rxm_rma_hdr))

/* ---- initiator: requests ---- */

static void rxm_rma_put_rh(uint8_t *buf, uint64_t addr, uint64_t key)
{
	struct rxm_rma_hdr rh = {
		.addr = htole64(addr),
		.key = htole64(key),
	};

	memcpy(buf + sizeof(struct rxm_hdr), &rh, sizeof(rh));
}

/* A write as chunks of at most one buffer, each acknowledged. */
static int rxm_rma_write_chain(struct rxm_ep *ep, struct rxm_peer *peer,
			       const struct rdm_rma_msg *m, uint64_t id,
			       struct rxm_txb **first_p,
			       struct rxm_txb **last_p, uint32_t *n_p)
{
	uint64_t total = pl_iov_total(m->iov, m->iov_count), at = 0, chunk;
	size_t per = ep->lim.buf_size - RXM_RMA_HDRS, cur = 0, off = 0;
	struct rxm_txb *first = NULL, *last = NULL, *b;
	uint32_t n = 0;
	uint16_t flags;

	if (total > ep->lim.max_msg_size)
		return -FI_EMSGSIZE;
	do {
		chunk = total - at < per ? total - at : per;
		b = rxm_ep_txb_new(peer, NULL, RXM_RMA_HDRS + chunk);
		if (!b) {
			rxm_ep_txb_free_chain(first);
			return -FI_ENOMEM;
		}
		flags = 0;
		if (at + chunk == total)
			flags = RXM_F_LAST | ((m->flags & RDM_TX_CQ_DATA) ?
					      RXM_F_CQ_DATA : 0);
		rxm_ep_hdr_fill((struct rxm_hdr *)b->buf, RXM_OP_WRITE, flags,
				n, chunk, total,
				(flags & RXM_F_CQ_DATA) ? m->cq_data : 0, id);
		rxm_rma_put_rh(b->buf, m->addr + at, m->key);
		(void)pl_iov_to_buf(m->iov, m->iov_count, &cur, &off,
				    b->buf + RXM_RMA_HDRS, chunk);
		rxm_ep_txb_append(&first, &last, b);
		at += chunk;
		n++;
	} while (at < total);
	*first_p = first;
	*last_p = last;
	*n_p = n;
	return 0;
}

/* A read request, or an atomic request with its operands. */
static int rxm_rma_req(struct rxm_ep *ep, struct rxm_peer *peer,
		       const struct rdm_rma_msg *m, uint64_t id,
		       struct rxm_txb **b_p)
{
	size_t plen = m->kind == RDM_RMA_ATOMIC ? m->amo_len : 0;
	struct rdm_atomic_req req;
	struct rxm_txb *b;
	uint64_t size;

	if (m->kind == RDM_RMA_READ) {
		size = pl_iov_total(m->iov, m->iov_count);
		if (size > ep->lim.max_msg_size)
			return -FI_EMSGSIZE;
	} else {
		if (!m->amo || plen < sizeof(req) ||
		    plen > RXM_ATOMIC_REQ_MAX ||
		    RXM_RMA_HDRS + plen > ep->lim.buf_size)
			return -FI_EINVAL;
		size = plen;
	}
	b = rxm_ep_txb_new(peer, NULL, RXM_RMA_HDRS + plen);
	if (!b)
		return -FI_ENOMEM;
	rxm_ep_hdr_fill((struct rxm_hdr *)b->buf,
			m->kind == RDM_RMA_READ ? RXM_OP_READ_REQ :
						  RXM_OP_ATOMIC,
			0, 0, size, 0, 0, id);
	rxm_rma_put_rh(b->buf, m->addr, m->key);
	if (plen) {
		/* the request's own header in wire order, its operands as
		 * the job represents them */
		memcpy(&req, m->amo, sizeof(req));
		req.count = htole32(req.count);
		memcpy(b->buf + RXM_RMA_HDRS, &req, sizeof(req));
		memcpy(b->buf + RXM_RMA_HDRS + sizeof(req),
		       (const uint8_t *)m->amo + sizeof(req),
		       plen - sizeof(req));
	}
	*b_p = b;
	return 0;
}

int rxm_ep_rma_start(struct rxm_ep *ep, struct rxm_peer *peer,
		     const struct rdm_rma_msg *m)
{
	struct rxm_txb *first = NULL, *last = NULL;
	struct rxm_rma *r;
	uint32_t acks = 1;
	int ret = -FI_EAGAIN;	/* emulated unless the core takes it */

	if (m->iov_count > RDM_RMA_LOCAL_IOV_MAX ||
	    (m->iov_count && !m->iov))
		return -FI_EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -FI_ENOMEM;
	r->id = ++ep->next_msg_id;
	if (m->kind != RDM_RMA_ATOMIC &&
	    rxm_ep_rma_by_core(ep, m, pl_iov_total(m->iov, m->iov_count))) {
		/* -FI_EAGAIN: a registration the core refused */
		ret = rxm_ep_rma_core_req(ep, peer, m, r, &first);
		last = first;
	}
	if (ret == -FI_EAGAIN && m->kind == RDM_RMA_WRITE) {
		ret = rxm_rma_write_chain(ep, peer, m, r->id, &first, &last,
					  &acks);
	} else if (ret == -FI_EAGAIN) {
		ret = rxm_rma_req(ep, peer, m, r->id, &first);
		last = first;
	}
	if (ret) {
		free(r);
		return ret;
	}
	r->kind = m->kind;
	r->context = m->context;
	r->acks = acks;
	if (m->kind != RDM_RMA_WRITE) {
		r->size = pl_iov_total(m->iov, m->iov_count);
		r->iov_count = m->iov_count;
		memcpy(r->iov, m->iov, m->iov_count * sizeof(*m->iov));
	}
	if (peer->rma_tail)
		peer->rma_tail->next = r;
	else
		peer->rma_head = r;
	peer->rma_tail = r;
	rxm_ep_tx_queue(ep, peer, first, last);
	return 1;	/* rdm_ep_tx_done with the last ack */
}

void rxm_ep_rma_free(struct rxm_rma *r)
{
	size_t i;

	for (i = 0; i < r->nmr; i++)
		(void)fi_close(&r->mr[i]->fid);
	free(r);
}

void rxm_ep_rma_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err)
{
	struct rxm_rma *r;

	rxm_ep_rma_core_fail_peer(ep, peer);
	while ((r = peer->rma_head)) {
		peer->rma_head = r->next;
		rdm_ep_tx_done(&ep->rdm, r->context, r->status ? r->status :
								 err);
		rxm_ep_rma_free(r);
	}
	peer->rma_tail = NULL;
}

/* ---- initiator: answers ---- */

/* The request waiting for id, and where it is linked. */
static struct rxm_rma *rxm_rma_find(struct rxm_peer *peer, uint64_t id,
				    struct rxm_rma **prev_p)
{
	struct rxm_rma *r, *prev = NULL;

	for (r = peer->rma_head; r; prev = r, r = r->next)
		if (r->id == id)
			break;
	*prev_p = prev;
	return r;
}

static int rxm_rma_read_resp(struct rxm_peer *peer, const struct rxm_hdr *h,
			     const uint8_t *payload)
{
	struct rxm_rma *prev, *r = rxm_rma_find(peer, h->msg_id, &prev);

	if (!r || r->core || r->kind != RDM_RMA_READ ||
	    h->tag != r->got || h->size > r->size - r->got)
		return -FI_EIO;
	(void)pl_iov_from_buf(r->iov, r->iov_count, r->got, payload,
			      (size_t)h->size);
	r->got += h->size;
	return 0;
}

static int rxm_rma_ack(struct rxm_ep *ep, struct rxm_peer *peer,
		       const struct rxm_hdr *h, const uint8_t *payload)
{
	struct rxm_rma *prev, *r = rxm_rma_find(peer, h->msg_id, &prev);
	int status = -(int)h->seg;

	if (!r)
		return -FI_EIO;
	if (!status) {
		/* what a success must bring: all of a read (the core's
		 * transfer placed it before the ack), a fetch's old values,
		 * nothing else */
		if ((r->kind == RDM_RMA_READ && !r->core &&
		     r->got != r->size) ||
		    (r->kind == RDM_RMA_ATOMIC ? h->size != r->size :
						 h->size != 0))
			return -FI_EIO;
		if (h->size)
			(void)pl_iov_from_buf(r->iov, r->iov_count, 0,
					      payload, (size_t)h->size);
	} else if (h->size) {
		return -FI_EIO;
	}
	if (status && !r->status)
		r->status = status;
	if (--r->acks)
		return 0;
	if (prev)
		prev->next = r->next;
	else
		peer->rma_head = r->next;
	if (peer->rma_tail == r)
		peer->rma_tail = prev;
	rdm_ep_tx_done(&ep->rdm, r->context, r->status);
	rxm_ep_rma_free(r);
	return 0;
}

/* ---- target ---- */

/* An ack (status 0 or negative; len bytes of result), or NULL. */
static struct rxm_txb *rxm_rma_ack_new(struct rxm_peer *peer, uint64_t id,
				       int status, const void *res,
				       size_t len)
{
	struct rxm_txb *b = rxm_ep_txb_new(peer, NULL,
					   sizeof(struct rxm_hdr) + len);

	if (!b)
		return NULL;
	rxm_ep_hdr_fill((struct rxm_hdr *)b->buf, RXM_OP_RMA_ACK, 0,
			rxm_wire_errno(status), len, 0, 0, id);
	if (len)
		memcpy(b->buf + sizeof(struct rxm_hdr), res, len);
	return b;
}

/* The initiator would wait for ever: end the connection, which fails
 * its requests. */
static void rxm_rma_no_answer(struct rxm_ep *ep, struct rxm_peer *peer)
{
	rxm_cm_disconnect(&ep->cm, peer->conn, -FI_ENOMEM);
}

void rxm_ep_rma_answer(struct rxm_ep *ep, struct rxm_peer *peer,
		       uint64_t id, int status, const void *res, size_t len)
{
	struct rxm_txb *b = rxm_rma_ack_new(peer, id, status, res, len);

	if (!b) {
		rxm_rma_no_answer(ep, peer);
		return;
	}
	rxm_ep_tx_queue(ep, peer, b, b);
}

static void rxm_rma_write_in(struct rxm_ep *ep, struct rxm_peer *peer,
			     const struct rxm_hdr *h,
			     const struct rxm_rma_hdr *rh,
			     const uint8_t *data)
{
	void *dst;
	int ret;

	ret = rdm_rma_check(&ep->rdm, &ep->dom->keymap, rh->key, rh->addr,
			    h->size, FI_REMOTE_WRITE, &dst);
	if (!ret) {
		if (h->size)
			memcpy(dst, data, (size_t)h->size);
		if (h->flags & RXM_F_LAST)
			rdm_rma_event(&ep->rdm, &ep->dom->keymap, rh->key,
				      FI_REMOTE_WRITE,
				      h->flags & RXM_F_CQ_DATA, h->cq_data,
				      h->tag);
	}
	rxm_ep_rma_answer(ep, peer, h->msg_id, ret, NULL, 0);
}

static void rxm_rma_read_in(struct rxm_ep *ep, struct rxm_peer *peer,
			    const struct rxm_hdr *h,
			    const struct rxm_rma_hdr *rh)
{
	size_t per = ep->lim.buf_size - sizeof(struct rxm_hdr);
	struct rxm_txb *first = NULL, *last = NULL, *b;
	uint64_t at = 0, chunk;
	const uint8_t *src;
	void *p;
	int ret;

	ret = rdm_rma_check(&ep->rdm, &ep->dom->keymap, rh->key, rh->addr,
			    h->size, FI_REMOTE_READ, &p);
	if (ret) {
		rxm_ep_rma_answer(ep, peer, h->msg_id, ret,
			       NULL, 0);
		return;
	}
	src = p;
	/* the bytes as they are now, in chunks, then the ack behind them */
	while (at < h->size) {
		chunk = h->size - at < per ? h->size - at : per;
		b = rxm_ep_txb_new(peer, NULL,
				   sizeof(struct rxm_hdr) + chunk);
		if (!b) {
			rxm_ep_txb_free_chain(first);
			rxm_ep_rma_answer(ep, peer, h->msg_id, -FI_ENOMEM, NULL,
				       0);
			return;
		}
		rxm_ep_hdr_fill((struct rxm_hdr *)b->buf, RXM_OP_READ_RESP, 0,
				0, chunk, at, 0, h->msg_id);
		memcpy(b->buf + sizeof(struct rxm_hdr), src + at,
		       (size_t)chunk);
		rxm_ep_txb_append(&first, &last, b);
		at += chunk;
	}
	/* the ack rides behind the data in one queueing: the core sends
	 * them together (rxm_tx_core_send) */
	b = rxm_rma_ack_new(peer, h->msg_id, 0, NULL, 0);
	if (!b) {
		rxm_ep_txb_free_chain(first);
		rxm_rma_no_answer(ep, peer);
		return;
	}
	rxm_ep_txb_append(&first, &last, b);
	/* counted before the initiator can learn of it, as before */
	rdm_rma_event(&ep->rdm, &ep->dom->keymap, rh->key, FI_REMOTE_READ,
		      false, 0, 0);
	rxm_ep_tx_queue(ep, peer, first, last);
}

static void rxm_rma_atomic_in(struct rxm_ep *ep, struct rxm_peer *peer,
			      const struct rxm_hdr *h,
			      const struct rxm_rma_hdr *rh,
			      const uint8_t *data)
{
	uint8_t req[RXM_ATOMIC_REQ_MAX], res[RXM_ATOMIC_MAX_BYTES];
	struct rdm_atomic_req head;
	size_t res_len = 0;
	int ret;

	/* our own copy, its header in host order (checked: size <=
	 * RXM_ATOMIC_REQ_MAX by rxm_proto_check) */
	memcpy(req, data, (size_t)h->size);
	if (h->size >= sizeof(head)) {
		memcpy(&head, req, sizeof(head));
		head.count = le32toh(head.count);
		memcpy(req, &head, sizeof(head));
	}
	ret = rdm_rma_atomic(&ep->rdm, &ep->dom->keymap, rh->key, rh->addr,
			     req, (size_t)h->size, ep->atomic_max, res,
			     &res_len);
	rxm_ep_rma_answer(ep, peer, h->msg_id, ret, res,
		       ret ? 0 : res_len);
}

int rxm_ep_rma_arrived(struct rxm_ep *ep, struct rxm_peer *peer,
		       struct fid_ep *via, const struct rxm_hdr *h,
		       const uint8_t *payload, size_t plen)
{
	struct rxm_rma_hdr rh;

	switch (h->op) {
	case RXM_OP_READ_RESP:
		return rxm_rma_read_resp(peer, h, payload);
	case RXM_OP_RMA_ACK:
		return rxm_rma_ack(ep, peer, h, payload);
	default:
		break;
	}
	/* WRITE, READ_REQ, ATOMIC: the rma header (rxm_proto_check) */
	if (plen < sizeof(rh))
		return -FI_EIO;
	memcpy(&rh, payload, sizeof(rh));
	rxm_rma_hdr_swap(&rh);
	payload += sizeof(rh);
	if (h->flags & RXM_F_CORE)
		return rxm_ep_rma_core_in(ep, peer, via, h, &rh, payload,
					  plen - sizeof(rh));
	if (h->op == RXM_OP_WRITE)
		rxm_rma_write_in(ep, peer, h, &rh, payload);
	else if (h->op == RXM_OP_READ_REQ)
		rxm_rma_read_in(ep, peer, h, &rh);
	else
		rxm_rma_atomic_in(ep, peer, h, &rh, payload);
	return 0;
}
