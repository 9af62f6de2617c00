/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp endpoint object: open, bind, enable, options, close, and the
 * connection's life in the domain's data set (tcp_ep.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "pl_cm.h"
#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "tcp_ep.h"
#include "tcp_params.h"
#include "tcp_sock.h"
#include "tcp_srx.h"

struct tcp_connreq;
int tcp_pep_adopt(struct fi_info *info, int *fd_p,
		  struct sockaddr_storage *peer_p);
int tcp_pep_give_socket(fid_t pep_fid, int *fd_p,
			struct sockaddr_storage *addr_p, bool *has_addr_p);

static struct fi_ops tcp_ep_fid_ops;

struct tcp_ep *tcp_ep_of(struct fid_ep *ep)
{
	if (!ep || ep->fid.fclass != FI_CLASS_EP ||
	    ep->fid.ops != &tcp_ep_fid_ops)
		return NULL;
	return pl_container_of(ep, struct tcp_ep, base.ep_fid);
}

void tcp_ep_update_events(struct tcp_ep *ep)
{
	uint32_t want = 0;

	if (!ep->in_data_set)
		return;
	/* stalled: the socket is not read until a receive or a reply slot
	 * frees up (the flush that frees a slot runs on EPOLLOUT) */
	if (ep->rs.phase != TCP_RX_STALLED)
		want |= EPOLLIN;
	if (ep->txq_head)
		want |= EPOLLOUT;
	if (want == ep->events)
		return;
	if (!tcp_sockset_mod(&ep->dom->data_set, ep->fd, &ep->data_ev, want))
		ep->events = want;
}

/* A direct pass (which tries every socket without asking epoll) over a
 * socket whose last bulk read or write would have blocked: ask poll()
 * first. The kernel answers it without the socket's lock, which a
 * failing recv or sendmsg takes, and which the softirq that queues the
 * peer's segments (or acknowledgements) needs: held, it leaves them to
 * the lock's owner, the spinning side. The events poll found ready. */
static uint32_t tcp_ep_probe(struct tcp_ep *ep)
{
	struct pollfd p = {
		.fd = ep->fd,
		.events = POLLIN | (ep->txq_head ? POLLOUT : 0),
	};
	uint32_t events = 0;

	if (tcp_sys_poll(&p, 1, 0) <= 0)
		return 0;
	ep->probe = false;	/* set again by the next call that blocks */
	if (p.revents & POLLIN)
		events |= EPOLLIN;
	if (p.revents & POLLOUT)
		events |= EPOLLOUT;
	if (p.revents & (POLLERR | POLLHUP))
		events |= EPOLLERR | EPOLLHUP;
	return events;
}

/* The domain's pass found the socket ready. */
static int tcp_ep_data_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_ep *ep = pl_container_of(ev, struct tcp_ep, data_ev);
	struct tcp_xfer *head;
	int work = 0, ret;

	pthread_mutex_lock(&ep->lock);
	if (ep->closing || ep->state != TCP_EP_CONNECTED)
		goto out;
	if (pl_exchange_acq_rel(&ep->srx_woken, 0))
		/* a shared receive context re-armed the socket for us */
		ep->events = EPOLLIN | EPOLLOUT;
	if (ep->probe && events == TCP_SOCKSET_DIRECT_EVENTS)
		events = tcp_ep_probe(ep);
	/* a writable socket, or sends kept for this pass (tcp_ep_tx.c) */
	if (((events & EPOLLOUT) || ep->tx_deferred) &&
	    (head = ep->txq_head)) {
		if (tcp_ep_tx_flush(ep)) {
			work = 1;	/* the connection failed: reported */
			goto out;
		}
		work += ep->txq_head != head || (head && head->sent);
	}
	if (ep->rs.phase == TCP_RX_STALLED) {
		tcp_ep_rx_resume(ep);
		work += ep->rs.phase != TCP_RX_STALLED;
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)) {
		ret = tcp_ep_rx_progress(ep, 16);
		work += ret > 0 ? ret : (ret < 0);
	}
	if (ep->state == TCP_EP_CONNECTED)
		tcp_ep_update_events(ep);
