/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_ring: bounded ring of fixed-size entries, per-slot sequence numbers.
 *
 * Layout. Slot i holds a 64-bit sequence word seq followed by the entry.
 * Positions are unbounded 64-bit counters; position p lives in slot
 * p & mask. tail (next position to claim) and head (next position to take)
 * sit on their own cache lines, the read-only geometry on a third.
 *
 * Slot protocol (all modes). For position p in slot s = p & mask:
 *   seq == p            slot free for the producer of p
 *   seq == p + 1        entry of p published, waiting for its consumer
 *   seq == p + cap      consumer of p done: slot free for position p + cap
 * Initially seq(s) = s. A capacity of 1 would make "published p" (p + 1)
 * equal "free for p + 1" (p + cap), hence capacity >= 2.
 *
 * Correctness argument (MPMC).
 *  1. Mutual exclusion per position. A producer writes slot s for p only
 *     after winning the CAS tail: p -> p + 1 (E1); tail is monotonic, so at
 *     most one producer claims p. Before E1 it saw seq == p (E0): the
 *     consumer of p - cap had released the slot, and no one but p's
 *     producer moves seq away from p. Symmetrically a consumer reads slot s
 *     for p only after winning head: p -> p + 1 (D1) having seen
 *     seq == p + 1 (D0), and only p's consumer moves seq away from p + 1.
 *  2. Data visibility. The producer's copy is sequenced before its release
 *     store seq = p + 1 (E2); the consumer's acquire load (D0) that reads
 *     it makes the copy visible before its own read of the entry. The
 *     consumer's read is sequenced before its release store
 *     seq = p + cap (D2); the next producer's acquire load (E0) reads it,
 *     so its copy cannot overtake the previous read (no torn entry).
 *  3. The CASes E1 and D1 are relaxed: they only choose who owns a
 *     position; every byte of payload is ordered by E2->D0 and D2->E0.
 *  4. Burst. A consumer that sees seq == q + 1 for q = p .. p + k - 1 and
 *     then wins head: p -> p + k owns those k positions: had any of them
 *     been taken since, head would have moved past p and the CAS failed;
 *     producers never touch a published slot. Seq values are absolute
 *     positions, so a slot from another lap can never match.
 *  5. FIFO. Positions are claimed in tail order and taken in head order,
 *     so if enqueue(a) returns before enqueue(b) starts (or the two are
 *     ordered by happens-before), a's position is lower and a is taken
 *     first: its D1 precedes b's in head's modification order.
 *
 * Linearization. A successful enqueue takes effect at E1, a successful
 * dequeue at D1 (for a burst: all k entries at the one D1); the queue
 * order is tail order. -FI_EAGAIN is not linearizable against operations in
 * flight: a consumer returns it when the slot at head is claimed but not
 * yet published (E1 done, E2 not), and a producer when the slot at tail
 * is taken but not yet released (D1 done, D2 not), although the abstract
 * queue is then non-empty / not full. With nothing in flight both are
 * exact. The price of per-slot turns: a thread stopped between E1 and E2
 * keeps consumers from passing its slot until it resumes (it blocks no
 * other producer); one stopped between D1 and D2 likewise keeps producers
 * out of that slot a lap later.
 *
 * SPSC: the single producer owns tail and the single consumer owns head,
 * so the CASes become plain stores; the seq edges E0/E2/D0/D2 are
 * unchanged, which is why the modes may be mixed per side.
 *
 * Synchronizing edges:
 *   E0 (enqueue, acquire load of seq)  pairs with D2 (release store)
 *   E2 (enqueue, release store of seq) pairs with D0 (acquire load)
 *   E1, D1 (relaxed CAS on tail/head)  pair with nothing; see 3.
 *   T0 (empty_approx, acquire loads)   pair with nothing in the ring: the
 *       caller's seq_cst fences make the sleep/wake handshake.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_ring.h"

_Static_assert(sizeof(pl_atomic_u64) == PL_RING_SEQ_SIZE,
	       "slot sequence word is 64 bits");
_Static_assert(offsetof(struct pl_ring, head) - offsetof(struct pl_ring, tail)
	       >= PL_CACHELINE, "tail and head on separate cache lines");
_Static_assert(offsetof(struct pl_ring, mask) - offsetof(struct pl_ring, head)
	       >= PL_CACHELINE, "head and geometry on separate cache lines");

