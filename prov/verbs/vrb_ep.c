/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs endpoint object: open (active, or adopting a connection
 * request's id), bind, enable (the rdma_cm id, then the CQ, its
 * completion channel and the RC QP), names, options and close. The CM
 * side is vrb_ep_cm.c, the data path vrb_ep_msg.c / vrb_ep_rma.c, the
 * completions vrb_ep_cq.c.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_mrc.h"
#include "vrb_cm_data.h"
#include "vrb_params.h"
#include "vrb_prov.h"
#include "vrb_srx.h"

static struct fi_ops vrb_ep_fid_ops;

struct vrb_ep *vrb_ep_of(struct fid_ep *ep)
{
	if (!ep || ep->fid.fclass != FI_CLASS_EP ||
	    ep->fid.ops != &vrb_ep_fid_ops)
		return NULL;
	return pl_container_of(ep, struct vrb_ep, base.ep_fid);
}

int vrb_ep_qp_create(struct vrb_ep *ep)
{
	struct ibv_qp_init_attr qa;
	uint32_t rx_cqe;
	int fl;

	if (ep->qp)
		return 0;
	if (!ep->id || ep->id->verbs != ep->dom->verbs) {
		VRB_LOG_WARN(FI_LOG_EP_CTRL, "the endpoint's address is not "
			     "on the domain's device\n");
		return -FI_EINVAL;
	}
	ep->cch = ibv_create_comp_channel(ep->dom->verbs);
	if (!ep->cch)
		return -FI_ENOMEM;
	/* the progress pass reads notifications without blocking */
	fl = fcntl(ep->cch->fd, F_GETFL);
	if (fl < 0 || fcntl(ep->cch->fd, F_SETFL, fl | O_NONBLOCK))
		goto err_cch;
	/* tx + rx was kept within max_cqe when the sizes were chosen; a
	 * shared context's receives may all land on this endpoint, and its
	 * depth is within half of max_cqe (vrb_srx.c): the sends give way
	 * if both do not fit (nothing is posted before the QP exists) */
	rx_cqe = ep->srx ? ep->srx->size : ep->rx_size;
	if ((uint64_t)ep->tx_size + rx_cqe > (uint64_t)ep->dom->attr.max_cqe)
		ep->tx_size = (uint32_t)ep->dom->attr.max_cqe - rx_cqe;
	ep->cq = ibv_create_cq(ep->dom->verbs, (int)(ep->tx_size + rx_cqe),
			       ep, ep->cch, 0);
	if (!ep->cq)
		goto err_cch;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = ep->cq;
	qa.recv_cq = ep->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;	/* every send completes: its slot is freed */
	qa.cap.max_send_wr = ep->tx_size;
	qa.cap.max_send_sge = (uint32_t)ep->tx_iov_limit;
	if (ep->srx) {
		qa.srq = ep->srx->srq;	/* no receive queue of its own */
	} else {
		qa.cap.max_recv_wr = ep->rx_size;
		qa.cap.max_recv_sge = (uint32_t)ep->rx_iov_limit;
	}
	qa.cap.max_inline_data = (uint32_t)ep->inline_size;
	if (rdma_create_qp(ep->id, ep->dom->pd, &qa)) {
		/* a device with less inline room than asked: none, rather
		 * than no endpoint */
		qa.cap.max_inline_data = 0;
		if (rdma_create_qp(ep->id, ep->dom->pd, &qa))
			goto err_cq;
	}
	ep->qp = ep->id->qp;
	ep->inline_size = qa.cap.max_inline_data;
	return 0;

err_cq:
	(void)ibv_destroy_cq(ep->cq);
	ep->cq = NULL;
err_cch:
	(void)ibv_destroy_comp_channel(ep->cch);
	ep->cch = NULL;
	return -FI_ENOMEM;
}

int vrb_ep_src_add(struct vrb_ep *ep)
{
	int ret;

	if (ep->src_added || !ep->cq)
		return 0;
	ep->src.poll = vrb_ep_cq_poll;
	ep->src.arm = vrb_ep_cq_arm;
	ep->src.fd = ep->cch->fd;
	ep->src.name = "verbs cq";
	ret = pl_progress_source_add(ep->dom->base.ctx, &ep->src);
	if (!ret)
		ep->src_added = true;
	return ret;
}

