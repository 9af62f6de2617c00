/* SPDX-License-Identifier: BSD-2-Clause */
/* Connection-management events, request handles and passive endpoints
 * (pl_cm.h). */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cm.h"
#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_info.h"

/* One CM entry with its data, written in a single call so that a reader
 * never sees the entry without its data. */
static int pl_cm_write(struct fid_eq *eq, uint32_t event, fid_t fid,
		       struct fi_info *info, const void *data, size_t len,
		       uint64_t flags)
{
	struct fi_eq_cm_entry *e;
	size_t size = sizeof(*e) + len;
	ssize_t ret;

	if (!eq || (len && !data))
		return -FI_EINVAL;
	e = calloc(1, size);
	if (!e)
		return -FI_ENOMEM;
	e->fid = fid;
	e->info = info;
	if (len)
		memcpy(e->data, data, len);
	ret = pl_eq_write_event(eq, event, e, size, flags);
	free(e);
	return ret < 0 ? (int)ret : 0;
}

int pl_cm_write_connreq(struct fid_eq *eq, fid_t pep, struct fi_info *info,
			const void *data, size_t len)
{
	/* bounded by the EQ's size: a request the EQ refuses is the
	 * provider's to end (pl_cm.h) */
	int ret = pl_cm_write(eq, FI_CONNREQ, pep, info, data, len, 0);

	/* the event owns info; a failed write leaves nobody else to free
	 * it, and its handle is the provider's to end */
	if (ret && info) {
		info->handle = NULL;
		fi_freeinfo_1_3(info);
	}
	return ret;
}

int pl_cm_write_connected(struct fid_eq *eq, fid_t ep, const void *data,
			  size_t len)
{
	return pl_cm_write(eq, FI_CONNECTED, ep, NULL, data, len, PL_EQ_OWED);
}

int pl_cm_write_shutdown(struct fid_eq *eq, fid_t ep)
{
	return pl_cm_write(eq, FI_SHUTDOWN, ep, NULL, NULL, 0, PL_EQ_OWED);
}

int pl_cm_write_error(struct fid_eq *eq, fid_t ep, void *context, int err,
		      const void *data, size_t len)
{
	ssize_t ret;

	if (!eq || err <= 0)
		return -FI_EINVAL;
	ret = pl_eq_write_error_owed(eq, ep, context, 0, err, -err,
				     (void *)data, data ? len : 0);
	return ret < 0 ? (int)ret : 0;
}

static int pl_connreq_close(struct fid *fid)
{
	struct pl_connreq *req = pl_container_of(fid, struct pl_connreq, fid);

	req->free_fn(req);
	return 0;
}

static struct fi_ops pl_connreq_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_connreq_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

void pl_connreq_init(struct pl_connreq *req,
		     void (*free_fn)(struct pl_connreq *))
{
	memset(&req->fid, 0, sizeof(req->fid));
	req->fid.fclass = FI_CLASS_CONNREQ;
	req->fid.ops = &pl_connreq_ops;
	req->free_fn = free_fn;
}

struct pl_connreq *pl_connreq_of(fid_t handle)
{
	if (!handle || handle->fclass != FI_CLASS_CONNREQ ||
	    handle->ops != &pl_connreq_ops)
		return NULL;
	return pl_container_of(handle, struct pl_connreq, fid);
}

int pl_pep_init(struct pl_pep *pep, struct fid_fabric *fabric,
		const struct fi_info *info, size_t cm_data_max, void *context)
{
	if (!pep || !fabric || !info)
		return -FI_EINVAL;
	memset(pep, 0, sizeof(*pep));
	pep->info = fi_dupinfo_1_3(info);
	if (!pep->info)
		return -FI_ENOMEM;
	pep->fabric = fabric;
	pep->cm_data_max = cm_data_max;
	pep->pep_fid.fid.fclass = FI_CLASS_PEP;
	pep->pep_fid.fid.context = context;
	return 0;
}

/* The pl_pep a passive endpoint's fid belongs to: pep_fid lies inside
 * it, wherever the provider embeds the pl_pep. */
static struct pl_pep *pl_pep_of_fid(struct fid *fid)
{
	return fid ? pl_container_of(fid, struct pl_pep, pep_fid.fid) : NULL;
}

int pl_pep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct pl_pep *pep = pl_pep_of_fid(fid);

	if (!pep || !bfid || bfid->fclass != FI_CLASS_EQ || flags)
		return -FI_EINVAL;
	if (!pl_eq_waitable((struct fid_eq *)bfid))
		return -FI_EINVAL;	/* not one of the engine's EQs */
	if (pep->eq)
		return -FI_EALREADY;
	pep->eq = pl_container_of(bfid, struct fid_eq, fid);
	pl_eq_ref(pep->eq);
	return 0;
}

int pl_pep_getopt(struct fid *fid, int level, int optname, void *optval,
		  size_t *optlen)
{
	struct pl_pep *pep = pl_pep_of_fid(fid);

	if (!pep || !optlen)
		return -FI_EINVAL;
	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_CM_DATA_SIZE)
		return -FI_ENOPROTOOPT;
	if (*optlen < sizeof(size_t)) {
		*optlen = sizeof(size_t);
		return -FI_ETOOSMALL;
	}
	if (!optval)
		return -FI_EINVAL;
	memcpy(optval, &pep->cm_data_max, sizeof(size_t));
	*optlen = sizeof(size_t);
	return 0;
}

int pl_pep_setopt(struct fid *fid, int level, int optname,
		  const void *optval, size_t optlen)
{
	(void)fid;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -FI_ENOPROTOOPT;
}

void pl_pep_fini(struct pl_pep *pep)
{
	if (!pep)
		return;
	if (pep->eq)
		pl_eq_unref(pep->eq);
	pep->eq = NULL;
	if (pep->info) {
		pep->info->handle = NULL;
		fi_freeinfo_1_3(pep->info);
	}
	pep->info = NULL;
}
