/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp passive endpoint (fi_passive_ep, fi_listen, fi_reject) and the
 * connection requests it accepts, per fi_cm(3).
 *
 * The listening socket and every accepted socket still in its handshake
 * live in the fabric's CM set (tcp_prov.h): the CM pass accepts, reads
 * each request exactly (header, then its CM data, nothing after it) and
 * raises FI_CONNREQ with an fi_info whose handle is the request. From
 * then on the request belongs to the application: fi_endpoint adopts its
 * socket, fi_reject answers and closes it.
 *
 * Synchronization: pep->lock guards the listening state and the list of
 * requests in their handshake (and each such request's fields). A request
 * handed to the application is touched only by the application's calls.
 * fi_close takes every socket out of the CM set under the lock, then
 * waits for the CM pass (pl_progress_ctx_sync) before freeing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "pl_cm.h"
#include "pl_compiler.h"
#include "pl_eq.h"
#include "pl_fid_nosys.h"
#include "pl_info.h"
#include "tcp_ep.h"
#include "tcp_params.h"
#include "tcp_sock.h"

/* Accepted sockets one pass takes at most from the listening queue. */
#define TCP_PEP_ACCEPT_BATCH 16

struct tcp_pep;

struct tcp_connreq {
	struct pl_connreq base;
	struct tcp_sock_ev ev;
	struct tcp_pep *pep;		/* owner while in handshake */
	struct tcp_connreq *next;	/* pep's handshake list */
	int fd;
	struct sockaddr_storage peer;
	struct tcp_cm_in in;		/* the request, read exactly */
	uint64_t born_ms;		/* CLOCK_MONOTONIC at accept */
};

struct tcp_pep {
	struct pl_pep base;		/* first */
	struct tcp_fabric *fab;
	pthread_mutex_t lock;
	struct tcp_sock_ev ev;
	int fd;				/* bound by setname or listen */
	bool listening;
	bool closing;
	struct sockaddr_storage addr;
	bool has_addr;
	struct tcp_connreq *pending;
	/* drops requests that stay silent past FI_TCP_CONN_TIMEOUT: armed
	 * while any request is in its handshake */
	int timer_fd;
	struct tcp_sock_ev timer_ev;
	bool timer_in_set;
};

static uint64_t tcp_pep_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Under pep->lock: fire when the oldest request in handshake expires. */
static void tcp_pep_timer_arm(struct tcp_pep *pep)
{
	struct itimerspec its = { 0 };
	struct tcp_connreq *req;
	uint64_t oldest = UINT64_MAX, now, due;
	int tmo = tcp_params_get()->conn_timeout_ms;

	if (pep->timer_fd < 0)
		return;
	for (req = pep->pending; req; req = req->next)
		if (req->born_ms < oldest)
			oldest = req->born_ms;
	if (oldest != UINT64_MAX) {
		now = tcp_pep_now_ms();
		due = oldest + (uint64_t)tmo;
		due = due > now ? due - now : 1;
		its.it_value.tv_sec = (time_t)(due / 1000u);
		its.it_value.tv_nsec = (long)(due % 1000u) * 1000000L;
	}
	(void)timerfd_settime(pep->timer_fd, 0, &its, NULL);
}

static struct fi_ops tcp_pep_fid_ops;

static void tcp_connreq_free(struct pl_connreq *base)
{
	struct tcp_connreq *req = pl_container_of(base, struct tcp_connreq,
						  base);

	if (req->fd >= 0)
		close(req->fd);
	free(req);
}

/* Under pep->lock: unlink req from the handshake list and the set. */
static void tcp_pep_drop_pending(struct tcp_pep *pep, struct tcp_connreq *req)
{
	struct tcp_connreq **pp;

	for (pp = &pep->pending; *pp; pp = &(*pp)->next)
		if (*pp == req) {
			*pp = req->next;
			break;
		}
	req->next = NULL;
	req->pep = NULL;
	tcp_sockset_del(&pep->fab->cm_set, req->fd, &req->ev);
}

/* The request is read: raise FI_CONNREQ. Under pep->lock. */
static void tcp_pep_raise(struct tcp_pep *pep, struct tcp_connreq *req)
{
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	struct fi_info *info;
	int ret;

	tcp_pep_drop_pending(pep, req);
	tcp_pep_timer_arm(pep);
	info = fi_dupinfo_1_3(pep->base.info);
	if (!info)
		goto err;
	free(info->src_addr);
	free(info->dest_addr);
	info->src_addr = info->dest_addr = NULL;
	info->src_addrlen = info->dest_addrlen = 0;
	if (!getsockname(req->fd, (struct sockaddr *)&local, &sl))
		info->src_addr = tcp_sock_addr_dup((struct sockaddr *)&local,
						   &info->src_addrlen);
	info->dest_addr = tcp_sock_addr_dup((struct sockaddr *)&req->peer,
					    &info->dest_addrlen);
	info->addr_format = req->peer.ss_family == AF_INET6 ?
			    FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	info->handle = &req->base.fid;
	ret = pl_cm_write_connreq(pep->base.eq, &pep->base.pep_fid.fid, info,
				  req->in.data, req->in.hdr.data_len);
	if (ret) {
		/* info went with the failed event (pl_cm.h); the request
		 * is refused by closing its socket */
		TCP_LOG_WARN(FI_LOG_EP_CTRL, "connection request dropped: "
			     "the EQ refused FI_CONNREQ (%d)\n", ret);
		tcp_connreq_free(&req->base);
	}
	return;
err:
	tcp_connreq_free(&req->base);
}

static int tcp_connreq_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_connreq *req = pl_container_of(ev, struct tcp_connreq, ev);
	struct tcp_pep *pep = req->pep;
	int ret;

	(void)events;
	if (!pep)
		return 0;
	pthread_mutex_lock(&pep->lock);
	if (pep->closing || req->pep != pep)
		goto out;
	ret = tcp_sock_read_cm(req->fd, &req->in, TCP_CM_REQ);
	if (ret == 0)
		goto out;
	if (ret == -FI_ENOPROTOOPT) {
		/* another protocol version: say ours, so that its side
		 * reports the mismatch instead of a bare reset */
		struct tcp_cm_msg m = {
			.magic = htole32(TCP_CM_MAGIC),
			.version = TCP_PROTO_VERSION,
			.kind = TCP_CM_REJECT,
		};

		TCP_LOG_WARN(FI_LOG_EP_CTRL, "refusing a connection request "
			     "of protocol version %u (ours: %u)\n",
			     req->in.hdr.version, TCP_PROTO_VERSION);
		(void)send(req->fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	if (ret < 0) {
		TCP_LOG_INFO(FI_LOG_EP_CTRL, "dropping a connection request: %d\n",
			 ret);
		tcp_pep_drop_pending(pep, req);
		tcp_connreq_free(&req->base);
		goto out;
	}
	tcp_pep_raise(pep, req);
out:
	pthread_mutex_unlock(&pep->lock);
	return 1;	/* called for an epoll event only */
}

static int tcp_pep_timer_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_pep *pep = pl_container_of(ev, struct tcp_pep, timer_ev);
	struct tcp_connreq *req, *next;
	uint64_t now = tcp_pep_now_ms(), ticks;
	int tmo = tcp_params_get()->conn_timeout_ms;

	(void)events;
	pthread_mutex_lock(&pep->lock);
	if (pep->closing)
		goto out;
	(void)!read(pep->timer_fd, &ticks, sizeof(ticks));
	for (req = pep->pending; req; req = next) {
		next = req->next;
		if (now - req->born_ms < (uint64_t)tmo)
			continue;
		TCP_LOG_INFO(FI_LOG_EP_CTRL, "dropping a connection request "
			     "silent for %d ms\n", tmo);
		tcp_pep_drop_pending(pep, req);
		tcp_connreq_free(&req->base);
	}
	tcp_pep_timer_arm(pep);
out:
	pthread_mutex_unlock(&pep->lock);
	return 1;	/* called for an epoll event only */
}

static void tcp_pep_accept_some(struct tcp_pep *pep)
{
	struct tcp_connreq *req;
	struct sockaddr_storage peer;
	socklen_t sl;
	int i, fd, one = 1;

	for (i = 0; i < TCP_PEP_ACCEPT_BATCH; i++) {
		sl = sizeof(peer);
		fd = accept4(pep->fd, (struct sockaddr *)&peer, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;	/* EAGAIN, or a transient error (EMFILE) */
		if (tcp_params_get()->nodelay)
			(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
					 sizeof(one));
		req = calloc(1, sizeof(*req));
		if (!req) {
			close(fd);
			continue;
		}
		pl_connreq_init(&req->base, tcp_connreq_free);
		req->fd = fd;
		req->peer = peer;
		req->ev.handle = tcp_connreq_handle;
		req->pep = pep;
		if (tcp_sockset_add(&pep->fab->cm_set, fd, &req->ev,
				    EPOLLIN)) {
			tcp_connreq_free(&req->base);
			continue;
		}
		req->born_ms = tcp_pep_now_ms();
		req->next = pep->pending;
		pep->pending = req;
	}
	tcp_pep_timer_arm(pep);
}

static int tcp_pep_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_pep *pep = pl_container_of(ev, struct tcp_pep, ev);

	(void)events;
	pthread_mutex_lock(&pep->lock);
	if (!pep->closing && pep->listening)
		tcp_pep_accept_some(pep);
	pthread_mutex_unlock(&pep->lock);
	return 1;	/* called for an epoll event only */
}

int tcp_pep_adopt(struct fi_info *info, int *fd_p,
		  struct sockaddr_storage *peer_p)
{
	struct pl_connreq *base = pl_connreq_of(info->handle);
	struct tcp_connreq *req;

	if (!base || base->free_fn != tcp_connreq_free)
		return -FI_EINVAL;
	req = pl_container_of(base, struct tcp_connreq, base);
	if (req->fd < 0)
		return -FI_EINVAL;
	*fd_p = req->fd;
	*peer_p = req->peer;
	req->fd = -1;
	tcp_connreq_free(base);
	/* the handle is spent: fi_reject or a second fi_endpoint on it
	 * would name freed memory */
	info->handle = NULL;
	return 0;
}

static int tcp_pep_close(struct fid *fid)
{
	struct tcp_pep *pep = pl_container_of(fid, struct tcp_pep,
					      base.pep_fid.fid);
	struct tcp_connreq *req;

	pthread_mutex_lock(&pep->lock);
	pep->closing = true;
	if (pep->listening)
		tcp_sockset_del(&pep->fab->cm_set, pep->fd, &pep->ev);
	for (req = pep->pending; req; req = req->next)
		tcp_sockset_del(&pep->fab->cm_set, req->fd, &req->ev);
	if (pep->timer_in_set)
		tcp_sockset_del(&pep->fab->cm_set, pep->timer_fd,
				&pep->timer_ev);
	pthread_mutex_unlock(&pep->lock);
	/* acquire: pairs with tcp_fabric_cm_start's release (cm_ctx) */
	if (pl_load_acquire(&pep->fab->cm_started))
		pl_progress_ctx_sync(pep->fab->cm_ctx);
	while ((req = pep->pending)) {
		pep->pending = req->next;
		tcp_connreq_free(&req->base);
	}
	if (pep->fd >= 0)
		close(pep->fd);
	if (pep->timer_fd >= 0)
		close(pep->timer_fd);
	/* unread requests of this listener go, with their sockets */
	if (pep->base.eq)
		(void)pl_eq_purge_fid(pep->base.eq, &pep->base.pep_fid.fid);
	pl_pep_fini(&pep->base);
	pl_fabric_obj_child_put(&pep->fab->base.fabric_fid);
	pthread_mutex_destroy(&pep->lock);
	free(pep);
	return 0;
}

/* Under pep->lock: a socket bound to pep->addr (the wildcard address of
 * IPv4 when none was given). 0 or -FI_E*. */
static int tcp_pep_bind_socket(struct tcp_pep *pep)
{
	int fd, one = 1;

	if (pep->fd >= 0)
		return 0;
	if (!pep->has_addr) {
		memset(&pep->addr, 0, sizeof(pep->addr));
		pep->addr.ss_family = AF_INET;
	}
	fd = tcp_sock_open(pep->addr.ss_family);
	if (fd < 0)
		return fd;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&pep->addr,
		 (socklen_t)tcp_sock_addrlen((struct sockaddr *)&pep->addr))) {
		int err = errno;

		close(fd);
		return -tcp_sock_errno_to_fi(err);
	}
	pep->fd = fd;
	return 0;
}

