/* SPDX-License-Identifier: BSD-2-Clause */
#include "pl_waitable.h"
#include "pl_progress.h"
#include "pl_wait_set.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

static bool pl_waitable_has_fd(enum fi_wait_obj k)
{
	return k == FI_WAIT_FD || k == FI_WAIT_POLLFD;
}

/* FD with manual progress: one epoll set over our eventfd and the
 * context's wait fd, the native object a thread blocks on after trywait */
static int pl_waitable_epoll_open(struct pl_waitable *w)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int cfd = pl_progress_ctx_wait_fd(w->ctx);

	if (cfd < 0)
		return 0;	/* forked child: nothing to wait for */
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0)
		return -FI_ENOMEM;
	ev.data.fd = w->fd;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->fd, &ev))
		goto err_close;
	ev.data.fd = cfd;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, cfd, &ev))
		goto err_close;
	return 0;
err_close:
	close(w->epfd);
	w->epfd = -1;
	return -FI_ENOMEM;
}

int pl_waitable_init(struct pl_waitable *w, enum fi_wait_obj kind,
		     struct fid_wait *wait_set, struct pl_progress_ctx *ctx,
		     pl_waitable_ready_fn ready)
{
	pthread_condattr_t ca;
	int ret;

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
	w->epfd = -1;
	pl_store_relaxed(&w->set_live, 0);	/* published with the object */
	if (pl_waitable_has_fd(kind)) {
		w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (w->fd < 0)
			return -FI_ENOMEM;
		if (kind == FI_WAIT_FD && ctx) {
			ret = pl_waitable_epoll_open(w);
			if (ret)
				goto err_fd;
		}
	}
	pthread_mutex_init(&w->lock, NULL);
	/* CLOCK_MONOTONIC: timeouts must not move with wall-clock changes */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (kind == FI_WAIT_SET) {
		ret = pl_wait_set_add(wait_set, w);
		if (ret)
			goto err_cond;
	}
	return 0;
err_cond:
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
err_fd:
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->fd >= 0)
		close(w->fd);
	return ret;
}

void pl_waitable_fini(struct pl_waitable *w)
{
	if (w->kind == FI_WAIT_SET)
		pl_wait_set_del(w->wait_set, w);
	if (w->epfd >= 0)
		close(w->epfd);
	w->epfd = -1;
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
	/* after our own lock is dropped: no lock nests inside another */
	if (w->kind == FI_WAIT_SET)
		pl_wait_set_signal(w->wait_set, w);
}

void pl_waitable_publish(struct pl_waitable *w)
{
	/* release: pairs with the acquire load in pl_wait_set_any_ready;
	 * everything ready() reads was written before */
	if (w->kind == FI_WAIT_SET)
		pl_store_release(&w->set_live, 1);
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

static bool pl_waitable_pred_ready(struct pl_waitable *w, void *arg)
{
	(void)arg;
	return w->ready(w);
}

int pl_waitable_wait(struct pl_waitable *w, int timeout_ms)
{
	return pl_waitable_wait_until(w, timeout_ms, pl_waitable_pred_ready,
				      NULL);
}

int pl_waitable_wait_until(struct pl_waitable *w, int timeout_ms,
			   pl_waitable_pred_fn pred, void *arg)
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
		/* pred() is checked after reading seq: a signal after the
		 * check changes seq and ends the sleep below */
		if (pred(w, arg))
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
	size_t n;
	int cfd;

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
		*(int *)arg = w->epfd >= 0 ? w->epfd : w->fd;
		return 0;
	case FI_WAIT_POLLFD:
		pfd = arg;
		cfd = w->ctx ? pl_progress_ctx_wait_fd(w->ctx) : -1;
		n = cfd >= 0 ? 2 : 1;
		if (pfd->nfds < n || !pfd->fd) {
			pfd->nfds = n;
			return -FI_ETOOSMALL;
		}
		pfd->change_index = 1;	/* the set never changes */
		pfd->nfds = n;
		pfd->fd[0].fd = w->fd;
		pfd->fd[0].events = POLLIN;
		pfd->fd[0].revents = 0;
		if (n == 2) {
			pfd->fd[1].fd = cfd;
			pfd->fd[1].events = POLLIN;
			pfd->fd[1].revents = 0;
		}
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
