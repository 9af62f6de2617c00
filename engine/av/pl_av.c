/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AV object: pl_av_open, its fid ops (close, bind), the fi_ops_av
 * table, fi_av_remove / fi_av_lookup / fi_av_straddr, and the data path
 * providers call (pl_av_lookup_peer, pl_av_reverse_lookup). The insert
 * family lives in pl_av_insert.c and pl_av_svc.c; the tables behind it in
 * pl_av_table.c (private), pl_av_shared.c (named) and pl_av_rhash.c.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av_int.h"
#include "pl_domain.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_log.h"

#define PL_AV_OPEN_FLAGS	(FI_EVENT | FI_READ | FI_SYMMETRIC)

int pl_av_lookup_peer(struct fid_av *av_fid, fi_addr_t fi_addr,
		      struct pl_av_peer *peer_p)
{
	struct pl_av *av = pl_av_of(av_fid);
	fi_addr_t handle = fi_addr & av->handle_mask;
	struct pl_av_entry *e;

#ifdef PL_RCU_CHECKS
	assert(pl_rcu_read_ongoing() && "call inside pl_rcu_read_lock");
#endif
	if (PL_UNLIKELY(av->shared)) {
		const void *addr = pl_av_shared_lookup(av->shared, handle);

		if (!addr)
			return -FI_EADDRNOTAVAIL;
		peer_p->addr = addr;
		peer_p->user_id = handle;
	} else {
		e = pl_av_table_lookup(&av->table, handle);
		if (PL_UNLIKELY(!e))
			return -FI_EADDRNOTAVAIL;
		peer_p->addr = e->addr;
		peer_p->user_id = e->user_id;
	}
	peer_p->fi_addr = handle;
	/* ~handle_mask is 0 without rx bits, so the shift of 0 is fine. */
	peer_p->rx_index = (uint32_t)((fi_addr & ~av->handle_mask) >>
				      av->rx_shift);
	return 0;
}

int pl_av_reverse_lookup(struct fid_av *av_fid, const void *addr,
			 fi_addr_t *fi_addr_p, fi_addr_t *user_id_p)
{
	struct pl_av *av = pl_av_of(av_fid);
	struct pl_av_rhash_node *node;
	struct pl_av_entry *e;
	fi_addr_t fi_addr;
	int ret;

#ifdef PL_RCU_CHECKS
	assert(pl_rcu_read_ongoing() && "call inside pl_rcu_read_lock");
#endif
	if (av->shared) {
		ret = pl_av_shared_reverse(av->shared, addr, &fi_addr);
		if (ret)
			return ret;
		*fi_addr_p = fi_addr;
		if (user_id_p)
			*user_id_p = fi_addr;
		return 0;
	}
	node = pl_av_rhash_lookup(av->rhash, addr);
	if (!node)
		return -FI_ENODATA;
	e = pl_container_of(node, struct pl_av_entry, rnode);
	*fi_addr_p = e->fi_addr;
	if (user_id_p)
		*user_id_p = e->user_id;
	return 0;
}

size_t pl_av_addrlen(const struct fid_av *av_fid)
{
	return pl_av_of(av_fid)->addrlen;
}

struct fid_domain *pl_av_domain(const struct fid_av *av_fid)
{
	return pl_av_of(av_fid)->domain;
}

void pl_av_ref(struct fid_av *av_fid)
{
	/* Relaxed: the count orders nothing; close reads it with acquire
	 * only to see the endpoints' unrefs that happened before. */
	pl_fetch_add_relaxed(&pl_av_of(av_fid)->ref, 1);
}

void pl_av_unref(struct fid_av *av_fid)
{
	/* Release: pairs with the acquire load in close. */
	pl_fetch_sub_release(&pl_av_of(av_fid)->ref, 1);
}

/* One fi_av_remove entry; AV mutex held. */
static int pl_av_remove_one(struct pl_av *av, fi_addr_t fi_addr)
{
	fi_addr_t handle = fi_addr & av->handle_mask;
	struct pl_av_entry *e;

	if (av->shared)
		return pl_av_shared_remove(av->shared, handle);
	e = __pl_av_table_get(&av->table, handle);
	if (!e)
		return -FI_EINVAL;
	if (--e->refcnt)
		return 0;	/* inserted more than once */
	if (av->ops && av->ops->removed)
		av->ops->removed(&av->av_fid, e->addr, e->fi_addr);
	/* Slot first, reverse map second: in between, a reverse lookup may
	 * still name the handle, whose lookup then reports it absent. */
	__pl_av_table_remove(&av->table, e);
	pl_av_rhash_del(av->rhash, &e->rnode);
	pl_av_table_entry_reclaim(e);
	/* relaxed (under lock, the only writer): see pl_av_epoch */
	pl_store_relaxed(&av->epoch, pl_load_relaxed(&av->epoch) + 1);
	return 0;
}

