/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RCU facility (DESIGN.md section 5): one liburcu flavour, no
 * registration asked of anybody, safe across fork(). Address vectors
 * resolve fi_addr_t under it and the key map resolves MR keys under it;
 * any layer above base may use it.
 *
 * Flavour: liburcu-bp, the "bulletproof" one. A thread registers itself
 * inside its first pl_rcu_read_lock() and liburcu's own pthread key
 * destructor unregisters it when the thread exits, so the application
 * threads that end up in a provider's data path (fi_send, fi_cq_read with
 * FI_SOURCE) never have to call anything. The cost is one thread-local
 * pointer test per read lock; where the kernel has sys_membarrier the read
 * side has no memory barrier at all, only compiler barriers. urcu-memb
 * with a registration of our own would read-lock a little faster, but its
 * registry cannot be pruned in a forked child: a parent thread caught
 * inside a read-side section at fork time would stall every grace period
 * of the child forever. urcu-bp prunes it (urcu_bp_after_fork_child).
 *
 * The library calls are used, not the inline LGPL fast paths
 * (_LGPL_SOURCE): a read lock or unlock is one call into liburcu-bp.so.
 *
 * Fork. liburcu installs no atfork handler of its own; pl_rcu_init()
 * installs one, once per process, the first time a user (an AV, a key
 * map) starts:
 *   prepare  call_rcu_before_fork()   pauses the call_rcu workers and the
 *                                     rculfhash resize worker
 *            the fork guard           waits for our enqueues in flight
 *                                     (pl_rcu_fork_guard_enter below)
 *            urcu_bp_before_fork()    takes the grace-period and registry
 *                                     locks, blocks signals
 *   parent   urcu_bp_after_fork_parent(), call_rcu_after_fork_parent(),
 *            the guard released
 *   child    urcu_bp_after_fork_child()  drops the registry entries of the
 *                                     threads the child does not have
 *            call_rcu_after_fork_child() starts a new call_rcu worker and
 *                                     hands it the callbacks still queued
 *            the guard released
 * The workers run synchronize_rcu(), which takes the grace-period lock, so
 * they are paused before that lock is taken, and resumed after it is
 * released: the other order can wait for a worker that waits for us.
 * Pausing lets a worker finish the grace period it is in, so fork() may
 * wait for the read-side sections of other threads to end: a thread must
 * never stay in one until some fork() returns (the AV's sections are
 * bounded lookups, so they do not).
 * An AV opened before fork() belongs to the parent; a child opens its own
 * (named AVs are shared by name, never by inheritance).
 *
 * Synchronization table (who may run at the same time as whom):
 *
 *                      read_lock  call  barrier  fork
 *   read-side section  yes        yes   yes      yes
 *   call               yes        yes   yes      yes
 *   barrier            no(1)      yes   yes      yes
 *
 *   (1) pl_rcu_barrier() waits for a grace period: never call it inside
 *   a read-side section, nor with a mutex that a reader may take inside
 *   its section (the AV writer mutex), nor from an RCU callback.
 *
 * ThreadSanitizer. liburcu 0.13 is not instrumented: TSan sees neither the
 * grace period nor the hand-off of a callback to the call_rcu worker. Under
 * -fsanitize=thread the wrappers below say both: every read unlock releases
 * a process-wide token that every reclaim callback acquires (the grace
 * period: each section that could see the object ended before the callback
 * runs), and pl_rcu_call() releases the rcu_head that the callback
 * acquires. Publication itself goes through pl_atomic.h (release/acquire),
 * which TSan sees. In other builds these annotations compile to nothing.
 */
#ifndef PROPEL_PL_RCU_H
#define PROPEL_PL_RCU_H

#include <urcu-bp.h>

#include "pl_atomic.h"

#if defined(__SANITIZE_THREAD__)
#define PL_RCU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PL_RCU_TSAN 1
#endif
#endif

#ifdef PL_RCU_TSAN
#include <sanitizer/tsan_interface.h>
/* The object every read unlock releases and every reclaim acquires. */
extern char pl_rcu_tsan_gp;
#endif

/* Whether precondition checks ("called inside a read-side section") run:
 * in the sanitizer builds, where the concurrency tests run; not in a
 * release build, where they would cost a library call per lookup. */
#if defined(PL_RCU_TSAN) || defined(__SANITIZE_ADDRESS__) || \
	defined(PL_AV_DEBUG)