/* fi_setname binds at once, so that fi_getname then tells the port the
 * kernel chose for a port-0 address. */
static int tcp_pep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct tcp_pep *pep = pl_container_of(fid, struct tcp_pep,
					      base.pep_fid.fid);
	int ret;

	if (!tcp_sock_addr_ok(addr, addrlen))
		return -FI_EINVAL;
	pthread_mutex_lock(&pep->lock);
	if (pep->listening) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (pep->fd >= 0) {
		close(pep->fd);
		pep->fd = -1;
	}
	memcpy(&pep->addr, addr, tcp_sock_addrlen(addr));
	pep->has_addr = true;
	ret = tcp_pep_bind_socket(pep);
out:
	pthread_mutex_unlock(&pep->lock);
	return ret;
}

int tcp_pep_give_socket(fid_t pep_fid, int *fd_p,
			struct sockaddr_storage *addr_p, bool *has_addr_p)
{
	struct tcp_pep *pep;
	int ret = 0;

	if (!pep_fid || pep_fid->fclass != FI_CLASS_PEP ||
	    pep_fid->ops != &tcp_pep_fid_ops)
		return -FI_EINVAL;
	pep = pl_container_of(pep_fid, struct tcp_pep, base.pep_fid.fid);
	pthread_mutex_lock(&pep->lock);
	if (pep->listening) {
		ret = -FI_EOPBADSTATE;	/* its socket listens: not ours */
	} else {
		*fd_p = pep->fd;
		pep->fd = -1;
		*addr_p = pep->addr;
		*has_addr_p = pep->has_addr;
	}
	pthread_mutex_unlock(&pep->lock);
	return ret;
}

