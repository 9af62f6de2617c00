/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_bufpool: fixed-size object pools; the depot and the alloc/free paths.
 *
 * Thread-safe pools have three tiers:
 *   1. the calling thread's magazine (pl_bufpool_cache.c): no atomics;
 *   2. the depot, a lock-free LIFO stack of free objects, reached when
 *      a magazine runs empty (refill: up to cap/2 pops) or full (flush:
 *      one chain of cap/2 objects, one CAS);
 *   3. growth (pl_bufpool_chunk.c), under grow_lock, when the depot is
 *      empty too.
 *
 * Depot correctness argument (Treiber stack with a tagged top).
 *  - The top word is (tag << 32) | idx; every successful CAS on it
 *    increments tag. Links live in the chunk headers (link[idx]), as
 *    atomics, never in object memory: a popper holding a stale idx may
 *    read link[idx] while the object is in use, which is an atomic read of
 *    pool metadata, not a race with the user's writes.
 *  - Push (P1) writes the chain's links, then CASes top from the value it
 *    read to (tag + 1, first); the release half publishes the links and
 *    the objects' contents written by their last user.
 *  - Pop (P2) reads top with acquire, reads link[idx] (relaxed), then
 *    CASes top from (tag, idx) to (tag + 1, link[idx]) with acquire.
 *  - ABA: the pop's CAS succeeds only if top still holds the exact word
 *    it read, i.e. no successful CAS came in between (the tag would
 *    differ) -- barring 2^32 successful CASes within one pop's window,
 *    the usual bounded-tag assumption. With no CAS in between, idx was on
 *    top throughout, so no one owned it and link[idx] was the value its
 *    pusher wrote before its P1, which our acquire load made visible.
 *    Hence the popped link is the true second element: no object is
 *    handed out twice and none is lost.
 *  - Lock-free: a CAS fails only because another succeeded.
 *  - Objects move between threads only through P1 -> P2 (release/acquire),
 *    so the next owner sees everything the previous one wrote; a free from
 *    another thread lands in the freeing thread's magazine and reaches
 *    others through its next flush: cross-thread frees need nothing else.
 *
 * Synchronizing edges:
 *   P1 (push CAS, release)            pairs with P2
 *   P2 (pop load and CAS, acquire)    pairs with P1
 *   G1 (chunk publication, release)   see pl_bufpool_chunk.c
 *
 * Serial pools use the same links as a plain free list with relaxed
 * accesses, under the caller's exclusion.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/fi_errno.h>

#include "pl_bufpool_int.h"
#include "pl_log.h"

_Static_assert(PL_BUFPOOL_MAX_TIDS % 64 == 0, "tid bitmap words");

void pl_bufpool_depot_push(struct pl_bufpool *pool, void *const *objs,
			   uint32_t n)
{
	pl_atomic_u32 *link, *last = NULL;
	uint32_t i, first = PL_BUFPOOL_NIL;
	uint64_t old, desired;

	if (!n)
		return;
	/* relaxed link stores: P1 below orders them */
	for (i = 0; i < n; i++) {
		uint32_t idx = pl_bufpool_obj_idx(pool, objs[i], &link);

		if (last)
			pl_store_relaxed(last, idx);
		else
			first = idx;
		last = link;
	}
	/* relaxed: the CAS validates it */
	old = pl_load_relaxed(&pool->depot);
	do {
		pl_store_relaxed(last, (uint32_t)old);
		desired = (((old >> 32) + 1) << 32) | first;
		/* P1, release: pairs with P2 */
	} while (!pl_cas_weak_release(&pool->depot, &old, desired));
}

static void *pl_bufpool_depot_pop(struct pl_bufpool *pool)
{
	/* P2, acquire: pairs with P1 */
	uint64_t old = pl_load_acquire(&pool->depot);

	for (;;) {
		uint32_t idx = (uint32_t)old, next;

		if (idx == PL_BUFPOOL_NIL)
			return NULL;
		/* relaxed: P2 made the pusher's write visible; a stale
		 * value fails the CAS (argument above) */
		next = pl_load_relaxed(pl_bufpool_idx_link(pool, idx));
		/* P2, acquire (success and refresh): pairs with P1 */
		if (pl_cas_weak_acquire(&pool->depot, &old,
					(((old >> 32) + 1) << 32) | next))
			return pl_bufpool_idx_obj(pool, idx);
	}
}

