/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An rxm endpoint's shm endpoint, for node-local peers (rxm_shm.h,
 * rxm_ep.h "Node-local peers"): messages (tagged and untagged), RMA and
 * atomics (rxm_ep_shm_rma.c) to a peer whose address is in the AV's
 * shm twin go by shm. The records are rxm_ep_shm.h's.
 *
 * Objects (made at enable, closed in reverse at close, shm endpoint
 * first): the shm endpoint, named from our own rxm address; bound to the
 * AV's twin; its receive CQ a peer CQ of our receive CQ (receives
 * complete straight into the application's CQ, FI_SOURCE our fi_addr_t
 * through the twin's user ids); its transmit CQ a peer CQ of an owner
 * here (rxm_ep_shm_tx_write), which turns shm's send completions into the
 * core's rdm_ep_tx_done; and our receive queue, exported
 * (rdm_peer_owner_export) and imported by shm (fi_srx_context FI_PEER),
 * so that messages from both transports match one queue in posting
 * order.
 *
 * Lock order. The core calls our send under our endpoint's lock; shm's
 * arrivals call our queue's get_* under shm's endpoint lock (shm, then
 * rxm). Calling shm's send under our lock would be rxm, then shm: a
 * deadlock. So the send under the lock only LISTS the message (pend,
 * copied: the application's iov array, and for an inject its bytes) and
 * the core calls rdm_transport_ops.unlocked after it released the lock
 * (and the progress pass does before it takes it): that flush takes the
 * list under the lock and calls shm with the lock released. shm's
 * completion comes back under shm's lock and takes ours (shm, then rxm:
 * the same order as its arrivals). RMA and atomics (the core's rma op,
 * also under our lock) are listed and flushed the same way, in one list
 * with the sends, and the target's remote events come back through the
 * same peer CQ and counters.
 *
 * Order between sends: one flusher at a time (flushing, under our lock);
 * one that finds another at work leaves its sends to it, and the worker
 * loops until the list is empty. A send shm refuses for now
 * (-FI_EAGAIN) goes back to the head of the list, with those after it,
 * and the next flush (the next send, or the next progress pass) retries.
 *
 * Two shortcuts keep a lone send to one lock round trip of ours before
 * shm has it and one after (an 8-byte ping-pong took four): a send that
 * finds nothing listed and no flusher makes its own thread the flusher
 * under the send's lock (direct, direct_thread), so its flush posts it
 * without locking to find it; and a completion shm writes on the
 * flusher's thread while the flusher calls it (posting_thread) waits in
 * ended for the lock the flusher takes after the call anyway.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext.h>
#include <rdma/fi_tagged.h>

#include "pl_atomic.h"
#include "pl_av.h"
#include "pl_cq.h"
#include "rdm_peer_srx.h"
#include "rxm_conn.h"
#include "rxm_ep.h"
#include "rxm_ep_shm.h"

static void rxm_shm_inflight_add(struct rxm_ep_shm *sh, struct rxm_shm_tx *t)
{
	t->iprev = NULL;
	t->inext = sh->inflight;
	if (sh->inflight)
		sh->inflight->iprev = t;
	sh->inflight = t;
}

static void rxm_shm_inflight_del(struct rxm_ep_shm *sh, struct rxm_shm_tx *t)
{
	if (t->iprev)
		t->iprev->inext = t->inext;
	else
		sh->inflight = t->inext;
	if (t->inext)
		t->inext->iprev = t->iprev;
}

/* A record for an operation copying copy bytes. Under our lock. */
struct rxm_shm_tx *rxm_shm_tx_get(struct rxm_ep_shm *sh, size_t copy)
{
	struct rxm_shm_tx *t;

	if (copy <= RXM_SHM_TX_SMALL && (t = sh->free_small)) {
		sh->free_small = t->next;
		sh->nfree--;
		return t;
	}
	t = malloc(sizeof(*t) + (copy <= RXM_SHM_TX_SMALL ?
				 RXM_SHM_TX_SMALL : copy));
	if (t)
		t->small = copy <= RXM_SHM_TX_SMALL;
	return t;
}

