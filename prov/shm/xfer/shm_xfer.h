/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm protocol layer: moves a message of any size from one endpoint
 * to another, over the pieces below it (region, command queue, wake-up,
 * CMA). The provider's endpoint (fi_msg / fi_tagged, matching, CQs) sits
 * on top and calls only this header.
 *
 * Protocols, chosen per message by the sender:
 *   INLINE  size <= the target's inline_max: the bytes travel in the
 *           command slot. Complete at the sender once queued, unless
 *           SHM_XF_DELIVERY: then the receiver acknowledges (SHM_OP_ACK)
 *           after copying into the matched buffer.
 *   SAR     otherwise up to FI_SHM_SAR_THRESHOLD, and every size when CMA
 *           is off: the sender streams chunks through a channel of
 *           SHM_SAR_RING bounce buffers in ITS OWN region; the receiver
 *           drains them into the matched buffer and sets the channel's
 *           `done` word, which completes the send (a delivery completion
 *           by construction). A slow or absent receiver stalls the sender,
 *           never makes it overwrite: a buffer is refilled only after the
 *           receiver emptied it.
 *   CMA     larger, when both regions advertise SHM_RF_CMA: the command
 *           carries the sender's iovecs; the receiver process_vm_readv's
 *           them once matched and acknowledges; the send completes on the
 *           acknowledgement (the user buffer is in use until then). If the
 *           kernel refuses the copy at run time (EPERM/ENOSYS: another
 *           ptrace policy, a seccomp filter), the receiver answers with a
 *           SHM_CF_RESEND ack; the sender stops using CMA to that peer and
 *           resends the data by SAR as a continuation (SHM_CF_CONT) that
 *           fills the already matched receive: nothing is matched twice.
 *
 * Acknowledgements (SHM_OP_ACK, sender's own queue): inline messages with
 * SHM_XF_DELIVERY and every CMA message. A receiver whose sender's queue
 * is full keeps the ack in a local FIFO retried by each poll (never
 * waits). SAR needs none: the channel's `done` word is the ack.
 *
 * Completion semantics the provider gets: shm_xfer_send() returns 0 when
 * the send is already complete (inline without DELIVERY: transmit and
 * inject complete), 1 when ops->tx_done(context) will follow.
 *
 * Receive side: each incoming message becomes a struct shm_xfer_rx handed
 * to ops->rx_msg (inline bytes are copied out, so the queue slot is free
 * again at once: unexpected messages never block the queue). The provider
 * matches it, now or later, and calls shm_xfer_rx_deliver() or
 * shm_xfer_rx_discard() exactly once; a SAR delivery finishes in a later
 * poll with ops->rx_done.
 *
 * Threading: an endpoint is driven by one thread at a time (its progress
 * source runs under the progress token; sends come from application
 * threads that the provider serializes with the source as it does for
 * its own state). Nothing here blocks.
 */
#ifndef PROPEL_SHM_XFER_H
#define PROPEL_SHM_XFER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "pl_atomic.h"
#include "pl_iov.h"
#include "shm_layout.h"

struct shm_xfer_ep;
struct shm_xfer_peer;

/* shm_xfer_msg.flags */
#define SHM_XF_TAGGED	(1u << 0)
#define SHM_XF_CQ_DATA	(1u << 1)
#define SHM_XF_DELIVERY	(1u << 2)	/* FI_DELIVERY_COMPLETE */
#define SHM_XF_INJECT	(1u << 3)	/* buffer reusable on return */
/* RMA and atomics (shm_xfer_rma.c): set by the layer on an incoming rx,
 * SHM_XF_RMA_WRITE also by the sender of an RMA write. */
#define SHM_XF_RMA_WRITE (1u << 4)	/* data to target address tag, key */
#define SHM_XF_RMA_READ	(1u << 5)	/* reply with size bytes from tag */
#define SHM_XF_ATOMIC	(1u << 6)	/* rx->data: the atomic request */
#define SHM_XF_RMA_ANY	(SHM_XF_RMA_WRITE | SHM_XF_RMA_READ | SHM_XF_ATOMIC)
/* Set by the layer on an rx that shm_xfer_ops.rx_inline refused: no
 * posted receive took it, and none was posted since (same poll). */
#define SHM_XF_UNMATCHED (1u << 7)
/* Bits 16..31: the receive context (SHM_CF_RX_MASK, same bits), in a
 * message to send and in one received. */
#define SHM_XF_RX_SHIFT	SHM_CF_RX_SHIFT
#define SHM_XF_RX_MASK	SHM_CF_RX_MASK

/* Largest iovec count of one message. */
#define SHM_XFER_IOV_MAX 8

struct shm_xfer_msg {
	const struct iovec	*iov;
	size_t			iov_count;	/* <= SHM_XFER_IOV_MAX */
	uint64_t		tag;
	uint64_t		cq_data;
	uint32_t		flags;		/* SHM_XF_* */
	void			*context;	/* given back by tx_done */
	uint64_t		rma_key;	/* SHM_XF_RMA_WRITE: target key
						 * (target address in tag) */
};

/* An incoming message. Public fields first; the rest is the layer's. */
struct shm_xfer_rx {
	uint64_t		size;		/* bytes sent */
	uint64_t		tag;
	uint64_t		cq_data;
	uint32_t		flags;		/* SHM_XF_TAGGED | SHM_XF_CQ_DATA */
	const char		*src_name;	/* sender's name, for FI_SOURCE;
						 * valid until deliver/discard */
	void			*context;	/* the provider's, free to use */
	uint64_t		key;		/* SHM_XF_RMA_ANY: target key
						 * (target address in tag) */
	/* -- private -- */
	struct shm_xfer_ep	*ep;
	struct shm_xfer_rx	*next;
	void			*rpeer;
	uint8_t			proto;
	bool			cached;		/* data[] holds
						 * SHM_XFER_RX_CACHED_DATA: back
						 * to ep's cache when freed */
	uint32_t		cmd_flags;
	uint64_t		xfer_id;
	uint64_t		xfer_id_cont;	/* cookie of a CMA->SAR resend */
	union {
		struct shm_cmd_sar	sar;
		struct shm_cmd_cma	cma;
	} u;
	struct iovec		iov[SHM_XFER_IOV_MAX];
	size_t			iov_count;
	uint64_t		cap;		/* bytes the receive buffer holds */
	uint64_t		next_chunk;
	uint64_t		nchunks;
	uint64_t		copied;
	/* stall watch (shm_xfer_live_reap): copied as last seen, and since
	 * when (ns, 0: not yet watched) it has not moved */
	uint64_t		seen_copied;
	uint64_t		still_since;
	/* a split copy (shm_xfer_split.c) */
	uint32_t		split_job;	/* job index in our region */
	int32_t			split_status;	/* first copy error, or 0 */
	_Alignas(8) uint8_t	data[];		/* inline bytes (an atomic
						 * request's words among them) */
};

/*
 * An inline message offered before the layer makes a record of it
 * (shm_xfer_ops.rx_inline). data holds size bytes; it points into the
 * command slot or at a copy of it, valid during the call only.
 */
struct shm_xfer_inline {
	uint64_t		size;
	uint64_t		tag;
	uint64_t		cq_data;
	uint32_t		flags;		/* SHM_XF_TAGGED | SHM_XF_CQ_DATA */
	const char		*src_name;	/* as shm_xfer_rx.src_name */
	const void		*data;
};


struct shm_xfer_ops {
	/* A new message (ownership passes to the provider). */
	void (*rx_msg)(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx);
	/* A delivery that returned 1 finished: len bytes placed, status 0 or
	 * -FI_ETRUNC / -FI_E*. rx is freed after this returns. */
	void (*rx_done)(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx,
			int status, uint64_t len);
	/* A send that returned 1 completed (status 0 or -FI_E*). */
	void (*tx_done)(struct shm_xfer_ep *ep, void *context, int status);
	/* An incoming RMA write, read or atomic (rx->flags & SHM_XF_RMA_ANY).
	 * The provider validates rx->key / rx->tag / rx->size against its
	 * registrations and answers exactly once: a write with
	 * shm_xfer_rx_deliver (to the registered memory) or
	 * shm_xfer_rma_rx_fail, a read or atomic with shm_xfer_rma_rx_reply. NULL: every RMA request
	 * fails with -FI_EOPNOTSUPP. */
	void (*rma_msg)(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx);
	/* An RMA write finished (as rx_done), whatever its delivery
	 * returned: called once, before the initiator's ack leaves, so
	 * that the target's events precede the initiator's completion. */
	void (*rma_done)(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx,
			 int status, uint64_t len);
	/* Optional. A message whose bytes came in its command, with nothing
	 * to answer (no delivery ack): place it now, straight from the
	 * command, if a posted receive takes it (return 1: done, its
	 * completion written), or return 0 and the message comes again
	 * through rx_msg, flagged SHM_XF_UNMATCHED. This saves the record
	 * and a copy on the path of every small message. */
	int (*rx_inline)(struct shm_xfer_ep *ep,
			 const struct shm_xfer_inline *in);
};

/* Statistics, exact, owner-read. */
struct shm_xfer_stats {
	uint64_t tx_inline, tx_sar, tx_cma, rx_msgs, acks_tx, acks_rx,
		 sar_chunks_tx, sar_chunks_rx, wakes_tx, tx_eagain;
	/* split copies: receptions shared, chunks we read as their
	 * receiver, chunks we wrote for a receiver as the sender */
	uint64_t split_rx, split_chunks_own, split_chunks_help;
};

/*
 * Open the endpoint named `name` (an FI_ADDR_STR name, shm_addr.h):
 * create its region (geometry from FI_SHM_*) and wake-up socket.
 * user is kept for the callbacks (shm_xfer_ep_user). A name of the form
 * fi_shm://<pid>:<uid>:<idx> must carry our own pid and uid. Returns 0,
 * -FI_EINVAL, -FI_EADDRINUSE, -FI_ENOMEM, -errno.
 */
int shm_xfer_ep_open(const char *name, const struct shm_xfer_ops *ops,
		     void *user, struct shm_xfer_ep **ep_p);
/* Close: sends still in flight complete with -FI_ECANCELED; commands
 * still queued are refused to their senders (-FI_ECONNRESET: SAR channel
 * released, error ack); SAR receptions in progress are abandoned the same
 * way; then peers are unmapped and the region removed. The provider
 * discards (shm_xfer_rx_discard) the rx it still holds BEFORE closing. */
void shm_xfer_ep_close(struct shm_xfer_ep *ep);

void *shm_xfer_ep_user(const struct shm_xfer_ep *ep);
const char *shm_xfer_ep_name(const struct shm_xfer_ep *ep);
void shm_xfer_ep_stats(const struct shm_xfer_ep *ep,
		       struct shm_xfer_stats *stats_p);

/*
 * The progress source members (progress/include/pl_progress.h): poll does up to
 * budget units (commands handled, chunks moved, completions), arm returns
 * 0 when it is safe to sleep on shm_xfer_ep_fd() and -FI_EAGAIN
 * otherwise.
 */
int shm_xfer_ep_poll(struct shm_xfer_ep *ep, unsigned budget);
int shm_xfer_ep_arm(struct shm_xfer_ep *ep);
int shm_xfer_ep_fd(const struct shm_xfer_ep *ep);
/* Armed since its last poll: a sleeper may rely on its descriptor. */
bool shm_xfer_ep_armed(const struct shm_xfer_ep *ep);
/* Nothing but the command queue can give a poll work: no send, SAR,
 * acknowledgement, reply or timer in flight, not armed. Owner state:
 * call under the same serialization as poll. */
bool shm_xfer_ep_idle(const struct shm_xfer_ep *ep);
/* May the command queue hold something? Safe WITHOUT that
 * serialization (atomic loads only); false positives, and a "no" that
 * may lag a just-committed command (a later call sees it). */
bool shm_xfer_ep_queue_hint(const struct shm_xfer_ep *ep);

/*
 * A handle on a target endpoint (what an AV entry will hold). Maps its
 * region and takes an entry in its peer table. Returns 0, -FI_EAGAIN
 * (target still starting, or its peer table is full), -FI_ENOENT (no such
 * endpoint), -FI_ECONNREFUSED (closing or dead), -FI_EINVAL.
 */
int shm_xfer_peer_open(struct shm_xfer_ep *ep, const char *name,
		       struct shm_xfer_peer **peer_p);
/* Only once no send to peer is in flight: a receiver that has not read
 * our last commands yet can still place inline ones (without FI_SOURCE),
 * but drops the others when our entry is gone. */
void shm_xfer_peer_close(struct shm_xfer_peer *peer);

/*
 * Send. 0: complete now; 1: tx_done(msg->context) later; -FI_EAGAIN: no
 * queue slot, bounce channel or tx entry now (nothing was sent: retry
 * after polling); -FI_EINVAL (too many iovecs, inject too large);
 * -FI_ECONNREFUSED (target closing, or found dead: see provider.md,
 * Peer failure).
 */
int shm_xfer_send(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
		  const struct shm_xfer_msg *msg);

/* Which protocol a message of `size` bytes to peer takes (tests). */
enum shm_proto shm_xfer_send_proto(const struct shm_xfer_ep *ep,
				   const struct shm_xfer_peer *peer,
				   uint64_t size);

/*
 * Place rx into iov (capacity = sum of lengths).
 *   0 or -FI_ETRUNC: done now, *len_p bytes placed (the head of a longer
 *     message for -FI_ETRUNC), rx freed;
 *   1: in progress (SAR, or CMA continuing by SAR), ops->rx_done follows
 *     and rx is freed after it; *len_p untouched;
 *   other negative: failed (the sender is told), rx freed.
 */
int shm_xfer_rx_deliver(struct shm_xfer_rx *rx, const struct iovec *iov,
			size_t iov_count, uint64_t *len_p);
/* Drop rx without placing it (FI_DISCARD, cancel); the sender completes
 * normally. rx is freed. */
void shm_xfer_rx_discard(struct shm_xfer_rx *rx);

/*
 * Storage the provider keeps per sender, beside the sender's name: what it
 * resolved that name to (shm_ep_transport.c: the sender's fi_addr_t, so
 * that FI_SOURCE does not hash the name for every message). Zero when the
 * sender is first seen; the layer never reads it. Readers and writers may
 * be on several threads at once (rx_src runs outside the endpoint lock):
 * the provider's protocol is a sequence lock whose writers only try.
 */
struct shm_xfer_src_cache {
	pl_atomic_u64		seq;	/* even: stable; odd: a writer */
	pl_atomic_u64		tag;	/* what the value is valid for */
	pl_atomic_u64		value;
};

/* The cache of the sender src_name names: src_name must be a
 * shm_xfer_rx.src_name or shm_xfer_inline.src_name (not NULL), and the
 * result is valid while that is. */
struct shm_xfer_src_cache *shm_xfer_src_cache(const char *src_name);

/*
 * RMA and atomics (shm_xfer_rma.c). Every request is validated by the
 * TARGET against its own registrations (ops->rma_msg) before any byte of
 * its memory is read or written, whichever process then copies:
 *   write  the message protocols (INLINE / SAR / CMA where the target
 *          process_vm_readv's the initiator), always acknowledged;
 *   read   a command carrying the initiator's iovecs; the target answers
 *          by process_vm_writev into them (both CMA-capable), else with
 *          SHM_OP_DATA commands through the initiator's queue;
 *   atomic an inline request the target applies in its progress, the
 *          fetched values coming back as SHM_OP_DATA.
 * Initiator side: 1 (tx_done(msg->context, status) follows) or the
 * errors of shm_xfer_send. shm_xfer_write is shm_xfer_send with
 * SHM_XF_RMA_WRITE (msg->tag = target address, msg->rma_key).
 */
/* msg->iov: where the bytes go (<= SHM_XFER_IOV_MAX entries; more than
 * SHM_CMA_IOV_MAX: the reply always comes as DATA); msg->tag,
 * msg->rma_key: target address and key; size = sum of the iov. */
int shm_xfer_rma_read(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
		      const struct shm_xfer_msg *msg);
/* req: req_len opaque bytes for the target's rma_msg (rx->data, rx->size);
 * msg->iov: where the result goes (may be empty); tag, rma_key as read.
 * -FI_EMSGSIZE when req does not fit the target's inline size. */
int shm_xfer_rma_atomic(struct shm_xfer_ep *ep, struct shm_xfer_peer *peer,
			const struct shm_xfer_msg *msg, const void *req,
			size_t req_len);
/* Target: answer a read or atomic rx with len bytes at src (status 0) or
 * fail it (status -FI_E*: nothing is sent but the error). copy: src is
 * a temporary (atomic result) the layer must copy if it cannot send it
 * at once; otherwise src stays valid (registered memory). rx is freed. */
void shm_xfer_rma_rx_reply(struct shm_xfer_rx *rx, const void *src,
			   uint64_t len, int status, bool copy);
/* Target: refuse an RMA write rx (status -FI_E*); the initiator's
 * operation completes with it and no byte is placed. rx is freed. */
void shm_xfer_rma_rx_fail(struct shm_xfer_rx *rx, int status);

#endif /* PROPEL_SHM_XFER_H */
