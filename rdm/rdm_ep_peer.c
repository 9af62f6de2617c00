/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The per-peer cache of an RDM endpoint: the transport's handle on each
 * destination, by AV slot (the engine's fi_addr_t encoding,
 * pl_av_addr.h). A handle is opened on the first send to an address and
 * stays open until the endpoint closes: a send to it may still be in
 * flight, so a handle whose slot the AV gave to another address is
 * parked (retired), not closed. Everything here runs under the endpoint
 * lock (rdm_ep.h); the hit of rdm_ep_peer_get is inline.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_log.h"
#include "pl_rcu.h"
#include "rdm_ep.h"

static int rdm_ep_peer_grow(struct rdm_ep *ep, size_t slot)
{
	size_t n = ep->npeers ? ep->npeers : 16;
	struct rdm_ep_peer *p;

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

static void rdm_ep_peer_retire(struct rdm_ep *ep, void *tpeer)
{
	void **r;

	r = realloc(ep->retired, (ep->nretired + 1) * sizeof(*r));
	if (!r) {
		/* cannot park it: leak the handle rather than risk closing
		 * one with a send in flight */
		PL_WARN(FI_LOG_EP_DATA, "rdm: peer handle leaked (ENOMEM)\n");
		return;
	}
	r[ep->nretired++] = tpeer;
	ep->retired = r;
}

int rdm_ep_peer_lookup(struct rdm_ep *ep, fi_addr_t dest, void **tpeer_p)
{
	char stack[RDM_EP_ADDR_MAX];
	struct pl_av_peer peer;
	struct rdm_ep_peer *e;
	size_t addrlen, slot;
	uint64_t epoch;
	void *addr;
	fi_addr_t fa;
	int ret;

	if (!ep->base.av)
		return -FI_ENOAV;
	epoch = pl_av_epoch(ep->base.av);
	addrlen = pl_av_addrlen(ep->base.av);
	addr = addrlen <= sizeof(stack) ? stack : malloc(addrlen);
	if (!addr)
		return -FI_ENOMEM;
	/* the address is copied out of the read-side section: the entry
	 * may be freed once it ends */
	pl_rcu_read_lock();
	ret = pl_av_lookup_peer(ep->base.av, dest, &peer);
	if (!ret) {
		fa = peer.fi_addr;
		memcpy(addr, peer.addr, addrlen);
	}
	pl_rcu_read_unlock();
	if (ret)
		goto out;
	slot = rdm_ep_peer_slot(fa);
	if (slot >= ep->npeers) {
		ret = rdm_ep_peer_grow(ep, slot);
		if (ret)
			goto out;
	}
	e = &ep->peers[slot];
	if (e->tpeer && e->fi_addr == fa)
		goto hit;
	if (e->tpeer) {
		/* the slot was reused for another address */
		rdm_ep_peer_retire(ep, e->tpeer);
		e->tpeer = NULL;
	}
	ret = ep->tops->peer_open(ep, addr, &e->tpeer);
	if (ret) {
		e->tpeer = NULL;
		goto out;
	}
	e->fi_addr = fa;
hit:
	e->rx_idx = peer.rx_index;
	e->dest = dest;
	e->av_epoch = epoch;
	*tpeer_p = e->tpeer;
out:
	if (addr != stack)
		free(addr);
	return ret;
}

void rdm_ep_peer_fini(struct rdm_ep *ep)
{
	size_t i;

	for (i = 0; i < ep->npeers; i++)
		if (ep->peers[i].tpeer)
			ep->tops->peer_close(ep, ep->peers[i].tpeer);
	for (i = 0; i < ep->nretired; i++)
		ep->tops->peer_close(ep, ep->retired[i]);
	free(ep->peers);
	free(ep->retired);
	ep->peers = NULL;
	ep->retired = NULL;
	ep->npeers = ep->nretired = 0;
}
