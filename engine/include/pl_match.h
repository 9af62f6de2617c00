/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_match: provider-independent receive matching for FI_EP_RDM endpoints
 * (fi_msg(3) and fi_tagged(3) semantics), used by shm and rxm. See
 * docs/matching.md.
 *
 * Two queue pairs per engine, one per kind (PL_MATCH_MSG, PL_MATCH_TAGGED):
 * posted receives and unexpected messages. The engine never moves payload:
 * it tells the provider which receive a message lands in (and where, and
 * how many bytes, and whether it is truncated); the provider copies or
 * pulls, writes the completion, then calls pl_match_done().
 *
 * Synchronization table (one engine; "no": never concurrently):
 *
 *                 post  arrive  rx_pull  cancel  done  set_min  init/fini
 *   post          no    no      no       no      no    no       no
 *   arrive        no    no      no       no      no    no       no
 *   rx_pull       no    no      no       no      no    no       no
 *   cancel        no    no      no       no      no    no       no
 *   done          no    no      no       no      no    no       no
 *   counts        no    no      no       no      no    no       no
 *
 *   "no" everywhere: every call on one engine runs under the owner's
 *   serialization (the provider's progress token or its endpoint lock).
 *   Debug builds (no NDEBUG) assert that no two calls overlap, which
 *   catches a missing lock as often as it is cheap to do so.
 *   Different engines are independent.
 *
 * Complexity: enqueue O(1). Tagged arrival: O(1 + b + w), where b is the
 * number of receives ahead in the exact tag's hash bucket that fail the
 * source check, and w the wildcard (ignore != 0) receives scanned before
 * the first match; posting order across both is kept by a sequence
 * number. Untagged arrival: O(position of first match). An exact tagged
 * post searches only its tag's bucket of unexpected messages (arrival
 * order kept per bucket); a wildcard or untagged post scans unexpected
 * messages in arrival order. Cancel: O(posted + buckets).
 */
#ifndef PROPEL_PL_MATCH_H
#define PROPEL_PL_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fabric.h>

#define PL_MATCH_IOV_MAX	4
#define PL_MATCH_INLINE_MAX	64

enum pl_match_kind { PL_MATCH_MSG = 0, PL_MATCH_TAGGED = 1, PL_MATCH_KINDS };

struct pl_match_link { struct pl_match_link *prev, *next; };

/* A posted receive. Fields are the engine's; the provider reads them. */
struct pl_match_rx {
	struct pl_match_link link;	/* posted list or hash bucket */
	uint64_t seq;			/* posting order */
	enum pl_match_kind kind;
	struct iovec iov[PL_MATCH_IOV_MAX];
	void *desc[PL_MATCH_IOV_MAX];
	size_t iov_count;
	size_t total;			/* sum of iov lengths */
	size_t used;			/* FI_MULTI_RECV: bytes consumed */
	void *context;
	uint64_t flags;
	uint64_t tag, ignore;
	fi_addr_t src;			/* FI_ADDR_UNSPEC: any */
	bool queued;
};

/* An unexpected message's header and the provider's handle to it. */
struct pl_match_unexp {
	struct pl_match_link link;	/* arrival order, per kind */
	struct pl_match_link hlink;	/* tagged: its tag's hash bucket */
	enum pl_match_kind kind;
	fi_addr_t src;
	uint64_t tag;
	size_t size;			/* full message length */
	uint64_t data;			/* remote CQ data */
	uint64_t flags;			/* FI_REMOTE_CQ_DATA, ... */
	void *prov;			/* provider handle (rendezvous, ...) */
	void *owner;			/* who received it (pl_match_hdr) */
	size_t inline_len;		/* bytes in inline_data, <= size */
	void *claim_context;		/* FI_PEEK|FI_CLAIM owner, else NULL */
	bool claimed;
	uint8_t inline_data[PL_MATCH_INLINE_MAX];
};

