/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send side of a tcp endpoint: the xfer table, the send queue and
 * its flush. All under ep->lock (tcp_ep.h).
 *
 * The xfer table holds tx_size entries for the application's operations
 * and reply_size more for the replies the endpoint owes its peer (ACKs,
 * READ_RESPs), so that a peer's requests can never take the slots of our
 * own sends, nor ours stop us from answering. An xfer's id is its index
 * with a generation in the high half: an ACK or READ_RESP names the xfer
 * it answers by id, and tcp_ep_xfer_lookup accepts it only for an xfer
 * that is waiting for exactly that answer (a forged or stale id from the
 * wire is refused).
 *
 * The flush gathers the queued xfers' remaining bytes into one sendmsg,
 * so small messages posted while the socket was busy leave together.
 *
 * Coalescing (manual data progress, tcp_domain.coalesce): a send posted
 * while the queue is empty leaves at once when a progress pass ran since
 * the last send that did; otherwise (or with FI_MORE) it stays queued,
 * the endpoint goes on its set's hot list, and the next pass flushes it
 * with the others. A window of sends then costs two system calls, and a
 * ping-pong, whose every send follows a pass, loses nothing. The hot list
 * keeps fi_trywait honest (arm() says -FI_EAGAIN while it is not empty).
 * Manual progress is no promise to call again, though: an inject has no
 * completion to wait for, and a layered provider's control message goes
 * out from inside a pass the application may not follow. So keeping a
 * batch arms the fabric's flush timer, and if no pass took the batch
 * within a millisecond the CM context sends it (tcp_fabric.c). A batch that
 * reaches TCP_TX_GATHER iovecs or TCP_TX_COALESCE_BYTES, or a send larger
 * than TCP_TX_COALESCE_MSG, leaves at once.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_cq.h"
#include "tcp_ep.h"
#include "tcp_sock.h"

#define TCP_TX_GATHER	128	/* iovecs per sendmsg */
#define TCP_TX_COPY_MAX	256	/* gathers this small leave by one send() */
#define TCP_TX_COALESCE_BYTES	65536	/* a kept batch leaves past this */
#define TCP_TX_COALESCE_MSG	16384	/* larger sends never wait: at 4096
					 * rxm's 4 KiB messages (header and
					 * payload, 4136 B) left one system call
					 * each, 1.3 GB/s against 3.6 */
#define TCP_ID_INDEX	0xffffu

int tcp_ep_tx_init(struct tcp_ep *ep)
{
	size_t n = ep->tx_size + ep->reply_size;

	ep->xchunks = calloc((n + TCP_POOL_CHUNK - 1) / TCP_POOL_CHUNK,
			     sizeof(*ep->xchunks));
	if (!ep->xchunks)
		return -FI_ENOMEM;
	if (ep->max_inject) {
		ep->inject_bufs = malloc(ep->tx_size * ep->max_inject);
		if (!ep->inject_bufs) {
			free(ep->xchunks);
			ep->xchunks = NULL;
			return -FI_ENOMEM;
		}
	}
	ep->tx_free = ep->reply_free = NULL;
	ep->x_fresh_tx = 0;
	ep->x_fresh_reply = ep->tx_size;
	/* no pass has the number UINT64_MAX: the first send leaves at once */
	ep->tx_pass = UINT64_MAX;
	return 0;
}

void tcp_ep_tx_fini(struct tcp_ep *ep)
{
	size_t n = ep->tx_size + ep->reply_size, c;

	if (ep->xchunks)
		for (c = 0; c * TCP_POOL_CHUNK < n; c++)
			free(ep->xchunks[c]);
	free(ep->xchunks);
	free(ep->inject_bufs);
	ep->xchunks = NULL;
	ep->inject_bufs = NULL;
}

/* The entry of index idx, or NULL when its chunk was never made. */
static struct tcp_xfer *tcp_ep_xfer_at(const struct tcp_ep *ep, size_t idx)
{
	struct tcp_xfer *chunk = ep->xchunks[idx / TCP_POOL_CHUNK];

