/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rxm as an RDM transport: struct rdm_transport_ops (rdm_transport.h)
 * over its connections (rxm_conn.h), and the connection manager's
 * callbacks. Everything here runs inside the core's serialization
 * (rdm_ep.h), but queue_hint, which needs none.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "pl_eq.h"
#include "pl_rcu.h"
#include "rxm_ep.h"

#define RXM_CQ_BATCH	16

struct rxm_peer *rxm_ep_peer(struct rxm_ep *ep, struct rxm_conn *conn)
{
	struct rxm_peer *p = conn->owner_data;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->conn = conn;
	p->all_next = ep->peers;
	ep->peers = p;
	conn->owner_data = p;
	return p;
}

/* ---- the connection manager's callbacks ---- */

static int rxm_ep_cm_prepare(void *owner, struct rxm_conn *c,
			     struct fid_ep *msg_ep)
{
	struct rxm_ep *ep = owner;

	(void)c;
	/* relaxed: see rxm_ep.core_bound */
	pl_store_relaxed(&ep->core_bound, 1u);
	return fi_ep_bind(msg_ep, &ep->core_cq->fid, FI_TRANSMIT | FI_RECV);
}

static void rxm_ep_cm_connected(void *owner, struct rxm_conn *c,
				struct fid_ep *msg_ep)
{
	struct rxm_ep *ep = owner;
	struct rxm_peer *p = rxm_ep_peer(ep, c);

	if (!p || rxm_ep_rx_post_bufs(ep, p, msg_ep)) {
		RXM_LOG_WARN(FI_LOG_EP_CTRL, "cannot post receive buffers: "
			     "dropping the connection\n");
		rxm_cm_disconnect(&ep->cm, c, -FI_ENOMEM);
		return;
	}
	/* sends that waited for the connection go now */
	if (p->txq_head && !p->on_pend) {
		p->on_pend = true;
		p->pend_next = ep->pend;
		ep->pend = p;
	}
	(void)rxm_ep_tx_flush(ep);
}

static void rxm_ep_cm_down(void *owner, struct rxm_conn *c, int err)
{
	struct rxm_ep *ep = owner;
	struct rxm_peer *p = c->owner_data;

	RXM_LOG_INFO(FI_LOG_EP_CTRL, "connection down (%d)\n", err);
	if (!p)
		return;
	/* what waited for this connection fails; what the core endpoint
	 * held comes back as error completions (rxm_ep_cq) */
	rxm_ep_tx_fail_peer(ep, p, err);
	rxm_ep_rx_fail_peer(ep, p, err);
	rxm_ep_rma_fail_peer(ep, p, err);
	rxm_ep_rndv_fail_peer(ep, p, err);
}

/* Receives posted on the connection: their failure, once the core has
 * read the end of the peer's stream, ends the drain (rxm_ep_rx.c). */
static bool rxm_ep_cm_can_drain(void *owner, struct rxm_conn *c)
{
	struct rxm_peer *p = c->owner_data;

	(void)owner;
	return p && p->rxb_posted > 0;
}

const struct rxm_cm_ops rxm_ep_cm_ops = {
	.prepare = rxm_ep_cm_prepare,
	.connected = rxm_ep_cm_connected,
	.down = rxm_ep_cm_down,
	.can_drain = rxm_ep_cm_can_drain,
};

/* ---- the core CQ ---- */

void rxm_ep_core_rma_done(struct rxm_ep *ep, void *ctx, uint64_t flags,
			  int err)
{
	if (*(const uint8_t *)ctx == RXM_CORE_RMA)
		rxm_ep_rma_core_done(ep, ctx, err);
	else if (flags & FI_READ)
		rxm_ep_rndv_read_done(ep, ctx, err);
	else
		rxm_ep_rndv_write_done(ep, ctx, err);
}

static void rxm_ep_cq_entry(struct rxm_ep *ep, void *ctx, uint64_t flags,
			    size_t len, int err)
{
	if (flags & FI_RECV) {
		if (err)
			rxm_ep_rx_buf_failed(ep, ctx);
		else
			rxm_ep_rx_arrived(ep, ctx, len);
	} else if (flags & (FI_READ | FI_WRITE)) {
		rxm_ep_core_rma_done(ep, ctx, flags, err);
	} else if (flags & FI_SEND) {
		rxm_ep_tx_done(ep, ctx, err);
	}
}

