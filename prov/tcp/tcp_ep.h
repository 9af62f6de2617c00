/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp endpoint (FI_EP_MSG): one connected, nonblocking TCP socket.
 *
 * Synchronization: one mutex per endpoint, ep->lock, guards every field
 * below that is not marked otherwise. It is taken by the application's
 * data calls (post a send or receive), by the domain's progress pass
 * (tcp_ep_data_handle) and by the fabric's CM pass (tcp_ep_cm_handle);
 * no other lock is held while it is taken except a shared receive
 * context's, which always nests inside it (order: ep->lock, srx->lock).
 * Completions and EQ events are written under it: the engine's CQ, EQ
 * and counter writers are lock free or take only their own lock and never
 * call back into the provider.
 *
 * Lifetime: fi_close takes the socket out of its epoll set under the lock,
 * marks the endpoint closing, and then waits for the running passes of
 * both contexts (pl_progress_ctx_sync) before freeing anything.
 */
#ifndef PROPEL_TCP_EP_H
#define PROPEL_TCP_EP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "pl_ep.h"
#include "tcp_prov.h"
#include "tcp_proto.h"
#include "tcp_sock.h"

enum tcp_ep_state {
	TCP_EP_IDLE,		/* not connected yet */
	TCP_EP_CONNECTING,	/* active: connect() in flight, REQ unsent */
	TCP_EP_REQ_SENT,	/* active: REQ sent, reading the answer */
	TCP_EP_ACCEPTING,	/* passive: adopted a request, before accept */
	TCP_EP_CONNECTED,	/* data flows */
	TCP_EP_DOWN,		/* shut down, refused or failed */
};

enum tcp_xfer_state {
	TCP_XFER_FREE,
	TCP_XFER_QUEUED,	/* in the send queue */
	TCP_XFER_WAIT_ACK,	/* sent; completes on TCP_OP_ACK */
	TCP_XFER_WAIT_RESP,	/* read sent; completes on READ_RESP */
	TCP_XFER_WAIT_PARTS,	/* the last part of a multi-buffer RMA,
				 * done: waits for its other parts */
};

/* An operation on the wire: an application's send, write or read, or a
 * reply (ACK, READ_RESP) the target owes its peer. */
struct tcp_xfer {
	struct tcp_xfer *next;		/* send queue or free list */
	struct tcp_hdr hdr;		/* wire order */
	struct iovec iov[1 + TCP_IOV_MAX]; /* iov[0] = hdr */
	size_t iov_cnt;
	size_t total, sent;		/* bytes of header and payload */
	void *context;
	uint64_t cq_flags;		/* FI_MSG | FI_SEND, FI_RMA | FI_READ.. */
	uint64_t op_flags;		/* FI_COMPLETION, FI_INJECT, ... */
	size_t len;			/* payload bytes, for the completion */
	uint32_t id;			/* index | generation << 16 */
	uint8_t state;			/* enum tcp_xfer_state */
	bool reply;			/* owed to the peer: no completion */
	bool heap;			/* a reply beyond the table: freed */
	bool silent;			/* fi_inject*: no completion entry */
	struct iovec rd_iov[TCP_IOV_MAX]; /* fi_read: where the data goes */
	size_t rd_cnt;
	uint8_t *inject;		/* FI_INJECT copy (max_inject bytes) */
	/* A multi-buffer RMA: every part points at the last one, the
	 * owner, which holds the application's context and completes once
	 * all parts did, with the first error any of them met. NULL for a
	 * single-buffer operation. */
	struct tcp_xfer *owner;
	uint8_t parts_left;		/* owner: parts not done yet */
	int parts_status;		/* owner: first error, positive */
	size_t parts_len;		/* owner: the operation's bytes */
};

