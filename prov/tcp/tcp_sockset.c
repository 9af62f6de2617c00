/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An epoll set of sockets driven as one progress source (tcp_prov.h).
 * poll() fetches the ready entries with a zero timeout and calls each
 * one's handler; the handler takes the lock of the object it belongs to.
 * The set's own fd is what the engine blocks on: epoll sets nest, and a
 * level-triggered inner set stays readable while any of its sockets is
 * ready, so no arm() is needed (work is never hidden from the fd).
 */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "tcp_prov.h"

#define TCP_SOCKSET_BATCH 32

static int tcp_sockset_poll(struct pl_progress_source *src, unsigned budget)
{
	struct tcp_sockset *set = pl_container_of(src, struct tcp_sockset,
						  src);
	struct epoll_event evs[TCP_SOCKSET_BATCH];
	struct tcp_sock_ev *ev;
	int n, i;

	(void)budget;
	n = epoll_wait(set->epfd, evs, TCP_SOCKSET_BATCH, 0);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		ev = evs[i].data.ptr;
		ev->handle(ev, evs[i].events);
	}
	return n;
}

int tcp_sockset_init(struct tcp_sockset *set, const char *name)
{
	set->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (set->epfd < 0)
		return -errno;
	set->src = (struct pl_progress_source){
		.poll = tcp_sockset_poll,
		.arm = NULL,
		.fd = set->epfd,
		.name = name,
	};
	return 0;
}

void tcp_sockset_fini(struct tcp_sockset *set)
{
	if (set->epfd >= 0)
		close(set->epfd);
	set->epfd = -1;
}

static int tcp_sockset_ctl(struct tcp_sockset *set, int op, int fd,
			   struct tcp_sock_ev *ev, uint32_t events)
{
	struct epoll_event e = { .events = events, .data.ptr = ev };

	if (epoll_ctl(set->epfd, op, fd, &e))
		return -errno;
	return 0;
}

int tcp_sockset_add(struct tcp_sockset *set, int fd, struct tcp_sock_ev *ev,
		    uint32_t events)
{
	return tcp_sockset_ctl(set, EPOLL_CTL_ADD, fd, ev, events);
}

int tcp_sockset_mod(struct tcp_sockset *set, int fd, struct tcp_sock_ev *ev,
		    uint32_t events)
{
	return tcp_sockset_ctl(set, EPOLL_CTL_MOD, fd, ev, events);
}

void tcp_sockset_del(struct tcp_sockset *set, int fd)
{
	/* an fd that was never added (or already removed) leaves nothing
	 * to undo */
	(void)epoll_ctl(set->epfd, EPOLL_CTL_DEL, fd, NULL);
}
