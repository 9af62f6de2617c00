/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The source array of a context and the passes over it.
 *
 * Synchronization table (per context; all four need the token, or the
 * application's serialization with manual FI_THREAD_DOMAIN):
 *
 *              | pass | arm_all | add  | remove
 *   pass       |  no  |   no    | no*  |  no*
 *   arm_all    |  no  |   no    | no   |  no
 *   add        |  no* |   no    | no   |  no
 *   remove     |  no* |   no    | no   |  no
 *
 * (*) except nested: poll() called by a pass may add and remove on the
 * same thread, which already holds the token (re-entrance, below).
 * "no" is enforced, not asked of callers: add/remove wait for the token,
 * pollers and the thread try-lock it.
 *
 * Quiescence (why remove() may return and let its caller free src):
 * removal happens under the token, the same token every engine access to a
 * source runs under. A pass (poll) or an arm round reads the array only
 * between its T1 and T2 (pl_progress_token.h), and remove unlinks src
 * between its own T1 and T2. Critical sections of one token are totally
 * ordered: a pass that ended before remove took the token happens-before
 * the unlink (its T2 pairs with remove's T1); a pass that starts after
 * remove released it sees the array without src (remove's T2 pairs with
 * its T1). The progress thread touches sources nowhere else: it blocks in
 * epoll_wait without the token, and its epoll entries carry no source
 * pointer, only the fd, which remove deletes from the set before it
 * returns. So no grace period and no RCU registration is needed: the token
 * is a one-slot read-side section, and the only waiting is remove's (a
 * control-path call) for the current pass to end.
 *
 * Re-entrance: poll() may add or remove sources of its own context (a
 * listener accepting a connection, a connection closing itself); the
 * caller then already holds the token, which held_by_self detects. The
 * pass loop re-reads the array at every step and never touches a source
 * after its poll() returned, so a removal in mid-pass at worst skips the
 * source moved into the freed slot until the next pass.
 *
 * With FI_THREAD_DOMAIN and manual progress the application serializes
 * every call on the domain, so the array needs no token; the same
 * re-entrance argument applies.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_log.h"
#include "pl_progress_int.h"

/* Take the token for a control-path change unless this thread already
 * holds it (a call from inside poll()) or there is no token. Returns
 * whether pl_progress_source_unlock must release it. */
static bool pl_progress_source_lock(struct pl_progress_ctx *ctx)
{
	if (ctx->uses_asym) {
		/* the thread inside its own pass holds its lease already;
		 * anyone else is the application (FI_THREAD_DOMAIN: every
		 * call on the domain is one), whose side nests. Relaxed
		 * tid: the thread stored it before its first pass. */
		if (pl_load_relaxed(&ctx->thr.tid) == (int)gettid())
			return false;
		pl_progress_asym_app_enter(&ctx->asym);
		return true;
	}
	if (!ctx->uses_token || pl_progress_token_held_by_self(&ctx->tok))
		return false;
	pl_progress_token_lock(&ctx->tok);
	return true;
}

static void pl_progress_source_unlock(struct pl_progress_ctx *ctx, bool taken)
{
	if (!taken)
		return;
	if (ctx->uses_asym)
		pl_progress_asym_app_leave(&ctx->asym);
	else
		pl_progress_token_unlock(&ctx->tok);
}

static bool pl_progress_source_is_here(const struct pl_progress_ctx *ctx,
				       const struct pl_progress_source *src)
{
	/* Robust against a source that was never zeroed: only a slot that
	 * points back at src counts. */
	return src->ctx == ctx && src->slot < ctx->nsrcs &&
	       ctx->srcs[src->slot] == src;
}

static int pl_progress_source_grow(struct pl_progress_ctx *ctx)
{
	struct pl_progress_source **v;
	unsigned cap = ctx->cap ? ctx->cap * 2 : 8;

	v = realloc(ctx->srcs, cap * sizeof(*v));
	if (!v)
		return -FI_ENOMEM;
	ctx->srcs = v;
	ctx->cap = cap;
	return 0;
}

int pl_progress_source_add(struct pl_progress_ctx *ctx,
			   struct pl_progress_source *src)
{
	struct epoll_event ev = { .events = EPOLLIN };
	bool taken;
	int ret;

	if (!ctx || !src || !src->poll || src->fd < -1)
		return -FI_EINVAL;
	if (ctx->dead)
		return -FI_EOPBADSTATE;

	taken = pl_progress_source_lock(ctx);
	if (pl_progress_source_is_here(ctx, src)) {
		ret = -FI_EALREADY;
		goto out;
	}
	if (ctx->nsrcs == ctx->cap) {
		ret = pl_progress_source_grow(ctx);
		if (ret)
			goto out;
	}
	if (src->fd >= 0) {
		/* The event carries no pointer: a wake-up never leads the
		 * thread to a source outside a pass (quiescence above). */
		ev.data.u64 = 0;
		if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, src->fd, &ev)) {
			ret = errno == EEXIST ? -FI_EBUSY : -errno;
			goto out;
		}
	}
	src->ctx = ctx;
	src->slot = ctx->nsrcs;
	ctx->srcs[ctx->nsrcs++] = src;
	ret = 0;
