/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private state of the protocol layer (shm_xfer.h), shared by
 * shm_xfer_ep.c, shm_xfer_send.c, shm_xfer_recv.c and shm_xfer_sar.c.
 * Everything here is process-private and touched only by the thread
 * driving the endpoint (see shm_xfer.h, Threading).
 */
#ifndef PROPEL_SHM_XFER_INT_H
#define PROPEL_SHM_XFER_INT_H

#include <sys/types.h>

#include "shm_cmdq.h"
#include "shm_region.h"
#include "shm_wake.h"
#include "shm_xfer.h"

/* The receiver's view of one entry of its own peer table in one
 * generation: who sends with (src_idx, src_gen), and (mapped on first
 * need) that sender's region, where acknowledgements go and SAR channels
 * live. One record per generation, counted: when the entry changes hands
 * (its sender left, or another process rewrote the entry: it is input)
 * the table points at a new record, and every reception, reply and
 * acknowledgement of the old one keeps the old record, its name and its
 * mapped region until the last of them lets go (shm_xfer_rpeer_put). */
struct shm_rpeer {
	uint32_t		state;	/* the LIVE|gen word it was made for */
	uint32_t		refs;	/* the table's, and each rx, queued
					 * reply and queued ack's */
	pid_t			pid;
	struct shm_region	*region;	/* sender's, or NULL */
	struct shm_wake_addr	wake;
	bool			cma_read_ok;	/* a CMA read from it worked */
	/* acknowledgements to it waiting in ep->acks: a new one goes
	 * straight out only when none is waiting (its order is kept) */
	uint32_t		acks_queued;
	/* ep->ack_pass in which its queue was found full: the rest of
	 * that flush skips it, and nobody else waits for it */
	uint32_t		ack_blocked;
	/* the provider's (shm_xfer_src_cache), found from name */
	struct shm_xfer_src_cache src_cache;
	char			name[SHM_NAME_MAX];
};

/* A target, as the sender holds it. */
struct shm_xfer_peer {
	struct shm_xfer_ep	*ep;
	struct shm_region	*region;
	struct shm_wake_addr	wake;
	uint16_t		idx;	/* our entry in its peer table */
	uint32_t		gen;
	bool			cma;	/* both sides advertise CMA */
	bool			dead;	/* its owner was found dead, or
					 * stalled past the peer timeout:
					 * sends fail with -FI_ECONNREFUSED */
	int			lost;	/* why, once dead: -FI_ECONNRESET
					 * or -FI_ETIMEDOUT, what the
					 * operations waiting for it get */
	uint32_t		eagain;	/* -FI_EAGAIN sends, to pace the
					 * liveness checks they trigger */
	uint32_t		alive_pass; /* ep->reap_pass in which its owner
					     * was last found alive: one check
					     * per pass, however many
					     * operations wait on it */
	/* stall watch (shm_xfer_peer_stalled): its queue's shared head as
	 * last read, and since when (ns, 0: not yet watched) it stood
	 * still with commands in the queue */
	uint64_t		seen_head;
	uint64_t		still_since;
	char			name[SHM_NAME_MAX];
};

enum shm_tx_state {
	SHM_TX_FREE = 0,
	SHM_TX_ACK,	/* waiting for SHM_OP_ACK (inline DC, CMA) */
	SHM_TX_SAR,	/* streaming through a bounce channel */
	SHM_TX_RESEND,	/* CMA refused at the receiver: waiting to restart
			 * as a SAR continuation (no channel or slot yet) */
};

struct shm_tx {
	enum shm_tx_state	state;
	uint32_t		gen;	/* bumped at each use: stale ACKs miss */
	void			*context;
	struct shm_xfer_peer	*peer;
	struct shm_tx		*next;	/* free, SAR active or resend list */
	uint32_t		flags;	/* SHM_XF_* of the message */
	uint64_t		tag, cq_data;
	uint64_t		cont;	/* receiver cookie of a resend */
	uint64_t		rma_key; /* SHM_XF_RMA_WRITE: target key */
	bool			cma;	/* sent by CMA: iov[] is the source a
					 * SHM_OP_SPLIT may ask us to write */
	struct iovec		iov[SHM_XFER_IOV_MAX];
	size_t			iov_count;
	uint64_t		size;
	/* SAR */
	uint32_t		chan;
	uint64_t		next_chunk, nchunks;
	size_t			cur_iov;	/* source cursor */
	size_t			cur_off;
};

