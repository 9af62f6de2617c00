/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic domain object (pl_domain.h): progress context (its own, or
 * the owner's for a peer domain), threading, mr_mode negotiation, EQ
 * binding and the busy-on-close rule.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_ext.h>

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

/* UNSPEC is manual (pl_progress_ctx_open). */
static enum fi_progress pl_domain_progress_kind(enum fi_progress p)
{
	return p == FI_PROGRESS_AUTO ? FI_PROGRESS_AUTO : FI_PROGRESS_MANUAL;
}

/*
 * A domain that shares owner's context must make the choices the
 * context was opened for: whether a token or a thread exists is fixed
 * there, and every strategy of the domain's objects (CQ queues, endpoint
 * locks) follows from threading and data_progress. So the peer asks for
 * the owner's, or leaves them UNSPEC and gets them.
 */
static int pl_domain_join_check(const struct pl_domain *owner,
				const struct fi_domain_attr *da)
{
	if (da->threading != FI_THREAD_UNSPEC &&
	    da->threading != owner->threading)
		return -FI_EINVAL;
	if (da->data_progress != FI_PROGRESS_UNSPEC &&
	    pl_domain_progress_kind(da->data_progress) !=
	    pl_domain_progress_kind(owner->data_progress))
		return -FI_EINVAL;
	return 0;
}

/* pl_domain_init, sharing owner's progress context when owner is set. */
static int pl_domain_setup(struct pl_domain *dom, struct fid_fabric *fabric,
			   const struct fi_info *info, uint32_t api_version,
			   int prov_mr_mode, struct pl_domain *owner,
			   void *context)
{
	const struct fi_domain_attr *da;
	enum fi_progress progress;
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
	progress = da->data_progress;
	if (owner) {
		ret = pl_domain_join_check(owner, da);
		if (ret)
			return ret;
		th = owner->threading;
		progress = owner->data_progress;
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
	if (owner) {
		/* the owner cannot close (nor its context) while we count as
		 * its child; released in pl_domain_fini */
		pl_domain_child_get(owner);
		dom->owner = owner;
		dom->ctx = owner->ctx;
	} else {
		ret = pl_progress_ctx_open(progress, th, NULL, &dom->ctx);
		if (ret)
			return ret;
	}
	dom->domain_fid.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain_fid.fid.context = context;
	dom->magic = PL_DOMAIN_MAGIC;
	dom->threading = th;
	dom->data_progress = progress;
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

int pl_domain_init(struct pl_domain *dom, struct fid_fabric *fabric,
		   const struct fi_info *info, uint32_t api_version,
		   int prov_mr_mode, void *context)
{
	return pl_domain_setup(dom, fabric, info, api_version, prov_mr_mode,
			       NULL, context);
}

int pl_domain_init2(struct pl_domain *dom, struct fid_fabric *fabric,
		    const struct fi_info *info, uint32_t api_version,
		    int prov_mr_mode, uint64_t flags, void *context)
{
	const struct fi_peer_domain_context *pc = context;

	if (!flags)
		return pl_domain_init(dom, fabric, info, api_version,
				      prov_mr_mode, context);
	if (flags & ~(uint64_t)FI_PEER)
		return -FI_EBADFLAGS;
	if (!pc || pc->size < sizeof(*pc) || !pc->domain ||
	    pc->domain->fid.fclass != FI_CLASS_DOMAIN)
		return -FI_EINVAL;
	/* NULL for a foreign owner: a context of our own (pl_domain.h) */
	return pl_domain_setup(dom, fabric, info, api_version, prov_mr_mode,
			       pl_domain_of(pc->domain), context);
}

bool pl_domain_serialized(const struct pl_domain *dom)
{
	for (; dom; dom = dom->owner)
		if (dom->threading != FI_THREAD_DOMAIN ||
		    dom->data_progress == FI_PROGRESS_AUTO ||
		    dom->own_writer_thread)
			return false;
	return true;
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
	if (dom->owner) {
		/* the context is the owner's: our objects, closed before us,
		 * removed their sources from it */
		pl_domain_child_put(dom->owner);
		dom->owner = NULL;
		ret = 0;
	} else {
		ret = dom->ctx ? pl_progress_ctx_close(dom->ctx) : 0;
	}
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
