/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm as an RDM transport: struct rdm_transport_ops (rdm_transport.h) on
 * the protocol layer (shm_xfer.h), and the protocol layer's callbacks
 * (struct shm_xfer_ops), which turn its records into the core's upcalls.
 * Everything here runs with the endpoint serialized by the core's lock
 * (rdm_ep.h), but queue_hint, which needs none. The callbacks run inside
 * shm_xfer_ep_poll, hence inside the poll op.
 */
#include <assert.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_av.h"
#include "pl_rcu.h"
#include "rdm_rma.h"
#include "shm_atomic.h"
#include "shm_ep.h"

/* The message flags both sides share keep their bit (the arrival path
 * passes them through unconverted). */
static_assert(SHM_XF_TAGGED == RDM_RX_TAGGED, "tagged bit");
static_assert(SHM_XF_CQ_DATA == RDM_RX_CQ_DATA, "cq data bit");
/* The core's send flags are the protocol layer's (the send op passes
 * them through): the receiver's acknowledgement after placing gives
 * delivery complete, and in node-local memory the data placed is
 * committed. */
static_assert(SHM_XF_TAGGED == RDM_TX_TAGGED &&
	      SHM_XF_CQ_DATA == RDM_TX_CQ_DATA &&
	      SHM_XF_DELIVERY == RDM_TX_DELIVERY &&
	      SHM_XF_INJECT == RDM_TX_INJECT, "send flag bits");
/* The AV's addresses (shm_av.c) fit the core's address buffers. */
static_assert(SHM_NAME_MAX <= RDM_EP_ADDR_MAX, "shm names fit");


static inline struct shm_ep *shm_ep_transport_ep(struct rdm_ep *r)
{
	return (struct shm_ep *)r;	/* rdm is first */
}

/* ---- rdm_transport_ops ---- */

