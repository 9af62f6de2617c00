/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The completion queue every provider uses (DESIGN.md section 3): a bounded lock-free ring of entries with an overflow path,
 * so that a full ring never loses or blocks a completion, and a separate
 * queue of error entries that surface as -FI_EAVAIL.
 *
 * Provider side: pl_cq_write*() from the data path (the progress source,
 * or an application thread completing an inject inline). Application
 * side: struct fi_ops_cq (read, readfrom, readerr, sread, sreadfrom,
 * signal, strerror). Under FI_PROGRESS_MANUAL a read first drives the
 * domain's progress context, so completions appear without a thread.
 *
 * The synchronization strategy is chosen once, at pl_cq_open, from the
 * domain's threading model (pl_domain_threading):
 *   FI_THREAD_SAFE / FI_THREAD_UNSPEC: many writers, many readers.
 *   FI_THREAD_DOMAIN / FI_THREAD_COMPLETION / FI_THREAD_ENDPOINT: the
 *     application serializes its own reads; the writers are the
 *     application threads and, under FI_PROGRESS_AUTO, the progress
 *     thread, which may run at the same time.
 * The synchronization table, with the ordering of each edge, is at the
 * top of pl_cq.c and in docs/synchronization.md.
 *
 * Wait objects: every kind of struct pl_waitable (engine/wait/pl_waitable.h):
 * FI_WAIT_NONE, UNSPEC, FD, POLLFD, SET, MUTEX_COND, YIELD, with
 * fi_control(FI_GETWAIT / FI_GETWAITOBJ) and fi_trywait through
 * pl_cq_waitable(). wait_cond FI_CQ_COND_THRESHOLD is honoured by sread.
 *
 * Lifetime: whatever binds the CQ (an endpoint, a peer) takes
 * pl_cq_ref(); fi_close refuses with -FI_EBUSY while references remain.
 *
 * fi_peer(3) both ways (docs/peer.md): pl_cq_peer() is the owner side a
 * CQ lends another provider; fi_cq_open with FI_PEER makes the peer
 * side, a CQ without entries whose every pl_cq_write / pl_cq_write_err
 * goes to the owner's callbacks (engine/cq/pl_cq_import.c). Providers
 * write both kinds through the same two calls.
 */
#ifndef PROPEL_PL_CQ_H
#define PROPEL_PL_CQ_H

#include <stdint.h>
#include <sys/types.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_ext.h>

struct pl_waitable;

/*
 * The largest fi_cq_attr.size a CQ accepts (entries): the ring is
 * allocated at open, 64 bytes an entry, so this bounds what one
 * fi_cq_open may take (64 MiB) whatever the application asks; beyond it
 * the open fails with -FI_EINVAL rather than allocating. A full ring
 * never loses a completion (the overflow takes the rest), so no
 * application needs more to be correct.
 */
#define PL_CQ_MAX_SIZE	(1u << 20)

/*
 * fi_cq_open for providers built on the engine: the provider's domain
 * ops point .cq_open here (or wrap it). attr NULL means the defaults
 * (FI_CQ_FORMAT_CONTEXT, FI_WAIT_NONE, a default size). Returns 0,
 * -FI_EINVAL (NULL cq_p, unknown format, wait_obj or wait_cond,
 * FI_WAIT_SET without a wait set, flags other than FI_AFFINITY and
 * FI_PEER, size above PL_CQ_MAX_SIZE), -FI_ENOMEM. d must be a pl_domain
 * (the CQ counts as its child).
 *
 * FI_PEER in attr->flags: a peer CQ (fi_peer(3)); context is a struct
 * fi_peer_cq_context (read during the call only) whose fid_peer_cq must
 * stay valid until the peer CQ closes. -FI_EINVAL as well for a context
 * that is NULL or short, an owner without owner_ops, with a short table
 * or without write / writeerr, a wait_obj other than NONE or UNSPEC, or
 * an engine owner CQ that takes the serial queue while d's writers are
 * not serialized with it (pl_domain_serialized). An engine owner CQ
 * (pl_cq_peer) is referenced until the peer CQ closes.
 */
int pl_cq_open(struct fid_domain *d, struct fi_cq_attr *attr,
	       struct fid_cq **cq_p, void *context);

/*
 * Write one successful completion, in the CQ's format (fields the format
 * lacks are dropped). src_addr is kept for fi_cq_readfrom; pass
 * FI_ADDR_NOTAVAIL when unknown. Never fails for lack of room (the
 * overflow path takes it); -FI_ENOMEM only when even that cannot
 * allocate. Wakes a waiter when one may sleep. On a peer CQ: the
 * owner's write(), whose negative return is passed back.
 */
int pl_cq_write(struct fid_cq *cq, void *op_context, uint64_t flags,
		size_t len, void *buf, uint64_t data, uint64_t tag,
		fi_addr_t src_addr);

/*
 * Write one error completion. err->err is a positive FI_E* value;
 * err->err_data (if any, err_data_size bytes) is copied, so the caller
 * keeps ownership. src_addr as above (fi_cq_readfrom returns
 * -FI_EAVAIL for it like any other read). On a peer CQ: the owner's
 * writeerr(), err->err made positive; src_addr has no field there and
 * is dropped.
 */
int pl_cq_write_err(struct fid_cq *cq, const struct fi_cq_err_entry *err,
		    fi_addr_t src_addr);

/* References held by bound objects; fi_close is -FI_EBUSY while > 0. */
void pl_cq_ref(struct fid_cq *cq);
void pl_cq_unref(struct fid_cq *cq);

/* The CQ's wait object (fi_trywait, wait sets); NULL when cq is not a
 * pl_cq. */
struct pl_waitable *pl_cq_waitable(struct fid_cq *cq);

/* The owner-side ops of fi_peer(3) over this CQ (write / writeerr), for
 * a peer provider that shares it; NULL when cq is not a pl_cq. */
struct fi_ops_cq_owner *pl_cq_owner_ops(struct fid_cq *cq);

/* The struct fid_peer_cq the owner hands to the peer provider in a
 * struct fi_peer_cq_context (fi_peer(3)): its owner_ops are
 * pl_cq_owner_ops(cq) and its writes land in this CQ. Lives as long as
 * the CQ (take pl_cq_ref while the peer uses it). NULL when cq is not a
 * pl_cq. */
struct fid_peer_cq *pl_cq_peer(struct fid_cq *cq);

#endif /* PROPEL_PL_CQ_H */
