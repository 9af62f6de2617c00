/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_mrc_monitor: the memory monitors behind the registration caches, and
 * the choice among them.
 *
 * A monitor learns that the pages behind an address range changed
 * (unmapped, discarded, moved) and publishes the range to the
 * invalidation log (pl_mrc_inval.h), which every cache drains before it
 * answers. One monitor serves the whole process; it is chosen when the
 * first cache opens and kept while any cache is open:
 *
 *   an imported monitor   fi_open("mr_cache") + fi_import_fid (pl_mrc_import.c)
 *   FI_MR_CACHE_MONITOR=userfaultfd | memhooks | disabled
 *   unset: userfaultfd when the kernel lets us use it, else memhooks
 *          when the hooks can be installed, else disabled
 *
 * memhooks asked for and not installable falls back to userfaultfd;
 * userfaultfd asked for and refused disables caching. A bad value is
 * warned about (naming the variable and the accepted values) and the
 * default kept. One info line says which monitor runs and why; a monitor
 * asked for and not available is a warning.
 *
 * Concurrency: pl_mrc_monitor_get/put and the import and removal of an
 * application's monitor (pl_mrc_import.c, fi_open "mr_cache")
 * serialize on one mutex (never taken by a monitor's event path). The
 * ops of the monitor returned may be called from any thread while the
 * caller holds its reference.
 *
 * Fork: the child of a fork keeps the parent's caches but not the
 * userfaultfd reader (and the uffd context watches the parent's address
 * space), and memory marked MADV_DONTFORK/WIPEONFORK changes in the
 * child without any call memhooks could see; so a child's monitor
 * reports itself broken (usable() false): its caches then drop every
 * entry and stop caching.
 */
#ifndef PROPEL_PL_MRC_MONITOR_H
#define PROPEL_PL_MRC_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fi_ext.h>

#include "pl_atomic.h"

struct pl_mrc_monitor;

struct pl_mrc_monitor_ops {
	/* Start watching [start, end) (page-aligned by the monitor if it
	 * needs it). 0, or a negative -FI_E* when the range cannot be
	 * watched: the cache then hands out an uncached registration. */
	int	(*subscribe)(struct pl_mrc_monitor *m, uintptr_t start,
			     uintptr_t end);
	/* May be NULL: the range's last entry is gone. */
	void	(*unsubscribe)(struct pl_mrc_monitor *m, uintptr_t start,
			       uintptr_t end);
	/* May be NULL: false when a cached range is known stale. */
	bool	(*valid)(struct pl_mrc_monitor *m, uintptr_t start,
			 uintptr_t end);
	/* May be NULL: return only once every change whose system call
	 * has returned (in any thread) is in the invalidation log. */
	void	(*sync)(struct pl_mrc_monitor *m);
	/* Stop; called with the selection lock held when the last cache
	 * goes. Never called for a monitor that start did not return. */
	void	(*stop)(struct pl_mrc_monitor *m);
};

struct pl_mrc_monitor {
	const char			*name;
	const struct pl_mrc_monitor_ops	*ops;
	/* Set (release) in a forked child; read (acquire) by caches. */
	pl_atomic_int			broken;
};

/*
 * A reference on the process's monitor, starting one if none runs; *mon_p
 * is NULL when caching is disabled (by FI_MR_CACHE_MONITOR or because no
 * monitor can run). Returns 0 or -FI_ENOMEM.
 */
int pl_mrc_monitor_get(struct pl_mrc_monitor **mon_p);
/* Drop the reference from pl_mrc_monitor_get (mon may be NULL). */
void pl_mrc_monitor_put(struct pl_mrc_monitor *mon);

static inline bool pl_mrc_monitor_usable(struct pl_mrc_monitor *m)
{
	/* acquire: pairs with the release in the fork child handler. */
	return !pl_load_acquire(&m->broken);
}

/* The userfaultfd monitor (pl_mrc_uffd.c). start returns -FI_E* and a
 * reason ("kernel.unprivileged_userfaultfd=0 ...") when it cannot run. */
int pl_mrc_uffd_start(struct pl_mrc_monitor **mon_p, const char **why_p);

/* The memhooks monitor (pl_mrc_memhooks.c): GOT patching. start returns
 * -FI_E* and a reason when the hooks cannot be installed. */
int pl_mrc_memhooks_start(struct pl_mrc_monitor **mon_p, const char **why_p);

/* The imported monitor (pl_mrc_import.c): the current one, or NULL. Read
 * with the selection lock held. */
struct pl_mrc_monitor *pl_mrc_import_current(void);

/* Selection lock, for pl_mrc_import.c: install/remove an imported
 * monitor only while no cache holds a monitor (-FI_EBUSY otherwise). */
void pl_mrc_monitor_lock(void);
void pl_mrc_monitor_unlock(void);
bool pl_mrc_monitor_in_use(void);	/* lock held */

#endif /* PROPEL_PL_MRC_MONITOR_H */