/* A posted receive (also kept by a shared receive context). */
struct tcp_rx {
	struct tcp_rx *next;
	struct iovec iov[TCP_IOV_MAX];
	size_t iov_cnt;
	size_t total;			/* sum of iov lengths */
	size_t used;			/* FI_MULTI_RECV: bytes consumed */
	void *context;
	uint64_t flags;			/* op flags: FI_MULTI_RECV, ... */
	uint64_t tag, ignore;
	bool tagged;
	struct tcp_srx *srx;		/* owner pool; NULL: the endpoint's */
};

/* Entries of an endpoint's transfer and receive tables made at once
 * (tcp_ep_tx.c, tcp_ep_rx.c). */
#define TCP_POOL_CHUNK	32

struct tcp_rxq {
	struct tcp_rx *head, *tail;
};

/* tcp_rxq.c: under the lock of the queue's owner */
void tcp_rxq_push(struct tcp_rxq *q, struct tcp_rx *rx);
void tcp_rxq_push_front(struct tcp_rxq *q, struct tcp_rx *rx);
/* The first receive that takes a message of this kind (and tag), or NULL. */
struct tcp_rx *tcp_rxq_take(struct tcp_rxq *q, bool tagged, uint64_t tag);
/* The receive posted with context (fi_cancel), or NULL. */
struct tcp_rx *tcp_rxq_take_ctx(struct tcp_rxq *q, void *context);
/* Fill a fresh receive from a posting call's arguments. */
void tcp_rx_fill(struct tcp_rx *rx, bool tagged, const struct iovec *iov,
		 size_t count, uint64_t tag, uint64_t ignore, void *context,
		 uint64_t flags);

enum tcp_rx_phase {
	TCP_RX_HDR,		/* reading a header */
	TCP_RX_PAYLOAD,		/* placing a payload into dst */
	TCP_RX_STALLED,		/* header read, waiting for a receive or a
				 * reply slot; the socket is not read */
};

/* What the payload being read belongs to. */
enum tcp_rx_target {
	TCP_RX_T_RECV,		/* a posted receive (rx) */
	TCP_RX_T_WRITE,		/* an RMA write into our memory */
	TCP_RX_T_READ_RESP,	/* the answer to our read (xfer) */
	TCP_RX_T_DISCARD,	/* a refused write: drained, then ACKed */
	TCP_RX_T_UNEXP,		/* a tagged message no receive matched */
};

/* A tagged message read before its receive was posted. */
struct tcp_unexp {
	struct tcp_unexp *next;
	struct tcp_hdr hdr;		/* host order */
	uint8_t data[];
};

struct tcp_rx_state {
	enum tcp_rx_phase phase;
	struct tcp_hdr hdr;		/* host order once complete */
	size_t hdr_got;
	enum tcp_rx_target target;
	struct iovec dst[TCP_IOV_MAX];	/* what is left of the destination */
	size_t dst_cnt;
	size_t left;			/* payload bytes still to place */
	size_t drain;			/* then bytes to discard */
	size_t placed;			/* bytes placed so far */
	size_t offset;			/* FI_MULTI_RECV: offset in rx */
	struct tcp_rx *rx;
	struct tcp_xfer *xfer;
	struct tcp_unexp *unexp;
	int status;			/* positive FI_E* for the op */
	void *buf;			/* where the message starts */
};

struct tcp_srx;

struct tcp_ep {
	struct pl_ep base;		/* first: the engine's endpoint */
	pthread_mutex_t lock;
	struct tcp_sock_ev cm_ev;	/* in the fabric's CM set */
	struct tcp_sock_ev data_ev;	/* in the domain's data set */
	struct tcp_domain *dom;		/* open only */
	struct tcp_fabric *fab;		/* open only */
	struct tcp_srx *srx;		/* bind only */
	enum tcp_ep_state state;
	int fd;
	bool in_cm_set, in_data_set;
	uint32_t events;		/* current data-set interest */
	bool closing;
	bool shutdown_reported;		/* FI_SHUTDOWN written once */
	/* the peer hung up, and its socket left the data set (its end is
	 * always readable): what the stream still holds is read by the
	 * hot list and by receives as they are posted, to its end */
	bool peer_hup;
	int family;			/* open only: AF_INET or AF_INET6 */
	struct sockaddr_storage src_addr; /* fi_setname / info->src_addr */
	bool has_src;
	struct sockaddr_storage peer_addr;
	uint64_t tx_op_flags, rx_op_flags; /* info's defaults */

