/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cache's FI_* variables, defined in the cache's own parameter table
 * (pl_mrc_param.c) under the core's name space:
 *   FI_MR_CACHE_MAX_COUNT  default 1024; 0 disables caching
 *   FI_MR_CACHE_MAX_SIZE   default physical memory / online CPUs / 2;
 *                          0 disables caching
 *   FI_MR_CACHE_MONITOR    userfaultfd | memhooks | disabled; unset picks
 * Read each time a cache (or the monitor) starts, so a bad value is warned
 * about then, naming the variable, and the default is kept.
 * Concurrency: any thread (the table is defined under pthread_once).
 */
#ifndef PROPEL_PL_MRC_PARAM_H
#define PROPEL_PL_MRC_PARAM_H

#include <stddef.h>

#define PL_MRC_MAX_COUNT_DEFAULT 1024

enum pl_mrc_param_monitor {
	PL_MRC_MON_AUTO,
	PL_MRC_MON_UFFD,
	PL_MRC_MON_MEMHOOKS,
	PL_MRC_MON_DISABLED,
};

/* Define the table (idempotent); fi_info -e lists the rows once the engine
 * calls this from its parameter discovery hook. */
void pl_mrc_param_init(void);

size_t pl_mrc_param_max_count(void);
size_t pl_mrc_param_max_size(void);
enum pl_mrc_param_monitor pl_mrc_param_monitor(void);

#endif /* PROPEL_PL_MRC_PARAM_H */
