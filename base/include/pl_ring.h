/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_ring: a bounded ring of fixed-size entries (size chosen at init,
 * capacity a power of two), after Vyukov's bounded MPMC queue: every slot
 * carries a sequence number that says whose turn it is, so producers and
 * consumers coordinate per slot and never read the other side's index to
 * decide.
 *
 * The concurrency mode is in the name (Concurrency Kit style); all modes
 * share one layout and one slot protocol, so a ring's two sides may use
 * different modes (a single progress thread producing with _spsc while
 * many readers consume with _mpmc is fine):
 *
 *   side      many threads          one thread at a time  caller-serialized
 *   enqueue   pl_ring_enqueue_mpmc  pl_ring_enqueue_spsc  __pl_ring_enqueue
 *   dequeue   pl_ring_dequeue_mpmc  pl_ring_dequeue_spsc  __pl_ring_dequeue
 *   burst     .._dequeue_burst_mpmc .._dequeue_burst_spsc __pl_ring_dequeue_burst
 *
 * (_mpsc names are the obvious pairing: mp enqueue, sc dequeue.) The
 * __pl_ring_* tier is for FI_THREAD_DOMAIN without a progress thread: the
 * caller excludes every other operation on the ring, and those functions
 * use plain (relaxed) loads and stores only, no read-modify-write, no
 * fence.
 *
 * Synchronization table: may X run at the same time as Y on one ring?
 *
 *                     enq_mpmc  enq_spsc  deq_mpmc  deq_spsc  __any  empty/count
 *   enqueue_mpmc      yes       no        yes       yes       no     yes
 *   enqueue_spsc      no        no        yes       yes       no     yes
 *   dequeue_mpmc      yes       yes       yes       no        no     yes
 *   dequeue_spsc      yes       yes       no        no        no     yes
 *   __pl_ring_*       no        no        no        no        no     no
 *   empty/count       yes       yes       yes       yes       no     yes
 *
 * ("dequeue" includes the burst variant of the same mode.)
 *
 * Return values: 0 or a count on success, -FI_EAGAIN when the ring is full
 * (enqueue) or has no published entry at its head (dequeue). Under
 * concurrency -FI_EAGAIN is a statement about one slot at one instant; see
 * "Linearization" in pl_ring.c.
 */
#ifndef PROPEL_PL_RING_H
#define PROPEL_PL_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_compiler.h"

struct pl_ring {
	/* Next position to claim. Producers only write it; anyone may read
	 * it as a position hint (empty/count, pl_spillq's marks). */
	pl_atomic_u64 tail PL_CACHE_ALIGNED;
	/* Next position to take. Consumers only write it. */
	pl_atomic_u64 head PL_CACHE_ALIGNED;
	/* Read-only between pl_ring_init and pl_ring_fini. */
	uint64_t mask PL_CACHE_ALIGNED;
	uint32_t entry_size;
	uint32_t stride;	/* bytes per slot: sequence word + entry */
	unsigned char *slots;
};

/* The ring keeps 2^31 slots at most; positions are 64-bit and never wrap
 * in practice (2^64 operations). */
#define PL_RING_MAX_CAPACITY (1u << 31)
#define PL_RING_MAX_ENTRY (1u << 16)

/*
 * r must be PL_CACHELINE-aligned (embed it in a struct allocated with
 * aligned_alloc, or declare it static): the separation of head and tail
 * is the point of the layout.
 * entry_size: 1..PL_RING_MAX_ENTRY bytes; capacity: a power of two,
 * 2..PL_RING_MAX_CAPACITY (Vyukov's slot protocol needs two slots to tell
 * "published" from "free for the next lap").
 * Errors: -FI_EINVAL, -FI_ENOMEM. Not thread-safe.
 */
int pl_ring_init(struct pl_ring *r, size_t entry_size, size_t capacity);
/* Frees the slots; entries still queued are discarded. Not thread-safe. */
void pl_ring_fini(struct pl_ring *r);

static inline size_t pl_ring_capacity(const struct pl_ring *r)
{
	return (size_t)r->mask + 1;
}

static inline size_t pl_ring_entry_size(const struct pl_ring *r)
{
	return r->entry_size;
}

/* A slot: its sequence word (Vyukov's turn, pl_ring.c), then the entry. */
#define PL_RING_SEQ_SIZE sizeof(uint64_t)

static inline unsigned char *pl_ring_slot(const struct pl_ring *r,
					  uint64_t pos)
{
	return r->slots + (size_t)(pos & r->mask) * r->stride;
}

static inline pl_atomic_u64 *pl_ring_seq(unsigned char *slot)
{
	return (pl_atomic_u64 *)(void *)slot;
}

static inline void *pl_ring_payload(unsigned char *slot)
{
	return slot + PL_RING_SEQ_SIZE;
}