int pl_bufpool_create(const struct pl_bufpool_attr *attr,
		      struct pl_bufpool **pool_p)
{
	struct pl_bufpool *pool;
	int ret;

	if (!attr || !pool_p)
		return -FI_EINVAL;
	pool = aligned_alloc(PL_CACHELINE, sizeof(*pool));
	if (!pool)
		return -FI_ENOMEM;
	memset(pool, 0, sizeof(*pool));
	ret = pl_bufpool_geometry(pool, attr);
	if (ret)
		goto err_free_pool;

	pool->chunks_len = ((size_t)pool->max_chunks * sizeof(pl_atomic_ptr) +
			    4095) & ~(size_t)4095;
	/* NORESERVE: an unbounded pool reserves a large table that costs a
	 * page per 512 chunks actually mapped */
	pool->chunks = mmap(NULL, pool->chunks_len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pool->chunks == MAP_FAILED) {
		ret = -FI_ENOMEM;
		goto err_free_pool;
	}
	atomic_init(&pool->depot, (uint64_t)PL_BUFPOOL_NIL);
	pool->serial_top = PL_BUFPOOL_NIL;
	atomic_init(&pool->nchunks, 0);

	if (!(pool->flags & PL_BUFPOOL_F_SERIAL)) {
		pool->caches = calloc(PL_BUFPOOL_MAX_TIDS,
				      sizeof(*pool->caches));
		if (!pool->caches) {
			ret = -FI_ENOMEM;
			goto err_unmap_table;
		}
		ret = pthread_mutex_init(&pool->grow_lock, NULL);
		if (ret) {
			ret = -FI_ENOMEM;
			goto err_free_caches;
		}
		pl_bufpool_cache_register(pool);
	}
	*pool_p = pool;
	return 0;

err_free_caches:
	free(pool->caches);
err_unmap_table:
	munmap(pool->chunks, pool->chunks_len);
err_free_pool:
	free(pool);
	return ret;
}

/* Objects not in the depot, the free list or a magazine: for the debug
 * message only; runs with nothing else touching the pool. */
static size_t pl_bufpool_outstanding(struct pl_bufpool *pool)
{
	size_t n = 0, i;
	uint32_t idx;

	/* relaxed: destroy is ordered after every other use */
	idx = pool->flags & PL_BUFPOOL_F_SERIAL
		      ? pool->serial_top
		      : (uint32_t)pl_load_relaxed(&pool->depot);
	while (idx != PL_BUFPOOL_NIL && n <= pool->nobjs) {
		n++;
		idx = pl_load_relaxed(pl_bufpool_idx_link(pool, idx));
	}
	for (i = 0; pool->caches && i < PL_BUFPOOL_MAX_TIDS; i++)
		if (pool->caches[i])
			n += pool->caches[i]->count;
	return n > pool->nobjs ? 0 : pool->nobjs - n;
}

void pl_bufpool_destroy(struct pl_bufpool *pool)
{
	size_t busy;

	if (!pool)
		return;
	busy = pl_bufpool_outstanding(pool);
	if (busy)
		PL_DBG(FI_LOG_CORE, "bufpool %p: destroyed with %zu objects "
		       "in use\n", (void *)pool, busy);
	if (!(pool->flags & PL_BUFPOOL_F_SERIAL)) {
		pl_bufpool_cache_unregister(pool);
		free(pool->caches);
		pthread_mutex_destroy(&pool->grow_lock);
	}
	pl_bufpool_unmap_all(pool);
	munmap(pool->chunks, pool->chunks_len);
	free(pool);
}

static int pl_bufpool_alloc_slow(struct pl_bufpool *pool,
				 struct pl_bufpool_cache *c, void **obj_p)
{
	uint32_t batch = c ? PL_MAX(c->cap / 2, 1u) : 1;
	void *obj;
	int ret;

	for (;;) {
		/* Refill up to half a magazine, keeping the last popped
		 * object for the caller. */
		while ((obj = pl_bufpool_depot_pop(pool))) {
			if (!c || c->count + 1 >= batch)
				break;
			c->objs[c->count++] = obj;
		}
		if (obj || (c && c->count)) {
			if (!obj)
				obj = c->objs[--c->count];
			PL_BUFPOOL_UNPOISON(obj, pool->obj_size);
			*obj_p = obj;
			return 0;
		}
		ret = pl_bufpool_grow(pool);
		if (ret)
			return ret;
	}
}

