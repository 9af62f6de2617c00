/* SPDX-License-Identifier: BSD-2-Clause */
/* shm endpoint names (shm_addr.h). */
#include <limits.h>
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
