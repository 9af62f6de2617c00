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
 * fi_getinfo offers the bits the application's hints set (both, when it
 * leaves the choice open), so that the answer is the mode it prefers;
 * fi_domain runs in the mode its fi_info names. A domain without RMA and
 * atomics keeps provider keys and virtual addresses: nobody addresses its
 * memory, and provider keys never collide for local registrations.
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
	if (!hints || !hints->domain_attr)
		return SHM_MR_MODE;
	return shm_mr_mode_bits(hints->domain_attr->mr_mode, version);
}

int shm_mr_mode_domain(const struct fi_info *info, uint32_t version)
{
	if (info->caps && !(info->caps & (FI_RMA | FI_ATOMIC)))
		return SHM_MR_MODE;
	return shm_mr_mode_bits(info->domain_attr->mr_mode, version);
}