	/* CM exchange (active side) */
	uint8_t cm_out[sizeof(struct tcp_cm_msg) + TCP_CM_DATA_MAX];
	size_t cm_out_len, cm_out_sent;
	struct tcp_cm_in cm_in;

	/* transmit */
	/* tx_size + reply_size entries, index = id & 0xffff, made
	 * TCP_POOL_CHUNK at a time on first need (tcp_ep_xfer_get): a
	 * connection that has a few operations in flight holds a few KiB,
	 * not the whole table (rxm keeps one per peer) */
	struct tcp_xfer **xchunks;
	size_t x_fresh_tx, x_fresh_reply; /* next index never handed out:
					   * tx [0, tx_size), replies
					   * [tx_size, tx_size + reply_size) */
	uint8_t *inject_bufs;		/* malloc'd: pages only when used */
	size_t tx_size, reply_size, max_inject;
	struct tcp_xfer *tx_free, *reply_free;
	struct tcp_xfer *txq_head, *txq_tail;
	size_t waiting;			/* xfers in WAIT_ACK / WAIT_RESP */
	/* coalescing (tcp_ep_tx.c): the queue holds sends kept for the
	 * next progress pass; the endpoint is on its set's hot list */
	bool tx_deferred;
	bool tx_more;			/* ... because of FI_MORE */
	size_t tx_deferred_iovs, tx_deferred_bytes;
	uint64_t tx_pass;		/* set's passes at the last send that
					 * left at once */

	/* receive */
	struct tcp_rxq rxq, trxq;	/* posted msg / tagged (no srx) */
	struct tcp_rx **rx_chunks;	/* made TCP_POOL_CHUNK at a time */
	struct tcp_rx *rx_free;
	size_t rx_size, rx_made;	/* rx_made: entries carved so far */
	struct tcp_rx_state rs;
	struct tcp_unexp *unexp_head, *unexp_tail; /* arrival order */
	size_t unexp_bytes, unexp_max;
	uint8_t *stage;			/* staging buffer */
	size_t stage_cap, stage_head, stage_tail;
	/* the last bulk read or write of the socket would have blocked:
	 * a direct pass polls before it tries again (tcp_ep_probe) */
	bool probe;
	bool rx_after_big;		/* the last header announced at least
					 * TCP_RX_DIRECT_MIN bytes */
	bool rx_short;			/* the last fill of this pass drained
					 * the socket */
	bool stalled_on_reply;		/* a READ_REQ waits for a reply slot */
	struct tcp_ep *srx_next;	/* on the srx's list of stalled eps */
	bool on_srx_list;		/* under srx->lock */
	/* under srx->lock: the srx's list of bound endpoints (from
	 * fi_ep_bind to fi_close), and whether fi_enable ran since */
	struct tcp_ep *srx_bound_next;
	bool srx_enabled;
	/* set by a shared receive context that re-armed the socket (it
	 * holds no ep->lock): exchange acq_rel in the data handler pairs
	 * with tcp_srx's release exchange */
	pl_atomic_int srx_woken;
	struct tcp_proto_limits limits;
};

/* tcp_ep.c */
struct tcp_ep *tcp_ep_of(struct fid_ep *ep);
/* Recompute the data-set interest (EPOLLIN unless stalled, EPOLLOUT while
 * sends wait); under ep->lock. */
void tcp_ep_update_events(struct tcp_ep *ep);
/* The connection is gone (err: positive FI_E*; 0 for an orderly close by
 * the peer): every pending operation completes in error, the socket
 * leaves its set, and FI_SHUTDOWN (or an error event) goes to the EQ.
 * Under ep->lock. */
