/* SPDX-License-Identifier: BSD-2-Clause */
/* Socket and address helpers of the tcp provider. */
#ifndef PROPEL_TCP_SOCK_H
#define PROPEL_TCP_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/fabric.h>

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

/* errno of a failed socket call as a positive FI_E* value. */
int tcp_sock_errno_to_fi(int err);

#endif
