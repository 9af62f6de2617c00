/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A verbs endpoint's connection: fi_connect resolves the address and the
 * route, then connects with the CM data; fi_accept answers a request;
 * rdma_cm's events (on the CM context's thread, under cm_lock) become
 * the EQ's FI_CONNECTED, FI_SHUTDOWN and error events. rdma_cm moves the
 * QP through its states; min_rnr_timer is set once the QP is ready to
 * send.
 */
#include <arpa/inet.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "vrb_cm_data.h"
#include "vrb_params.h"
#include "vrb_prov.h"

/* How long address and route resolution may take (ms). */
#define VRB_RESOLVE_TIMEOUT_MS 2000
/* Retries before a send fails (7: rnr retries never end, so a sender
 * waits for the receiver's fi_recv instead of failing) */
#define VRB_RETRY_COUNT 7
#define VRB_RNR_RETRY 7

static void vrb_ep_conn_param(struct vrb_ep *ep, struct rdma_conn_param *cp,
			      uint8_t *priv, size_t priv_len)
{
	const struct ibv_device_attr *a = &ep->dom->attr;

	memset(cp, 0, sizeof(*cp));
	cp->private_data = priv;
	cp->private_data_len = (uint8_t)priv_len;
	cp->responder_resources = (uint8_t)(a->max_qp_rd_atom < 255 ?
					    a->max_qp_rd_atom : 255);
	cp->initiator_depth = (uint8_t)(a->max_qp_init_rd_atom < 255 ?
					a->max_qp_init_rd_atom : 255);
	cp->retry_count = VRB_RETRY_COUNT;
	cp->rnr_retry_count = VRB_RNR_RETRY;
}

/* The end of a connection or of its attempt, once: an error event (err
 * > 0) or FI_SHUTDOWN (err 0). Under cm_lock. */
static void vrb_ep_cm_end(struct vrb_ep *ep, int err, const void *data,
			  size_t len)
{
	bool write;

	pthread_mutex_lock(&ep->lock);
	write = !ep->eq_done;
	ep->eq_done = true;
	ep->state = VRB_EP_DOWN;
	pthread_mutex_unlock(&ep->lock);
	if (!write || !ep->base.eq)
		return;
	if (err)
		(void)pl_cm_write_error(ep->base.eq, &ep->base.ep_fid.fid,
					ep->base.ep_fid.fid.context, err,
					data, len);
	else
		(void)pl_cm_write_shutdown(ep->base.eq, &ep->base.ep_fid.fid);
}

static void vrb_ep_cm_addr_resolved(struct vrb_ep *ep)
{
	int ret;

	pthread_mutex_lock(&ep->lock);
	ret = vrb_ep_qp_create(ep);
	pthread_mutex_unlock(&ep->lock);
	if (!ret)
		ret = vrb_ep_src_add(ep);
	if (!ret && rdma_resolve_route(ep->id, VRB_RESOLVE_TIMEOUT_MS))
		ret = -FI_EHOSTUNREACH;
	if (ret)
		vrb_ep_cm_end(ep, -ret, NULL, 0);
}

static void vrb_ep_cm_route_resolved(struct vrb_ep *ep)
{
	struct rdma_conn_param cp;
	uint8_t priv[VRB_CM_PRIV_MAX];
	size_t len;

	pthread_mutex_lock(&ep->lock);
	len = vrb_cm_data_build(priv, ep->conn_data, ep->conn_data_len);
	pthread_mutex_unlock(&ep->lock);
	vrb_ep_conn_param(ep, &cp, priv, len);
	if (rdma_connect(ep->id, &cp))
		vrb_ep_cm_end(ep, FI_ECONNREFUSED, NULL, 0);
}

static void vrb_ep_cm_established(struct vrb_ep *ep, struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *cp = &ev->param.conn;
	struct ibv_qp_attr qa = {
		.min_rnr_timer = (uint8_t)vrb_params_get()->min_rnr_timer };
	const void *data;
	size_t len;

	if (vrb_cm_data_parse(cp->private_data, cp->private_data_len, &data,
			      &len)) {
		/* not a propel peer's accept: the connection stands, the
		 * data is not handed on */
		data = NULL;
		len = 0;
	}
	/* how long a peer waits before resending to us when no receive
	 * is posted; RTS to RTS may change it */
	if (ep->qp)
		(void)ibv_modify_qp(ep->qp, &qa, IBV_QP_MIN_RNR_TIMER);
	pthread_mutex_lock(&ep->lock);
	ep->state = VRB_EP_CONNECTED;
	pthread_mutex_unlock(&ep->lock);
	if (ep->base.eq)
		(void)pl_cm_write_connected(ep->base.eq, &ep->base.ep_fid.fid,
					    data, len);
}

