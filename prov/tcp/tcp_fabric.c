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

/* ---- the watch timer (tcp_prov.h) ---- */

/* One look at the detached sets per tick: a set nobody polled for a
 * whole tick gets its sockets (and their hang-up watch) back. */
#define TCP_WATCH_TICK_NS (100 * 1000 * 1000)

static void tcp_fabric_watch_set(struct tcp_fabric *fab)
{
	struct itimerspec its = { .it_value.tv_nsec = TCP_WATCH_TICK_NS };

	(void)timerfd_settime(fab->watch_tfd, 0, &its, NULL);
}

void tcp_fabric_watch_arm(void *arg)
{
	struct tcp_fabric *fab = arg;

	/* acquire: pairs with tcp_fabric_cm_start's release (watch_tfd);
	 * without a CM context no socket has a watch to bring back */
	if (!pl_load_acquire(&fab->cm_started))
		return;
	/* acq_rel: pairs with the handler's release store of 0 */
	if (!pl_exchange_acq_rel(&fab->watch_armed, 1))
		tcp_fabric_watch_set(fab);
}

static int tcp_fabric_watch_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_fabric *fab = pl_container_of(ev, struct tcp_fabric,
						 watch_ev);
	struct tcp_domain *d;
	uint64_t expirations;
	bool detached = false;

	(void)events;
	if (read(fab->watch_tfd, &expirations, sizeof(expirations)) < 0)
		return 0;	/* not expired (EAGAIN): nothing to look at */
	/* release: before the look, so that a set detached after its
	 * look re-arms the timer itself (its dlock orders the two) */
	pl_store_release(&fab->watch_armed, 0);
	pthread_mutex_lock(&fab->watch_lock);
	for (d = fab->doms; d; d = d->watch_next)
		detached |= tcp_sockset_watch_tick(&d->data_set);
	pthread_mutex_unlock(&fab->watch_lock);
	if (detached && !pl_exchange_acq_rel(&fab->watch_armed, 1))
		tcp_fabric_watch_set(fab);
	return 1;
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

/* ---- the flush timer (tcp_prov.h) ---- */

/* How long a kept send may wait for the application's next pass before
 * the CM context sends it. A pass normally takes the batch within
 * microseconds; the timer matters only to an application that makes no
 * further call. Each firing wakes the CM thread, which an application
 * spinning on a busy machine pays for (measured: at 50 us the 8 B
 * message rate halved), so at most one a millisecond. */
#define TCP_FLUSH_DELAY_NS (1000 * 1000)

void tcp_fabric_flush_arm(struct tcp_fabric *fab)
{
	struct itimerspec its = { .it_value.tv_nsec = TCP_FLUSH_DELAY_NS };

	/* acquire: pairs with tcp_fabric_cm_start's release (flush_tfd) */
	if (!pl_load_acquire(&fab->cm_started))
		return;
	/* acq_rel: pairs with the handler's release store of 0 */
	if (!pl_exchange_acq_rel(&fab->flush_armed, 1))
		(void)timerfd_settime(fab->flush_tfd, 0, &its, NULL);
}

static int tcp_fabric_flush_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_fabric *fab = pl_container_of(ev, struct tcp_fabric,
						 flush_ev);
	struct tcp_domain *d;
	uint64_t expirations;
	int work = 0;

	(void)events;
	if (read(fab->flush_tfd, &expirations, sizeof(expirations)) < 0)
		return 0;
	/* release: before the look; a send kept after it arms again */
	pl_store_release(&fab->flush_armed, 0);
	pthread_mutex_lock(&fab->watch_lock);
	for (d = fab->doms; d; d = d->watch_next)
		work += tcp_sockset_serve_hot(&d->data_set);
	pthread_mutex_unlock(&fab->watch_lock);
	return work + 1;
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
	ret = tcp_sockset_init(&fab->cm_set, "tcp cm", false);
	if (ret)
		goto err_ctx;
	fab->watch_tfd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);
	if (fab->watch_tfd < 0) {
		ret = -FI_ENOMEM;
		goto err_set;
	}
	fab->watch_ev.handle = tcp_fabric_watch_handle;
	ret = tcp_sockset_add(&fab->cm_set, fab->watch_tfd, &fab->watch_ev,
			      EPOLLIN);
	if (ret)
		goto err_tfd;
	fab->flush_tfd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);
	if (fab->flush_tfd < 0) {
		ret = -FI_ENOMEM;
		goto err_tfd;
	}
	fab->flush_ev.handle = tcp_fabric_flush_handle;
	ret = tcp_sockset_add(&fab->cm_set, fab->flush_tfd, &fab->flush_ev,
			      EPOLLIN);
	if (ret)
		goto err_flush;
	ret = pl_progress_source_add(fab->cm_ctx, &fab->cm_set.src);
	if (ret)
		goto err_flush;
	/* release: cm_ctx and cm_set are ready before anyone who
	 * acquires the flag uses them */
	pl_store_release(&fab->cm_started, 1);
	goto out;

err_flush:
	close(fab->flush_tfd);
	fab->flush_tfd = -1;
err_tfd:
	close(fab->watch_tfd);
	fab->watch_tfd = -1;
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
		close(fab->watch_tfd);
		close(fab->flush_tfd);
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
	.domain2 = pl_fid_nosys_fabric_domain2,
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
	fab->watch_tfd = fab->flush_tfd = -1;
	/* relaxed: no other thread sees the fabric yet */
	pl_store_relaxed(&fab->watch_armed, 0);
	pl_store_relaxed(&fab->flush_armed, 0);
	pl_fabric_obj_init(&fab->base, attr->api_version, context);
	fab->base.fabric_fid.fid.ops = &tcp_fabric_fid_ops;
	fab->base.fabric_fid.ops = &tcp_fabric_ops;
	*fabric_p = &fab->base.fabric_fid;
	return 0;
}
