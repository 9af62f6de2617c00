/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp fabric: the factory of domains and passive endpoints, and the
 * home of connection management's progress (tcp_prov.h): one
 * auto-progress context, started by the first fi_listen or fi_connect,
 * whose thread sleeps in epoll on the CM set, the watch timer that
 * gives detached data sets back their sockets, and the flush timer that
 * sends what coalescing kept when no pass comes for it. EQs, wait sets and
 * fi_trywait are the engine's.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_trywait.h"
#include "pl_wait_set.h"
#include "tcp_prov.h"

/* ---- the CM context's timers (tcp_prov.h) ---- */

/* One look at the detached sets per tick: a set nobody polled for a
 * whole tick gets its sockets (and their hang-up watch) back. */
#define TCP_WATCH_TICK_NS (100 * 1000 * 1000)

/* How long a kept send may wait for the application's next pass before
 * the CM context sends it. A pass normally takes the batch within
 * microseconds; the timer matters only to an application that makes no
 * further call. Each firing wakes the CM thread, which an application
 * spinning on a busy machine pays for (measured: at 50 us the 8 B
 * message rate halved), so at most one a millisecond. */
#define TCP_FLUSH_DELAY_NS (1000 * 1000)

static void tcp_cm_timer_arm(struct tcp_fabric *fab, struct tcp_cm_timer *t)
{
	struct itimerspec its = { .it_value.tv_nsec = t->delay_ns };

	/* acquire: pairs with tcp_fabric_cm_start's release (the timers'
	 * fds); without a CM context nothing needs serving */
	if (!pl_load_acquire(&fab->cm_started))
		return;
	/* acq_rel: pairs with tcp_cm_timer_fired's release store of 0 */
	if (!pl_exchange_acq_rel(&t->armed, 1))
		(void)timerfd_settime(t->tfd, 0, &its, NULL);
}

/* A handler's start: false when the timer did not expire. */
static bool tcp_cm_timer_fired(struct tcp_cm_timer *t)
{
	uint64_t expirations;

	if (read(t->tfd, &expirations, sizeof(expirations)) < 0)
		return false;	/* EAGAIN: nothing to look at */
	/* release: before the handler's look (tcp_prov.h) */
	pl_store_release(&t->armed, 0);
	return true;
}

static int tcp_cm_timer_open(struct tcp_fabric *fab, struct tcp_cm_timer *t,
			     int (*handle)(struct tcp_sock_ev *, uint32_t))
{
	int ret;

	t->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->tfd < 0)
		return -FI_ENOMEM;
	t->ev.handle = handle;
	ret = tcp_sockset_add(&fab->cm_set, t->tfd, &t->ev, EPOLLIN);
	if (ret) {
		close(t->tfd);
		t->tfd = -1;
	}
	return ret;
}

void tcp_fabric_watch_arm(void *arg)
{
	struct tcp_fabric *fab = arg;

	tcp_cm_timer_arm(fab, &fab->watch);
}

static int tcp_fabric_watch_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_fabric *fab = pl_container_of(ev, struct tcp_fabric,
						 watch.ev);
	struct tcp_domain *d;
	bool detached = false;

	(void)events;
	if (!tcp_cm_timer_fired(&fab->watch))
		return 0;
	pthread_mutex_lock(&fab->watch_lock);
	for (d = fab->doms; d; d = d->watch_next)
		detached |= tcp_sockset_watch_tick(&d->data_set);
	pthread_mutex_unlock(&fab->watch_lock);
	if (detached)
		tcp_cm_timer_arm(fab, &fab->watch);
	return 1;
}

void tcp_fabric_flush_arm(struct tcp_fabric *fab)
{
	tcp_cm_timer_arm(fab, &fab->flush);
}

static int tcp_fabric_flush_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_fabric *fab = pl_container_of(ev, struct tcp_fabric,
						 flush.ev);
	struct tcp_domain *d;
	int work = 1;

	(void)events;
	if (!tcp_cm_timer_fired(&fab->flush))
		return 0;
	pthread_mutex_lock(&fab->watch_lock);
	for (d = fab->doms; d; d = d->watch_next)
		work += tcp_sockset_serve_hot(&d->data_set);
	pthread_mutex_unlock(&fab->watch_lock);
	return work;
}

void tcp_fabric_watch_join(struct tcp_fabric *fab, struct tcp_domain *d)
{
	pthread_mutex_lock(&fab->watch_lock);
	d->watch_next = fab->doms;
	fab->doms = d;
	pthread_mutex_unlock(&fab->watch_lock);
}