out:
	pthread_mutex_unlock(&ep->lock);
	return work;
}

int tcp_ep_go_connected(struct tcp_ep *ep)
{
	int ret;

	ep->state = TCP_EP_CONNECTED;
	ep->events = EPOLLIN | (ep->txq_head ? EPOLLOUT : 0);
	ret = tcp_sockset_add(&ep->dom->data_set, ep->fd, &ep->data_ev,
			      ep->events);
	if (ret)
		return ret;
	ep->in_data_set = true;
	/* The CM context watches for the peer's hang-up too, so that
	 * FI_SHUTDOWN reaches an application that only reads its EQ
	 * (control progress is automatic). One-shot: a closed stream stays
	 * readable, and one report is all it takes. The data set owns the
	 * registration: it leaves and comes back with the socket's own
	 * (detached sockets, tcp_prov.h). Acquire: pairs with the release
	 * in tcp_fabric_cm_start (cm_set is ready). */
	if (pl_load_acquire(&ep->fab->cm_started) &&
	    !tcp_sockset_watch(&ep->dom->data_set, &ep->data_ev,
			       &ep->fab->cm_set, &ep->cm_ev,
			       EPOLLRDHUP | EPOLLONESHOT))
		ep->in_cm_set = true;
	/* a manual-progress domain is driven by its reader; an auto one's
	 * thread may sleep on the set, which the new fd now wakes */
	pl_progress_ctx_kick(ep->dom->base.ctx);
	return 0;
}

void tcp_ep_fail(struct tcp_ep *ep, int err, bool notify)
{
	int code = err ? err : FI_ECONNRESET;

	if (ep->state == TCP_EP_DOWN)
		return;
	ep->state = TCP_EP_DOWN;
	if (ep->in_data_set) {
		tcp_sockset_del(&ep->dom->data_set, ep->fd, &ep->data_ev);
		ep->in_data_set = false;
	}
	if (ep->in_cm_set) {
		tcp_sockset_del(&ep->fab->cm_set, ep->fd, &ep->cm_ev);
		ep->in_cm_set = false;
	}
	tcp_ep_tx_fail_all(ep, code);
	tcp_ep_rx_fail_all(ep, code);
	if (ep->srx)
		tcp_srx_forget(ep->srx, ep);
	if (notify && ep->base.eq && !ep->closing && !ep->shutdown_reported) {
		ep->shutdown_reported = true;
		(void)pl_cm_write_shutdown(ep->base.eq, &ep->base.ep_fid.fid);
	}
}

static int tcp_ep_close(struct fid *fid)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);

	pthread_mutex_lock(&ep->lock);
	/* sends kept for the next pass were posted before the close: they
	 * leave as they would have without coalescing (if the socket takes
	 * them); pending operations complete as cancelled (the CQs outlive
	 * the endpoint), then nothing more is written */
	tcp_ep_tx_flush_deferred(ep);
	if (ep->state != TCP_EP_DOWN) {
		tcp_ep_fail(ep, FI_ECANCELED, false);
	} else {
		/* posted after the connection ended (a receive is queued
		 * then, as before it began): cancelled now, or never */
		tcp_ep_tx_fail_all(ep, FI_ECANCELED);
		tcp_ep_rx_fail_all(ep, FI_ECANCELED);
	}
	ep->closing = true;
	/* before the CQs can go (pl_ep_fini): the context no longer picks
	 * this endpoint to report a cancel */
	if (ep->srx)
		tcp_srx_detach(ep->srx, ep);
	pthread_mutex_unlock(&ep->lock);
	tcp_sockset_unmark_hot(&ep->dom->data_set, &ep->data_ev);
	/* no pass of either context still holds this endpoint */
	pl_progress_ctx_sync(ep->dom->base.ctx);
	/* acquire: pairs with tcp_fabric_cm_start's release (cm_ctx) */
	if (pl_load_acquire(&ep->fab->cm_started))
		pl_progress_ctx_sync(ep->fab->cm_ctx);
	if (ep->fd >= 0)
		close(ep->fd);
	/* nothing writes events for it any more: readers must not meet
	 * its fid after this (fi_eq(3)) */
	if (ep->base.eq)
		(void)pl_eq_purge_fid(ep->base.eq, &ep->base.ep_fid.fid);
	if (ep->srx)
		tcp_srx_unref(ep->srx);
	tcp_ep_tx_fini(ep);
	tcp_ep_rx_fini(ep);
	pl_ep_fini(&ep->base);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
	return 0;
}

