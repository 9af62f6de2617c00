/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One-time set-up of the AV's RCU flavour: the fork handlers that liburcu
 * leaves to its users (the order is argued in pl_av_rcu.h).
 */
#include <errno.h>
#include <pthread.h>

#include <rdma/fi_errno.h>

#include "pl_av_rcu.h"
#include "pl_log.h"

#ifdef PL_AV_RCU_TSAN
char pl_av_rcu_tsan_gp;
#endif

static pthread_once_t pl_av_rcu_once = PTHREAD_ONCE_INIT;
static int pl_av_rcu_init_ret;

static void pl_av_rcu_prepare(void)
{
	urcu_bp_call_rcu_before_fork();
	urcu_bp_before_fork();
}

static void pl_av_rcu_parent(void)
{
	urcu_bp_after_fork_parent();
	urcu_bp_call_rcu_after_fork_parent();
}

static void pl_av_rcu_child(void)
{
	urcu_bp_after_fork_child();
	urcu_bp_call_rcu_after_fork_child();
}

static void pl_av_rcu_init_once(void)
{
	int ret;

	/* Handlers registered by a dlopen()ed library are dropped again by
	 * glibc when it is unloaded, so this needs no undo. */
	ret = pthread_atfork(pl_av_rcu_prepare, pl_av_rcu_parent,
			     pl_av_rcu_child);
	if (ret) {
		PL_WARN(FI_LOG_AV, "pthread_atfork: error %d\n", ret);
		pl_av_rcu_init_ret = -FI_ENOMEM;
		return;
	}
	/* Register this thread now rather than inside a first lookup. */
	urcu_bp_register_thread();
}

int pl_av_rcu_init(void)
{
	(void)pthread_once(&pl_av_rcu_once, pl_av_rcu_init_once);
	return pl_av_rcu_init_ret;
}
