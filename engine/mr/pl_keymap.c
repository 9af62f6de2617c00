/* SPDX-License-Identifier: BSD-2-Clause */
/* RCU key map (pl_keymap.h): chained hash, lock-free lookups. */
#include <stdint.h>
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_rcu.h"
#include "pl_cntr.h"
#include "pl_compiler.h"
#include "pl_keymap.h"

struct pl_keymap_seg {
	uint64_t base;		/* local address */
	uint64_t start;		/* offset of base in the region */
	uint64_t len;
};

struct pl_keymap_ent {
	pl_atomic_ptr next;	/* writers under lock; readers acquire */
	pl_atomic_int enabled;	/* release in enable; acquire in check */
	/* counter bound with fi_mr_bind: set once under lock (release),
	 * read by pl_keymap_count (acquire); cntr_events before it */
	pl_atomic_ptr cntr;
	uint64_t cntr_events;
	uint64_t key, access;	/* set before publication */
	struct rcu_head rcu;
	size_t nseg;		/* set before publication */
	struct pl_keymap_seg seg[];
};

static pl_atomic_ptr *pl_keymap_head(struct pl_keymap *map, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	return &map->bucket[(h >> 32) & (PL_KEYMAP_BUCKETS - 1)];
}

int pl_keymap_init(struct pl_keymap *map)
{
	int ret;

	if (!map)
		return -FI_EINVAL;
	ret = pl_rcu_init();
	if (ret)
		return ret;
	for (size_t i = 0; i < PL_KEYMAP_BUCKETS; i++)
		pl_store_relaxed(&map->bucket[i], NULL);
	return pthread_mutex_init(&map->lock, NULL) ? -FI_ENOMEM : 0;
}

static void pl_keymap_free_cb(struct rcu_head *head)
{
	pl_rcu_reclaim_begin(head);
	free(pl_container_of(head, struct pl_keymap_ent, rcu));
}

/* Caller holds map->lock: writers are serialized, relaxed is enough to
 * read what they themselves wrote. */
static struct pl_keymap_ent *pl_keymap_find_locked(pl_atomic_ptr *head,
						   uint64_t key,
						   pl_atomic_ptr **link_p)
{
	pl_atomic_ptr *link = head;
	struct pl_keymap_ent *e;

	while ((e = pl_load_relaxed(link)) != NULL) {
		if (e->key == key) {
			*link_p = link;
			return e;
		}
		link = &e->next;
	}
	return NULL;
}

int pl_keymap_insertv(struct pl_keymap *map, uint64_t key,
		      const struct iovec *iov, size_t count, uint64_t access,
		      bool enabled)
{
	pl_atomic_ptr *head, *link;
	struct pl_keymap_ent *e;
	uint64_t start = 0;

	if (!map || !iov || !count || count > SIZE_MAX / sizeof(e->seg[0]) - 1)
		return -FI_EINVAL;
	e = calloc(1, sizeof(*e) + count * sizeof(e->seg[0]));
	if (!e)
		return -FI_ENOMEM;
	for (size_t i = 0; i < count; i++) {
		if (!iov[i].iov_base || !iov[i].iov_len ||
		    iov[i].iov_len > UINT64_MAX - start)
			goto err_free;
		e->seg[i].base = (uint64_t)(uintptr_t)iov[i].iov_base;
		e->seg[i].start = start;
		e->seg[i].len = iov[i].iov_len;
		start += iov[i].iov_len;
	}
	e->nseg = count;
	e->key = key;
	e->access = access;
	pl_store_relaxed(&e->enabled, enabled);	/* published below */
	head = pl_keymap_head(map, key);
	pthread_mutex_lock(&map->lock);
	if (pl_keymap_find_locked(head, key, &link)) {
		pthread_mutex_unlock(&map->lock);
		free(e);
		return -FI_ENOKEY;
	}
	pl_store_relaxed(&e->next, pl_load_relaxed(head));
	/* release: publishes e's fields; pairs with the acquire in check */
	pl_rcu_assign(head, (void *)e);
	pthread_mutex_unlock(&map->lock);
	return 0;
err_free:
	free(e);
	return -FI_EINVAL;
}

int pl_keymap_insert(struct pl_keymap *map, uint64_t key, uint64_t base,
		     size_t len, uint64_t access)
{
	struct iovec iov = { (void *)(uintptr_t)base, len };

	return pl_keymap_insertv(map, key, &iov, 1, access, true);
}

int pl_keymap_enable(struct pl_keymap *map, uint64_t key)
{
	pl_atomic_ptr *link;
	struct pl_keymap_ent *e;

	if (!map)
		return -FI_EINVAL;
	pthread_mutex_lock(&map->lock);
	e = pl_keymap_find_locked(pl_keymap_head(map, key), key, &link);
	/* release: the data path that sees enabled also sees everything the
	 * enabling thread did before (its binds); pairs with check's acquire */
	if (e)
		pl_store_release(&e->enabled, 1);
	pthread_mutex_unlock(&map->lock);
	return e ? 0 : -FI_ENOKEY;
}

