/* SPDX-License-Identifier: BSD-2-Clause */
/* Socket-address helpers (pl_sockaddr.h). */
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_sockaddr.h"

static socklen_t pl_sockaddr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

int pl_sockaddr_resolve(const char *node, const char *service, bool passive,
			struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(node, service ? service : "0", &hints, &res))
		return -FI_ENODATA;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen < sizeof(*ss) ?
	       res->ai_addrlen : sizeof(*ss));
	freeaddrinfo(res);
	return 0;
}

bool pl_sockaddr_route_src(const struct sockaddr_storage *dest,
			   struct sockaddr_storage *src)
{
	socklen_t sl = sizeof(*src);
	bool ok;
	int fd;

	if (dest->ss_family != AF_INET && dest->ss_family != AF_INET6)
		return false;
	fd = socket(dest->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ok = !connect(fd, (const struct sockaddr *)dest,
		      pl_sockaddr_len(dest)) &&
	     !getsockname(fd, (struct sockaddr *)src, &sl);
	close(fd);
	return ok;
}

bool pl_sockaddr_same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

bool pl_sockaddr_wild(const struct sockaddr_storage *ss)
{
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;

	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return !memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr, &any6,
		       sizeof(any6));
}