	return chunk ? &chunk[idx % TCP_POOL_CHUNK] : NULL;
}

/* An entry never handed out before, its chunk made if needed; NULL when
 * the table (tx or replies) is used up or memory is short. */
static struct tcp_xfer *tcp_ep_xfer_fresh(struct tcp_ep *ep, bool reply)
{
	size_t *next = reply ? &ep->x_fresh_reply : &ep->x_fresh_tx;
	size_t end = reply ? ep->tx_size + ep->reply_size : ep->tx_size;
	size_t idx = *next;
	struct tcp_xfer **chunk, *x;

	if (idx >= end)
		return NULL;
	chunk = &ep->xchunks[idx / TCP_POOL_CHUNK];
	if (!*chunk) {
		*chunk = calloc(TCP_POOL_CHUNK, sizeof(**chunk));
		if (!*chunk)
			return NULL;
	}
	x = &(*chunk)[idx % TCP_POOL_CHUNK];
	x->id = (uint32_t)idx;
	x->reply = reply;
	if (!reply && ep->inject_bufs)
		x->inject = ep->inject_bufs + idx * ep->max_inject;
	(*next)++;
	return x;
}

/* Free transmit entries, counted up to max: the free list, then those
 * never made. */
size_t tcp_ep_tx_free_count(const struct tcp_ep *ep, size_t max)
{
	const struct tcp_xfer *f;
	size_t n = 0;

	for (f = ep->tx_free; f && n < max; f = f->next)
		n++;
	n += ep->tx_size - ep->x_fresh_tx;
	return n < max ? n : max;
}

bool tcp_ep_reply_ready(struct tcp_ep *ep)
{
	struct tcp_xfer *x;

	if (ep->reply_free)
		return true;
	x = tcp_ep_xfer_fresh(ep, true);
	if (!x)
		return false;
	x->next = NULL;
	ep->reply_free = x;
	return true;
}

struct tcp_xfer *tcp_ep_xfer_get(struct tcp_ep *ep, bool reply)
{
	struct tcp_xfer **head = reply ? &ep->reply_free : &ep->tx_free;
	struct tcp_xfer *x = *head;

	if (x)
		*head = x->next;
	else if (!(x = tcp_ep_xfer_fresh(ep, reply)))
		return NULL;
	x->heap = false;
	x->next = NULL;
	x->sent = 0;
	x->op_flags = 0;
	x->silent = false;
	x->rd_cnt = 0;
	x->context = NULL;
	x->len = 0;
	x->owner = NULL;
	x->parts_left = 0;
	x->parts_status = 0;
	x->parts_len = 0;
	memset(&x->hdr, 0, sizeof(x->hdr));
	x->iov[0].iov_base = &x->hdr;
	x->iov[0].iov_len = sizeof(x->hdr);
	x->iov_cnt = 1;
	return x;
}

void tcp_ep_xfer_put(struct tcp_ep *ep, struct tcp_xfer *x)
{
	struct tcp_xfer **head = x->reply ? &ep->reply_free : &ep->tx_free;

	if (x->heap) {
		free(x);
		return;
	}

	/* a new generation: an answer to the old id no longer matches */
	x->id = (x->id & TCP_ID_INDEX) |
		((((x->id >> 16) + 1) & 0xffffu) << 16);
	x->state = TCP_XFER_FREE;
	x->next = *head;
	*head = x;
}

struct tcp_xfer *tcp_ep_xfer_lookup(struct tcp_ep *ep, uint32_t id,
				    enum tcp_xfer_state state)
{
	size_t idx = id & TCP_ID_INDEX;
	struct tcp_xfer *x;

	if (idx >= ep->tx_size)
		return NULL;
	/* an entry of a made chunk never handed out has id 0 and state
	 * FREE: no answer matches it */
	x = tcp_ep_xfer_at(ep, idx);
	if (!x || x->id != id || x->state != state)
		return NULL;
	return x;
}