static int tcp_pep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct tcp_pep *pep = pl_container_of(fid, struct tcp_pep,
					      base.pep_fid.fid);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	pthread_mutex_lock(&pep->lock);
	if ((pep->fd < 0 ||
	     getsockname(pep->fd, (struct sockaddr *)&ss, &sl)) &&
	    pep->has_addr)
		ss = pep->addr;
	pthread_mutex_unlock(&pep->lock);
	return tcp_sock_name_out(&ss, addr, addrlen);
}

static int tcp_pep_listen(struct fid_pep *pep_fid)
{
	struct tcp_pep *pep = pl_container_of(pep_fid, struct tcp_pep,
					      base.pep_fid);
	int fd, ret;

	if (!pep->base.eq)
		return -FI_ENOEQ;
	ret = tcp_fabric_cm_start(pep->fab);
	if (ret)
		return ret;
	pthread_mutex_lock(&pep->lock);
	if (pep->listening) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	ret = tcp_pep_bind_socket(pep);
	if (ret)
		goto out;
	fd = pep->fd;
	if (listen(fd, SOMAXCONN)) {
		ret = -tcp_sock_errno_to_fi(errno);
		goto out;
	}
	ret = tcp_sockset_add(&pep->fab->cm_set, fd, &pep->ev, EPOLLIN);
	if (ret)
		goto out;
	pep->timer_fd = timerfd_create(CLOCK_MONOTONIC,
				       TFD_NONBLOCK | TFD_CLOEXEC);
	if (pep->timer_fd >= 0 &&
	    !tcp_sockset_add(&pep->fab->cm_set, pep->timer_fd,
			     &pep->timer_ev, EPOLLIN))
		pep->timer_in_set = true;
	pep->listening = true;
	pl_progress_ctx_kick(pep->fab->cm_ctx);
out:
	pthread_mutex_unlock(&pep->lock);
	return ret;
}

