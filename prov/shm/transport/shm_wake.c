/* SPDX-License-Identifier: BSD-2-Clause */
/* The wake-up protocol of shm_wake.h (argument there). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_clock.h"
#include "pl_evcount.h"
#include "shm_cmdq.h"
#include "shm_wake.h"

int shm_wake_addr_of(struct shm_wake_addr *a, const struct shm_region *peer)
{
	struct shm_wake_addr tmp;
	uint32_t len;

	/* copy first, then check the copy: the header is input (DESIGN.md
	 * 7a) that another process may change while we look */
	memset(&tmp, 0, sizeof(tmp));
	tmp.sun.sun_family = AF_UNIX;
	memcpy(&len, &peer->geo.wake_len, sizeof(len));
	memcpy(tmp.sun.sun_path, peer->geo.wake_addr, SHM_WAKE_ADDR_MAX);
	/* abstract only: a path would let a header aim our datagrams at
	 * any socket file of the user */
	if (len < 2 || len > SHM_WAKE_ADDR_MAX || tmp.sun.sun_path[0] != '\0')
		return -FI_ENOPROTOOPT;
	memset(tmp.sun.sun_path + len, 0, sizeof(tmp.sun.sun_path) - len);
	tmp.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	*a = tmp;
	return 0;
}

static int shm_wake_epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int shm_wake_open(struct shm_wake *w)
{
	sa_family_t fam = AF_UNIX;
	socklen_t len;
	int ret;

	memset(w, 0, sizeof(*w));
	w->fd = w->tx_fd = w->timer_fd = w->ep_fd = -1;
	w->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->fd < 0)
		return -errno;
	/* autobind (unix(7)): an address of only the family makes the
	 * kernel pick a free abstract name, so no other process can have
	 * taken ours first; peers learn it from our region's header */
	if (bind(w->fd, (struct sockaddr *)&fam, sizeof(fam))) {
		ret = -errno;
		goto err_close;
	}
	len = sizeof(w->self.sun);
	if (getsockname(w->fd, (struct sockaddr *)&w->self.sun, &len) ||
	    len <= offsetof(struct sockaddr_un, sun_path) + 1 ||
	    len > offsetof(struct sockaddr_un, sun_path) + SHM_WAKE_ADDR_MAX ||
	    w->self.sun.sun_path[0] != '\0') {
		ret = -FI_EADDRNOTAVAIL;
		goto err_close;
	}
	w->self.len = len;
	w->tx_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->tx_fd < 0) {
		ret = -errno;
		goto err_close;
	}
	w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	w->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (w->timer_fd < 0 || w->ep_fd < 0) {
		ret = -errno;
		goto err_close;
	}
	ret = shm_wake_epoll_add(w->ep_fd, w->fd);
	if (!ret)
		ret = shm_wake_epoll_add(w->ep_fd, w->timer_fd);
	if (ret)
		goto err_close;
	return 0;

err_close:
	shm_wake_close(w);
	return ret;
}

void shm_wake_close(struct shm_wake *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->tx_fd >= 0)
		close(w->tx_fd);
	if (w->timer_fd >= 0)
		close(w->timer_fd);
	if (w->ep_fd >= 0)
		close(w->ep_fd);
	w->fd = w->tx_fd = w->timer_fd = w->ep_fd = -1;
}

int shm_wake_timer_start(struct shm_wake *w, unsigned ms)
{
	struct itimerspec its = {
		.it_value = {
			.tv_sec = ms / 1000,
			.tv_nsec = (long)(ms % 1000) * 1000000L,
		},
	};
	uint64_t deadline_ns;

	if (w->timer_set)
		return 0;
	/* read the clock before arming: the kernel's expiry is then never
	 * earlier than our deadline, so once the descriptor turns readable
	 * due() agrees (read after arming, a wake-up could land a few
	 * nanoseconds before the deadline and be refused) */
	deadline_ns = pl_clock_now_ns() + (uint64_t)ms * 1000000ull;
	if (timerfd_settime(w->timer_fd, 0, &its, NULL))
		return -errno;
	w->deadline_ns = deadline_ns;
	w->timer_set = true;
	return 0;
}

bool shm_wake_timer_due_slow(struct shm_wake *w)
{
	uint64_t expirations;

	if (pl_clock_now_ns() < w->deadline_ns)
		return false;
	/* consume the expiry so the descriptor is no longer readable. The
	 * clock above may run a little ahead of the timer: when the read
	 * finds nothing yet, stop the timer instead, or it would fire later
	 * with nobody to consume it and keep the descriptor readable. */
	if (read(w->timer_fd, &expirations, sizeof(expirations)) < 0) {
		static const struct itimerspec off;

		(void)timerfd_settime(w->timer_fd, 0, &off, NULL);
		/* it may have fired between the read and the stop */
		(void)!read(w->timer_fd, &expirations, sizeof(expirations));
	}
	w->timer_set = false;
	return true;
}

int shm_wake_arm(struct shm_wake *w, struct shm_region *own)
{
	w->armed = true;
	/* W1: pairs with W2 in shm_wake_signal (pl_evcount.h's P1, P2) */
	pl_evcount_prepare(&own->ctl->asleep, 1u);
	if (shm_cmdq_pending(own)) {
		shm_wake_awake(w, own);
		return -FI_EAGAIN;
	}
	return 0;
}

void shm_wake_awake(struct shm_wake *w, struct shm_region *own)
{
	char buf[16];

	if (!w->armed)
		return;
	w->armed = false;
	/* a sender that still reads 1 only sends one datagram too many,
	 * which the drain below or the next one absorbs */
	pl_evcount_cancel(&own->ctl->asleep);
	while (recv(w->fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		w->signals_rx++;
}

int shm_wake_signal(int tx_fd, struct shm_region *peer,
		    const struct shm_wake_addr *addr)
{
	static const char one = 1;

	/* W2: pairs with W1 in shm_wake_arm; orders our READY store
	 * before the load of asleep; only one of several senders sends
	 * the datagram (pl_evcount.h's N1, N2) */
	if (!pl_evcount_notify(&peer->ctl->asleep, 1u, 0u))
		return 0;
	if (sendto(tx_fd, &one, 1, MSG_DONTWAIT, (const struct sockaddr *)&addr->sun,
		   addr->len) < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;	/* queue full: it is readable already */
		return -FI_ECONNREFUSED;
	}
	return 1;
}