static int vrb_ep_enable(struct vrb_ep *ep)
{
	int ret;

	ret = pl_ep_enable(&ep->base);
	if (ret)
		return ret;
	if (!ep->id) {
		if (rdma_create_id(ep->fab->ch, &ep->id, &ep->cm_h,
				   RDMA_PS_TCP))
			return -FI_ENOMEM;
		/* bound to its source address, the id names the device at
		 * once, so the QP exists before fi_connect and receives may
		 * be posted; without one it is made when the address is
		 * resolved (vrb_ep_cm.c) */
		if (ep->has_src && rdma_bind_addr(ep->id,
						  (void *)&ep->src_addr)) {
			VRB_LOG_WARN(FI_LOG_EP_CTRL, "cannot bind the "
				     "endpoint's source address\n");
			return -FI_EADDRNOTAVAIL;
		}
	}
	if (!ep->id->verbs)
		return 0;	/* a wildcard address: at address resolution */
	pthread_mutex_lock(&ep->lock);
	ret = vrb_ep_qp_create(ep);
	pthread_mutex_unlock(&ep->lock);
	if (ret)
		return ret;
	return vrb_ep_src_add(ep);
}

static int vrb_ep_control(struct fid *fid, int command, void *arg)
{
	struct vrb_ep *ep = pl_container_of(fid, struct vrb_ep,
					    base.ep_fid.fid);

	switch (command) {
	case FI_ENABLE:
		return vrb_ep_enable(ep);
	case FI_GETOPSFLAG:
		if (!arg)
			return -FI_EINVAL;
		if (*(uint64_t *)arg & FI_TRANSMIT)
			*(uint64_t *)arg = ep->tx_op_flags;
		else
			*(uint64_t *)arg = ep->rx_op_flags;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int vrb_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct vrb_ep *ep = pl_container_of(fid, struct vrb_ep,
					    base.ep_fid.fid);
	struct vrb_srx *srx;
	int ret = 0;

	if (!bfid || bfid->fclass != FI_CLASS_SRX_CTX)
		return pl_ep_bind(&ep->base, bfid, flags);
	srx = vrb_srx_of(bfid);
	if (!srx || srx->dom != ep->dom || flags)
		return -FI_EINVAL;
	/* the QP is made with the SRQ or without: decided before it is */
	pthread_mutex_lock(&ep->lock);
	if (ep->base.enabled || ep->qp)
		ret = -FI_EOPBADSTATE;
	else if (ep->srx)
		ret = -FI_EALREADY;
	else
		ep->srx = srx;
	pthread_mutex_unlock(&ep->lock);
	if (!ret)
		vrb_srx_attach(srx);
	return ret;
}

static void vrb_ep_free_rings(struct vrb_ep *ep)
{
	free(ep->tx_ops);
	free(ep->rx_ops);
	free(ep->tx_mrc);
	free(ep->rx_mrc);
}

static int vrb_ep_close(struct fid *fid)
{
	struct vrb_ep *ep = pl_container_of(fid, struct vrb_ep,
					    base.ep_fid.fid);

	pthread_mutex_lock(&ep->lock);
	if (ep->id && (ep->state == VRB_EP_CONNECTED ||
		       ep->state == VRB_EP_CONNECTING))
		(void)rdma_disconnect(ep->id);	/* the peer sees it */
	ep->state = VRB_EP_DOWN;
	pthread_mutex_unlock(&ep->lock);
	/* no CM handler runs on us after the detach (one that was making
	 * the QP and adding the source has finished: it held cm_lock) */
	if (ep->id)
		vrb_fabric_id_attach(ep->fab, ep->id, NULL);
	/* no pass runs our source after this returns */
	if (ep->src_added)
		(void)pl_progress_source_remove(ep->dom->base.ctx, &ep->src);
	/* before the QP goes (a device may purge a destroyed QP's
	 * completions from its CQ); the QP is in the error state or never
	 * connected, so no message lands after this */
	vrb_ep_cq_drain(ep);
	/* the QP, which is rdma_cm's, goes before its id */
	if (ep->id) {
		if (ep->id->qp)
			rdma_destroy_qp(ep->id);
		rdma_destroy_id(ep->id);
	}
	if (ep->cq)
		(void)ibv_destroy_cq(ep->cq);
	if (ep->cch)
		(void)ibv_destroy_comp_channel(ep->cch);
	if (ep->base.eq)
		(void)pl_eq_purge_fid(ep->base.eq, &ep->base.ep_fid.fid);
	vrb_ep_cancel_flush(ep);
	if (ep->srx)
		vrb_srx_detach(ep->srx);	/* its SRQ has no user in us */
	pl_ep_fini(&ep->base);
	pthread_mutex_destroy(&ep->lock);
	vrb_ep_free_rings(ep);
	free(ep);
	return 0;
}

static int vrb_ep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	struct vrb_ep *ep = pl_container_of(fid, struct vrb_ep,
					    base.ep_fid.fid);

	if (level == FI_OPT_ENDPOINT && optname == FI_OPT_CM_DATA_SIZE) {
		if (!optval || !optlen)
			return -FI_EINVAL;
		if (*optlen < sizeof(size_t)) {
			*optlen = sizeof(size_t);
			return -FI_ETOOSMALL;
		}
		*(size_t *)optval = VRB_CM_DATA_MAX;
		*optlen = sizeof(size_t);
		return 0;
	}
	return pl_ep_getopt(&ep->base, level, optname, optval, optlen);
}

