/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The progress engine (DESIGN.md section 3), as the layers above see it.
 *
 * A domain opens one context; every provider object that needs driving
 * registers a source with it. Who drives the sources is chosen at open:
 * the application's own calls (FI_PROGRESS_MANUAL, pl_progress_ctx_poll)
 * or, in addition, a per-context thread (FI_PROGRESS_AUTO). The engine
 * knows nothing of CQs or providers: a source is three members below.
 *
 * Synchronization table (who may call what at the same time, per context):
 *
 *                     | ctx_poll | ctx_kick | source_add/ | ctx_trywait | ctx_close
 *                     |          |          |  remove     |             |
 *   ctx_poll          |   yes    |   yes    |    yes      |    yes      |    no
 *   ctx_kick          |   yes    |   yes    |    yes      |    yes      |    no
 *   source_add/remove |   yes    |   yes    |    yes      |    yes      |    no
 *   ctx_trywait       |   yes    |   yes    |    yes      |    yes      |    no
 *   ctx_close         |   no     |   no     |    no       |    no       |    no
 *
 * Two polls: one runs the pass, the other returns 0 at once. add/remove
 * wait for the running pass (they are serialized by the token); trywait
 * returns -FI_EAGAIN while someone polls. "yes" holds in every mode except
 * FI_THREAD_DOMAIN with manual progress, where the application serializes
 * all calls on the domain (fi_domain(3)) and the engine takes no token.
 * ctx_stats / ctx_info may run at any time before ctx_close. The full
 * contract and the provider-side rules: docs/progress.md.
 */
#ifndef PROPEL_PL_PROGRESS_H
#define PROPEL_PL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/fabric.h>

struct pl_progress_ctx;

/*
 * A progress source, embedded in the provider object it drives and
 * zero-initialized (designated initializers do) before
 * pl_progress_source_add(). The engine never calls poll() or arm() of one
 * source from two threads at once, nor poll() and arm() concurrently:
 * both run under the context's token (or under the application's own
 * serialization with FI_THREAD_DOMAIN and manual progress).
 */
struct pl_progress_source {
	/*
	 * Do at most `budget` units of work (completions reaped, messages
	 * pushed); return how many (> 0), 0 when there was nothing, or a
	 * negative -FI_E* for a failure of the source itself (completions
	 * in error go through the provider's own CQ path, not here).
	 * Must not block, sleep, or wait for another thread; may add or
	 * remove sources of this same context.
	 */
	int (*poll)(struct pl_progress_source *src, unsigned budget);

	/*
	 * Prepare for the caller to sleep: return 0 when nothing is pending
	 * and any new work will make `fd` readable (or the producer will call
	 * pl_progress_ctx_kick), -FI_EAGAIN when work raced in (the caller
	 * polls again, it never sleeps). Idempotent. NULL means there is
	 * nothing to arm: `fd` is level-triggered on pending work, or the
	 * producers always kick.
	 */
	int (*arm)(struct pl_progress_source *src);

	/* Descriptor to block on for EPOLLIN (level-triggered), or -1. */
	int fd;

	/* Optional, for log lines. */
	const char *name;

	/* Engine-private: written by add/remove under the token. */
	struct pl_progress_ctx *ctx;
	unsigned slot;
};

/* Optional attributes; NULL means all defaults. */
struct pl_progress_attr {
	/* NUMA node of the device, used for pinning when neither
	 * FI_PROGRESS_THREAD_CPUS nor FI_PROGRESS_THREAD_NUMA is set;
	 * -1: the node of the calling thread. */
	int numa_node;
	/* Work budget handed to each poll(); 0: PL_PROGRESS_POLL_BUDGET. */
	unsigned poll_budget;
};

#define PL_PROGRESS_POLL_BUDGET 32

/*
 * Counters, for tests and benchmarks. Each is a relaxed atomic, so a
 * snapshot is not a consistent cut: a reader may see wakeups ahead of
 * sleeps by one.
 */
struct pl_progress_stats {
	uint64_t passes;	/* poll passes over all sources, any driver */
	uint64_t thread_passes;	/* ... of which by the progress thread */
	uint64_t app_polls_seen;	/* times the thread found that the
					 * application had polled (auto mode;
					 * at most one per thread iteration or
					 * nap, not one per poll) */
	uint64_t busy;		/* ... that found the token held */
	uint64_t errors;	/* negative returns of poll() */
	uint64_t arm_races;	/* arm() answered -FI_EAGAIN */
	uint64_t sleeps;	/* thread blocked with every source armed */
	uint64_t wakeups;	/* ... and came back */
	uint64_t kicks;		/* eventfd writes by pl_progress_ctx_kick */
	uint64_t backoffs;	/* thread naps because the application polled */
};

