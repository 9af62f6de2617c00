/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One-time set-up of the RCU flavour: the fork handlers that liburcu
 * leaves to its users (the order is argued in pl_rcu.h).
 */
#include <errno.h>
#include <pthread.h>

#include <rdma/fi_errno.h>

#include "pl_rcu.h"
#include "pl_log.h"

#ifdef PL_RCU_TSAN
char pl_rcu_tsan_gp;
#endif

static pthread_once_t pl_rcu_once = PTHREAD_ONCE_INIT;
static int pl_rcu_init_ret;
/* The fork guard (pl_rcu.h): held by every enqueue into a liburcu
 * queue, and by fork() from prepare to the parent/child handler. */
static pthread_mutex_t pl_rcu_fork_guard = PTHREAD_MUTEX_INITIALIZER;

void pl_rcu_fork_guard_enter(void)
{
	pthread_mutex_lock(&pl_rcu_fork_guard);
}

void pl_rcu_fork_guard_exit(void)
{
	pthread_mutex_unlock(&pl_rcu_fork_guard);
}

void pl_rcu_call(struct rcu_head *head, void (*fn)(struct rcu_head *head))
{
#ifdef PL_RCU_TSAN
	__tsan_release(head);
#endif
	pl_rcu_fork_guard_enter();
	urcu_bp_call_rcu(head, fn);
	pl_rcu_fork_guard_exit();
}

/*
 * Workers paused first, then the guard: a holder of the guard may be
 * inside a read-side section, and a worker that is finishing a grace
 * period waits for that section, so taking the guard before pausing
 * could wait for a holder that waits (through the worker) for us. Once
 * the workers are paused nothing waits for a grace period, every holder
 * finishes its enqueue, and none starts another until the handlers
 * below release the guard. (The call_rcu mutex that
 * call_rcu_before_fork keeps is not needed by an enqueue: the default
 * worker exists from pl_rcu_init on.)
 */
static void pl_rcu_prepare(void)
{
	urcu_bp_call_rcu_before_fork();
	pthread_mutex_lock(&pl_rcu_fork_guard);
	urcu_bp_before_fork();
}

static void pl_rcu_parent(void)
{
	urcu_bp_after_fork_parent();
	urcu_bp_call_rcu_after_fork_parent();
	pthread_mutex_unlock(&pl_rcu_fork_guard);
}

/* The child's only thread is the one that forked, which holds the guard
 * (a default mutex: unlocking it here needs no owner check). */
static void pl_rcu_child(void)
{
	urcu_bp_after_fork_child();
	urcu_bp_call_rcu_after_fork_child();
	pthread_mutex_unlock(&pl_rcu_fork_guard);
}

static void pl_rcu_init_once(void)
{
	int ret;

	/* Handlers registered by a dlopen()ed library are dropped again by
	 * glibc when it is unloaded, so this needs no undo. */
	ret = pthread_atfork(pl_rcu_prepare, pl_rcu_parent,
			     pl_rcu_child);
	if (ret) {
		PL_WARN(FI_LOG_CORE, "pthread_atfork: error %d\n", ret);
		pl_rcu_init_ret = -FI_ENOMEM;
		return;
	}
	/* Register this thread now rather than inside a first lookup. */
	urcu_bp_register_thread();
	/* Create the default call_rcu worker now: an enqueue would otherwise
	 * take liburcu's call_rcu mutex to create it, which the prepare
	 * handler holds while it waits for the fork guard. */
	if (!urcu_bp_get_default_call_rcu_data()) {
		PL_WARN(FI_LOG_CORE, "liburcu-bp: no call_rcu worker\n");
		pl_rcu_init_ret = -FI_ENOMEM;
	}
}

int pl_rcu_init(void)
{
	(void)pthread_once(&pl_rcu_once, pl_rcu_init_once);
	return pl_rcu_init_ret;
}