/* Under our lock. */
void rxm_shm_tx_put(struct rxm_ep_shm *sh, struct rxm_shm_tx *t)
{
	if (t->small && sh->nfree < RXM_SHM_TX_KEEP) {
		t->next = sh->free_small;
		sh->free_small = t;
		sh->nfree++;
		return;
	}
	free(t);
}

/* Under our lock: the core completes t, which shm is done with. */
static void rxm_shm_tx_finish(struct rxm_ep_shm *sh, struct rxm_shm_tx *t,
			      int status)
{
	rxm_shm_inflight_del(sh, t);
	rdm_ep_tx_done(&sh->ep->rdm, t->txe, status);
	rxm_shm_tx_put(sh, t);
}

/* A send ended (shm's completion, or refused). On the flusher's thread
 * inside its unlocked calls to shm, it waits in ended for the flusher's
 * next lock (posting_thread); anywhere else it takes our lock now. */
static void rxm_shm_tx_end(struct rxm_ep_shm *sh, struct rxm_shm_tx *t,
			   int status)
{
	/* relaxed: see posting_thread */
	uint64_t poster = pl_load_relaxed(&sh->posting_thread);

	if (poster && poster == (uint64_t)pthread_self()) {
		t->status = status;
		t->enext = sh->ended;
		sh->ended = t;
		return;
	}
	rdm_ep_lock(&sh->ep->rdm);
	rxm_shm_tx_finish(sh, t, status);
	rdm_ep_unlock(&sh->ep->rdm);
}

/* Under our lock, by the flusher: what ended during its calls. */
static void rxm_shm_tx_end_listed(struct rxm_ep_shm *sh)
{
	struct rxm_shm_tx *t;

	while ((t = sh->ended)) {
		sh->ended = t->enext;
		rxm_shm_tx_finish(sh, t, t->status);
	}
}

/* tx_cq's owner: called by shm under shm's endpoint lock (shm, then
 * rxm: rxm_shm_tx_end). context: what we passed, the record. */
static ssize_t rxm_shm_tx_write(struct fid_peer_cq *cq, void *context,
				uint64_t flags, size_t len, void *buf,
				uint64_t data, uint64_t tag, fi_addr_t src)
{
	struct rxm_ep_shm *sh = pl_container_of(cq, struct rxm_ep_shm,
						tx_owner);

	(void)flags, (void)len, (void)buf, (void)data, (void)tag, (void)src;
	rxm_shm_tx_end(sh, context, 0);
	return 0;
}

static ssize_t rxm_shm_tx_writeerr(struct fid_peer_cq *cq,
				   const struct fi_cq_err_entry *e)
{
	struct rxm_ep_shm *sh = pl_container_of(cq, struct rxm_ep_shm,
						tx_owner);

	rxm_shm_tx_end(sh, e->op_context, e->err ? -(int)e->err : -FI_EIO);
	return 0;
}

bool rxm_ep_shm_peer(struct rxm_ep *ep, const void *addr, fi_addr_t *dest_p)
{
	fi_addr_t fa;

	if (!ep->shm || !ep->rdm.base.av)
		return false;
	fa = rxm_av_shm_addr(ep->rdm.base.av, addr);
	if (fa == FI_ADDR_NOTAVAIL)
		return false;
	/* once per peer and endpoint: says which route a peer takes (the
	 * tests read it) */
	RXM_LOG_INFO(FI_LOG_EP_DATA, "peer reached over shm (its shm "
		     "address %llu)\n", (unsigned long long)fa);
	*dest_p = fa;
	return true;
}

void rxm_shm_tx_list(struct rxm_ep_shm *sh, struct rxm_shm_tx *t)
{
	t->next = NULL;
	if (sh->pend_tail)
		sh->pend_tail->next = t;
	else
		sh->pend = t;
	sh->pend_tail = t;
	/* relaxed: see listed */
	pl_store_relaxed(&sh->listed, 1u);
}

