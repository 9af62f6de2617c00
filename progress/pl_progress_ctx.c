/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A progress context: one per domain. Open picks the strategy once
 * (DESIGN.md section 3: not tested per operation on the hot path):
 *
 *   progress  threading          poll strategy         kick
 *   manual    FI_THREAD_DOMAIN   serial: no token      none
 *   manual    any other          token                 none
 *   auto      FI_THREAD_DOMAIN   asym + app.ask        thread
 *   auto      any other          token + app.ask       thread
 *   (forked child, any)          dead: -FI_EOPBADSTATE none
 *
 * asym (pl_progress_asym.h) replaces the token where the application
 * serializes its own calls: its side is plain stores and loads, the
 * thread pays with membarrier(2). Without membarrier, the token.
 * Only FI_THREAD_DOMAIN lets the token go: there the application
 * serializes every call on the domain. FI_THREAD_COMPLETION and
 * FI_THREAD_ENDPOINT serialize per CQ or per endpoint only, so two
 * threads reading two CQs of one domain drive the same sources at once;
 * and an auto thread always competes with the application.
 *
 * Counters (struct pl_progress_stats) are relaxed atomics: they order
 * nothing and nobody decides anything from them. Counters with a single
 * writer (the token holder, or the thread) are bumped with a relaxed load
 * and store, no read-modify-write. busy and kicks use fetch_add, on paths
 * that are slow anyway. app.ask is not a counter: it is the thread's
 * question "did the application poll since I asked?" (its protocol and
 * why it is not a counter bumped per poll: pl_progress_thread.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_log.h"
#include "pl_progress_int.h"

/* ---- strategies ---- */

static int pl_progress_poll_serial(struct pl_progress_ctx *ctx)
{
	return pl_progress_source_pass(ctx);
}

static int pl_progress_poll_token(struct pl_progress_ctx *ctx)
{
	int ret;

	if (!pl_progress_token_trylock(&ctx->tok)) {
		/* Relaxed: a statistic. */
		pl_fetch_add_relaxed(&ctx->app.busy, 1);
		return 0;
	}
	ret = pl_progress_source_pass(ctx);
	pl_progress_token_unlock(&ctx->tok);
	return ret;
}

/* Auto mode: answer the thread's question (pl_progress_thread.c), a
 * load per poll and a store only when asked. Relaxed: a hint that orders
 * nothing; racing pollers store the same 0. */
static inline void pl_progress_app_answer(struct pl_progress_ctx *ctx)
{
	if (pl_load_relaxed(&ctx->app.ask))
		pl_store_relaxed(&ctx->app.ask, 0);
}

static int pl_progress_poll_token_auto(struct pl_progress_ctx *ctx)
{
	pl_progress_app_answer(ctx);
	return pl_progress_poll_token(ctx);
}

static int pl_progress_poll_asym(struct pl_progress_ctx *ctx)
{
	int ret;

	pl_progress_app_answer(ctx);
	pl_progress_asym_app_enter(&ctx->asym);
	ret = pl_progress_source_pass(ctx);
	pl_progress_asym_app_leave(&ctx->asym);
	return ret;
}

static int pl_progress_poll_dead(struct pl_progress_ctx *ctx)
{
	return -FI_EOPBADSTATE;
}

static void pl_progress_kick_none(struct pl_progress_ctx *ctx)
{
}

static const struct pl_progress_ops pl_progress_ops_serial = {
	.poll = pl_progress_poll_serial,
	.kick = pl_progress_kick_none,
};

static const struct pl_progress_ops pl_progress_ops_token = {
	.poll = pl_progress_poll_token,
	.kick = pl_progress_kick_none,
};

static const struct pl_progress_ops pl_progress_ops_auto = {
	.poll = pl_progress_poll_token_auto,
	.kick = pl_progress_thread_kick,
};

static const struct pl_progress_ops pl_progress_ops_asym = {
	.poll = pl_progress_poll_asym,
	.kick = pl_progress_thread_kick,
};

const struct pl_progress_ops pl_progress_ops_dead = {
	.poll = pl_progress_poll_dead,
	.kick = pl_progress_kick_none,
};

/* ---- the hot path ---- */

bool pl_progress_ctx_uses_asym(const struct pl_progress_ctx *ctx)
{
	return ctx->uses_asym;
}

void pl_progress_ctx_app_enter(struct pl_progress_ctx *ctx)
{
	pl_progress_asym_app_enter(&ctx->asym);
}

void pl_progress_ctx_app_leave(struct pl_progress_ctx *ctx)
{
	pl_progress_asym_app_leave(&ctx->asym);
}

int pl_progress_ctx_poll(struct pl_progress_ctx *ctx)
{
	return ctx->ops.poll(ctx);
}

void pl_progress_ctx_kick(struct pl_progress_ctx *ctx)
{
	ctx->ops.kick(ctx);
}

/* ---- open / close ---- */

static int pl_progress_ctx_check(enum fi_progress data_progress,
				 enum fi_threading threading,
				 const struct pl_progress_attr *attr)
{
	switch (data_progress) {
	case FI_PROGRESS_UNSPEC:
	case FI_PROGRESS_AUTO:
	case FI_PROGRESS_MANUAL:
		break;
	default:
		return -FI_EINVAL;
	}
	switch (threading) {
	case FI_THREAD_UNSPEC:
	case FI_THREAD_SAFE:
	case FI_THREAD_FID:
	case FI_THREAD_DOMAIN:
	case FI_THREAD_COMPLETION:
	case FI_THREAD_ENDPOINT:
		break;
	default:
		return -FI_EINVAL;
	}
	if (attr && attr->numa_node < -1)
		return -FI_EINVAL;
	return 0;
}

int pl_progress_ctx_open(enum fi_progress data_progress,
			 enum fi_threading threading,
			 const struct pl_progress_attr *attr,
			 struct pl_progress_ctx **ctx_p)
{
	struct pl_progress_ctx *ctx;
	void *mem;
	int ret;

	if (!ctx_p)
		return -FI_EINVAL;
	ret = pl_progress_ctx_check(data_progress, threading, attr);
	if (ret)
		return ret;

	/* Aligned: the first cache lines are laid out by hand. */
	if (posix_memalign(&mem, PL_CACHELINE, sizeof(*ctx)))
		return -FI_ENOMEM;
	ctx = mem;
	memset(ctx, 0, sizeof(*ctx));
	ctx->thr.kick_fd = -1;
	ctx->data_progress = data_progress == FI_PROGRESS_AUTO ?
			     FI_PROGRESS_AUTO : FI_PROGRESS_MANUAL;
	ctx->budget = attr && attr->poll_budget ? attr->poll_budget :
		      PL_PROGRESS_POLL_BUDGET;
	ctx->spin_us = pl_progress_param_get()->spin_us;
	ctx->backoff_max_us = pl_progress_param_get()->backoff_max_us;

	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epfd < 0) {
		ret = -errno;
		goto err_free;
	}

	if (ctx->data_progress == FI_PROGRESS_AUTO) {
		ctx->uses_asym = threading == FI_THREAD_DOMAIN &&
				 pl_progress_param_get()->asym &&
				 !pl_progress_asym_init();
		ctx->ops = ctx->uses_asym ? pl_progress_ops_asym :
					    pl_progress_ops_auto;
		ctx->uses_token = !ctx->uses_asym;
		ctx->thr.pin = pl_progress_pin_choose(
			attr ? attr->numa_node : -1, &ctx->thr.cpus);
		ret = pl_progress_thread_start(ctx);
		if (ret)
			goto err_close_ep;
	} else if (threading == FI_THREAD_DOMAIN) {
		ctx->ops = pl_progress_ops_serial;
		ctx->uses_token = false;
	} else {
		ctx->ops = pl_progress_ops_token;
		ctx->uses_token = true;
	}

	pl_progress_fork_register(ctx);
	*ctx_p = ctx;
	return 0;

err_close_ep:
	close(ctx->epfd);
err_free:
	free(ctx);
	return ret;
}

