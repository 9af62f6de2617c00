/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The asymmetric exclusion of an FI_THREAD_DOMAIN auto-progress context:
 * the application side enters and leaves with plain stores and loads (no
 * locked instruction, no fence); the progress thread, which enters
 * rarely, pays for both sides with membarrier(2). Used instead of the
 * progress token only where the application serializes its own calls on
 * the domain (FI_THREAD_DOMAIN) and so never contends with itself.
 *
 * The protocol (a Dekker handshake whose StoreLoad fence on the
 * application side is supplied by the thread's membarrier):
 *
 *   application (enter)            thread (take)
 *   A0  app_active = 1  relaxed    T0  thread_active = 1  relaxed
 *       (compiler barrier only)    M   membarrier(PRIVATE_EXPEDITED)
 *   A1  while thread_active        T1  if app_active (acquire):
 *         (acquire) wait                 T2 thread_active = 0, give up
 *   ... sources ...                ... passes (a lease: kept across
 *   A2  app_active = 0  release        passes until T1 sees app_active
 *                                      or the thread naps/sleeps) ...
 *                                  T2  thread_active = 0  release
 *
 * Mutual exclusion: membarrier makes every running thread of the process
 * execute a full barrier somewhere between its entry and its return, and
 * a thread that is not running passes one at its next context switch.
 * If the application's barrier point comes after A0, A0 is visible to T1
 * and the thread gives up. If it comes before A0, then A1 (after A0) runs
 * after that barrier, and T0 (before the call) is visible to it: the
 * application waits. So the two never both proceed.
 * Happens-before: A2 (release) pairs with T1 (acquire): the application's
 * section before the thread's; T2 (release) pairs with A1 (acquire): the
 * thread's section (or lease) before the application's.
 * Liveness: the application waits only while the thread holds a lease;
 * the thread checks app_active between passes (never blocks holding it:
 * it gives the lease back before any nap or sleep) and then gives it
 * back. The waiting application yields its CPU after a few spins, in
 * case the thread shares it.
 *
 * Fields: app_active and app_depth belong to the application side (one
 * thread at a time, FI_THREAD_DOMAIN); thread_active to the progress
 * thread (or a control path that takes the thread side the same way).
 * Each flag has its own cache line: each side writes only its own.
 */
#ifndef PROPEL_PL_PROGRESS_ASYM_H
#define PROPEL_PL_PROGRESS_ASYM_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "pl_atomic.h"
#include "pl_compiler.h"

struct pl_progress_asym {
	pl_atomic_int app_active PL_CACHE_ALIGNED;
	unsigned app_depth;	/* nesting of the application side */
	pl_atomic_int thread_active PL_CACHE_ALIGNED;
};

/* Register the process for private expedited membarrier (once per
 * process; later calls are cheap). 0, or -FI_ENOSYS where the kernel
 * lacks it: the context then keeps the token. */
int pl_progress_asym_init(void);

/* M: the full barrier on every running thread of the process. */
void pl_progress_asym_membarrier(void);

/* Application side: enter (waits while the thread holds a lease) and
 * leave. Nests. */
static inline void pl_progress_asym_app_enter(struct pl_progress_asym *a)
{
	unsigned spins = 0;

	if (a->app_depth++)
		return;
	/* A0: relaxed; the thread's membarrier orders it (see above) */
	pl_store_relaxed(&a->app_active, 1);
	/* keep the compiler from moving A1 above A0 */
	atomic_signal_fence(memory_order_seq_cst);
	/* A1: acquire, pairs with T2 */
	while (pl_load_acquire(&a->thread_active)) {
		if (++spins < 64)
			pl_cpu_relax();
		else
			sched_yield();
	}
}

static inline void pl_progress_asym_app_leave(struct pl_progress_asym *a)
{
	if (--a->app_depth)
		return;
	/* A2: release, pairs with T1 */
	pl_store_release(&a->app_active, 0);
}

/* Thread side: try to take (costs a membarrier); false when the
 * application is in or entering. */
static inline bool pl_progress_asym_thread_take(struct pl_progress_asym *a)
{
	/* relaxed: a hint that saves the system call */
	if (pl_load_relaxed(&a->app_active))
		return false;
	/* T0: relaxed; M orders it */
	pl_store_relaxed(&a->thread_active, 1);
	pl_progress_asym_membarrier();
	/* T1: acquire, pairs with A2 */
	if (pl_load_acquire(&a->app_active)) {
		/* T2: release, pairs with A1 */
		pl_store_release(&a->thread_active, 0);
		return false;
	}
	return true;
}

/* Holding a lease: does the application want in? (T1 between passes) */
static inline bool pl_progress_asym_app_wants(struct pl_progress_asym *a)
{
	/* acquire: pairs with A2, as T1 */
	return pl_load_acquire(&a->app_active) != 0;
}

static inline void pl_progress_asym_thread_give(struct pl_progress_asym *a)
{
	/* T2: release, pairs with A1 */
	pl_store_release(&a->thread_active, 0);
}

#endif /* PROPEL_PL_PROGRESS_ASYM_H */
