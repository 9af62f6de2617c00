/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An epoll set of sockets driven as one progress source (tcp_prov.h).
 * poll() fetches the ready entries with a zero timeout and calls each
 * one's handler; the handler takes the lock of the object it belongs to.
 * The set's own fd is what the engine blocks on: epoll sets nest, and a
 * level-triggered inner set stays readable while any of its sockets is
 * ready. The one kind of work the fd cannot show, bytes already read
 * into a staging buffer, is listed as hot (tcp_prov.h), and arm() says
 * -FI_EAGAIN while the list is not empty.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "tcp_prov.h"

#define TCP_SOCKSET_BATCH 32

static int tcp_sockset_ctl(struct tcp_sockset *set, int op, int fd,
			   struct tcp_sock_ev *ev, uint32_t events)
{
	struct epoll_event e = { .events = events, .data.ptr = ev };

	if (epoll_ctl(set->epfd, op, fd, &e))
		return -errno;
	return 0;
}

/* Under dlock: ev's socket out of epfd, and out of its watch set. */
static void tcp_sockset_out(struct tcp_sockset *set, struct tcp_sock_ev *ev)
{
	(void)epoll_ctl(set->epfd, EPOLL_CTL_DEL, ev->fd, NULL);
	if (ev->watched)
		(void)epoll_ctl(ev->wset->epfd, EPOLL_CTL_DEL, ev->fd, NULL);
}

/* Under dlock: ev's socket into epfd, and into its watch set. */
static int tcp_sockset_in(struct tcp_sockset *set, struct tcp_sock_ev *ev)
{
	int ret = tcp_sockset_ctl(set, EPOLL_CTL_ADD, ev->fd, ev, ev->events);

	if (ret || !ev->watched)
		return ret;
	ret = tcp_sockset_ctl(ev->wset, EPOLL_CTL_ADD, ev->fd, ev->wev,
			      ev->wevents);
	if (ret)
		(void)epoll_ctl(set->epfd, EPOLL_CTL_DEL, ev->fd, NULL);
	return ret;
}

/* Under dlock, detached (so every socket is listed): every listed socket
 * back into epfd with its interest, and its watch. All or none. */
static int tcp_sockset_attach(struct tcp_sockset *set)
{
	int i, ret;

	for (i = 0; i < set->ndev; i++) {
		ret = tcp_sockset_in(set, set->dev[i]);
		if (ret) {
			while (i--)
				tcp_sockset_out(set, set->dev[i]);
			return ret;
		}
	}
	set->attached = true;
	return 0;
}

/* Under dlock, attached, every socket listed: take them all out. */
static void tcp_sockset_detach(struct tcp_sockset *set)
{
	int i;

	for (i = 0; i < set->ndev; i++)
		tcp_sockset_out(set, set->dev[i]);
	set->attached = false;
	if (set->on_detach)
		set->on_detach(set->on_detach_arg);
}

/* Empty the hot list (a direct pass handles every socket anyway). */
static void tcp_sockset_clear_hot(struct tcp_sockset *set)
{
	struct tcp_sock_ev *ev;

	pthread_mutex_lock(&set->hot_lock);
	for (ev = set->hot; ev; ev = ev->hot_next)
		ev->hot = false;
	set->hot = NULL;
	/* release, under hot_lock: an emptied list is published with the
	 * flag; a later mark_hot sets it again under the lock */
	pl_store_release(&set->any_hot, 0);
	pthread_mutex_unlock(&set->hot_lock);
}

/* Run the handlers of the entries listed now, each popped under
 * hot_lock: an owner may list its entry again while the handler runs
 * (which rewrites hot_next), so the list is never walked outside the
 * lock. At most as many as were listed at the start: entries listed
 * again meanwhile may wait for the next pass, still listed. The owners
 * are alive: unmark_hot (at close) runs under hot_lock before the
 * owner's sync with the caller's context, which waits for this pass. */
static int tcp_sockset_serve_listed(struct tcp_sockset *set)
{
	struct tcp_sock_ev *ev;
	unsigned n = 0, i;
	int work = 0;

	pthread_mutex_lock(&set->hot_lock);
	for (ev = set->hot; ev; ev = ev->hot_next)
		n++;
	pthread_mutex_unlock(&set->hot_lock);
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&set->hot_lock);
		ev = set->hot;
		if (ev) {
			set->hot = ev->hot_next;
			ev->hot = false;
			if (!set->hot)	/* release, under hot_lock */
				pl_store_release(&set->any_hot, 0);
		}
		pthread_mutex_unlock(&set->hot_lock);
		if (!ev)
			break;
		work += ev->handle(ev, EPOLLIN);
	}
	return work;
}

int tcp_sockset_serve_hot(struct tcp_sockset *set)
{
	/* acquire: pairs with mark_hot's release store */
	if (!pl_load_acquire(&set->any_hot))
		return 0;
	/* tcp_ep_close syncs with the CM context, whose pass this is */
	return tcp_sockset_serve_listed(set);
}

