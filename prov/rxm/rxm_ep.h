/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rxm endpoint: an RDM endpoint core (rdm_ep.h) over a transport made
 * of one core connection per peer (rxm_conn.h) and the data protocol of
 * rxm_proto.h. rxm_ep.c opens, enables and closes it; rxm_ep_tx.c and
 * rxm_ep_rx.c are the transport's send and receive sides;
 * rxm_ep_transport.c the table the core calls.
 *
 * Synchronization: everything below is touched only inside the core's
 * serialization (the endpoint lock or the progress source's trylock,
 * rdm_ep.h): the transport ops run there, and so do the connection
 * manager's callbacks, which rxm_cm_progress calls from the poll op.
 * The endpoint always has the mutex (rdm_ep_attr.always_lock): the
 * fabric's connection thread tries it too (bg_src, rxm_ep.c).
 * Open and close run alone (fi_endpoint(3)).
 *
 * Buffers: a send is copied into tx buffers (struct rxm_txb: the header
 * and up to buffer_size - header bytes each), so the application's
 * buffer is free when the call returns and a segmented message needs no
 * iov bookkeeping; each connection has msg_rx_size receive buffers
 * (struct rxm_rxb) posted on its core endpoint. A message that arrives
 * before its receive is posted is copied out of its buffer, which is
 * posted again at once.
 */
#ifndef PROPEL_RXM_EP_H
#define PROPEL_RXM_EP_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

#include "rdm_ep.h"
#include "rdm_rma.h"
#include "rxm_conn.h"
#include "rxm_prov.h"
#include "rxm_proto.h"

#define RXM_IOV_LIMIT	4
#define RXM_INJECT_SIZE	256
/* the largest core inject rxm_ep_tx.c builds on its stack */
#define RXM_TX_FLAT_MAX	256

struct rxm_peer;

/* One application send: completes once all its tx buffers did. */
struct rxm_txop {
	void *context;			/* the core's (rdm_ep_tx_done) */
	uint32_t left;			/* tx buffers not completed yet */
	int status;			/* first error */
};

/* A core message to send: a header and its payload, copied. */
struct rxm_txb {
	struct rxm_txb *next;		/* the peer's queue */
	struct rxm_peer *peer;
	struct rxm_txop *op;
	/* an FI_DELIVERY_COMPLETE send's: the core completes it once the
	 * peer's core placed it in one of our receive buffers there */
	bool delivery;
	size_t len;			/* bytes of buf to send */
	uint8_t buf[];			/* struct rxm_hdr + payload: 8-byte
					 * aligned (the header's fields) */
};
static_assert(offsetof(struct rxm_txb, buf) % 8 == 0,
	      "rxm_txb.buf holds an aligned struct rxm_hdr");

/* A posted receive buffer of a connection. */
struct rxm_rxb {
	struct rxm_peer *peer;
	struct fid_ep *ep;		/* where it is posted */
	struct rxm_rxb_block *block;	/* whose mapping buf is in */
	uint8_t *buf;			/* buffer_size bytes */
	struct rxm_rxb *park_next;	/* ep->parked: held back (below) */
};

/* A connection's receive buffers (rxm_ep_rx_post_bufs): the records in
 * one allocation, the buffers in one anonymous mapping, so a buffer's
 * pages become resident only when data lands in them (a malloc'd buffer
 * costs a page for its header at once: 32 buffers, 128 KiB a peer before
 * the first byte). Freed when the last record is (rxm_ep_rxb_release);
 * owned, like the records, by the endpoint's serialization. */
struct rxm_rxb_block {
	size_t refs;			/* records not yet released */
	size_t bytes;			/* the mapping's length */
	uint8_t *base;
	struct rxm_rxb rxb[];
};

/* What a core read's or write's context is (its first member, so that
 * rxm_ep_cq_entry tells them apart): 0 for a rendezvous reception or
 * send (both calloc'd), RXM_CORE_RMA for an RMA the target moves by the
 * core (struct rxm_rma_xfer). */
