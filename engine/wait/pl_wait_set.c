/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wait sets. The protocol and the synchronization table are in
 * pl_wait_set.h. Why no wake-up is lost:
 *
 * fi_wait reads `seq` under `lock` and checks the members' ready() after
 * that read; it sleeps only while `seq` is unchanged. A producer
 * publishes its entry and then signals (seq++ under `lock`), so either
 * the check sees the entry or the signal comes after the read of seq and
 * ends the sleep. Signals that land between a waiter's return and its
 * next call are remembered as seq != seen, which the next fi_wait or
 * fi_trywait consumes.
 *
 * Native FD use: fi_trywait drains the eventfd before it checks, so a
 * producer that publishes after the check writes the eventfd after the
 * drain and the epoll_wait that follows returns. Member contexts are
 * armed first (pl_progress_ctx_trywait) and their wait fds are in the
 * epoll set, so data that still needs progress wakes the sleeper too.
 */
#include "pl_fabric_obj.h"
#include "pl_wait_set.h"
#include "pl_waitable.h"
#include "pl_progress.h"
#include "pl_atomic.h"
#include "pl_fid_nosys.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/* one entry per distinct progress context among the members */
struct pl_wait_set_ctx {
	struct pl_progress_ctx *ctx;
	int fd;				/* its wait fd, or -1 */
	unsigned refs;			/* members using it */
};

struct pl_wait_set {
	struct fid_wait wait;
	enum fi_wait_obj kind;		/* immutable */
	int efd;			/* eventfd (FD, POLLFD) or -1 */
	int epfd;			/* epoll (FD) or -1 */
	pthread_mutex_t lock;		/* leaf: seq, seen */
	pthread_cond_t cond;
	uint64_t seq;			/* under lock */
	uint64_t seen;			/* under lock */
	pthread_rwlock_t mlock;		/* everything below */
	struct pl_waitable **mem;
	size_t nmem, memcap;
	struct pl_wait_set_ctx *ctxs;
	size_t nctx, ctxcap;
	uint64_t change_index;
	struct fid_fabric *fabric;	/* immutable: counted parent */
};

#define PL_WAIT_SET(ws) ((struct pl_wait_set *)(ws))
#define PL_WAIT_SET_SLICE_NS 1000000	/* manual progress: 1 ms slices */

static struct fi_ops pl_wait_set_fid_ops;

bool pl_wait_set_is(const struct fid_wait *ws)
{
	return ws && ws->fid.fclass == FI_CLASS_WAIT &&
	       ws->fid.ops == &pl_wait_set_fid_ops;
}

enum fi_wait_obj pl_wait_set_kind(const struct fid_wait *ws)
{
	return pl_wait_set_is(ws) ? PL_WAIT_SET(ws)->kind : FI_WAIT_NONE;
}

static void pl_wait_set_fd_arm(struct pl_wait_set *s)
{
	uint64_t one = 1;

	if (s->efd >= 0 && write(s->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: counter saturated, the fd is readable anyway */
	}
}

static void pl_wait_set_fd_drain(struct pl_wait_set *s)
{
	uint64_t v;

	if (s->efd >= 0)
		while (read(s->efd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			;
}

/* ---- membership (mlock held for writing) ---- */

static int pl_wait_set_ctx_get(struct pl_wait_set *s,
			       struct pl_progress_ctx *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct pl_wait_set_ctx *n;
	size_t i;

	for (i = 0; i < s->nctx; i++) {
		if (s->ctxs[i].ctx == ctx) {
			s->ctxs[i].refs++;
			return 0;
		}
	}
	if (s->nctx == s->ctxcap) {
		n = realloc(s->ctxs, (s->ctxcap * 2 + 2) * sizeof(*n));
		if (!n)
			return -FI_ENOMEM;
		s->ctxs = n;
		s->ctxcap = s->ctxcap * 2 + 2;
	}
	n = &s->ctxs[s->nctx];
	n->ctx = ctx;
	n->refs = 1;
	n->fd = pl_progress_ctx_wait_fd(ctx);	/* < 0 in a forked child */
	if (n->fd >= 0 && s->epfd >= 0) {
		ev.data.fd = n->fd;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, n->fd, &ev) &&
		    errno != EEXIST)
			return -FI_ENOMEM;
	}
	s->nctx++;
	s->change_index++;
	return 0;
}

static void pl_wait_set_ctx_put(struct pl_wait_set *s,
				struct pl_progress_ctx *ctx)
{
	size_t i;

	for (i = 0; i < s->nctx; i++) {
		if (s->ctxs[i].ctx != ctx)
			continue;
		if (--s->ctxs[i].refs)
			return;
		if (s->ctxs[i].fd >= 0 && s->epfd >= 0)
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->ctxs[i].fd, NULL);
		s->ctxs[i] = s->ctxs[--s->nctx];
		s->change_index++;
		return;
	}
}

