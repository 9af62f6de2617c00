/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The auto-progress thread of a context: poll, spin, arm, sleep; and the
 * kick that wakes it.
 *
 * Loop: take the token, run one pass, give it back (FI_THREAD_DOMAIN:
 * take a lease on the asymmetric exclusion instead, pl_progress_asym.h,
 * and keep it across passes until the application wants in or the
 * thread naps or sleeps). While passes find
 * work, loop. Once they have found none for FI_PROGRESS_SPIN_US, try to
 * sleep (below). Whenever the application is seen polling, back off
 * instead of competing for the core (below). "Seen polling" means: the
 * application answered the thread's question, or the token was held by
 * someone else. The question is a flag, app.ask: the thread stores 1
 * ("have you polled since?") and every pl_progress_ctx_poll in auto
 * mode stores 0 if it reads 1. Polls that follow an answer only load it,
 * so a polling application pays one load per poll and one store per
 * nap of the thread, never a store per poll (a store per poll measured
 * ~2% of the shm 8 B ping-pong). No clock is read on the application's
 * side; the thread's own cadence is the clock, and polls made while it
 * slept in epoll do not count (they may be arbitrarily old).
 *
 * Synchronization table:
 *
 *                  | thread loop | kick | thread_stop
 *   thread loop    |   - (one)   | yes  |    yes
 *   kick           |    yes      | yes  |    no
 *   thread_stop    |    yes      | no   |    no
 *
 * thread_stop runs inside ctx_close, which no other call may overlap.
 *
 * Sleep/kick protocol, no lost wake-up (the event count of base's
 * pl_evcount.h, whose argument this instance repeats). The state word
 * thr.state is
 * RUNNING, SLEEPING or WAKING; only the thread stores RUNNING and
 * SLEEPING, a kicker only moves SLEEPING to WAKING.
 *
 *   thread (sleeper)                    kicker (producer)
 *   W1: state = SLEEPING                W2: publish work where the
 *   F1: seq_cst fence                       source's arm() looks
 *   R1: take token, arm() every         F2: seq_cst fence
 *       source: each re-reads its       R2: read state; if SLEEPING,
 *       pending work                        CAS it to WAKING and, if
 *   if nothing: epoll_wait                  the CAS won, write the eventfd
 *   state = RUNNING, drain eventfd
 *
 * F1 and F2 are seq_cst fences, so one precedes the other in the single
 * total order S (C11 7.17.4, the fence rule; Dekker's store-then-load on
 * both sides, which acquire/release alone would not order):
 *  - F2 before F1: W2 is sequenced before F2 and R1 after F1, so R1
 *    sees W2 (or later): arm() reports the work, the thread does not sleep.
 *  - F1 before F2: R2 sees W1 or a later store to state. W1 itself:
 *    SLEEPING, the kicker wakes the thread. WAKING: another kicker's CAS
 *    won after W1 and that kicker writes the eventfd, which is
 *    level-triggered, so the sleep ends (or never starts). RUNNING: only
 *    the thread stores it after W1, when this sleep attempt has already
 *    ended (aborted or woken); it polls again and any later sleep attempt
 *    repeats W1/F1/R1, to which the same two cases apply.
 * So the thread never stays blocked while work published before a kick
 * is pending: it either does not sleep on it or is woken after it, and
 * polls. (A stale eventfd count left by a CAS winner of an aborted
 * attempt only makes the next epoll_wait return at once.) What the eventfd and epoll carry between threads
 * is ordered by the system calls themselves (the kernel takes the
 * eventfd's wait-queue lock on write and read), not by the C11 model.
 * The CAS only coalesces: of many kickers racing on one sleep, one pays
 * the write(2).
 *
 * Back-off (DESIGN.md section 3, two cores and one core per rank): while
 * the application polls, the thread naps instead, in ppoll() on the
 * eventfd alone (not the sources: a level-triggered readable socket that
 * the application is about to drain would turn the nap into a spin),
 * first PL_PROGRESS_BACKOFF_MIN_US, doubling up to FI_PROGRESS_BACKOFF_
 * MAX_US while the application keeps polling. It resumes as soon as one
 * whole nap passes without an application poll, so auto progress comes
 * back within about two naps of the application going off to compute.
 * State stays RUNNING during a nap: kickers do not pay a write(2) while
 * the application itself is polling, and the nap bounds the delay of
 * anything they published.
 *
 * What a nap costs is its end: the thread runs on the application's core
 * (it inherits a one-core binding), so each end takes the core from the
 * application, and a timer interrupt of its own is the dearest part of
 * it in a VM. Measured on the 2-vCPU development VM (HZ=250): a process
 * that merely wakes every 1 ms on each core slows the shm 8 B ping-pong
 * by ~17%; with 3 ms of timer slack, so that the wake-up rides the
 * scheduler tick, by ~5%. Hence the thread's timer slack is set to the
 * nap's own length (a nap of d ends between d and 2d: the kernel folds it
 * into an interrupt it takes anyway), and the cap is a parameter.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_evcount.h"