enum rxm_core_kind { RXM_CORE_RNDV = 0, RXM_CORE_RMA = 0x5a };

/* A message handed to the core (trx): eager (all of it copied) or
 * segmented (its segments land in dest once delivered, or are staged). */
struct rxm_rx {
	uint8_t core_kind;		/* first: RXM_CORE_RNDV */
	struct rxm_peer *peer;
	uint64_t size;			/* the message's bytes */
	uint64_t got;			/* segments' bytes arrived so far */
	uint64_t msg_id;		/* segmented */
	bool sar;
	bool delivered;			/* rx_deliver gave dest */
	bool discard;			/* rx_discard: drop what comes */
	int status;			/* first error (negative) */
	void *ctx;			/* the core's, for rdm_ep_rx_done */
	struct iovec dest[RXM_IOV_LIMIT];
	size_t dest_cnt;
	uint64_t placed;		/* bytes written to dest */
	const uint8_t *pending;		/* seg 0 payload during arrive */
	size_t pending_len;
	uint8_t *staged;		/* eager data, or segments before
					 * delivery (size bytes) */
	/* bytes counted in ep->ux_bytes for it while the core holds it
	 * unmatched (rxm_ep_rx.c: charged before it is handed up, given
	 * back when the core delivers or discards it) */
	uint64_t ux_charge;
	/* rendezvous (rxm_ep_rndv.c): the sender's buffers, where the read
	 * is posted, and its state */
	bool rndv;
	bool reading;			/* a core read is posted */
	struct fid_ep *read_ep;		/* the connection it came on */
	struct rxm_rndv_req req;	/* host order, checked */
	struct rxm_rx *rndv_next;	/* the peer's unfinished ones */
	struct rxm_rx *wait_next;	/* ep->rndv_wait */
	bool on_wait;
	/* write-based (rxm_ep_rndv_write.c): the sender writes into dest,
	 * registered here for remote writes, and says so by RNDV_FIN */
	bool write_mode;
	bool awaiting_fin;		/* the CTS is sent */
	struct fid_mr *mr[RXM_IOV_LIMIT];
	size_t nmr;
};

/* A rendezvous send waiting for its receiver's RNDV_DONE: the core
 * registrations of the application's buffers it names. */
struct rxm_rndv_tx {
	uint8_t core_kind;		/* first: RXM_CORE_RNDV */
	struct rxm_rndv_tx *next;	/* the peer's */
	uint64_t msg_id;
	struct rxm_txop *op;
	struct fid_mr *mr[RXM_RNDV_IOV_MAX];
	size_t nmr;
	/* write-based: the application's buffers (valid until the send
	 * completes), and the write posted on the CTS's connection */
	bool write_mode;
	bool writing;			/* a core write is posted */
	bool linked;			/* on the peer's rndv_tx */
	struct rxm_peer *peer;
	struct iovec iov[RXM_RNDV_IOV_MAX];
	size_t iov_cnt;
	uint64_t size;			/* the message's bytes */
	uint64_t written;		/* the bytes the CTS asked for */
	struct fid_ep *write_ep;	/* the connection the CTS came on */
	struct fi_rma_iov target[RXM_RNDV_IOV_MAX]; /* the CTS's, checked */
	size_t ntarget;
	struct rxm_rndv_tx *wait_next;	/* ep->rndv_wwait */
	bool on_wwait;
};

/* An RMA or atomic request waiting for its target's answers
 * (rxm_ep_rma.c), found by id (answers to requests the target moves by
 * the core come when their transfer ends, others in order). */
