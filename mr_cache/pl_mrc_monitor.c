/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Choosing the process's memory monitor (pl_mrc_monitor.h).
 *
 * Lock: pl_mrc_mon_lock guards the fields below. It is taken only when a
 * cache opens or closes and when a monitor is imported; no event path
 * (the userfaultfd reader, an imported monitor's notify) ever takes it.
 */
#include <pthread.h>
#include <stddef.h>

#include <rdma/fi_errno.h>

#include "pl_log.h"
#include "pl_mrc_monitor.h"
#include "pl_mrc_param.h"

static pthread_mutex_t pl_mrc_mon_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pl_mrc_monitor *pl_mrc_mon_cur;	/* NULL: disabled */
static unsigned pl_mrc_mon_users;		/* open caches */

void pl_mrc_monitor_lock(void)
{
	pthread_mutex_lock(&pl_mrc_mon_lock);
}

void pl_mrc_monitor_unlock(void)
{
	pthread_mutex_unlock(&pl_mrc_mon_lock);
}

bool pl_mrc_monitor_in_use(void)
{
	return pl_mrc_mon_users > 0;
}

static struct pl_mrc_monitor *pl_mrc_monitor_choose(void)
{
	enum pl_mrc_param_monitor want = pl_mrc_param_monitor();
	struct pl_mrc_monitor *mon;
	const char *why = "", *mh_why = "";

	mon = pl_mrc_import_current();
	if (mon) {
		PL_INFO(FI_LOG_MR, "MR cache monitor: imported (the "
			"application installed its own through "
			"fi_open(\"mr_cache\"))\n");
		return mon;
	}
	switch (want) {
	case PL_MRC_MON_DISABLED:
		PL_INFO(FI_LOG_MR, "MR cache monitor: disabled "
			"(FI_MR_CACHE_MONITOR=disabled): registrations are "
			"not cached\n");
		return NULL;
	case PL_MRC_MON_MEMHOOKS:
		if (!pl_mrc_memhooks_start(&mon, &mh_why)) {
			PL_INFO(FI_LOG_MR, "MR cache monitor: memhooks "
				"(FI_MR_CACHE_MONITOR=memhooks)\n");
			return mon;
		}
		PL_WARN(FI_LOG_MR, "FI_MR_CACHE_MONITOR=memhooks: the memhooks "
			"monitor cannot run here (%s); trying userfaultfd "
			"instead\n", mh_why);
		break;
	default:
		break;
	}
	if (!pl_mrc_uffd_start(&mon, &why)) {
		PL_INFO(FI_LOG_MR, "MR cache monitor: userfaultfd (%s)\n",
			want == PL_MRC_MON_UFFD ?
			"FI_MR_CACHE_MONITOR=userfaultfd" :
			want == PL_MRC_MON_MEMHOOKS ?
			"fallback from memhooks" :
			"default: the kernel delivers unmap, remove and remap "
			"events");
		return mon;
	}
	if (want == PL_MRC_MON_AUTO) {
		if (!pl_mrc_memhooks_start(&mon, &mh_why)) {
			PL_INFO(FI_LOG_MR, "MR cache monitor: memhooks "
				"(default: userfaultfd is not usable: %s)\n",
				why);
			return mon;
		}
		PL_INFO(FI_LOG_MR, "MR cache monitor: disabled (userfaultfd is "
			"not usable: %s; memhooks cannot run: %s): "
			"registrations are not cached\n", why, mh_why);
	} else {
		PL_WARN(FI_LOG_MR, "MR cache monitor: disabled (userfaultfd is "
			"not usable: %s): registrations are not cached\n", why);
	}
	return NULL;
}

/* fork: the selection lock is held across the fork so the child's copy
 * is consistent and free (a cache opened or closed in the child must not
 * wait for a thread that only exists in the parent). */
static void pl_mrc_monitor_atfork_prepare(void)
{
	pthread_mutex_lock(&pl_mrc_mon_lock);
}

static void pl_mrc_monitor_atfork_release(void)
{
	pthread_mutex_unlock(&pl_mrc_mon_lock);
}

static pthread_once_t pl_mrc_mon_atfork_once = PTHREAD_ONCE_INIT;

static void pl_mrc_monitor_atfork_register(void)
{
	(void)pthread_atfork(pl_mrc_monitor_atfork_prepare,
			     pl_mrc_monitor_atfork_release,
			     pl_mrc_monitor_atfork_release);
}

int pl_mrc_monitor_get(struct pl_mrc_monitor **mon_p)
{
	(void)pthread_once(&pl_mrc_mon_atfork_once,
			   pl_mrc_monitor_atfork_register);
	pl_mrc_monitor_lock();
	if (pl_mrc_mon_users == 0)
		pl_mrc_mon_cur = pl_mrc_monitor_choose();
	pl_mrc_mon_users++;
	*mon_p = pl_mrc_mon_cur;
	pl_mrc_monitor_unlock();
	return 0;
}

void pl_mrc_monitor_put(struct pl_mrc_monitor *mon)
{
	pl_mrc_monitor_lock();
	if (--pl_mrc_mon_users == 0 && pl_mrc_mon_cur) {
		/* An imported monitor outlives the caches: the application
		 * stops it by closing its mr_cache fid. */
		if (pl_mrc_mon_cur != pl_mrc_import_current())
			pl_mrc_mon_cur->ops->stop(pl_mrc_mon_cur);
		pl_mrc_mon_cur = NULL;
	}
	pl_mrc_monitor_unlock();
}
