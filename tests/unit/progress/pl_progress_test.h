/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test sources for the progress engine, shared by its unit tests.
 *
 * An efd source is driven by an eventfd that any thread writes to
 * (pending work = the eventfd's counter; its fd is what the engine sleeps
 * on). A kick source has no fd: producers add to `pending`, then call
 * pl_progress_ctx_kick, which is the path the sleep/kick protocol guards.
 * Both count what they consumed in `done`, and flag two things the
 * engine promises never to do: enter poll() of one source from two
 * threads at once (`overlaps`), and poll a source after its removal
 * returned (`violations`, once the test has cleared `alive`).
 */
#ifndef PROPEL_TESTS_PL_PROGRESS_TEST_H
#define PROPEL_TESTS_PL_PROGRESS_TEST_H

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_progress.h"

struct pt_src {
	struct pl_progress_source src;
	int efd;
	pl_atomic_u64 pending;	/* kick source: published work */
	pl_atomic_u64 done;	/* work consumed by poll() */
	pl_atomic_u64 polls;	/* poll() calls */
	pl_atomic_int alive;	/* cleared by the test after removal */
	pl_atomic_int violations;
	pl_atomic_int inside;
	pl_atomic_int overlaps;
	int busy;		/* report one unit of work on every poll */
	unsigned linger;	/* iterations to stay inside poll() */
};

static inline uint64_t pt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void pt_enter(struct pt_src *s)
{
	unsigned i;

	/* Relaxed: detectors; TSan sees the engine's own ordering. */
	if (!pl_load_relaxed(&s->alive))
		pl_fetch_add_relaxed(&s->violations, 1);
	if (pl_fetch_add_acq_rel(&s->inside, 1) != 0)
		pl_fetch_add_relaxed(&s->overlaps, 1);
	for (i = 0; i < s->linger; i++)
		pl_cpu_relax();
	pl_fetch_add_relaxed(&s->polls, 1);
}

static inline void pt_leave(struct pt_src *s)
{
	pl_fetch_sub_acq_rel(&s->inside, 1);
}

static inline int pt_efd_poll(struct pl_progress_source *src, unsigned budget)
{
	struct pt_src *s = (struct pt_src *)src;
	uint64_t n = 0;
	int ret = 0;

	pt_enter(s);
	if (read(s->efd, &n, sizeof(n)) == (ssize_t)sizeof(n)) {
		/* Release: pairs with the acquire in pt_wait_done. */
		pl_fetch_add_acq_rel(&s->done, n);
		ret = (int)n;
	}
	if (s->busy)
		ret++;
	pt_leave(s);
	return ret;
}

static inline int pt_efd_arm(struct pl_progress_source *src)
{
	struct pt_src *s = (struct pt_src *)src;
	struct pollfd pfd = { .fd = s->efd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0 ? -FI_EAGAIN : 0;
}

static inline int pt_kick_poll(struct pl_progress_source *src, unsigned budget)
{
	struct pt_src *s = (struct pt_src *)src;
	uint64_t n;

	pt_enter(s);
	n = pl_exchange_acq_rel(&s->pending, 0);
	if (n)
		pl_fetch_add_acq_rel(&s->done, n);
	pt_leave(s);
	return (int)n + (s->busy ? 1 : 0);
}

static inline int pt_kick_arm(struct pl_progress_source *src)
{
	struct pt_src *s = (struct pt_src *)src;

	/* R1 of the protocol: runs after the engine's fence F1. */
	return pl_load_acquire(&s->pending) ? -FI_EAGAIN : 0;
}

static inline void pt_src_init_efd(struct pt_src *s)
{
	memset(s, 0, sizeof(*s));
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	s->src.poll = pt_efd_poll;
	s->src.arm = pt_efd_arm;
	s->src.fd = s->efd;
	s->src.name = "test-efd";
	pl_store_relaxed(&s->alive, 1);
}

static inline void pt_src_init_kick(struct pt_src *s)
{
	memset(s, 0, sizeof(*s));
	s->efd = -1;
	s->src.poll = pt_kick_poll;
	s->src.arm = pt_kick_arm;
	s->src.fd = -1;
	s->src.name = "test-kick";
	pl_store_relaxed(&s->alive, 1);
}

static inline void pt_src_fini(struct pt_src *s)
{
	if (s->efd >= 0)
		close(s->efd);
	s->efd = -1;
}

/* Produce n units on an efd source (from any thread). */
static inline void pt_efd_produce(struct pt_src *s, uint64_t n)
{
	while (write(s->efd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
}

/* Produce n units on a kick source: W2, then the kick (F2, R2). */
static inline void pt_kick_produce(struct pl_progress_ctx *ctx,
				   struct pt_src *s, uint64_t n)
{
	pl_fetch_add_acq_rel(&s->pending, n);
	pl_progress_ctx_kick(ctx);
}

/*
 * Wait, without polling, until `done` reaches target. A watchdog, not a
 * timing assertion: seconds is far above any expected latency and only
 * turns a lost wake-up into a failure instead of a hang.
 */
static inline bool pt_wait_done(struct pt_src *s, uint64_t target,
				double seconds)
{
	uint64_t deadline = pt_now_ns() + (uint64_t)(seconds * 1e9);
	unsigned spins = 0;

	/* Acquire: pairs with the release in poll(). */
	while (pl_load_acquire(&s->done) < target) {
		if (pt_now_ns() > deadline)
			return false;
		if (++spins < 1000)
			pl_cpu_relax();
		else
			sched_yield();
	}
	return true;
}

static inline void pt_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Watchdog for the sanitizer builds too, which run several times slower. */
#define PT_WATCHDOG_S 30.0

#endif /* PROPEL_TESTS_PL_PROGRESS_TEST_H */
