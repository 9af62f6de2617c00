/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_peer(3), the owner side of a peer AV: every AV embeds a fid_peer_av
 * that an owning provider hands (in a struct fi_peer_av_context, with
 * FI_PEER) to a peer provider's fi_av_open(), so that the peer addresses
 * the application's peers through the owner's table instead of its own.
 *
 * What the peer gets:
 *   owner_ops->query    the AV's attributes as they stand: type,
 *                       rx_ctx_bits, flags, name, map_addr, ep_per_node as
 *                       opened, count = addresses in the AV now (a named
 *                       AV: slots appended by every process so far).
 *   owner_ops->ep_addr  the fi_addr_t under which a local endpoint's own
 *                       address (fi_getname) was inserted, else
 *                       FI_ADDR_NOTAVAIL.
 *   fid.context         the owner's struct fid_av, so a peer built outside
 *                       this library can still call fi_av_lookup() or
 *                       fi_av_straddr() on it; peers inside the engine use
 *                       pl_av_peer_owner() and then pl_av_lookup_peer(),
 *                       pl_av_reverse_lookup() and pl_av_addrlen().
 * The fid_peer_av lives and dies with the AV: the peer never closes it
 * (its close slot is the -FI_ENOSYS stub) and the owner keeps its AV open
 * while the peer's AV is (pl_av_ref if the peer wants that enforced).
 *
 * Threads: query takes the AV mutex (the live count is writer-side
 * state), so it must not be called with it held, e.g. from a provider
 * hook; ep_addr calls the endpoint's fi_getname (which may block) and
 * then takes a read-side section of its own, so call it outside one.
 * Both may run at any time the AV is open, beside every other AV call.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "pl_av_int.h"
#include "pl_fid_nosys.h"

/* Addresses up to this size are fetched on the stack by ep_addr. */
#define PL_AV_PEER_STACK_ADDR	128

static struct pl_av *pl_av_peer_to_av(struct fid_peer_av *peer)
{
	return pl_container_of(peer, struct pl_av, peer_av);
}

static int pl_av_peer_query(struct fid_peer_av *peer, struct fi_av_attr *attr)
{
	struct pl_av *av = pl_av_peer_to_av(peer);

	if (!attr)
		return -FI_EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->type = av->type;
	attr->rx_ctx_bits = av->rx_ctx_bits;
	attr->ep_per_node = av->ep_per_node;
	attr->name = av->name;
	attr->map_addr = av->map_addr;
	attr->flags = av->flags;
	if (av->shared) {
		attr->count = (size_t)pl_av_shared_count(av->shared);
	} else {
		/* live is writer-side state: read it under the AV mutex. */
		pthread_mutex_lock(&av->lock);
		attr->count = av->table.live;
		pthread_mutex_unlock(&av->lock);
	}
	return 0;
}

static fi_addr_t pl_av_peer_ep_addr(struct fid_peer_av *peer,
				    struct fid_ep *ep)
{
	struct pl_av *av = pl_av_peer_to_av(peer);
	unsigned char stack_buf[PL_AV_PEER_STACK_ADDR];
	unsigned char *buf = stack_buf;
	fi_addr_t fi_addr = FI_ADDR_NOTAVAIL;
	size_t len = av->addrlen;
	int ret;

	if (!ep || !ep->cm || !ep->cm->getname)
		return FI_ADDR_NOTAVAIL;
	if (av->addrlen > sizeof(stack_buf)) {
		buf = malloc(av->addrlen);
		if (!buf)
			return FI_ADDR_NOTAVAIL;
	}
	ret = fi_getname(&ep->fid, buf, &len);
	/* Another provider's endpoint (another address size) cannot be in
	 * this AV; neither can one that has no address yet. */
	if (!ret && len == av->addrlen) {
		pl_rcu_read_lock();
		if (pl_av_reverse_lookup(&av->av_fid, buf, &fi_addr, NULL))
			fi_addr = FI_ADDR_NOTAVAIL;
		pl_rcu_read_unlock();
	}
	if (buf != stack_buf)
		free(buf);
	return fi_addr;
}

static struct fi_ops_av_owner pl_av_owner_ops = {
	.size = sizeof(struct fi_ops_av_owner),
	.query = pl_av_peer_query,
	.ep_addr = pl_av_peer_ep_addr,
};

/* The peer AV is not the peer's to close or bind: every slot is a stub. */
static struct fi_ops pl_av_peer_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_fid_nosys_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

void pl_av_peer_init(struct pl_av *av)
{
	av->peer_av.fid.fclass = FI_CLASS_PEER_AV;
	av->peer_av.fid.context = &av->av_fid;
	av->peer_av.fid.ops = &pl_av_peer_fid_ops;
	av->peer_av.owner_ops = &pl_av_owner_ops;
}

struct fid_peer_av *pl_av_peer_export(struct fid_av *av_fid)
{
	return &pl_av_of(av_fid)->peer_av;
}

struct fid_av *pl_av_peer_owner(struct fid_peer_av *peer)
{
	if (!peer || peer->owner_ops != &pl_av_owner_ops)
		return NULL;
	return &pl_av_peer_to_av(peer)->av_fid;
}
