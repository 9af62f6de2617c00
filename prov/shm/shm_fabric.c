/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm fabric: nothing of its own but the factory of domains
 * (fi_domain, and fi_domain2 for a peer domain). EQs, wait sets and
 * fi_trywait are the engine's.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_trywait.h"
#include "pl_wait_set.h"
#include "shm_ep.h"
#include "shm_info.h"

static int shm_fabric_close(struct fid *fid)
{
	struct shm_fabric *f = pl_container_of(fid, struct shm_fabric,
					       base.fabric_fid.fid);
	int ret;

	ret = pl_fabric_obj_fini(&f->base);
	if (ret)
		return ret;
	free(f);
	return 0;
}

static struct fi_ops shm_fabric_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = shm_fabric_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_fabric shm_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = shm_domain_open,
	.passive_ep = pl_fid_nosys_fabric_passive_ep,	/* RDM only */
	.eq_open = pl_eq_open,
	.wait_open = pl_wait_open,
	.trywait = pl_trywait,
	.domain2 = shm_domain_open2,
};

int shm_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context)
{
	struct shm_fabric *f;

	if (!attr || !fabric_p)
		return -FI_EINVAL;
	if (attr->name && strcasecmp(attr->name, SHM_FABRIC_NAME))
		return -FI_ENODATA;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -FI_ENOMEM;
	f->api_version = attr->api_version;
	pl_fabric_obj_init(&f->base, attr->api_version, context);
	f->base.fabric_fid.fid.ops = &shm_fabric_fid_ops;
	f->base.fabric_fid.ops = &shm_fabric_ops;
	*fabric_p = &f->base.fabric_fid;
	return 0;
}
