/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_WAITABLE_H
#define PL_WAITABLE_H
/*
 * The wait object every CQ, EQ and counter embeds (contracts item 1).
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
 * Synchronization table:
 *   field        writer                     reader          protection
 *   kind,fd,ctx  init/fini only             any             immutable
 *   seq          signal/interrupt           wait            lock
 *   intr         interrupt / wait           wait            lock
 *   eventfd ctr  signal (write), trywait    epoll (app)     kernel
 *                (drain)
 * No atomics are used: every shared field is under `lock`.
 */
#include <stdbool.h>
#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

struct pl_progress_ctx;
struct pl_waitable;
typedef bool (*pl_waitable_ready_fn)(struct pl_waitable *w);

struct pl_waitable {
	enum fi_wait_obj kind;		/* immutable after init */
	int fd;				/* eventfd or -1; immutable */
	struct fid_wait *wait_set;	/* FI_WAIT_SET only; immutable */
	struct pl_progress_ctx *ctx;	/* may be NULL; immutable */
	pl_waitable_ready_fn ready;	/* immutable */
	pthread_mutex_t lock;		/* protects seq, intr */
	pthread_cond_t cond;
	uint64_t seq;			/* under lock */
	bool intr;			/* under lock */
};

int pl_waitable_init(struct pl_waitable *w, enum fi_wait_obj kind,
		     struct fid_wait *wait_set, struct pl_progress_ctx *ctx,
		     pl_waitable_ready_fn ready);
void pl_waitable_fini(struct pl_waitable *w);
void pl_waitable_signal(struct pl_waitable *w);
int pl_waitable_wait(struct pl_waitable *w, int timeout_ms);
void pl_waitable_interrupt(struct pl_waitable *w);
int pl_waitable_trywait(struct pl_waitable *w);
int pl_waitable_control(struct pl_waitable *w, int command, void *arg);
enum fi_wait_obj pl_waitable_kind(const struct pl_waitable *w);

#endif