static int tcp_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);
	struct tcp_srx *srx;

	if (bfid && bfid->fclass == FI_CLASS_SRX_CTX) {
		srx = tcp_srx_of(bfid);
		if (!srx || srx->dom != ep->dom || flags)
			return -FI_EINVAL;
		if (ep->base.enabled)
			return -FI_EOPBADSTATE;
		if (ep->srx)
			return -FI_EALREADY;
		tcp_srx_attach(srx, ep);
		ep->srx = srx;
		return 0;
	}
	return pl_ep_bind(&ep->base, bfid, flags);
}

int tcp_ep_enable(struct tcp_ep *ep)
{
	int ret = pl_ep_enable(&ep->base);

	if (!ret && ep->srx)
		tcp_srx_enable(ep->srx, ep);
	return ret;
}

static int tcp_ep_control(struct fid *fid, int command, void *arg)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);
	int ret;

	switch (command) {
	case FI_ENABLE:
		pthread_mutex_lock(&ep->lock);
		ret = tcp_ep_enable(ep);	/* -FI_EOPBADSTATE twice */
		pthread_mutex_unlock(&ep->lock);
		return ret;
	case FI_GETOPSFLAG:
		if (!arg)
			return -FI_EINVAL;
		if (*(uint64_t *)arg & FI_TRANSMIT)
			*(uint64_t *)arg = ep->tx_op_flags;
		else if (*(uint64_t *)arg & FI_RECV)
			*(uint64_t *)arg = ep->rx_op_flags;
		else
			return -FI_EINVAL;
		return 0;
	case FI_SETOPSFLAG:
		if (!arg)
			return -FI_EINVAL;
		if (*(uint64_t *)arg & FI_TRANSMIT)
			ep->tx_op_flags = *(uint64_t *)arg & ~FI_TRANSMIT;
		else if (*(uint64_t *)arg & FI_RECV)
			ep->rx_op_flags = *(uint64_t *)arg & ~FI_RECV;
		else
			return -FI_EINVAL;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int tcp_ep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);
	size_t max = TCP_CM_DATA_MAX;

	if (level == FI_OPT_ENDPOINT && optname == FI_OPT_CM_DATA_SIZE) {
		if (!optlen)
			return -FI_EINVAL;
		if (*optlen < sizeof(size_t)) {
			*optlen = sizeof(size_t);
			return -FI_ETOOSMALL;
		}
		if (!optval)
			return -FI_EINVAL;
		memcpy(optval, &max, sizeof(max));
		*optlen = sizeof(max);
		return 0;
	}
	return pl_ep_getopt(&ep->base, level, optname, optval, optlen);
}

static int tcp_ep_setopt(fid_t fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);

	if (level == FI_OPT_ENDPOINT && optname == FI_OPT_CM_DATA_SIZE)
		return -FI_ENOPROTOOPT;	/* read-only: fixed by the wire */
	return pl_ep_setopt(&ep->base, level, optname, optval, optlen);
}

static ssize_t tcp_ep_cancel(fid_t fid, void *context)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);
	struct tcp_rx *rx;

	pthread_mutex_lock(&ep->lock);
	rx = tcp_rxq_take_ctx(&ep->rxq, context);
	if (!rx)
		rx = tcp_rxq_take_ctx(&ep->trxq, context);
	if (rx) {
		tcp_ep_rx_report_canceled(ep, rx);
		tcp_ep_rx_put(ep, rx);
	}
	pthread_mutex_unlock(&ep->lock);
	return rx ? 0 : -FI_ENOENT;
}

