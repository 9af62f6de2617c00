/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The receive side of a tcp endpoint: a state machine over the byte
 * stream, under ep->lock (tcp_ep.h).
 *
 * Small messages are read many at a time into a staging buffer and copied
 * out; once the staged bytes are used up, a payload of TCP_RX_DIRECT_MIN
 * bytes or more is read straight into its destination. A header is
 * checked (tcp_proto_check_hdr) before any field is used; the id of an
 * answer must name an xfer that waits for that answer; an RMA target is
 * checked against the key map before any byte lands. A header that fails
 * closes the connection: its payload is never delivered.
 *
 * A message with no receive to land in stays in the stream: the endpoint
 * stalls (stops reading its socket) until a receive is posted, which is
 * TCP's own flow control. So does a read request when every reply slot is
 * taken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/uio.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "pl_cntr.h"
#include "pl_cq.h"
#include "tcp_ep.h"
#include "tcp_params.h"
#include "tcp_sock.h"
#include "tcp_srx.h"

/* Below this, payload bytes go through the staging buffer. */
#define TCP_RX_DIRECT_MIN 8192
/* a stage fill after a header of at least TCP_RX_DIRECT_MIN bytes */
#define TCP_RX_FILL_AFTER_BIG 4096

/* ---- the stream ---- */

static size_t tcp_rx_staged(const struct tcp_ep *ep)
{
	return ep->stage_tail - ep->stage_head;
}

/* Read what the socket has into the staging buffer. >0 bytes, 0 would
 * block, <0 -FI_E* (the connection is gone; -FI_ESHUTDOWN for EOF). */
static ssize_t tcp_rx_stage_fill(struct tcp_ep *ep)
{
	size_t room;
	ssize_t n;

	if (ep->stage_head == ep->stage_tail)
		ep->stage_head = ep->stage_tail = 0;
	if (ep->stage_tail == ep->stage_cap)
		return 0;	/* full: consumers first */
	if (ep->rx_short)
		return 0;	/* the socket was drained in this pass */
	room = ep->stage_cap - ep->stage_tail;
	/* After a large payload the next is likely large too: a full fill
	 * would stage (and copy) up to stage_cap of it that a direct read
	 * places for free; a small one costs small messages nothing. */
	if (ep->rx_after_big && room > TCP_RX_FILL_AFTER_BIG)
		room = TCP_RX_FILL_AFTER_BIG;
	do {
		n = tcp_sys_recv(ep->fd, ep->stage + ep->stage_tail, room,
			 MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n > 0) {
		/* fewer bytes than room: the socket is empty now, so the
		 * next fill of this pass would only return EAGAIN (a wrong
		 * guess costs a pass: the socket stays readable) */
		if ((size_t)n < room)
			ep->rx_short = true;
		ep->stage_tail += (size_t)n;
		return n;
	}
	if (n == 0)
		return -FI_ESHUTDOWN;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return 0;
	return -tcp_sock_errno_to_fi(errno);
}

static void tcp_iov_advance(struct iovec *iov, size_t *cnt, size_t n)
{
	size_t i = 0;

	while (n && i < *cnt) {
		if (n < iov[i].iov_len) {
			iov[i].iov_base = (char *)iov[i].iov_base + n;
			iov[i].iov_len -= n;
			n = 0;
			break;
		}
		n -= iov[i].iov_len;
		i++;
	}
	if (i) {
		memmove(iov, iov + i, (*cnt - i) * sizeof(*iov));
		*cnt -= i;
	}
}

/* Place staged bytes into the destination. */
static void tcp_rx_copy_staged(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	size_t n, c;

	while (rs->left && tcp_rx_staged(ep) && rs->dst_cnt) {
		n = tcp_rx_staged(ep);
		c = rs->dst[0].iov_len;
		if (c > n)
			c = n;
		if (c > rs->left)
			c = rs->left;
		memcpy(rs->dst[0].iov_base, ep->stage + ep->stage_head, c);
		ep->stage_head += c;
		rs->left -= c;
		rs->placed += c;
		tcp_iov_advance(rs->dst, &rs->dst_cnt, c);
	}
}

/* Read the current payload (then the bytes to drain). 1 done, 0 would
 * block, <0 connection gone. */
static int tcp_rx_read_payload(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	ssize_t n;
	size_t c;

	while (rs->left) {
		tcp_rx_copy_staged(ep);
		if (!rs->left)
			break;
		if (rs->left >= TCP_RX_DIRECT_MIN) {
			do {
				n = tcp_sys_readv(ep->fd, rs->dst,
						  (int)rs->dst_cnt);
			} while (n < 0 && errno == EINTR);
			if (n > 0) {
				rs->left -= (size_t)n;
				rs->placed += (size_t)n;
				tcp_iov_advance(rs->dst, &rs->dst_cnt,
						(size_t)n);
				if (!rs->left)
					continue;
				/* short: the socket is empty now; the next
				 * try would only find EAGAIN (a wrong guess
				 * costs a pass: the socket stays readable) */
				ep->probe = true;	/* tcp_ep.c */
				return 0;
			}
			if (n == 0)
				return -FI_ESHUTDOWN;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				ep->probe = true;	/* tcp_ep.c */
				return 0;
			}
			return -tcp_sock_errno_to_fi(errno);
		}
		n = tcp_rx_stage_fill(ep);
		if (n <= 0)
			return (int)n;
	}
	while (rs->drain) {
		c = tcp_rx_staged(ep);
		if (c > rs->drain)
			c = rs->drain;
		ep->stage_head += c;
		rs->drain -= c;
		if (!rs->drain)
			break;
		n = tcp_rx_stage_fill(ep);
		if (n <= 0)
			return (int)n;
	}
	return 1;
}