#include "pl_log.h"
#include "pl_progress_int.h"

static uint64_t pl_progress_thread_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pl_progress_thread_drain(struct pl_progress_ctx *ctx)
{
	uint64_t cnt;

	/* Non-blocking: EAGAIN when nobody wrote. */
	while (read(ctx->thr.kick_fd, &cnt, sizeof(cnt)) < 0 &&
	       errno == EINTR)
		;
}

static bool pl_progress_thread_stopping(struct pl_progress_ctx *ctx)
{
	/* Acquire: pairs with the release store in thread_stop. */
	return pl_load_acquire(&ctx->thr.stop) != 0;
}

/* The thread's hold on the sources: the token, taken and given back
 * around each pass; or a lease on the asymmetric exclusion, kept across
 * passes while the application stays out (one membarrier per lease, not
 * per pass) and given back as soon as it wants in. */
static bool pl_progress_thread_hold(struct pl_progress_ctx *ctx, bool *lease)
{
	if (!ctx->uses_asym)
		return pl_progress_token_trylock(&ctx->tok);
	if (*lease && pl_progress_asym_app_wants(&ctx->asym)) {
		pl_progress_asym_thread_give(&ctx->asym);
		*lease = false;
		return false;
	}
	if (!*lease)
		*lease = pl_progress_asym_thread_take(&ctx->asym);
	return *lease;
}

/* After a pass: the token goes back, a lease stays. */
static void pl_progress_thread_unhold(struct pl_progress_ctx *ctx)
{
	if (!ctx->uses_asym)
		pl_progress_token_unlock(&ctx->tok);
}

/* Before anything that blocks (a nap, a sleep, the exit): the lease
 * goes back, or the application would wait for a thread that sleeps. */
static void pl_progress_thread_let_go(struct pl_progress_ctx *ctx, bool *lease)
{
	if (*lease) {
		pl_progress_asym_thread_give(&ctx->asym);
		*lease = false;
	}
}

/* One nap of `us` microseconds (up to twice that: the timer slack, see
 * the file comment), cut short by stop or a stray kick. *slack_us: the
 * slack in effect, changed (one prctl) only when the length changes. */
static void pl_progress_thread_nap(struct pl_progress_ctx *ctx, unsigned us,
				   unsigned *slack_us)
{
	struct pollfd pfd = { .fd = ctx->thr.kick_fd, .events = POLLIN };
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	/* Failure only costs precision: the nap ends on time instead. */
	if (*slack_us != us &&
	    !prctl(PR_SET_TIMERSLACK, (unsigned long)us * 1000ul, 0, 0, 0))
		*slack_us = us;
	if (ppoll(&pfd, 1, &ts, NULL) > 0)
		pl_progress_thread_drain(ctx);
}

/* Ask the application whether it polls (app.ask = 1). Relaxed: a hint
 * that orders nothing (what was polled is under the token); stored only
 * when the flag changes, so that a thread that keeps asking does not
 * take the line from the application's core. */