/* Read what the core CQ holds; the entries handled. */
static int rxm_ep_cq_drain(struct rxm_ep *ep, unsigned budget)
{
	struct fi_cq_msg_entry e[RXM_CQ_BATCH];
	struct fi_cq_err_entry err;
	int work = 0;
	ssize_t n, i;

	while (budget) {
		n = fi_cq_read(ep->core_cq, e, RXM_CQ_BATCH);
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_cq_readerr(ep->core_cq, &err, 0) != 1)
				break;
			rxm_ep_cq_entry(ep, err.op_context, err.flags, 0,
					-(err.err ? err.err : FI_EIO));
			work++;
			continue;
		}
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			rxm_ep_cq_entry(ep, e[i].op_context, e[i].flags,
					e[i].len, 0);
		work += (int)n;
		/* fewer than asked: the read's pass found no more, and a
		 * second read would only pay a pass (a system call per
		 * socket) to find what arrived since, on the way back to
		 * the application; the next poll takes it */
		if (n < RXM_CQ_BATCH)
			break;
		budget = (unsigned)n >= budget ? 0 : budget - (unsigned)n;
	}
	return work;
}

/* ---- rdm_transport_ops ---- */

static int rxm_ep_transport_peer_open(struct rdm_ep *r, const void *addr,
				      void **tpeer_p)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);
	struct rxm_conn *c = rxm_cm_conn(&ep->cm, addr, ep->dom->addrlen);

	struct rxm_peer *p;

	if (!c || !(p = rxm_ep_peer(ep, c)))
		return -FI_ENOMEM;
	/* node-local: messages, RMA and atomics by shm */
	p->shm = rxm_ep_shm_peer(ep, addr, &p->shm_dest);
	*tpeer_p = c;
	return 0;
}

static void rxm_ep_transport_peer_close(struct rdm_ep *r, void *tpeer)
{
	/* connections live as long as the endpoint (rxm_cm_close) */
	(void)r;
	(void)tpeer;
}

/* The first send or RMA request to a peer makes the connection; what
 * is sent waits for it in the peer's queues. */
static int rxm_ep_transport_connect(struct rxm_ep *ep, struct rxm_conn *c)
{
	return c->state == RXM_CONN_IDLE ? rxm_cm_connect(&ep->cm, c) : 0;
}

int rxm_ep_send_core(struct rxm_ep *ep, struct rxm_conn *c,
		     const struct rdm_tx_msg *msg)
{
	int ret;

	/* the header has 8 bits for a receive context (RXM_F_RX_MASK) */
	if (msg->rx_idx > (RXM_F_RX_MASK >> RXM_F_RX_SHIFT))
		return -FI_EINVAL;
	ret = rxm_ep_transport_connect(ep, c);
	return ret ? ret : rxm_ep_tx_send(ep, c->owner_data, msg);
}

static int rxm_ep_transport_send(struct rdm_ep *r, void *tpeer,
				 const struct rdm_tx_msg *msg)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);
	struct rxm_conn *c = tpeer;
	struct rxm_peer *p = c->owner_data;

	/* a scalable peer's contexts are reached over the core */
	if (p->shm && !msg->rx_idx)
		return rxm_ep_shm_send(ep, c, msg);
	return rxm_ep_send_core(ep, c, msg);
}

int rxm_ep_rma_core_route(struct rxm_ep *ep, struct rxm_conn *c,
			  const struct rdm_rma_msg *m)
{
	int ret = rxm_ep_transport_connect(ep, c);

	return ret ? ret : rxm_ep_rma_start(ep, c->owner_data, m);
}

static int rxm_ep_transport_rma(struct rdm_ep *r, void *tpeer,
				const struct rdm_rma_msg *m)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);
	struct rxm_conn *c = tpeer;
	struct rxm_peer *p = c->owner_data;

	/* node-local: by shm too, but what shm cannot carry at once */
	if (p->shm && rxm_ep_shm_rma_fits(ep, m))
		return rxm_ep_shm_rma(ep, c, m);
	return rxm_ep_rma_core_route(ep, c, m);
}

static int rxm_ep_transport_rx_deliver(struct rdm_ep *r, void *trx,
				       const struct iovec *iov, size_t count,
				       void *ctx, uint64_t *len_p)
{
	return rxm_ep_rx_deliver(rxm_ep_of_rdm(r), trx, iov, count, ctx,
				 len_p);
}

