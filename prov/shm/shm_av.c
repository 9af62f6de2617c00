/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm AV: the engine's (engine/include/pl_av.h: RCU lookups, FI_SOURCE
 * reverse map, named shared AVs) over fixed-size entries of
 * SHM_NAME_MAX bytes holding the NUL-padded FI_ADDR_STR name. Only
 * fi_av_insert differs: applications pass names as fi_getname returned
 * them, packed back to back (each strlen + 1 bytes), so the wrapper
 * re-lays them out at the fixed stride before the engine inserts them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "shm_addr.h"
#include "shm_ep.h"

static int shm_av_validate(struct fid_av *av, const void *addr)
{
	(void)av;
	return shm_addr_check(addr, SHM_NAME_MAX);
}

static void shm_av_straddr(struct fid_av *av, const void *addr, char *buf,
			   size_t *len)
{
	size_t n = strnlen(addr, SHM_NAME_MAX - 1);

	(void)av;
	if (*len) {
		size_t k = n < *len - 1 ? n : *len - 1;

		memcpy(buf, addr, k);
		buf[k] = '\0';
	}
	*len = n + 1;
}

static int shm_av_resolve(struct fid_av *av, const char *node,
			  const char *service, void *addr)
{
	int n;

	(void)av;
	memset(addr, 0, SHM_NAME_MAX);
	n = shm_addr_resolve(node, service, addr, SHM_NAME_MAX);
	return n < 0 ? n : 0;
}

static const struct pl_av_addr_ops shm_av_addr_ops = {
	.validate = shm_av_validate,
	.straddr = shm_av_straddr,
	.resolve = shm_av_resolve,
};

/* The engine's table, and ours: a copy with insert replaced. Both are
 * written once, under shm_av_ops_lock, before the first AV is handed
 * out; every AV the engine builds points at the same table. */
static pthread_mutex_t shm_av_ops_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fi_ops_av *shm_av_engine_ops;
static struct fi_ops_av shm_av_ops;

static int shm_av_insert(struct fid_av *av, const void *addr, size_t count,
			 fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	const char *p = addr;
	char *fixed;
	size_t i, n;
	int ret;

	if (count && !addr)
		return -FI_EINVAL;
	fixed = calloc(count ? count : 1, SHM_NAME_MAX);
	if (!fixed)
		return -FI_ENOMEM;
	for (i = 0; i < count; i++) {
		n = strnlen(p, SHM_NAME_MAX);
		if (n == SHM_NAME_MAX) {
			/* no NUL where a name must end: the rest cannot be
			 * walked; those entries stay empty, so invalid */
			break;
		}
		memcpy(fixed + i * SHM_NAME_MAX, p, n);
		p += n + 1;
	}
	ret = shm_av_engine_ops->insert(av, fixed, count, fi_addr, flags,
					context);
	free(fixed);
	return ret;
}

int shm_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_p, void *context)
{
	struct fid_av *av;
	int ret;

	ret = pl_av_open(domain, attr, SHM_NAME_MAX, &shm_av_addr_ops, &av,
			 context);
	if (ret)
		return ret;
	pthread_mutex_lock(&shm_av_ops_lock);
	if (!shm_av_engine_ops) {
		shm_av_engine_ops = av->ops;
		shm_av_ops = *av->ops;
		shm_av_ops.insert = shm_av_insert;
	}
	pthread_mutex_unlock(&shm_av_ops_lock);
	av->ops = &shm_av_ops;
	*av_p = av;
	return 0;
}