static void pl_progress_thread_ask(struct pl_progress_ctx *ctx)
{
	if (!pl_load_relaxed(&ctx->app.ask))
		pl_store_relaxed(&ctx->app.ask, 1);
}

/* Did the application poll since the last ask? Relaxed, as ask. Counts
 * each answer found (stats: app_polls_seen). */
static bool pl_progress_thread_answered(struct pl_progress_ctx *ctx)
{
	if (pl_load_relaxed(&ctx->app.ask))
		return false;
	pl_progress_count(&ctx->st.app_seen);
	return true;
}

/* Stay out of the application's way while it polls. */
static void pl_progress_thread_backoff(struct pl_progress_ctx *ctx,
				       unsigned *slack_us)
{
	unsigned us = PL_PROGRESS_BACKOFF_MIN_US;

	for (;;) {
		pl_progress_thread_ask(ctx);
		pl_progress_count(&ctx->st.backoffs);
		pl_progress_thread_nap(ctx, us, slack_us);
		if (pl_progress_thread_stopping(ctx))
			return;
		if (!pl_progress_thread_answered(ctx))
			return;
		us = PL_MIN(us * 2, ctx->backoff_max_us);
	}
}

/* W1/F1/R1 of the protocol, then the blocking wait. */
static void pl_progress_thread_sleep(struct pl_progress_ctx *ctx, bool *lease)
{
	struct epoll_event evs[8];
	int ret;

	/* W1 (relaxed), F1 (pairs with F2 in pl_progress_thread_kick):
	 * pl_evcount.h's P1, P2 */
	pl_evcount_prepare(&ctx->thr.state, PL_PROGRESS_SLEEPING);

	/* R1: arm() under the token (or the lease). Busy: someone else
	 * polls, the caller's next round backs off. */
	if (!pl_progress_thread_hold(ctx, lease))
		goto abort;
	ret = pl_progress_source_arm_all(ctx);
	pl_progress_thread_unhold(ctx);
	pl_progress_thread_let_go(ctx, lease);
	if (ret)
		goto abort;
	/* Stop needs no fence here: close writes the eventfd after
	 * setting it, and the eventfd is level-triggered. */
	if (pl_progress_thread_stopping(ctx))
		goto abort;

	pl_progress_count(&ctx->st.sleeps);
	do {
		ret = epoll_wait(ctx->epfd, evs, PL_ARRAY_SIZE(evs), -1);
	} while (ret < 0 && errno == EINTR);
	/* The events only say "look": the pass that follows polls every
	 * source, so they are not inspected (and carry no pointer). */
	pl_progress_count(&ctx->st.wakeups);
abort:
	pl_progress_thread_let_go(ctx, lease);
	/* Relaxed (pl_evcount_cancel, RUNNING is 0): only the thread's
	 * own next W1/F1 matter to kickers. */
	pl_evcount_cancel(&ctx->thr.state);
	pl_progress_thread_drain(ctx);
}

static void *pl_progress_thread_main(void *arg)
{
	struct pl_progress_ctx *ctx = arg;
	uint64_t spin_ns = (uint64_t)ctx->spin_us * 1000, idle_since = 0;
	unsigned slack_us = 0;
	bool lease = false;
	uint64_t now;
	int work;

	/* So that perf and top name it; failure is cosmetic. */
	(void)pthread_setname_np(pthread_self(), "fi_progress");
	/* Relaxed: ready (a semaphore) orders it for the opener. */
	pl_store_relaxed(&ctx->thr.tid, (int)gettid());
	sem_post(&ctx->thr.ready);

	pl_progress_thread_ask(ctx);
	while (!pl_progress_thread_stopping(ctx)) {
		if (pl_progress_thread_answered(ctx) ||
		    !pl_progress_thread_hold(ctx, &lease)) {
			pl_progress_thread_let_go(ctx, &lease);
			pl_progress_thread_backoff(ctx, &slack_us);
			idle_since = 0;
			continue;
		}
		work = pl_progress_source_pass(ctx);
		pl_progress_thread_unhold(ctx);
		pl_progress_count(&ctx->st.thread_passes);

		if (work > 0) {
			idle_since = 0;
			continue;
		}
		now = pl_progress_thread_now_ns();
		if (!idle_since)
			idle_since = now;
		if (now - idle_since < spin_ns) {
			pl_cpu_relax();
			continue;
		}
		pl_progress_thread_sleep(ctx, &lease);
		idle_since = 0;
		/* Polls made while we slept are old news: one poll long
		 * ago must not delay the event that woke us by a nap. An
		 * application that is still polling shows up again within
		 * one iteration (or holds the token). */
		pl_progress_thread_ask(ctx);
	}
	pl_progress_thread_let_go(ctx, &lease);
	return NULL;
}