/* ---- dispatch ---- */

/* Point rs->dst at len bytes of rx from offset. */
static void tcp_rx_set_dst(struct tcp_rx_state *rs, const struct tcp_rx *rx,
			   size_t offset, size_t len)
{
	size_t i;

	rs->dst_cnt = 0;
	rs->buf = NULL;
	for (i = 0; i < rx->iov_cnt && len; i++) {
		size_t l = rx->iov[i].iov_len;

		if (offset >= l) {
			offset -= l;
			continue;
		}
		rs->dst[rs->dst_cnt].iov_base = (char *)rx->iov[i].iov_base +
						offset;
		rs->dst[rs->dst_cnt].iov_len = l - offset < len ?
					       l - offset : len;
		if (!rs->buf)
			rs->buf = rs->dst[rs->dst_cnt].iov_base;
		len -= rs->dst[rs->dst_cnt].iov_len;
		offset = 0;
		rs->dst_cnt++;
	}
	if (!rs->buf && rx->iov_cnt)
		rs->buf = rx->iov[0].iov_base;
}

/* The stream broke its protocol: the connection is closed. */
static int tcp_rx_proto_error(struct tcp_ep *ep, const char *what)
{
	char peer[64];

	tcp_sock_addr_str((struct sockaddr *)&ep->peer_addr, peer,
			  sizeof(peer));
	/* one line per connection: it is closed right after */
	TCP_LOG_WARN(FI_LOG_EP_DATA, "closing the connection to %s: %s\n", peer,
		 what);
	tcp_ep_fail(ep, FI_EIO, true);
	return -FI_EIO;
}

static void tcp_rx_stall(struct tcp_ep *ep)
{
	ep->rs.phase = TCP_RX_STALLED;
	tcp_ep_update_events(ep);
	/* A post to the shared context may have re-armed the socket
	 * before the line above took EPOLLIN away: its exchange of
	 * srx_woken came first, so ours finds it set and re-arms again.
	 * (A later post re-arms after our change, so nothing is lost.) */
	if (ep->srx && ep->in_data_set &&
	    pl_exchange_acq_rel(&ep->srx_woken, 0)) {
		if (!tcp_sockset_mod(&ep->dom->data_set, ep->fd, &ep->data_ev,
				     EPOLLIN | EPOLLOUT))
			ep->events = EPOLLIN | EPOLLOUT;
	}
}