int pl_ring_init(struct pl_ring *r, size_t entry_size, size_t capacity)
{
	size_t stride, i;
	unsigned char *slots;

	if (!r || ((uintptr_t)r & (PL_CACHELINE - 1)))
		return -FI_EINVAL;
	if (!entry_size || entry_size > PL_RING_MAX_ENTRY)
		return -FI_EINVAL;
	if (capacity < 2 || capacity > PL_RING_MAX_CAPACITY ||
	    (capacity & (capacity - 1)))
		return -FI_EINVAL;

	/* 8-byte granularity keeps every sequence word naturally aligned. */
	stride = (PL_RING_SEQ_SIZE + entry_size + 7) & ~(size_t)7;
	slots = aligned_alloc(PL_CACHELINE,
			      (capacity * stride + PL_CACHELINE - 1) &
				      ~(size_t)(PL_CACHELINE - 1));
	if (!slots)
		return -FI_ENOMEM;

	r->mask = capacity - 1;
	r->entry_size = (uint32_t)entry_size;
	r->stride = (uint32_t)stride;
	r->slots = slots;
	for (i = 0; i < capacity; i++)
		atomic_init(pl_ring_seq(pl_ring_slot(r, i)), (uint64_t)i);
	atomic_init(&r->tail, 0);
	atomic_init(&r->head, 0);
	return 0;
}

void pl_ring_fini(struct pl_ring *r)
{
	if (!r)
		return;
	free(r->slots);
	r->slots = NULL;
}

int pl_ring_enqueue_mpmc(struct pl_ring *r, const void *entry)
{
	/* relaxed: a stale tail only costs a retry; E0 and E1 decide */
	uint64_t pos = pl_load_relaxed(&r->tail);
	unsigned char *slot;

	for (;;) {
		int64_t dif;

		slot = pl_ring_slot(r, pos);
		/* E0, acquire: pairs with D2 of the consumer of pos - cap */
		dif = (int64_t)(pl_load_acquire(pl_ring_seq(slot)) - pos);
		if (dif == 0) {
			/* E1, relaxed: claims pos; on failure pos is
			 * refreshed with the current tail */
			if (pl_cas_weak_relaxed(&r->tail, &pos, pos + 1))
				break;
		} else if (dif < 0) {
			/* still holds pos - cap: full (or its consumer is
			 * between D1 and D2) */
			return -FI_EAGAIN;
		} else {
			/* another producer claimed pos already */
			pos = pl_load_relaxed(&r->tail);
		}
	}
	memcpy(pl_ring_payload(slot), entry, r->entry_size);
	/* E2, release: pairs with D0; publishes the copy above */
	pl_store_release(pl_ring_seq(slot), pos + 1);
	return 0;
}

int pl_ring_enqueue_spsc(struct pl_ring *r, const void *entry)
{
	/* relaxed: this thread is the only writer of tail */
	uint64_t pos = pl_load_relaxed(&r->tail);
	unsigned char *slot = pl_ring_slot(r, pos);

	/* E0, acquire: pairs with D2 */
	if (pl_load_acquire(pl_ring_seq(slot)) != pos)
		return -FI_EAGAIN;
	/* E1 (spsc), relaxed: the claim, made before the copy as in
	 * _mpmc so that observers count the entry as arriving; the entry
	 * itself is published by E2, not by this store */
	pl_store_relaxed(&r->tail, pos + 1);
	memcpy(pl_ring_payload(slot), entry, r->entry_size);
	/* E2, release: pairs with D0 */
	pl_store_release(pl_ring_seq(slot), pos + 1);
	return 0;
}

int __pl_ring_enqueue(struct pl_ring *r, const void *entry)
{
	/* relaxed everywhere: the caller excludes every other operation */
	uint64_t pos = pl_load_relaxed(&r->tail);
	unsigned char *slot = pl_ring_slot(r, pos);

	if (pl_load_relaxed(pl_ring_seq(slot)) != pos)
		return -FI_EAGAIN;
	memcpy(pl_ring_payload(slot), entry, r->entry_size);
	pl_store_relaxed(pl_ring_seq(slot), pos + 1);
	pl_store_relaxed(&r->tail, pos + 1);
	return 0;
}

/* Claims positions [pos, pos + k), 1 <= k <= n, for a multi-consumer
 * side; returns k and sets *pos_p, or -FI_EAGAIN. */
static ssize_t pl_ring_claim_mc(struct pl_ring *r, size_t n, uint64_t *pos_p)
{
	/* relaxed: a stale head only costs a retry; D0 and D1 decide */
	uint64_t pos = pl_load_relaxed(&r->head);

	for (;;) {
		uint64_t seq = 0;
		size_t k = 0;

		while (k < n) {
			/* D0, acquire: pairs with E2 of the producer of
			 * pos + k; makes its copy visible to our read */
			seq = pl_load_acquire(
				pl_ring_seq(pl_ring_slot(r, pos + k)));
			if (seq != pos + k + 1)
				break;
			k++;
		}
		if (k == 0) {
			if ((int64_t)(seq - (pos + 1)) < 0)
				return -FI_EAGAIN; /* not yet published */
			/* another consumer took pos already */
			pos = pl_load_relaxed(&r->head);
			continue;
		}
		/* D1, relaxed: claims [pos, pos + k); fails if any of them
		 * was taken since the scan (argument 4) */
		if (pl_cas_weak_relaxed(&r->head, &pos, pos + k)) {
			*pos_p = pos;
			return (ssize_t)k;
		}
	}
}