struct rxm_rma {
	struct rxm_rma *next;
	uint64_t id;			/* msg_id of its messages */
	enum rdm_rma_kind kind;
	void *context;			/* the core's (rdm_ep_tx_done) */
	uint32_t acks;			/* acks still due */
	int status;			/* first error */
	uint64_t size;			/* read: bytes wanted; atomic:
					 * result bytes (0: no fetch) */
	uint64_t got;			/* read: bytes placed */
	struct iovec iov[RDM_RMA_LOCAL_IOV_MAX];	/* result */
	size_t iov_count;
	/* by the core (rxm_ep_rma_core.c): the registrations of our
	 * buffers that the target reads or writes, closed at the answer */
	bool core;
	struct fid_mr *mr[RXM_RNDV_IOV_MAX];
	size_t nmr;
};

/* The target's side of an RMA moved by the core (rxm_ep_rma_core.c):
 * its memory, checked, and the initiator's buffers, as its request
 * named them; answered once the core's transfer ends. */
struct rxm_rma_xfer {
	uint8_t core_kind;		/* first: RXM_CORE_RMA */
	struct rxm_peer *peer;
	struct rxm_rma_xfer *peer_next;	/* the peer's in flight */
	struct rxm_rma_xfer *wait_next;	/* ep->rma_xwait */
	bool on_wait, posted;
	bool dead;			/* its connection ended: unanswered */
	bool answered;			/* the ack is queued */
	bool write;			/* the initiator writes: we read */
	struct fid_ep *via;		/* the connection it came on */
	uint64_t msg_id, key, cq_data, size;
	bool cq;			/* RXM_F_CQ_DATA */
	struct iovec local;		/* our memory (rdm_rma_check) */
	struct fi_rma_iov remote[RXM_RNDV_IOV_MAX];
	size_t nremote;
};

/* What the endpoint keeps per peer (the connection's owner_data). */
struct rxm_peer {
	struct rxm_conn *conn;
	struct rxm_txb *txq_head, *txq_tail;	/* not yet taken by the core */
	struct rxm_peer *pend_next;		/* on ep->pend when txq */
	bool on_pend;
	struct rxm_rx *sar;		/* the segmented message arriving */
	struct rxm_rma *rma_head, *rma_tail;	/* waiting for answers */
	struct rxm_rndv_tx *rndv_tx;	/* rendezvous sends waiting */
	struct rxm_rx *rndv_rx;		/* rendezvous receptions unfinished */
	struct rxm_rma_xfer *rma_xfers;	/* RMA we move by the core */
	size_t rxb_posted;		/* buffers posted on the connection */
	/* node-local: messages, RMA and atomics go by shm to shm_dest
	 * (rxm_ep_shm.c, rxm_ep_shm_rma.c);
	 * under the lock. shm_ok: shm took a send for it, so a refusal is
	 * a full queue, not a peer without shm (written and read by the
	 * one flusher at a time, rxm_ep_shm_flush) */
	bool shm;
	bool shm_ok;
	fi_addr_t shm_dest;
	struct rxm_peer *all_next;	/* every peer of the endpoint */
};