int rxm_ep_shm_send(struct rxm_ep *ep, struct rxm_conn *c,
		    const struct rdm_tx_msg *msg)
{
	fi_addr_t dest = ((struct rxm_peer *)c->owner_data)->shm_dest;
	struct rxm_ep_shm *sh = ep->shm;
	size_t len = 0, i, copy;
	struct rxm_shm_tx *t;

	bool buffered;

	for (i = 0; i < msg->iov_count; i++)
		len += msg->iov[i].iov_len;
	/* Up to the segmented limit a send is buffered, as over the core:
	 * it completes whether or not its receive is posted (shm itself
	 * would hold it until the receiver matches it). The copy is what
	 * the core's path makes too; the core's tx entry stays held until
	 * shm is done, so tx_size bounds the bytes held. Not for
	 * FI_DELIVERY_COMPLETE, which waits for the receiver. */
	buffered = len <= ep->lim.sar_limit &&
		   !(msg->flags & RDM_TX_DELIVERY);
	copy = ((msg->flags & RDM_TX_INJECT) || buffered) ? len : 0;
	t = rxm_shm_tx_get(sh, copy);
	if (!t)
		return -FI_ENOMEM;
	t->kind = RXM_SHM_TX_MSG;
	t->txe = msg->context;
	t->conn = c;
	t->rdm_flags = msg->flags;
	t->dest = dest;
	t->tag = msg->tag;
	t->data = msg->cq_data;
	t->tagged = msg->flags & RDM_TX_TAGGED;
	/* every send completes (the core waits for rdm_ep_tx_done) */
	t->flags = FI_COMPLETION |
		   ((msg->flags & RDM_TX_CQ_DATA) ? FI_REMOTE_CQ_DATA : 0) |
		   ((msg->flags & RDM_TX_DELIVERY) ? FI_DELIVERY_COMPLETE : 0);
	if (copy) {
		/* the application may reuse its buffer when we return */
		size_t off = 0;

		for (i = 0; i < msg->iov_count; i++) {
			memcpy(t->bytes + off, msg->iov[i].iov_base,
			       msg->iov[i].iov_len);
			off += msg->iov[i].iov_len;
		}
		t->iov[0] = (struct iovec){ t->bytes, len };
		t->iov_count = 1;
	} else {
		memcpy(t->iov, msg->iov, msg->iov_count * sizeof(*t->iov));
		t->iov_count = msg->iov_count;
	}
	if (!sh->flushing && !sh->pend) {
		/* nothing before it and nobody flushing: this thread becomes
		 * the flusher and its flush (the core's unlocked call, as
		 * soon as the lock is released) posts t without taking the
		 * lock again to find it */
		sh->flushing = true;
		t->next = NULL;
		sh->direct = t;
		rxm_shm_inflight_add(sh, t);
		/* relaxed: see direct_thread */
		pl_store_relaxed(&sh->direct_thread,
				 (uint64_t)pthread_self());
	} else {
		rxm_shm_tx_list(sh, t);
	}
	if (buffered && !(msg->flags & RDM_TX_INJECT))
		rdm_ep_tx_done_early(&ep->rdm, msg->context);
	return 1;	/* rdm_ep_tx_done follows */
}

/* Under the lock: the listed sends to peers that lost shm (a fallback)
 * leave over the core now, in their order; the others stay listed. */