uint64_t pl_av_epoch(struct fid_av *av_fid)
{
	struct pl_av *av = pl_av_of(av_fid);

	if (av->shared)
		return 0;	/* other processes remove: never cache */
	/* relaxed: an application that wants a send to see a removal
	 * orders the two (fi_av(3) leaves concurrent ones undefined); the
	 * load then happens after the store and reads it, or a later one */
	return pl_load_relaxed(&av->epoch);
}

bool pl_av_has_user_ids(struct fid_av *av_fid)
{
	/* relaxed: see pl_av.user_ids */
	return pl_load_relaxed(&pl_av_of(av_fid)->user_ids) != 0;
}

uint64_t pl_av_insert_gen(struct fid_av *av_fid)
{
	struct pl_av *av = pl_av_of(av_fid);

	if (av->shared)
		return 0;	/* other processes insert: always look again */
	/* acquire: pairs with the release store in pl_av_insert_batch */
	return pl_load_acquire(&av->inserts);
}

/* fi_av_remove: every valid fi_addr goes; -FI_EINVAL if any was unknown,
 * stale or already removed (the others are removed all the same). */
static int pl_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			size_t count, uint64_t flags)
{
	struct pl_av *av = pl_av_of(av_fid);
	int ret = 0;
	size_t i;

	if (flags)
		return -FI_EBADFLAGS;
	if (count && !fi_addr)
		return -FI_EINVAL;
	if (av->flags & FI_READ)
		return -FI_EOPBADSTATE;
	pthread_mutex_lock(&av->lock);
	for (i = 0; i < count; i++) {
		if (pl_av_remove_one(av, fi_addr[i]))
			ret = -FI_EINVAL;
	}
	pthread_mutex_unlock(&av->lock);
	return ret;
}

/* fi_av_lookup: a short buffer gets the first *addrlen bytes; *addrlen is
 * always set to the size of the whole address. */
static int pl_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr, void *addr,
			size_t *addrlen)
{
	struct pl_av *av = pl_av_of(av_fid);
	struct pl_av_peer peer;
	int ret;

	if (!addrlen || (!addr && *addrlen))
		return -FI_EINVAL;
	pl_rcu_read_lock();
	ret = pl_av_lookup_peer(av_fid, fi_addr, &peer);
	if (!ret && *addrlen)	/* addr may be NULL for a size query */
		memcpy(addr, peer.addr, PL_MIN(*addrlen, av->addrlen));
	pl_rcu_read_unlock();
	if (ret)
		return -FI_ENODATA;	/* what the reference's AVs return */
	*addrlen = av->addrlen;
	return 0;
}

/* The default printable form: "0x" and the bytes in hex, cut to fit. */
static void pl_av_straddr_hex(const unsigned char *addr, size_t addrlen,
			      char *buf, size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	size_t need = 3 + 2 * addrlen, i;

	for (i = 0; *len && i < need - 1 && i < *len - 1; i++) {
		if (i < 2)
			buf[i] = "0x"[i];
		else
			buf[i] = hex[(addr[(i - 2) / 2] >> (i % 2 ? 0 : 4)) &
				     0xf];
	}
	if (*len)
		buf[i] = '\0';
	*len = need;
}

static const char *pl_av_straddr(struct fid_av *av_fid, const void *addr,
				 char *buf, size_t *len)
{
	struct pl_av *av = pl_av_of(av_fid);

	if (!addr || !len || (!buf && *len))
		return NULL;
	if (av->ops && av->ops->straddr)
		av->ops->straddr(av_fid, addr, buf, len);
	else
		pl_av_straddr_hex(addr, av->addrlen, buf, len);
	return buf;
}

static int pl_av_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct pl_av *av = pl_container_of(fid, struct pl_av, av_fid.fid);
	int ret = 0;

	if (flags)
		return -FI_EBADFLAGS;	/* reserved, must be 0 (fi_av(3)) */
	if (!bfid || bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	pthread_mutex_lock(&av->lock);
	if (av->eq) {
		ret = -FI_EALREADY;
	} else {
		av->eq = pl_container_of(bfid, struct fid_eq, fid);
		/* the EQ refuses fi_close while this AV may report to it
		 * (pl_eq_ref ignores an EQ that is not the engine's) */
		pl_eq_ref(av->eq);
	}
	pthread_mutex_unlock(&av->lock);
	return ret;
}

/* pl_av_table_fini hands over each live entry at close. */
static void pl_av_drop_entry(struct pl_av_entry *e, void *arg)
{
	struct pl_av *av = arg;

	pl_av_rhash_del(av->rhash, &e->rnode);
	pl_av_table_entry_reclaim(e);
}