struct rxm_ep {
	struct rdm_ep rdm;		/* FIRST */
	struct rxm_domain *dom;
	struct rdm_ep_source src;
	bool src_added;
	struct fid_cq *core_cq;		/* every connection's sends and
					 * receives */
	/* 1 once a connection's endpoint was bound to core_cq
	 * (rxm_ep_cm_prepare): until then the core CQ can hold nothing,
	 * and the transport's poll skips reading it, which would pay a
	 * whole pass of the core's progress context (a job whose peers are
	 * all on one node, over shm, never connects); with it 0 and nothing
	 * queued the transport is idle (rxm_ep_transport_idle). Set once,
	 * never cleared (completions may come after a connection closes).
	 * Written inside the core's serialization (rdm_ep.h), with a
	 * relaxed store because queue_hint reads it without (a hint: the
	 * binding happens under the lock, whose release orders it before
	 * any pass that could find the core's completions). */
	pl_atomic_u32 core_bound;
	struct rxm_cm cm;
	bool cm_open;
	/* open only: fi_endpoint's source address (a listener's port the
	 * application chose), NULL: the domain's, any port */
	void *src_addr;
	size_t src_addrlen;
	/* the endpoint in the fabric's connection thread (rxm_fabric): a
	 * pass of the transport whenever a connection event comes (the
	 * domain's cm_wake wakes it, rxm_domain_wake.h) */
	struct pl_progress_source bg_src;
	bool bg_src_added;
	struct rxm_proto_limits lim;
	size_t atomic_max;		/* operand bytes of an atomic */
	size_t msg_rx_size;
	uint64_t next_msg_id;
	struct rxm_peer *pend;		/* peers with queued tx buffers */
	/* rendezvous: offered (the core reads remote memory, rxm_domain),
	 * and the receptions whose core read waits for room */
	bool rndv;
	struct rxm_rx *rndv_wait;
	/* write-based rendezvous (FI_OFI_RXM_USE_RNDV_WRITE): sends ask the
	 * receiver for its buffers; the writes waiting for room */
	bool rndv_write;
	struct rxm_rndv_tx *rndv_wwait;
	/* RMA the target moves by the core, waiting for room there */
	struct rxm_rma_xfer *rma_xwait;
	/* header and payload up to this leave by the core's fi_inject, at
	 * once, with no core completion to come back (rxm_ep_tx.c); the
	 * core's inject size, at most RXM_TX_FLAT_MAX */
	size_t core_inject;
	struct rxm_peer *peers;		/* all, freed at close */
	/* Unexpected messages (rxm_ep_rx.c): ux_bytes are held for messages
	 * the core holds unmatched (their copies and records); past
	 * ux_limit (FI_OFI_RXM_UNEXP_LIMIT) a buffer that brought one more
	 * is parked instead of posted again, until deliveries bring
	 * ux_bytes back under the limit: its connection's window shrinks
	 * and the core stops reading it (flow control). ux_mark: ux_bytes
	 * when the arrival being handled began. */
	uint64_t ux_bytes, ux_limit, ux_mark;
	struct rxm_rxb *parked;
	/* node-local peers over shm (rxm_ep_shm.c): set at enable, freed
	 * at close; NULL when every peer goes over the core */
	struct rxm_ep_shm *shm;
	/* shm's import of our queue, from rxm_ep_shm_close to _fini */
	struct fid_ep *shm_srx;
};

static inline struct rxm_ep *rxm_ep_of_rdm(struct rdm_ep *r)
{
	return (struct rxm_ep *)r;	/* rdm is first */
}

/* rxm_ep.c: operand bytes of one atomic with buffers of buf_size */
size_t rxm_ep_atomic_max(size_t buf_size);

/* rxm_ep_transport.c */
extern const struct rdm_transport_ops rxm_ep_transport_ops;
extern const struct rxm_cm_ops rxm_ep_cm_ops;
/* The peer state of conn, made on first use; NULL on ENOMEM. */
struct rxm_peer *rxm_ep_peer(struct rxm_ep *ep, struct rxm_conn *conn);

/* rxm_ep_shm.c: node-local peers over shm. Lock order: shm's endpoint
 * lock, then ours, never the reverse; so no call into shm is made under
 * our lock: sends are listed (rxm_ep_shm_send, under the lock) and
 * handed to shm by rxm_ep_shm_flush (the transport's unlocked op,
 * without it). */
/* At enable, after the transport: 0 with or without shm (why not is
 * logged at INFO), -FI_ENOMEM. */
int rxm_ep_shm_open(struct rxm_ep *ep);
/* At close, first (the shm endpoint before anything of ours): what shm
 * did not complete completes in error. Takes our lock. */
void rxm_ep_shm_close(struct rxm_ep *ep);
/* At close, after rdm_ep_close_rx dropped the messages shm queued with
 * us: shm's import of our queue. */
void rxm_ep_shm_fini(struct rxm_ep *ep);
/* Does the peer at addr go by shm? Its twin handle in *dest_p. */
bool rxm_ep_shm_peer(struct rxm_ep *ep, const void *addr,
		     fi_addr_t *dest_p);
