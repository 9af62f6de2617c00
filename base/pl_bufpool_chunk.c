/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_bufpool chunks: geometry, mapping (hugepages, NUMA placement) and
 * growth.
 *
 * A chunk is chunk_bytes long (a power of two) and aligned to that size,
 * so pl_bufpool_free finds the chunk header of any object by masking its
 * address, with no table lookup. Layout:
 *   [struct pl_bufpool_chunk | link[per_chunk] | pad to align | objects]
 * The header and links are the pool's; the objects are the user's.
 *
 * Growth runs under grow_lock (thread-safe pools) or the caller's
 * exclusion (serial pools). The sequence is: map, place (mbind before the
 * first touch), write the header and the links, publish the chunk
 * (G1: release store of chunks[no], pairs with the acquire side of
 * whoever learns an index of this chunk: a depot pop, P2, which itself
 * happens after P1 of the push below), then push all new objects to the
 * depot in one chain (P1) or onto the serial free list.
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/fi_errno.h>

#include "pl_bufpool_int.h"
#include "pl_log.h"

static size_t pl_bufpool_round_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static size_t pl_bufpool_pow2_ceil(size_t v)
{
	size_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static size_t pl_bufpool_chunk_need(size_t n, size_t align, size_t stride)
{
	return pl_bufpool_round_up(sizeof(struct pl_bufpool_chunk) +
					   n * sizeof(pl_atomic_u32), align) +
	       n * stride;
}

/* The node placement follows: an explicit node, else the creating
 * thread's, and nothing when libnuma cannot help (no NUMA support in the
 * kernel or container, or a single node). */
static int pl_bufpool_pick_node(const struct pl_bufpool_attr *attr)
{
	int cpu;

	if (numa_available() < 0 || numa_max_node() <= 0)
		return -1;
	if (attr->flags & PL_BUFPOOL_F_NUMA_NODE)
		return attr->numa_node <= numa_max_node() ? attr->numa_node : -1;
	cpu = sched_getcpu();
	return cpu < 0 ? -1 : numa_node_of_cpu(cpu);
}

int pl_bufpool_geometry(struct pl_bufpool *pool,
			const struct pl_bufpool_attr *attr)
{
	size_t align = attr->align ? attr->align : 16;
	size_t stride, want, chunk_bytes, n, idx_chunks;
	uint32_t bits = 0;

	if (!attr->obj_size || (align & (align - 1)) || align > 4096)
		return -FI_EINVAL;
	if ((attr->flags & PL_BUFPOOL_F_NUMA_NODE) && attr->numa_node < 0)
		return -FI_EINVAL;
	if (attr->max_objs >= PL_BUFPOOL_NIL || attr->cache_objs > 1024)
		return -FI_EINVAL;
	if (align < 8)
		align = 8; /* ASan poisons in 8-byte granules */
	if (attr->obj_size > PL_BUFPOOL_MAX_CHUNK / 2)
		return -FI_EINVAL;
	stride = pl_bufpool_round_up(attr->obj_size, align);

	want = attr->chunk_objs ? attr->chunk_objs
				: PL_MAX(PL_BUFPOOL_MIN_CHUNK / stride, 1);
	if (attr->max_objs && want > attr->max_objs)
		want = attr->max_objs;
	if (want > PL_BUFPOOL_MAX_CHUNK / stride)
		return -FI_EINVAL;
	chunk_bytes = pl_bufpool_pow2_ceil(
		PL_MAX(pl_bufpool_chunk_need(want, align, stride),
		       (size_t)PL_BUFPOOL_MIN_CHUNK));
	if ((attr->flags & PL_BUFPOOL_F_HUGETLB) &&
	    chunk_bytes < PL_BUFPOOL_HUGE_PAGE)
		chunk_bytes = PL_BUFPOOL_HUGE_PAGE;
	if (chunk_bytes > PL_BUFPOOL_MAX_CHUNK)
		return -FI_EINVAL;

	/* Use the whole chunk: the largest n that fits. */
	n = (chunk_bytes - sizeof(struct pl_bufpool_chunk)) /
	    (stride + sizeof(pl_atomic_u32));
	while (n > 1 && pl_bufpool_chunk_need(n, align, stride) > chunk_bytes)
		n--;
	while ((((size_t)1) << bits) < n)
		bits++;
	/* Chunk numbers leave the all-ones index free for NIL. */
	idx_chunks = (size_t)((((uint64_t)1) << (32 - bits)) - 1);

	pool->obj_size = attr->obj_size;
	pool->stride = stride;
	pool->chunk_bytes = chunk_bytes;
	pool->objs_off = pl_bufpool_round_up(sizeof(struct pl_bufpool_chunk) +
						     n * sizeof(pl_atomic_u32),
					     align);
	pool->per_chunk = (uint32_t)n;
	pool->slot_bits = bits;
	pool->max_objs = attr->max_objs ? attr->max_objs
					: PL_MIN(idx_chunks * n,
						 (size_t)PL_BUFPOOL_NIL - 1);
	if (attr->max_objs) {
		size_t need = (attr->max_objs + n - 1) / n;

		if (need > idx_chunks)
			return -FI_EINVAL;
		pool->max_chunks = (uint32_t)need;
	} else {
		pool->max_chunks = (uint32_t)PL_MIN(idx_chunks,
						    (size_t)PL_BUFPOOL_MAX_CHUNKS);
	}
	pool->cache_cap = attr->cache_objs ? (uint32_t)attr->cache_objs : 32;
	pool->flags = attr->flags;
	pool->numa_node = pl_bufpool_pick_node(attr);
	pool->hugetlb_ok = !!(attr->flags & PL_BUFPOOL_F_HUGETLB);
	return 0;
}

static void pl_bufpool_place(struct pl_bufpool *pool, void *p, size_t len)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))];
	int node = pool->numa_node;

	if (node < 0 || (size_t)node >= 8 * sizeof(mask))
		return;
	memset(mask, 0, sizeof(mask));
	mask[node / (8 * sizeof(unsigned long))] |=
		1ul << (node % (8 * sizeof(unsigned long)));
	/* PREFERRED, not BIND: a full node should spill over, not fail. The
	 * +2 covers the kernel's reading of maxnode as a bit count + 1. */
	if (mbind(p, len, MPOL_PREFERRED, mask, (unsigned long)node + 2, 0))
		PL_DBG(FI_LOG_CORE, "bufpool: mbind to node %d: %s\n", node,
		       strerror(errno));
}

