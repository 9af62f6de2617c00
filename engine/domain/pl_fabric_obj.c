/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic fabric object (pl_fabric_obj.h): children count and the
 * busy-on-close rule. Live fabrics sit in a list under a mutex, as live
 * domains do (pl_domain.c): only open and close paths look there, and it
 * is what lets a child tell an engine fabric from a foreign one without
 * reading past a struct fid_fabric it does not own.
 */
#include <pthread.h>

#include <rdma/fi_errno.h>

#include "pl_fabric_obj.h"

static pthread_mutex_t pl_fabric_obj_live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pl_fabric_obj *pl_fabric_obj_live;

/* The live pl_fabric_obj behind fabric, or NULL; the caller holds the
 * registry lock. */
static struct pl_fabric_obj *pl_fabric_obj_find(struct fid_fabric *fabric)
{
	struct pl_fabric_obj *it;

	for (it = pl_fabric_obj_live; it; it = it->live_next)
		if (&it->fabric_fid == fabric)
			return it;
	return NULL;
}

void pl_fabric_obj_init(struct pl_fabric_obj *f, uint32_t api_version,
			void *context)
{
	f->fabric_fid.fid.fclass = FI_CLASS_FABRIC;
	f->fabric_fid.fid.context = context;
	f->fabric_fid.api_version = api_version;
	pl_store_relaxed(&f->children, 0);
	pthread_mutex_lock(&pl_fabric_obj_live_lock);
	f->live_next = pl_fabric_obj_live;
	pl_fabric_obj_live = f;
	pthread_mutex_unlock(&pl_fabric_obj_live_lock);
}

int pl_fabric_obj_fini(struct pl_fabric_obj *f)
{
	struct pl_fabric_obj **pp;

	if (!f)
		return -FI_EINVAL;
	/* acquire: pairs with the acq_rel decrement in child_put, so that a
	 * child's last use of the fabric happens before it is freed */
	if (pl_load_acquire(&f->children) != 0)
		return -FI_EBUSY;
	pthread_mutex_lock(&pl_fabric_obj_live_lock);
	for (pp = &pl_fabric_obj_live; *pp; pp = &(*pp)->live_next) {
		if (*pp == f) {
			*pp = f->live_next;
			break;
		}
	}
	pthread_mutex_unlock(&pl_fabric_obj_live_lock);
	return 0;
}

void pl_fabric_obj_child_get(struct fid_fabric *fabric)
{
	struct pl_fabric_obj *f;

	if (!fabric)
		return;
	pthread_mutex_lock(&pl_fabric_obj_live_lock);
	f = pl_fabric_obj_find(fabric);
	/* acq_rel: pairs with the acquire load in fini */
	if (f)
		pl_fetch_add_acq_rel(&f->children, 1);
	pthread_mutex_unlock(&pl_fabric_obj_live_lock);
}

void pl_fabric_obj_child_put(struct fid_fabric *fabric)
{
	struct pl_fabric_obj *f;

	if (!fabric)
		return;
	pthread_mutex_lock(&pl_fabric_obj_live_lock);
	f = pl_fabric_obj_find(fabric);
	/* acq_rel: the child's last use happens before fini's acquire */
	if (f)
		pl_fetch_sub_acq_rel(&f->children, 1);
	pthread_mutex_unlock(&pl_fabric_obj_live_lock);
}
