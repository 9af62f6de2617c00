/* SPDX-License-Identifier: BSD-2-Clause */
/* Socket and address helpers of the tcp provider. */
#ifndef PROPEL_TCP_SOCK_H
#define PROPEL_TCP_SOCK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rdma/fabric.h>

#include "tcp_proto.h"

/*
 * The data path's socket calls without libc's cancellation-point
 * wrappers. A pass must never be a cancellation point: a thread
 * cancelled inside one would leave an endpoint's lock held. And in a
 * multi-threaded process (every process with a progress or CM thread)
 * each wrapper switches the thread's cancel state in and out around the
 * call, two atomic updates a message each way (measured: 4% of a
 * spinning receiver's time). Same arguments, returns and errno.
 */
static inline ssize_t tcp_sys_recv(int fd, void *buf, size_t len, int flags)
{
	return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

static inline ssize_t tcp_sys_send(int fd, const void *buf, size_t len,
				   int flags)
{
	return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

static inline ssize_t tcp_sys_sendmsg(int fd, const struct msghdr *mh,
				      int flags)
{
	return syscall(SYS_sendmsg, fd, mh, flags);
}

static inline ssize_t tcp_sys_readv(int fd, const struct iovec *iov,
				    int count)
{
	return syscall(SYS_readv, fd, iov, count);
}

static inline int tcp_sys_poll(struct pollfd *p, nfds_t n, int timeout_ms)
{
	return (int)syscall(SYS_poll, p, n, timeout_ms);
}

/* Length of a sockaddr of family AF_INET / AF_INET6; 0 for others. */
size_t tcp_sock_addrlen(const struct sockaddr *sa);

/* Is (addr, len) a usable FI_SOCKADDR_IN / IN6 address? */
bool tcp_sock_addr_ok(const void *addr, size_t len);

/* A nonblocking, close-on-exec stream socket of family, with
 * TCP_NODELAY as FI_TCP_NODELAY says. fd or -FI_E*. */
int tcp_sock_open(int family);

/* Bind fd to src (NULL: nothing to bind, unless FI_TCP_PORT_*_RANGE asks
 * for a port of the range on the wildcard address of family). */
int tcp_sock_bind_active(int fd, int family, const struct sockaddr *src);

/* Send / receive exactly what is asked, on a nonblocking socket, waiting
 * at most timeout_ms for each step (control path only: CM exchanges of
 * a few hundred bytes). 0 or -FI_E*. */
int tcp_sock_send_all(int fd, const void *buf, size_t len, int timeout_ms);

/* Copy an address into a fresh allocation: NULL on failure. */
void *tcp_sock_addr_dup(const struct sockaddr *sa, size_t *len_p);

/* "a.b.c.d:port" / "[v6]:port" into buf (always terminated). */
void tcp_sock_addr_str(const struct sockaddr *sa, char *buf, size_t len);

/* fi_getname's copy-out of ss: -FI_ETOOSMALL with *addrlen set when the
 * caller's buffer is short, -FI_EADDRNOTAVAIL when ss holds none. */
int tcp_sock_name_out(const struct sockaddr_storage *ss, void *addr,
		      size_t *addrlen);

/* A CM header and its data as they arrive, read exactly (never a byte of
 * what follows them on the stream). Zeroed before the first read. */
struct tcp_cm_in {
	struct tcp_cm_msg hdr;		/* host order once checked */
	uint8_t data[TCP_CM_DATA_MAX];
	size_t got;
	bool checked;
};

/* Read what has arrived of a CM message of expect_kind (0: ACCEPT or
 * REJECT). 1 complete, 0 would block, <0: a bad header (tcp_proto_check_cm)
 * or the connection is gone (-FI_ECONNRESET at end of stream). */
int tcp_sock_read_cm(int fd, struct tcp_cm_in *in, int expect_kind);

/* errno of a failed socket call as a positive FI_E* value. */
int tcp_sock_errno_to_fi(int err);

#endif