static ssize_t tcp_ep_tx_size_left(struct fid_ep *ep_fid)
{
	struct tcp_ep *ep = tcp_ep_of(ep_fid);
	ssize_t n;

	if (!ep)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	n = (ssize_t)tcp_ep_tx_free_count(ep, SIZE_MAX);
	pthread_mutex_unlock(&ep->lock);
	return n;
}

static ssize_t tcp_ep_rx_size_left(struct fid_ep *ep_fid)
{
	struct tcp_ep *ep = tcp_ep_of(ep_fid);
	struct tcp_rx *rx;
	ssize_t n = 0;

	if (!ep)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	for (rx = ep->rx_free; rx; rx = rx->next)
		n++;
	n += (ssize_t)(ep->rx_size - ep->rx_made);
	pthread_mutex_unlock(&ep->lock);
	return n;
}

static int tcp_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	pthread_mutex_lock(&ep->lock);
	/* the bound address once there is a socket (its port), else the
	 * one fi_setname or the info gave */
	if ((ep->fd < 0 || getsockname(ep->fd, (struct sockaddr *)&ss, &sl)) &&
	    ep->has_src)
		ss = ep->src_addr;
	pthread_mutex_unlock(&ep->lock);
	return tcp_sock_name_out(&ss, addr, addrlen);
}

static int tcp_ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct tcp_ep *ep = pl_container_of(fid, struct tcp_ep,
					    base.ep_fid.fid);
	int ret = 0;

	if (!tcp_sock_addr_ok(addr, addrlen))
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	if (ep->state != TCP_EP_IDLE)
		ret = -FI_EOPBADSTATE;
	else {
		memcpy(&ep->src_addr, addr,
		       tcp_sock_addrlen((const struct sockaddr *)addr));
		ep->has_src = true;
		ep->family = ((const struct sockaddr *)addr)->sa_family;
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

static int tcp_ep_getpeer(struct fid_ep *ep_fid, void *addr, size_t *addrlen)
{
	struct tcp_ep *ep = tcp_ep_of(ep_fid);
	struct sockaddr_storage ss;

	if (!ep)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	ss = ep->peer_addr;
	pthread_mutex_unlock(&ep->lock);
	if (!tcp_sock_addrlen((struct sockaddr *)&ss))
		return -FI_ENOTCONN;
	return tcp_sock_name_out(&ss, addr, addrlen);
}

static int tcp_ep_shutdown(struct fid_ep *ep_fid, uint64_t flags)
{
	struct tcp_ep *ep = tcp_ep_of(ep_fid);

	if (!ep || flags)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->lock);
	tcp_ep_tx_flush_deferred(ep);	/* posted before the shutdown */
	if (ep->fd >= 0)
		(void)shutdown(ep->fd, SHUT_RDWR);
	/* the peer gets FI_SHUTDOWN when it reads the end of the stream;
	 * this side gets its own at once (as the reference does: both
	 * sides of fi_shutdown wait for one), and its pending operations
	 * end as cancelled */
	tcp_ep_fail(ep, FI_ECANCELED, ep->state != TCP_EP_DOWN &&
		    ep->state != TCP_EP_IDLE);
	pthread_mutex_unlock(&ep->lock);
	return 0;
}

static struct fi_ops tcp_ep_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = tcp_ep_close,
	.bind = tcp_ep_bind,
	.control = tcp_ep_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep tcp_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = tcp_ep_cancel,
	.getopt = tcp_ep_getopt,
	.setopt = tcp_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = tcp_ep_rx_size_left,
	.tx_size_left = tcp_ep_tx_size_left,
};

static struct fi_ops_cm tcp_ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = tcp_ep_setname,
	.getname = tcp_ep_getname,
	.getpeer = tcp_ep_getpeer,
	.connect = tcp_ep_cm_connect,
	.listen = pl_fid_nosys_cm_listen,
	.accept = tcp_ep_cm_accept,
	.reject = pl_fid_nosys_cm_reject,
	.shutdown = tcp_ep_shutdown,
	.join = pl_fid_nosys_cm_join,
};

