/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp fabric: the factory of domains and passive endpoints, and the
 * home of connection management's progress (tcp_prov.h): one
 * auto-progress context, started by the first fi_listen or fi_connect,
 * whose thread sleeps in epoll on the CM set. EQs, wait sets and
 * fi_trywait are the engine's.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_trywait.h"
#include "pl_wait_set.h"
#include "tcp_prov.h"

int tcp_fabric_cm_start(struct tcp_fabric *fab)
{
	int ret = 0;

	pthread_mutex_lock(&fab->cm_lock);
	if (pl_load_relaxed(&fab->cm_started))
		goto out;	/* written under cm_lock, read under it */
	ret = pl_progress_ctx_open(FI_PROGRESS_AUTO, FI_THREAD_SAFE, NULL,
				   &fab->cm_ctx);
	if (ret)
		goto out;
	ret = tcp_sockset_init(&fab->cm_set, "tcp cm", false);
	if (ret)
		goto err_ctx;
	ret = pl_progress_source_add(fab->cm_ctx, &fab->cm_set.src);
	if (ret)
		goto err_set;
	/* release: cm_ctx and cm_set are ready before anyone who
	 * acquires the flag uses them */
	pl_store_release(&fab->cm_started, 1);
	goto out;

err_set:
	tcp_sockset_fini(&fab->cm_set);
err_ctx:
	(void)pl_progress_ctx_close(fab->cm_ctx);
	fab->cm_ctx = NULL;
out:
	pthread_mutex_unlock(&fab->cm_lock);
	return ret;
}

static int tcp_fabric_close(struct fid *fid)
{
	struct tcp_fabric *fab = pl_container_of(fid, struct tcp_fabric,
						 base.fabric_fid.fid);
	int ret;

	ret = pl_fabric_obj_fini(&fab->base);
	if (ret)
		return ret;	/* children remain: -FI_EBUSY */
	/* acquire: pairs with the release in tcp_fabric_cm_start */
	if (pl_load_acquire(&fab->cm_started)) {
		(void)pl_progress_source_remove(fab->cm_ctx, &fab->cm_set.src);
		(void)pl_progress_ctx_close(fab->cm_ctx);
		tcp_sockset_fini(&fab->cm_set);
	}
	pthread_mutex_destroy(&fab->cm_lock);
	free(fab);
	return 0;
}

static struct fi_ops tcp_fabric_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = tcp_fabric_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_fabric tcp_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = tcp_domain_open,
	.passive_ep = tcp_pep_open,
	.eq_open = pl_eq_open,
	.wait_open = pl_wait_open,
	.trywait = pl_trywait,
	.domain2 = pl_fid_nosys_fabric_domain2,
};

int tcp_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context)
{
	struct tcp_fabric *fab;

	if (!attr || !fabric_p)
		return -FI_EINVAL;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	pthread_mutex_init(&fab->cm_lock, NULL);
	fab->cm_set.epfd = -1;
	pl_fabric_obj_init(&fab->base, attr->api_version, context);
	fab->base.fabric_fid.fid.ops = &tcp_fabric_fid_ops;
	fab->base.fabric_fid.ops = &tcp_fabric_ops;
	*fabric_p = &fab->base.fabric_fid;
	return 0;
}