/* No receive matches this tagged message yet: read it into a buffer
 * of its own (within max_unexpected), where a later fi_trecv finds it. */
static int tcp_rx_hold_unexp(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	struct tcp_unexp *u;

	u = malloc(sizeof(*u) + (size_t)rs->hdr.size);
	if (!u) {
		tcp_rx_stall(ep);	/* retried on the next post */
		return 0;
	}
	u->next = NULL;
	u->hdr = rs->hdr;
	ep->unexp_bytes += (size_t)rs->hdr.size;
	rs->unexp = u;
	rs->target = TCP_RX_T_UNEXP;
	rs->status = 0;
	rs->dst[0].iov_base = u->data;
	rs->dst[0].iov_len = (size_t)rs->hdr.size;
	rs->dst_cnt = rs->hdr.size ? 1 : 0;
	rs->left = (size_t)rs->hdr.size;
	rs->drain = 0;
	return 1;
}

static int tcp_rx_dispatch_recv(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	bool tagged = rs->hdr.op == TCP_OP_TAGGED;
	struct tcp_rx *rx;
	size_t room, place;

	if ((rs->hdr.flags & TCP_F_ACK_REQ) && !tcp_ep_reply_ready(ep)) {
		ep->stalled_on_reply = true;
		tcp_rx_stall(ep);
		return 0;
	}
	if (ep->srx)
		rx = tcp_srx_take(ep->srx, tagged, rs->hdr.tag_addr, ep);
	else
		rx = tcp_rxq_take(tagged ? &ep->trxq : &ep->rxq, tagged,
				  rs->hdr.tag_addr);
	if (!rx && tagged && !ep->srx &&
	    rs->hdr.size <= ep->unexp_max - ep->unexp_bytes)
		return tcp_rx_hold_unexp(ep);
	if (!rx) {
		tcp_rx_stall(ep);
		return 0;
	}
	rs->rx = rx;
	rs->target = TCP_RX_T_RECV;
	rs->offset = rx->used;
	room = rx->total - rx->used;
	place = rs->hdr.size < room ? (size_t)rs->hdr.size : room;
	rs->left = place;
	rs->drain = (size_t)rs->hdr.size - place;
	rs->status = rs->drain ? FI_ETRUNC : 0;
	tcp_rx_set_dst(rs, rx, rx->used, place);
	return 1;
}

/* May the peer access [hdr.tag_addr, +hdr.size) under hdr.key with the
 * access bit need (FI_REMOTE_READ / FI_REMOTE_WRITE)? 0 and *local_p, or
 * the negative reason: the key map's (unknown key, out of range, access
 * not granted), or -FI_EACCES when the endpoint lacks the capability. */
static int tcp_rx_check_remote(struct tcp_ep *ep, uint64_t need,
			       void **local_p)
{
	const struct tcp_hdr *h = &ep->rs.hdr;
	uint64_t base = 0;
	int ret;

	if (!(ep->base.caps & need))
		return -FI_EACCES;
	ret = pl_keymap_check(&ep->dom->keymap, h->key, h->tag_addr,
			      (size_t)h->size, need, ep->dom->virt_addr, &base);
	if (ret)
		return ret;
	*local_p = (void *)(uintptr_t)(ep->dom->virt_addr ? h->tag_addr :
				       base + h->tag_addr);
	return 0;
}

static int tcp_rx_dispatch_write(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	void *local = NULL;
	int ret;

	if (!tcp_ep_reply_ready(ep)) {
		ep->stalled_on_reply = true;
		tcp_rx_stall(ep);
		return 0;
	}
	ret = tcp_rx_check_remote(ep, FI_REMOTE_WRITE, &local);
	if (ret) {
		/* drained, then refused in the acknowledgement */
		rs->target = TCP_RX_T_DISCARD;
		rs->status = -ret;
		rs->left = 0;
		rs->drain = (size_t)rs->hdr.size;
		rs->dst_cnt = 0;
		return 1;
	}
	rs->target = TCP_RX_T_WRITE;
	rs->status = 0;
	rs->dst[0].iov_base = local;
	rs->dst[0].iov_len = (size_t)rs->hdr.size;
	rs->dst_cnt = rs->hdr.size ? 1 : 0;
	rs->left = (size_t)rs->hdr.size;
	rs->drain = 0;
	return 1;
}

