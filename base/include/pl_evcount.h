/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sleep/wake handshake (an event count reduced to one word): a waiter
 * about to block and a notifier that has just published work agree,
 * without a lock, on whether the waiter must be woken. Used by the engine
 * CQ's wait (pl_cq.c), the auto-progress thread (pl_progress_thread.c)
 * and shm's cross-process wake-up (shm_wake.c, the word in shared
 * memory); what actually blocks and wakes (an eventfd, a socket, a
 * condition variable) is the user's. The memhooks filter of mr_cache
 * (pl_mrc_memhooks.c) is the same store-buffering pattern over a table of
 * counters rather than a sleep; it places the two fences itself and rests
 * on the argument below.
 *
 * The word holds `sleeping` while a waiter is about to block or blocks,
 * anything else otherwise. Waiters store `sleeping` (P1) and, when they
 * are awake again, may store 0 (cancel); a notifier only moves
 * `sleeping` to its woken value (0 included). Several waiters may share
 * a word (the CQ's): then the wake-up must reach all of them (a
 * broadcast), since one notifier serves every waiter armed at that time.
 *
 *   waiter                               notifier
 *   P1  word = sleeping                  N0  publish the work where the
 *   P2  seq_cst fence                        waiter's re-check looks
 *   P3  re-check for work; if any,       N1  seq_cst fence
 *       do not block                     N2  load word (relaxed); if it
 *   else block until woken                   is `sleeping`, CAS it to the
 *   when awake: optionally cancel            woken value (acq_rel); the
 *       (word = 0)                           winner wakes the waiter(s)
 *
 * Claim: no waiter stays blocked while work published before a notify is
 * pending. P2 and N1 are seq_cst fences, so one precedes the other in the
 * single total order of seq_cst operations (C11 7.17.4: a store before
 * one fence and a load after the other; acquire/release alone does not
 * order a store before a later load, which is why both sides fence):
 *  - N1 before P2: N0 is sequenced before N1 and P3 after P2, so P3 sees
 *    the work and the waiter does not block.
 *  - P2 before N1: N2 reads P1 or a value later in the word's
 *    modification order. Each write after P1 is a waiter's P1 (the word
 *    still says `sleeping`), a notifier's winning CAS (that notifier
 *    wakes the waiters), or a cancel (the waiter's attempt is over; it
 *    looks for work again before it blocks again, which repeats P1-P3).
 *    So either N2 reads `sleeping` and its CAS wins (this notifier wakes)
 *    or loses to one of those writes, or N2 reads one of those writes:
 *    in every case the attempt ends, or somebody wakes the waiter.
 * The CAS only elects one waker among racing notifiers; the wake-up
 * itself (a write(2), a sendto(2), a condition broadcast) is ordered by
 * the kernel or the mutex it goes through, not by this word.
 *
 * A notifier's common case is N1 and a relaxed load that reads 0: one
 * fence and one load on every publication, no atomic read-modify-write.
 *
 * pl_evcount_prepare_sync() replaces P1 with an acq_rel exchange. When
 * every write to the word is an RMW (P1 exchanges and winning CASes, no
 * cancel: the CQ's case), each heads or continues the release sequence of
 * every earlier P1, so the winning CAS (acq_rel) synchronizes with all
 * the waiters armed before it and the notifier also acquires what they
 * wrote before P1 (the CQ's waiters read the waitable's seq there);
 * otherwise the two are the same protocol.
 */
#ifndef PROPEL_PL_EVCOUNT_H
#define PROPEL_PL_EVCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "pl_atomic.h"
#include "pl_compiler.h"

/* P1, P2: the waiter announces that it is about to block. Then it must
 * re-check for work (P3) before it blocks. Waiter only. */
static inline void pl_evcount_prepare(pl_atomic_u32 *word, uint32_t sleeping)
{
	/* P1: relaxed, P2 orders it */
	pl_store_relaxed(word, sleeping);
	/* P2: pairs with N1 in pl_evcount_notify */
	pl_fence_seq_cst();
}

/* As pl_evcount_prepare, P1 as an RMW that heads a release sequence: the
 * notifier whose CAS wins synchronizes with the waiter. Waiter only. */
static inline void pl_evcount_prepare_sync(pl_atomic_u32 *word,
					   uint32_t sleeping)
{
	/* P1: acq_rel, read by the winning notifier's CAS */
	(void)pl_exchange_acq_rel(word, sleeping);
	/* P2: pairs with N1 in pl_evcount_notify */
	pl_fence_seq_cst();
}

/* The waiter is awake again (cancelled, or woken): back to 0. Relaxed: a
 * notifier that still reads `sleeping` only wakes once too often, which
 * the user's wake-up object absorbs. Waiter only. */
static inline void pl_evcount_cancel(pl_atomic_u32 *word)
{
	pl_store_relaxed(word, 0u);
}

/* N1, N2: after publishing work (N0). True for the one caller that must
 * wake the waiter; the word then holds `woken` until the waiter cancels.
 * Any thread or process mapping the word. */
static inline bool pl_evcount_notify(pl_atomic_u32 *word, uint32_t sleeping,
				     uint32_t woken)
{
	uint32_t expected = sleeping;

	/* N1: pairs with P2 in pl_evcount_prepare(_sync); orders the
	 * caller's publication before the load below */
	pl_fence_seq_cst();
	/* N2: relaxed, the fence orders it; nearly always nobody sleeps */
	if (PL_LIKELY(pl_load_relaxed(word) != sleeping))
		return false;
	/* acq_rel: elects one waker among racing notifiers, and reads the
	 * release sequence of a pl_evcount_prepare_sync */
	return pl_cas_acq_rel(word, &expected, woken);
}

#endif /* PROPEL_PL_EVCOUNT_H */