int pl_wait_set_add(struct fid_wait *ws, struct pl_waitable *w)
{
	struct pl_wait_set *s = PL_WAIT_SET(ws);
	struct pl_waitable **n;
	int ret = 0;

	if (!pl_wait_set_is(ws) || !w)
		return -FI_EINVAL;
	pthread_rwlock_wrlock(&s->mlock);
	if (s->nmem == s->memcap) {
		n = realloc(s->mem, (s->memcap * 2 + 4) * sizeof(*n));
		if (!n) {
			ret = -FI_ENOMEM;
			goto out;
		}
		s->mem = n;
		s->memcap = s->memcap * 2 + 4;
	}
	if (w->ctx) {
		ret = pl_wait_set_ctx_get(s, w->ctx);
		if (ret)
			goto out;
	}
	s->mem[s->nmem++] = w;
out:
	pthread_rwlock_unlock(&s->mlock);
	return ret;
}

void pl_wait_set_del(struct fid_wait *ws, struct pl_waitable *w)
{
	struct pl_wait_set *s = PL_WAIT_SET(ws);
	size_t i;

	if (!pl_wait_set_is(ws))
		return;
	pthread_rwlock_wrlock(&s->mlock);
	for (i = 0; i < s->nmem; i++) {
		if (s->mem[i] != w)
			continue;
		s->mem[i] = s->mem[--s->nmem];
		if (w->ctx)
			pl_wait_set_ctx_put(s, w->ctx);
		break;
	}
	pthread_rwlock_unlock(&s->mlock);
}

/* ---- signalling and waiting ---- */

