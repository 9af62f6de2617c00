/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bit-mask parts of hint matching (fi_getinfo(3) CAPABILITIES and
 * MODE, fi_mr(3) mr_mode): what an application asks for against what a
 * provider reported, and what the returned fi_info then says.
 */
#ifndef PROPEL_PL_HINTS_CAPS_H
#define PROPEL_PL_HINTS_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>

/* Primary modifiers (fi_getinfo(3)): they narrow a primary capability. */
#define PL_CAPS_MODIFIERS	(FI_READ | FI_WRITE | FI_RECV | FI_SEND | \
				 FI_REMOTE_READ | FI_REMOTE_WRITE)

/*
 * Capabilities returned for a request of want (0: none stated) from a
 * provider that reported have. strict: want was stated by the
 * application at this level, so every bit of it must be supported;
 * otherwise want is inherited from fi_info.caps and only narrows have.
 * Returns 0 and *caps_p, or -FI_ENODATA.
 */
int pl_hints_caps_select(uint64_t want, uint64_t have, bool strict,
			 uint64_t *caps_p);

/*
 * The domain's mr_mode for an application that asked for hints' (NULL:
 * no hints at all, or none at the domain level) from a provider that
 * requires prov_mr (bits; the legacy FI_MR_BASIC/FI_MR_SCALABLE values
 * are accepted too) and, through its fi_info mode, *mode_p. Older
 * callers (API < 1.5, or FI_MR_BASIC/FI_MR_SCALABLE in the hints) get the
 * legacy value and FI_LOCAL_MR in *mode_p where local registration is
 * needed; others get the bits, with FI_LOCAL_MR dropped from *mode_p.
 * Returns 0, *mr_p and an updated *mode_p, or -FI_ENODATA.
 */
int pl_hints_caps_mr_mode(uint32_t version, const struct fi_info *hints,
			  int prov_mr, int *mr_p, uint64_t *mode_p);

/* Registration modes that only concern memory a peer reaches (RMA and
 * atomics targets): how the peer addresses it, which key it names, what
 * backs it, and events on it. */
#define PL_MR_RMA_TARGET_BITS	(FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | \
				 FI_MR_PROV_KEY | FI_MR_RAW | \
				 FI_MR_RMA_EVENT)

/*
 * What a provider that requires prov_mr (bits, or the legacy
 * FI_MR_BASIC/FI_MR_SCALABLE values) requires of an application granted
 * caps: without FI_RMA or FI_ATOMIC (and caps stated, non-zero) no peer
 * reaches its memory, so the RMA-target bits are not required of it.
 * Returns bits.
 */
int pl_hints_caps_mr_need(int prov_mr, uint64_t caps);

#endif /* PROPEL_PL_HINTS_CAPS_H */