void tcp_ep_xfer_done(struct tcp_ep *ep, struct tcp_xfer *x, int status)
{
	enum pl_ep_cntr_kind kind;
	struct fid_cntr *cntr;
	struct fi_cq_err_entry err;

	if (x->state == TCP_XFER_WAIT_ACK || x->state == TCP_XFER_WAIT_RESP)
		ep->waiting--;
	if (x->reply) {
		/* a READ_REQ stalled for this slot is retried by the data
		 * handler after its flush (never from inside a flush, which
		 * may itself run inside the receive path) */
		tcp_ep_xfer_put(ep, x);
		return;
	}
	if (x->owner) {
		/* one part of a multi-buffer RMA: the owner completes for
		 * all of them, after the last (in whatever order they end:
		 * a failed connection ends them in table order) */
		struct tcp_xfer *o = x->owner;

		if (status && !o->parts_status)
			o->parts_status = status;
		if (x != o)
			tcp_ep_xfer_put(ep, x);
		else
			o->state = TCP_XFER_WAIT_PARTS;
		if (--o->parts_left)
			return;
		status = o->parts_status;
		x = o;
		x->owner = NULL;
		x->len = x->parts_len;
	}
	kind = !(x->cq_flags & FI_RMA) ? PL_EP_CNTR_SEND :
	       (x->cq_flags & FI_READ) ? PL_EP_CNTR_READ : PL_EP_CNTR_WRITE;
	cntr = pl_ep_cntr(&ep->base, kind);
	if (ep->closing)
		goto out;
	if (!status) {
		if (ep->base.tx_cq && !x->silent &&
		    pl_ep_op_completes(ep->base.tx_cq_flags, x->op_flags, false))
			pl_cq_write(ep->base.tx_cq, x->context, x->cq_flags, 0,
				    NULL, 0, 0, FI_ADDR_NOTAVAIL);
		if (cntr)
			pl_cntr_inc(cntr);
		goto out;
	}
	if (ep->base.tx_cq) {
		memset(&err, 0, sizeof(err));
		err.op_context = x->silent ? NULL : x->context;
		err.flags = x->cq_flags;
		err.len = x->len;
		err.err = status;
		err.prov_errno = -status;
		pl_cq_write_err(ep->base.tx_cq, &err, FI_ADDR_NOTAVAIL);
	}
	if (cntr)
		pl_cntr_inc_err(cntr);
out:
	tcp_ep_xfer_put(ep, x);
}

static void tcp_ep_tx_append(struct tcp_ep *ep, struct tcp_xfer *x)
{
	x->state = TCP_XFER_QUEUED;
	x->total = tcp_iov_total(x->iov, x->iov_cnt);
	x->next = NULL;
	if (ep->txq_tail)
		ep->txq_tail->next = x;
	else
		ep->txq_head = x;
	ep->txq_tail = x;
}

void tcp_ep_tx_queue(struct tcp_ep *ep, struct tcp_xfer *x)
{
	bool was_empty = !ep->txq_head;

	tcp_ep_tx_append(ep, x);
	if (ep->state != TCP_EP_CONNECTED)
		return;		/* flushed once connected */
	if (was_empty)
		(void)tcp_ep_tx_flush(ep);
}

static bool tcp_ep_tx_may_keep(const struct tcp_ep *ep,
			       const struct tcp_xfer *x, uint64_t flags)
{
	if (x->total > TCP_TX_COALESCE_MSG ||
	    ep->tx_deferred_iovs + x->iov_cnt > TCP_TX_GATHER ||
	    ep->tx_deferred_bytes + x->total > TCP_TX_COALESCE_BYTES)
		return false;
	if (flags & FI_MORE)
		return true;
	/* the last call of an FI_MORE series sends the series (fi_msg(3));
	 * relaxed: tcp_prov.h, passes */
	return !ep->tx_more &&
	       ep->tx_pass == pl_load_relaxed(&ep->dom->data_set.passes);
}