static int tcp_rx_dispatch_read_req(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	struct fid_cntr *cntr;
	struct iovec iov;
	void *local = NULL;
	int ret;

	if (!tcp_ep_reply_ready(ep)) {
		ep->stalled_on_reply = true;
		tcp_rx_stall(ep);
		return 0;
	}
	ret = tcp_rx_check_remote(ep, FI_REMOTE_READ, &local);
	iov.iov_base = local;
	iov.iov_len = (size_t)rs->hdr.size;
	(void)tcp_ep_reply(ep, TCP_OP_READ_RESP, rs->hdr.id, -ret, &iov,
			   (size_t)rs->hdr.size);
	/* an operation of several buffers counts once, at its last */
	if (!ret && !(rs->hdr.flags & TCP_F_PART)) {
		cntr = pl_ep_cntr(&ep->base, PL_EP_CNTR_REMOTE_READ);
		if (cntr)
			pl_cntr_inc(cntr);
	}
	rs->phase = TCP_RX_HDR;
	rs->hdr_got = 0;
	return 1;
}

/* A complete header is in rs->hdr (host order, checked). 1: continue
 * reading, 0: stalled, <0: connection gone. */
static int tcp_rx_dispatch(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	struct tcp_xfer *x;

	ep->stalled_on_reply = false;
	rs->placed = 0;
	rs->rx = NULL;
	rs->xfer = NULL;
	switch (rs->hdr.op) {
	case TCP_OP_MSG:
	case TCP_OP_TAGGED:
		if (rs->hdr.op == TCP_OP_TAGGED && !(ep->base.caps & FI_TAGGED))
			return tcp_rx_proto_error(ep, "tagged message on an "
						  "endpoint without FI_TAGGED");
		return tcp_rx_dispatch_recv(ep);
	case TCP_OP_WRITE:
		return tcp_rx_dispatch_write(ep);
	case TCP_OP_READ_REQ:
		return tcp_rx_dispatch_read_req(ep);
	case TCP_OP_READ_RESP:
		x = tcp_ep_xfer_lookup(ep, rs->hdr.id, TCP_XFER_WAIT_RESP);
		if (!x)
			return tcp_rx_proto_error(ep, "read response for no "
						  "read in flight");
		if (rs->hdr.status) {
			tcp_ep_xfer_done(ep, x, rs->hdr.status);
			rs->phase = TCP_RX_HDR;
			rs->hdr_got = 0;
			return 1;
		}
		if (rs->hdr.size != x->len)
			return tcp_rx_proto_error(ep, "read response of the "
						  "wrong size");
		rs->target = TCP_RX_T_READ_RESP;
		rs->xfer = x;
		memcpy(rs->dst, x->rd_iov, x->rd_cnt * sizeof(*rs->dst));
		rs->dst_cnt = x->rd_cnt;
		rs->left = x->len;
		rs->drain = 0;
		rs->status = 0;
		return 1;
	case TCP_OP_ACK:
		x = tcp_ep_xfer_lookup(ep, rs->hdr.id, TCP_XFER_WAIT_ACK);
		if (!x)
			return tcp_rx_proto_error(ep, "acknowledgement for no "
						  "operation in flight");
		tcp_ep_xfer_done(ep, x, rs->hdr.status);
		rs->phase = TCP_RX_HDR;
		rs->hdr_got = 0;
		return 1;
	}
	return tcp_rx_proto_error(ep, "unknown operation");
}

