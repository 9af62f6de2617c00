/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A loopback transport for the RDM endpoint core's tests: every send goes
 * to the endpoint itself through a FIFO that the poll op drains, so the
 * core's paths (matching, multi-recv, PEEK/CLAIM/DISCARD, completions,
 * the peer cache, the locking strategy) run with no provider at all.
 * Messages of more than LOOP_LATER_MIN bytes are delivered "later": the
 * deliver op answers 1 and the next poll finishes them (rdm_ep_rx_done),
 * as a bounce-buffer protocol would. A send with FI_DELIVERY_COMPLETE
 * answers 1 and completes when its message is placed or discarded.
 */
#ifndef PROPEL_RDM_EP_TEST_H
#define PROPEL_RDM_EP_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_av.h"
#include "pl_cntr.h"
#include "pl_cq.h"
#include "pl_domain.h"
#include "pl_iov.h"
#include "rdm_ep.h"

#define LOOP_ADDRLEN	8
#define LOOP_LATER_MIN	64
#define LOOP_MAX	4096

struct loop_msg {
	struct rdm_rx_hdr	hdr;
	char			src[LOOP_ADDRLEN];
	void			*tx_ctx;  /* delivery complete: the txe */
	uint64_t		len;	  /* placed (later delivery) */
	int			status;
	struct loop_msg		*next;
	uint8_t			data[LOOP_MAX];
};

struct loop_ep {
	struct rdm_ep		rdm;	/* FIRST */
	struct rdm_ep_source	src;
	struct loop_msg		*head, *tail;	/* sent, not yet arrived */
	struct loop_msg		*later;		/* delivering, then rx_done */
	void			*later_ctx[64];
	struct loop_msg		*later_msg[64];
	unsigned		nlater;
	int			peer_opens, peer_closes, discards;
	int			fail_send;	/* next send answers this */
	/* messages in head: written under the endpoint lock, read by
	 * queue_hint without it (the contract's one unserialized op).
	 * Relaxed both ways: a hint, rdm_ep_progress.c says why a stale
	 * value is harmless. */
	pl_atomic_u32		queued;
};

static inline struct loop_ep *loop_of(struct rdm_ep *r)
{
	return (struct loop_ep *)r;
}

static int loop_peer_open(struct rdm_ep *r, const void *addr, void **tpeer_p)
{
	loop_of(r)->peer_opens++;
	*tpeer_p = malloc(LOOP_ADDRLEN);
	if (!*tpeer_p)
		return -FI_ENOMEM;
	memcpy(*tpeer_p, addr, LOOP_ADDRLEN);
	return 0;
}

static void loop_peer_close(struct rdm_ep *r, void *tpeer)
{
	loop_of(r)->peer_closes++;
	free(tpeer);
}

static int loop_send(struct rdm_ep *r, void *tpeer,
		     const struct rdm_tx_msg *msg)
{
	struct loop_ep *ep = loop_of(r);
	struct loop_msg *m;
	uint64_t len = 0;
	size_t i;

	if (ep->fail_send) {
		int ret = ep->fail_send;

		ep->fail_send = 0;
		return ret;
	}
	for (i = 0; i < msg->iov_count; i++)
		len += msg->iov[i].iov_len;
	if (len > LOOP_MAX)
		return -FI_EMSGSIZE;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -FI_ENOMEM;
	for (i = 0, len = 0; i < msg->iov_count; i++) {
		memcpy(m->data + len, msg->iov[i].iov_base,
		       msg->iov[i].iov_len);
		len += msg->iov[i].iov_len;
	}
	memcpy(m->src, tpeer, LOOP_ADDRLEN);
	m->hdr = (struct rdm_rx_hdr){
		.size = len,
		.tag = msg->tag,
		.cq_data = msg->cq_data,
		.flags = ((msg->flags & RDM_TX_TAGGED) ? RDM_RX_TAGGED : 0) |
			 ((msg->flags & RDM_TX_CQ_DATA) ? RDM_RX_CQ_DATA : 0) |
			 (len > LOOP_LATER_MIN ? RDM_RX_LATER : 0),
		.src = m->src,
		.data = m->data,
	};
	if (msg->flags & RDM_TX_DELIVERY)
		m->tx_ctx = msg->context;
	if (ep->tail)
		ep->tail->next = m;
	else
		ep->head = m;
	ep->tail = m;
	/* relaxed: see queued */
	pl_store_relaxed(&ep->queued, pl_load_relaxed(&ep->queued) + 1);
	return m->tx_ctx ? 1 : 0;
}