static int pl_av_close(struct fid *fid)
{
	struct pl_av *av = pl_container_of(fid, struct pl_av, av_fid.fid);

	/* Acquire: pairs with the endpoints' release in pl_av_unref. */
	if (pl_load_acquire(&av->ref) > 0)
		return -FI_EBUSY;
	if (av->ops && av->ops->closed)
		av->ops->closed(&av->av_fid);
	if (av->shared) {
		pl_av_shared_close(av->shared);
	} else {
		pl_av_table_fini(&av->table, pl_av_drop_entry, av);
		pl_av_rhash_close(av->rhash);
	}
	/* Every callback this AV queued has run when fi_close returns, so
	 * nothing of it outlives the call (nor a dlclose of the library). */
	pl_rcu_barrier();
	if (av->eq)
		pl_eq_unref(av->eq);
	if (av->dom)
		pl_domain_child_put(av->dom);
	pthread_mutex_destroy(&av->lock);
	free(av->name);
	free(av);
	return 0;
}

void pl_av_set_prov(struct fid_av *av_fid, void *prov)
{
	pl_av_of(av_fid)->prov = prov;
}

void *pl_av_prov(const struct fid_av *av_fid)
{
	return pl_av_of(av_fid)->prov;
}

static struct fi_ops pl_av_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_av_close,
	.bind = pl_av_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_av pl_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = pl_av_insert,
	.insertsvc = pl_av_svc_insertsvc,
	.insertsym = pl_av_svc_insertsym,
	.remove = pl_av_remove,
	.lookup = pl_av_lookup,
	.straddr = pl_av_straddr,
	/* fi_av_set: left to the collectives (fi_collective(3)), not done. */
	.av_set = pl_fid_nosys_av_av_set,
};

static int pl_av_open_check(const struct fi_av_attr *attr, size_t addrlen,
			    struct fid_av **av_p)
{
	if (!attr || !av_p || !addrlen)
		return -FI_EINVAL;
	if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_TABLE &&
	    attr->type != FI_AV_MAP)
		return -FI_EINVAL;
	if (attr->rx_ctx_bits < 0 ||
	    attr->rx_ctx_bits > PL_AV_RX_CTX_BITS_MAX)
		return -FI_EINVAL;
	if (attr->flags & ~(uint64_t)PL_AV_OPEN_FLAGS)
		return -FI_EBADFLAGS;
	if ((attr->flags & FI_READ) && !attr->name)
		return -FI_EINVAL;	/* a read-only AV must be named */
	return 0;
}

int pl_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
	       size_t addrlen, const struct pl_av_addr_ops *ops,
	       struct fid_av **av_p, void *context)
{
	enum fi_av_type type;
	void *map_addr = NULL;
	struct pl_av *av;
	int ret;

	ret = pl_av_open_check(attr, addrlen, av_p);
	if (ret)
		return ret;
	ret = pl_rcu_init();
	if (ret)
		return ret;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = &pl_av_fid_ops;
	av->av_fid.ops = &pl_av_ops;
	av->domain = domain;
	av->ops = ops;
	av->flags = attr->flags;
	av->addrlen = addrlen;
	av->rx_ctx_bits = attr->rx_ctx_bits;
	av->ep_per_node = attr->ep_per_node;
	av->handle_mask = attr->rx_ctx_bits ? ~0ULL >> attr->rx_ctx_bits :
			  ~0ULL;
	av->rx_shift = attr->rx_ctx_bits ? 64u - (unsigned)attr->rx_ctx_bits :
		       0;
	pl_store_relaxed(&av->ref, 0);	/* not shared yet */
	pl_store_relaxed(&av->epoch, 1);	/* not shared yet */
	pl_store_relaxed(&av->inserts, 1);	/* not shared yet */
	if (pthread_mutex_init(&av->lock, NULL)) {
		ret = -FI_ENOMEM;
		goto err_free;
	}
	pl_av_peer_init(av);
	type = attr->type;
	if (attr->name) {
		av->name = strdup(attr->name);	/* for the peer AV's query */
		if (!av->name) {
			ret = -FI_ENOMEM;
			goto err_mutex;
		}
		map_addr = attr->map_addr;
		ret = pl_av_shared_open(attr->name, addrlen,
					attr->flags & FI_READ, attr->count,
					&type, &map_addr, &av->shared);
		if (ret)
			goto err_mutex;
	} else {
		ret = pl_av_table_init(&av->table, attr->count);
		if (ret)
			goto err_mutex;
		ret = pl_av_rhash_open(addrlen, attr->count, &av->rhash);
		if (ret)
			goto err_table;
	}
	av->type = type == FI_AV_UNSPEC ? FI_AV_TABLE : type;
	attr->type = av->type;
	if (attr->name)
		attr->map_addr = map_addr;
	av->map_addr = attr->map_addr;
	/* the domain refuses fi_close while this AV is open (a domain
	 * that is not the engine's is not counted) */
	av->dom = pl_domain_of(domain);
	if (av->dom)
		pl_domain_child_get(av->dom);
	*av_p = &av->av_fid;
	return 0;

err_table:
	pl_av_table_fini(&av->table, pl_av_drop_entry, av);
	pl_rcu_barrier();
err_mutex:
	pthread_mutex_destroy(&av->lock);
err_free:
	free(av->name);
	free(av);
	return ret;
}
