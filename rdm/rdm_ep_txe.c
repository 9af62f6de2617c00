/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The endpoint's tx entries: one per send in flight, a fixed number
 * (tx_attr->size) allocated at open, so that fi_tx_size_left is exact
 * and a send never allocates. get / put are inline (rdm_ep.h).
 */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "rdm_ep.h"

int rdm_ep_txe_init(struct rdm_ep *ep, size_t n)
{
	size_t i;

	ep->txe = calloc(n ? n : 1, sizeof(*ep->txe));
	if (!ep->txe)
		return -FI_ENOMEM;
	ep->ntxe = n;
	ep->txe_free = NULL;
	/* in reverse, so that the first get returns entry 0 */
	for (i = n; i-- > 0;)
		rdm_ep_txe_put(ep, &ep->txe[i]);
	return 0;
}

void rdm_ep_txe_fini(struct rdm_ep *ep)
{
	free(ep->txe);
	ep->txe = NULL;
	ep->txe_free = NULL;
	ep->ntxe = 0;
}
