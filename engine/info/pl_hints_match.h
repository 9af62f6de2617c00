/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hint matching: fi_getinfo applies it to every fi_info a provider
 * returns, whatever the provider itself did with the hints, so that all
 * providers answer by the same rules (fi_getinfo(3), fi_domain(3),
 * fi_endpoint(3)). Zero in a hint is a wildcard, except for mode bits.
 */
#ifndef PROPEL_PL_HINTS_MATCH_H
#define PROPEL_PL_HINTS_MATCH_H

#include <stdint.h>

#include <rdma/fabric.h>

/*
 * Arguments fi_getinfo must refuse outright, as fi_getinfo(3) spells
 * them: an address without a length where the address is not ignored,
 * an auth key without a size, FI_SOURCE with neither node nor service.
 * Returns 0 or -FI_EINVAL.
 */
int pl_hints_match_check(const char *node, const char *service,
			 uint64_t flags, const struct fi_info *hints);

/*
 * Does info (one provider answer, every attribute struct present) satisfy
 * hints (may be NULL)? If so, info is adjusted to what the application is
 * granted (capabilities, modes, mr_mode, threading, av_type, tag format)
 * and 0 returned; else -FI_ENODATA, and info is to be discarded.
 */
int pl_hints_match(uint32_t version, const struct fi_info *hints,
		   struct fi_info *info);

#endif /* PROPEL_PL_HINTS_MATCH_H */