void tcp_ep_tx_queue_app(struct tcp_ep *ep, struct tcp_xfer *x,
			 uint64_t flags)
{
	bool was_empty = !ep->txq_head;

	if (!ep->dom->coalesce || ep->state != TCP_EP_CONNECTED ||
	    (!was_empty && !ep->tx_deferred)) {
		/* not coalescing, not connected yet, or the socket is full
		 * and EPOLLOUT will take the queue */
		tcp_ep_tx_queue(ep, x);
		return;
	}
	x->total = tcp_iov_total(x->iov, x->iov_cnt);
	if (tcp_ep_tx_may_keep(ep, x, flags)) {
		tcp_ep_tx_append(ep, x);
		ep->tx_more |= (flags & FI_MORE) != 0;
		ep->tx_deferred_iovs += x->iov_cnt;
		ep->tx_deferred_bytes += x->total;
		if (!ep->tx_deferred) {
			ep->tx_deferred = true;
			tcp_sockset_mark_hot(&ep->dom->data_set, &ep->data_ev);
			/* nothing obliges the application to make another
			 * call (an inject has no completion to wait for):
			 * the CM context sends the batch if no pass does */
			tcp_fabric_flush_arm(ep->fab);
		}
		return;
	}
	/* relaxed: tcp_prov.h, passes */
	ep->tx_pass = pl_load_relaxed(&ep->dom->data_set.passes);
	tcp_ep_tx_append(ep, x);
	(void)tcp_ep_tx_flush(ep);
}

void tcp_ep_tx_flush_deferred(struct tcp_ep *ep)
{
	if (ep->tx_deferred && ep->state == TCP_EP_CONNECTED)
		(void)tcp_ep_tx_flush(ep);
}

/* x was written out whole: it waits for its answer or completes. */
static void tcp_ep_tx_sent(struct tcp_ep *ep, struct tcp_xfer *x)
{
	if (x->hdr.op == TCP_OP_READ_REQ) {
		x->state = TCP_XFER_WAIT_RESP;
		ep->waiting++;
	} else if (!x->reply && (x->hdr.flags & TCP_F_ACK_REQ)) {
		x->state = TCP_XFER_WAIT_ACK;
		ep->waiting++;
	} else {
		x->state = TCP_XFER_FREE;	/* not waiting: done */
		tcp_ep_xfer_done(ep, x, 0);
	}
}

int tcp_ep_tx_flush(struct tcp_ep *ep)
{
	struct iovec iov[TCP_TX_GATHER];
	uint8_t flat[TCP_TX_COPY_MAX];
	struct msghdr mh;
	struct tcp_xfer *x;
	size_t n, i, skip, done, bytes;
	ssize_t ret;

	/* whatever was kept for this flush leaves now, or (socket full)
	 * waits for EPOLLOUT like any queued send */
	ep->tx_deferred = ep->tx_more = false;
	ep->tx_deferred_iovs = ep->tx_deferred_bytes = 0;
	while (ep->txq_head && ep->state == TCP_EP_CONNECTED) {
		/* gather: the head's remaining bytes, then whole xfers */
		n = 0;
		for (x = ep->txq_head; x && n < TCP_TX_GATHER; x = x->next) {
			skip = x->sent;
			for (i = 0; i < x->iov_cnt && n < TCP_TX_GATHER; i++) {
				if (skip >= x->iov[i].iov_len) {
					skip -= x->iov[i].iov_len;
					continue;
				}
				iov[n].iov_base = (char *)x->iov[i].iov_base +
						  skip;
				iov[n].iov_len = x->iov[i].iov_len - skip;
				skip = 0;
				n++;
			}
		}
		for (i = 0, bytes = 0; i < n; i++)
			bytes += iov[i].iov_len;
		if (n > 1 && bytes <= TCP_TX_COPY_MAX) {
			/* small: one flat send() costs less in the kernel
			 * than a gathered sendmsg (no iovec import) */
			for (i = 0, bytes = 0; i < n; i++) {
				memcpy(flat + bytes, iov[i].iov_base,
				       iov[i].iov_len);
				bytes += iov[i].iov_len;
			}
			ret = tcp_sys_send(ep->fd, flat, bytes,
				   MSG_NOSIGNAL | MSG_DONTWAIT);
		} else {
			memset(&mh, 0, sizeof(mh));
			mh.msg_iov = iov;
			mh.msg_iovlen = n;
			ret = tcp_sys_sendmsg(ep->fd, &mh,
				      MSG_NOSIGNAL | MSG_DONTWAIT);
		}
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				ep->probe = true;	/* tcp_ep.c */
				break;
			}
			tcp_ep_fail(ep, tcp_sock_errno_to_fi(errno), true);
			return -FI_ECONNRESET;
		}
		done = (size_t)ret;
		while (done && (x = ep->txq_head)) {
			size_t rest = x->total - x->sent;

			if (done < rest) {
				x->sent += done;
				break;
			}
			done -= rest;
			x->sent = x->total;
			ep->txq_head = x->next;
			if (!ep->txq_head)
				ep->txq_tail = NULL;
			x->next = NULL;
			tcp_ep_tx_sent(ep, x);
		}
		/* a zero-byte xfer list cannot occur: every xfer has a
		 * header, so ret > 0 always advanced the queue */
	}
	tcp_ep_update_events(ep);
	return 0;
}