/* What a message arrives with. */
struct pl_match_hdr {
	fi_addr_t src;
	uint64_t tag;			/* ignored for PL_MATCH_MSG */
	size_t size;
	uint64_t data;
	uint64_t flags;
	void *prov;			/* kept in the unexpected entry */
	/* kept too: the endpoint the message arrived at, where one engine
	 * queues for several (a shared receive context) */
	void *owner;
	const void *inline_buf;		/* copied when inline_len <= max */
	size_t inline_len;
};

/* A receive as fi_recvmsg/fi_trecvmsg describe it. */
struct pl_match_recv {
	const struct iovec *iov;
	void **desc;			/* may be NULL */
	size_t iov_count;		/* <= PL_MATCH_IOV_MAX */
	fi_addr_t src;			/* FI_ADDR_UNSPEC unless directed */
	uint64_t tag, ignore;		/* tagged only */
	void *context;
	uint64_t flags;			/* FI_MULTI_RECV, FI_PEEK, FI_CLAIM,.. */
};

/*
 * One match: the message (ux, NULL on the arrival path: the provider has
 * the message in hand) lands in rx at byte offset `offset`, `len` bytes;
 * `olen` bytes do not fit (FI_ETRUNC with olen when > 0). multi_last:
 * the FI_MULTI_RECV buffer is released with this completion (set
 * FI_MULTI_RECV in its flags). discard: FI_CLAIM|FI_DISCARD, no data.
 */
struct pl_match_result {
	struct pl_match_rx *rx;
	struct pl_match_unexp *ux;
	size_t offset, len, olen;
	bool multi_last;
	bool discard;
};

struct pl_match_attr {
	size_t max_rx;		/* 0: unlimited (index space) */
	size_t max_unexp;	/* 0: unlimited */
	size_t hash_buckets;	/* power of two; 0: 256; 1: no hashing */
	size_t min_multi_recv;	/* FI_OPT_MIN_MULTI_RECV; 0: default 64 */
};

struct pl_match_queue {
	struct pl_match_link wild;	/* untagged: all; tagged: ignore != 0 */
	struct pl_match_link unexp;	/* arrival order */
	size_t posted, unexpected;
};

struct pl_match {
	struct pl_match_queue q[PL_MATCH_KINDS];
	struct pl_match_link *buckets;	/* tagged, ignore == 0 */
	struct pl_match_link *ux_buckets; /* tagged unexpected, by tag */
	size_t bucket_mask;
	uint64_t next_seq;
	size_t min_multi_recv;
	struct pl_bufpool *rx_pool, *ux_pool;
	int busy;			/* debug overlap check */
};

int pl_match_init(struct pl_match *m, const struct pl_match_attr *attr);
/* Frees every entry; provider handles in unexpected entries are the
 * provider's to release first (pl_match_unexp_next). */
void pl_match_fini(struct pl_match *m);

void pl_match_set_min_multi_recv(struct pl_match *m, size_t min);
size_t pl_match_get_min_multi_recv(const struct pl_match *m);

#define PL_MATCH_QUEUED		0	/* no match: entry queued */
#define PL_MATCH_MATCHED	1	/* *res_p filled */

/*
 * Post a receive. Without FI_PEEK/FI_CLAIM: matches the oldest fitting
 * unexpected message (PL_MATCH_MATCHED, res has rx and ux) or queues the
 * receive (PL_MATCH_QUEUED). With FI_PEEK: -FI_ENOMSG when nothing
 * matches (the provider writes an FI_ENOMSG error completion), else
 * PL_MATCH_MATCHED with res->ux (header for the completion) and rx NULL;
 * |FI_CLAIM reserves the message for context; |FI_DISCARD removes it
 * (res->discard; provider frees its payload, then pl_match_done). With
 * FI_CLAIM (no FI_PEEK): takes the message claimed with this context
 * (-FI_ENOMSG if none); |FI_DISCARD drops it.
 * Errors: -FI_EINVAL (iov_count), -FI_ENOMEM (pool at max).
 */
