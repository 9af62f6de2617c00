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
#include "pl_mrc.h"

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
	if (!strcasecmp(name, "mr_cache"))
		/* The registration cache's import of an application's memory
		 * monitor (DESIGN.md section 6, fi_ext.h). */
		return pl_mrc_import_open(version, attr, attr_len, flags, fid,
					  context);
	return -FI_ENOSYS;
}
