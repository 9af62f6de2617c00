/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Verbs passive endpoints: an rdma_cm id that listens. A connection
 * request (RDMA_CM_EVENT_CONNECT_REQUEST, on the CM context's thread)
 * becomes FI_CONNREQ with an fi_info whose handle is the request, which
 * holds the request's new id until fi_endpoint adopts it (vrb_ep.c) or
 * fi_reject refuses it with the application's data.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_info.h"
#include "vrb_cm_data.h"
#include "vrb_prov.h"

/* Pending requests a listener lets rdma_cm queue. */
#define VRB_PEP_BACKLOG 1024

struct vrb_connreq {
	struct pl_connreq base;
	struct vrb_fabric *fab;
	/* the request's id until adopted or refused; its events before
	 * then (the peer giving up) need nothing: ignored by cm_h */
	struct rdma_cm_id *id;
	struct vrb_cm_handler cm_h;
};

struct vrb_pep {
	struct pl_pep base;		/* first */
	struct vrb_fabric *fab;		/* open only */
	struct vrb_cm_handler cm_h;
	struct rdma_cm_id *id;		/* open only */
	bool bound, listening;		/* control path */
};

static struct fi_ops vrb_pep_fid_ops;
static int vrb_pep_do_bind(struct vrb_pep *pep, const struct sockaddr *sa);

static bool vrb_connreq_cm_handle(struct vrb_cm_handler *h,
				  struct rdma_cm_event *ev)
{
	(void)h;
	(void)ev;
	return false;
}

static void vrb_connreq_free(struct pl_connreq *base)
{
	struct vrb_connreq *req = pl_container_of(base, struct vrb_connreq,
						  base);

	vrb_fabric_id_destroy(req->fab, req->id);
	free(req);
}

int vrb_pep_adopt(struct fi_info *info, struct rdma_cm_id **id_p)
{
	struct pl_connreq *base = pl_connreq_of(info->handle);
	struct vrb_connreq *req;

	if (!base || base->free_fn != vrb_connreq_free)
		return -FI_EINVAL;
	req = pl_container_of(base, struct vrb_connreq, base);
	if (!req->id)
		return -FI_EINVAL;
	*id_p = req->id;
	req->id = NULL;	/* the endpoint's now: not destroyed with req */
	vrb_connreq_free(base);
	/* the handle is spent: fi_reject or a second fi_endpoint on it
	 * would name freed memory */
	info->handle = NULL;
	return 0;
}

/* FI_CONNREQ for ev (under cm_lock). True: refuse and destroy ev->id. */
static bool vrb_pep_request(struct vrb_pep *pep, struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *cp = &ev->param.conn;
	struct vrb_connreq *req;
	struct fi_info *info;
	const void *data;
	size_t len;
	int ret;

	if (vrb_cm_data_parse(cp->private_data, cp->private_data_len, &data,
			      &len)) {
		VRB_LOG_WARN(FI_LOG_EP_CTRL, "connection request with "
			     "malformed CM data refused\n");
		goto refuse;
	}
	if (!pep->base.eq)
		goto refuse;
	info = fi_dupinfo_1_3(pep->base.info);
	req = calloc(1, sizeof(*req));
	if (!info || !req) {
		free(req);
		if (info)
			fi_freeinfo_1_3(info);
		goto refuse;
	}
	free(info->src_addr);
	free(info->dest_addr);
	info->src_addr = info->dest_addr = NULL;
	info->src_addrlen = info->dest_addrlen = 0;
	len = vrb_addrlen(rdma_get_local_addr(ev->id));
	if (len && (info->src_addr = malloc(len))) {
		memcpy(info->src_addr, rdma_get_local_addr(ev->id), len);
		info->src_addrlen = len;
	}
	len = vrb_addrlen(rdma_get_peer_addr(ev->id));
	if (len && (info->dest_addr = malloc(len))) {
		memcpy(info->dest_addr, rdma_get_peer_addr(ev->id), len);
		info->dest_addrlen = len;
	}
	/* the device the request came in on is the domain to open */
	if (ev->id->verbs && info->domain_attr) {
		free(info->domain_attr->name);
		info->domain_attr->name =
			strdup(ibv_get_device_name(ev->id->verbs->device));
	}
	pl_connreq_init(&req->base, vrb_connreq_free);
	req->fab = pep->fab;
	req->id = ev->id;
	req->cm_h.handle = vrb_connreq_cm_handle;
	ev->id->context = &req->cm_h;	/* under cm_lock already */
	info->handle = &req->base.fid;
	(void)vrb_cm_data_parse(cp->private_data, cp->private_data_len,
				&data, &len);
	ret = pl_cm_write_connreq(pep->base.eq, &pep->base.pep_fid.fid, info,
				  data, len);
	if (ret) {
		/* info went with the failed event (pl_cm.h) */
		VRB_LOG_WARN(FI_LOG_EP_CTRL, "connection request refused: "
			     "the EQ refused FI_CONNREQ (%d)\n", ret);
		req->id = NULL;
		free(req);
		goto refuse;
	}
	return false;

refuse:
	ev->id->context = NULL;
	(void)rdma_reject(ev->id, NULL, 0);
	return true;
}

static bool vrb_pep_cm_handle(struct vrb_cm_handler *h,
			      struct rdma_cm_event *ev)
{
	struct vrb_pep *pep = pl_container_of(h, struct vrb_pep, cm_h);

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return vrb_pep_request(pep, ev);
	return false;
}

int vrb_pep_give_id(fid_t handle, struct rdma_cm_id **id_p)
{
	struct vrb_pep *pep;
	struct rdma_cm_id *fresh;
	int ret;

	if (!handle || handle->fclass != FI_CLASS_PEP ||
	    handle->ops != &vrb_pep_fid_ops)
		return -FI_EINVAL;
	pep = pl_container_of(handle, struct vrb_pep, base.pep_fid.fid);
	if (pep->listening)
		return -FI_EOPBADSTATE;	/* its id takes requests */
	if (!pep->bound) {
		ret = vrb_pep_do_bind(pep, pep->base.info->src_addr);
		if (ret)
			return ret;
	}
	/* the passive endpoint keeps a fresh, unbound id of its own */
	if (rdma_create_id(pep->fab->ch, &fresh, &pep->cm_h, RDMA_PS_TCP))
		return -FI_ENOMEM;
	vrb_fabric_id_attach(pep->fab, pep->id, NULL);
	*id_p = pep->id;
	pep->id = fresh;
	pep->bound = false;
	return 0;
}

static int vrb_pep_close(struct fid *fid)
{
	struct vrb_pep *pep = pl_container_of(fid, struct vrb_pep,
					      base.pep_fid.fid);

	vrb_fabric_id_destroy(pep->fab, pep->id);
	if (pep->base.eq)
		(void)pl_eq_purge_fid(pep->base.eq, &pep->base.pep_fid.fid);
	pl_pep_fini(&pep->base);
	pl_fabric_obj_child_put(&pep->fab->base.fabric_fid);
	free(pep);
	return 0;
}

static int vrb_pep_do_bind(struct vrb_pep *pep, const struct sockaddr *sa)
{
	struct sockaddr_in any = { .sin_family = AF_INET };

	if (pep->bound)
		return -FI_EOPBADSTATE;
	if (!sa)
		sa = (const struct sockaddr *)&any;
	if (rdma_bind_addr(pep->id, (struct sockaddr *)sa))
		return -FI_EADDRINUSE;
	pep->bound = true;
	return 0;
}

static int vrb_pep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct vrb_pep *pep = pl_container_of(fid, struct vrb_pep,
					      base.pep_fid.fid);

	if (!addr || !vrb_addrlen(addr) || addrlen < vrb_addrlen(addr))
		return -FI_EINVAL;
	return vrb_pep_do_bind(pep, addr);
}

