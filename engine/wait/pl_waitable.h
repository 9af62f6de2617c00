/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_WAITABLE_H
#define PL_WAITABLE_H
/*
 * The wait object every CQ, EQ and counter embeds (DESIGN.md section 4).
 *
 * Sleep/wake protocol: the producer publishes its entry (release, in the
 * owning object) and then calls pl_waitable_signal(), which takes `lock`,
 * bumps `seq`, writes the eventfd (FD/POLLFD/UNSPEC) and broadcasts `cond`.
 * A waiter re-checks ready() under `lock` before sleeping and sleeps only
 * while `seq` is unchanged, so a signal between check and sleep is never
 * lost. fi_trywait: drain the eventfd, then re-check ready(); if something
 * is ready the eventfd is re-armed and -FI_EAGAIN returned, so an epoll on
 * the fd after a 0 return cannot miss an entry published after the check
 * (that producer's signal writes the fd after our drain), and a stale
 * signal is consumed by the drain (no spinning).
 *
 * Manual progress (ctx != NULL) with FI_WAIT_FD: the native object that
 * FI_GETWAIT hands out is `epfd`, an epoll set over the eventfd and the
 * context's wait fd (pl_progress_ctx_wait_fd), so that data arriving for
 * a source (armed by trywait) wakes a thread blocked on it; with
 * FI_WAIT_POLLFD both fds are listed.
 *
 * Wait sets (FI_WAIT_SET): init registers w with the set (pl_wait_set.h)
 * and fini unregisters it; signal also signals the set. The set calls
 * ready() only once w is live (`set_live`): after its first signal, or
 * after pl_waitable_publish, which an owner whose signals depend on
 * ready() having been called (a CQ that signals only when armed) calls
 * once it is fully constructed. So an owner may finish constructing what
 * ready() reads after init; the owner must call fini before it releases
 * what ready() reads, and ready() must not block.
 *
 * Synchronization table:
 *   field        writer                     reader          protection
 *   kind,fd,ctx,
 *   epfd,wait_set init/fini only            any             immutable
 *   set_live     signal or publish          wait set        acquire load
 *                (0 -> 1, release)
 *   seq          signal/interrupt           wait            lock
 *   intr         interrupt / wait           wait            lock
 *   eventfd ctr  signal (write), trywait    epoll (app)     kernel
 *                (drain)
 * The only atomic is set_live; every other shared field is under `lock`.
 */
#include <stdbool.h>
#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#include "pl_atomic.h"

struct pl_progress_ctx;
struct pl_waitable;
typedef bool (*pl_waitable_ready_fn)(struct pl_waitable *w);

struct pl_waitable {
	enum fi_wait_obj kind;		/* immutable after init */
	int fd;				/* eventfd or -1; immutable */
	int epfd;			/* FD + ctx: epoll(fd, ctx fd); or -1 */
	struct fid_wait *wait_set;	/* FI_WAIT_SET only; immutable */
	struct pl_progress_ctx *ctx;	/* may be NULL; immutable */
	pl_waitable_ready_fn ready;	/* immutable */
	pthread_mutex_t lock;		/* protects seq, intr */
	pthread_cond_t cond;
	uint64_t seq;			/* under lock */
	bool intr;			/* under lock */
	pl_atomic_int set_live;		/* FI_WAIT_SET: signalled once */
};

/* A condition for pl_waitable_wait_until; must not block. */
typedef bool (*pl_waitable_pred_fn)(struct pl_waitable *w, void *arg);

int pl_waitable_init(struct pl_waitable *w, enum fi_wait_obj kind,
		     struct fid_wait *wait_set, struct pl_progress_ctx *ctx,
		     pl_waitable_ready_fn ready);
void pl_waitable_fini(struct pl_waitable *w);
void pl_waitable_signal(struct pl_waitable *w);
/* FI_WAIT_SET: let the set call ready() from now on (see above); the
 * owner's construction happens before. No-op for other kinds. */
void pl_waitable_publish(struct pl_waitable *w);
/* Block until ready(w), an interrupt (-FI_EINTR) or the timeout
 * (-FI_EAGAIN; < 0: none). -FI_ENOSYS for FI_WAIT_NONE. Drives ctx. */
int pl_waitable_wait(struct pl_waitable *w, int timeout_ms);
/* The same with the caller's condition instead of ready() (a counter
 * waiting for its threshold). */
int pl_waitable_wait_until(struct pl_waitable *w, int timeout_ms,
			   pl_waitable_pred_fn pred, void *arg);
void pl_waitable_interrupt(struct pl_waitable *w);
int pl_waitable_trywait(struct pl_waitable *w);
int pl_waitable_control(struct pl_waitable *w, int command, void *arg);
enum fi_wait_obj pl_waitable_kind(const struct pl_waitable *w);

#endif
