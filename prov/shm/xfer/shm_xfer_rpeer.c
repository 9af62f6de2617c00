/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The receiver's side of the peer table (struct shm_rpeer, one counted
 * record per generation of an entry in our region): found by index and
 * generation from a command, mapped on demand. Under the endpoint's
 * serialization.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_clock.h"
#include "pl_compiler.h"
#include "pl_proc.h"
#include "shm_addr.h"
#include "shm_cma.h"
#include "shm_cmd.h"
#include "shm_params.h"
#include "shm_xfer_int.h"

struct shm_rpeer *shm_xfer_rpeer(struct shm_xfer_ep *ep, uint16_t idx,
				 uint32_t gen)
{
	struct shm_rpeer *rp, *old;
	struct shm_peer_ent *e;
	uint32_t st;

	/* idx < our own count: the table was sized from it (a header's
	 * count may say anything) */
	if (idx >= ep->region->geo.peer_count)
		return NULL;
	old = ep->rpeers[idx];
	if (PL_LIKELY(old && old->state == ((gen << 2) | SHM_PEER_LIVE)))
		return old;
	e = &ep->region->peers[idx];
	/* acquire: pairs with the release store of LIVE in
	 * shm_xfer_peer_open: the name and pid are visible */
	st = pl_load_acquire(&e->state);
	if (st != ((gen << 2) | SHM_PEER_LIVE))
		return NULL;	/* entry changed hands: a stale command */
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return NULL;
	rp->pid = e->pid;
	memcpy(rp->name, e->name, sizeof(rp->name));
	rp->name[sizeof(rp->name) - 1] = '\0';
	rp->state = st;
	rp->refs = 1;		/* the table's */
	ep->rpeers[idx] = rp;
	/* what still refers to the previous generation keeps it */
	shm_xfer_rpeer_put(old);
	return rp;
}

struct shm_xfer_src_cache *shm_xfer_src_cache(const char *src_name)
{
	/* every src_name the layer hands up is an rpeer's name, and the
	 * rx (or inline offer) holding it holds a reference to the rpeer */
	struct shm_rpeer *rp = pl_container_of((char *)src_name,
					       struct shm_rpeer, name);

	return &rp->src_cache;
}

void shm_xfer_rpeer_put(struct shm_rpeer *rp)
{
	if (!rp || --rp->refs)
		return;
	shm_region_unmap(rp->region);
	free(rp);
}

int shm_xfer_rpeer_map(struct shm_xfer_ep *ep, struct shm_rpeer *rp)
{
	char rname[SHM_REGION_NAME_MAX];
	int ret;

	if (rp->region)
		return 0;
	ret = shm_addr_region_name(rp->name, rname, sizeof(rname));
	if (ret < 0)
		return ret;
	ret = shm_region_map(rname, &rp->region);
	if (ret)
		return ret;
	ret = shm_wake_addr_of(&rp->wake, rp->region);
	if (ret) {
		shm_region_unmap(rp->region);
		rp->region = NULL;
	}
	return ret;
}
