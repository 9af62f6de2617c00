/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The endpoint's rx entries: the completion record of a reception whose
 * data still moves after its match (rdm_ep_rx.c keeps the others on the
 * stack). A serial pool (pl_bufpool.h): every get and put runs under the
 * endpoint lock (rdm_ep.h); no chunk is mapped before the first
 * reception that needs one, so an endpoint that only ever receives
 * small messages pays nothing.
 */
#include <rdma/fi_errno.h>

#include "pl_bufpool.h"
#include "rdm_ep.h"

/* Records per chunk: a few pages, not the pool's 64 KiB default, since
 * most endpoints hold few receptions in flight at once. */
#define RDM_EP_RXP_CHUNK	32

int rdm_ep_rxp_init(struct rdm_ep *ep)
{
	struct pl_bufpool_attr attr = {
		.obj_size = sizeof(struct rdm_ep_rxp),
		.chunk_objs = RDM_EP_RXP_CHUNK,
		.flags = PL_BUFPOOL_F_SERIAL,
	};

	return pl_bufpool_create(&attr, &ep->rxp_pool);
}

void rdm_ep_rxp_fini(struct rdm_ep *ep)
{
	pl_bufpool_destroy(ep->rxp_pool);
	ep->rxp_pool = NULL;
}

struct rdm_ep_rxp *rdm_ep_rxp_get(struct rdm_ep *ep)
{
	void *p;

	return __pl_bufpool_alloc(ep->rxp_pool, &p) ? NULL : p;
}

void rdm_ep_rxp_put(struct rdm_ep *ep, struct rdm_ep_rxp *p)
{
	__pl_bufpool_free(ep->rxp_pool, p);
}