int pl_bufpool_alloc(struct pl_bufpool *pool, void **obj_p)
{
	struct pl_bufpool_cache *c;

	assert(!(pool->flags & PL_BUFPOOL_F_SERIAL));
	c = pl_bufpool_cache_self(pool);
	if (PL_LIKELY(c && c->count)) {
		void *obj = c->objs[--c->count];

		PL_BUFPOOL_UNPOISON(obj, pool->obj_size);
		*obj_p = obj;
		return 0;
	}
	return pl_bufpool_alloc_slow(pool, c, obj_p);
}

void pl_bufpool_free(struct pl_bufpool *pool, void *obj)
{
	struct pl_bufpool_cache *c;

	if (!obj)
		return;
	assert(!(pool->flags & PL_BUFPOOL_F_SERIAL));
	assert(pl_bufpool_chunk_of(pool, obj)->pool == pool);
	PL_BUFPOOL_POISON(obj, pool->stride);
	c = pl_bufpool_cache_self(pool);
	if (PL_UNLIKELY(!c)) {
		pl_bufpool_depot_push(pool, &obj, 1);
		return;
	}
	if (PL_UNLIKELY(c->count == c->cap)) {
		/* Flush the older half (the bottom of the magazine): the
		 * recently freed, cache-warm objects stay here. */
		uint32_t half = PL_MAX(c->cap / 2, 1u);

		pl_bufpool_depot_push(pool, c->objs, half);
		memmove(c->objs, c->objs + half,
			(c->count - half) * sizeof(c->objs[0]));
		c->count -= half;
	}
	c->objs[c->count++] = obj;
}

int __pl_bufpool_alloc(struct pl_bufpool *pool, void **obj_p)
{
	uint32_t idx = pool->serial_top;
	void *obj;

	assert(pool->flags & PL_BUFPOOL_F_SERIAL);
	if (PL_UNLIKELY(idx == PL_BUFPOOL_NIL)) {
		int ret = pl_bufpool_grow(pool);

		if (ret)
			return ret;
		idx = pool->serial_top;
	}
	/* relaxed: the caller excludes every other operation */
	pool->serial_top = pl_load_relaxed(pl_bufpool_idx_link(pool, idx));
	obj = pl_bufpool_idx_obj(pool, idx);
	PL_BUFPOOL_UNPOISON(obj, pool->obj_size);
	*obj_p = obj;
	return 0;
}

void __pl_bufpool_free(struct pl_bufpool *pool, void *obj)
{
	pl_atomic_u32 *link;
	uint32_t idx;

	if (!obj)
		return;
	assert(pool->flags & PL_BUFPOOL_F_SERIAL);
	assert(pl_bufpool_chunk_of(pool, obj)->pool == pool);
	PL_BUFPOOL_POISON(obj, pool->stride);
	idx = pl_bufpool_obj_idx(pool, obj, &link);
	/* relaxed: the caller excludes every other operation */
	pl_store_relaxed(link, pool->serial_top);
	pool->serial_top = idx;
}

size_t pl_bufpool_obj_size(const struct pl_bufpool *pool)
{
	return pool->obj_size;
}

void pl_bufpool_get_stats(struct pl_bufpool *pool,
			  struct pl_bufpool_stats *stats_p)
{
	struct pl_bufpool_stats st = { 0 };
	bool serial = pool->flags & PL_BUFPOOL_F_SERIAL;
	uint32_t i;

	if (!serial)
		pthread_mutex_lock(&pool->grow_lock);
	/* relaxed: grow_lock (or the caller's exclusion) orders it */
	st.chunks = pl_load_relaxed(&pool->nchunks);
	st.chunk_bytes = pool->chunk_bytes;
	st.objs = pool->nobjs;
	st.per_chunk = pool->per_chunk;
	for (i = 0; i < st.chunks; i++) {
		struct pl_bufpool_chunk *chunk =
			pl_load_relaxed(&pool->chunks[i]);

		st.hugetlb |= chunk->hugetlb;
	}
	if (!serial)
		pthread_mutex_unlock(&pool->grow_lock);
	*stats_p = st;
}
