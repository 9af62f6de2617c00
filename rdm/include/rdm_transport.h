/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The transport contract: what an RDM provider implements below the RDM
 * endpoint core (rdm_ep.h). The core owns everything the application
 * sees (fi_msg / fi_tagged entry points, matching, multi-recv, PEEK /
 * CLAIM / DISCARD, completions and counters, aliases, the locking
 * strategy, tx entries and the per-peer cache); the transport only
 * moves a message to a peer and hands up the messages that arrive.
 *
 * Calling context. Every op but queue_hint is called with the endpoint
 * serialized (rdm_ep_lock, or the progress source's trylock: rdm_ep.h),
 * and every upcall below (rdm_ep_tx_done, rdm_ep_rx_arrive,
 * rdm_ep_rx_inline, rdm_ep_rx_done) must be made from inside an op so
 * serialized: in practice from inside poll, or from inside send for a
 * transport that completes a send on the spot. No op may block.
 *
 * Downcalls (core -> transport), struct rdm_transport_ops:
 *
 *   peer_open(ep, addr, tpeer_p)  a handle on the peer whose AV address
 *        is addr (the AV's addrlen bytes). The core keeps it per AV slot
 *        and closes it with peer_close when the endpoint closes (never
 *        earlier: a send may still be in flight). -FI_EAGAIN: the peer
 *        cannot be reached yet, the application retries.
 *   send(ep, tpeer, msg)  0: complete already (the core writes the
 *        completion); 1: rdm_ep_tx_done(ep, msg->context, status) will
 *        follow; -FI_EAGAIN: nothing sent (the core polls once and
 *        retries once, then returns it); other -FI_E*: failed, nothing
 *        will follow.
 *   rx_deliver(ep, trx, iov, count, ctx, len_p)  place the message trx
 *        (handed up by rdm_ep_rx_arrive) into iov. 0 or -FI_ETRUNC: done,
 *        *len_p bytes placed; 1: in progress, rdm_ep_rx_done(ep, ctx, ...)
 *        follows; other -FI_E*: failed. trx is the transport's again in
 *        every case (free it when it is done with it).
 *   rx_discard(ep, trx)  drop trx unplaced (FI_DISCARD, close); the
 *        sender completes as if it had been received.
 *   rx_src(ep, src)  the fi_addr_t of the sender named src (rdm_rx_hdr),
 *        FI_ADDR_NOTAVAIL when it is not in the AV. Called only when the
 *        endpoint has FI_SOURCE or FI_DIRECTED_RECV.
 *   rx_src_of(ep, trx)  the src of a message the core holds (what
 *        rdm_ep_rx_arrive's hdr->src was), to look a queued message's
 *        sender up again once the AV has grown. In a transport whose
 *        endpoint may be bound to a peer receive context, both it and
 *        rx_src must work without the endpoint's lock for a message
 *        the transport holds (that context's owner asks from its own
 *        thread, rdm_peer_srx.h): read only what was fixed when the
 *        message was handed up, and the AV under RCU.
 *   rx_src_name(ep, src, buf, size)  the sender's address as bytes for
 *        FI_SOURCE_ERR's err_data: copies at most size bytes, returns
 *        the length written (0: none).
 *   rma(ep, tpeer, msg)  optional (NULL: no RMA, no atomics): move one
 *        RMA or atomic request (struct rdm_rma_msg) to the peer, whose
 *        target validates it (rdm_rma.h). Answers as send: 0 complete
 *        (the core writes the completion), 1: rdm_ep_tx_done(ep,
 *        msg->context, status) follows once the target answered (for a
 *        read or fetch, with the bytes in msg->iov), -FI_EAGAIN, other
 *        -FI_E*.
 *   unlocked(ep)  optional (NULL: none): called WITHOUT the
 *        serialization, right after a send released it (rdm_ep_tx_send)
 *        and before each progress pass takes it. For a transport whose
 *        send must call into something that takes its own lock, which
 *        in turn calls the core (a peer provider, whose arrivals match
 *        in this endpoint's queue under that lock): send lists the
 *        message and answers 1, and this hands the list over with no
 *        lock of ours held. It takes the serialization itself
 *        (rdm_ep_lock) to look at what it listed; the cost to the send
 *        path of a transport without it is one load.
 *   poll(ep, budget), arm(ep), idle(ep), queue_hint(ep)
 *        the progress source's members (pl_progress.h), which the core
 *        wraps with its locking strategy (rdm_ep_progress_poll):
 *        arm answers 0 when a sleeper may rely on the fd, and then the
 *        transport stays armed until its next poll (the core keeps
 *        track of that itself: every poll and arm goes through it,
 *        rdm_ep_poll); idle: nothing but new incoming traffic can give
 *        a poll work (not armed either);
 *        queue_hint: may incoming traffic be waiting? Called WITHOUT
 *        the serialization (atomic loads only): false positives are
 *        fine, a "no" may lag, a later call sees it.
 *
 * Upcalls (transport -> core), declared in rdm_ep.h:
 *
 *   rdm_ep_rx_inline(ep, hdr)  optional fast path for a message whose
 *        bytes are all in hand (hdr->data) and that needs no answer:
 *        1 if a posted receive took it (completion written), 0 if the
 *        transport must hand it up again through rdm_ep_rx_arrive with
 *        RDM_RX_UNMATCHED set (nothing was posted since), at once: an
 *        endpoint on a peer receive context keeps the owner's no-match
 *        answer for that arrival (rdm_peer_srx_inline).
 *   rdm_ep_rx_arrive(ep, hdr, trx)  a message arrived; ownership of trx
 *        passes to the core until it calls rx_deliver or rx_discard on
 *        it, exactly once (now, or when a receive is posted).
 *   rdm_ep_rx_done(ep, ctx, status, len)  a delivery that answered 1
 *        finished: len bytes placed, status 0, -FI_ETRUNC or -FI_E*.
 *   rdm_ep_tx_done(ep, context, status)  a send that answered 1
 *        completed.
 *
 * Scalable endpoints (rdm_sep.h): a transport that offers them carries
 * rdm_tx_msg.rx_idx to the target and hands it up in rdm_rx_hdr.rx_idx;
 * one that does not leaves it 0 (a sender's context bits are then
 * ignored: fi_getinfo offers no FI_NAMED_RX_CTX for it).
 *
 * Receives go through ONE matching interface (the endpoint's pl_match,
 * entered only from rdm_ep_rx.c), so that a shared receive context
 * (fi_peer(3) fid_peer_srx) can later stand behind it without any
 * transport noticing.
 */
#ifndef PROPEL_RDM_TRANSPORT_H
#define PROPEL_RDM_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fabric.h>

struct rdm_ep;

/* rdm_tx_msg.flags: what the transport's protocol needs to know. */
#define RDM_TX_TAGGED		(1u << 0)	/* FI_TAGGED */
#define RDM_TX_CQ_DATA		(1u << 1)	/* FI_REMOTE_CQ_DATA */
/* complete only once the receiver placed it: FI_DELIVERY_COMPLETE
 * (and the levels it implies, FI_MATCH_COMPLETE, FI_COMMIT_COMPLETE) */
#define RDM_TX_DELIVERY		(1u << 2)
#define RDM_TX_INJECT		(1u << 3)	/* buffer reusable on return */

/* A send as the core hands it down. */
struct rdm_tx_msg {
	const struct iovec	*iov;
	size_t			iov_count;	/* <= the endpoint's iov_limit */
	uint64_t		tag;		/* FI_TAGGED only */
	uint64_t		cq_data;	/* FI_REMOTE_CQ_DATA only */
	uint32_t		flags;		/* RDM_TX_* */
	/* the receive context of a scalable endpoint it is for
	 * (fi_rx_addr), 0 otherwise: the transport carries it to the
	 * target's rdm_rx_hdr.rx_idx */
	uint32_t		rx_idx;
	void			*context;	/* given back by rdm_ep_tx_done */
};

enum rdm_rma_kind {
	RDM_RMA_WRITE,
	RDM_RMA_READ,
	RDM_RMA_ATOMIC,
};

/* An RMA or atomic request as the core hands it down: ONE remote
 * buffer. flags: RDM_TX_CQ_DATA (a write with remote CQ data),
 * RDM_TX_INJECT. */
struct rdm_rma_msg {
	enum rdm_rma_kind	kind;
	const struct iovec	*iov;	/* write: source; read, atomic:
					 * where the result goes */
	size_t			iov_count;	/* <= the iov_limit */
	uint64_t		addr, key;	/* the target's buffer */
	uint64_t		cq_data;
	uint32_t		flags;
	const void		*amo;	/* atomic: struct rdm_atomic_req */
	size_t			amo_len;
	void			*context;	/* for rdm_ep_tx_done */
};

/* rdm_rx_hdr.flags */
#define RDM_RX_TAGGED		(1u << 0)
#define RDM_RX_CQ_DATA		(1u << 1)
/* refused by rdm_ep_rx_inline in the same pass: nothing posted takes it */
#define RDM_RX_UNMATCHED	(1u << 2)
/* rx_deliver may answer 1 (its data moves later): the core keeps the
 * completion's record on the heap only for these */
#define RDM_RX_LATER		(1u << 3)

/* An incoming message as the core sees it. */
struct rdm_rx_hdr {
	uint64_t		size;		/* bytes sent */
	uint64_t		tag;
	uint64_t		cq_data;
	uint32_t		flags;		/* RDM_RX_* */
	/* the receive context it is for, as the sender said: foreign,
	 * checked by the core against its own count (rdm_ep_rx_arrive) */
	uint32_t		rx_idx;
	const void		*src;		/* the sender, in the transport's
						 * terms (rx_src, rx_src_name);
						 * valid while trx is held */
	const void		*data;		/* rdm_ep_rx_inline: size bytes */
};

struct rdm_transport_ops {
	int (*peer_open)(struct rdm_ep *ep, const void *addr, void **tpeer_p);
	void (*peer_close)(struct rdm_ep *ep, void *tpeer);
	int (*send)(struct rdm_ep *ep, void *tpeer,
		    const struct rdm_tx_msg *msg);
	int (*rx_deliver)(struct rdm_ep *ep, void *trx, const struct iovec *iov,
			  size_t count, void *ctx, uint64_t *len_p);
	void (*rx_discard)(struct rdm_ep *ep, void *trx);
	fi_addr_t (*rx_src)(struct rdm_ep *ep, const void *src);
	const void *(*rx_src_of)(struct rdm_ep *ep, void *trx);
	size_t (*rx_src_name)(struct rdm_ep *ep, const void *src, char *buf,
			      size_t size);
	int (*rma)(struct rdm_ep *ep, void *tpeer,
		   const struct rdm_rma_msg *msg);
	void (*unlocked)(struct rdm_ep *ep);
	int (*poll)(struct rdm_ep *ep, unsigned budget);
	int (*arm)(struct rdm_ep *ep);
	bool (*idle)(struct rdm_ep *ep);
	bool (*queue_hint)(struct rdm_ep *ep);
};

#endif /* PROPEL_RDM_TRANSPORT_H */