static int vrb_ep_setopt(fid_t fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	struct vrb_ep *ep = pl_container_of(fid, struct vrb_ep,
					    base.ep_fid.fid);

	return pl_ep_setopt(&ep->base, level, optname, optval, optlen);
}

static ssize_t vrb_ep_tx_size_left(struct fid_ep *ep_fid)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	ssize_t left;

	if (!ep)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	left = (ssize_t)(ep->tx_size - (ep->tx_head - ep->tx_tail));
	pthread_mutex_unlock(&ep->lock);
	return left;
}

static ssize_t vrb_ep_rx_size_left(struct fid_ep *ep_fid)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	ssize_t left;

	if (!ep)
		return -FI_EINVAL;
	if (ep->srx)
		return vrb_srx_left(ep->srx);
	pthread_mutex_lock(&ep->lock);
	left = (ssize_t)(ep->rx_size - (ep->rx_head - ep->rx_tail));
	pthread_mutex_unlock(&ep->lock);
	return left;
}

static int vrb_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct vrb_ep *ep = pl_container_of(fid, struct vrb_ep,
					    base.ep_fid.fid);
	const struct sockaddr *sa = NULL;

	if (ep->id)
		sa = rdma_get_local_addr(ep->id);
	if ((!sa || !vrb_addrlen(sa)) && ep->has_src)
		sa = (const struct sockaddr *)&ep->src_addr;
	return vrb_name_out(sa, addr, addrlen);
}

static int vrb_ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct vrb_ep *ep = pl_container_of(fid, struct vrb_ep,
					    base.ep_fid.fid);

	if (!addr || !vrb_addrlen(addr) || addrlen < vrb_addrlen(addr))
		return -FI_EINVAL;
	if (ep->base.enabled)
		return -FI_EOPBADSTATE;
	memcpy(&ep->src_addr, addr, vrb_addrlen(addr));
	ep->has_src = true;
	return 0;
}

static int vrb_ep_getpeer(struct fid_ep *ep_fid, void *addr, size_t *addrlen)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);

	if (!ep)
		return -FI_EINVAL;
	if (!ep->id || ep->state != VRB_EP_CONNECTED)
		return -FI_ENOTCONN;
	return vrb_name_out(rdma_get_peer_addr(ep->id), addr, addrlen);
}

static struct fi_ops vrb_ep_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = vrb_ep_close,
	.bind = vrb_ep_bind,
	.control = vrb_ep_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep vrb_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = vrb_ep_cancel,
	.getopt = vrb_ep_getopt,
	.setopt = vrb_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = vrb_ep_rx_size_left,
	.tx_size_left = vrb_ep_tx_size_left,
};

static struct fi_ops_cm vrb_ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = vrb_ep_setname,
	.getname = vrb_ep_getname,
	.getpeer = vrb_ep_getpeer,
	.connect = vrb_ep_connect,
	.listen = pl_fid_nosys_cm_listen,
	.accept = vrb_ep_accept,
	.reject = pl_fid_nosys_cm_reject,
	.shutdown = vrb_ep_shutdown,
	.join = pl_fid_nosys_cm_join,
};

/* Queue sizes and iov limits: the application's (within the device's),
 * else the variables'; tx + rx within max_cqe, as in vrb_info.c. */
