/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_open: the library's named objects (fi_provider(3)). Names compare
 * without regard to case, as the reference's do; an unknown name is
 * -FI_ENOSYS there, and here.
 */
#include <strings.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_log.h"

PL_EXPORT int fi_open(uint32_t version, const char *name, void *attr,
		      size_t attr_len, uint64_t flags, struct fid **fid,
		      void *context)
{
	if (!name || !fid)
		return -FI_EINVAL;

	if (!strcasecmp(name, "logging")) {
		/* The logging object takes no attributes (the reference
		 * refuses them with -FI_EINVAL too). */
		if (attr || attr_len)
			return -FI_EINVAL;
		return pl_log_open(version, flags, fid, context);
	}
	if (!strcasecmp(name, "mr_cache")) {
		/* The registration cache (DESIGN.md section 6) is a later
		 * issue; until it exists there is nothing to open. */
		return -FI_ENOSYS;
	}
	return -FI_ENOSYS;
}