int pl_match_post(struct pl_match *m, enum pl_match_kind kind,
		  const struct pl_match_recv *r, struct pl_match_result *res_p);

/*
 * A message arrives: PL_MATCH_MATCHED with res (ux NULL) or
 * PL_MATCH_QUEUED (the header is queued; *ux_p, when not NULL, gets the
 * entry so the provider can attach more state). -FI_ENOMEM when the
 * unexpected pool is full (nothing queued: the provider applies
 * backpressure).
 */
int pl_match_arrive(struct pl_match *m, enum pl_match_kind kind,
		    const struct pl_match_hdr *h, struct pl_match_result *res_p,
		    struct pl_match_unexp **ux_p);

/*
 * The two halves of pl_match_arrive, for a provider that can place a
 * message without first making a record of it: take finds the posted
 * receive (PL_MATCH_MATCHED, res filled as by arrive) or answers
 * -FI_ENOMSG and changes nothing; queue_unexp queues the header without
 * searching (PL_MATCH_QUEUED, or -FI_ENOMEM as arrive). Call queue_unexp
 * only after a take that answered -FI_ENOMSG, with no receive posted in
 * between (the owner's serialization): it would otherwise queue a
 * message that a posted receive should have taken.
 */
int pl_match_take(struct pl_match *m, enum pl_match_kind kind,
		  const struct pl_match_hdr *h, struct pl_match_result *res_p);
int pl_match_queue_unexp(struct pl_match *m, enum pl_match_kind kind,
			 const struct pl_match_hdr *h,
			 struct pl_match_unexp **ux_p);

/* A multi-recv receive (res.rx of a MATCHED post without multi_last)
 * takes the next matching unexpected message: call until QUEUED or
 * multi_last. */
int pl_match_rx_pull(struct pl_match *m, struct pl_match_rx *rx,
		     struct pl_match_result *res_p);

/* The provider finished with a result (data copied, completion written):
 * frees the unexpected entry and the receive unless it is a multi-recv
 * buffer still posted, and leaves a peeked (not discarded) message
 * queued. Call it for every MATCHED result, in match order. */
void pl_match_done(struct pl_match *m, struct pl_match_result *res);

/* fi_cancel: removes the first posted receive with this context (both
 * kinds); 0 and *rx_p (write FI_ECANCELED, then pl_match_rx_free) or
 * -FI_ENOENT. */
int pl_match_cancel(struct pl_match *m, void *context,
		    struct pl_match_rx **rx_p);
void pl_match_rx_free(struct pl_match *m, struct pl_match_rx *rx);

/*
 * Queued unexpected messages whose sender was not known when they arrived
 * (src FI_ADDR_NOTAVAIL) take the address resolve() now gives them (it
 * may still be FI_ADDR_NOTAVAIL), so that a directed receive posted
 * after the sender's address was inserted matches them, and FI_SOURCE
 * reports it. Call before posting, under the owner's serialization.
 * Returns how many such messages stay without an address.
 */
size_t pl_match_unexp_resolve(struct pl_match *m,
			      fi_addr_t (*resolve)(void *arg,
						   const struct pl_match_unexp *ux),
			      void *arg);

/* Remove one queued unexpected message (its owner leaves a shared
 * engine) and free its entry; the caller released ux->prov first. */
void pl_match_unexp_drop(struct pl_match *m, struct pl_match_unexp *ux);

/* Walk unexpected entries (fini-time cleanup): prev NULL for the first. */
struct pl_match_unexp *pl_match_unexp_next(struct pl_match *m,
		enum pl_match_kind kind, struct pl_match_unexp *prev);

size_t pl_match_posted_count(const struct pl_match *m, enum pl_match_kind k);
size_t pl_match_unexp_count(const struct pl_match *m, enum pl_match_kind k);

static inline bool pl_match_tag(uint64_t want, uint64_t ignore, uint64_t tag)
{
	return ((want | ignore) == (tag | ignore));
}

#endif /* PROPEL_PL_MATCH_H */
