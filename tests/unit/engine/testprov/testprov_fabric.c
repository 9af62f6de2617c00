/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "testprov_fabric.h"

static int testprov_fabric_close(struct fid *fid)
{
	free(fid);
	return 0;
}

static int testprov_fabric_domain(struct fid_fabric *fabric,
				  struct fi_info *info,
				  struct fid_domain **dom, void *context)
{
	return -FI_ENOSYS;
}

static struct fi_ops testprov_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = testprov_fabric_close,
};

static struct fi_ops_fabric testprov_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = testprov_fabric_domain,
};

int testprov_fabric_open(struct fi_fabric_attr *attr,
			 struct fid_fabric **fabric, void *context)
{
	struct fid_fabric *fab = calloc(1, sizeof(*fab));

	if (!fab)
		return -FI_ENOMEM;
	fab->fid.fclass = FI_CLASS_FABRIC;
	fab->fid.context = context;
	fab->fid.ops = &testprov_fabric_fi_ops;
	fab->ops = &testprov_fabric_ops;
	fab->api_version = attr->api_version;
	*fabric = fab;
	return 0;
}
