/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sender's side of the peer table (struct shm_xfer_peer): an entry
 * claimed in the target's region, opened and closed by the endpoint
 * glue. Under the endpoint's serialization.
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

static int shm_xfer_peer_claim(struct shm_xfer_ep *ep, struct shm_xfer_peer *p)
{
	struct shm_region *r = p->region;
	uint64_t start = 0;
	uint32_t i, st, gen;
	int pass;

	(void)pl_proc_start_time((pid_t)ep->pid, &start);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < r->geo.peer_count; i++) {
			struct shm_peer_ent *e = &r->peers[i];

			/* acquire: pairs with the release of LIVE or FREE,
			 * so pid and start below are the claimer's (the
			 * CAS that follows decides anyway) */
			st = pl_load_acquire(&e->state);
			if ((st & 3) != SHM_PEER_FREE) {
				/* second pass: take back the entries of
				 * senders that died without freeing them */
				if (!pass || (st & 3) != SHM_PEER_LIVE ||
				    pl_proc_alive(e->pid, e->start))
					continue;
			}
			gen = (st >> 2) + 1;
			/* acquire: pairs with the release that freed it,
			 * so the previous claimer's writes are done */
			if (!pl_cas_acquire(&e->state, &st,
					    (gen << 2) | SHM_PEER_BUSY))
				continue;
			e->pid = (int32_t)ep->pid;
			e->start = start;
			memcpy(e->name, ep->name, sizeof(e->name));
			/* release: pairs with the acquire in
			 * shm_xfer_rpeer: name and pid before LIVE */
			pl_store_release(&e->state, (gen << 2) | SHM_PEER_LIVE);
			p->idx = (uint16_t)i;
			p->gen = gen;
			return 0;
		}
	}
	return -FI_EAGAIN;
}

int shm_xfer_peer_open(struct shm_xfer_ep *ep, const char *name,
		       struct shm_xfer_peer **peer_p)
{
	char rname[SHM_REGION_NAME_MAX];
	struct shm_xfer_peer *p;
	int ret;

	if (!name || shm_addr_check(name, strlen(name) + 1))
		return -FI_EINVAL;
	ret = shm_addr_region_name(name, rname, sizeof(rname));
	if (ret < 0)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	p->ep = ep;
	snprintf(p->name, sizeof(p->name), "%s", name);
	ret = shm_region_map(rname, &p->region);
	if (ret)
		goto err_free;
	ret = shm_wake_addr_of(&p->wake, p->region);
	if (ret)
		goto err_unmap;
	p->cma = ep->cma && (p->region->geo.flags & SHM_RF_CMA);
	ret = shm_xfer_peer_claim(ep, p);
	if (ret)
		goto err_unmap;
	*peer_p = p;
	return 0;

err_unmap:
	shm_region_unmap(p->region);
err_free:
	free(p);
	return ret;
}

void shm_xfer_peer_close(struct shm_xfer_peer *p)
{
	struct shm_peer_ent *e;

	if (!p)
		return;
	e = &p->region->peers[p->idx];
	/* release: our commands (already queued) stay valid until the
	 * owner reads them; pairs with the claim CAS of the next user */
	pl_store_release(&e->state, (p->gen << 2) | SHM_PEER_FREE);
	/* a target that died unnoticed: its region goes with our handle */
	(void)shm_region_unlink_dead(p->region);
	shm_region_unmap(p->region);
	free(p);
}
