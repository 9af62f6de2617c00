/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork() and progress contexts. A child inherits the memory of every
 * context but none of the threads: an auto context's progress thread,
 * and whichever thread held a token at the moment of fork(), do not exist
 * there. So the child's handler marks every inherited context dead, and
 * swaps its strategy for one that does nothing:
 *   poll -> -FI_EOPBADSTATE, kick -> no-op, source_add -> -FI_EOPBADSTATE,
 *   source_remove -> 0 (teardown must succeed), close -> frees memory and
 *   closes the child's copies of the fds without joining anything and
 *   without epoll_ctl (the epoll set and eventfd are shared with the
 *   parent through fork: touching them would disturb the parent).
 * Manual contexts are included: a token held by a parent thread at the
 * fork would stay held forever, with its sources half-polled.
 * New contexts opened in the child are normal ones, with new threads.
 *
 * Synchronization: the registry is a list under pl_progress_fork_lock.
 * The prepare handler takes the lock, so no context is half-linked at
 * the fork; the parent handler releases it; the child handler, running
 * alone in the child, rewrites the inherited contexts and releases it.
 * Lock order: this lock, then a context's token (the handler takes no
 * token). Only open and close use the lock: never the data path.
 */
#include <pthread.h>
#include <stdbool.h>

#include "pl_progress_int.h"

static pthread_mutex_t pl_progress_fork_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pl_progress_ctx *pl_progress_fork_list;
static pthread_once_t pl_progress_fork_once = PTHREAD_ONCE_INIT;

static void pl_progress_fork_prepare(void)
{
	pthread_mutex_lock(&pl_progress_fork_lock);
}

static void pl_progress_fork_parent(void)
{
	pthread_mutex_unlock(&pl_progress_fork_lock);
}

static void pl_progress_fork_child(void)
{
	struct pl_progress_ctx *ctx, *next;

	/* Single-threaded here: plain writes to the contexts are safe,
	 * and nothing else of the parent's threads remains to race. */
	for (ctx = pl_progress_fork_list; ctx; ctx = next) {
		next = ctx->reg_next;
		ctx->dead = true;
		ctx->ops = pl_progress_ops_dead;
		/* a lease the parent's thread held at the fork would make
		 * every application entry in the child wait forever;
		 * relaxed: single-threaded here */
		pl_store_relaxed(&ctx->asym.thread_active, 0);
		ctx->reg_prev = ctx->reg_next = NULL;
	}
	pl_progress_fork_list = NULL;
	pthread_mutex_unlock(&pl_progress_fork_lock);
}

static void pl_progress_fork_install(void)
{
	(void)pthread_atfork(pl_progress_fork_prepare, pl_progress_fork_parent,
			     pl_progress_fork_child);
}

void pl_progress_fork_register(struct pl_progress_ctx *ctx)
{
	pthread_once(&pl_progress_fork_once, pl_progress_fork_install);
	pthread_mutex_lock(&pl_progress_fork_lock);
	ctx->reg_prev = NULL;
	ctx->reg_next = pl_progress_fork_list;
	if (pl_progress_fork_list)
		pl_progress_fork_list->reg_prev = ctx;
	pl_progress_fork_list = ctx;
	pthread_mutex_unlock(&pl_progress_fork_lock);
}

void pl_progress_fork_unregister(struct pl_progress_ctx *ctx)
{
	pthread_mutex_lock(&pl_progress_fork_lock);
	if (ctx->reg_prev)
		ctx->reg_prev->reg_next = ctx->reg_next;
	else
		pl_progress_fork_list = ctx->reg_next;
	if (ctx->reg_next)
		ctx->reg_next->reg_prev = ctx->reg_prev;
	ctx->reg_prev = ctx->reg_next = NULL;
	pthread_mutex_unlock(&pl_progress_fork_lock);
}