/* An acknowledgement that found the sender's queue full: retried. */
struct shm_ack {
	struct shm_rpeer	*rp;
	uint32_t		rp_state;	/* rp->state when queued: an
						 * entry that changed hands
						 * since drops it */
	uint64_t		xfer_id;
	int32_t			status;
	uint32_t		flags;	/* SHM_CF_RESEND or 0 */
	uint64_t		cookie;
};

struct shm_xfer_ep {
	struct shm_region	*region;	/* ours: we are its consumer */
	struct shm_wake		wake;
	struct shm_wake_addr	self_wake;	/* our own socket: a send or
						 * delivery made while our
						 * progress sleeps wakes it */
	const struct shm_xfer_ops *ops;
	void			*user;
	uint32_t		pid;
	bool			cma;		/* we advertise CMA */
	uint64_t		sar_threshold;
	char			name[SHM_NAME_MAX];

	struct shm_rpeer	**rpeers;	/* [region->geo.peer_count] */

	struct shm_tx		*tx;		/* [tx_count] */
	uint32_t		tx_count;
	struct shm_tx		*tx_free;
	uint32_t		tx_inuse;	/* taken from tx_free */
	struct shm_tx		*sar_tx;	/* active SAR sends */
	struct shm_tx		*resend_tx;	/* CMA sends to redo by SAR */

	bool			*chan_busy;	/* [our sar_chan_count] */
	uint32_t		chan_free;

	struct shm_xfer_rx	*sar_rx;	/* active SAR drains */
	struct shm_xfer_rx	*cont_rx;	/* CMA refused: waiting for
						 * the SAR continuation */
	uint64_t		next_cookie;

	/* acknowledgements that found their sender's queue full, oldest
	 * first; per sender in order, but a full sender holds back only
	 * its own (shm_xfer_ack_flush, DESIGN.md section 7a) */
	struct shm_ack		*acks;
	uint32_t		ack_cap, ack_head, ack_len;
	uint32_t		ack_pass;	/* flushes, never 0 */

	/* split copies we own (shm_xfer_split.c), oldest first */
	struct shm_xfer_rx	*split_rx;
	struct shm_xfer_rx	**split_tail;
	uint32_t		split_busy;	/* bit i: job i in use */
	uint64_t		split_min;	/* FI_SHM_CMA_SPLIT_MIN */

	struct shm_rd		*rd;		/* read/atomic replies being
						 * sent (shm_xfer_rma.c) */
	struct shm_rd		**rd_tail;

	/* freed records of small messages, for the next ones
	 * (shm_xfer_rx_new): at most SHM_XFER_RX_CACHE_MAX */
	struct shm_xfer_rx	*rx_cache;
	uint32_t		rx_cache_len;

	uint64_t		drops;		/* commands dropped as
						 * malformed or orphaned */
	uint32_t		polls;		/* since the last peer check */
	uint32_t		reap_pass;	/* shm_xfer_live_reap calls,
						 * never 0 once counting
						 * (peer->alive_pass) */
	uint64_t		reap_now;	/* the pass's monotonic clock, ns */
	uint64_t		peer_timeout_ns; /* FI_SHM_PEER_TIMEOUT_MS, 0:
						  * never */
	struct shm_xfer_stats	stats;
};

/* A read or atomic reply going out as SHM_OP_DATA chunks, then an
 * ACK (target side, shm_xfer_rma.c). */
struct shm_rd {
	struct shm_rd		*next;
	struct shm_rpeer	*rp;	/* the initiator */
	uint64_t		xfer_id;
	const uint8_t		*src;	/* registered memory, or own[] */
	uint64_t		len, off;
	uint32_t		fails;	/* full-queue retries, for liveness */
	uint8_t			own[];	/* copy of a temporary result */
};

/* Records of messages of up to SHM_XFER_RX_CACHED_DATA inline bytes are
 * taken from and given back to a per-endpoint list instead of malloc and
 * free (about 130 instructions a message, a twentieth of its software
 * path); the endpoint's serialization covers the list, as it covers every
 * record. */
#define SHM_XFER_RX_CACHED_DATA	64
#define SHM_XFER_RX_CACHE_MAX	64