static void rxm_shm_pend_core(struct rxm_ep *ep, struct rxm_ep_shm *sh)
{
	struct rxm_shm_tx **pp = &sh->pend, *t;
	int ret;

	sh->pend_tail = NULL;
	while ((t = *pp)) {
		if (((struct rxm_peer *)t->conn->owner_data)->shm) {
			sh->pend_tail = t;
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		if (t->kind == RXM_SHM_TX_RMA) {
			ret = rxm_shm_rma_core(ep, t);
			if (ret != 1)
				rdm_ep_tx_done(&ep->rdm, t->txe,
					       ret > 0 ? 0 : ret);
			rxm_shm_tx_put(sh, t);
			continue;
		}
		struct rdm_tx_msg m = {
			.iov = t->iov, .iov_count = t->iov_count,
			.tag = t->tag, .cq_data = t->data,
			.flags = t->rdm_flags, .context = t->txe,
		};

		/* the core copies or registers what it keeps: t goes */
		ret = rxm_ep_send_core(ep, t->conn, &m);
		if (ret != 1)
			rdm_ep_tx_done(&ep->rdm, t->txe, ret > 0 ? 0 : ret);
		rxm_shm_tx_put(sh, t);
	}
}

/* One operation to shm, without our lock. */
static ssize_t rxm_shm_tx_post(struct rxm_ep_shm *sh, struct rxm_shm_tx *t)
{
	if (t->kind == RXM_SHM_TX_RMA)
		return rxm_shm_rma_post(sh, t);
	if (t->tagged) {
		struct fi_msg_tagged m = {
			.msg_iov = t->iov, .iov_count = t->iov_count,
			.addr = t->dest, .tag = t->tag, .context = t,
			.data = t->data,
		};

		return fi_tsendmsg(sh->sep, &m, t->flags);
	}
	struct fi_msg m = {
		.msg_iov = t->iov, .iov_count = t->iov_count,
		.addr = t->dest, .context = t, .data = t->data,
	};

	return fi_sendmsg(sh->sep, &m, t->flags);
}

void rxm_ep_shm_flush(struct rdm_ep *r)
{
	struct rxm_ep *ep = rxm_ep_of_rdm(r);
	struct rxm_ep_shm *sh = ep->shm;
	struct rxm_shm_tx *batch = NULL, *t, *next;
	struct rxm_peer *tp = NULL;
	uint64_t n = 0, direct;
	ssize_t ret;

	if (!sh)
		return;
	/* relaxed: see direct_thread (the spinning poller's path: no call
	 * unless a direct send is waiting) */
	direct = pl_load_relaxed(&sh->direct_thread);
	if (direct && direct == (uint64_t)pthread_self()) {
		/* our own send made us the flusher (rxm_ep_shm_send): it is
		 * in flight already, and ours to post */
		batch = sh->direct;
		sh->direct = NULL;
		/* relaxed: see direct_thread */
		pl_store_relaxed(&sh->direct_thread, 0);
	} else {
		/* relaxed: see listed */
		if (!pl_load_relaxed(&sh->listed))
			return;
		rdm_ep_lock(r);
		if (sh->flushing) {
			/* the flusher at work takes ours */
			rdm_ep_unlock(r);
			return;
		}
		sh->flushing = true;
	}
	for (;;) {
		if (!batch) {
			/* under the lock */
			rxm_shm_pend_core(ep, sh);
			batch = sh->pend;
			if (!batch)
				break;
			sh->pend = sh->pend_tail = NULL;
			/* relaxed: see listed */
			pl_store_relaxed(&sh->listed, 0u);
			/* inflight before shm sees them: a completion may
			 * come back on another thread before the send call
			 * returns */
			for (t = batch; t; t = t->next)
				rxm_shm_inflight_add(sh, t);
			rdm_ep_unlock(r);
		}
		/* relaxed: see posting_thread */
		pl_store_relaxed(&sh->posting_thread,
				 (uint64_t)pthread_self());
		for (t = batch; t; t = next) {
			next = t->next;	/* t may complete and go */
			tp = t->conn->owner_data;
			ret = rxm_shm_tx_post(sh, t);
			if (ret)
				RXM_LOG_DBG(FI_LOG_EP_DATA, "shm send to %llu: "
					    "%zd\n",
					    (unsigned long long)t->dest, ret);
			if (ret == -FI_EAGAIN)
				break;
			if (ret)
				rxm_shm_tx_end(sh, t, (int)ret);
			else
				n++;
			/* the one flusher writes it (flushing) */
			if (!ret)
				tp->shm_ok = true;
		}
		batch = NULL;
		/* relaxed: see posting_thread */
		pl_store_relaxed(&sh->posting_thread, 0);
		rdm_ep_lock(r);
		rxm_shm_tx_end_listed(sh);
		sh->posted += n;
		n = 0;
		if (t) {
			/* refused for now: t and those after it go back
			 * first, in order, for the next flush */
			struct rxm_shm_tx *last = t;

			for (struct rxm_shm_tx *u = t; u; u = u->next) {
				rxm_shm_inflight_del(sh, u);
				last = u;
			}
			last->next = sh->pend;
			if (!sh->pend)
				sh->pend_tail = last;
			sh->pend = t;
			/* relaxed: see listed */
			pl_store_relaxed(&sh->listed, 1u);
			if (tp->shm_ok)
				break;	/* a full queue: the next flush */
			/* never reached: its address is local but it has no
			 * shm endpoint (shm there off, a named AV, a wildcard
			 * listener), so shm waits for a name that will not
			 * come. Its messages go over the core from now on;
			 * none went by shm, so their order holds. */
			tp->shm = false;
			RXM_LOG_INFO(FI_LOG_EP_DATA, "peer at shm address %llu "
				     "has no shm endpoint: its messages go "
				     "over the core\n",
				     (unsigned long long)t->dest);
		}
	}
	sh->flushing = false;
	rdm_ep_unlock(r);
}

uint64_t rxm_ep_shm_posted(struct rxm_ep *ep)
{
	uint64_t n;

	rdm_ep_lock(&ep->rdm);
	n = ep->shm ? ep->shm->posted : 0;
	rdm_ep_unlock(&ep->rdm);
	return n;
}

/* Our own shm name, from our rxm address; -FI_ENODATA when that is not
 * one of this namespace's addresses (a wildcard listener). */
static int rxm_ep_shm_own_name(struct rxm_ep *ep, char *name, size_t len)
{
	struct sockaddr_storage sa;
	size_t salen = sizeof(sa);
	int ret;

	ret = rxm_cm_getname(&ep->cm, &sa, &salen);
	if (ret)
		return ret;
	if (!rxm_shm_host_local(&ep->dom->shm.host, (struct sockaddr *)&sa))
		return -FI_ENODATA;
	ret = rxm_shm_name(&ep->dom->shm.host, (struct sockaddr *)&sa, name,
			   len);
	return ret < 0 ? ret : 0;
}

int rxm_ep_shm_open(struct rxm_ep *ep)
{
	struct rxm_shm_domain *sd = &ep->dom->shm;
	struct fid_av *twin = ep->rdm.base.av ? pl_av_prov(ep->rdm.base.av) :
			      NULL;
	struct fid_cq *rx = ep->rdm.base.rx_cq;
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED,
				      .flags = FI_PEER };
	struct fi_peer_cq_context pcq = { .size = sizeof(pcq) };
	struct fi_rx_attr srx_attr = { .op_flags = FI_PEER };
	struct fi_peer_srx_context psrx = { .size = sizeof(psrx) };
	char name[RXM_SHM_NAME_MAX];
	struct rxm_ep_shm *sh;
	static const enum pl_ep_cntr_kind cntr_kind[3] = {
		PL_EP_CNTR_RECV, PL_EP_CNTR_REMOTE_WRITE,
		PL_EP_CNTR_REMOTE_READ,
	};
	static const uint64_t cntr_flag[3] = {
		FI_RECV, FI_REMOTE_WRITE, FI_REMOTE_READ,
	};
	struct fid_cntr *cntr;
	struct fid *exp;
	size_t i;
	const char *what;
	int ret;

	/* without any of these, every peer stays on the core */
	if (!sd->domain || !twin || !rx || !pl_cq_peer(rx) || ep->rdm.sep ||
	    ep->rdm.srx)
		return 0;
	what = "our address";
	ret = rxm_ep_shm_own_name(ep, name, sizeof(name));
	if (ret)
		goto err_log;
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return -FI_ENOMEM;
	sh->ep = ep;
	sh->tx_owner_ops = (struct fi_ops_cq_owner){
		.size = sizeof(sh->tx_owner_ops),
		.write = rxm_shm_tx_write,
		.writeerr = rxm_shm_tx_writeerr,
	};
	sh->tx_owner.fid.fclass = FI_CLASS_PEER_CQ;
	sh->tx_owner.owner_ops = &sh->tx_owner_ops;
	what = "fi_endpoint";
	ret = fi_endpoint(sd->domain, sd->info, &sh->sep, NULL);
	if (ret)
		goto err_free;
	what = "fi_setname";
	ret = fi_setname(&sh->sep->fid, name, strlen(name) + 1);
	if (ret)
		goto err_ep;
	what = "the twin AV";
	ret = fi_ep_bind(sh->sep, &twin->fid, 0);
	if (ret)
		goto err_ep;
	what = "the receive peer CQ";
	pcq.cq = pl_cq_peer(rx);
	ret = fi_cq_open(sd->domain, &cq_attr, &sh->rx_cq, &pcq);
	if (!ret)
		ret = fi_ep_bind(sh->sep, &sh->rx_cq->fid, FI_RECV);
	if (ret)
		goto err_ep;
	/* 1.17's fi_peer has no peer counter: our receive and remote
	 * access counters themselves (engine counters, as the
	 * application's fi_cntr_open on our domain made them) count
	 * shm's receives and the remote writes and reads shm serves for
	 * us. Sends, RMA and atomics we start complete through us
	 * (rxm_shm_tx_write), which counts them. */
	what = "the receive and remote access counters";
	for (i = 0; i < 3; i++) {
		cntr = pl_ep_cntr(&ep->rdm.base, cntr_kind[i]);
		if (!cntr)
			continue;
		ret = fi_ep_bind(sh->sep, &cntr->fid, cntr_flag[i]);
		if (ret)
			goto err_ep;
	}
	what = "the transmit peer CQ";
	pcq.cq = &sh->tx_owner;
	ret = fi_cq_open(sd->domain, &cq_attr, &sh->tx_cq, &pcq);
	if (!ret)
		ret = fi_ep_bind(sh->sep, &sh->tx_cq->fid, FI_TRANSMIT);
	if (ret)
		goto err_ep;
	what = "the receive queue's export";
	ret = rdm_peer_owner_export(&ep->rdm, 0, &exp);
	if (ret)
		goto err_ep;
	psrx.srx = (struct fid_peer_srx *)exp;
	ret = fi_srx_context(sd->domain, &srx_attr, &sh->srx, &psrx);
	if (ret)
		goto err_ep;
	what = "the shared receive context";
	ret = fi_ep_bind(sh->sep, &sh->srx->fid, 0);
	if (ret)
		goto err_ep;
	what = "fi_enable";
	ret = fi_enable(sh->sep);
	if (ret)
		goto err_ep;
	ep->shm = sh;
	RXM_LOG_INFO(FI_LOG_EP_CTRL, "node-local peers over shm as %s\n",
		     name);
	return 0;

err_ep:
	ep->shm = sh;
	rxm_ep_shm_close(ep);
	goto err_log;
err_free:
	free(sh);
err_log:
	RXM_LOG_INFO(FI_LOG_EP_CTRL, "no shm for this endpoint (%s: %s): "
		     "its peers go over the core\n", what, fi_strerror(-ret));
	return 0;
}

