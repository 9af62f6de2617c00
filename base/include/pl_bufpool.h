/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_bufpool: pools of fixed-size objects (DESIGN.md section 9).
 *
 * Memory comes in chunks mapped with mmap (MAP_PRIVATE | MAP_ANONYMOUS),
 * aligned to their own power-of-two size so that an object finds its chunk
 * by masking its address; MAP_HUGETLB when asked for and available, else
 * madvise(MADV_HUGEPAGE) on chunks of 2 MiB and more; placed with
 * mbind(MPOL_PREFERRED) on the NUMA node of the thread that created the
 * pool (or the one named), silently skipped where NUMA is unavailable or
 * there is a single node. The pool grows one chunk at a time up to its
 * maximum and returns memory only when destroyed.
 *
 * Two families, chosen at creation and never mixed on one pool:
 *
 *   pl_bufpool_alloc / pl_bufpool_free (thread-safe pools): any thread may
 *   allocate and any thread may free any object, including one allocated
 *   by another thread. Each thread keeps a small cache (a magazine) per
 *   pool; the fast path touches only that cache, no atomic operation. The
 *   caches exchange objects in batches with a shared depot, a lock-free
 *   stack (see pl_bufpool.c for its ABA argument). Growth takes a mutex.
 *
 *   __pl_bufpool_alloc / __pl_bufpool_free (PL_BUFPOOL_F_SERIAL pools):
 *   the caller serializes every call on the pool (FI_THREAD_DOMAIN); no
 *   atomic read-modify-write, no lock, no cache.
 *
 * Synchronization table for a thread-safe pool:
 *
 *                     alloc  free  create  destroy  thread exit
 *   alloc             yes    yes   -       no       yes
 *   free              yes    yes   -       no       yes
 *   destroy           no     no    yes     yes*     yes
 *
 *   (* different pools.) "no": the caller must order destroy after every
 *   alloc/free of that pool (a join, a barrier, a lock), as for free(3).
 *   Threads that used the pool may still be alive at destroy and may exit
 *   later: their caches belong to the pool, not to the thread, and the
 *   pool frees them.
 *
 * Lock order: the global cache registry lock, then a pool's grow lock
 * (never held together today).
 */
#ifndef PROPEL_PL_BUFPOOL_H
#define PROPEL_PL_BUFPOOL_H

#include <stddef.h>
#include <stdint.h>

struct pl_bufpool;

/* The caller serializes all calls; use the __pl_bufpool_* family. */
#define PL_BUFPOOL_F_SERIAL	(1u << 0)
/* Try MAP_HUGETLB for chunks (2 MiB); fall back to ordinary pages. */
#define PL_BUFPOOL_F_HUGETLB	(1u << 1)
/* attr.numa_node names the node instead of the creating thread's. */
#define PL_BUFPOOL_F_NUMA_NODE	(1u << 2)

struct pl_bufpool_attr {
	size_t obj_size;	/* bytes per object, >= 1 */
	size_t align;		/* power of two <= 4096; 0 means 16 */
	size_t chunk_objs;	/* objects per chunk, a hint; 0: ~64 KiB */
	size_t max_objs;	/* 0: limited by the 32-bit index space */
	size_t cache_objs;	/* per-thread magazine size; 0 means 32 */
	int numa_node;		/* with PL_BUFPOOL_F_NUMA_NODE */
	uint32_t flags;		/* PL_BUFPOOL_F_* */
};

/*
 * Errors: -FI_EINVAL (bad attr or pool_p NULL), -FI_ENOMEM.
 * No chunk is mapped before the first allocation.
 */
int pl_bufpool_create(const struct pl_bufpool_attr *attr,
		      struct pl_bufpool **pool_p);
/*
 * Unmaps every chunk and frees every per-thread cache, whatever is still
 * allocated; NULL is a no-op. See the table above for its context.
 */
void pl_bufpool_destroy(struct pl_bufpool *pool);

/* Thread-safe pools. alloc: 0, or -FI_ENOMEM when the pool is at its
 * maximum (objects cached by other threads are not taken back) or a
 * chunk cannot be mapped. free: obj must come from this pool; NULL is a
 * no-op. */
int pl_bufpool_alloc(struct pl_bufpool *pool, void **obj_p);
void pl_bufpool_free(struct pl_bufpool *pool, void *obj);

/* PL_BUFPOOL_F_SERIAL pools; same contracts, caller-serialized. */
int __pl_bufpool_alloc(struct pl_bufpool *pool, void **obj_p);
void __pl_bufpool_free(struct pl_bufpool *pool, void *obj);

size_t pl_bufpool_obj_size(const struct pl_bufpool *pool);

struct pl_bufpool_stats {
	size_t chunks;		/* chunks mapped */
	size_t chunk_bytes;	/* size of each */
	size_t objs;		/* objects carved from them */
	size_t per_chunk;	/* objects a full chunk holds */
	int hugetlb;		/* 1 if the chunks came from MAP_HUGETLB */
};

/* A snapshot; exact when no thread is growing the pool. */
void pl_bufpool_get_stats(struct pl_bufpool *pool,
			  struct pl_bufpool_stats *stats_p);

#endif /* PROPEL_PL_BUFPOOL_H */