/* Single consumer: head is ours, so the scan alone decides. */
static ssize_t pl_ring_claim_sc(struct pl_ring *r, size_t n, uint64_t *pos_p)
{
	/* relaxed: this thread is the only writer of head */
	uint64_t pos = pl_load_relaxed(&r->head);
	size_t k = 0;

	/* D0, acquire: pairs with E2 */
	while (k < n &&
	       pl_load_acquire(pl_ring_seq(pl_ring_slot(r, pos + k))) ==
		       pos + k + 1)
		k++;
	if (!k)
		return -FI_EAGAIN;
	/* relaxed: head is a position hint for observers (and pl_spillq's
	 * eligibility test, which relies on coherence only) */
	pl_store_relaxed(&r->head, pos + k);
	*pos_p = pos;
	return (ssize_t)k;
}

/* Copies k claimed entries out and hands their slots to the next lap. */
static void pl_ring_take(struct pl_ring *r, uint64_t pos, size_t k,
			 unsigned char *out)
{
	size_t i;

	for (i = 0; i < k; i++) {
		unsigned char *slot = pl_ring_slot(r, pos + i);

		memcpy(out + i * r->entry_size, pl_ring_payload(slot),
		       r->entry_size);
		/* D2, release: pairs with E0 of the producer of
		 * pos + i + cap; our read above happens before its write */
		pl_store_release(pl_ring_seq(slot), pos + i + r->mask + 1);
	}
}

int pl_ring_dequeue_mpmc(struct pl_ring *r, void *out)
{
	uint64_t pos;
	ssize_t k = pl_ring_claim_mc(r, 1, &pos);

	if (k < 0)
		return (int)k;
	pl_ring_take(r, pos, 1, out);
	return 0;
}

int pl_ring_dequeue_spsc(struct pl_ring *r, void *out)
{
	uint64_t pos;
	ssize_t k = pl_ring_claim_sc(r, 1, &pos);

	if (k < 0)
		return (int)k;
	pl_ring_take(r, pos, 1, out);
	return 0;
}

ssize_t pl_ring_dequeue_burst_mpmc(struct pl_ring *r, void *out, size_t n)
{
	uint64_t pos;
	ssize_t k;

	if (!n)
		return 0;
	k = pl_ring_claim_mc(r, n, &pos);
	if (k > 0)
		pl_ring_take(r, pos, (size_t)k, out);
	return k;
}

ssize_t pl_ring_dequeue_burst_spsc(struct pl_ring *r, void *out, size_t n)
{
	uint64_t pos;
	ssize_t k;

	if (!n)
		return 0;
	k = pl_ring_claim_sc(r, n, &pos);
	if (k > 0)
		pl_ring_take(r, pos, (size_t)k, out);
	return k;
}

ssize_t __pl_ring_dequeue_burst(struct pl_ring *r, void *out, size_t n)
{
	/* relaxed everywhere: the caller excludes every other operation */
	uint64_t pos = pl_load_relaxed(&r->head);
	unsigned char *dst = out;
	size_t k;

	for (k = 0; k < n; k++) {
		unsigned char *slot = pl_ring_slot(r, pos + k);

		if (pl_load_relaxed(pl_ring_seq(slot)) != pos + k + 1)
			break;
		memcpy(dst + k * r->entry_size, pl_ring_payload(slot),
		       r->entry_size);
		pl_store_relaxed(pl_ring_seq(slot), pos + k + r->mask + 1);
	}
	if (!k)
		return n ? -FI_EAGAIN : 0;
	pl_store_relaxed(&r->head, pos + k);
	return (ssize_t)k;
}

int __pl_ring_dequeue(struct pl_ring *r, void *out)
{
	ssize_t k = __pl_ring_dequeue_burst(r, out, 1);

	return k < 0 ? (int)k : 0;
}

bool pl_ring_empty_approx(const struct pl_ring *r)
{
	/* T0, acquire (both): head first, then tail. tail only grows and
	 * head <= tail at all times, so equal values mean that at the
	 * instant of the second load every claimed position was taken. */
	uint64_t head = pl_load_acquire(&r->head);
	uint64_t tail = pl_load_acquire(&r->tail);

	return head == tail;
}

size_t pl_ring_count_approx(const struct pl_ring *r)
{
	/* T0, acquire: same order as above, so tail - head cannot go
	 * negative; it can exceed the capacity if both moved in between */
	uint64_t head = pl_load_acquire(&r->head);
	uint64_t tail = pl_load_acquire(&r->tail);
	uint64_t n = tail - head;

	return n > r->mask + 1 ? (size_t)r->mask + 1 : (size_t)n;
}
