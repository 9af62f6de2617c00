/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_open(version, "mr_cache", ...) and the import of an application's
 * memory monitor (fi_mr(3), fi_provider(3), struct fid_mem_monitor in
 * fi_ext.h):
 *
 *	fi_open(FI_VERSION(1, 17), "mr_cache", NULL, 0, 0, &cache_fid, NULL);
 *	mon.fid.fclass = FI_CLASS_MEM_MONITOR;
 *	mon.export_ops = &my_ops;          (start, stop, subscribe, ...)
 *	fi_import_fid(cache_fid, &mon.fid, 0);
 *	... from the application's hooks:
 *	mon.import_ops->notify(&mon, addr, len);
 *
 * On import the library fills mon.import_ops and calls export_ops->start;
 * caches opened from then on use it (subscribe when a range is cached,
 * unsubscribe when its entry goes, valid, if given, at every hit). notify
 * may be called from any thread, in any context, even inside a memory
 * hook that holds malloc's lock: it only appends to the lock-free
 * invalidation log, and the range is invalid for every lookup that starts
 * after notify returns.
 *
 * A monitor can be imported or removed only while no cache is open
 * (-FI_EBUSY), as with the reference. A second import replaces the first
 * (whose stop is called). Closing the mr_cache fid stops and removes the
 * imported monitor (-FI_EBUSY while caches are open); the next cache uses
 * the built-in choice again. The imported struct must stay valid until
 * then. Import also fills the monitor's fid.ops, as the reference does:
 * fi_close on the monitor itself removes it too (and is a no-op once it
 * is no longer the imported one), never freeing the application's
 * struct.
 */
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_log.h"
#include "pl_mrc.h"
#include "pl_mrc_inval.h"
#include "pl_mrc_monitor.h"

struct pl_mrc_import_mon {
	struct pl_mrc_monitor mon;
	struct fid_mem_monitor *app;	/* selection lock */
};

/* The one imported monitor; guarded by the selection lock. */
static struct pl_mrc_import_mon pl_mrc_import_mon;
static struct pl_mrc_monitor *pl_mrc_import_cur;

struct pl_mrc_import_fid {
	struct fid fid;
};

/* The fid whose import is current (selection lock): closing it removes
 * the monitor; closing a fid whose import was replaced does not. */
static struct pl_mrc_import_fid *pl_mrc_import_owner;

struct pl_mrc_monitor *pl_mrc_import_current(void)
{
	return pl_mrc_import_cur;
}

static int pl_mrc_import_subscribe(struct pl_mrc_monitor *m, uintptr_t start,
				   uintptr_t end)
{
	struct fid_mem_monitor *app =
		pl_container_of(m, struct pl_mrc_import_mon, mon)->app;

	return app->export_ops->subscribe(app, (const void *)start,
					  end - start);
}

static void pl_mrc_import_unsubscribe(struct pl_mrc_monitor *m,
				      uintptr_t start, uintptr_t end)
{
	struct fid_mem_monitor *app =
		pl_container_of(m, struct pl_mrc_import_mon, mon)->app;

	if (app->export_ops->unsubscribe)
		app->export_ops->unsubscribe(app, (const void *)start,
					     end - start);
}

static bool pl_mrc_import_valid(struct pl_mrc_monitor *m, uintptr_t start,
				uintptr_t end)
{
	struct fid_mem_monitor *app =
		pl_container_of(m, struct pl_mrc_import_mon, mon)->app;

	if (!app->export_ops->valid)
		return true;
	return app->export_ops->valid(app, (const void *)start, end - start);
}

static void pl_mrc_import_stop(struct pl_mrc_monitor *m)
{
	(void)m;	/* stopped when its fid closes (pl_mrc_import_close) */
}

static const struct pl_mrc_monitor_ops pl_mrc_import_ops = {
	.subscribe = pl_mrc_import_subscribe,
	.unsubscribe = pl_mrc_import_unsubscribe,
	.valid = pl_mrc_import_valid,
	.sync = NULL,	/* notify publishes before it returns */
	.stop = pl_mrc_import_stop,
};

static void pl_mrc_import_notify(struct fid_mem_monitor *monitor,
				 const void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr;

	(void)monitor;
	if (!len)
		return;
	/* A range that wraps is clipped to the end of the address space. */
	pl_mrc_inval_publish(start, start + len < start ? UINTPTR_MAX :
			     start + len);
}