static int tcp_sockset_poll(struct pl_progress_source *src, unsigned budget)
{
	struct tcp_sockset *set = pl_container_of(src, struct tcp_sockset,
						  src);
	struct epoll_event evs[TCP_SOCKSET_BATCH];
	struct tcp_sock_ev *ev;
	int n, i, work = 0;

	(void)budget;
	/* relaxed: a heuristic for senders (tcp_prov.h) */
	pl_fetch_add_relaxed(&set->passes, 1);
	if (set->direct) {
		struct tcp_sock_ev *dev[TCP_SOCKSET_DIRECT_MAX];
		int nd = -1;

		pthread_mutex_lock(&set->dlock);
		if (set->nfds == set->ndev) {
			nd = set->ndev;
			memcpy(dev, set->dev, sizeof(dev[0]) * (size_t)nd);
			/* relaxed: passes is this pass's own count (above) */
			if (set->attached &&
			    pl_load_relaxed(&set->passes) - set->attach_pass >
			    TCP_SOCKSET_DETACH_PASSES)
				tcp_sockset_detach(set);
		}
		pthread_mutex_unlock(&set->dlock);
		/* the owners are alive: removal runs under dlock before the
		 * owner's pl_progress_ctx_sync, which waits for this pass.
		 * Every socket of the set is listed, so the hot ones are
		 * among them: one call each covers both (a hot entry whose
		 * socket already left the set has nothing to do) */
		if (nd >= 0) {
			/* acquire: pairs with mark_hot's release store */
			if (pl_load_acquire(&set->any_hot))
				tcp_sockset_clear_hot(set);
			for (i = 0; i < nd; i++)
				work += dev[i]->handle(dev[i],
						TCP_SOCKSET_DIRECT_EVENTS);
			return work;
		}
	}
	/* acquire: pairs with mark_hot's release store */
	if (pl_load_acquire(&set->any_hot))
		work += tcp_sockset_serve_listed(set);
	n = epoll_wait(set->epfd, evs, TCP_SOCKSET_BATCH, 0);
	if (n <= 0)
		return work;
	for (i = 0; i < n; i++) {
		ev = evs[i].data.ptr;
		if (ev)	/* NULL: a source of the shared context's */
			work += ev->handle(ev, evs[i].events);
	}
	return work;
}

/* Sleep only when no entry is hot; the fd covers the rest, once every
 * socket is in it. */
static int tcp_sockset_arm(struct pl_progress_source *src)
{
	struct tcp_sockset *set = pl_container_of(src, struct tcp_sockset,
						  src);
	int ret = 0;

	/* acquire: pairs with mark_hot's release store */
	if (pl_load_acquire(&set->any_hot))
		return -FI_EAGAIN;
	if (!set->direct)
		return 0;
	pthread_mutex_lock(&set->dlock);
	if (!set->attached)
		ret = tcp_sockset_attach(set);
	/* relaxed: a count read under the token, as in poll */
	set->attach_pass = pl_load_relaxed(&set->passes);
	pthread_mutex_unlock(&set->dlock);
	/* a socket that could not go back cannot wake a sleeper: poll */
	return ret ? -FI_EAGAIN : 0;
}

void tcp_sockset_mark_hot(struct tcp_sockset *set, struct tcp_sock_ev *ev)
{
	pthread_mutex_lock(&set->hot_lock);
	if (!ev->hot) {
		ev->hot = true;
		ev->hot_next = set->hot;
		set->hot = ev;
		/* release: the list is published before a poller or arm()
		 * sees the flag */
		pl_store_release(&set->any_hot, 1);
	}
	pthread_mutex_unlock(&set->hot_lock);
}

void tcp_sockset_unmark_hot(struct tcp_sockset *set, struct tcp_sock_ev *ev)
{
	struct tcp_sock_ev **pp;

	pthread_mutex_lock(&set->hot_lock);
	if (ev->hot) {
		for (pp = &set->hot; *pp; pp = &(*pp)->hot_next)
			if (*pp == ev) {
				*pp = ev->hot_next;
				break;
			}
		ev->hot = false;
		if (!set->hot)	/* release, under hot_lock: as in poll */
			pl_store_release(&set->any_hot, 0);
	}
	pthread_mutex_unlock(&set->hot_lock);
}

int tcp_sockset_init(struct tcp_sockset *set, const char *name,
		     bool direct, int shared_epfd)
{
	set->shared = shared_epfd >= 0;
	set->epfd = set->shared ? shared_epfd :
		    epoll_create1(EPOLL_CLOEXEC);
	if (set->epfd < 0)
		return -errno;
	pthread_mutex_init(&set->hot_lock, NULL);
	pthread_mutex_init(&set->dlock, NULL);
	set->direct = direct;
	set->ndev = set->nfds = 0;
	set->attached = true;
	set->attach_pass = set->tick_pass = 0;
	set->on_detach = NULL;
	set->on_detach_arg = NULL;
	set->hot = NULL;
	/* relaxed: no other thread sees the set before the source is
	 * added, which publishes it */
	pl_store_relaxed(&set->any_hot, 0);
	pl_store_relaxed(&set->passes, 0);
	set->src = (struct pl_progress_source){
		.poll = tcp_sockset_poll,
		.arm = tcp_sockset_arm,
		/* shared: the sockets are in the context's set already */
		.fd = set->shared ? -1 : set->epfd,
		.name = name,
	};
	return 0;
}

