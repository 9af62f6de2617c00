/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The endpoint's locking strategy, chosen once at open from the domain's
 * threading and progress models (rdm_ep.h has the table; DESIGN.md
 * section 3: "the choice is made once, at object creation, not tested
 * per operation on the hot path" beyond one predictable branch).
 */
#include <rdma/fi_errno.h>

#include "pl_domain.h"
#include "rdm_ep.h"

int rdm_ep_lock_init(struct rdm_ep *ep, struct fid_domain *domain,
		     bool always)
{
	struct pl_domain *pd = pl_domain_of(domain);
	struct pl_progress_ctx *ctx = pl_domain_progress(domain);
	int ret;

	ep->lockp = &ep->lock;
	if (always) {
		/* a thread of the transport's own tries the mutex too: no
		 * other strategy excludes it */
		ep->asym = NULL;
		ep->locking = true;
		ret = pthread_mutex_init(&ep->lock, NULL);
		return ret ? -ret : 0;
	}

	/* the application serializes every call on the domain itself only
	 * under FI_THREAD_DOMAIN; a progress thread (FI_PROGRESS_AUTO)
	 * runs beside it anyway, unless the context excludes it (asym,
	 * which it chooses for FI_THREAD_DOMAIN auto only) */
	ep->asym = pl_progress_ctx_uses_asym(ctx) ? ctx : NULL;
	ep->locking = !ep->asym &&
		      !(pd->threading == FI_THREAD_DOMAIN &&
			pd->data_progress != FI_PROGRESS_AUTO);
	ret = pthread_mutex_init(&ep->lock, NULL);
	return ret ? -ret : 0;
}

void rdm_ep_lock_fini(struct rdm_ep *ep)
{
	pthread_mutex_destroy(&ep->lock);
}

bool rdm_ep_lock_try(struct rdm_ep *ep)
{
	return !ep->locking || !pthread_mutex_trylock(ep->lockp);
}

void rdm_ep_lock_untry(struct rdm_ep *ep)
{
	if (ep->locking) {
		/* relaxed: a hint, see rdm_ep_progress.c */
		pl_store_relaxed(&ep->dirty, 1u);
		pthread_mutex_unlock(ep->lockp);
	}
}