static int tcp_pep_reject(struct fid_pep *pep_fid, fid_t handle,
			  const void *param, size_t paramlen)
{
	struct pl_connreq *base = pl_connreq_of(handle);
	struct tcp_cm_msg m = {
		.magic = htole32(TCP_CM_MAGIC),
		.version = TCP_PROTO_VERSION,
		.kind = TCP_CM_REJECT,
		.data_len = htole16((uint16_t)paramlen),
	};
	uint8_t out[sizeof(m) + TCP_CM_DATA_MAX];
	struct tcp_connreq *req;
	int ret;

	(void)pep_fid;
	if (!base || base->free_fn != tcp_connreq_free ||
	    paramlen > TCP_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	req = pl_container_of(base, struct tcp_connreq, base);
	memcpy(out, &m, sizeof(m));
	if (paramlen)
		memcpy(out + sizeof(m), param, paramlen);
	ret = tcp_sock_send_all(req->fd, out, sizeof(m) + paramlen, 5000);
	tcp_connreq_free(base);
	return ret;
}

static struct fi_ops tcp_pep_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = tcp_pep_close,
	.bind = pl_pep_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep tcp_pep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = pl_fid_nosys_ep_cancel,
	.getopt = pl_pep_getopt,
	.setopt = pl_pep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = pl_fid_nosys_ep_rx_size_left,
	.tx_size_left = pl_fid_nosys_ep_tx_size_left,
};