static void loop_msg_free(struct loop_ep *ep, struct loop_msg *m, int status)
{
	if (m->tx_ctx)
		rdm_ep_tx_done(&ep->rdm, m->tx_ctx, status);
	free(m);
}

static int loop_rx_deliver(struct rdm_ep *r, void *trx,
			   const struct iovec *iov, size_t count, void *ctx,
			   uint64_t *len_p)
{
	struct loop_ep *ep = loop_of(r);
	struct loop_msg *m = trx;
	uint64_t cap = 0, len;
	size_t i;

	for (i = 0; i < count; i++)
		cap += iov[i].iov_len;
	len = pl_iov_from_buf_walk(iov, count, 0, m->data,
				   m->hdr.size < cap ? m->hdr.size : cap);
	m->status = m->hdr.size > len ? -FI_ETRUNC : 0;
	if (m->hdr.flags & RDM_RX_LATER) {
		m->len = len;
		ep->later_ctx[ep->nlater] = ctx;
		ep->later_msg[ep->nlater++] = m;
		return 1;
	}
	*len_p = len;
	i = (size_t)m->status;
	loop_msg_free(ep, m, 0);
	return (int)i;
}

static void loop_rx_discard(struct rdm_ep *r, void *trx)
{
	loop_of(r)->discards++;
	loop_msg_free(loop_of(r), trx, 0);
}

static fi_addr_t loop_rx_src(struct rdm_ep *r, const void *src)
{
	fi_addr_t fa;

	pl_rcu_read_lock();
	if (pl_av_reverse_lookup(r->base.av, src, &fa, NULL))
		fa = FI_ADDR_NOTAVAIL;
	pl_rcu_read_unlock();
	return fa;
}

static const void *loop_rx_src_of(struct rdm_ep *r, void *trx)
{
	(void)r;
	return ((struct loop_msg *)trx)->src;
}

static size_t loop_rx_src_name(struct rdm_ep *r, const void *src, char *buf,
			       size_t size)
{
	(void)r;
	if (size < LOOP_ADDRLEN)
		return 0;
	memcpy(buf, src, LOOP_ADDRLEN);
	return LOOP_ADDRLEN;
}

/* Finish the later deliveries of the last pass, then hand up what was
 * sent: one message a unit of budget. */
static int loop_poll(struct rdm_ep *r, unsigned budget)
{
	struct loop_ep *ep = loop_of(r);
	struct loop_msg *m;
	int n = 0;

	while (ep->nlater && (unsigned)n < budget) {
		ep->nlater--;
		m = ep->later_msg[ep->nlater];
		rdm_ep_rx_done(r, ep->later_ctx[ep->nlater], m->status,
			       m->len);
		loop_msg_free(ep, m, 0);
		n++;
	}
	while ((m = ep->head) && (unsigned)n < budget) {
		ep->head = m->next;
		if (!ep->head)
			ep->tail = NULL;
		m->next = NULL;
		/* relaxed: see queued */
		pl_store_relaxed(&ep->queued,
				 pl_load_relaxed(&ep->queued) - 1);
		rdm_ep_rx_arrive(r, &m->hdr, m);
		n++;
	}
	return n;
}

static int loop_arm(struct rdm_ep *r)
{
	return loop_of(r)->head || loop_of(r)->nlater ? -FI_EAGAIN : 0;
}

static bool loop_idle(struct rdm_ep *r)
{
	return !loop_of(r)->nlater;
}

static bool loop_queue_hint(struct rdm_ep *r)
{
	/* relaxed: see queued */
	return pl_load_relaxed(&loop_of(r)->queued) != 0;
}

static const struct rdm_transport_ops loop_ops = {
	.peer_open = loop_peer_open,
	.peer_close = loop_peer_close,
	.send = loop_send,
	.rx_deliver = loop_rx_deliver,
	.rx_discard = loop_rx_discard,
	.rx_src = loop_rx_src,
	.rx_src_of = loop_rx_src_of,
	.rx_src_name = loop_rx_src_name,
	.poll = loop_poll,
	.arm = loop_arm,
	.idle = loop_idle,
	.queue_hint = loop_queue_hint,
};

/* One domain, CQ, receive counter and AV per test; one loopback
 * endpoint on them, its own address inserted (self). */