/* What open decided, for tests and logs. */
struct pl_progress_info {
	enum fi_progress data_progress;
	int uses_token;		/* 0 for FI_THREAD_DOMAIN (manual: none;
				 * auto: uses_asym) */
	int uses_asym;		/* auto FI_THREAD_DOMAIN: pl_progress_asym.h */
	int dead;		/* inherited through fork(): unusable */
	unsigned spin_us;	/* FI_PROGRESS_SPIN_US in effect */
	unsigned backoff_max_us;	/* FI_PROGRESS_BACKOFF_MAX_US */
	pid_t thread_tid;	/* progress thread, 0 when none */
};

/*
 * Open a context. data_progress: FI_PROGRESS_MANUAL (UNSPEC counts as
 * manual) or FI_PROGRESS_AUTO, which starts the thread before returning.
 * threading: any fi_threading value. attr may be NULL.
 * Returns 0, -FI_EINVAL, -FI_ENOMEM, or the -errno of a failed system
 * call. *ctx_p is set only on success.
 */
int pl_progress_ctx_open(enum fi_progress data_progress,
			 enum fi_threading threading,
			 const struct pl_progress_attr *attr,
			 struct pl_progress_ctx **ctx_p);

/*
 * Stop the thread (joined, unless the context was inherited through
 * fork(), where it does not exist), detach remaining sources, free.
 * No other call on ctx may run concurrently or follow.
 */
int pl_progress_ctx_close(struct pl_progress_ctx *ctx);

/*
 * An FI_THREAD_DOMAIN auto context excludes its thread without a lock
 * (uses_asym): a provider's data call that must not run beside the
 * thread's pass brackets itself with app_enter/app_leave instead of
 * taking a lock of its own. Application threads only; nests; enter may
 * wait for the thread to finish one pass. uses_asym is fixed at open.
 */
bool pl_progress_ctx_uses_asym(const struct pl_progress_ctx *ctx);
void pl_progress_ctx_app_enter(struct pl_progress_ctx *ctx);
void pl_progress_ctx_app_leave(struct pl_progress_ctx *ctx);

/*
 * One pass over every source if the token is free; returns at once
 * otherwise (never blocks, never waits). Called by the application's
 * progress-driving calls in both modes: in auto mode this is also how the
 * thread learns that the application is polling and backs off.
 * Returns the work done (>= 0; 0 when the token was busy) or, when no
 * source did work, the first negative error of a source;
 * -FI_EOPBADSTATE in a forked child.
 */
int pl_progress_ctx_poll(struct pl_progress_ctx *ctx);

/*
 * Tell the progress thread that work was published for one of its
 * sources. Call after the work is visible to that source's arm(). A no-op
 * (one fence and one load) unless the thread is asleep; a no-op without
 * a thread. Safe from any thread, including from inside poll().
 */
void pl_progress_ctx_kick(struct pl_progress_ctx *ctx);

/*
 * Register / unregister a source; safe while the thread runs and from
 * inside a poll() of the same context. Both wait for the token (they are
 * control-path calls). After remove returns, no thread of the engine
 * touches src again: the quiescence argument is in pl_progress_source.c.
 * add: 0, -FI_EINVAL, -FI_EALREADY, -FI_ENOMEM, -FI_EBUSY (fd already
 * registered), -FI_EOPBADSTATE (forked child), -errno of epoll_ctl.
 * remove: 0 or -FI_ENOENT (not registered here); 0 in a forked child.
 */
int pl_progress_source_add(struct pl_progress_ctx *ctx,
			   struct pl_progress_source *src);
int pl_progress_source_remove(struct pl_progress_ctx *ctx,
			      struct pl_progress_source *src);

/*
 * Wait until no pass that began before this call is still running: a
 * provider that unlinks an object from a structure its source's poll()
 * reads (a socket set, a list) calls this before freeing the object.
 * Control path only; returns at once when called from inside poll() of
 * this context (the caller's own pass is the only one), in a forked
 * child, or where the application serializes (manual FI_THREAD_DOMAIN).
 */
void pl_progress_ctx_sync(struct pl_progress_ctx *ctx);

/*
 * Race-free sleep for manual-progress wait objects (fi_trywait): arm
 * every source. 0: safe to block on pl_progress_ctx_wait_fd(); -FI_EAGAIN:
 * work is pending or another thread is polling, poll instead.
 */
int pl_progress_ctx_trywait(struct pl_progress_ctx *ctx);

/* An epoll descriptor over the sources' fds, readable when one is;
 * owned by the context. -FI_EOPBADSTATE in a forked child. */
int pl_progress_ctx_wait_fd(struct pl_progress_ctx *ctx);

void pl_progress_ctx_stats(const struct pl_progress_ctx *ctx,
			   struct pl_progress_stats *stats_p);
void pl_progress_ctx_info(const struct pl_progress_ctx *ctx,
			  struct pl_progress_info *info_p);

#endif /* PROPEL_PL_PROGRESS_H */
