/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic domain object (pl_domain.h): progress context, threading,
 * mr_mode negotiation, EQ binding and the busy-on-close rule.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>

#include "pl_domain.h"
#include "pl_hints_caps.h"
#include "pl_eq.h"
#include "pl_fabric_obj.h"
#include "pl_progress.h"

/* A bound EQ refuses fi_close while the domain holds it (pl_eq_ref
 * ignores an EQ that is not the engine's). */
static void pl_domain_eq_ref(struct fid_eq *eq) { pl_eq_ref(eq); }
static void pl_domain_eq_unref(struct fid_eq *eq) { pl_eq_unref(eq); }

/* Live domains: a list under a mutex; only cold paths (open, bind,
 * close, the contract accessors at object creation) look here. */
static pthread_mutex_t pl_domain_live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pl_domain *pl_domain_live;

struct pl_domain *pl_domain_of(const struct fid_domain *d)
{
	struct pl_domain *it;

	if (!d || d->fid.fclass != FI_CLASS_DOMAIN)
		return NULL;
	pthread_mutex_lock(&pl_domain_live_lock);
	for (it = pl_domain_live; it; it = it->live_next)
		if (&it->domain_fid == d)
			break;
	pthread_mutex_unlock(&pl_domain_live_lock);
	return it && it->magic == PL_DOMAIN_MAGIC ? it : NULL;
}

struct pl_progress_ctx *pl_domain_progress(struct fid_domain *d)
{
	struct pl_domain *dom = pl_domain_of(d);
	return dom ? dom->ctx : NULL;
}

enum fi_threading pl_domain_threading(const struct fid_domain *d)
{
	const struct pl_domain *dom = pl_domain_of(d);
	return dom ? dom->threading : FI_THREAD_SAFE;
}

uint32_t pl_domain_api_version(const struct fid_domain *d)
{
	const struct pl_domain *dom = pl_domain_of(d);
	return dom ? dom->api_version : FI_VERSION(1, 17);
}

#define PL_MR_OLD_BASIC_BITS (FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY)

int pl_domain_mr_mode(int app, int prov, uint32_t api_version)
{
	if (app == FI_MR_BASIC)
		app = PL_MR_OLD_BASIC_BITS;
	else if (app == FI_MR_SCALABLE)
		app = 0;
	else if (app == FI_MR_UNSPEC &&
		 FI_VERSION_LT(api_version, FI_VERSION(1, 5)))
		return prov;	/* old app: accepts BASIC or SCALABLE */
	/* Any bit the provider needs must be one the application supports;
	 * the application's extra bits are dropped (the provider does not
	 * need them), except FI_MR_LOCAL/HMEM which stay informative. */
	if ((prov & ~app) != 0)
		return -FI_ENODATA;
	return prov;
}

int pl_domain_init(struct pl_domain *dom, struct fid_fabric *fabric,
		   const struct fi_info *info, uint32_t api_version,
		   int prov_mr_mode, void *context)
{
	const struct fi_domain_attr *da;
	enum fi_threading th;
	int mr_mode, need, ret;

	if (!dom || !info || !info->domain_attr)
		return -FI_EINVAL;
	da = info->domain_attr;
	th = da->threading == FI_THREAD_UNSPEC ? FI_THREAD_SAFE : da->threading;
	switch (th) {
	case FI_THREAD_SAFE: case FI_THREAD_FID: case FI_THREAD_DOMAIN:
	case FI_THREAD_COMPLETION: case FI_THREAD_ENDPOINT:
		break;
	default:
		return -FI_EINVAL;
	}
	/* Only what the granted capabilities need is required of the
	 * application (pl_hints_caps_mr_need); for the rest, which it never
	 * sees at work, the domain keeps the provider's own choice. */
	need = pl_hints_caps_mr_need(prov_mr_mode, info->caps);
	mr_mode = pl_domain_mr_mode(da->mr_mode, need, api_version);
	if (mr_mode < 0)
		return mr_mode;
	mr_mode |= pl_hints_caps_mr_need(prov_mr_mode, 0) & ~need;

	memset(dom, 0, sizeof(*dom));
	ret = pl_progress_ctx_open(da->data_progress, th, NULL, &dom->ctx);
	if (ret)
		return ret;
	dom->domain_fid.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain_fid.fid.context = context;
	dom->magic = PL_DOMAIN_MAGIC;
	dom->threading = th;
	dom->data_progress = da->data_progress;
	dom->api_version = api_version;
	dom->mr_mode = mr_mode;
	dom->mr_iov_limit = da->mr_iov_limit ? da->mr_iov_limit : 1;
	dom->fabric = fabric;
	pl_fabric_obj_child_get(fabric);
	pl_store_relaxed(&dom->children, 0);
	pl_store_relaxed(&dom->eq, NULL);
	pthread_mutex_lock(&pl_domain_live_lock);
	dom->live_next = pl_domain_live;
	pl_domain_live = dom;
	pthread_mutex_unlock(&pl_domain_live_lock);
	return 0;
}

int pl_domain_fini(struct pl_domain *dom)
{
	struct fid_eq *eq;
	int ret;

	if (!dom)
		return -FI_EINVAL;
	/* acquire: pairs with the acq_rel decrement in pl_domain_child_put */
	if (pl_load_acquire(&dom->children) != 0)
		return -FI_EBUSY;
	eq = pl_exchange_acq_rel(&dom->eq, NULL);
	if (eq)
		pl_domain_eq_unref(eq);
	pthread_mutex_lock(&pl_domain_live_lock);
	for (struct pl_domain **pp = &pl_domain_live; *pp;
	     pp = &(*pp)->live_next) {
		if (*pp == dom) {
			*pp = dom->live_next;
			break;
		}
	}
	pthread_mutex_unlock(&pl_domain_live_lock);
	ret = dom->ctx ? pl_progress_ctx_close(dom->ctx) : 0;
	dom->ctx = NULL;
	pl_fabric_obj_child_put(dom->fabric);
	dom->magic = 0;
	return ret;
}

int pl_domain_bind(struct fid *domain_fid, struct fid *bfid, uint64_t flags)
{
	struct pl_domain *dom;
	void *expected = NULL;

	if (!domain_fid || !bfid)
		return -FI_EINVAL;
	dom = pl_domain_of((struct fid_domain *)domain_fid);
	if (!dom || bfid->fclass != FI_CLASS_EQ || (flags & ~FI_REG_MR))
		return -FI_EINVAL;
	/* acq_rel: pairs with the exchange in pl_domain_fini */
	if (!pl_cas_acq_rel(&dom->eq, &expected, bfid))
		return -FI_EALREADY;
	pl_domain_eq_ref((struct fid_eq *)bfid);
	return 0;
}

int pl_domain_close(struct fid *domain_fid)
{
	struct pl_domain *dom = pl_domain_of((struct fid_domain *)domain_fid);
	int ret;

	if (!dom)
		return -FI_EINVAL;
	ret = pl_domain_fini(dom);
	if (ret)
		return ret;
	free(dom);
	return 0;
}