void pl_progress_thread_kick(struct pl_progress_ctx *ctx)
{
	uint64_t one = 1;

	/* F2 (pairs with F1 in pl_progress_thread_sleep; orders the
	 * caller's W2, its published work, before R2), R2 and the CAS
	 * that only coalesces (see the protocol): pl_evcount.h's N1, N2.
	 * The winner writes. */
	if (!pl_evcount_notify(&ctx->thr.state, PL_PROGRESS_SLEEPING,
			       PL_PROGRESS_WAKING))
		return;
	/* Relaxed: a statistic, many writers. */
	pl_fetch_add_relaxed(&ctx->st.kicks, 1);
	while (write(ctx->thr.kick_fd, &one, sizeof(one)) < 0 &&
	       errno == EINTR)
		;
}

int pl_progress_thread_start(struct pl_progress_ctx *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0 };
	sigset_t all, old;
	pthread_attr_t attr;
	int ret;

	ctx->thr.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ctx->thr.kick_fd < 0)
		return -errno;
	if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->thr.kick_fd, &ev)) {
		ret = -errno;
		goto err_close_kick;
	}
	if (sem_init(&ctx->thr.ready, 0, 0)) {
		ret = -errno;
		goto err_close_kick;
	}
	ret = pthread_attr_init(&attr);
	if (ret) {
		ret = -ret;
		goto err_sem;
	}
	if (ctx->thr.pin)
		(void)pthread_attr_setaffinity_np(&attr, sizeof(ctx->thr.cpus),
						  &ctx->thr.cpus);

	/* Asynchronous signals belong to the application's threads: the
	 * new thread inherits a fully blocked mask. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&ctx->thr.handle, &attr, pl_progress_thread_main,
			     ctx);
	if (ret == EINVAL && ctx->thr.pin) {
		/* The affinity names no CPU this process may use. */
		PL_WARN(FI_LOG_CORE, "progress thread: the CPUs chosen "
			"(FI_PROGRESS_THREAD_CPUS, FI_PROGRESS_THREAD_NUMA or "
			"the NUMA default) are not usable here; running "
			"unpinned\n");
		ctx->thr.pin = false;
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		ret = pthread_create(&ctx->thr.handle, &attr,
				     pl_progress_thread_main, ctx);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ret) {
		ret = -ret;
		goto err_sem;
	}
	while (sem_wait(&ctx->thr.ready) && errno == EINTR)
		;
	ctx->thr.started = true;
	return 0;

err_sem:
	sem_destroy(&ctx->thr.ready);
err_close_kick:
	close(ctx->thr.kick_fd);
	ctx->thr.kick_fd = -1;
	return ret;
}

void pl_progress_thread_stop(struct pl_progress_ctx *ctx)
{
	uint64_t one = 1;

	if (!ctx->thr.started)
		return;
	/* Release: pairs with the acquire in thread_stopping. */
	pl_store_release(&ctx->thr.stop, 1);
	/* Unconditional (not a kick): whatever the state, the thread is
	 * either before its stop check or will find the eventfd readable. */
	while (write(ctx->thr.kick_fd, &one, sizeof(one)) < 0 &&
	       errno == EINTR)
		;
	pthread_join(ctx->thr.handle, NULL);
	ctx->thr.started = false;
	sem_destroy(&ctx->thr.ready);
	close(ctx->thr.kick_fd);
	ctx->thr.kick_fd = -1;
}
