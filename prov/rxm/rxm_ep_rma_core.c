/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA moved by the core (rxm_proto.h, RXM_F_CORE): a write or read past
 * one buffer's payload, where the emulation (rxm_ep_rma.c) copied every
 * byte twice more than the core does and answered every buffer (1 MiB
 * fi_write: 1.8 GB/s against the reference's 12).
 *
 * Initiator: registers the application's buffers with the core domain,
 * for remote reads (a write) or remote writes (a read), under keys no
 * peer can guess, as a rendezvous send does (rxm_ep_rndv_reg), and sends
 * one request naming them; the answer completes the operation and ends
 * the registrations (rxm_ep_rma_free). A registration the core refuses
 * sends the operation emulated instead.
 *
 * Target: checks the request against its own registrations
 * (rdm_rma_check: key, range, access) before a byte moves, as for every
 * emulated request, then has the core move the bytes on the connection
 * the request came on: fi_readmsg from the initiator's buffers into its
 * memory (a write), fi_writemsg from its memory into them (a read). The
 * initiator's buffers are checked by rxm_rndv_check (count, no empty or
 * wrapping entry, exactly the request's bytes) and its core checks our
 * access to them. When the transfer ends (a read: when the core took it,
 * rxm_xfer_post) the target counts the event (rdm_rma_event: counters,
 * remote CQ data) and answers; a transfer the
 * core has no room for waits on ep->rma_xwait. A connection that ends
 * leaves posted transfers to come back in error from the core (then
 * unanswered: nobody can hear it) and drops the waiting ones.
 *
 * Everything runs inside the core's serialization (rxm_ep.h).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "pl_iov.h"
#include "rxm_ep.h"

#define RXM_RMA_HDRS	(sizeof(struct rxm_hdr) + sizeof(struct rxm_rma_hdr))

/* ---- initiator ---- */

bool rxm_ep_rma_by_core(const struct rxm_ep *ep, const struct rdm_rma_msg *m,
			uint64_t size)
{
	size_t i, n = 0;

	if (!ep->rndv || (m->flags & RDM_TX_INJECT) ||
	    size <= ep->lim.buf_size - RXM_RMA_HDRS)
		return false;
	for (i = 0; i < m->iov_count; i++)
		n += m->iov[i].iov_len != 0;
	return n <= RXM_RNDV_IOV_MAX;
}

int rxm_ep_rma_core_req(struct rxm_ep *ep, struct rxm_peer *peer,
			const struct rdm_rma_msg *m, struct rxm_rma *r,
			struct rxm_txb **b_p)
{
	uint64_t size = pl_iov_total(m->iov, m->iov_count);
	uint64_t access = m->kind == RDM_RMA_WRITE ? FI_REMOTE_READ :
						     FI_REMOTE_WRITE;
	bool cq = m->kind == RDM_RMA_WRITE && (m->flags & RDM_TX_CQ_DATA);
	const size_t hlen = RXM_RMA_HDRS + offsetof(struct rxm_rndv_req, iov);
	struct rxm_rndv_req req;
	struct rxm_rma_hdr rh;
	struct rxm_txb *b;
	size_t i, plen;
	int ret = -FI_EAGAIN;

	if (size > ep->lim.max_msg_size)
		return -FI_EMSGSIZE;
	memset(&req, 0, sizeof(req));
	for (i = 0; i < m->iov_count; i++) {
		if (!m->iov[i].iov_len)
			continue;
		if (rxm_ep_rndv_reg(ep, &m->iov[i], access, &r->mr[r->nmr],
				    &req.iov[r->nmr]))
			goto undo;	/* -FI_EAGAIN: emulated after all */
		r->nmr++;
	}
	req.count = htole32((uint32_t)r->nmr);
	plen = r->nmr * sizeof(req.iov[0]);
	b = rxm_ep_txb_new(peer, NULL, hlen + plen);
	if (!b) {
		ret = -FI_ENOMEM;
		goto undo;
	}
	rxm_ep_hdr_fill((struct rxm_hdr *)b->buf,
			m->kind == RDM_RMA_WRITE ? RXM_OP_WRITE :
						   RXM_OP_READ_REQ,
			RXM_F_CORE | (m->kind == RDM_RMA_WRITE ? RXM_F_LAST : 0) |
			(cq ? RXM_F_CQ_DATA : 0), 0, size,
			m->kind == RDM_RMA_WRITE ? size : 0,
			cq ? m->cq_data : 0, r->id);
	rh = (struct rxm_rma_hdr){ .addr = htole64(m->addr),
				   .key = htole64(m->key) };
	memcpy(b->buf + sizeof(struct rxm_hdr), &rh, sizeof(rh));
	memcpy(b->buf + RXM_RMA_HDRS, &req,
	       offsetof(struct rxm_rndv_req, iov) + plen);
	r->core = true;
	*b_p = b;
	return 0;

undo:
	while (r->nmr)
		(void)fi_close(&r->mr[--r->nmr]->fid);
	return ret;
}

/* ---- target ---- */

static void rxm_xfer_unlink(struct rxm_rma_xfer *x)
{
	struct rxm_rma_xfer **pp;

	for (pp = &x->peer->rma_xfers; *pp; pp = &(*pp)->peer_next)
		if (*pp == x) {
			*pp = x->peer_next;
			return;
		}
}

static void rxm_xfer_unwait(struct rxm_ep *ep, struct rxm_rma_xfer *x)
{
	struct rxm_rma_xfer **pp;

	for (pp = &ep->rma_xwait; *pp; pp = &(*pp)->wait_next)
		if (*pp == x) {
			*pp = x->wait_next;
			break;
		}
	x->on_wait = false;
	x->wait_next = NULL;
}

/* The events, then the answer (when the connection still runs). */
static void rxm_xfer_answer(struct rxm_ep *ep, struct rxm_rma_xfer *x,
			    int status)
{
	x->answered = true;
	if (!status)
		rdm_rma_event(&ep->rdm, &ep->dom->keymap, x->key,
			      x->write ? FI_REMOTE_WRITE : FI_REMOTE_READ,
			      x->cq, x->cq_data, x->size);
	if (!x->dead && x->peer->conn->state == RXM_CONN_CONNECTED)
		rxm_ep_rma_answer(ep, x->peer, x->msg_id, status, NULL, 0);
}

/* -FI_EAGAIN when the core has no room now. A read is answered as soon
 * as the core took its write: the connection delivers in order, so the
 * bytes are in place before the answer arrives (waiting for the write's
 * completion cost a round trip of the core's: 16 KiB read 16.0 us, 13.1
 * emulated); a write is answered once the core's read brought the
 * bytes. */
static int rxm_xfer_post(struct rxm_ep *ep, struct rxm_rma_xfer *x)
{
	struct fi_msg_rma m = {
		.msg_iov = &x->local, .iov_count = 1,
		.rma_iov = x->remote, .rma_iov_count = x->nremote,
		.context = x,
	};
	ssize_t ret = x->write ? fi_readmsg(x->via, &m, 0) :
				 fi_writemsg(x->via, &m, 0);

	if (!ret) {
		x->posted = true;
		if (!x->write)
			rxm_xfer_answer(ep, x, 0);
	}
	return (int)ret;
}

/* The transfer is over (or could not start): answered unless it was,
 * then it goes. A read answered at its post that fails later leaves the
 * connection broken, which fails the initiator's read. */
static void rxm_xfer_end(struct rxm_ep *ep, struct rxm_rma_xfer *x,
			 int status)
{
	if (!x->answered)
		rxm_xfer_answer(ep, x, status);
	rxm_xfer_unlink(x);
	free(x);
}

int rxm_ep_rma_core_in(struct rxm_ep *ep, struct rxm_peer *peer,
		       struct fid_ep *via, const struct rxm_hdr *h,
		       const struct rxm_rma_hdr *rh, const uint8_t *req,
		       size_t rlen)
{
	bool write = h->op == RXM_OP_WRITE;
	struct rxm_rndv_req r;
	struct rxm_rma_xfer *x;
	void *local = NULL;
	uint32_t i;
	int ret;

	/* our own copy of the initiator's buffers, checked in host order
	 * (a malformed list is a protocol error, as for a rendezvous) */
	memset(&r, 0, sizeof(r));
	memcpy(&r, req, rlen < sizeof(r) ? rlen : sizeof(r));
	rxm_rndv_req_swap(&r, le32toh(r.count));
	if (rxm_rndv_check(&r, rlen, h->size))
		return -FI_EIO;
	/* our memory: refused before a byte moves */
	ret = rdm_rma_check(&ep->rdm, &ep->dom->keymap, rh->key, rh->addr,
			    h->size, write ? FI_REMOTE_WRITE : FI_REMOTE_READ,
			    &local);
	if (ret) {
		rxm_ep_rma_answer(ep, peer, h->msg_id, ret, NULL, 0);
		return 0;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		rxm_ep_rma_answer(ep, peer, h->msg_id, -FI_ENOMEM, NULL, 0);
		return 0;
	}
	x->core_kind = RXM_CORE_RMA;
	x->peer = peer;
	x->via = via;
	x->write = write;
	x->msg_id = h->msg_id;
	x->key = rh->key;
	x->size = h->size;
	x->cq = write && (h->flags & RXM_F_CQ_DATA);
	x->cq_data = h->cq_data;
	x->local = (struct iovec){ .iov_base = local,
				   .iov_len = (size_t)h->size };
	for (i = 0; i < r.count; i++)
		x->remote[i] = (struct fi_rma_iov){ .addr = r.iov[i].addr,
						    .len = r.iov[i].len,
						    .key = r.iov[i].key };
	x->nremote = r.count;
	x->peer_next = peer->rma_xfers;
	peer->rma_xfers = x;
	RXM_LOG_DBG(FI_LOG_EP_DATA, "RMA %s of %llu bytes by the core\n",
		    write ? "write" : "read", (unsigned long long)x->size);
	ret = rxm_xfer_post(ep, x);
	if (ret == -FI_EAGAIN) {
		x->on_wait = true;
		x->wait_next = ep->rma_xwait;
		ep->rma_xwait = x;
	} else if (ret) {
		rxm_xfer_end(ep, x, ret);
	}
	return 0;
}

void rxm_ep_rma_core_done(struct rxm_ep *ep, struct rxm_rma_xfer *x,
			  int status)
{
	x->posted = false;
	rxm_xfer_end(ep, x, status);
}

int rxm_ep_rma_core_progress(struct rxm_ep *ep)
{
	struct rxm_rma_xfer *x, *next, *still = NULL;
	int work = 0, ret;

	x = ep->rma_xwait;
	ep->rma_xwait = NULL;
	for (; x; x = next) {
		next = x->wait_next;
		x->on_wait = false;
		x->wait_next = NULL;
		ret = rxm_xfer_post(ep, x);
		if (ret == -FI_EAGAIN) {
			x->on_wait = true;
			x->wait_next = still;
			still = x;
			continue;
		}
		work++;
		if (ret)
			rxm_xfer_end(ep, x, ret);
	}
	ep->rma_xwait = still;
	return work;
}

void rxm_ep_rma_core_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer)
{
	struct rxm_rma_xfer *x, *next;

	for (x = peer->rma_xfers; x; x = next) {
		next = x->peer_next;
		if (x->posted) {
			/* the core completes it in error; a later
			 * connection to the peer never hears of it */
			x->dead = true;
			continue;
		}
		if (x->on_wait)
			rxm_xfer_unwait(ep, x);
		rxm_xfer_unlink(x);
		free(x);
	}
}