/* The payload of the current message is placed: complete it. */
static void tcp_rx_finish(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	struct tcp_rx *rx = rs->rx;
	struct fid_cntr *cntr;
	uint64_t flags;
	bool release;

	switch (rs->target) {
	case TCP_RX_T_RECV:
		flags = (rs->hdr.op == TCP_OP_TAGGED ? FI_TAGGED : FI_MSG) |
			FI_RECV;
		if (rs->hdr.flags & TCP_F_CQ_DATA)
			flags |= FI_REMOTE_CQ_DATA;
		release = true;
		if (rx->flags & FI_MULTI_RECV) {
			rx->used += rs->placed;
			release = rs->status ||
				  rx->total - rx->used < ep->base.min_multi_recv;
			if (release)
				flags |= FI_MULTI_RECV;
		}
		tcp_ep_rx_complete(ep, rx, flags, rs->placed, rs->buf,
				   rs->hdr.data, rs->hdr.tag_addr, rs->status,
				   rs->status ? (size_t)rs->hdr.size -
						rs->placed : 0);
		if (!release) {
			if (rx->srx)
				tcp_srx_requeue(rx->srx, rx);
			else
				tcp_rxq_push_front(&ep->rxq, rx);
		} else {
			tcp_ep_rx_put(ep, rx);
		}
		/* the receive is settled before the reply: a reply whose
		 * send fails ends the connection (tcp_ep_fail), which must
		 * not find it again */
		rs->rx = NULL;
		if (rs->hdr.flags & TCP_F_ACK_REQ)
			(void)tcp_ep_reply(ep, TCP_OP_ACK, rs->hdr.id, 0, NULL,
					   0);
		break;
	case TCP_RX_T_WRITE:
		/* an operation of several buffers counts once, at its last */
		cntr = (rs->hdr.flags & TCP_F_PART) ? NULL :
		       pl_ep_cntr(&ep->base, PL_EP_CNTR_REMOTE_WRITE);
		if (cntr)
			pl_cntr_inc(cntr);
		if ((rs->hdr.flags & TCP_F_CQ_DATA) && ep->base.rx_cq &&
		    !ep->closing)
			pl_cq_write(ep->base.rx_cq, NULL, FI_RMA |
				    FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA, 0,
				    NULL, rs->hdr.data, 0, FI_ADDR_NOTAVAIL);
		(void)tcp_ep_reply(ep, TCP_OP_ACK, rs->hdr.id, 0, NULL, 0);
		break;
	case TCP_RX_T_DISCARD:
		(void)tcp_ep_reply(ep, TCP_OP_ACK, rs->hdr.id, rs->status,
				   NULL, 0);
		break;
	case TCP_RX_T_READ_RESP:
		tcp_ep_xfer_done(ep, rs->xfer, 0);
		break;
	case TCP_RX_T_UNEXP:
		if (ep->unexp_tail)
			ep->unexp_tail->next = rs->unexp;
		else
			ep->unexp_head = rs->unexp;
		ep->unexp_tail = rs->unexp;
		rs->unexp = NULL;
		break;
	}
	rs->rx = NULL;
	rs->xfer = NULL;
	rs->phase = TCP_RX_HDR;
	rs->hdr_got = 0;
}

/* Read the header; 1 complete, 0 would block, <0 connection gone. */
static int tcp_rx_read_hdr(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;
	size_t need, c;
	ssize_t n;

	while (rs->hdr_got < sizeof(rs->hdr)) {
		need = sizeof(rs->hdr) - rs->hdr_got;
		c = tcp_rx_staged(ep);
		if (c) {
			if (c > need)
				c = need;
			memcpy((uint8_t *)&rs->hdr + rs->hdr_got,
			       ep->stage + ep->stage_head, c);
			ep->stage_head += c;
			rs->hdr_got += c;
			continue;
		}
		n = tcp_rx_stage_fill(ep);
		if (n <= 0)
			return (int)n;
	}
	tcp_proto_hdr_swap(&rs->hdr);
	if (tcp_proto_check_hdr(&rs->hdr, &ep->limits))
		return tcp_rx_proto_error(ep, "malformed header");
	/* the next header's fill is bounded after a large payload */
	ep->rx_after_big = rs->hdr.size >= TCP_RX_DIRECT_MIN;
	return 1;
}