#define PL_RCU_CHECKS 1
#endif

/*
 * Installs the fork handlers above and checks that the flavour works; any
 * thread, any number of times (pthread_once). 0 or -FI_ENOMEM.
 */
int pl_rcu_init(void);

/*
 * Enter / leave a read-side section. Nest freely; any thread, registered
 * or not (it registers itself here the first time). Implies no memory
 * barrier the caller may rely on: what a section reads must come from an
 * RCU publication (pl_rcu_assign / pl_rcu_deref) or an acquire.
 */
static inline void pl_rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

static inline void pl_rcu_read_unlock(void)
{
#ifdef PL_RCU_TSAN
	__tsan_release(&pl_rcu_tsan_gp);
#endif
	urcu_bp_read_unlock();
}

/* Nonzero inside a read-side section of the calling thread. */
static inline int pl_rcu_read_ongoing(void)
{
	return urcu_bp_read_ongoing();
}

/*
 * rcu_assign_pointer() and rcu_dereference(), spelled through pl_atomic.h
 * (release store, acquire load) so that ThreadSanitizer sees the edge;
 * liburcu 0.13 writes them as volatile accesses behind asm barriers. On
 * x86-64 both compile to plain moves, as liburcu's do.
 */
#define pl_rcu_assign(pp, v) pl_store_release((pp), (v))
#define pl_rcu_deref(pp) pl_load_acquire((pp))

/*
 * Run fn(head) after a grace period, on liburcu's call_rcu worker. Any
 * thread, inside a read-side section or not, not from a callback. The
 * release before the call pairs with pl_rcu_reclaim_begin() in fn (TSan
 * builds only). Enqueues under the fork guard (below).
 */
void pl_rcu_call(struct rcu_head *head, void (*fn)(struct rcu_head *head));

/*
 * The fork guard. liburcu's call_rcu queue and rculfhash's resize work
 * queue are lock-free queues whose enqueue takes two steps (swap the
 * tail, then link the old tail); liburcu's fork handlers pause the
 * workers but not the enqueuers. A fork() that lands between the two
 * steps of another thread leaves the child a queue whose link is never
 * written, and the child's worker then waits for it forever (its next
 * rcu_barrier, at an AV close, never returns). So every enqueue the AV
 * makes (pl_rcu_call, and pl_av_rhash_add/del, which may queue a
 * resize) runs between pl_rcu_fork_guard_enter() and _exit(), and the
 * prepare handler takes the guard before anything else (pl_rcu.c).
 * A plain mutex: enqueues are writer-path work, already serialized per AV.
 * It may be taken inside a read-side section; it is never held across a
 * grace period nor across a call that may take it again (a drain's
 * callback). Lock order: the AV mutex, the guard, liburcu's registry
 * and grace-period locks; the prepare handler pauses liburcu's workers
 * before it takes the guard (why: pl_rcu.c). Other users of
 * liburcu-bp's call_rcu in the same process are not covered (their own
 * fork handling is theirs).
 */
void pl_rcu_fork_guard_enter(void);
void pl_rcu_fork_guard_exit(void);

/*
 * First statement of every reclaim callback: acquires what the writer
 * released in pl_rcu_call() and what every reader released when it left
 * its section (TSan builds only; nothing otherwise).
 */
static inline void pl_rcu_reclaim_begin(struct rcu_head *head)
{
#ifdef PL_RCU_TSAN
	__tsan_acquire(head);
	__tsan_acquire(&pl_rcu_tsan_gp);
#else
	(void)head;
#endif
}

/*
 * Objects that RCU does not publish itself (the nodes of the reverse hash
 * table, published inside liburcu-cds) are released by the writer before
 * the library call that publishes them and acquired by the reader before
 * it reads their fields. TSan builds only; nothing otherwise.
 */
static inline void pl_rcu_tsan_publish(const void *obj)
{
#ifdef PL_RCU_TSAN
	__tsan_release((void *)obj);
#else
	(void)obj;
#endif
}

static inline void pl_rcu_tsan_subscribe(const void *obj)
{
#ifdef PL_RCU_TSAN
	__tsan_acquire((void *)obj);
#else
	(void)obj;
#endif
}

/*
 * Wait until every callback queued so far, by any thread, has run. Outside
 * any read-side section and not from a callback (see the table above).
 */
static inline void pl_rcu_barrier(void)
{
	urcu_bp_barrier();
}

#endif /* PROPEL_PL_RCU_H */