static void vrb_ep_limits(struct vrb_ep *ep, const struct fi_info *info)
{
	const struct vrb_params *p = vrb_params_get();
	const struct ibv_device_attr *a = &ep->dom->attr;
	size_t tx = (info->tx_attr && info->tx_attr->size) ?
		    info->tx_attr->size : p->tx_size;
	size_t rx = (info->rx_attr && info->rx_attr->size) ?
		    info->rx_attr->size : p->rx_size;
	size_t cqe = a->max_cqe > 2 ? (size_t)a->max_cqe : 2;

	if (tx > (size_t)a->max_qp_wr)
		tx = (size_t)a->max_qp_wr;
	if (rx > (size_t)a->max_qp_wr)
		rx = (size_t)a->max_qp_wr;
	if (tx + rx > cqe) {
		tx = tx < cqe / 2 ? tx : cqe / 2;
		rx = rx < cqe - tx ? rx : cqe - tx;
	}
	ep->tx_size = (uint32_t)tx;
	ep->rx_size = (uint32_t)rx;
	ep->tx_iov_limit = (info->tx_attr && info->tx_attr->iov_limit) ?
			   info->tx_attr->iov_limit : p->tx_iov_limit;
	ep->rx_iov_limit = (info->rx_attr && info->rx_attr->iov_limit) ?
			   info->rx_attr->iov_limit : p->rx_iov_limit;
	if (ep->tx_iov_limit > (size_t)a->max_sge)
		ep->tx_iov_limit = (size_t)a->max_sge;
	if (ep->rx_iov_limit > (size_t)a->max_sge)
		ep->rx_iov_limit = (size_t)a->max_sge;
	if (ep->tx_iov_limit > VRB_IOV_MAX)
		ep->tx_iov_limit = VRB_IOV_MAX;
	if (ep->rx_iov_limit > VRB_IOV_MAX)
		ep->rx_iov_limit = VRB_IOV_MAX;
	ep->inline_size = p->inline_size;
	ep->bunch = p->bunch;
}

int vrb_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context)
{
	struct vrb_domain *dom = vrb_domain_of(domain);
	struct vrb_ep *ep;
	int ret;

	if (!dom || !info || !ep_p)
		return -FI_EINVAL;
	if (info->ep_attr && info->ep_attr->type != FI_EP_MSG &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -FI_EINVAL;
	if (info->handle && info->handle->fclass != FI_CLASS_CONNREQ &&
	    info->handle->fclass != FI_CLASS_PEP)
		return -FI_EINVAL;
	ret = vrb_fork_check();
	if (ret)
		return ret;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ret = pl_ep_init(&ep->base, domain, info, context);
	if (ret)
		goto err_free;
	ep->base.type = FI_EP_MSG;
	pthread_mutex_init(&ep->lock, NULL);
	ep->dom = dom;
	ep->fab = dom->fab;
	ep->cm_h.handle = vrb_ep_cm_handle;
	ep->state = VRB_EP_IDLE;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	vrb_ep_limits(ep, info);
	ep->tx_ops = calloc(ep->tx_size, sizeof(*ep->tx_ops));
	ep->rx_ops = calloc(ep->rx_size, sizeof(*ep->rx_ops));
	ep->tx_mrc = calloc(ep->tx_size * ep->tx_iov_limit,
			    sizeof(*ep->tx_mrc));
	ep->rx_mrc = calloc(ep->rx_size * ep->rx_iov_limit,
			    sizeof(*ep->rx_mrc));
	if (!ep->tx_ops || !ep->rx_ops || !ep->tx_mrc || !ep->rx_mrc) {
		ret = -FI_ENOMEM;
		goto err_fini;
	}
	if (info->src_addr && vrb_addrlen(info->src_addr) &&
	    info->src_addrlen >= vrb_addrlen(info->src_addr)) {
		memcpy(&ep->src_addr, info->src_addr,
		       vrb_addrlen(info->src_addr));
		ep->has_src = true;
	}
	if (info->handle && info->handle->fclass == FI_CLASS_PEP) {
		/* the active side from a passive endpoint's bound address */
		ret = vrb_pep_give_id(info->handle, &ep->id);
		if (ret)
			goto err_fini;
		vrb_fabric_id_attach(ep->fab, ep->id, &ep->cm_h);
	} else if (info->handle) {
		/* the passive side: the request's id, already on its
		 * device; the QP is made at fi_enable */
		ret = vrb_pep_adopt(info, &ep->id);
		if (ret)
			goto err_fini;
		vrb_fabric_id_attach(ep->fab, ep->id, &ep->cm_h);
		ep->state = VRB_EP_CONNECTING;
	}
	ep->base.ep_fid.fid.ops = &vrb_ep_fid_ops;
	ep->base.ep_fid.ops = &vrb_ep_ops;
	ep->base.ep_fid.cm = &vrb_ep_cm_ops;
	ep->base.ep_fid.msg = &vrb_ep_msg_ops;
	ep->base.ep_fid.rma = &vrb_ep_rma_ops;
	ep->base.ep_fid.tagged =
		(struct fi_ops_tagged *)&pl_fid_nosys_tagged_ops;
	ep->base.ep_fid.atomic = &vrb_ep_atomic_ops;
	ep->base.ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	*ep_p = &ep->base.ep_fid;
	return 0;

err_fini:
	vrb_ep_free_rings(ep);
	pl_ep_fini(&ep->base);
	pthread_mutex_destroy(&ep->lock);
err_free:
	free(ep);
	return ret;
}