/* Under the lock: list msg for shm (to c's peer, peer->shm set); 1
 * (rdm_ep_tx_done follows) or -FI_ENOMEM. */
int rxm_ep_shm_send(struct rxm_ep *ep, struct rxm_conn *c,
		    const struct rdm_tx_msg *msg);
/* rxm_ep_transport.c: msg to c over the core (connecting first); the
 * transport's send answers (rdm_transport.h). Under the lock. */
int rxm_ep_send_core(struct rxm_ep *ep, struct rxm_conn *c,
		     const struct rdm_tx_msg *msg);
/* rdm_transport_ops.unlocked: hand the listed sends to shm. WITHOUT the
 * lock. */
void rxm_ep_shm_flush(struct rdm_ep *r);
/* Sends, RMA and atomics shm took so far (0 without shm). Takes the
 * lock. */
uint64_t rxm_ep_shm_posted(struct rxm_ep *ep);
/* rxm_ep_shm_rma.c: RMA and atomics to node-local peers. May shm carry
 * m (an atomic with more operands than shm takes at once may not)?
 * Under the lock. */
bool rxm_ep_shm_rma_fits(struct rxm_ep *ep, const struct rdm_rma_msg *m);
/* Under the lock: list m for shm (to c's peer, peer->shm set); 1
 * (rdm_ep_tx_done follows) or -FI_ENOMEM. */
int rxm_ep_shm_rma(struct rxm_ep *ep, struct rxm_conn *c,
		   const struct rdm_rma_msg *m);
/* rxm_ep_transport.c: m to c over the core (connecting first); the
 * transport's rma answers. Under the lock. */
int rxm_ep_rma_core_route(struct rxm_ep *ep, struct rxm_conn *c,
			  const struct rdm_rma_msg *m);

/* rxm_ep_tx.c */
void rxm_ep_hdr_fill(struct rxm_hdr *h, uint8_t op, uint16_t flags,
		     uint32_t seg, uint64_t size, uint64_t tag,
		     uint64_t cq_data, uint64_t msg_id);
/* The header of an application message (its tag, data and flags). */
void rxm_ep_msg_hdr(struct rxm_hdr *h, uint8_t op,
		    const struct rdm_tx_msg *msg, uint64_t size,
		    uint32_t seg, uint64_t msg_id);
/* A tx buffer of len bytes (header included) for op (NULL: completes
 * nothing when sent); NULL on ENOMEM. */
struct rxm_txb *rxm_ep_txb_new(struct rxm_peer *peer, struct rxm_txop *op,
			       size_t len);
/* A chain of tx buffers being built: b goes last. */
static inline void rxm_ep_txb_append(struct rxm_txb **first,
				     struct rxm_txb **last, struct rxm_txb *b)
{
	if (*last)
		(*last)->next = b;
	else
		*first = b;
	*last = b;
}
/* Free a chain that never went out. */
void rxm_ep_txb_free_chain(struct rxm_txb *b);
/* Queue the chain first..last on the peer and push what the core takes. */
void rxm_ep_tx_queue(struct rxm_ep *ep, struct rxm_peer *peer,
		     struct rxm_txb *first, struct rxm_txb *last);
int rxm_ep_tx_send(struct rxm_ep *ep, struct rxm_peer *peer,
		   const struct rdm_tx_msg *msg);
/* Push queued tx buffers to the core: the work done. */
int rxm_ep_tx_flush(struct rxm_ep *ep);
/* A core send completed (status 0 or -FI_E*). */
void rxm_ep_tx_done(struct rxm_ep *ep, struct rxm_txb *txb, int status);
/* The peer's connection ended: its queued buffers fail. */
void rxm_ep_tx_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err);

/* rxm_ep_rx.c */
/* Post msg_rx_size buffers on a fresh core endpoint of the peer's. */
int rxm_ep_rx_post_bufs(struct rxm_ep *ep, struct rxm_peer *peer,
			struct fid_ep *msg_ep);