/* Copies entry_size bytes from entry into the ring. */
int pl_ring_enqueue_mpmc(struct pl_ring *r, const void *entry);
int pl_ring_enqueue_spsc(struct pl_ring *r, const void *entry);
int __pl_ring_enqueue(struct pl_ring *r, const void *entry);

/* Copies the oldest entry into out (entry_size bytes). */
int pl_ring_dequeue_mpmc(struct pl_ring *r, void *out);
int pl_ring_dequeue_spsc(struct pl_ring *r, void *out);
int __pl_ring_dequeue(struct pl_ring *r, void *out);

/*
 * Takes up to n entries, oldest first, into out[0..n*entry_size) with one
 * claim: the entries are consecutive ring positions. Returns the count
 * taken (>= 1), 0 when n is 0, or -FI_EAGAIN when none is published.
 */
ssize_t pl_ring_dequeue_burst_mpmc(struct pl_ring *r, void *out, size_t n);
ssize_t pl_ring_dequeue_burst_spsc(struct pl_ring *r, void *out, size_t n);
ssize_t __pl_ring_dequeue_burst(struct pl_ring *r, void *out, size_t n);

/*
 * __pl_ring_enqueue and __pl_ring_dequeue (one entry) for a caller whose
 * entry size is a constant, so that the copy is inlined instead of a
 * library memcpy of a run-time size: size must be the ring's
 * entry_size. Same protocol, same rules, same return values.
 */
static inline int __pl_ring_enqueue_sized(struct pl_ring *r,
					  const void *entry, size_t size)
{
	/* relaxed everywhere: the caller excludes every other operation */
	uint64_t pos = pl_load_relaxed(&r->tail);
	unsigned char *slot = pl_ring_slot(r, pos);

	if (pl_load_relaxed(pl_ring_seq(slot)) != pos)
		return -FI_EAGAIN;
	memcpy(pl_ring_payload(slot), entry, size);
	pl_store_relaxed(pl_ring_seq(slot), pos + 1);
	pl_store_relaxed(&r->tail, pos + 1);
	return 0;
}

static inline int __pl_ring_dequeue_sized(struct pl_ring *r, void *out,
					  size_t size)
{
	/* relaxed everywhere: the caller excludes every other operation */
	uint64_t pos = pl_load_relaxed(&r->head);
	unsigned char *slot = pl_ring_slot(r, pos);

	if (pl_load_relaxed(pl_ring_seq(slot)) != pos + 1)
		return -FI_EAGAIN;
	memcpy(out, pl_ring_payload(slot), size);
	pl_store_relaxed(pl_ring_seq(slot), pos + r->mask + 1);
	pl_store_relaxed(&r->head, pos + 1);
	return 0;
}

/* Multi-producer, single-consumer pairing. */
static inline int pl_ring_enqueue_mpsc(struct pl_ring *r, const void *entry)
{
	return pl_ring_enqueue_mpmc(r, entry);
}

static inline int pl_ring_dequeue_mpsc(struct pl_ring *r, void *out)
{
	return pl_ring_dequeue_spsc(r, out);
}

static inline ssize_t pl_ring_dequeue_burst_mpsc(struct pl_ring *r, void *out,
						 size_t n)
{
	return pl_ring_dequeue_burst_spsc(r, out, n);
}

/*
 * True when no position has been claimed by a producer beyond those
 * claimed by consumers: nothing queued and nothing arriving. An entry
 * whose producer has claimed its slot but not finished copying counts as
 * arriving (not empty), which is what fi_trywait wants: -FI_EAGAIN while
 * anything is on its way. Safe from any thread, any mode except __.
 *
 * For a sleep/wake handshake the caller orders its own flag against this
 * check: waiter "store sleeping; pl_fence_seq_cst(); pl_ring_empty_approx",
 * producer "enqueue; pl_fence_seq_cst(); load sleeping". The loads here
 * are acquire only.
 */
bool pl_ring_empty_approx(const struct pl_ring *r);
/* Claimed minus taken positions, clamped to the capacity; a hint. */
size_t pl_ring_count_approx(const struct pl_ring *r);

/*
 * Positions, for structures layered on the ring (pl_spillq orders its
 * overflow against them). Both are monotonic; tail >= head always.
 * pl_ring_tail_pos: every position below it was claimed by a producer
 * whose claim happened before the load or is earlier in tail's order;
 * pl_ring_head_pos: every position below it was taken by a consumer.
 * Relaxed loads: callers rely on coherence of one monotonic variable (a
 * value at least as new as any claim that happens-before the load), not
 * on ordering against other data.
 */
static inline uint64_t pl_ring_tail_pos(const struct pl_ring *r)
{
	/* relaxed: read-read/write-read coherence is the whole contract */
	return pl_load_relaxed(&r->tail);
}

static inline uint64_t pl_ring_head_pos(const struct pl_ring *r)
{
	/* relaxed: as above */
	return pl_load_relaxed(&r->head);
}

#endif /* PROPEL_PL_RING_H */
