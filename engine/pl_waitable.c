/* SPDX-License-Identifier: BSD-2-Clause */
#include "pl_waitable.h"
#include "pl_progress.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

static bool pl_waitable_has_fd(enum fi_wait_obj k)
{
	return k == FI_WAIT_FD || k == FI_WAIT_POLLFD;
}

int pl_waitable_init(struct pl_waitable *w, enum fi_wait_obj kind,
		     struct fid_wait *wait_set, struct pl_progress_ctx *ctx,
		     pl_waitable_ready_fn ready)
{
	pthread_condattr_t ca;

	if (!w || !ready)
		return -FI_EINVAL;
	if (kind == FI_WAIT_UNSPEC)
		kind = FI_WAIT_FD;
	switch (kind) {
	case FI_WAIT_NONE: case FI_WAIT_FD: case FI_WAIT_POLLFD:
	case FI_WAIT_MUTEX_COND: case FI_WAIT_YIELD:
		if (wait_set)
			return -FI_EINVAL;
		break;
	case FI_WAIT_SET:
		if (!wait_set)
			return -FI_EINVAL;
		break;
	default:
		return -FI_EINVAL;
	}
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->wait_set = wait_set;
	w->ctx = ctx;
	w->ready = ready;
	w->fd = -1;
	if (pl_waitable_has_fd(kind)) {
		w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (w->fd < 0)
			return -FI_ENOMEM;
	}
	pthread_mutex_init(&w->lock, NULL);
	/* CLOCK_MONOTONIC: timeouts must not move with wall-clock changes */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

void pl_waitable_fini(struct pl_waitable *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

static void pl_waitable_fd_arm(struct pl_waitable *w)
{
	uint64_t one = 1;

	if (w->fd >= 0 && write(w->fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: counter saturated, the fd is readable anyway */
	}
}

void pl_waitable_signal(struct pl_waitable *w)
{
	if (w->kind == FI_WAIT_NONE)
		return;
	pthread_mutex_lock(&w->lock);
	w->seq++;
	pl_waitable_fd_arm(w);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void pl_waitable_interrupt(struct pl_waitable *w)
{
	pthread_mutex_lock(&w->lock);
	w->intr = true;
	w->seq++;
	pl_waitable_fd_arm(w);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static int64_t pl_waitable_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int pl_waitable_wait(struct pl_waitable *w, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? INT64_MAX :
		pl_waitable_now_ns() + (int64_t)timeout_ms * 1000000;
	struct timespec ts;
	int64_t now, until;
	uint64_t seq;
	int ret = 0;

	if (w->kind == FI_WAIT_NONE)
		return -FI_ENOSYS;
	for (;;) {
		if (w->ctx)
			pl_progress_ctx_poll(w->ctx);
		pthread_mutex_lock(&w->lock);
		if (w->intr) {
			w->intr = false;
			ret = -FI_EINTR;
			goto out;
		}
		seq = w->seq;
		pthread_mutex_unlock(&w->lock);
		/* ready() is checked after reading seq: a signal after the
		 * check changes seq and ends the sleep below */
		if (w->ready(w))
			return 0;
		now = pl_waitable_now_ns();
		if (now >= deadline)
			return -FI_EAGAIN;
		if (w->kind == FI_WAIT_YIELD) {
			sched_yield();
			continue;
		}
		until = deadline;
		/* manual progress: sleep in slices so that polling ctx
		 * keeps the data moving */
		if (w->ctx && until - now > 1000000)
			until = now + 1000000;
		ts.tv_sec = until / 1000000000;
		ts.tv_nsec = until % 1000000000;
		pthread_mutex_lock(&w->lock);
		while (w->seq == seq && !w->intr) {
			if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) ==
			    ETIMEDOUT)
				break;
		}
		pthread_mutex_unlock(&w->lock);
	}
out:
	pthread_mutex_unlock(&w->lock);
	return ret;
}

int pl_waitable_trywait(struct pl_waitable *w)
{
	uint64_t v;

	if (w->ctx && pl_progress_ctx_trywait(w->ctx))
		return -FI_EAGAIN;
	if (w->fd >= 0) {
		/* drain first, then re-check: a producer after the check
		 * re-arms the fd after our drain */
		while (read(w->fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			;
	}
	if (w->ready(w)) {
		pl_waitable_fd_arm(w);
		return -FI_EAGAIN;
	}
	return 0;
}

int pl_waitable_control(struct pl_waitable *w, int command, void *arg)
{
	struct fi_wait_pollfd *pfd;
	struct fi_mutex_cond *mc;

	if (command != FI_GETWAIT && command != FI_GETWAITOBJ)
		return -FI_ENOSYS;
	if (w->kind == FI_WAIT_NONE || !arg)
		return -FI_EINVAL;
	if (command == FI_GETWAITOBJ) {
		*(enum fi_wait_obj *)arg = w->kind;
		return 0;
	}
	switch (w->kind) {
	case FI_WAIT_FD:
		*(int *)arg = w->fd;
		return 0;
	case FI_WAIT_POLLFD:
		pfd = arg;
		if (pfd->nfds < 1) {
			pfd->nfds = 1;
			return -FI_ETOOSMALL;
		}
		pfd->change_index = 1;	/* the set never changes */
		pfd->nfds = 1;
		pfd->fd[0].fd = w->fd;
		pfd->fd[0].events = POLLIN;
		pfd->fd[0].revents = 0;
		return 0;
	case FI_WAIT_MUTEX_COND:
		mc = arg;
		mc->mutex = &w->lock;
		mc->cond = &w->cond;
		return 0;
	case FI_WAIT_SET:
		*(struct fid_wait **)arg = w->wait_set;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

enum fi_wait_obj pl_waitable_kind(const struct pl_waitable *w)
{
	return w->kind;
}
