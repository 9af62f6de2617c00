/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals of pl_bufpool, shared by its three files:
 *   pl_bufpool.c        create/destroy, alloc/free, the depot
 *   pl_bufpool_chunk.c  mapping chunks (hugepages, NUMA), growth
 *   pl_bufpool_cache.c  thread ids, per-thread caches, the registry
 *
 * Objects are named by a 32-bit index: (chunk number << slot_bits) | slot.
 * The depot links objects through an array of indices kept in each
 * chunk's header, never through the objects' own memory, so a stale
 * reader of a link never races with the user writing an object it owns.
 */
#ifndef PROPEL_PL_BUFPOOL_INT_H
#define PROPEL_PL_BUFPOOL_INT_H

#include <pthread.h>
#include <stdint.h>

#include "pl_atomic.h"
#include "pl_bufpool.h"
#include "pl_compiler.h"

#define PL_BUFPOOL_NIL		UINT32_MAX
#define PL_BUFPOOL_MAX_TIDS	1024u
#define PL_BUFPOOL_CHUNK_MAGIC	0x706c6270u	/* "plbp" */
#define PL_BUFPOOL_MIN_CHUNK	(64u * 1024)
#define PL_BUFPOOL_HUGE_PAGE	(2u * 1024 * 1024)
#define PL_BUFPOOL_MAX_CHUNK	(1u << 30)
/* Chunk table entries an unbounded pool reserves (virtual, NORESERVE). */
#define PL_BUFPOOL_MAX_CHUNKS	(1u << 20)

/* At the base of every chunk; the chunk is aligned to its size. */
struct pl_bufpool_chunk {
	uint32_t magic;
	uint32_t chunk_no;
	struct pl_bufpool *pool;
	unsigned char *objs;	/* first object */
	uint32_t nobjs;		/* objects carved from this chunk */
	uint32_t base_idx;	/* chunk_no << slot_bits */
	int hugetlb;		/* mapped with MAP_HUGETLB */
	/* Depot / free-list link of each object: the index below it. */
	pl_atomic_u32 link[];
};

/* One thread's magazine for one pool; owned by the thread holding the
 * tid it is filed under (see pl_bufpool_cache.c). */
struct pl_bufpool_cache {
	uint32_t count;
	uint32_t cap;
	void *objs[];
};

struct pl_bufpool {
	/* Thread-safe pools: (tag << 32) | index of the top object, index
	 * PL_BUFPOOL_NIL when empty. The tag changes on every successful
	 * CAS (the ABA guard). */
	pl_atomic_u64 depot PL_CACHE_ALIGNED;

	/* Serial pools: top of the free list; the caller's exclusion
	 * protects it. */
	uint32_t serial_top PL_CACHE_ALIGNED;

	/* Read-only between create and destroy. */
	size_t obj_size PL_CACHE_ALIGNED;
	size_t stride;
	size_t chunk_bytes;
	size_t objs_off;	/* first object's offset in a chunk */
	size_t max_objs;
	uint32_t per_chunk;
	uint32_t slot_bits;
	uint32_t max_chunks;
	uint32_t cache_cap;
	uint32_t flags;
	int numa_node;		/* -1: no placement */
	pl_atomic_ptr *chunks;	/* max_chunks entries, mmap'd NORESERVE */
	size_t chunks_len;
	/* caches[tid]: see pl_bufpool_cache.c for who may touch an entry */
	struct pl_bufpool_cache **caches;

	/* Growth. grow_lock (thread-safe pools only) protects the fields
	 * below; chunks[i] is published with a release store. */
	pthread_mutex_t grow_lock;
	pl_atomic_u32 nchunks;	/* written under grow_lock, read anywhere */
	size_t nobjs;		/* grow_lock */
	int hugetlb_ok;		/* grow_lock: cleared after a failure */

	/* Registry links, protected by the registry lock. */
	struct pl_bufpool *reg_prev, *reg_next;
};

static inline struct pl_bufpool_chunk *
pl_bufpool_chunk_at(const struct pl_bufpool *pool, uint32_t idx)
{
	/* relaxed: whoever holds idx got it from a depot pop (acquire) or
	 * the grower itself, both after the chunk's publication (G1) */
	return pl_load_relaxed(&pool->chunks[idx >> pool->slot_bits]);
}

static inline uint32_t pl_bufpool_slot(const struct pl_bufpool *pool,
				       uint32_t idx)
{
	return idx & (uint32_t)(((uint64_t)1 << pool->slot_bits) - 1);
}

static inline void *pl_bufpool_idx_obj(const struct pl_bufpool *pool,
				       uint32_t idx)
{
	return pl_bufpool_chunk_at(pool, idx)->objs +
	       (size_t)pl_bufpool_slot(pool, idx) * pool->stride;
}

static inline pl_atomic_u32 *pl_bufpool_idx_link(const struct pl_bufpool *pool,
						 uint32_t idx)
{
	return &pl_bufpool_chunk_at(pool, idx)->link[pl_bufpool_slot(pool, idx)];
}

/* The chunk of an object is found by masking: chunks are aligned to
 * their size. */
static inline struct pl_bufpool_chunk *
pl_bufpool_chunk_of(const struct pl_bufpool *pool, const void *obj)
{
	return (struct pl_bufpool_chunk *)
		((uintptr_t)obj & ~(uintptr_t)(pool->chunk_bytes - 1));
}

static inline uint32_t pl_bufpool_obj_idx(const struct pl_bufpool *pool,
					  const void *obj,
					  pl_atomic_u32 **link_p)
{
	struct pl_bufpool_chunk *chunk = pl_bufpool_chunk_of(pool, obj);
	uint32_t slot = (uint32_t)((size_t)((const unsigned char *)obj -
					    chunk->objs) / pool->stride);

	*link_p = &chunk->link[slot];
	return chunk->base_idx | slot;
}

/* pl_bufpool.c */
void pl_bufpool_depot_push(struct pl_bufpool *pool, void *const *objs,
			   uint32_t n);

/* pl_bufpool_chunk.c */
int pl_bufpool_geometry(struct pl_bufpool *pool,
			const struct pl_bufpool_attr *attr);
int pl_bufpool_grow(struct pl_bufpool *pool);
void pl_bufpool_unmap_all(struct pl_bufpool *pool);

/* pl_bufpool_cache.c */
void pl_bufpool_cache_register(struct pl_bufpool *pool);
void pl_bufpool_cache_unregister(struct pl_bufpool *pool);
struct pl_bufpool_cache *pl_bufpool_cache_self(struct pl_bufpool *pool);

/* AddressSanitizer: free objects are poisoned, so a use after
 * pl_bufpool_free is reported like one after free(3). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define PL_BUFPOOL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define PL_BUFPOOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define PL_BUFPOOL_POISON(p, n) ((void)(p), (void)(n))
#define PL_BUFPOOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif /* PROPEL_PL_BUFPOOL_INT_H */