static struct fi_ops_cm tcp_pep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = tcp_pep_setname,
	.getname = tcp_pep_getname,
	.getpeer = pl_fid_nosys_cm_getpeer,
	.connect = pl_fid_nosys_cm_connect,
	.listen = tcp_pep_listen,
	.accept = pl_fid_nosys_cm_accept,
	.reject = tcp_pep_reject,
	.shutdown = pl_fid_nosys_cm_shutdown,
	.join = pl_fid_nosys_cm_join,
};

int tcp_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		 struct fid_pep **pep_p, void *context)
{
	struct tcp_fabric *fab;
	struct tcp_pep *pep;
	int ret;

	if (!fabric || !info || !pep_p)
		return -FI_EINVAL;
	if (info->ep_attr && info->ep_attr->type != FI_EP_MSG &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -FI_EINVAL;
	fab = pl_container_of(fabric, struct tcp_fabric, base.fabric_fid);
	pep = calloc(1, sizeof(*pep));
	if (!pep)
		return -FI_ENOMEM;
	ret = pl_pep_init(&pep->base, fabric, info, TCP_CM_DATA_MAX, context);
	if (ret) {
		free(pep);
		return ret;
	}
	pthread_mutex_init(&pep->lock, NULL);
	pep->fab = fab;
	pep->fd = -1;
	pep->timer_fd = -1;
	pep->ev.handle = tcp_pep_handle;
	pep->timer_ev.handle = tcp_pep_timer_handle;
	if (info->src_addr && tcp_sock_addr_ok(info->src_addr,
					       info->src_addrlen)) {
		memcpy(&pep->addr, info->src_addr,
		       tcp_sock_addrlen(info->src_addr));
		pep->has_addr = true;
	}
	pep->base.pep_fid.fid.ops = &tcp_pep_fid_ops;
	pep->base.pep_fid.ops = &tcp_pep_ops;
	pep->base.pep_fid.cm = &tcp_pep_cm_ops;
	pl_fabric_obj_child_get(&fab->base.fabric_fid);
	*pep_p = &pep->base.pep_fid;
	return 0;
}