/* Polls with work in flight between two liveness checks of the peers it
 * waits for (shm_xfer_live_reap): bounds how long a dead peer holds a
 * send or a reception, without a system call on the fast path. */
#define SHM_XFER_PEER_CHECK	4096
/* The same bound for an owner that sleeps with such work: the liveness
 * timer of shm_wake.h, in milliseconds. */
#define SHM_XFER_PEER_CHECK_MS	100
/* Largest error code a peer's status word may carry (FI_E* codes and
 * errno values are far below it). */
#define SHM_XFER_STATUS_MAX	65536
/* -FI_EAGAIN sends to one peer between two checks of its owner. */
#define SHM_XFER_EAGAIN_CHECK	64

/* shm_xfer_ep.c */
struct shm_rpeer *shm_xfer_rpeer(struct shm_xfer_ep *ep, uint16_t idx,
				 uint32_t gen);
/* Take and drop a reference to rp (NULL: nothing); the last one unmaps
 * its region and frees it. */
static inline void shm_xfer_rpeer_get(struct shm_rpeer *rp)
{
	if (rp)
		rp->refs++;
}
void shm_xfer_rpeer_put(struct shm_rpeer *rp);
int shm_xfer_rpeer_map(struct shm_xfer_ep *ep, struct shm_rpeer *rp);
void shm_xfer_ep_poke(struct shm_xfer_ep *ep, struct shm_region *r,
		      const struct shm_wake_addr *wake);
/* An application call (a send, a delivery) left work for the progress
 * source while it may sleep: wake it (one branch when it is awake). */
void shm_xfer_ep_self_poke(struct shm_xfer_ep *ep);
/* A send to peer found no room: true when its owner is dead (the peer
 * is then marked dead and its region name removed). Paced. */
bool shm_xfer_live_peer_check(struct shm_xfer_ep *ep,
			      struct shm_xfer_peer *peer);

/* shm_xfer_send.c */
struct shm_tx *shm_xfer_send_tx_get(struct shm_xfer_ep *ep);
uint64_t shm_xfer_send_tx_id(const struct shm_xfer_ep *ep,
			     const struct shm_tx *tx);
void shm_xfer_send_tx_put(struct shm_xfer_ep *ep, struct shm_tx *tx);
void shm_xfer_send_acked(struct shm_xfer_ep *ep, const struct shm_cmd *cmd);

/* shm_xfer_recv.c. A received command's record (malloc'd, extra bytes of
 * data[] after it): every header field set from cmd or to its empty
 * value, one by one, no memset. The caller fills flags, key, the union
 * (read only for its proto), data[] and iov[] (read only below
 * iov_count). A field added to struct shm_xfer_rx is set here. NULL when
 * out of memory. */
struct shm_xfer_rx *shm_xfer_rx_new(struct shm_xfer_ep *ep,
				    const struct shm_cmd *cmd,
				    struct shm_rpeer *rp, size_t extra);

/* shm_xfer_recv.c. The command handlers (and shm_xfer_rma_request)
 * return 0 (the caller releases the slot), 1 (the handler released it
 * already: it copied what it needs and freed the slot early) or
 * -FI_EAGAIN (keep the command queued, retry at the next poll). */
int shm_xfer_recv_msg(struct shm_xfer_ep *ep, struct shm_cmd *cmd);
void shm_xfer_recv_reject(struct shm_xfer_ep *ep, struct shm_cmd *cmd);
/* A command dropped as malformed or orphaned: counted, and a warning
 * naming the endpoint and the peer entry, one per
 * SHM_XFER_DROP_WARN_EVERY. */
void shm_xfer_recv_drop_warn(struct shm_xfer_ep *ep,
			     const struct shm_cmd *cmd);
#define SHM_XFER_DROP_WARN_EVERY	1024

/* shm_xfer_ack.c */
int shm_xfer_ack_flush(struct shm_xfer_ep *ep);
/* Drop the queued acknowledgements whose sender is dead (reap). */
void shm_xfer_ack_reap(struct shm_xfer_ep *ep);
/* Queue a control command (op ACK or SPLIT; tag, and a's flags, status,
 * cookie in cq_data and xfer_id) to rp's region, then poke its owner.
 * 0, or the claim's error (-FI_EAGAIN: its queue is full). */