static void tcp_ep_set_limits(struct tcp_ep *ep, const struct fi_info *info)
{
	ep->limits.max_msg_size = (info && info->ep_attr &&
				   info->ep_attr->max_msg_size) ?
				  info->ep_attr->max_msg_size : SIZE_MAX;
	ep->limits.max_read_size = ep->limits.max_msg_size;
}

int tcp_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context)
{
	const struct tcp_params *p = tcp_params_get();
	struct tcp_domain *dom = tcp_domain_of(domain);
	struct tcp_ep *ep;
	int ret;

	if (!dom || !info || !ep_p)
		return -FI_EINVAL;
	if (info->ep_attr && info->ep_attr->type != FI_EP_MSG &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -FI_EINVAL;
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
	ep->fd = -1;
	ep->cm_ev.handle = tcp_ep_cm_handle;
	ep->data_ev.handle = tcp_ep_data_handle;
	ep->state = TCP_EP_IDLE;
	ep->family = AF_INET;
	ep->tx_size = (info->tx_attr && info->tx_attr->size) ?
		      info->tx_attr->size : p->tx_size;
	ep->rx_size = (info->rx_attr && info->rx_attr->size) ?
		      info->rx_attr->size : p->rx_size;
	if (ep->tx_size > 0xffff)
		ep->tx_size = 0xffff;
	ep->reply_size = ep->rx_size;
	ep->max_inject = p->max_inject;
	ep->stage_cap = p->staging_size;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	tcp_ep_set_limits(ep, info);
	if (info->src_addr && tcp_sock_addr_ok(info->src_addr,
					       info->src_addrlen)) {
		memcpy(&ep->src_addr, info->src_addr,
		       tcp_sock_addrlen(info->src_addr));
		ep->has_src = true;
		ep->family = ((struct sockaddr *)info->src_addr)->sa_family;
	} else if (info->dest_addr && tcp_sock_addr_ok(info->dest_addr,
						       info->dest_addrlen)) {
		ep->family = ((struct sockaddr *)info->dest_addr)->sa_family;
	}
	ret = tcp_ep_tx_init(ep);
	if (ret)
		goto err_fini;
	ret = tcp_ep_rx_init(ep);
	if (ret)
		goto err_tx;
	if (info->handle && info->handle->fclass == FI_CLASS_PEP) {
		/* fi_endpoint(3): the endpoint takes over the passive
		 * endpoint's (bound, not listening) socket and address */
		ret = tcp_pep_give_socket(info->handle, &ep->fd,
					  &ep->src_addr, &ep->has_src);
		if (ret)
			goto err_rx;
		if (ep->has_src)
			ep->family = ep->src_addr.ss_family;
	} else if (info->handle) {
		/* the passive side: adopt the request's socket */
		ret = tcp_pep_adopt(info, &ep->fd, &ep->peer_addr);
		if (ret)
			goto err_rx;
		ep->state = TCP_EP_ACCEPTING;
	}
	ep->base.ep_fid.fid.ops = &tcp_ep_fid_ops;
	ep->base.ep_fid.ops = &tcp_ep_ops;
	ep->base.ep_fid.cm = &tcp_ep_cm_ops;
	ep->base.ep_fid.msg = &tcp_ep_msg_ops;
	ep->base.ep_fid.tagged = &tcp_ep_tagged_ops;
	ep->base.ep_fid.rma = &tcp_ep_rma_ops;
	ep->base.ep_fid.atomic =
		(struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	ep->base.ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	*ep_p = &ep->base.ep_fid;
	return 0;

err_rx:
	tcp_ep_rx_fini(ep);
err_tx:
	tcp_ep_tx_fini(ep);
err_fini:
	pl_ep_fini(&ep->base);
	pthread_mutex_destroy(&ep->lock);
err_free:
	free(ep);
	return ret;
}