void tcp_ep_fail(struct tcp_ep *ep, int err, bool notify);
/* fi_enable, or the one fi_connect and fi_accept do when the application
 * did not: the engine's checks, then a bound shared receive context
 * learns that the endpoint may report its cancels. Under ep->lock. */
int tcp_ep_enable(struct tcp_ep *ep);
/* Enter TCP_EP_CONNECTED: the socket joins the domain's data set. Under
 * ep->lock. 0 or -FI_E*. */
int tcp_ep_go_connected(struct tcp_ep *ep);

/* tcp_ep_cm.c: the active side of the CM exchange, and accept */
int tcp_ep_cm_connect(struct fid_ep *ep_fid, const void *addr,
		      const void *param, size_t paramlen);
int tcp_ep_cm_accept(struct fid_ep *ep_fid, const void *param,
		     size_t paramlen);
int tcp_ep_cm_handle(struct tcp_sock_ev *ev, uint32_t events);

/* tcp_ep_tx.c */
int tcp_ep_tx_init(struct tcp_ep *ep);
void tcp_ep_tx_fini(struct tcp_ep *ep);
struct tcp_xfer *tcp_ep_xfer_get(struct tcp_ep *ep, bool reply);
/* Is a reply entry free (made now if needed)? Then the next
 * tcp_ep_xfer_get(ep, true) succeeds. */
bool tcp_ep_reply_ready(struct tcp_ep *ep);
/* Free transmit entries, counted up to max (made or not yet made). */
size_t tcp_ep_tx_free_count(const struct tcp_ep *ep, size_t max);
void tcp_ep_xfer_put(struct tcp_ep *ep, struct tcp_xfer *x);
/* Append x to the send queue and push what the socket takes. */
void tcp_ep_tx_queue(struct tcp_ep *ep, struct tcp_xfer *x);
/* The same for an application's operation (op flags: FI_MORE), which may
 * be kept for the next progress pass to leave with others. */
void tcp_ep_tx_queue_app(struct tcp_ep *ep, struct tcp_xfer *x,
			 uint64_t flags);
/* Push queued bytes until the socket is full. 0, or -FI_E* when the
 * connection failed (tcp_ep_fail already ran). */
int tcp_ep_tx_flush(struct tcp_ep *ep);
/* Flush sends kept for the next pass, if any (close, shutdown). */
void tcp_ep_tx_flush_deferred(struct tcp_ep *ep);
/* The xfer the peer's id names in state, or NULL (a forged id). */
struct tcp_xfer *tcp_ep_xfer_lookup(struct tcp_ep *ep, uint32_t id,
				    enum tcp_xfer_state state);
/* Complete an application xfer (status: 0 or positive FI_E*), free it. */
void tcp_ep_xfer_done(struct tcp_ep *ep, struct tcp_xfer *x, int status);
/* Queue a reply (ACK or READ_RESP header, payload iov optional). false
 * when no reply slot is free. */
bool tcp_ep_reply(struct tcp_ep *ep, uint8_t op, uint32_t id, int status,
		  const struct iovec *iov, size_t len);
/* One application operation as the posting calls describe it. */
struct tcp_post {
	uint8_t op;			/* TCP_OP_MSG / TAGGED / WRITE / READ_REQ */
	uint8_t hdr_flags;		/* TCP_F_* */
	const struct iovec *iov;	/* payload, or (READ_REQ) destination */
	size_t count;
	uint64_t tag_addr, key, data;	/* the header's fields */
	void *context;
	uint64_t flags;			/* op flags (FI_INJECT copies) */
	uint64_t cq_flags;		/* its completion's flags */
	bool silent;			/* fi_inject*: no completion entry */
};
/* Check the sizes, take an xfer and queue it (it leaves at once when
 * the queue was empty). 0, -FI_EINVAL, -FI_EMSGSIZE, -FI_EAGAIN, or
 * tcp_ep_can_post's refusal. Takes ep->lock. */