static int vrb_pep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct vrb_pep *pep = pl_container_of(fid, struct vrb_pep,
					      base.pep_fid.fid);

	if (pep->bound)
		return vrb_name_out(rdma_get_local_addr(pep->id), addr,
				    addrlen);
	return vrb_name_out(pep->base.info->src_addr, addr, addrlen);
}

static int vrb_pep_listen(struct fid_pep *pep_fid)
{
	struct vrb_pep *pep = pl_container_of(pep_fid, struct vrb_pep,
					      base.pep_fid);
	int ret;

	if (pep->listening)
		return -FI_EOPBADSTATE;
	if (!pep->base.eq)
		return -FI_ENOEQ;
	if (!pep->bound) {
		ret = vrb_pep_do_bind(pep, pep->base.info->src_addr);
		if (ret)
			return ret;
	}
	if (rdma_listen(pep->id, VRB_PEP_BACKLOG))
		return -FI_EADDRINUSE;
	pep->listening = true;
	return 0;
}

static int vrb_pep_reject(struct fid_pep *pep_fid, fid_t handle,
			  const void *param, size_t paramlen)
{
	struct pl_connreq *base = pl_connreq_of(handle);
	uint8_t priv[VRB_CM_PRIV_MAX];
	struct vrb_connreq *req;
	uint8_t len;

	(void)pep_fid;
	if (!base || base->free_fn != vrb_connreq_free)
		return -FI_EINVAL;
	if (paramlen > VRB_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	req = pl_container_of(base, struct vrb_connreq, base);
	len = vrb_cm_data_build(priv, param, paramlen);
	(void)rdma_reject(req->id, priv, len);
	vrb_connreq_free(base);
	return 0;
}

static struct fi_ops vrb_pep_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = vrb_pep_close,
	.bind = pl_pep_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep vrb_pep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = pl_fid_nosys_ep_cancel,
	.getopt = pl_pep_getopt,
	.setopt = pl_pep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = pl_fid_nosys_ep_rx_size_left,
	.tx_size_left = pl_fid_nosys_ep_tx_size_left,
};

