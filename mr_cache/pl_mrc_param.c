/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The registration cache's parameter table (pl_mrc_param.h). The names
 * and meanings are the reference's (fi_mr(3)), so job scripts keep
 * working.
 */
#include <pthread.h>
#include <stdint.h>
#include <strings.h>
#include <unistd.h>

#include "pl_compiler.h"
#include "pl_log.h"
#include "pl_mrc_param.h"
#include "pl_param.h"

#define PL_STR_(x) #x
#define PL_STR(x) PL_STR_(x)

static const struct pl_param_def pl_mrc_param_table[] = {
	{ "mr_cache_max_size", FI_PARAM_SIZE_T,
	  "physical memory / online CPUs / 2",
	  "Bytes of memory the registration cache may keep registered, in "
	  "use or not; unused registrations are evicted, least recently "
	  "used first, to stay under it. 0 disables the cache" },
	{ "mr_cache_max_count", FI_PARAM_SIZE_T,
	  PL_STR(PL_MRC_MAX_COUNT_DEFAULT),
	  "Registrations the cache may keep, in use or not; 0 disables the "
	  "cache" },
	{ "mr_cache_monitor", FI_PARAM_STRING,
	  "userfaultfd when the kernel allows it, else memhooks, else "
	  "disabled",
	  "How the cache learns that registered memory was unmapped or "
	  "changed: userfaultfd (kernel events), memhooks (munmap, mremap, "
	  "madvise, brk/sbrk, shmdt, free and realloc intercepted by patching "
	  "the GOT of every loaded object; misses raw system calls and static "
	  "executables, see docs/mr-cache.md) or disabled (no caching)" },
};

static pthread_once_t pl_mrc_param_once = PTHREAD_ONCE_INIT;

static void pl_mrc_param_define(void)
{
	/* A row lost to ENOMEM makes the getters keep their defaults. */
	(void)pl_param_table_define(&pl_core_prov, pl_mrc_param_table,
				    PL_ARRAY_SIZE(pl_mrc_param_table));
}

void pl_mrc_param_init(void)
{
	pthread_once(&pl_mrc_param_once, pl_mrc_param_define);
}

size_t pl_mrc_param_max_count(void)
{
	pl_mrc_param_init();
	return pl_param_get_size(&pl_core_prov, "mr_cache_max_count",
				 PL_MRC_MAX_COUNT_DEFAULT, 0, SIZE_MAX);
}

static size_t pl_mrc_param_default_size(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psize = sysconf(_SC_PAGESIZE);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (pages <= 0 || psize <= 0)
		return SIZE_MAX;
	if (cpus <= 0)
		cpus = 1;
	return (size_t)pages / (size_t)cpus / 2 * (size_t)psize;
}

size_t pl_mrc_param_max_size(void)
{
	pl_mrc_param_init();
	return pl_param_get_size(&pl_core_prov, "mr_cache_max_size",
				 pl_mrc_param_default_size(), 0, SIZE_MAX);
}

enum pl_mrc_param_monitor pl_mrc_param_monitor(void)
{
	const char *v;

	pl_mrc_param_init();
	v = pl_param_get_str(&pl_core_prov, "mr_cache_monitor", NULL);
	/* An empty assignment in a job script means "not set". */
	if (!v || !*v)
		return PL_MRC_MON_AUTO;
	if (!strcasecmp(v, "userfaultfd"))
		return PL_MRC_MON_UFFD;
	if (!strcasecmp(v, "memhooks"))
		return PL_MRC_MON_MEMHOOKS;
	if (!strcasecmp(v, "disabled"))
		return PL_MRC_MON_DISABLED;
	PL_WARN(FI_LOG_MR, "FI_MR_CACHE_MONITOR=\"%s\" is not valid: expected "
		"userfaultfd, memhooks or disabled; using the default "
		"(userfaultfd, else memhooks)\n", v);
	return PL_MRC_MON_AUTO;
}