struct env {
	struct pl_domain	dom;
	struct fid_cq		*cq;
	struct fid_cntr		*rx_cntr;
	struct fid_av		*av;
	struct loop_ep		*ep;
	fi_addr_t		self;
};

static const char loop_self_addr[LOOP_ADDRLEN] = "loop0";

static inline void env_open(struct env *e, int threading, uint64_t caps,
			    size_t tx_size)
{
	struct fi_domain_attr da = {
		.threading = threading,
		.data_progress = FI_PROGRESS_MANUAL,
	};
	struct fi_info dinfo = { .domain_attr = &da };
	struct fi_ep_attr ea = { .type = FI_EP_RDM };
	struct fi_info info = { .caps = caps, .ep_attr = &ea };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED };
	struct rdm_ep_attr attr = {
		.tops = &loop_ops, .tx_size = tx_size, .rx_size = 8,
		.iov_limit = 4, .inject_size = 16,
	};

	memset(e, 0, sizeof(*e));
	assert_int_equal(pl_domain_init(&e->dom, NULL, &dinfo,
					FI_VERSION(1, 17), 0, NULL), 0);
	assert_int_equal(pl_cq_open(&e->dom.domain_fid, &cqa, &e->cq, NULL),
			 0);
	assert_int_equal(pl_cntr_open(&e->dom.domain_fid, &ca, &e->rx_cntr,
				      NULL), 0);
	assert_int_equal(pl_av_open(&e->dom.domain_fid, &ava, LOOP_ADDRLEN,
				    NULL, &e->av, NULL), 0);
	assert_int_equal(fi_av_insert(e->av, loop_self_addr, 1, &e->self, 0,
				      NULL), 1);
	e->ep = calloc(1, sizeof(*e->ep));
	assert_non_null(e->ep);
	assert_int_equal(rdm_ep_init(&e->ep->rdm, &e->dom.domain_fid, &info,
				     &attr, NULL), 0);
	assert_int_equal(pl_ep_bind(&e->ep->rdm.base, &e->cq->fid,
				    FI_TRANSMIT | FI_RECV), 0);
	assert_int_equal(pl_ep_bind(&e->ep->rdm.base, &e->rx_cntr->fid,
				    FI_RECV), 0);
	assert_int_equal(pl_ep_bind(&e->ep->rdm.base, &e->av->fid, 0), 0);
	assert_int_equal(rdm_ep_enable(&e->ep->rdm), 0);
	e->ep->src = (struct rdm_ep_source){
		.src = { .poll = rdm_ep_progress_poll,
			 .arm = rdm_ep_progress_arm, .fd = -1 },
		.ep = &e->ep->rdm,
	};
	e->ep->rdm.ready = true;
}

static inline void env_close(struct env *e)
{
	struct loop_msg *m;

	rdm_ep_close_rx(&e->ep->rdm);
	while ((m = e->ep->head)) {
		e->ep->head = m->next;
		free(m);
	}
	rdm_ep_fini(&e->ep->rdm);
	free(e->ep);
	assert_int_equal(fi_close(&e->av->fid), 0);
	assert_int_equal(fi_close(&e->rx_cntr->fid), 0);
	assert_int_equal(fi_close(&e->cq->fid), 0);
	assert_int_equal(pl_domain_fini(&e->dom), 0);
}

/* One progress pass of the endpoint's source. */
static inline int env_poll(struct env *e)
{
	return rdm_ep_progress_poll(&e->ep->src.src, PL_PROGRESS_POLL_BUDGET);
}

static inline struct fid_ep *env_fid(struct env *e)
{
	return &e->ep->rdm.base.ep_fid;
}

/* The next CQ entry (it must be there). */
static inline void env_cq_next(struct env *e, struct fi_cq_tagged_entry *c)
{
	assert_int_equal(fi_cq_read(e->cq, c, 1), 1);
}

/* The next error entry (the read must answer -FI_EAVAIL). */
static inline void env_cq_err(struct env *e, struct fi_cq_err_entry *err)
{
	struct fi_cq_tagged_entry c;

	assert_int_equal(fi_cq_read(e->cq, &c, 1), -FI_EAVAIL);
	memset(err, 0, sizeof(*err));
	assert_int_equal(fi_cq_readerr(e->cq, err, 0), 1);
}

static inline void env_cq_empty(struct env *e)
{
	struct fi_cq_tagged_entry c;

	assert_int_equal(fi_cq_read(e->cq, &c, 1), -FI_EAGAIN);
}

#endif /* PROPEL_RDM_EP_TEST_H */
