/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_spillq: a pl_ring with an unbounded overflow list ("spill"), so a
 * full ring never drops, blocks or reorders an entry. The CQ object keeps
 * its completions in one (DESIGN.md section 3).
 *
 * Ordering guarantee (all modes): causal FIFO. If enqueue(a) happens
 * before enqueue(b) -- same thread in program order, or ordered through
 * any synchronization -- then dequeue(b) never happens before dequeue(a):
 * a consumer thread (or consumers that synchronize with each other) never
 * sees b before a, and in a burst a precedes b in the output. In
 * particular every producer's entries come out in its order. Entries of
 * unrelated producers may interleave in any order. Under __pl_spillq_*
 * (one thread at a time) the order is strictly FIFO. Every entry is
 * dequeued exactly once; none is dropped while memory for an overflow
 * node can be had.
 *
 * Modes (names as in pl_ring.h):
 *   pl_spillq_enqueue_mpmc   any number of producer threads; lock-free
 *                            (ring) or wait-free (overflow append)
 *   pl_spillq_dequeue_mpmc   any number of consumer threads; the ring path
 *                            is lock-free; overflow entries are taken
 *                            under a try-lock (a consumer that finds it
 *                            held reads the ring instead or gets
 *                            -FI_EAGAIN; it never waits)
 *   pl_spillq_dequeue_mpsc   one consumer thread at a time: no lock
 *   __pl_spillq_*            caller-serialized (PL_SPILLQ_F_SERIAL):
 *                            plain loads and stores, no lock
 *
 * Synchronization table: may X run at the same time as Y on one queue?
 *                     enqueue_mpmc  dequeue_mpmc  dequeue_mpsc  __any  empty
 *   enqueue_mpmc      yes           yes           yes           no     yes
 *   dequeue_mpmc      yes           yes           no            no     yes
 *   dequeue_mpsc      yes           no            no            no     yes
 *   __pl_spillq_*     no            no            no            no     no
 *   empty_approx      yes           yes           yes           no     yes
 * (dequeue includes the burst variant of the same mode.)
 *
 * Cost model: while the overflow holds anything, producers append there
 * (that is what keeps each producer's order), so a queue that spilled
 * stays in "spill mode" -- a pool allocation per enqueue and a try-lock
 * per overflow dequeue -- until consumers drain the overflow. Size the
 * ring for the expected burst; the overflow is the safety net.
 */
#ifndef PROPEL_PL_SPILLQ_H
#define PROPEL_PL_SPILLQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_ring.h"

struct pl_bufpool;

/* Header of an overflow node; the entry follows it. Internal. */
struct pl_spillq_link {
	pl_atomic_ptr next;
	uint64_t mark;		/* ring tail when appended; see pl_spillq.c */
};

struct pl_spillq {
	struct pl_ring ring;

	/* Overflow, producer side: last node (Vyukov's MPSC exchange). */
	pl_atomic_ptr ovf_tail PL_CACHE_ALIGNED;
	/* Entries appended to the overflow and not yet taken; read by
	 * every enqueue and dequeue, written only in spill mode. */
	pl_atomic_u64 ovf_count PL_CACHE_ALIGNED;
	/* Overflow, consumer side. ovf_head is protected by ovf_lock in
	 * the _mpmc mode, by the single consumer in _mpsc, by the caller
	 * in __. */
	pl_atomic_int ovf_lock PL_CACHE_ALIGNED;
	struct pl_spillq_link *ovf_head;
	struct pl_spillq_link stub;
	/* Read-only after init. */
	struct pl_bufpool *pool;
	uint32_t entry_size;
	uint32_t flags;
};

/* The queue is used only through __pl_spillq_* (one thread at a time). */
#define PL_SPILLQ_F_SERIAL (1u << 0)

/*
 * q must be PL_CACHELINE-aligned (see pl_ring_init); entry_size and
 * ring_capacity as for pl_ring_init. Overflow nodes come from a
 * pl_bufpool the queue owns. Errors: -FI_EINVAL, -FI_ENOMEM.
 */
int pl_spillq_init(struct pl_spillq *q, size_t entry_size,
		   size_t ring_capacity, uint32_t flags);
/* Releases the ring and every overflow node; queued entries are
 * discarded. Not concurrent with anything. */
void pl_spillq_fini(struct pl_spillq *q);

/* 0, or -FI_ENOMEM when the ring is full and no overflow node can be
 * allocated (the entry is then not queued). */
int pl_spillq_enqueue_mpmc(struct pl_spillq *q, const void *entry);
int __pl_spillq_enqueue(struct pl_spillq *q, const void *entry);

/* 0, or -FI_EAGAIN when nothing can be taken now. */
int pl_spillq_dequeue_mpmc(struct pl_spillq *q, void *out);
int pl_spillq_dequeue_mpsc(struct pl_spillq *q, void *out);
int __pl_spillq_dequeue(struct pl_spillq *q, void *out);

/* Up to n entries into out[0..n*entry_size); returns the count (>= 1),
 * 0 when n is 0, or -FI_EAGAIN. Output order respects the guarantee. */
ssize_t pl_spillq_dequeue_burst_mpmc(struct pl_spillq *q, void *out,
				     size_t n);
ssize_t pl_spillq_dequeue_burst_mpsc(struct pl_spillq *q, void *out,
				     size_t n);
ssize_t __pl_spillq_dequeue_burst(struct pl_spillq *q, void *out, size_t n);

static inline int pl_spillq_enqueue_mpsc(struct pl_spillq *q,
					 const void *entry)
{
	return pl_spillq_enqueue_mpmc(q, entry);
}

/*
 * __pl_spillq_enqueue and __pl_spillq_dequeue for a caller whose entry
 * size is a constant (it must be the queue's entry_size): while nothing
 * is spilled the ring is the whole queue, and the ring's sized calls
 * inline the copy; otherwise the general calls keep the order (R1, R2).
 */
static inline int __pl_spillq_enqueue_sized(struct pl_spillq *q,
					    const void *entry, size_t size)
{
	/* relaxed: the caller excludes every other operation */
	if (PL_LIKELY(pl_load_relaxed(&q->ovf_count) == 0) &&
	    __pl_ring_enqueue_sized(&q->ring, entry, size) == 0)
		return 0;
	return __pl_spillq_enqueue(q, entry);
}

static inline int __pl_spillq_dequeue_sized(struct pl_spillq *q, void *out,
					    size_t size)
{
	/* relaxed: the caller excludes every other operation */
	if (PL_LIKELY(pl_load_relaxed(&q->ovf_count) == 0))
		return __pl_ring_dequeue_sized(&q->ring, out, size);
	return __pl_spillq_dequeue(q, out);
}

/*
 * Nothing queued in the ring or the overflow and nothing arriving in the
 * ring (see pl_ring_empty_approx, including the fence protocol for
 * sleeping). Any mode; in the __ mode only under the caller's exclusion,
 * like every other call (then the answer is exact).
 */
bool pl_spillq_empty_approx(const struct pl_spillq *q);
/* Entries currently in the overflow; a hint (tests, statistics). */
size_t pl_spillq_spilled_approx(const struct pl_spillq *q);

#endif /* PROPEL_PL_SPILLQ_H */