void pl_wait_set_signal(struct fid_wait *ws, struct pl_waitable *w)
{
	struct pl_wait_set *s = PL_WAIT_SET(ws);

	/* release: the owner's construction and first entry happen before
	 * the acquire load that lets the set call w->ready() */
	if (!pl_load_relaxed(&w->set_live))
		pl_store_release(&w->set_live, 1);
	pthread_mutex_lock(&s->lock);
	s->seq++;
	pl_wait_set_fd_arm(s);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Poll every member context once; true when there is one (the caller
 * then sleeps in slices). */
static bool pl_wait_set_progress(struct pl_wait_set *s)
{
	bool manual;
	size_t i;

	pthread_rwlock_rdlock(&s->mlock);
	manual = s->nctx > 0;
	for (i = 0; i < s->nctx; i++)
		pl_progress_ctx_poll(s->ctxs[i].ctx);
	pthread_rwlock_unlock(&s->mlock);
	return manual;
}

static bool pl_wait_set_any_ready(struct pl_wait_set *s)
{
	struct pl_waitable *w;
	bool ready = false;
	size_t i;

	pthread_rwlock_rdlock(&s->mlock);
	for (i = 0; i < s->nmem && !ready; i++) {
		w = s->mem[i];
		/* acquire: pairs with the release in pl_wait_set_signal */
		ready = pl_load_acquire(&w->set_live) && w->ready(w);
	}
	pthread_rwlock_unlock(&s->mlock);
	return ready;
}

/* consume a pending signal; true when there was one */
static bool pl_wait_set_consume(struct pl_wait_set *s, uint64_t *seq_p)
{
	bool pending;

	pthread_mutex_lock(&s->lock);
	pending = s->seq != s->seen;
	s->seen = s->seq;
	*seq_p = s->seq;
	pthread_mutex_unlock(&s->lock);
	return pending;
}

static int64_t pl_wait_set_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int pl_wait_set_wait(struct fid_wait *ws, int timeout)
{
	struct pl_wait_set *s = PL_WAIT_SET(ws);
	int64_t deadline = timeout < 0 ? INT64_MAX :
		pl_wait_set_now_ns() + (int64_t)timeout * 1000000;
	struct timespec ts;
	int64_t now, until;
	uint64_t seq;
	bool manual;

	for (;;) {
		manual = pl_wait_set_progress(s);
		if (pl_wait_set_consume(s, &seq))
			return 0;
		/* after reading seq: a later signal ends the sleep below */
		if (pl_wait_set_any_ready(s))
			return 0;
		now = pl_wait_set_now_ns();
		if (now >= deadline)
			return -FI_ETIMEDOUT;
		if (s->kind == FI_WAIT_YIELD) {
			sched_yield();
			continue;
		}
		until = deadline;
		if (manual && until - now > PL_WAIT_SET_SLICE_NS)
			until = now + PL_WAIT_SET_SLICE_NS;
		ts.tv_sec = until / 1000000000;
		ts.tv_nsec = until % 1000000000;
		pthread_mutex_lock(&s->lock);
		while (s->seq == seq) {
			if (pthread_cond_timedwait(&s->cond, &s->lock, &ts) ==
			    ETIMEDOUT)
				break;
		}
		pthread_mutex_unlock(&s->lock);
	}
}

int pl_wait_set_trywait(struct fid_wait *ws)
{
	struct pl_wait_set *s = PL_WAIT_SET(ws);
	uint64_t seq;
	size_t i;
	int ret = 0;

	if (!pl_wait_set_is(ws))
		return -FI_EINVAL;
	pthread_rwlock_rdlock(&s->mlock);
	for (i = 0; i < s->nctx && !ret; i++) {
		ret = pl_progress_ctx_trywait(s->ctxs[i].ctx);
		if (ret == -FI_EOPBADSTATE)	/* forked child: nothing */
			ret = 0;
	}
	pthread_rwlock_unlock(&s->mlock);
	if (ret)
		return -FI_EAGAIN;
	/* drain first, then check: a producer after the check writes the
	 * eventfd after this drain */
	pl_wait_set_fd_drain(s);
	if (pl_wait_set_consume(s, &seq) || pl_wait_set_any_ready(s)) {
		/* keep the fd readable for a caller that sleeps anyway */
		pl_wait_set_fd_arm(s);
		return -FI_EAGAIN;
	}
	return 0;
}

/* ---- fid ops ---- */

static int pl_wait_set_getwait_pollfd(struct pl_wait_set *s,
				      struct fi_wait_pollfd *pfd)
{
	size_t i, n = 1;
	int ret = 0;

	pthread_rwlock_rdlock(&s->mlock);
	for (i = 0; i < s->nctx; i++)
		n += s->ctxs[i].fd >= 0;
	pfd->change_index = s->change_index;
	if (pfd->nfds < n || !pfd->fd) {
		pfd->nfds = n;
		ret = -FI_ETOOSMALL;
		goto out;
	}
	pfd->nfds = n;
	pfd->fd[0] = (struct pollfd){ .fd = s->efd, .events = POLLIN };
	for (i = 0, n = 1; i < s->nctx; i++)
		if (s->ctxs[i].fd >= 0)
			pfd->fd[n++] = (struct pollfd){ .fd = s->ctxs[i].fd,
							.events = POLLIN };
out:
	pthread_rwlock_unlock(&s->mlock);
	return ret;
}

static int pl_wait_set_control(struct fid *fid, int command, void *arg)
{
	struct pl_wait_set *s = (struct pl_wait_set *)fid;
	struct fi_mutex_cond *mc;

	if (command != FI_GETWAIT && command != FI_GETWAITOBJ)
		return -FI_ENOSYS;
	if (!arg)
		return -FI_EINVAL;
	if (command == FI_GETWAITOBJ) {
		*(enum fi_wait_obj *)arg = s->kind;
		return 0;
	}
	switch (s->kind) {
	case FI_WAIT_FD:
		*(int *)arg = s->epfd;
		return 0;
	case FI_WAIT_POLLFD:
		return pl_wait_set_getwait_pollfd(s, arg);
	case FI_WAIT_MUTEX_COND:
		mc = arg;
		mc->mutex = &s->lock;
		mc->cond = &s->cond;
		return 0;
	default:
		return -FI_ENOSYS;	/* YIELD has no native object */
	}
}

static void pl_wait_set_free(struct pl_wait_set *s)
{
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->efd >= 0)
		close(s->efd);
	pthread_rwlock_destroy(&s->mlock);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s->ctxs);
	free(s->mem);
	free(s);
}