int pl_progress_ctx_close(struct pl_progress_ctx *ctx)
{
	if (!ctx)
		return -FI_EINVAL;
	/* In a forked child the thread does not exist and the fds are
	 * copies: closing ours leaves the parent's epoll set and eventfd
	 * alone; no join, no epoll_ctl. */
	if (!ctx->dead) {
		pl_progress_fork_unregister(ctx);
		pl_progress_thread_stop(ctx);
	} else if (ctx->thr.started) {
		sem_destroy(&ctx->thr.ready);
	}
	pl_progress_source_detach_all(ctx);
	if (ctx->thr.kick_fd >= 0)
		close(ctx->thr.kick_fd);
	close(ctx->epfd);
	free(ctx);
	return 0;
}

/* ---- waiting (manual-progress wait objects) ---- */

int pl_progress_ctx_trywait(struct pl_progress_ctx *ctx)
{
	int ret;

	if (!ctx)
		return -FI_EINVAL;
	if (ctx->dead)
		return -FI_EOPBADSTATE;
	if (ctx->uses_asym) {
		pl_progress_asym_app_enter(&ctx->asym);
		ret = pl_progress_source_arm_all(ctx);
		pl_progress_asym_app_leave(&ctx->asym);
		return ret;
	}
	if (!ctx->uses_token)
		return pl_progress_source_arm_all(ctx);
	/* Someone polls right now: the caller should read, not sleep. */
	if (!pl_progress_token_trylock(&ctx->tok))
		return -FI_EAGAIN;
	ret = pl_progress_source_arm_all(ctx);
	pl_progress_token_unlock(&ctx->tok);
	return ret;
}