ssize_t tcp_ep_post(struct tcp_ep *ep, const struct tcp_post *p);
/* The parts of one multi-buffer RMA (n <= TCP_RMA_IOV_MAX), posted all
 * or none: the last carries the completion (tcp_xfer.owner). */
ssize_t tcp_ep_post_parts(struct tcp_ep *ep, const struct tcp_post *p,
			  size_t n);
/* May an operation be posted now? 0, -FI_ENOTCONN (the connection is
 * gone) or -FI_EOPBADSTATE (never connected). Under ep->lock. */
int tcp_ep_can_post(const struct tcp_ep *ep);
/* Fail every queued and waiting application xfer with err. */
void tcp_ep_tx_fail_all(struct tcp_ep *ep, int err);

/* tcp_ep_rx.c */
int tcp_ep_rx_init(struct tcp_ep *ep);
void tcp_ep_rx_fini(struct tcp_ep *ep);
/* Read and dispatch what the socket holds, at most budget messages.
 * Returns messages handled, or -FI_E* when the connection failed. */
int tcp_ep_rx_progress(struct tcp_ep *ep, unsigned budget);
/* A receive was posted or a reply slot freed: resume a stalled header. */
void tcp_ep_rx_resume(struct tcp_ep *ep);
/* A tagged receive is being posted: the first unexpected message it
 * matches lands in it and completes it (true), or nothing matched. */
bool tcp_ep_rx_match_unexp(struct tcp_ep *ep, struct tcp_rx *rx);
/* Free every held message (close, or the connection is gone). */
void tcp_ep_unexp_free(struct tcp_ep *ep);
/* Complete every posted receive with err (connection gone). */
void tcp_ep_rx_fail_all(struct tcp_ep *ep, int err);
struct tcp_rx *tcp_ep_rx_get(struct tcp_ep *ep);
void tcp_ep_rx_put(struct tcp_ep *ep, struct tcp_rx *rx);
void tcp_ep_rx_complete(struct tcp_ep *ep, struct tcp_rx *rx, uint64_t flags,
			size_t len, void *buf, uint64_t data, uint64_t tag,
			int status, size_t olen);
/* fi_cancel took rx off its queue: its FI_ECANCELED entry on ep's
 * receive CQ (with the context, FI_RECV and FI_MSG or FI_TAGGED) and an
 * error on its receive counter, as any failed receive reports. Needs no
 * ep->lock: a shared receive context calls it under srx->lock for an
 * endpoint on its bound list, which is never a closing one (tcp_srx.h). */
void tcp_ep_rx_report_canceled(struct tcp_ep *ep, const struct tcp_rx *rx);

/* tcp_ep_msg.c / tcp_ep_rma.c: the ops tables */
extern struct fi_ops_msg tcp_ep_msg_ops;
extern struct fi_ops_tagged tcp_ep_tagged_ops;
extern struct fi_ops_rma tcp_ep_rma_ops;
/* Post a send of kind op (TCP_OP_MSG / TCP_OP_TAGGED) under the rules of
 * fi_msg(3) / fi_tagged(3). */
ssize_t tcp_ep_post_send(struct tcp_ep *ep, uint8_t op,
			 const struct iovec *iov, size_t count, uint64_t tag,
			 uint64_t data, void *context, uint64_t flags);
ssize_t tcp_ep_post_recv(struct tcp_ep *ep, bool tagged,
			 const struct iovec *iov, size_t count, uint64_t tag,
			 uint64_t ignore, void *context, uint64_t flags);

static inline size_t tcp_iov_total(const struct iovec *iov, size_t count)
{
	size_t t = 0, i;

	for (i = 0; i < count; i++)
		t += iov[i].iov_len;
	return t;
}

#endif /* PROPEL_TCP_EP_H */
