/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Default operation flags from the hints (pl_hints_opflags.c has the
 * rule). Part of hint matching (pl_hints_match.h).
 */
#ifndef PROPEL_PL_HINTS_OPFLAGS_H
#define PROPEL_PL_HINTS_OPFLAGS_H

#include <rdma/fabric.h>

/*
 * Can info (one provider answer, every attribute struct present, its
 * capabilities not yet narrowed) serve the tx/rx op_flags the hints ask
 * for? If so they become info's defaults (where the hints give any) and 0
 * is returned; else -FI_ENODATA, logged.
 */
int pl_hints_opflags_match(const struct fi_info *hints, struct fi_info *info);

#endif /* PROPEL_PL_HINTS_OPFLAGS_H */