void tcp_sockset_fini(struct tcp_sockset *set)
{
	if (set->epfd >= 0) {
		if (!set->shared)
			close(set->epfd);
		pthread_mutex_destroy(&set->hot_lock);
		pthread_mutex_destroy(&set->dlock);
	}
	set->epfd = -1;
}

int tcp_sockset_add(struct tcp_sockset *set, int fd, struct tcp_sock_ev *ev,
		    uint32_t events)
{
	int ret = 0;

	if (!set->direct)
		return tcp_sockset_ctl(set, EPOLL_CTL_ADD, fd, ev, events);
	pthread_mutex_lock(&set->dlock);
	ev->fd = fd;
	ev->events = events;
	ev->watched = false;
	/* one that will not be listed needs the kernel's set: all go back
	 * first (unlisted sockets exist only while attached) */
	if (!set->attached && set->ndev == TCP_SOCKSET_DIRECT_MAX)
		ret = tcp_sockset_attach(set);
	if (!ret && set->attached)
		ret = tcp_sockset_ctl(set, EPOLL_CTL_ADD, fd, ev, events);
	if (ret)
		goto out;
	set->nfds++;
	/* past the direct bound, dev[] stops tracking: the pass uses
	 * epoll until the set is small and fully listed again */
	if (set->ndev < TCP_SOCKSET_DIRECT_MAX && set->ndev + 1 == set->nfds)
		set->dev[set->ndev++] = ev;
out:
	pthread_mutex_unlock(&set->dlock);
	return ret;
}

int tcp_sockset_mod(struct tcp_sockset *set, int fd, struct tcp_sock_ev *ev,
		    uint32_t events)
{
	int ret = 0;

	if (!set->direct)
		return tcp_sockset_ctl(set, EPOLL_CTL_MOD, fd, ev, events);
	pthread_mutex_lock(&set->dlock);
	if (set->attached)
		ret = tcp_sockset_ctl(set, EPOLL_CTL_MOD, fd, ev, events);
	if (!ret)
		ev->events = events;
	pthread_mutex_unlock(&set->dlock);
	return ret;
}

void tcp_sockset_del(struct tcp_sockset *set, int fd,
		     struct tcp_sock_ev *ev)
{
	int i;

	if (!set->direct) {
		(void)epoll_ctl(set->epfd, EPOLL_CTL_DEL, fd, NULL);
		return;
	}
	pthread_mutex_lock(&set->dlock);
	for (i = 0; i < set->ndev && set->dev[i] != ev; i++)
		;
	/* its watch goes with it (the watch set is told while attached) */
	if (ev->watched && set->attached)
		(void)epoll_ctl(ev->wset->epfd, EPOLL_CTL_DEL, fd, NULL);
	ev->watched = false;
	/* an fd that was never added (or already removed) leaves nothing
	 * to undo: the kernel says so while attached, the list otherwise
	 * (every socket is listed then) */
	if (set->attached ? epoll_ctl(set->epfd, EPOLL_CTL_DEL, fd, NULL) :
	    i == set->ndev)
		goto out;
	set->nfds--;
	if (i < set->ndev)
		set->dev[i] = set->dev[--set->ndev];
	if (!set->nfds)
		set->ndev = 0;
out:
	pthread_mutex_unlock(&set->dlock);
}

int tcp_sockset_watch(struct tcp_sockset *set, struct tcp_sock_ev *ev,
		      struct tcp_sockset *wset, struct tcp_sock_ev *wev,
		      uint32_t wevents)
{
	int ret = 0;

	pthread_mutex_lock(&set->dlock);
	/* a socket of this set is in the kernel's sets exactly while the
	 * set is attached (unlisted ones only exist then) */
	if (set->attached)
		ret = tcp_sockset_ctl(wset, EPOLL_CTL_ADD, ev->fd, wev,
				      wevents);
	if (!ret) {
		ev->wset = wset;
		ev->wev = wev;
		ev->wevents = wevents;
		ev->watched = true;
	}
	pthread_mutex_unlock(&set->dlock);
	return ret;
}

bool tcp_sockset_watch_tick(struct tcp_sockset *set)
{
	uint64_t passes;
	bool detached;

	pthread_mutex_lock(&set->dlock);
	if (!set->attached) {
		/* relaxed: a count; the lock orders this look against the
		 * pass that detached */
		passes = pl_load_relaxed(&set->passes);
		if (passes == set->tick_pass && !tcp_sockset_attach(set))
			set->attach_pass = passes;
		set->tick_pass = passes;
	}
	detached = !set->attached;
	pthread_mutex_unlock(&set->dlock);
	return detached;
}