bool tcp_ep_reply(struct tcp_ep *ep, uint8_t op, uint32_t id, int status,
		  const struct iovec *iov, size_t len)
{
	struct tcp_xfer *x = tcp_ep_xfer_get(ep, true);

	if (!x && op == TCP_OP_ACK) {
		/* An ACK owed for a message already placed (an unexpected
		 * one matched late) cannot wait for a slot: the sender's
		 * operation would never complete. Each needed a receive,
		 * so these stay as few as the receives posted. */
		x = calloc(1, sizeof(*x));
		if (!x)
			return false;
		x->reply = true;
		x->heap = true;
		x->iov[0].iov_base = &x->hdr;
		x->iov[0].iov_len = sizeof(x->hdr);
		x->iov_cnt = 1;
	}
	if (!x)
		return false;
	x->hdr.op = op;
	x->hdr.status = htole16((uint16_t)status);
	x->hdr.id = htole32(id);
	x->hdr.size = htole64(status ? 0 : len);
	if (!status && iov && len) {
		x->iov[1] = *iov;
		x->iov_cnt = 2;
	}
	tcp_ep_tx_queue(ep, x);
	return true;
}

void tcp_ep_tx_fail_all(struct tcp_ep *ep, int err)
{
	struct tcp_xfer *x;
	size_t i, n = ep->tx_size + ep->reply_size;

	while ((x = ep->txq_head)) {
		ep->txq_head = x->next;
		x->next = NULL;
		x->state = TCP_XFER_FREE;
		tcp_ep_xfer_done(ep, x, err);
	}
	ep->txq_tail = NULL;
	for (i = 0; i < n && ep->waiting; i++) {
		x = tcp_ep_xfer_at(ep, i);
		if (!x) {	/* a chunk never made: skip it whole */
			i |= TCP_POOL_CHUNK - 1;
			continue;
		}
		if (x->state == TCP_XFER_WAIT_ACK ||
		    x->state == TCP_XFER_WAIT_RESP)
			tcp_ep_xfer_done(ep, x, err);
	}
}

/* The payload of a send or write: the caller's iovs, or (inject) a copy
 * of them in the xfer's own buffer. */
static void tcp_xfer_set_payload(struct tcp_xfer *x, const struct iovec *iov,
				 size_t count, size_t total, bool inject)
{
	uint8_t *p = x->inject;
	size_t i;

	if (inject && total) {
		for (i = 0; i < count; i++) {
			memcpy(p, iov[i].iov_base, iov[i].iov_len);
			p += iov[i].iov_len;
		}
		x->iov[1].iov_base = x->inject;
		x->iov[1].iov_len = total;
		x->iov_cnt = 2;
		return;
	}
	for (i = 0; i < count; i++)
		if (iov[i].iov_len)
			x->iov[x->iov_cnt++] = iov[i];
}

