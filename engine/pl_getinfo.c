/* SPDX-License-Identifier: BSD-2-Clause */
/* Placeholder entry points until fi_getinfo of [F2] lands: no provider
 * is registered yet, so every query finds nothing. */
#include <errno.h>
#include <stdlib.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_compiler.h"

PL_SYMVER_DEFAULT(fi_getinfo, FABRIC_1.3)
int fi_getinfo_1_3(uint32_t version, const char *node, const char *service,
		   uint64_t flags, const struct fi_info *hints,
		   struct fi_info **info)
{
	if (!info)
		return -FI_EINVAL;
	return -FI_ENODATA;
}

PL_SYMVER_DEFAULT(fi_freeinfo, FABRIC_1.3)
void fi_freeinfo_1_3(struct fi_info *info)
{
	(void)info;
}

PL_SYMVER_DEFAULT(fi_dupinfo, FABRIC_1.3)
struct fi_info *fi_dupinfo_1_3(const struct fi_info *info)
{
	return NULL;
}

PL_SYMVER_DEFAULT(fi_fabric, FABRIC_1.1)
int fi_fabric_1_1(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		  void *context)
{
	return -FI_ENODATA;
}

PL_EXPORT int fi_open(uint32_t version, const char *name, void *attr,
		      size_t attr_len, uint64_t flags, struct fid **fid,
		      void *context)
{
	return -FI_ENOSYS;
}