static int pl_wait_set_close(struct fid *fid)
{
	struct pl_wait_set *s = (struct pl_wait_set *)fid;
	size_t n;

	pthread_rwlock_rdlock(&s->mlock);
	n = s->nmem;
	pthread_rwlock_unlock(&s->mlock);
	if (n)
		return -FI_EBUSY;
	pl_fabric_obj_child_put(s->fabric);
	pl_wait_set_free(s);
	return 0;
}

static struct fi_ops pl_wait_set_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_wait_set_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_wait_set_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_wait pl_wait_set_ops = {
	.size = sizeof(struct fi_ops_wait),
	.wait = pl_wait_set_wait,
};

static int pl_wait_set_fds_open(struct pl_wait_set *s)
{
	struct epoll_event ev = { .events = EPOLLIN };

	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0)
		return -FI_ENOMEM;
	if (s->kind != FI_WAIT_FD)
		return 0;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -FI_ENOMEM;
	ev.data.fd = s->efd;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->efd, &ev))
		return -FI_ENOMEM;
	return 0;
}

int pl_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		 struct fid_wait **waitset_p)
{
	enum fi_wait_obj kind = attr ? attr->wait_obj : FI_WAIT_UNSPEC;
	pthread_condattr_t ca;
	struct pl_wait_set *s;
	int ret;

	if (!waitset_p || (attr && attr->flags))
		return -FI_EINVAL;
	if (kind == FI_WAIT_UNSPEC)
		kind = FI_WAIT_FD;
	if (kind != FI_WAIT_FD && kind != FI_WAIT_POLLFD &&
	    kind != FI_WAIT_MUTEX_COND && kind != FI_WAIT_YIELD)
		return -FI_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -FI_ENOMEM;
	s->kind = kind;
	s->efd = -1;
	s->epfd = -1;
	pthread_mutex_init(&s->lock, NULL);
	/* CLOCK_MONOTONIC: timeouts must not move with wall-clock changes */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_rwlock_init(&s->mlock, NULL);
	if (kind == FI_WAIT_FD || kind == FI_WAIT_POLLFD) {
		ret = pl_wait_set_fds_open(s);
		if (ret)
			goto err_free;
	}
	s->change_index = 1;
	s->wait.fid.fclass = FI_CLASS_WAIT;
	s->wait.fid.ops = &pl_wait_set_fid_ops;
	s->wait.ops = &pl_wait_set_ops;
	s->fabric = fabric;
	pl_fabric_obj_child_get(fabric);
	*waitset_p = &s->wait;
	return 0;
err_free:
	pl_wait_set_free(s);
	return ret;
}