out:
	pl_progress_source_unlock(ctx, taken);
	/* The new source may already have work and the thread may be
	 * asleep with the old set armed. */
	if (!ret)
		pl_progress_ctx_kick(ctx);
	return ret;
}

/* Under the token: unlink src, keeping the array dense. */
static void pl_progress_source_unlink(struct pl_progress_ctx *ctx,
				      struct pl_progress_source *src)
{
	struct pl_progress_source *last = ctx->srcs[--ctx->nsrcs];

	ctx->srcs[src->slot] = last;
	last->slot = src->slot;
	if (src->fd >= 0)
		/* Before returning: after remove the provider may close fd.
		 * An error (fd already closed) leaves nothing to undo. */
		(void)epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, src->fd, NULL);
	src->ctx = NULL;
	src->slot = 0;
}

int pl_progress_source_remove(struct pl_progress_ctx *ctx,
			      struct pl_progress_source *src)
{
	bool taken;
	int ret;

	if (!ctx || !src)
		return -FI_EINVAL;
	/* A forked child tears its inherited objects down; the parent's
	 * epoll set is shared with it and must not be touched. */
	if (ctx->dead)
		return 0;

	taken = pl_progress_source_lock(ctx);
	if (pl_progress_source_is_here(ctx, src)) {
		pl_progress_source_unlink(ctx, src);
		ret = 0;
	} else {
		ret = -FI_ENOENT;
	}
	pl_progress_source_unlock(ctx, taken);
	return ret;
}

void pl_progress_ctx_sync(struct pl_progress_ctx *ctx)
{
	bool taken;

	if (!ctx || ctx->dead)
		return;
	/* Taking the token orders this call after the running pass (its
	 * T2 pairs with our T1, see "Quiescence" above); nothing else is
	 * done under it. */
	taken = pl_progress_source_lock(ctx);
	pl_progress_source_unlock(ctx, taken);
}

/* A source's poll failed: count it, log the pass's first failure.
 * Returns the pass's error (the first). Out of line: the pass's loop
 * stays free of the logging call's frame. */
static PL_NOINLINE int pl_progress_source_failed(struct pl_progress_ctx *ctx,
						 struct pl_progress_source *src,
						 int ret, int err)
{
	pl_progress_count(&ctx->errors);
	if (err)
		return err;
	PL_DBG(FI_LOG_CORE, "progress source %s: %d\n",
	       src->name ? src->name : "(unnamed)", ret);
	return ret;
}

int pl_progress_source_pass(struct pl_progress_ctx *ctx)
{
	struct pl_progress_source *src;
	int work = 0, err = 0, ret;
	unsigned i;

	/* nsrcs and srcs are re-read every step: poll() may add or
	 * remove sources (re-entrance, above). */
	for (i = 0; i < ctx->nsrcs; i++) {
		src = ctx->srcs[i];
		ret = src->poll(src, ctx->budget);
		if (ret > 0)
			work += ret;
		else if (PL_UNLIKELY(ret < 0 && ret != -FI_EAGAIN))
			err = pl_progress_source_failed(ctx, src, ret, err);
	}
	pl_progress_count(&ctx->passes);
	return work ? work : err;
}

int pl_progress_source_arm_all(struct pl_progress_ctx *ctx)
{
	struct pl_progress_source *src;
	unsigned i;
	int ret;

	for (i = 0; i < ctx->nsrcs; i++) {
		src = ctx->srcs[i];
		if (!src->arm)
			continue;
		ret = src->arm(src);
		if (ret == -FI_EAGAIN) {
			pl_progress_count(&ctx->arm_races);
			return -FI_EAGAIN;
		}
		/* Any other failure: the source cannot promise a wake-up,
		 * so sleeping would risk a hang; poll instead. */
		if (ret)
			return -FI_EAGAIN;
	}
	return 0;
}

/* At close, after the thread is gone: leave no source pointing here. */
void pl_progress_source_detach_all(struct pl_progress_ctx *ctx)
{
	unsigned i;

	if (ctx->nsrcs)
		PL_DBG(FI_LOG_CORE, "closing a progress context with %u "
		       "sources still registered\n", ctx->nsrcs);
	for (i = 0; i < ctx->nsrcs; i++) {
		ctx->srcs[i]->ctx = NULL;
		ctx->srcs[i]->slot = 0;
	}
	ctx->nsrcs = 0;
	free(ctx->srcs);
	ctx->srcs = NULL;
	ctx->cap = 0;
}