int pl_keymap_bind_cntr(struct pl_keymap *map, uint64_t key,
			struct fid_cntr *cntr, uint64_t events)
{
	pl_atomic_ptr *link;
	struct pl_keymap_ent *e;
	int ret = 0;

	if (!map || !cntr || !events)
		return -FI_EINVAL;
	pthread_mutex_lock(&map->lock);
	e = pl_keymap_find_locked(pl_keymap_head(map, key), key, &link);
	if (!e) {
		ret = -FI_ENOKEY;
	} else if (pl_load_relaxed(&e->cntr)) {
		ret = -FI_EALREADY;
	} else {
		e->cntr_events = events;
		/* release: publishes cntr_events with it; pairs with the
		 * acquire in pl_keymap_count */
		pl_store_release(&e->cntr, (void *)cntr);
	}
	pthread_mutex_unlock(&map->lock);
	return ret;
}

void pl_keymap_count(struct pl_keymap *map, uint64_t key, uint64_t event)
{
	struct pl_keymap_ent *e;
	struct fid_cntr *c;

	if (!map)
		return;
	pl_rcu_read_lock();
	/* acquire: pairs with the release in insert/remove */
	for (e = pl_rcu_deref(pl_keymap_head(map, key)); e;
	     e = pl_rcu_deref(&e->next)) {
		if (e->key != key)
			continue;
		/* acquire: pairs with the release in pl_keymap_bind_cntr */
		c = pl_load_acquire(&e->cntr);
		/* inside the read-side section: the MR's close waits for
		 * it before it lets the counter go (pl_mr.c) */
		if (c && (e->cntr_events & event))
			pl_cntr_inc(c);
		break;
	}
	pl_rcu_read_unlock();
}

int pl_keymap_remove(struct pl_keymap *map, uint64_t key)
{
	pl_atomic_ptr *link;
	struct pl_keymap_ent *e;

	if (!map)
		return -FI_EINVAL;
	pthread_mutex_lock(&map->lock);
	e = pl_keymap_find_locked(pl_keymap_head(map, key), key, &link);
	if (!e) {
		pthread_mutex_unlock(&map->lock);
		return -FI_ENOKEY;
	}
	/* release: a reader past this point skips e; one already on e
	 * still sees a valid next (e is freed only after a grace period) */
	pl_rcu_assign(link, pl_load_relaxed(&e->next));
	pl_rcu_call(&e->rcu, pl_keymap_free_cb);	/* takes the fork guard */
	pthread_mutex_unlock(&map->lock);
	return 0;
}

/* The segment holding [addr, addr+len), or NULL. */
static const struct pl_keymap_seg *
pl_keymap_seg_find(const struct pl_keymap_ent *e, uint64_t addr, size_t len,
		   bool virt_addr)
{
	const struct pl_keymap_seg *s;
	uint64_t off;

	for (size_t i = 0; i < e->nseg; i++) {
		s = &e->seg[i];
		if (virt_addr) {
			if (addr < s->base)
				continue;
			off = addr - s->base;
		} else {
			if (addr < s->start)
				continue;
			off = addr - s->start;
		}
		if (off < s->len && len <= s->len - off)
			return s;
		/* a zero-length access at the very end is still inside */
		if (!len && off == s->len)
			return s;
	}
	return NULL;
}

int pl_keymap_check(struct pl_keymap *map, uint64_t key, uint64_t addr,
		    size_t len, uint64_t need, bool virt_addr,
		    uint64_t *base_p)
{
	const struct pl_keymap_seg *s;
	struct pl_keymap_ent *e;
	int ret = -FI_EKEYREJECTED;

	if (!map)
		return -FI_EINVAL;
	pl_rcu_read_lock();
	/* acquire: pairs with the release in insert/remove */
	for (e = pl_rcu_deref(pl_keymap_head(map, key)); e;
	     e = pl_rcu_deref(&e->next)) {
		if (e->key != key)
			continue;
		/* acquire: pairs with the release in pl_keymap_enable */
		if (!pl_load_acquire(&e->enabled))
			break;
		ret = -FI_EACCES;
		if ((e->access & need) != need)
			break;
		s = pl_keymap_seg_find(e, addr, len, virt_addr);
		if (!s)
			break;
		/* unsigned wrap-around is intended: base - start + offset
		 * is the local address */
		if (base_p)
			*base_p = virt_addr ? s->base : s->base - s->start;
		ret = 0;
		break;
	}
	pl_rcu_read_unlock();
	return ret;
}

void pl_keymap_fini(struct pl_keymap *map)
{
	struct pl_keymap_ent *e, *next;

	if (!map)
		return;
	/* nothing else runs now (header), and every lookup is over */
	for (size_t i = 0; i < PL_KEYMAP_BUCKETS; i++) {
		for (e = pl_load_relaxed(&map->bucket[i]); e; e = next) {
			next = pl_load_relaxed(&e->next);
			free(e);
		}
		pl_store_relaxed(&map->bucket[i], NULL);
	}
	/* removed entries still queued on call_rcu must not outlive us:
	 * they reference no map memory, but wait so that a test/leak check
	 * after fini sees them freed */
	pl_rcu_barrier();
	pthread_mutex_destroy(&map->lock);
}
