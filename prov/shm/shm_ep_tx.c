/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send path of the shm endpoint (fi_msg and fi_tagged alike):
 * resolve the destination through the AV, find or open the protocol
 * layer's handle on it, hand the message to shm_xfer_send, complete it
 * now or when the layer calls back (shm_ep_progress.c).
 *
 * Flow control is the application's, as fi_msg(3) says: a full queue,
 * bounce channel or tx table gives -FI_EAGAIN after one progress pass
 * of our own; the application drives progress (fi_cq_read) and retries.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "shm_addr.h"
#include "pl_compiler.h"
#include "shm_ep.h"
#include "shm_info.h"
#include "shm_params.h"

/* Completion levels the receiver's acknowledgement after placing gives:
 * delivery complete implies match complete (the message was matched),
 * and in node-local memory the data placed is committed. */
#define SHM_EP_DELIVERY_FLAGS (FI_DELIVERY_COMPLETE | FI_MATCH_COMPLETE | \
			       FI_COMMIT_COMPLETE)

static int shm_ep_peer_grow(struct shm_ep *ep, size_t slot)
{
	size_t n = ep->npeers ? ep->npeers : 16;
	struct shm_ep_peer *p;

	while (n <= slot)
		n *= 2;
	p = realloc(ep->peers, n * sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	memset(p + ep->npeers, 0, (n - ep->npeers) * sizeof(*p));
	ep->peers = p;
	ep->npeers = n;
	return 0;
}

/* A handle stays open until the endpoint closes (a send to it may
 * still be in flight): replaced ones are parked here. */
static void shm_ep_peer_retire(struct shm_ep *ep, struct shm_xfer_peer *xp)
{
	struct shm_xfer_peer **r;

	r = realloc(ep->retired, (ep->nretired + 1) * sizeof(*r));
	if (!r) {
		/* cannot park it: leak the mapping rather than risk closing
		 * a handle with a send in flight */
		SHM_WARN(FI_LOG_EP_DATA, "shm: peer handle leaked (ENOMEM)\n");
		return;
	}
	r[ep->nretired++] = xp;
	ep->retired = r;
}

/* Under the lock: shm_ep_peer_get's way when its cache misses. */
int shm_ep_peer_lookup(struct shm_ep *ep, fi_addr_t dest,
		       struct shm_xfer_peer **xp_p)
{
	char name[SHM_NAME_MAX];
	struct pl_av_peer peer;
	struct shm_ep_peer *e;
	uint64_t epoch;
	fi_addr_t fa;
	int ret;

	if (!ep->base.av)
		return -FI_ENOAV;
	epoch = pl_av_epoch(ep->base.av);
	pl_rcu_read_lock();
	ret = pl_av_lookup_peer(ep->base.av, dest, &peer);
	if (!ret) {
		fa = peer.fi_addr;
		memcpy(name, peer.addr, sizeof(name));
		name[sizeof(name) - 1] = '\0';
	}
	pl_rcu_read_unlock();
	if (ret)
		return ret;
	if (SHM_EP_SLOT(fa) >= ep->npeers) {
		ret = shm_ep_peer_grow(ep, SHM_EP_SLOT(fa));
		if (ret)
			return ret;
	}
	e = &ep->peers[SHM_EP_SLOT(fa)];
	if (e->xpeer && e->fi_addr == fa) {
		e->dest = dest;
		e->av_epoch = epoch;
		*xp_p = e->xpeer;
		return 0;
	}
	if (e->xpeer) {
		/* the slot was reused for another address */
		shm_ep_peer_retire(ep, e->xpeer);
		e->xpeer = NULL;
	}
	ret = shm_xfer_peer_open(ep->xep, name, &e->xpeer);
	if (ret) {
		e->xpeer = NULL;
		/* no such endpoint (yet): the application may retry, as
		 * with a peer that is still starting */
		return ret == -FI_ENOENT ? -FI_EAGAIN : ret;
	}
	e->fi_addr = fa;
	e->dest = dest;
	e->av_epoch = epoch;
	*xp_p = e->xpeer;
	return 0;
}

struct shm_ep_txe *shm_ep_txe_get(struct shm_ep *ep)
{
	struct shm_ep_txe *t = ep->txe_free;

	if (t)
		ep->txe_free = t->next;
	return t;
}

void shm_ep_txe_put(struct shm_ep *ep, struct shm_ep_txe *t)
{
	t->next = ep->txe_free;
	ep->txe_free = t;
}

ssize_t shm_ep_send(struct shm_ep *ep, const struct iovec *iov, size_t count,
		    fi_addr_t dest, uint64_t tag, uint64_t data,
		    void *context, uint64_t flags)
{
	struct shm_xfer_peer *xp;
	struct shm_xfer_msg msg;
	struct shm_ep_txe *t;
	size_t len = 0, i;
	int ret;

	/* iov_limit as fi_getinfo reports it (fi_msg(3): beyond it the
	 * call fails) */
	if (count > SHM_IOV_LIMIT || (count && !iov))
		return -FI_EINVAL;
	for (i = 0; i < count; i++)
		len += iov[i].iov_len;
	if ((flags & FI_INJECT) && len > SHM_INJECT_SIZE)
		return -FI_EINVAL;

	msg = (struct shm_xfer_msg){
		.iov = iov,
		.iov_count = count,
		.tag = tag,
		.cq_data = data,
		.flags = ((flags & FI_TAGGED) ? SHM_XF_TAGGED : 0) |
			 ((flags & FI_REMOTE_CQ_DATA) ? SHM_XF_CQ_DATA : 0) |
			 ((flags & SHM_EP_DELIVERY_FLAGS) ? SHM_XF_DELIVERY : 0) |
			 ((flags & FI_INJECT) ? SHM_XF_INJECT : 0),
	};

	shm_ep_lock(ep);
	if (!ep->xep) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	ret = shm_ep_peer_get(ep, dest, &xp);
	if (ret)
		goto out;
	t = shm_ep_txe_get(ep);
	if (!t) {
		/* every entry waits for its completion: move them on */
		shm_xfer_ep_poll(ep->xep, PL_PROGRESS_POLL_BUDGET);
		t = shm_ep_txe_get(ep);
		if (!t) {
			ret = -FI_EAGAIN;
			goto out;
		}
	}
	t->context = context;
	t->flags = FI_SEND | ((flags & FI_TAGGED) ? FI_TAGGED : FI_MSG);
	t->op_flags = flags;
	t->len = len;
	msg.context = t;
	ret = shm_xfer_send(ep->xep, xp, &msg);
	if (ret == -FI_EAGAIN) {
		shm_xfer_ep_poll(ep->xep, PL_PROGRESS_POLL_BUDGET);
		ret = shm_xfer_send(ep->xep, xp, &msg);
	}
	if (ret == 0) {
		/* an inject with no send counter has nothing to report */
		if (!(flags & SHM_EP_F_NOCOMP) ||
		    pl_ep_cntr(&ep->base, PL_EP_CNTR_SEND))
			shm_ep_tx_complete(ep, context, t->flags, flags, len, 0);
		shm_ep_txe_put(ep, t);
	} else if (ret == 1) {
		ret = 0;	/* tx_done follows */
	} else {
		shm_ep_txe_put(ep, t);
	}
out:
	shm_ep_unlock(ep);
	return ret;
}