/* A core receive completed into rxb with len bytes. */
void rxm_ep_rx_arrived(struct rxm_ep *ep, struct rxm_rxb *rxb, size_t len);
/* rxb is neither posted nor in use any more (the last record of its
 * block unmaps the buffers). */
void rxm_ep_rxb_release(struct rxm_rxb *rxb);
/* A core receive ended in error (the connection went): free rxb. */
void rxm_ep_rx_buf_failed(struct rxm_ep *ep, struct rxm_rxb *rxb);
/* Count n more bytes held for rx, which goes to the core unmatched. */
static inline void rxm_ep_ux_charge(struct rxm_ep *ep, struct rxm_rx *rx,
				    uint64_t n)
{
	rx->ux_charge += n;
	ep->ux_bytes += n;
}
/* The endpoint closes: the parked buffers are released. */
void rxm_ep_rx_unpark_all(struct rxm_ep *ep);
/* The peer's connection ended: its segmented message fails. */
void rxm_ep_rx_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err);
int rxm_ep_rx_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
		      const struct iovec *iov, size_t count, void *ctx,
		      uint64_t *len_p);
void rxm_ep_rx_discard(struct rxm_ep *ep, struct rxm_rx *rx);

/* rxm_ep_rndv.c: messages above the SAR limit (rxm_proto.h) */
int rxm_ep_rndv_send(struct rxm_ep *ep, struct rxm_peer *peer,
		     const struct rdm_tx_msg *msg, uint64_t size);
/* RNDV_REQ (its buffers checked here) and RNDV_DONE arriving: 0 or a
 * protocol error (close). rxb is the caller's to repost. */
int rxm_ep_rndv_arrived(struct rxm_ep *ep, struct rxm_rxb *rxb,
			const struct rxm_hdr *h, size_t len);
int rxm_ep_rndv_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
			const struct iovec *iov, size_t count, void *ctx,
			uint64_t *len_p);
void rxm_ep_rndv_discard(struct rxm_ep *ep, struct rxm_rx *rx);
/* A core read of rx completed (status 0 or -FI_E*). */
void rxm_ep_rndv_read_done(struct rxm_ep *ep, struct rxm_rx *rx, int status);
/* Post the reads that waited for room: the work done. */
int rxm_ep_rndv_progress(struct rxm_ep *ep);
/* Shared with rxm_ep_rndv_write.c: register v with the core for the
 * remote access given (FI_REMOTE_READ or FI_REMOTE_WRITE), naming it in
 * out as the peer addresses it; free a send's state; answer DONE; drop
 * a reception's state (its registrations closed). */
int rxm_ep_rndv_reg(struct rxm_ep *ep, const struct iovec *v,
		    uint64_t access, struct fid_mr **mr_p,
		    struct rxm_rndv_iov *out);
void rxm_ep_rndv_tx_free(struct rxm_rndv_tx *t);
void rxm_ep_rndv_answer(struct rxm_ep *ep, struct rxm_rx *rx, uint64_t len,
			int status);
void rxm_ep_rndv_free(struct rxm_rx *rx);

/* rxm_ep_rndv_write.c: the write-based mode (rxm_proto.h) */
int rxm_ep_rndv_write_send(struct rxm_ep *ep, struct rxm_peer *peer,
			   const struct rdm_tx_msg *msg, uint64_t size);
/* rx took dest: register it and send the CTS; 1 (the FIN completes
 * it) or -FI_E* (answered DONE with the error, rx freed). */
int rxm_ep_rndv_write_accept(struct rxm_ep *ep, struct rxm_rx *rx);
/* RNDV_CTS at the sender, RNDV_FIN at the receiver: 0 or a protocol
 * error (close). */
int rxm_ep_rndv_cts_in(struct rxm_ep *ep, struct rxm_rxb *rxb,
		       const struct rxm_hdr *h, size_t len);
