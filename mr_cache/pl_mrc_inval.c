/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The invalidation log (pl_mrc_inval.h).
 *
 * Slot protocol. Position p (from a fetch-add on head) owns slot
 * p % N for lap p / N. Slot.seq holds p + 1 once lap p's range is
 * complete, PL_MRC_INVAL_BUSY while some lap writes it, and 0 before the
 * first lap. A producer first waits until seq equals the completion mark
 * of lap p - N (P0), so writers of one slot take turns; it then marks the
 * slot busy, writes the range and stores p + 1 (P1, release).
 *
 * A consumer at position c < head reads seq (C1, acquire):
 *   seq == c + 1   the range is there; copy it, then re-read seq after an
 *                  acquire fence (S2): unchanged means the copy is whole.
 *   seq <  c + 1   lap c has not written yet (claimed, a few stores away)
 *   or BUSY        ... unless head shows lap c + N claimed too: then the
 *                  slot is being overwritten and c is lost.
 *   seq >  c + 1   a later lap overwrote it: lost.
 * Lost ranges make the consumer report -FI_EOVERFLOW, never skip.
 *
 * Fields are atomics accessed relaxed so that the seqlock's benign read
 * of a slot being rewritten is not a data race; the ordering comes from
 * P1/C1 and the fences.
 */
#include <sched.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_mrc_inval.h"

#define PL_MRC_INVAL_MASK ((uint64_t)PL_MRC_INVAL_SLOTS - 1)
#define PL_MRC_INVAL_BUSY UINT64_MAX

_Static_assert((PL_MRC_INVAL_SLOTS & (PL_MRC_INVAL_SLOTS - 1)) == 0,
	       "PL_MRC_INVAL_SLOTS must be a power of two");

struct pl_mrc_inval_slot {
	pl_atomic_u64 seq;
	pl_atomic_u64 start;
	pl_atomic_u64 end;
};

static struct {
	/* Next position; producers fetch-add, consumers read. */
	pl_atomic_u64 head PL_CACHE_ALIGNED;
	struct pl_mrc_inval_slot slots[PL_MRC_INVAL_SLOTS] PL_CACHE_ALIGNED;
} pl_mrc_inval_log;

static void pl_mrc_inval_pause(unsigned *spins)
{
	/* The thread we wait for is between two stores; on a shared core it
	 * may be preempted there, so yield now and then. */
	if (++*spins % 64 == 0)
		sched_yield();
	else
		pl_cpu_relax();
}

void pl_mrc_inval_publish(uintptr_t start, uintptr_t end)
{
	struct pl_mrc_inval_slot *s;
	uint64_t pos, prev;
	unsigned spins = 0;

	/* acq_rel: the claim is ordered after whatever made this range
	 * invalid, and before a monitor's "published" mark that a consumer
	 * reads (pl_mrc_uffd.c R2) to learn where head is at least. */
	pos = pl_fetch_add_acq_rel(&pl_mrc_inval_log.head, 1);
	s = &pl_mrc_inval_log.slots[pos & PL_MRC_INVAL_MASK];
	prev = pos >= PL_MRC_INVAL_SLOTS ? pos - PL_MRC_INVAL_SLOTS + 1 : 0;
	/* P0 acquire: pairs with the P1 of the previous lap's writer. */
	while (pl_load_acquire(&s->seq) != prev)
		pl_mrc_inval_pause(&spins);
	pl_store_relaxed(&s->seq, PL_MRC_INVAL_BUSY);
	/* S1: the busy mark is ordered before the new range, so a consumer
	 * that copies any of it sees seq changed at its S2 re-read. */
	pl_fence_release();
	pl_store_relaxed(&s->start, (uint64_t)start);
	pl_store_relaxed(&s->end, (uint64_t)end);
	/* P1 release: pairs with C1 (and with the next lap's P0). */
	pl_store_release(&s->seq, pos + 1);
}

uint64_t pl_mrc_inval_pos(void)
{
	/* acquire: pairs with the acq_rel claim of producers. */
	return pl_load_acquire(&pl_mrc_inval_log.head);
}

int pl_mrc_inval_consume(uint64_t *cursor_p,
			 void (*fn)(uintptr_t start, uintptr_t end, void *arg),
			 void *arg)
{
	struct pl_mrc_inval_slot *s;
	uint64_t c = *cursor_p, head, seq, seq2, start, end;
	unsigned spins = 0;

	head = pl_mrc_inval_pos();
	while (c < head) {
		if (head - c > PL_MRC_INVAL_SLOTS)
			goto lost;
		s = &pl_mrc_inval_log.slots[c & PL_MRC_INVAL_MASK];
		/* C1 acquire: pairs with P1. */
		seq = pl_load_acquire(&s->seq);
		if (seq == PL_MRC_INVAL_BUSY || seq < c + 1) {
			/* Not written yet for lap c, or already being
			 * rewritten: head tells which. */
			head = pl_mrc_inval_pos();
			pl_mrc_inval_pause(&spins);
			continue;
		}
		if (seq > c + 1)
			goto lost;
		start = pl_load_relaxed(&s->start);
		end = pl_load_relaxed(&s->end);
		/* S2: copy before the re-read (pairs with S1). */
		pl_fence_acquire();
		seq2 = pl_load_relaxed(&s->seq);
		if (seq2 != seq)
			goto lost;
		fn((uintptr_t)start, (uintptr_t)end, arg);
		c++;
	}
	*cursor_p = c;
	return 0;
lost:
	*cursor_p = pl_mrc_inval_pos();
	return -FI_EOVERFLOW;
}