/* Map len bytes aligned to len: over-map by len and trim both ends. */
static void *pl_bufpool_map_aligned(size_t len)
{
	unsigned char *raw, *p;
	size_t lead;

	raw = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (unsigned char *)(((uintptr_t)raw + len - 1) & ~(uintptr_t)(len - 1));
	lead = (size_t)(p - raw);
	if (lead)
		munmap(raw, lead);
	munmap(p + len, len - lead);
	return p;
}

static struct pl_bufpool_chunk *pl_bufpool_map_chunk(struct pl_bufpool *pool)
{
	size_t len = pool->chunk_bytes;
	void *p = NULL;
	int huge = 0;

	/* The kernel aligns MAP_HUGETLB mappings to the huge page size,
	 * which is the chunk size here, so no trimming is needed. */
	if (pool->hugetlb_ok && len == PL_BUFPOOL_HUGE_PAGE) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED || ((uintptr_t)p & (len - 1))) {
			if (p != MAP_FAILED)
				munmap(p, len);
			p = NULL;
			pool->hugetlb_ok = 0;
			PL_INFO(FI_LOG_CORE,
				"bufpool: no huge pages, using normal pages\n");
		} else {
			huge = 1;
		}
	}
	if (!p) {
		p = pl_bufpool_map_aligned(len);
		if (!p)
			return NULL;
		/* Transparent huge pages only pay off on large chunks. */
		if (len >= PL_BUFPOOL_HUGE_PAGE)
			(void)madvise(p, len, MADV_HUGEPAGE);
	}
	pl_bufpool_place(pool, p, len);
	((struct pl_bufpool_chunk *)p)->hugetlb = huge;
	return p;
}