int shm_xfer_ack_ctl_send(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
			  uint8_t op, uint64_t tag, const struct shm_ack *a);
/* One acknowledgement now (counted), or the claim's error. */
int shm_xfer_ack_send(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
		      const struct shm_ack *a);
void shm_xfer_ack(struct shm_xfer_ep *ep, struct shm_rpeer *rp,
		  uint64_t xfer_id, int status, uint32_t flags,
		  uint64_t cookie);

/* shm_xfer_rx.c */
/* Frees rx, or keeps it in its endpoint's cache (SHM_XFER_RX_CACHED_DATA). */
void shm_xfer_rx_free(struct shm_xfer_rx *rx);
/* Frees every cached record (endpoint close). */
void shm_xfer_rx_cache_drain(struct shm_xfer_ep *ep);
/* The kernel refuses us a CMA read from rx's sender (its ptrace policy, a
 * filter): ask for the data again by SAR into rx->iov (set, with cap)
 * and wait for it (rx goes on cont_rx). */
void shm_xfer_rx_cma_refused(struct shm_xfer_rx *rx);

/* shm_xfer_live.c */
void shm_xfer_live_reap(struct shm_xfer_ep *ep);
/* Is the sender of rx alive? */
bool shm_xfer_live_rx_sender(const struct shm_xfer_rx *rx);

/* shm_xfer_send.c */
int shm_xfer_send_resend_progress(struct shm_xfer_ep *ep);

/* shm_xfer_sar.c */
int shm_xfer_sar_start(struct shm_xfer_ep *ep, struct shm_tx *tx);
/* Does rx name a real channel of its (mapped) sender, in the generation
 * the sender gave it? */
bool shm_xfer_sar_valid(const struct shm_xfer_rx *rx);
int shm_xfer_sar_tx_progress(struct shm_xfer_ep *ep, unsigned budget);
int shm_xfer_sar_rx_progress(struct shm_xfer_ep *ep, unsigned budget);
bool shm_xfer_sar_ready(struct shm_xfer_ep *ep);
void shm_xfer_sar_rx_finish(struct shm_xfer_rx *rx, int status);

/* shm_xfer_split.c */
/* Polls of 100 us a closing endpoint waits for a helper's chunk (2 s). */
#define SHM_SPLIT_CLOSE_WAIT	20000
/* A CMA reception of len bytes (into local[lcnt], trimmed to len) that
 * both sides may copy: 1 when it started (the rx is then completed by
 * ops->rx_done), 0 when the caller copies it alone as before. */
int shm_xfer_split_start(struct shm_xfer_rx *rx, const struct iovec *local,
			 size_t lcnt, uint64_t len, uint64_t cap);
int shm_xfer_split_progress(struct shm_xfer_ep *ep, unsigned budget);
/* A CMA message of size bytes would be split but every job is busy. */
bool shm_xfer_split_full(const struct shm_xfer_ep *ep, uint64_t size);
void shm_xfer_split_help(struct shm_xfer_ep *ep, const struct shm_cmd *cmd);
void shm_xfer_split_reap(struct shm_xfer_ep *ep);
void shm_xfer_split_abandon(struct shm_xfer_ep *ep);

/* shm_xfer_rma.c */
int shm_xfer_rma_request(struct shm_xfer_ep *ep, struct shm_cmd *cmd);
void shm_xfer_rma_dispatch(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx);
void shm_xfer_rma_data(struct shm_xfer_ep *ep, struct shm_cmd *cmd);
int shm_xfer_rma_rd_progress(struct shm_xfer_ep *ep, unsigned budget);
void shm_xfer_rma_rd_free_all(struct shm_xfer_ep *ep);
/* The rx of an RMA write goes to ops->rma_done, others to rx_done. */
static inline void shm_xfer_rx_done_cb(struct shm_xfer_ep *ep,
				       struct shm_xfer_rx *rx, int status,
				       uint64_t len)
{
	if (rx->flags & SHM_XF_RMA_ANY) {
		if (ep->ops->rma_done)
			ep->ops->rma_done(ep, rx, status, len);
	} else {
		ep->ops->rx_done(ep, rx, status, len);
	}
}

/* copy helpers: base's pl_iov.h */

#endif /* PROPEL_SHM_XFER_INT_H */