static int shm_ep_transport_peer_open(struct rdm_ep *r, const void *addr,
				      void **tpeer_p)
{
	struct shm_xfer_peer *xp;
	char name[SHM_NAME_MAX];
	int ret;

	/* the AV's entry: a NUL-padded name of SHM_NAME_MAX bytes */
	memcpy(name, addr, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	ret = shm_xfer_peer_open(shm_ep_transport_ep(r)->xep, name, &xp);
	if (ret)
		/* no such endpoint (yet): the application may retry, as
		 * with a peer that is still starting */
		return ret == -FI_ENOENT ? -FI_EAGAIN : ret;
	*tpeer_p = xp;
	return 0;
}

static void shm_ep_transport_peer_close(struct rdm_ep *r, void *tpeer)
{
	(void)r;
	shm_xfer_peer_close(tpeer);
}

static int shm_ep_transport_send(struct rdm_ep *r, void *tpeer,
				 const struct rdm_tx_msg *msg)
{
	struct shm_xfer_msg m = {
		.iov = msg->iov,
		.iov_count = msg->iov_count,
		.tag = msg->tag,
		.cq_data = msg->cq_data,
		.flags = msg->flags |	/* same bits, asserted above */
			 (msg->rx_idx << SHM_XF_RX_SHIFT),
		.context = msg->context,
	};

	return shm_xfer_send(shm_ep_transport_ep(r)->xep, tpeer, &m);
}

static int shm_ep_transport_rx_deliver(struct rdm_ep *r, void *trx,
				       const struct iovec *iov, size_t count,
				       void *ctx, uint64_t *len_p)
{
	struct shm_xfer_rx *rx = trx;

	(void)r;
	/* the layer's own field, given back to rx_done */
	rx->context = ctx;
	return shm_xfer_rx_deliver(rx, iov, count, len_p);
}

static void shm_ep_transport_rx_discard(struct rdm_ep *r, void *trx)
{
	(void)r;
	shm_xfer_rx_discard(trx);
}

/* The sender's fi_addr_t, by its name (the AV keys on the NUL-padded
 * name, shm_av.c). */
static fi_addr_t shm_ep_transport_rx_lookup(struct rdm_ep *r, const void *src)
{
	char key[SHM_NAME_MAX];
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	strncpy(key, src, sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	pl_rcu_read_lock();
	if (pl_av_reverse_lookup(r->base.av, key, &fa, NULL))
		fa = FI_ADDR_NOTAVAIL;
	pl_rcu_read_unlock();
	return fa;
}

/*
 * The same, remembered per sender (shm_xfer_src_cache): a found address
 * stays right while the AV's epoch (pl_av_epoch: removals change it)
 * does; a sender not found is looked up again each time (an insert may
 * add it). Sequence lock: a reader takes the value only if seq was even
 * and unchanged around its reads; a writer that finds seq odd, or loses
 * the race to make it odd, leaves the cache to the other writer.
 */
static fi_addr_t shm_ep_transport_rx_src(struct rdm_ep *r, const void *src)
{
	struct shm_xfer_src_cache *c = shm_xfer_src_cache(src);
	uint64_t epoch = pl_av_epoch(r->base.av), s, tag, value;
	fi_addr_t fa;

	if (!epoch)	/* a named AV: other processes change it */
		return shm_ep_transport_rx_lookup(r, src);
	/* acquire: pairs with the writer's release of seq below */
	s = pl_load_acquire(&c->seq);
	/* relaxed: kept only if seq reads s again after the fence */
	tag = pl_load_relaxed(&c->tag);
	value = pl_load_relaxed(&c->value);
	/* the reads above before the second look at seq */
	pl_fence_acquire();
	if (!(s & 1) && s == pl_load_relaxed(&c->seq) && tag == epoch)
		return (fi_addr_t)value;
	fa = shm_ep_transport_rx_lookup(r, src);
	if (fa == FI_ADDR_NOTAVAIL || (s & 1))
		return fa;
	if (pl_cas_acquire(&c->seq, &s, s + 1)) {
		/* release fence: a reader that sees a store below also sees
		 * seq odd at its second look (pairs with its acquire fence) */
		pl_fence_release();
		/* relaxed: ordered by the fence above and the release below */
		pl_store_relaxed(&c->tag, epoch);
		pl_store_relaxed(&c->value, (uint64_t)fa);
		/* release: the value and tag before the even seq (pairs with
		 * the readers' acquire load) */
		pl_store_release(&c->seq, s + 2);
	}
	return fa;
}

static const void *shm_ep_transport_rx_src_of(struct rdm_ep *r, void *trx)
{
	(void)r;
	return ((struct shm_xfer_rx *)trx)->src_name;
}

/* FI_SOURCE_ERR's err_data: the sender's name, NUL included. */
static size_t shm_ep_transport_rx_src_name(struct rdm_ep *r, const void *src,
					   char *buf, size_t size)
{
	(void)r;
	if (!size)
		return 0;
	strncpy(buf, src, size - 1);
	buf[size - 1] = '\0';
	return strlen(buf) + 1;
}

/* One RMA or atomic request (rdm_rma.h) as a protocol request: the
 * target address travels in the tag, the key beside it. */
static int shm_ep_transport_rma(struct rdm_ep *r, void *tpeer,
				const struct rdm_rma_msg *m)
{
	struct shm_ep *ep = shm_ep_transport_ep(r);
	struct shm_xfer_msg x = {
		.iov = m->iov,
		.iov_count = m->iov_count,
		.tag = m->addr,
		.cq_data = m->cq_data,
		.rma_key = m->key,
		.context = m->context,
	};

	switch (m->kind) {
	case RDM_RMA_WRITE:
		x.flags = SHM_XF_RMA_WRITE | (m->flags & (SHM_XF_CQ_DATA |
							  SHM_XF_INJECT));
		return shm_xfer_send(ep->xep, tpeer, &x);
	case RDM_RMA_READ:
		return shm_xfer_rma_read(ep->xep, tpeer, &x);
	default:
		return shm_xfer_rma_atomic(ep->xep, tpeer, &x, m->amo,
				       m->amo_len);
	}
}

static int shm_ep_transport_poll(struct rdm_ep *r, unsigned budget)
{
	return shm_xfer_ep_poll(shm_ep_transport_ep(r)->xep, budget);
}

static int shm_ep_transport_arm(struct rdm_ep *r)
{
	return shm_xfer_ep_arm(shm_ep_transport_ep(r)->xep);
}

static bool shm_ep_transport_idle(struct rdm_ep *r)
{
	return shm_xfer_ep_idle(shm_ep_transport_ep(r)->xep);
}

static bool shm_ep_transport_queue_hint(struct rdm_ep *r)
{
	return shm_xfer_ep_queue_hint(shm_ep_transport_ep(r)->xep);
}

const struct rdm_transport_ops shm_ep_transport_ops = {
	.peer_open = shm_ep_transport_peer_open,
	.peer_close = shm_ep_transport_peer_close,
	.send = shm_ep_transport_send,
	.rx_deliver = shm_ep_transport_rx_deliver,
	.rx_discard = shm_ep_transport_rx_discard,
	.rx_src = shm_ep_transport_rx_src,
	.rx_src_of = shm_ep_transport_rx_src_of,
	.rx_src_name = shm_ep_transport_rx_src_name,
	.rma = shm_ep_transport_rma,
	.poll = shm_ep_transport_poll,
	.arm = shm_ep_transport_arm,
	.idle = shm_ep_transport_idle,
	.queue_hint = shm_ep_transport_queue_hint,
};

/* ---- the protocol layer's callbacks (shm_xfer_ops) ---- */

static inline uint32_t shm_ep_transport_rx_flags(uint32_t xf)
{
	return (xf & (SHM_XF_TAGGED | SHM_XF_CQ_DATA)) |
	       ((xf & SHM_XF_UNMATCHED) ? RDM_RX_UNMATCHED : 0);
}

static void shm_ep_transport_rx_msg(struct shm_xfer_ep *xep,
				    struct shm_xfer_rx *rx)
{
	struct rdm_rx_hdr h = {
		.size = rx->size,
		.tag = rx->tag,
		.cq_data = rx->cq_data,
		/* only bounce-buffer and single-copy receptions can
		 * finish later (rx_done) */
		.flags = shm_ep_transport_rx_flags(rx->flags) |
			 (rx->proto != SHM_PROTO_INLINE ? RDM_RX_LATER : 0),
		.rx_idx = (rx->flags & SHM_XF_RX_MASK) >> SHM_XF_RX_SHIFT,
		.src = rx->src_name,
	};

	rdm_ep_rx_arrive(shm_xfer_ep_user(xep), &h, rx);
}

static int shm_ep_transport_rx_inline(struct shm_xfer_ep *xep,
				      const struct shm_xfer_inline *in)
{
	struct rdm_rx_hdr h = {
		.size = in->size,
		.tag = in->tag,
		.cq_data = in->cq_data,
		.flags = shm_ep_transport_rx_flags(in->flags),
		.rx_idx = (in->flags & SHM_XF_RX_MASK) >> SHM_XF_RX_SHIFT,
		.src = in->src_name,
		.data = in->data,
	};

	return rdm_ep_rx_inline(shm_xfer_ep_user(xep), &h);
}

static void shm_ep_transport_rx_done(struct shm_xfer_ep *xep,
				     struct shm_xfer_rx *rx, int status,
				     uint64_t len)
{
	if (rx->context)
		rdm_ep_rx_done(shm_xfer_ep_user(xep), rx->context, status,
			       len);
}

static void shm_ep_transport_tx_done(struct shm_xfer_ep *xep, void *context,
				     int status)
{
	rdm_ep_tx_done(shm_xfer_ep_user(xep), context, status);
}

const struct shm_xfer_ops shm_ep_transport_xfer_ops = {
	.rx_msg = shm_ep_transport_rx_msg,
	.rx_inline = shm_ep_transport_rx_inline,
	.rx_done = shm_ep_transport_rx_done,
	.tx_done = shm_ep_transport_tx_done,
	.rma_msg = shm_ep_rma_msg,	/* shm_ep_rma.c */
	.rma_done = shm_ep_rma_done,
};
