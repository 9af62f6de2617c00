/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Socket-address helpers the providers that speak IP share (tcp, verbs):
 * resolving fi_getinfo's node and service, the local address that routes
 * toward a destination, and comparisons. IPv4 and IPv6 only; no state.
 */
#ifndef PROPEL_PL_SOCKADDR_H
#define PROPEL_PL_SOCKADDR_H

#include <stdbool.h>
#include <sys/socket.h>

/* node/service through getaddrinfo (SOCK_STREAM; passive: AI_PASSIVE,
 * a NULL node then means the wildcard; a NULL service means port 0):
 * the first answer in *ss, zero-padded. 0 or -FI_ENODATA. */
int pl_sockaddr_resolve(const char *node, const char *service, bool passive,
			struct sockaddr_storage *ss);
/* The local address the kernel routes through toward dest: connecting a
 * datagram socket consults the routes and sends nothing. */
bool pl_sockaddr_route_src(const struct sockaddr_storage *dest,
			   struct sockaddr_storage *src);
/* The same IP (the ports aside)? Different families never are. */
bool pl_sockaddr_same_ip(const struct sockaddr *a, const struct sockaddr *b);
/* The wildcard address (INADDR_ANY, in6addr_any) of its family? */
bool pl_sockaddr_wild(const struct sockaddr_storage *ss);

#endif /* PROPEL_PL_SOCKADDR_H */