static int pl_bufpool_depot_empty(struct pl_bufpool *pool)
{
	if (pool->flags & PL_BUFPOOL_F_SERIAL)
		return pool->serial_top == PL_BUFPOOL_NIL;
	/* relaxed: only a hint to skip redundant growth; a wrong answer
	 * costs one chunk too many or one more trip round the caller */
	return (uint32_t)pl_load_relaxed(&pool->depot) == PL_BUFPOOL_NIL;
}

/* Chains [first, first + n) of a fresh chunk onto the depot or the
 * serial free list. */
static void pl_bufpool_push_fresh(struct pl_bufpool *pool,
				  struct pl_bufpool_chunk *chunk, uint32_t n)
{
	uint32_t i;
	uint64_t old, desired;

	/* relaxed: nothing else sees these links before the push (P1 or
	 * the caller's exclusion) orders them */
	for (i = 0; i + 1 < n; i++)
		pl_store_relaxed(&chunk->link[i], chunk->base_idx | (i + 1));
	if (pool->flags & PL_BUFPOOL_F_SERIAL) {
		pl_store_relaxed(&chunk->link[n - 1], pool->serial_top);
		pool->serial_top = chunk->base_idx;
		return;
	}
	/* relaxed: the CAS below validates it */
	old = pl_load_relaxed(&pool->depot);
	do {
		pl_store_relaxed(&chunk->link[n - 1], (uint32_t)old);
		desired = (((old >> 32) + 1) << 32) | chunk->base_idx;
		/* P1, release: pairs with P2 (depot pop); publishes the
		 * links above and, through G1, the chunk */
	} while (!pl_cas_weak_release(&pool->depot, &old, desired));
}

int pl_bufpool_grow(struct pl_bufpool *pool)
{
	bool serial = pool->flags & PL_BUFPOOL_F_SERIAL;
	struct pl_bufpool_chunk *chunk;
	uint32_t no, n;
	int ret = 0;

	if (!serial)
		pthread_mutex_lock(&pool->grow_lock);
	/* Someone grew (or freed) while we waited for the lock. */
	if (!pl_bufpool_depot_empty(pool))
		goto out;
	/* relaxed: written only under grow_lock, which we hold */
	no = pl_load_relaxed(&pool->nchunks);
	if (no >= pool->max_chunks || pool->nobjs >= pool->max_objs) {
		ret = -FI_ENOMEM;
		goto out;
	}
	chunk = pl_bufpool_map_chunk(pool);
	if (!chunk) {
		PL_WARN(FI_LOG_CORE, "bufpool: cannot map %zu bytes: %s\n",
			pool->chunk_bytes, strerror(errno));
		ret = -FI_ENOMEM;
		goto out;
	}
	n = (uint32_t)PL_MIN((size_t)pool->per_chunk,
			     pool->max_objs - pool->nobjs);
	chunk->magic = PL_BUFPOOL_CHUNK_MAGIC;
	chunk->chunk_no = no;
	chunk->pool = pool;
	chunk->objs = (unsigned char *)chunk + pool->objs_off;
	chunk->nobjs = n;
	chunk->base_idx = no << pool->slot_bits;
	PL_BUFPOOL_POISON(chunk->objs, (size_t)n * pool->stride);

	/* G1, release: pairs with the lookups of indices of this chunk
	 * (pl_bufpool_chunk_at), ordered after it by P1 -> P2 */
	pl_store_release(&pool->chunks[no], chunk);
	/* release: stats readers see the chunk they count */
	pl_store_release(&pool->nchunks, no + 1);
	pool->nobjs += n;
	pl_bufpool_push_fresh(pool, chunk, n);
out:
	if (!serial)
		pthread_mutex_unlock(&pool->grow_lock);
	return ret;
}

void pl_bufpool_unmap_all(struct pl_bufpool *pool)
{
	/* relaxed: destroy runs after every other use (the caller's
	 * ordering), so plain values are current */
	uint32_t i, n = pl_load_relaxed(&pool->nchunks);

	for (i = 0; i < n; i++) {
		struct pl_bufpool_chunk *chunk =
			pl_load_relaxed(&pool->chunks[i]);

		PL_BUFPOOL_UNPOISON(chunk->objs,
				    (size_t)chunk->nobjs * pool->stride);
		munmap(chunk, pool->chunk_bytes);
	}
}
