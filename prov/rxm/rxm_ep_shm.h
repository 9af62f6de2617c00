/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The records of an rxm endpoint's shm side (rxm_ep_shm.c: messages;
 * rxm_ep_shm_rma.c: RMA and atomics), shared by the two files that
 * list operations for shm and hand them over. Internal to rxm's
 * endpoint; the lock order and the flush are rxm_ep_shm.c's.
 *
 * Who touches what: every field of struct rxm_ep_shm below "under the
 * rxm endpoint's lock" is touched only with that lock held (rdm_ep.h);
 * the objects above it are set at enable and closed at close, which
 * run alone (fi_endpoint(3)). A record (struct rxm_shm_tx) belongs to
 * the list it is on (pend, under the lock), to the one flusher while
 * it hands the record to shm (between the flush's unlock and its call
 * returning), and then to shm until its completion comes back, which
 * takes the lock to unlink and free it (rxm_shm_tx_end).
 */
#ifndef PROPEL_RXM_EP_SHM_H
#define PROPEL_RXM_EP_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fi_ext.h>

#include "pl_atomic.h"
#include "rxm_ep.h"

/* Records whose copy fits this many bytes (an MPI message of a few
 * words, every inject, every atomic shm carries) come from a free list,
 * not from malloc per operation; at most RXM_SHM_TX_KEEP of them are
 * kept. */
#define RXM_SHM_TX_SMALL	256
#define RXM_SHM_TX_KEEP		256

/* What a record carries. */
enum rxm_shm_tx_kind {
	RXM_SHM_TX_MSG,		/* fi_sendmsg / fi_tsendmsg (tagged) */
	RXM_SHM_TX_RMA,		/* fi_writemsg, fi_readmsg, fi_*atomicmsg */
};

/* An operation handed to shm, or listed for it. */
struct rxm_shm_tx {
	struct rxm_shm_tx *next;		/* pend, or a flush's batch */
	struct rxm_shm_tx *inext, *iprev;	/* inflight */
	struct rxm_shm_tx *enext;		/* ended, with its status */
	int status;
	void *txe;			/* the core's (rdm_ep_tx_done) */
	struct rxm_conn *conn;		/* the peer, for a fallback */
	uint8_t kind;			/* enum rxm_shm_tx_kind */
	uint32_t rdm_flags;		/* the core's RDM_TX_* */
	fi_addr_t dest;			/* in the twin */
	uint64_t tag, data, flags;	/* the shm call's flags */
	bool tagged;
	bool small;			/* bytes has RXM_SHM_TX_SMALL room */
	/* RXM_SHM_TX_RMA: the request as the core gave it (rdm_rma_msg);
	 * an atomic's struct rdm_atomic_req is copied into bytes */
	uint8_t rma_kind;		/* enum rdm_rma_kind */
	uint64_t addr, key;		/* the target's buffer */
	size_t amo_len;
	size_t iov_count;
	struct iovec iov[RXM_IOV_LIMIT];
	uint8_t bytes[];		/* an inject's or a buffered send's
					 * copy, an atomic request */
};

struct rxm_ep_shm {
	struct rxm_ep *ep;
	struct fid_ep *sep;		/* the shm endpoint */
	struct fid_ep *srx;		/* shm's import of our queue */
	struct fid_cq *tx_cq, *rx_cq;	/* shm's peer CQs */
	struct fid_peer_cq tx_owner;	/* tx_cq's owner: us */
	struct fi_ops_cq_owner tx_owner_ops;
	/* under the rxm endpoint's lock: */
	struct rxm_shm_tx *pend, *pend_tail;
	struct rxm_shm_tx *inflight;	/* handed to shm, not completed */
	bool flushing;
	/* a send handed straight to the flusher it made (rxm_ep_shm_send:
	 * nothing listed, no flusher at work): written under the lock by
	 * the sending thread, taken by that same thread's flush right after
	 * it released the lock */
	struct rxm_shm_tx *direct;
	uint64_t posted;		/* operations shm took
					 * (rxm_ep_shm_posted) */
	struct rxm_shm_tx *free_small;	/* small records to reuse */
	unsigned nfree;
	/* 1 while pend is not empty: written under the lock, read by the
	 * flush before it takes the lock (relaxed: a hint; a 0 read late
	 * leaves the list to the next flush, which the progress pass
	 * makes) */
	pl_atomic_u32 listed;
	/* pthread_self() of the thread direct is for, 0 when none: written
	 * under the lock, read by every flush before it takes the lock
	 * (relaxed: only the thread named reads its own value, and no other
	 * thread can name itself while flushing holds) */
	pl_atomic_u64 direct_thread;
	/* pthread_self() of the flusher while it calls shm without our
	 * lock, 0 otherwise: written by the flusher, read by shm's
	 * completion callback (relaxed: only the thread named reads its own
	 * value). A completion shm writes inside such a call, on that same
	 * thread, is listed in ended (the flusher's alone) and ended when
	 * the flusher takes the lock again, instead of taking it once more
	 * itself. */
	pl_atomic_u64 posting_thread;
	struct rxm_shm_tx *ended;
};

/* rxm_ep_shm.c, under the lock: a record whose copy is copy bytes
 * (NULL: no memory), and its end without shm. */
struct rxm_shm_tx *rxm_shm_tx_get(struct rxm_ep_shm *sh, size_t copy);
void rxm_shm_tx_put(struct rxm_ep_shm *sh, struct rxm_shm_tx *t);
/* Under the lock: t goes last on the list for the next flush. */
void rxm_shm_tx_list(struct rxm_ep_shm *sh, struct rxm_shm_tx *t);

/* rxm_ep_shm_rma.c */
/* One RMA or atomic record to shm, WITHOUT our lock: as fi_writemsg
 * and the others answer (0, -FI_EAGAIN, -FI_E*). */
ssize_t rxm_shm_rma_post(struct rxm_ep_shm *sh, struct rxm_shm_tx *t);
/* Under the lock: the RMA record t goes over the core instead (its
 * peer has no shm endpoint): the transport's rma answer. */
int rxm_shm_rma_core(struct rxm_ep *ep, struct rxm_shm_tx *t);

#endif