int tcp_ep_rx_progress(struct tcp_ep *ep, unsigned budget)
{
	struct tcp_rx_state *rs = &ep->rs;
	unsigned done = 0;
	int ret;

	ep->rx_short = false;
	while (ep->state == TCP_EP_CONNECTED && done < budget) {
		switch (rs->phase) {
		case TCP_RX_STALLED:
			return (int)done;
		case TCP_RX_HDR:
			ret = tcp_rx_read_hdr(ep);
			if (ret <= 0)
				goto stop;
			rs->phase = TCP_RX_PAYLOAD;
			ret = tcp_rx_dispatch(ep);
			if (ret <= 0)
				goto stop;
			if (rs->phase != TCP_RX_PAYLOAD) {
				done++;	/* answered without a payload */
				continue;
			}
			/* fall through */
		case TCP_RX_PAYLOAD:
			ret = tcp_rx_read_payload(ep);
			if (ret <= 0)
				goto stop;
			tcp_rx_finish(ep);
			done++;
			break;
		}
	}
	/* out of budget with bytes staged, or with a hung-up socket that
	 * is out of the data set: no socket event will bring us back */
	if (ep->state == TCP_EP_CONNECTED && rs->phase != TCP_RX_STALLED &&
	    (tcp_rx_staged(ep) || ep->peer_hup))
		tcp_sockset_mark_hot(&ep->dom->data_set, &ep->data_ev);
	return (int)done;
stop:
	if (ret < 0 && ep->state == TCP_EP_CONNECTED) {
		/* EOF mid-message drops the partial message */
		tcp_ep_fail(ep, ret == -FI_ESHUTDOWN ? 0 : -ret, true);
		return ret;
	}
	return ret < 0 ? ret : (int)done;
}

void tcp_ep_rx_resume(struct tcp_ep *ep)
{
	struct tcp_rx_state *rs = &ep->rs;

	if (rs->phase != TCP_RX_STALLED || ep->state != TCP_EP_CONNECTED)
		return;
	ep->rx_short = false;
	rs->phase = TCP_RX_PAYLOAD;
	if (tcp_rx_dispatch(ep) <= 0)
		return;		/* still stalled, or failed */
	if (rs->phase == TCP_RX_PAYLOAD) {
		if (tcp_rx_read_payload(ep) != 1)
			goto out;
		tcp_rx_finish(ep);
	}
	/* what followed it may be staged already, where no socket event
	 * announces it: go on while it lasts (marked hot past the budget) */
	(void)tcp_ep_rx_progress(ep, 16);
out:
	if (ep->state == TCP_EP_CONNECTED)
		tcp_ep_update_events(ep);
}

static void tcp_rx_fail_queue(struct tcp_ep *ep, struct tcp_rxq *q,
			      uint64_t flags, int err)
{
	struct tcp_rx *rx;

	while ((rx = q->head)) {
		q->head = rx->next;
		tcp_ep_rx_complete(ep, rx, flags, 0, NULL, 0, 0, err, 0);
		tcp_ep_rx_put(ep, rx);
	}
	q->tail = NULL;
}

void tcp_ep_rx_fail_all(struct tcp_ep *ep, int err)
{
	struct tcp_rx_state *rs = &ep->rs;

	/* a message half placed into a receive is dropped with it */
	if (rs->phase == TCP_RX_PAYLOAD && rs->target == TCP_RX_T_RECV &&
	    rs->rx) {
		tcp_ep_rx_complete(ep, rs->rx, FI_MSG | FI_RECV, 0, NULL, 0,
				   0, err, 0);
		tcp_ep_rx_put(ep, rs->rx);
	}
	rs->rx = NULL;
	rs->xfer = NULL;
	rs->phase = TCP_RX_HDR;
	rs->hdr_got = 0;
	ep->stage_head = ep->stage_tail = 0;
	/* never delivered now: their sender's connection is gone */
	tcp_ep_unexp_free(ep);
	tcp_rx_fail_queue(ep, &ep->rxq, FI_MSG | FI_RECV, err);
	tcp_rx_fail_queue(ep, &ep->trxq, FI_TAGGED | FI_RECV, err);
}
