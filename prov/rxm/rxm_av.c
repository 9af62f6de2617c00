/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rxm AV: the engine's (pl_av.h: RCU lookups, the FI_SOURCE reverse
 * map) over socket addresses of the domain's format, an rxm endpoint's
 * name (the address of its listener, rxm_conn.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "pl_compiler.h"
#include "rxm_prov.h"

static int rxm_av_validate(struct fid_av *av, const void *addr)
{
	const struct sockaddr *sa = addr;
	size_t len = pl_av_addrlen(av);

	if (len == sizeof(struct sockaddr_in) && sa->sa_family == AF_INET)
		return 0;
	if (len == sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6)
		return 0;
	return -FI_EINVAL;
}

static void rxm_av_straddr(struct fid_av *av, const void *addr, char *buf,
			   size_t *len)
{
	const struct sockaddr *sa = addr;
	char ip[INET6_ADDRSTRLEN] = "?", out[INET6_ADDRSTRLEN + 40];
	int n;

	(void)av;
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = addr;

		(void)inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		n = snprintf(out, sizeof(out), "fi_sockaddr_in6://[%s]:%u",
			     ip, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in = addr;

		(void)inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		n = snprintf(out, sizeof(out), "fi_sockaddr_in://%s:%u", ip,
			     ntohs(in->sin_port));
	}
	if (*len) {
		size_t k = (size_t)n < *len - 1 ? (size_t)n : *len - 1;

		memcpy(buf, out, k);
		buf[k] = '\0';
	}
	*len = (size_t)n + 1;
}

static const struct pl_av_addr_ops rxm_av_addr_ops = {
	.validate = rxm_av_validate,
	.straddr = rxm_av_straddr,
};

int rxm_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_p, void *context)
{
	struct rxm_domain *d = pl_container_of(domain, struct rxm_domain,
					       base.domain_fid);

	return pl_av_open(domain, attr, d->addrlen, &rxm_av_addr_ops, av_p,
			  context);
}
