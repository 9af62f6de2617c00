/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_av_insertsvc and fi_av_insertsym for providers whose addresses come
 * from node and service names: the provider's resolve hook turns one
 * (node, service) into one address; this file expands insertsym's ranges
 * (fi_av(3)) and feeds the result to the common insert core, so both calls
 * share fi_av_insert's flags, completions and duplicate handling.
 *
 * Ranges: the service must be numeric when svccnt > 1 (service + j); the
 * node, when nodecnt > 1, is an IPv4 literal (the 32-bit address + i), an
 * IPv6 literal (its low 64 bits + i), or a name ending in digits (the
 * number + i, keeping its zero padding: host09, host10).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av_int.h"

#define PL_AV_SVC_NAME_MAX 256

/* The i-th node of the range starting at node, into out. */
static int pl_av_svc_node_at(const char *node, size_t i, char *out,
			     size_t len)
{
	unsigned char bin[16];
	size_t n, digits;
	int ret;

	if (i == 0)
		return snprintf(out, len, "%s", node) < (int)len ? 0 :
		       -FI_EINVAL;
	if (inet_pton(AF_INET, node, bin) == 1) {
		uint32_t v;

		memcpy(&v, bin, 4);
		v = htonl(ntohl(v) + (uint32_t)i);
		memcpy(bin, &v, 4);
		return inet_ntop(AF_INET, bin, out, (socklen_t)len) ? 0 :
		       -FI_EINVAL;
	}
	if (inet_pton(AF_INET6, node, bin) == 1) {
		uint64_t lo = 0;
		int b;

		for (b = 8; b < 16; b++)
			lo = lo << 8 | bin[b];
		lo += i;
		for (b = 15; b >= 8; b--, lo >>= 8)
			bin[b] = (unsigned char)lo;
		return inet_ntop(AF_INET6, bin, out, (socklen_t)len) ? 0 :
		       -FI_EINVAL;
	}
	n = strlen(node);
	for (digits = 0; digits < n && isdigit((unsigned char)node[n - 1 - digits]);)
		digits++;
	if (!digits || digits > 18)
		return -FI_EINVAL;	/* a name needs a numeric suffix */
	ret = snprintf(out, len, "%.*s%0*llu", (int)(n - digits), node,
		       (int)digits,
		       strtoull(node + n - digits, NULL, 10) + i);
	return ret >= 0 && ret < (int)len ? 0 : -FI_EINVAL;
}

/* The j-th service of the range starting at service, into out. */
static int pl_av_svc_service_at(const char *service, size_t j, char *out,
				size_t len)
{
	unsigned long long port;
	char *end;
	int ret;

	if (j == 0)
		return snprintf(out, len, "%s", service) < (int)len ? 0 :
		       -FI_EINVAL;
	errno = 0;
	port = strtoull(service, &end, 10);
	if (errno || end == service || *end)
		return -FI_EINVAL;
	ret = snprintf(out, len, "%llu", port + j);
	return ret >= 0 && ret < (int)len ? 0 : -FI_EINVAL;
}

int pl_av_svc_insertsym(struct fid_av *av_fid, const char *node,
			size_t nodecnt, const char *service, size_t svccnt,
			fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct pl_av *av = pl_av_of(av_fid);
	char nbuf[PL_AV_SVC_NAME_MAX], sbuf[PL_AV_SVC_NAME_MAX];
	unsigned char *addrs;
	size_t count, i, j, k;
	int *pre_err, ret;

	if (!node || !nodecnt || !svccnt || (!service && svccnt > 1) ||
	    nodecnt > SIZE_MAX / svccnt)
		return -FI_EINVAL;
	count = nodecnt * svccnt;
	ret = pl_av_insert_check(av, count, fi_addr, flags, context);
	if (ret)
		return ret;
	if (!av->ops || !av->ops->resolve)
		return -FI_ENOSYS;
	if (count > SIZE_MAX / av->addrlen)
		return -FI_EINVAL;
	addrs = calloc(count, av->addrlen);
	pre_err = calloc(count, sizeof(*pre_err));
	if (!addrs || !pre_err) {
		ret = -FI_ENOMEM;
		goto out;
	}
	/* All services of a node before the next node (fi_av(3)). */
	for (i = 0, k = 0; i < nodecnt; i++) {
		int nret = pl_av_svc_node_at(node, i, nbuf, sizeof(nbuf));

		for (j = 0; j < svccnt; j++, k++) {
			ret = nret;
			if (!ret && service)
				ret = pl_av_svc_service_at(service, j, sbuf,
							   sizeof(sbuf));
			if (!ret)
				ret = av->ops->resolve(av_fid, nbuf,
						       service ? sbuf : NULL,
						       addrs + k * av->addrlen);
			pre_err[k] = ret > 0 ? -FI_EINVAL : ret;
		}
	}
	ret = pl_av_insert_batch(av, addrs, count, pre_err, fi_addr, flags,
				 context);
out:
	free(pre_err);
	free(addrs);
	return ret;
}

int pl_av_svc_insertsvc(struct fid_av *av_fid, const char *node,
			const char *service, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	return pl_av_svc_insertsym(av_fid, node, 1, service, 1, fi_addr,
				   flags, context);
}
