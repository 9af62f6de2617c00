/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The context as the files of progress/ share it. Not seen above this
 * layer: pl_progress.h is the interface.
 *
 * Who protects what (per field group, UCX habit):
 *   tok                 the token itself (pl_progress_token.h)
 *   asym                its own protocol (pl_progress_asym.h)
 *   srcs, nsrcs, cap    the token; with FI_THREAD_DOMAIN manual, the
 *                       application's serialization instead; with
 *                       FI_THREAD_DOMAIN auto, the asymmetric exclusion
 *   ops, mode fields    written once at open (and by the fork child
 *                       handler, single-threaded); read-only otherwise
 *   app.ask             relaxed atomic: the thread stores 1, application
 *                       pollers store 0 (pl_progress_thread.c)
 *   app.busy            relaxed atomic counter, application pollers
 *   thr.state           the sleep/kick protocol (pl_progress_thread.c)
 *   thr.stop            set once by close
 *   st.*                relaxed counters (pl_progress_ctx.c)
 *   reg_prev, reg_next  the fork registry lock (pl_progress_fork.c)
 *
 * Lock order: fork registry lock, then the token. Nothing is called in
 * another layer with either held, except poll()/arm() under the token,
 * which by contract take no lock that waits for the token.
 */
#ifndef PROPEL_PL_PROGRESS_INT_H
#define PROPEL_PL_PROGRESS_INT_H

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_progress.h"
#include "pl_progress_asym.h"
#include "pl_progress_token.h"

/* Back-off naps of the thread while the application polls: the first
 * one; the longest is FI_PROGRESS_BACKOFF_MAX_US (ctx->backoff_max_us). */
#define PL_PROGRESS_BACKOFF_MIN_US	50

/* The strategy, chosen once at open (and swapped in a fork child). */
struct pl_progress_ops {
	int (*poll)(struct pl_progress_ctx *ctx);
	void (*kick)(struct pl_progress_ctx *ctx);
};

/* Thread states; see the protocol in pl_progress_thread.c. */
enum {
	PL_PROGRESS_RUNNING = 0,	/* 0: pl_evcount_cancel stores it */
	PL_PROGRESS_SLEEPING = 1,	/* armed, in or about to enter epoll */
	PL_PROGRESS_WAKING = 2,		/* a kicker owns the eventfd write */
};

struct pl_progress_thread {
	pl_atomic_u32 state;		/* pl_evcount.h word */
	int kick_fd;			/* eventfd, -1 without a thread */
	pl_atomic_int stop;
	pl_atomic_int tid;		/* published by the thread at start */
	pthread_t handle;
	bool started;
	bool pin;			/* cpus holds the affinity to apply */
	cpu_set_t cpus;
	sem_t ready;
};

struct pl_progress_ctx {
	/* Line 0: touched by every successful poll. */
	struct pl_progress_token tok PL_CACHE_ALIGNED;
	pl_atomic_u64 passes;		/* single writer: the token holder */
	pl_atomic_u64 errors;		/* single writer: the token holder */
	pl_atomic_u64 arm_races;	/* single writer: the token holder */

	/* Line 1: read by every application poll in auto mode; written by
	 * one of them per thread nap (ask), or when the token is busy. */
	struct {
		pl_atomic_int ask;	/* the thread's question, see above */
		pl_atomic_u64 busy;	/* exact (fetch_add) */
	} app PL_CACHE_ALIGNED;

	/* FI_THREAD_DOMAIN auto: instead of the token (own lines). */
	struct pl_progress_asym asym;

	/* Line 2: the sleep/kick word, read by every kick. */
	struct pl_progress_thread thr PL_CACHE_ALIGNED;

	/* Thread-only counters (single writer: the progress thread). */
	struct {
		pl_atomic_u64 thread_passes;
		pl_atomic_u64 sleeps;
		pl_atomic_u64 wakeups;
		pl_atomic_u64 backoffs;
		pl_atomic_u64 app_seen;	/* asks the application answered */
		pl_atomic_u64 kicks;	/* many writers: fetch_add */
	} st PL_CACHE_ALIGNED;

	/* Read-only after open. */
	struct pl_progress_ops ops;
	enum fi_progress data_progress;
	bool uses_token;
	bool uses_asym;			/* asym instead of tok (auto only) */
	bool dead;			/* inherited through fork() */
	unsigned budget;
	unsigned spin_us;
	unsigned backoff_max_us;
	int epfd;

	/* Under the token (see the table above). */
	struct pl_progress_source **srcs;
	unsigned nsrcs;
	unsigned cap;

	/* Under the fork registry lock. */
	struct pl_progress_ctx *reg_prev;
	struct pl_progress_ctx *reg_next;
};

/* Counters with one writer need no read-modify-write. */
static inline void pl_progress_count(pl_atomic_u64 *c)
{
	/* Relaxed: a statistic; single writer (see the field comment). */
	pl_store_relaxed(c, pl_load_relaxed(c) + 1);
}

/* pl_progress_source.c: need the token (or serialization) held. */
int pl_progress_source_pass(struct pl_progress_ctx *ctx);
int pl_progress_source_arm_all(struct pl_progress_ctx *ctx);
void pl_progress_source_detach_all(struct pl_progress_ctx *ctx);

/* pl_progress_thread.c */
int pl_progress_thread_start(struct pl_progress_ctx *ctx);
void pl_progress_thread_stop(struct pl_progress_ctx *ctx);
void pl_progress_thread_kick(struct pl_progress_ctx *ctx);

/* pl_progress_pin.c */
int pl_progress_pin_parse_cpus(const char *text, cpu_set_t *set_p);
bool pl_progress_pin_choose(int hint_node, cpu_set_t *set_p);

/* pl_progress_param.c: read once per process. */
struct pl_progress_param {
	unsigned spin_us;
	unsigned backoff_max_us;	/* FI_PROGRESS_BACKOFF_MAX_US */
	bool asym;			/* FI_PROGRESS_ASYM */
	bool have_cpus;
	cpu_set_t cpus;			/* FI_PROGRESS_THREAD_CPUS */
	int numa_node;			/* FI_PROGRESS_THREAD_NUMA, or -1 */
	const char *cpus_text;		/* for messages */
};
const struct pl_progress_param *pl_progress_param_get(void);

/* pl_progress_fork.c */
void pl_progress_fork_register(struct pl_progress_ctx *ctx);
void pl_progress_fork_unregister(struct pl_progress_ctx *ctx);

/* pl_progress_ctx.c: the strategy a forked child gets. */
extern const struct pl_progress_ops pl_progress_ops_dead;

#endif /* PROPEL_PL_PROGRESS_INT_H */