static ssize_t tcp_post_check(const struct tcp_ep *ep,
			      const struct tcp_post *p, size_t *total_p)
{
	size_t total;

	if (p->count > TCP_IOV_MAX || (p->count && !p->iov))
		return -FI_EINVAL;
	total = tcp_iov_total(p->iov, p->count);
	if ((p->flags & FI_INJECT) && total > ep->max_inject)
		return -FI_EINVAL;
	if (total > ep->limits.max_msg_size)
		return -FI_EMSGSIZE;
	*total_p = total;
	return 0;
}

static void tcp_post_fill(struct tcp_xfer *x, const struct tcp_post *p,
			  size_t total)
{
	size_t i;

	x->hdr.op = p->op;
	x->hdr.flags = p->hdr_flags;
	x->hdr.id = htole32(x->id);
	x->hdr.size = htole64(total);
	x->hdr.tag_addr = htole64(p->tag_addr);
	x->hdr.key = htole64(p->key);
	x->hdr.data = htole64((p->hdr_flags & TCP_F_CQ_DATA) ? p->data : 0);
	x->context = p->context;
	x->op_flags = p->flags;
	x->silent = p->silent;
	x->len = total;
	x->cq_flags = p->cq_flags;
	if (p->op == TCP_OP_READ_REQ) {
		/* no payload leaves: the iovs are where the answer lands */
		for (i = 0; i < p->count; i++)
			if (p->iov[i].iov_len)
				x->rd_iov[x->rd_cnt++] = p->iov[i];
	} else {
		tcp_xfer_set_payload(x, p->iov, p->count, total,
				     p->flags & FI_INJECT);
	}
}

ssize_t tcp_ep_post_parts(struct tcp_ep *ep, const struct tcp_post *p,
			  size_t n)
{
	struct tcp_xfer *x[TCP_RMA_IOV_MAX];
	size_t total[TCP_RMA_IOV_MAX], i, len = 0;
	ssize_t ret;

	if (!n || n > TCP_RMA_IOV_MAX)
		return -FI_EINVAL;
	for (i = 0; i < n; i++) {
		ret = tcp_post_check(ep, &p[i], &total[i]);
		if (ret)
			return ret;
		len += total[i];
	}
	pthread_mutex_lock(&ep->lock);
	ret = tcp_ep_can_post(ep);
	if (ret)
		goto out;
	/* all parts or none: count the free slots first */
	if (tcp_ep_tx_free_count(ep, n) < n) {
		ret = -FI_EAGAIN;
		goto out;
	}
	for (i = 0; i < n; i++) {
		x[i] = tcp_ep_xfer_get(ep, false);
		if (!x[i]) {	/* a chunk could not be made */
			while (i--)
				tcp_ep_xfer_put(ep, x[i]);
			ret = -FI_EAGAIN;
			goto out;
		}
		tcp_post_fill(x[i], &p[i], total[i]);
	}
	if (n > 1) {
		for (i = 0; i < n; i++)
			x[i]->owner = x[n - 1];
		x[n - 1]->parts_left = (uint8_t)n;
		/* the completion reports the whole operation (len stays the
		 * part's own: a read's answer is checked against it) */
		x[n - 1]->parts_len = len;
	}
	for (i = 0; i < n; i++)
		tcp_ep_tx_queue_app(ep, x[i], p[i].flags);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

ssize_t tcp_ep_post(struct tcp_ep *ep, const struct tcp_post *p)
{
	return tcp_ep_post_parts(ep, p, 1);
}

int tcp_ep_can_post(const struct tcp_ep *ep)
{
	switch (ep->state) {
	case TCP_EP_DOWN:
		return -FI_ENOTCONN;
	case TCP_EP_IDLE:
	case TCP_EP_ACCEPTING:
		return -FI_EOPBADSTATE;
	default:
		/* connected, or connecting: queued until connected */
		return 0;
	}
}
