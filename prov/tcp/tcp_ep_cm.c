/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The active side of a connection (fi_connect) and fi_accept, per
 * fi_cm(3). The exchange runs on the fabric's CM context (tcp_prov.h):
 * connect() is started here, and the CM pass finishes it, sends the
 * request, reads the answer and raises FI_CONNECTED or the error event.
 * Under ep->lock throughout (tcp_ep.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_cm.h"
#include "pl_compiler.h"
#include "tcp_ep.h"
#include "tcp_sock.h"

/* The connect failed or was refused: err positive FI_E*; data is the
 * peer's reject data. */
static void tcp_ep_cm_fail(struct tcp_ep *ep, int err, const void *data,
			   size_t len)
{
	if (ep->in_cm_set) {
		tcp_sockset_del(&ep->fab->cm_set, ep->fd, &ep->cm_ev);
		ep->in_cm_set = false;
	}
	tcp_ep_fail(ep, err, false);
	if (ep->base.eq && !ep->closing)
		(void)pl_cm_write_error(ep->base.eq, &ep->base.ep_fid.fid,
					ep->base.ep_fid.fid.context, err,
					data, len);
}

/* Push the request; 1 when all of it is out, 0 would block. */
static int tcp_ep_cm_send_req(struct tcp_ep *ep)
{
	ssize_t n;

	while (ep->cm_out_sent < ep->cm_out_len) {
		n = send(ep->fd, ep->cm_out + ep->cm_out_sent,
			 ep->cm_out_len - ep->cm_out_sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			ep->cm_out_sent += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return -tcp_sock_errno_to_fi(n < 0 ? errno : ECONNRESET);
	}
	return 1;
}

/* The CM context saw a connected peer hang up (or the socket fail):
 * read what the stream still holds, which ends in the end of stream and
 * tcp_ep_fail's FI_SHUTDOWN. When a message waits for a receive the
 * stream cannot be read to its end yet: FI_SHUTDOWN goes out now, and
 * the data path delivers the rest as receives are posted. */
static void tcp_ep_cm_hangup(struct tcp_ep *ep)
{
	ep->peer_hup = true;
	(void)tcp_ep_rx_progress(ep, 1u << 20);
	if (ep->state != TCP_EP_CONNECTED)
		return;
	/* A hung-up socket is always ready (EPOLLHUP cannot be masked):
	 * left in the data set it would wake a sleeping progress thread
	 * over and over. What the stream still holds is read when a
	 * receive is posted (tcp_ep_rx_resume, then the hot list). */
	if (ep->in_data_set) {
		tcp_sockset_del(&ep->dom->data_set, ep->fd, &ep->data_ev);
		ep->in_data_set = false;
	}
	if (ep->shutdown_reported || !ep->base.eq || ep->closing)
		return;
	ep->shutdown_reported = true;
	(void)pl_cm_write_shutdown(ep->base.eq, &ep->base.ep_fid.fid);
}

static void tcp_ep_cm_progress(struct tcp_ep *ep, uint32_t events)
{
	int err = 0, ret;
	socklen_t sl = sizeof(err);

	if (ep->state == TCP_EP_CONNECTED) {
		tcp_ep_cm_hangup(ep);
		return;
	}

	if (ep->state == TCP_EP_CONNECTING) {
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (getsockopt(ep->fd, SOL_SOCKET, SO_ERROR, &err, &sl) || err) {
			tcp_ep_cm_fail(ep, tcp_sock_errno_to_fi(err ? err :
					errno), NULL, 0);
			return;
		}
		ret = tcp_ep_cm_send_req(ep);
		if (ret < 0) {
			tcp_ep_cm_fail(ep, -ret, NULL, 0);
			return;
		}
		if (!ret)
			return;
		ep->state = TCP_EP_REQ_SENT;
		memset(&ep->cm_in, 0, sizeof(ep->cm_in));
		if (tcp_sockset_mod(&ep->fab->cm_set, ep->fd, &ep->cm_ev,
				    EPOLLIN)) {
			tcp_ep_cm_fail(ep, FI_EIO, NULL, 0);
			return;
		}
		return;
	}
	if (ep->state != TCP_EP_REQ_SENT)
		return;
	ret = tcp_sock_read_cm(ep->fd, &ep->cm_in, 0);
	if (ret == 0)
		return;
	if (ret < 0) {
		/* a closed stream before any answer: refused */
		tcp_ep_cm_fail(ep, ret == -FI_ECONNRESET && !ep->cm_in.got ?
			       FI_ECONNREFUSED : -ret, NULL, 0);
		return;
	}
	if (ep->cm_in.hdr.kind == TCP_CM_REJECT) {
		tcp_ep_cm_fail(ep, FI_ECONNREFUSED, ep->cm_in.data,
			       ep->cm_in.hdr.data_len);
		return;
	}
	tcp_sockset_del(&ep->fab->cm_set, ep->fd, &ep->cm_ev);
	ep->in_cm_set = false;
	if (tcp_ep_go_connected(ep)) {
		tcp_ep_cm_fail(ep, FI_EIO, NULL, 0);
		return;
	}
	if (ep->base.eq)
		(void)pl_cm_write_connected(ep->base.eq, &ep->base.ep_fid.fid,
					    ep->cm_in.data,
					    ep->cm_in.hdr.data_len);
	/* sends posted while connecting leave now */
	(void)tcp_ep_tx_flush(ep);
}

int tcp_ep_cm_handle(struct tcp_sock_ev *ev, uint32_t events)
{
	struct tcp_ep *ep = pl_container_of(ev, struct tcp_ep, cm_ev);

	pthread_mutex_lock(&ep->lock);
	if (!ep->closing && ep->in_cm_set)
		tcp_ep_cm_progress(ep, events);
	pthread_mutex_unlock(&ep->lock);
	return 1;	/* called for an epoll event only */
}

static void tcp_ep_cm_build(struct tcp_ep *ep, uint8_t kind,
			    const void *param, size_t len)
{
	struct tcp_cm_msg m = {
		.magic = htole32(TCP_CM_MAGIC),
		.version = TCP_PROTO_VERSION,
		.kind = kind,
		.data_len = htole16((uint16_t)len),
	};

	memcpy(ep->cm_out, &m, sizeof(m));
	if (len)
		memcpy(ep->cm_out + sizeof(m), param, len);
	ep->cm_out_len = sizeof(m) + len;
	ep->cm_out_sent = 0;
}

int tcp_ep_cm_connect(struct fid_ep *ep_fid, const void *addr,
		      const void *param, size_t paramlen)
{
	struct tcp_ep *ep = tcp_ep_of(ep_fid);
	const struct sockaddr *sa = addr;
	int ret, fd;

	if (!ep || !tcp_sock_addr_ok(addr, tcp_sock_addrlen(sa)) ||
	    paramlen > TCP_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	if (!ep->base.eq)
		return -FI_ENOEQ;
	ret = tcp_fabric_cm_start(ep->fab);
	if (ret)
		return ret;
	pthread_mutex_lock(&ep->lock);
	if (ep->state != TCP_EP_IDLE) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (!ep->base.enabled) {
		ret = tcp_ep_enable(ep);
		if (ret)
			goto out;
	}
	if (ep->fd >= 0) {
		/* bound already: taken over from a passive endpoint */
		fd = ep->fd;
		ep->fd = -1;
	} else {
		fd = tcp_sock_open(sa->sa_family);
		if (fd < 0) {
			ret = fd;
			goto out;
		}
		ret = tcp_sock_bind_active(fd, sa->sa_family,
					   ep->has_src &&
					   ep->src_addr.ss_family ==
					   sa->sa_family ?
					   (struct sockaddr *)&ep->src_addr :
					   NULL);
		if (ret)
			goto err_close;
	}
	memcpy(&ep->peer_addr, sa, tcp_sock_addrlen(sa));
	tcp_ep_cm_build(ep, TCP_CM_REQ, param, paramlen);
	if (connect(fd, sa, (socklen_t)tcp_sock_addrlen(sa)) &&
	    errno != EINPROGRESS) {
		ret = -tcp_sock_errno_to_fi(errno);
		goto err_close;
	}
	ep->fd = fd;
	ep->state = TCP_EP_CONNECTING;
	ret = tcp_sockset_add(&ep->fab->cm_set, fd, &ep->cm_ev, EPOLLOUT);
	if (ret) {
		ep->fd = -1;
		ep->state = TCP_EP_IDLE;
		goto err_close;
	}
	ep->in_cm_set = true;
	pl_progress_ctx_kick(ep->fab->cm_ctx);
	ret = 0;
	goto out;

err_close:
	close(fd);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

int tcp_ep_cm_accept(struct fid_ep *ep_fid, const void *param,
		     size_t paramlen)
{
	struct tcp_ep *ep = tcp_ep_of(ep_fid);
	int ret;

	if (!ep || paramlen > TCP_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	if (!ep->base.eq)
		return -FI_ENOEQ;
	pthread_mutex_lock(&ep->lock);
	if (ep->state != TCP_EP_ACCEPTING) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (!ep->base.enabled) {
		ret = tcp_ep_enable(ep);
		if (ret)
			goto out;
	}
	tcp_ep_cm_build(ep, TCP_CM_ACCEPT, param, paramlen);
	/* a fresh socket's buffer takes a few hundred bytes at once; the
	 * bound only guards against a peer that stopped reading */
	ret = tcp_sock_send_all(ep->fd, ep->cm_out, ep->cm_out_len, 5000);
	if (ret) {
		tcp_ep_fail(ep, -ret, false);
		goto out;
	}
	ret = tcp_ep_go_connected(ep);
	if (ret) {
		tcp_ep_fail(ep, FI_EIO, false);
		goto out;
	}
	(void)pl_cm_write_connected(ep->base.eq, &ep->base.ep_fid.fid, NULL, 0);
	(void)tcp_ep_tx_flush(ep);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}