static struct fi_ops_mem_notify pl_mrc_import_notify_ops = {
	.size = sizeof(struct fi_ops_mem_notify),
	.notify = pl_mrc_import_notify,
};

/* Selection lock held, no cache open. */
static void pl_mrc_import_remove_locked(void)
{
	struct fid_mem_monitor *app = pl_mrc_import_mon.app;

	pl_mrc_import_cur = NULL;
	pl_mrc_import_mon.app = NULL;
	if (app && app->export_ops->stop)
		app->export_ops->stop(app);
}

/* fi_close on the application's own monitor fid (the reference fills its
 * ops on import, and Open MPI closes it after the mr_cache fid): detach
 * it if it is still the imported one. The struct stays the
 * application's. */
static int pl_mrc_import_app_close(struct fid *fid)
{
	struct fid_mem_monitor *app =
		pl_container_of(fid, struct fid_mem_monitor, fid);
	int ret = 0;

	pl_mrc_monitor_lock();
	if (pl_mrc_import_mon.app == app) {
		if (pl_mrc_monitor_in_use())
			ret = -FI_EBUSY;
		else
			pl_mrc_import_remove_locked();
	}
	pl_mrc_monitor_unlock();
	return ret;
}

static struct fi_ops pl_mrc_import_app_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_mrc_import_app_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static int pl_mrc_import_bind(struct fid *fid, struct fid *bfid,
			      uint64_t flags)
{
	struct pl_mrc_import_fid *f =
		pl_container_of(fid, struct pl_mrc_import_fid, fid);
	struct fid_mem_monitor *app;
	int ret;

	if (!bfid || bfid->fclass != FI_CLASS_MEM_MONITOR)
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	app = pl_container_of(bfid, struct fid_mem_monitor, fid);
	if (!app->export_ops || !app->export_ops->subscribe)
		return -FI_EINVAL;

	pl_mrc_monitor_lock();
	if (pl_mrc_monitor_in_use()) {
		ret = -FI_EBUSY;
		goto out;
	}
	pl_mrc_import_remove_locked();
	app->import_ops = &pl_mrc_import_notify_ops;
	if (app->export_ops->start) {
		ret = app->export_ops->start(app);
		if (ret) {
			app->import_ops = NULL;
			goto out;
		}
	}
	pl_mrc_import_mon.mon.name = "imported";
	pl_mrc_import_mon.mon.ops = &pl_mrc_import_ops;
	pl_store_relaxed(&pl_mrc_import_mon.mon.broken, 0);
	pl_mrc_import_mon.app = app;
	/* the application may fi_close its monitor (and does: Open MPI) */
	app->fid.ops = &pl_mrc_import_app_fid_ops;
	pl_mrc_import_cur = &pl_mrc_import_mon.mon;
	pl_mrc_import_owner = f;
	ret = 0;
	PL_INFO(FI_LOG_MR, "MR cache: application memory monitor imported\n");
out:
	pl_mrc_monitor_unlock();
	return ret;
}

static int pl_mrc_import_close(struct fid *fid)
{
	struct pl_mrc_import_fid *f =
		pl_container_of(fid, struct pl_mrc_import_fid, fid);

	pl_mrc_monitor_lock();
	if (pl_mrc_import_owner == f) {
		if (pl_mrc_monitor_in_use()) {
			pl_mrc_monitor_unlock();
			return -FI_EBUSY;
		}
		pl_mrc_import_remove_locked();
		pl_mrc_import_owner = NULL;
	}
	pl_mrc_monitor_unlock();
	free(f);
	return 0;
}

static struct fi_ops pl_mrc_import_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_mrc_import_close,
	.bind = pl_mrc_import_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

int pl_mrc_import_open(uint32_t version, void *attr, size_t attr_len,
		       uint64_t flags, struct fid **fid_p, void *context)
{
	struct pl_mrc_import_fid *f;

	(void)version;
	if (!fid_p || attr || attr_len)
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -FI_ENOMEM;
	f->fid.fclass = FI_CLASS_MR_CACHE;
	f->fid.context = context;
	f->fid.ops = &pl_mrc_import_fid_ops;
	*fid_p = &f->fid;
	return 0;
}
