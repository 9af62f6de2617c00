/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The progress token: whoever holds it runs poll()/arm() of a context's
 * sources and may change the source array; the others go away. It is a
 * try-lock for pollers (they never wait) and a waiting lock only for the
 * control path (source add/remove), which registers in `waiters` so that
 * pollers stand aside and a tight polling loop cannot starve it.
 *
 * Synchronization table:
 *
 *                    | trylock | lock | unlock | held_by_self
 *   trylock          |   yes   | yes  |  yes   |    yes
 *   lock             |   yes   | yes  |  yes   |    yes
 *   unlock           |   yes   | yes  |   -    |    yes
 *   held_by_self     |   yes   | yes  |  yes   |    yes
 *
 * unlock only by the holder. Edges:
 *   T1 (acquire, exchange in trylock/lock) pairs with T2 (release store in
 *      unlock): what the previous holder did to the sources and the array
 *      happens-before what the next holder does.
 *   `waiters` and the pre-check loads in trylock are relaxed hints: they
 *      only decide whether to try, never what is protected.
 *   `owner` is written only by the holder; a thread reads back its own id
 *      only if it wrote it and has not cleared it yet (coherence), so the
 *      relaxed compare in held_by_self is exact for the asking thread.
 */
#ifndef PROPEL_PL_PROGRESS_TOKEN_H
#define PROPEL_PL_PROGRESS_TOKEN_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "pl_atomic.h"

struct pl_progress_token {
	pl_atomic_int held;	/* 0 free, 1 held */
	pl_atomic_int waiters;	/* control-path threads in lock() */
	pl_atomic_u64 owner;	/* pthread_self() of the holder, or 0 */
};

static inline uint64_t pl_progress_token_self(void)
{
	return (uint64_t)(uintptr_t)pthread_self();
}

static inline bool pl_progress_token_trylock(struct pl_progress_token *tok)
{
	/* Read-only test first: a poller that loses does not steal the
	 * cache line from the holder. Relaxed: a hint (see the table). */
	if (pl_load_relaxed(&tok->held) | pl_load_relaxed(&tok->waiters))
		return false;
	/* T1: acquire; pairs with T2 of the previous holder. */
	if (pl_exchange_acq_rel(&tok->held, 1) != 0)
		return false;
	pl_store_relaxed(&tok->owner, pl_progress_token_self());
	return true;
}

/* The control path: waits (spinning, then yielding the CPU to whichever
 * thread holds the token, possibly on the same core). */
static inline void pl_progress_token_lock(struct pl_progress_token *tok)
{
	unsigned spins = 0;

	/* Relaxed: the hint orders nothing (see the table). */
	pl_fetch_add_relaxed(&tok->waiters, 1);
	for (;;) {
		/* T1: acquire; pairs with T2 of the previous holder. */
		if (pl_load_relaxed(&tok->held) == 0 &&
		    pl_exchange_acq_rel(&tok->held, 1) == 0)
			break;
		if (++spins < 64)
			pl_cpu_relax();
		else
			sched_yield();
	}
	pl_fetch_add_relaxed(&tok->waiters, -1);
	pl_store_relaxed(&tok->owner, pl_progress_token_self());
}

static inline void pl_progress_token_unlock(struct pl_progress_token *tok)
{
	pl_store_relaxed(&tok->owner, 0);
	/* T2: release; pairs with T1 of the next holder. */
	pl_store_release(&tok->held, 0);
}

static inline bool pl_progress_token_held_by_self(struct pl_progress_token *tok)
{
	return pl_load_relaxed(&tok->owner) == pl_progress_token_self();
}

#endif /* PROPEL_PL_PROGRESS_TOKEN_H */