static void rxm_ep_transport_rx_discard(struct rdm_ep *r, void *trx)
{
	rxm_ep_rx_discard(rxm_ep_of_rdm(r), trx);
}

/* The sender's fi_addr_t, by its address (the AV keys on the sockaddr). */
static fi_addr_t rxm_ep_transport_rx_src(struct rdm_ep *r, const void *src)
{
	const struct rxm_conn *c = src;
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	if (!r->base.av)
		return fa;
	pl_rcu_read_lock();
	if (pl_av_reverse_lookup(r->base.av, &c->peer_sa, &fa, NULL))
		fa = FI_ADDR_NOTAVAIL;
	pl_rcu_read_unlock();
	return fa;
}

static const void *rxm_ep_transport_rx_src_of(struct rdm_ep *r, void *trx)
{
	(void)r;
	return ((struct rxm_rx *)trx)->peer->conn;
}

static size_t rxm_ep_transport_rx_src_name(struct rdm_ep *r, const void *src,
					   char *buf, size_t size)
{
	const struct rxm_conn *c = src;
	size_t n = c->peer_salen < size ? c->peer_salen : size;

	(void)r;
	memcpy(buf, &c->peer_sa, n);
	return n;
}

static int rxm_ep_transport_poll(struct rdm_ep *r, unsigned budget)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);
	int work = 0, n;

	n = rxm_cm_progress(&ep->cm);
	if (n > 0)
		work += n;
	if (pl_load_relaxed(&ep->core_bound))
		work += rxm_ep_cq_drain(ep, budget ? budget : 64);
	if (ep->rndv_wait)
		work += rxm_ep_rndv_progress(ep);
	if (ep->rndv_wwait)
		work += rxm_ep_rndv_write_progress(ep);
	if (ep->rma_xwait)
		work += rxm_ep_rma_core_progress(ep);
	if (ep->pend)
		work += rxm_ep_tx_flush(ep);
	return work;
}

/* The core CQ and EQ are armed once for every endpoint of the domain,
 * by the domain's wait-set sources in the same context (their fi_trywait
 * looks at every member: rxm_domain_wake.h); a trywait per endpoint
 * would arm the core's progress context once per endpoint. What is left
 * is ours: */
static int rxm_ep_transport_arm(struct rdm_ep *r)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);

	if (ep->pend || ep->rndv_wait || ep->rndv_wwait || ep->rma_xwait)
		return -FI_EAGAIN;	/* sends and reads wait for the core */
	return 0;
}

/* Idle: no connection ever bound to the core CQ (whose entries are
 * only known by reading it) and nothing of ours waiting. Node-local
 * traffic over shm needs no pass of ours: shm's own source matches it
 * in our queue and completes it into our CQ, and sends listed for shm
 * leave through rdm_transport_ops.unlocked, which every pass calls. */
static bool rxm_ep_transport_idle(struct rdm_ep *r)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);

	return !pl_load_relaxed(&ep->core_bound) && !ep->pend &&
	       !ep->rndv_wait && !ep->rndv_wwait && !ep->rma_xwait;
}

/* Without the serialization: a connection bound to the core CQ (its
 * traffic is only known by reading), or a connection event waiting on
 * our EQ (pl_eq_pending: lock-free, true for a core EQ of another
 * kind). */
static bool rxm_ep_transport_queue_hint(struct rdm_ep *r)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);

	/* relaxed: see rxm_ep.core_bound */
	return pl_load_relaxed(&ep->core_bound) || !ep->cm_open ||
	       pl_eq_pending(ep->cm.eq);
}

const struct rdm_transport_ops rxm_ep_transport_ops = {
	.peer_open = rxm_ep_transport_peer_open,
	.peer_close = rxm_ep_transport_peer_close,
	.send = rxm_ep_transport_send,
	.rx_deliver = rxm_ep_transport_rx_deliver,
	.rx_discard = rxm_ep_transport_rx_discard,
	.rx_src = rxm_ep_transport_rx_src,
	.rx_src_of = rxm_ep_transport_rx_src_of,
	.rx_src_name = rxm_ep_transport_rx_src_name,
	.rma = rxm_ep_transport_rma,
	.unlocked = rxm_ep_shm_flush,
	.poll = rxm_ep_transport_poll,
	.arm = rxm_ep_transport_arm,
	.idle = rxm_ep_transport_idle,
	.queue_hint = rxm_ep_transport_queue_hint,
};
