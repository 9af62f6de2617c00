/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_bufpool per-thread caches.
 *
 * Ownership, which is what makes destroy safe while threads live on: a
 * thread holds only a small integer, its tid (thread-local, 0..1023,
 * recycled when the thread exits). Each thread-safe pool owns an array
 * caches[tid] of magazines; nothing thread-local points into a pool. So
 * destroying a pool frees its magazines and leaves no dangling
 * thread-local state, and a pool created later at the same address starts
 * with an empty array. A thread beyond the 1024th live one gets no tid
 * and uses the depot directly (correct, slower).
 *
 * Who touches caches[tid] (a plain pointer and a plain magazine):
 *   - the thread holding tid, in alloc/free, with no lock;
 *   - the same thread, in its exit handler, under the registry lock;
 *   - pl_bufpool_destroy, which the caller orders after every alloc/free
 *     of the pool (the documented contract), under the registry lock;
 *   - a later thread that is given the same tid: tids are handed out and
 *     returned under the registry lock, so the previous holder's last
 *     access happens before the new holder's first (lock release/acquire).
 * No two of these run concurrently, hence no atomics on the fast path.
 *
 * Thread exit: a pthread key destructor runs in the exiting thread; under
 * the registry lock it pushes the thread's cached objects of every live
 * pool back to that pool's depot (so a bounded pool does not lose them
 * while the tid is unused) and returns the tid. destroy unlinks its pool
 * from the registry under the same lock, so an exit handler either
 * flushes into a live pool or no longer sees it.
 *
 * Synchronization table (registry lock = R):
 *   operation                        R     touches
 *   tid assignment (first use)       yes   tid bitmap, pthread key
 *   alloc/free fast path             no    caches[own tid]
 *   thread exit                      yes   caches[own tid] of all pools
 *   create (register)                yes   registry list
 *   destroy (unregister)             yes   registry list, all caches
 *
 * If the library is unloaded while threads that used a pool are alive,
 * the key is deleted first so that no destructor points into unmapped
 * code; their (already destroyed) pools hold nothing of theirs.
 */
#include <stdlib.h>

#include "pl_bufpool_int.h"

/* 0: no tid yet; PL_BUFPOOL_NO_TID: none available; else tid + 1. */
#define PL_BUFPOOL_NO_TID UINT32_MAX

static pthread_mutex_t pl_bufpool_reg_lock = PTHREAD_MUTEX_INITIALIZER;
/* Both under pl_bufpool_reg_lock. */
static struct pl_bufpool *pl_bufpool_reg_head;
static uint64_t pl_bufpool_tid_used[PL_BUFPOOL_MAX_TIDS / 64];

static pthread_once_t pl_bufpool_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t pl_bufpool_key;
static int pl_bufpool_key_ok;	/* written once, inside pthread_once */

static __thread uint32_t pl_bufpool_tls_tid;

static void pl_bufpool_thread_exit(void *arg)
{
	uint32_t tid = (uint32_t)(uintptr_t)arg - 1;
	struct pl_bufpool *pool;

	pthread_mutex_lock(&pl_bufpool_reg_lock);
	for (pool = pl_bufpool_reg_head; pool; pool = pool->reg_next) {
		struct pl_bufpool_cache *c = pool->caches[tid];

		if (c && c->count) {
			pl_bufpool_depot_push(pool, c->objs, c->count);
			c->count = 0;
		}
	}
	pl_bufpool_tid_used[tid / 64] &= ~(1ull << (tid % 64));
	pthread_mutex_unlock(&pl_bufpool_reg_lock);
	/* Another destructor of this thread may allocate again: it then
	 * gets a fresh tid and a fresh key value (pthread reruns keys). */
	pl_bufpool_tls_tid = 0;
}

static void pl_bufpool_key_init(void)
{
	pl_bufpool_key_ok =
		pthread_key_create(&pl_bufpool_key, pl_bufpool_thread_exit) == 0;
}

__attribute__((destructor)) static void pl_bufpool_key_fini(void)
{
	/* pthread_once has run iff the key exists; reading the flag without
	 * it is safe here: the library is being unloaded, no thread is
	 * inside it. */
	if (pl_bufpool_key_ok)
		pthread_key_delete(pl_bufpool_key);
}

static uint32_t pl_bufpool_tid_assign(void)
{
	uint32_t w, tid = PL_BUFPOOL_NO_TID;

	pthread_once(&pl_bufpool_key_once, pl_bufpool_key_init);
	if (!pl_bufpool_key_ok)
		return pl_bufpool_tls_tid = PL_BUFPOOL_NO_TID;

	pthread_mutex_lock(&pl_bufpool_reg_lock);
	for (w = 0; w < PL_BUFPOOL_MAX_TIDS / 64; w++) {
		uint64_t free_bits = ~pl_bufpool_tid_used[w];

		if (free_bits) {
			tid = w * 64 + (uint32_t)__builtin_ctzll(free_bits);
			pl_bufpool_tid_used[w] |= 1ull << (tid % 64);
			break;
		}
	}
	if (tid != PL_BUFPOOL_NO_TID &&
	    pthread_setspecific(pl_bufpool_key, (void *)(uintptr_t)(tid + 1))) {
		/* No destructor would return it: give it back now. */
		pl_bufpool_tid_used[tid / 64] &= ~(1ull << (tid % 64));
		tid = PL_BUFPOOL_NO_TID;
	}
	pthread_mutex_unlock(&pl_bufpool_reg_lock);
	return pl_bufpool_tls_tid =
		       tid == PL_BUFPOOL_NO_TID ? PL_BUFPOOL_NO_TID : tid + 1;
}

struct pl_bufpool_cache *pl_bufpool_cache_self(struct pl_bufpool *pool)
{
	uint32_t t = pl_bufpool_tls_tid;
	struct pl_bufpool_cache *c;

	if (PL_UNLIKELY(!t))
		t = pl_bufpool_tid_assign();
	if (PL_UNLIKELY(t == PL_BUFPOOL_NO_TID))
		return NULL;
	c = pool->caches[t - 1];
	if (PL_LIKELY(c))
		return c;
	c = malloc(sizeof(*c) + pool->cache_cap * sizeof(c->objs[0]));
	if (!c)
		return NULL; /* the depot serves this thread meanwhile */
	c->count = 0;
	c->cap = pool->cache_cap;
	pool->caches[t - 1] = c;
	return c;
}

void pl_bufpool_cache_register(struct pl_bufpool *pool)
{
	pthread_mutex_lock(&pl_bufpool_reg_lock);
	pool->reg_prev = NULL;
	pool->reg_next = pl_bufpool_reg_head;
	if (pl_bufpool_reg_head)
		pl_bufpool_reg_head->reg_prev = pool;
	pl_bufpool_reg_head = pool;
	pthread_mutex_unlock(&pl_bufpool_reg_lock);
}

void pl_bufpool_cache_unregister(struct pl_bufpool *pool)
{
	uint32_t i;

	pthread_mutex_lock(&pl_bufpool_reg_lock);
	if (pool->reg_prev)
		pool->reg_prev->reg_next = pool->reg_next;
	else
		pl_bufpool_reg_head = pool->reg_next;
	if (pool->reg_next)
		pool->reg_next->reg_prev = pool->reg_prev;
	/* Under the lock so that a thread exiting right now has finished
	 * with our caches before we free them. */
	for (i = 0; i < PL_BUFPOOL_MAX_TIDS; i++) {
		free(pool->caches[i]);
		pool->caches[i] = NULL;
	}
	pthread_mutex_unlock(&pl_bufpool_reg_lock);
}
