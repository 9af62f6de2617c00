/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Multi-recv trackers (rdm_ep_mrecv.h). The matching engine carves a
 * FI_MULTI_RECV buffer into placements and says which one releases it
 * (res->multi_last); when earlier placements are still moving their
 * data, the release waits for them, so that FI_MULTI_RECV is on the
 * buffer's last completion as fi_msg(3) requires. Under the lock.
 */
#include <stdlib.h>

#include "rdm_ep_mrecv.h"

struct rdm_ep_mrecv *rdm_ep_mrecv_find(struct rdm_ep *ep,
				       const struct pl_match_rx *mrx)
{
	struct rdm_ep_mrecv *m;

	for (m = *ep->mrecvp; m; m = m->next)
		if (m->mrx == mrx)
			return m;
	return NULL;
}

static struct rdm_ep_mrecv *rdm_ep_mrecv_new(struct rdm_ep *ep,
					     struct pl_match_rx *mrx)
{
	struct rdm_ep_mrecv *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mrx = mrx;
	m->next = *ep->mrecvp;
	*ep->mrecvp = m;
	return m;
}

void rdm_ep_mrecv_free(struct rdm_ep *ep, struct rdm_ep_mrecv *m)
{
	struct rdm_ep_mrecv **pp;

	for (pp = ep->mrecvp; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			free(m);
			return;
		}
}

void rdm_ep_mrecv_release(struct rdm_ep_mrecv *m)
{
	m->mrx = NULL;
	m->release = true;
}

void rdm_ep_mrecv_place(struct rdm_ep *ep, struct pl_match_rx *mrx,
			const struct pl_match_result *res,
			struct rdm_ep_rxp *p, bool later)
{
	struct rdm_ep_mrecv *m = rdm_ep_mrecv_find(ep, mrx);

	/* without memory for a tracker the placement is not tracked: its
	 * completion and the release may then come in either order */
	if (!m && later)
		m = rdm_ep_mrecv_new(ep, mrx);
	if (!m)
		return;
	p->mrecv = m;
	if (later)
		m->pending++;
	if (res->multi_last) {
		p->flags &= ~FI_MULTI_RECV;
		rdm_ep_mrecv_release(m);
	}
}

void rdm_ep_mrecv_settle(struct rdm_ep *ep, struct rdm_ep_rxp *p,
			 bool counted)
{
	struct rdm_ep_mrecv *m = p->mrecv;

	if (!m)
		return;
	if (counted)
		m->pending--;
	if (m->release && !m->pending) {
		p->flags |= FI_MULTI_RECV;
		rdm_ep_mrecv_free(ep, m);
	}
	p->mrecv = NULL;
}

void rdm_ep_mrecv_free_list(struct rdm_ep_mrecv **list)
{
	struct rdm_ep_mrecv *m;

	while ((m = *list)) {
		*list = m->next;
		free(m);
	}
}

void rdm_ep_mrecv_fini(struct rdm_ep *ep)
{
	/* its own list only: a shared receive context frees its own */
	rdm_ep_mrecv_free_list(&ep->mrecv);
}
