/* SPDX-License-Identifier: BSD-2-Clause */
/* shm endpoint names (shm_addr.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "shm_addr.h"
#include "shm_layout.h"

static int shm_addr_put(char *buf, size_t len, int n)
{
	if (n < 0)
		return -FI_EINVAL;
	if ((size_t)n >= len || n >= SHM_NAME_MAX)
		return -FI_ETOOSMALL;
	return n;
}

int shm_addr_resolve(const char *node, const char *service, char *buf,
		     size_t len)
{
	char tmp[SHM_NAME_MAX * 2];
	int n;

	if (node && strstr(node, "://"))
		n = snprintf(tmp, sizeof(tmp), "%s", node);
	else if (node && service)
		n = snprintf(tmp, sizeof(tmp), SHM_ADDR_NS_PREFIX "%s:%s",
			     node, service);
	else if (service)
		n = snprintf(tmp, sizeof(tmp), SHM_ADDR_NS_PREFIX "%s", service);
	else if (node)
		n = snprintf(tmp, sizeof(tmp), SHM_ADDR_PREFIX "%s", node);
	else
		n = snprintf(tmp, sizeof(tmp), SHM_ADDR_PREFIX "%d",
			     (int)getpid());
	n = shm_addr_put(buf, len, n);
	if (n >= 0)
		memcpy(buf, tmp, (size_t)n + 1);
	return n;
}

/* Is a the address of one of this host's interfaces? */
static bool shm_addr_ip_mine(int family, const void *a)
{
	struct ifaddrs *ifs, *i;
	bool mine = false;

	if (getifaddrs(&ifs))
		return false;
	for (i = ifs; i && !mine; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family)
			continue;
		if (family == AF_INET)
			mine = !memcmp(&((struct sockaddr_in *)
					 i->ifa_addr)->sin_addr, a,
				       sizeof(struct in_addr));
		else
			mine = !memcmp(&((struct sockaddr_in6 *)
					 i->ifa_addr)->sin6_addr, a,
				       sizeof(struct in6_addr));
	}
	freeifaddrs(ifs);
	return mine;
}

/* Do a and b agree up to the first '.' of the shorter-labelled one
 * ("h" and "h.example" name the same host)? */
static bool shm_addr_host_eq(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	if (!strcmp(a, b))
		return true;
	return la == lb && !strncmp(a, b, la) &&
	       (a[la] == '\0' || b[lb] == '\0');
}

bool shm_addr_node_local(const char *node)
{
	unsigned char ip[sizeof(struct in6_addr)];
	char host[256];
	const char *c;

	if (!node || strstr(node, "://"))
		return true;
	for (c = node; *c && isdigit((unsigned char)*c); c++)
		;
	if (*node && !*c)
		return true;	/* a pid: shm's own local name */
	if (!strcmp(node, "localhost") || !strncmp(node, "localhost.", 10))
		return true;
	if (inet_pton(AF_INET, node, ip) == 1)
		return ip[0] == 127 || shm_addr_ip_mine(AF_INET, ip);
	if (inet_pton(AF_INET6, node, ip) == 1)
		return IN6_IS_ADDR_LOOPBACK((struct in6_addr *)ip) ||
		       shm_addr_ip_mine(AF_INET6, ip);
	if (gethostname(host, sizeof(host)))
		return false;
	host[sizeof(host) - 1] = '\0';
	return shm_addr_host_eq(node, host);
}

int shm_addr_ep_name(const char *src, uid_t uid, unsigned idx, char *buf,
		     size_t len)
{
	char tmp[SHM_NAME_MAX * 2];
	int n;

	if (!src || !strstr(src, "://"))
		return -FI_EINVAL;
	if (!strncmp(src, SHM_ADDR_PREFIX, strlen(SHM_ADDR_PREFIX)))
		n = snprintf(tmp, sizeof(tmp), "%s:%u:%u", src, (unsigned)uid,
			     idx);
	else
		n = snprintf(tmp, sizeof(tmp), "%s", src);
	n = shm_addr_put(buf, len, n);
	if (n >= 0)
		memcpy(buf, tmp, (size_t)n + 1);
	return n;
}

int shm_addr_format(pid_t pid, uid_t uid, unsigned idx, char *buf,
		    size_t len)
{
	char tmp[SHM_NAME_MAX];
	int n;

	n = snprintf(tmp, sizeof(tmp), SHM_ADDR_PREFIX "%d:%u:%u", (int)pid,
		     (unsigned)uid, idx);
	n = shm_addr_put(buf, len, n);
	if (n >= 0)
		memcpy(buf, tmp, (size_t)n + 1);
	return n;
}

/* Strict unsigned decimal up to max; end at *endp. */
static int shm_addr_num(const char *s, unsigned long max, char stop,
			unsigned long *v_p, const char **end_p)
{
	unsigned long v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -FI_EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > max)
			return -FI_EINVAL;
	}
	if (*p != stop)
		return -FI_EINVAL;
	*v_p = v;
	*end_p = p;
	return 0;
}

int shm_addr_parse(const char *addr, pid_t *pid_p, uid_t *uid_p,
		   unsigned *idx_p)
{
	unsigned long pid, uid, idx;
	const char *p;

	if (!addr || strncmp(addr, SHM_ADDR_PREFIX, strlen(SHM_ADDR_PREFIX)))
		return -FI_EINVAL;
	p = addr + strlen(SHM_ADDR_PREFIX);
	if (shm_addr_num(p, INT_MAX, ':', &pid, &p) ||
	    shm_addr_num(p + 1, UINT_MAX, ':', &uid, &p) ||
	    shm_addr_num(p + 1, UINT_MAX, '\0', &idx, &p) || !pid)
		return -FI_EINVAL;
	*pid_p = (pid_t)pid;
	*uid_p = (uid_t)uid;
	*idx_p = (unsigned)idx;
	return 0;
}

int shm_addr_check(const void *addr, size_t addrlen)
{
	const char *s = addr, *sep;
	size_t n;

	if (!addr || !addrlen)
		return -FI_EINVAL;
	n = strnlen(s, addrlen);
	if (n == addrlen || n >= SHM_NAME_MAX)
		return -FI_EINVAL;
	sep = strstr(s, "://");
	if (!sep || sep == s || !sep[3])
		return -FI_EINVAL;
	return 0;
}

int shm_addr_region_name(const char *addr, char *buf, size_t len)
{
	char tmp[SHM_NAME_MAX + 64], *q;
	const char *rest;
	unsigned idx;
	pid_t pid;
	uid_t uid;
	int n;

	if (!shm_addr_parse(addr, &pid, &uid, &idx)) {
		n = snprintf(tmp, sizeof(tmp), "/propel-shm-%u-%d-%u",
			     (unsigned)uid, (int)pid, idx);
	} else {
		rest = addr ? strstr(addr, "://") : NULL;
		if (!rest || !rest[3] || strlen(rest) >= SHM_NAME_MAX)
			return -FI_EINVAL;
		n = snprintf(tmp, sizeof(tmp), "/propel-shm-%u-n-%s",
			     (unsigned)getuid(), rest + 3);
		for (q = tmp + 1; *q; q++)
			if (*q == '/')
				*q = '_';
	}
	if (n < 0 || (size_t)n >= len)
		return -FI_ETOOSMALL;
	memcpy(buf, tmp, (size_t)n + 1);
	return n;
}