int pl_progress_ctx_wait_fd(struct pl_progress_ctx *ctx)
{
	if (!ctx)
		return -FI_EINVAL;
	return ctx->dead ? -FI_EOPBADSTATE : ctx->epfd;
}

/* ---- observation ---- */

void pl_progress_ctx_stats(const struct pl_progress_ctx *ctx,
			   struct pl_progress_stats *stats_p)
{
	struct pl_progress_ctx *c = (struct pl_progress_ctx *)ctx;

	if (!ctx || !stats_p)
		return;
	/* Relaxed: statistics (file comment). */
	*stats_p = (struct pl_progress_stats){
		.passes = pl_load_relaxed(&c->passes),
		.thread_passes = pl_load_relaxed(&c->st.thread_passes),
		.app_polls_seen = pl_load_relaxed(&c->st.app_seen),
		.busy = pl_load_relaxed(&c->app.busy),
		.errors = pl_load_relaxed(&c->errors),
		.arm_races = pl_load_relaxed(&c->arm_races),
		.sleeps = pl_load_relaxed(&c->st.sleeps),
		.wakeups = pl_load_relaxed(&c->st.wakeups),
		.kicks = pl_load_relaxed(&c->st.kicks),
		.backoffs = pl_load_relaxed(&c->st.backoffs),
	};
}

void pl_progress_ctx_info(const struct pl_progress_ctx *ctx,
			  struct pl_progress_info *info_p)
{
	struct pl_progress_ctx *c = (struct pl_progress_ctx *)ctx;

	if (!ctx || !info_p)
		return;
	*info_p = (struct pl_progress_info){
		.data_progress = ctx->data_progress,
		.uses_token = ctx->uses_token,
		.uses_asym = ctx->uses_asym,
		.dead = ctx->dead,
		.spin_us = ctx->spin_us,
		.backoff_max_us = ctx->backoff_max_us,
		/* Relaxed: published before open returned (semaphore). */
		.thread_tid = ctx->dead ? 0 : pl_load_relaxed(&c->thr.tid),
	};
}