int rxm_ep_rndv_fin_in(struct rxm_ep *ep, struct rxm_peer *peer,
		       const struct rxm_hdr *h);
/* A core write of t completed (status 0 or -FI_E*). */
void rxm_ep_rndv_write_done(struct rxm_ep *ep, struct rxm_rndv_tx *t,
			    int status);
/* Post the writes that waited for room: the work done. */
int rxm_ep_rndv_write_progress(struct rxm_ep *ep);
/* Take t off the writes waiting for room (its connection ended). */
void rxm_ep_rndv_write_unwait(struct rxm_ep *ep, struct rxm_rndv_tx *t);
void rxm_ep_rndv_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err);
/* An application send's completion share (rxm_ep_tx.c). */
void rxm_ep_txop_done(struct rxm_ep *ep, struct rxm_txop *op, int status);

/* rxm_ep_rma.c */
/* The transport's rma op on a connected (or connecting) peer. */
int rxm_ep_rma_start(struct rxm_ep *ep, struct rxm_peer *peer,
		     const struct rdm_rma_msg *m);
/* An RMA message arrived (checked by rxm_proto_check; payload plen
 * bytes after the header): 0, or a protocol error (close). */
int rxm_ep_rma_arrived(struct rxm_ep *ep, struct rxm_peer *peer,
		       struct fid_ep *via, const struct rxm_hdr *h,
		       const uint8_t *payload, size_t plen);
/* Close the core registrations of r (by the core) and free it. */
void rxm_ep_rma_free(struct rxm_rma *r);
/* An ack with status for the request id (positive errno, 0), to peer. */
void rxm_ep_rma_answer(struct rxm_ep *ep, struct rxm_peer *peer,
		       uint64_t id, int status, const void *res, size_t len);

/* rxm_ep_rma_core.c: writes and reads the core moves (rxm_proto.h) */
/* May m go by the core (rendezvous possible, a size past one buffer,
 * buffers a request can name)? */
bool rxm_ep_rma_by_core(const struct rxm_ep *ep, const struct rdm_rma_msg *m,
			uint64_t size);
/* The request of m by the core, its registrations kept in r: 0 and *b_p;
 * -FI_EAGAIN when the core refused a registration (send it emulated), or
 * another -FI_E*; on error nothing is kept. */
int rxm_ep_rma_core_req(struct rxm_ep *ep, struct rxm_peer *peer,
			const struct rdm_rma_msg *m, struct rxm_rma *r,
			struct rxm_txb **b_p);
/* The target's side of a WRITE or READ_REQ with RXM_F_CORE (rma header
 * in host order, req the rest of the payload): 0, or a protocol error. */
int rxm_ep_rma_core_in(struct rxm_ep *ep, struct rxm_peer *peer,
		       struct fid_ep *via, const struct rxm_hdr *h,
		       const struct rxm_rma_hdr *rh, const uint8_t *req,
		       size_t rlen);
/* The core's read or write for x ended. */
void rxm_ep_rma_core_done(struct rxm_ep *ep, struct rxm_rma_xfer *x,
			  int status);
/* Post what waited for room: the work done. */
int rxm_ep_rma_core_progress(struct rxm_ep *ep);
/* The peer's connection ended: what waits goes unanswered. */
void rxm_ep_rma_core_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer);
/* The peer's connection ended: its requests fail with err. */
void rxm_ep_rma_fail_peer(struct rxm_ep *ep, struct rxm_peer *peer, int err);

/* rxm_ep_transport.c: a core read's or write's completion (flags:
 * FI_READ or FI_WRITE), to its owner by the context's kind. */
void rxm_ep_core_rma_done(struct rxm_ep *ep, void *ctx, uint64_t flags,
			  int err);

/* Tell core CQ contexts apart: tx buffers and rx buffers both start
 * with a pointer, so the context is tagged by its completion's flags
 * (FI_SEND / FI_RECV), which the core sets. */

#endif /* PROPEL_RXM_EP_H */
