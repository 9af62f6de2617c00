/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which registration mode a shm domain runs in. shm serves every
 * combination of the two bits that change what a peer names
 * (fi_mr(3)):
 *
 *   FI_MR_VIRT_ADDR  the target address of an RMA or atomic is the
 *                    target's virtual address; without it, an offset
 *                    from the start of the registration (what symmetric
 *                    heaps of PGAS runtimes use);
 *   FI_MR_PROV_KEY   the provider picks the key; without it, the
 *                    application does (requested_key), and a key already
 *                    in use in the domain is refused (-FI_ENOKEY).
 *
 * The same key, range and access checks apply in every mode: the target
 * validates each request against its key map before any byte moves
 * (shm_ep_rma.c, pl_keymap_check with the domain's addressing).
 *
 * fi_getinfo answers with the bits shm requires, as fi_domain(3) asks
 * of a provider for every mr_mode bit ("the provider clears the bits it
 * does not need", as it does for FI_MR_LOCAL): shm needs neither, so a
 * bit the hints offer is an ability of the application, not a request,
 * and the answer is offsets and application keys. Clients that offer
 * FI_MR_VIRT_ADDR yet address the target from 0 with their own keys
 * (fabtests' fi_multi_mr) are right under that answer; clients that
 * read the answer work either way. Hints in the legacy form
 * (FI_MR_BASIC, or 0 before API 1.5) get the basic mode they name, and
 * no hints the default (SHM_MR_MODE), which is what fi_info shows.
 *
 * fi_domain runs in the mode its fi_info names, so an application (or
 * rxm, for its shm peer) that wants virtual addresses or provider keys
 * sets them in the fi_info it opens the domain with. A domain without
 * RMA and atomics keeps provider keys and virtual addresses: nobody
 * addresses its memory, and provider keys never collide for local
 * registrations.
 */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "shm_ep.h"

#define SHM_MR_CHOICE	(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY)

/* The choice bits an mr_mode value (bits or a legacy value) names. */
static int shm_mr_mode_bits(int mr_mode, uint32_t version)
{
	if (mr_mode == FI_MR_BASIC)
		return SHM_MR_CHOICE;
	if (mr_mode == FI_MR_SCALABLE)
		return 0;
	/* before API 1.5, 0 means "basic or scalable": basic, as answered
	 * without hints */
	if (mr_mode == FI_MR_UNSPEC && FI_VERSION_LT(version, FI_VERSION(1, 5)))
		return SHM_MR_CHOICE;
	return mr_mode & SHM_MR_CHOICE;
}

int shm_mr_mode_offer(uint32_t version, const struct fi_info *hints)
{
	int mr_mode;

	if (!hints || !hints->domain_attr)
		return SHM_MR_MODE;
	mr_mode = hints->domain_attr->mr_mode;
	if (mr_mode == FI_MR_BASIC || mr_mode == FI_MR_SCALABLE ||
	    (mr_mode == FI_MR_UNSPEC && FI_VERSION_LT(version, FI_VERSION(1, 5))))
		return shm_mr_mode_bits(mr_mode, version);
	return 0;
}

int shm_mr_mode_domain(const struct fi_info *info, uint32_t version)
{
	if (info->caps && !(info->caps & (FI_RMA | FI_ATOMIC)))
		return SHM_MR_MODE;
	return shm_mr_mode_bits(info->domain_attr->mr_mode, version);
}