bool vrb_ep_cm_handle(struct vrb_cm_handler *h, struct rdma_cm_event *ev)
{
	struct vrb_ep *ep = pl_container_of(h, struct vrb_ep, cm_h);
	const struct rdma_conn_param *cp = &ev->param.conn;
	const void *data;
	size_t len;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		vrb_ep_cm_addr_resolved(ep);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		vrb_ep_cm_route_resolved(ep);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		vrb_ep_cm_established(ep, ev);
		break;
	case RDMA_CM_EVENT_REJECTED:
		/* a consumer's reject carries its data; a transport
		 * reject (no listener) carries none of ours */
		if (vrb_cm_data_parse(cp->private_data, cp->private_data_len,
				      &data, &len)) {
			data = NULL;
			len = 0;
		}
		vrb_ep_cm_end(ep, FI_ECONNREFUSED, data, len);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		vrb_ep_cm_end(ep, FI_EHOSTUNREACH, NULL, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		vrb_ep_cm_end(ep, FI_ECONNABORTED, NULL, 0);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* the peer's fi_shutdown or close, or our own: answering
		 * moves the QP to error, so what is posted completes as
		 * flushed (FI_ECANCELED) */
		(void)rdma_disconnect(ep->id);
		vrb_ep_cm_end(ep, 0, NULL, 0);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		vrb_ep_cm_end(ep, FI_ENODEV, NULL, 0);
		break;
	default:
		break;	/* TIMEWAIT_EXIT, ADDR_CHANGE: nothing to tell */
	}
	return false;
}

int vrb_ep_connect(struct fid_ep *ep_fid, const void *addr, const void *param,
		   size_t paramlen)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	int ret = 0;

	if (!ep || !addr || !vrb_addrlen(addr))
		return -FI_EINVAL;
	if (paramlen > VRB_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	if (!ep->base.enabled || !ep->id)
		return -FI_EOPBADSTATE;
	pthread_mutex_lock(&ep->lock);
	if (ep->state != VRB_EP_IDLE) {
		pthread_mutex_unlock(&ep->lock);
		return -FI_EOPBADSTATE;
	}
	if (paramlen)
		memcpy(ep->conn_data, param, paramlen);
	ep->conn_data_len = paramlen;
	ep->state = VRB_EP_CONNECTING;
	pthread_mutex_unlock(&ep->lock);
	/* the rest happens on the CM thread: address, route, connect */
	if (rdma_resolve_addr(ep->id, NULL, (struct sockaddr *)addr,
			      VRB_RESOLVE_TIMEOUT_MS)) {
		pthread_mutex_lock(&ep->lock);
		ep->state = VRB_EP_IDLE;
		pthread_mutex_unlock(&ep->lock);
		ret = -FI_EHOSTUNREACH;
	}
	return ret;
}

int vrb_ep_accept(struct fid_ep *ep_fid, const void *param, size_t paramlen)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	struct rdma_conn_param cp;
	uint8_t priv[VRB_CM_PRIV_MAX];
	size_t len;

	if (!ep)
		return -FI_EINVAL;
	if (paramlen > VRB_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	if (!ep->base.enabled || !ep->qp || ep->state != VRB_EP_CONNECTING)
		return -FI_EOPBADSTATE;
	len = vrb_cm_data_build(priv, param, paramlen);
	vrb_ep_conn_param(ep, &cp, priv, len);
	if (rdma_accept(ep->id, &cp))
		return -FI_ECONNABORTED;
	return 0;
}

int vrb_ep_shutdown(struct fid_ep *ep_fid, uint64_t flags)
{
	struct vrb_ep *ep = vrb_ep_of(ep_fid);
	bool connected;

	if (!ep || flags)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	connected = ep->state == VRB_EP_CONNECTED;
	pthread_mutex_unlock(&ep->lock);
	/* both sides get FI_SHUTDOWN from the DISCONNECTED event that
	 * rdma_cm raises on each */
	if (connected && ep->id)
		(void)rdma_disconnect(ep->id);
	return 0;
}