static struct fi_ops_cm vrb_pep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = vrb_pep_setname,
	.getname = vrb_pep_getname,
	.getpeer = pl_fid_nosys_cm_getpeer,
	.connect = pl_fid_nosys_cm_connect,
	.listen = vrb_pep_listen,
	.accept = pl_fid_nosys_cm_accept,
	.reject = vrb_pep_reject,
	.shutdown = pl_fid_nosys_cm_shutdown,
	.join = pl_fid_nosys_cm_join,
};

int vrb_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		 struct fid_pep **pep_p, void *context)
{
	struct vrb_fabric *fab;
	struct vrb_pep *pep;
	int ret;

	if (!fabric || !info || !pep_p)
		return -FI_EINVAL;
	ret = vrb_fork_check();
	if (ret)
		return ret;
	if (info->src_addr && (!vrb_addrlen(info->src_addr) ||
			       info->src_addrlen <
			       vrb_addrlen(info->src_addr)))
		return -FI_EINVAL;
	fab = pl_container_of(fabric, struct vrb_fabric, base.fabric_fid);
	pep = calloc(1, sizeof(*pep));
	if (!pep)
		return -FI_ENOMEM;
	ret = pl_pep_init(&pep->base, fabric, info, VRB_CM_DATA_MAX, context);
	if (ret)
		goto err_free;
	pep->fab = fab;
	pep->cm_h.handle = vrb_pep_cm_handle;
	if (rdma_create_id(fab->ch, &pep->id, &pep->cm_h, RDMA_PS_TCP)) {
		ret = -FI_ENOMEM;
		goto err_fini;
	}
	pep->base.pep_fid.fid.ops = &vrb_pep_fid_ops;
	pep->base.pep_fid.ops = &vrb_pep_ops;
	pep->base.pep_fid.cm = &vrb_pep_cm_ops;
	pl_fabric_obj_child_get(fabric);
	*pep_p = &pep->base.pep_fid;
	return 0;

err_fini:
	pl_pep_fini(&pep->base);
err_free:
	free(pep);
	return ret;
}