void tcp_fabric_watch_leave(struct tcp_fabric *fab, struct tcp_domain *d)
{
	struct tcp_domain **pp;

	pthread_mutex_lock(&fab->watch_lock);
	for (pp = &fab->doms; *pp; pp = &(*pp)->watch_next)
		if (*pp == d) {
			*pp = d->watch_next;
			break;
		}
	pthread_mutex_unlock(&fab->watch_lock);
}

/* ---- the CM context ---- */

int tcp_fabric_cm_start(struct tcp_fabric *fab)
{
	int ret = 0;

	pthread_mutex_lock(&fab->cm_lock);
	if (pl_load_relaxed(&fab->cm_started))
		goto out;	/* written under cm_lock, read under it */
	ret = pl_progress_ctx_open(FI_PROGRESS_AUTO, FI_THREAD_SAFE, NULL,
				   &fab->cm_ctx);
	if (ret)
		goto out;
	ret = tcp_sockset_init(&fab->cm_set, "tcp cm", false, -1);
	if (ret)
		goto err_ctx;
	ret = tcp_cm_timer_open(fab, &fab->watch, tcp_fabric_watch_handle);
	if (ret)
		goto err_set;
	ret = tcp_cm_timer_open(fab, &fab->flush, tcp_fabric_flush_handle);
	if (ret)
		goto err_watch;
	ret = pl_progress_source_add(fab->cm_ctx, &fab->cm_set.src);
	if (ret)
		goto err_flush;
	/* release: cm_ctx and cm_set are ready before anyone who
	 * acquires the flag uses them */
	pl_store_release(&fab->cm_started, 1);
	goto out;

err_flush:
	close(fab->flush.tfd);
	fab->flush.tfd = -1;
err_watch:
	close(fab->watch.tfd);
	fab->watch.tfd = -1;
err_set:
	tcp_sockset_fini(&fab->cm_set);
err_ctx:
	(void)pl_progress_ctx_close(fab->cm_ctx);
	fab->cm_ctx = NULL;
out:
	pthread_mutex_unlock(&fab->cm_lock);
	return ret;
}

static int tcp_fabric_close(struct fid *fid)
{
	struct tcp_fabric *fab = pl_container_of(fid, struct tcp_fabric,
						 base.fabric_fid.fid);
	int ret;

	ret = pl_fabric_obj_fini(&fab->base);
	if (ret)
		return ret;	/* children remain: -FI_EBUSY */
	/* acquire: pairs with the release in tcp_fabric_cm_start */
	if (pl_load_acquire(&fab->cm_started)) {
		(void)pl_progress_source_remove(fab->cm_ctx, &fab->cm_set.src);
		(void)pl_progress_ctx_close(fab->cm_ctx);
		tcp_sockset_fini(&fab->cm_set);
		close(fab->watch.tfd);
		close(fab->flush.tfd);
	}
	pthread_mutex_destroy(&fab->watch_lock);
	pthread_mutex_destroy(&fab->cm_lock);
	free(fab);
	return 0;
}

static struct fi_ops tcp_fabric_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = tcp_fabric_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_fabric tcp_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = tcp_domain_open,
	.passive_ep = tcp_pep_open,
	.eq_open = pl_eq_open,
	.wait_open = pl_wait_open,
	.trywait = pl_trywait,
	.domain2 = tcp_domain_open2,
};

int tcp_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context)
{
	struct tcp_fabric *fab;

	if (!attr || !fabric_p)
		return -FI_EINVAL;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	pthread_mutex_init(&fab->cm_lock, NULL);
	pthread_mutex_init(&fab->watch_lock, NULL);
	fab->cm_set.epfd = -1;
	fab->watch.tfd = fab->flush.tfd = -1;
	fab->watch.delay_ns = TCP_WATCH_TICK_NS;
	fab->flush.delay_ns = TCP_FLUSH_DELAY_NS;
	/* relaxed: no other thread sees the fabric yet */
	pl_store_relaxed(&fab->watch.armed, 0);
	pl_store_relaxed(&fab->flush.armed, 0);
	pl_fabric_obj_init(&fab->base, attr->api_version, context);
	fab->base.fabric_fid.fid.ops = &tcp_fabric_fid_ops;
	fab->base.fabric_fid.ops = &tcp_fabric_ops;
	*fabric_p = &fab->base.fabric_fid;
	return 0;
}