void rxm_ep_shm_close(struct rxm_ep *ep)
{
	struct rxm_ep_shm *sh = ep->shm;
	struct rxm_shm_tx *t;

	if (!sh)
		return;
	/* the shm endpoint first: after it, no completion or arrival
	 * reaches us from shm */
	if (sh->sep && fi_close(&sh->sep->fid))
		RXM_LOG_WARN(FI_LOG_EP_CTRL, "the shm endpoint did not "
			     "close\n");
	/* the import later (rxm_ep_shm_fini): it stays busy while our
	 * queue holds messages shm queued there, which our close drops */
	ep->shm_srx = sh->srx;
	if (sh->tx_cq)
		(void)fi_close(&sh->tx_cq->fid);
	if (sh->rx_cq)
		(void)fi_close(&sh->rx_cq->fid);
	/* what shm never completed, and what was never handed to it */
	rdm_ep_lock(&ep->rdm);
	while ((t = sh->inflight)) {
		rxm_shm_inflight_del(sh, t);
		rdm_ep_tx_done(&ep->rdm, t->txe, -FI_ECANCELED);
		free(t);
	}
	while ((t = sh->pend)) {
		sh->pend = t->next;
		rdm_ep_tx_done(&ep->rdm, t->txe, -FI_ECANCELED);
		free(t);
	}
	while ((t = sh->free_small)) {
		sh->free_small = t->next;
		free(t);
	}
	ep->shm = NULL;
	rdm_ep_unlock(&ep->rdm);
	free(sh);
}

void rxm_ep_shm_fini(struct rxm_ep *ep)
{
	if (ep->shm_srx && fi_close(&ep->shm_srx->fid))
		RXM_LOG_WARN(FI_LOG_EP_CTRL, "shm's import of our receive "
			     "queue did not close\n");
	ep->shm_srx = NULL;
}
