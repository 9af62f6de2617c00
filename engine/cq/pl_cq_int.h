/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CQ object's private layout, shared by pl_cq.c (open, close,
 * control, the provider-side writes, the wake-up protocol) and
 * pl_cq_read.c (the application-side reads). Internal: never included
 * outside engine/.
 *
 * Synchronization table (who touches each field):
 *   field                 writer                   readers          ordering
 *   cq_fid, peer, dom,
 *   ctx, deq, format,
 *   wait_obj, wait_cond,
 *   wake, api_version     pl_cq_open only          any thread       open happens before the fid is handed out
 *   q (struct pl_spillq)  producers: enqueue_mpmc  consumers: deq   pl_spillq's own (slot release/acquire);
 *                         (serial: __enqueue_      (serial:         serial: the application's own
 *                         sized)                   __dequeue_sized)
 *   armed                 waiters (A1 xchg 1),     producers (A3)   see "wake-up protocol" in pl_cq.c
 *                         producers (A4 xchg 0)
 *   err_count             write_err (+1), readerr  every read       release RMW / acquire load (E1/E2)
 *                         (-1), under err_lock
 *   err_head/tail, hold   under err_lock           under err_lock   mutex
 *   refs                  ref/unref, any thread    close            acq_rel RMW / acquire load
 *   w (pl_waitable)       pl_waitable_* only       pl_waitable_*    its own lock (pl_waitable.h)
 *
 * Operations that may run at the same time on one CQ:
 *                 write/write_err  read/readfrom/sread  readerr  trywait  signal  close
 *   write         yes              yes                  yes      yes      yes     no
 *   read (safe)   yes              yes                  yes      yes      yes     no
 *   read (sc)     yes              no (app serializes)  no       yes      yes     no
 *   readerr       yes              yes(safe)/no(sc)     no (1)   yes      yes     no
 * "safe": FI_THREAD_SAFE/UNSPEC domains (mpmc dequeue); "sc": FI_THREAD_
 * FID/ENDPOINT/COMPLETION/DOMAIN (single-consumer dequeue). (1) fi_cq(3)
 * asks the application to serialize error processing (the err_data
 * buffer a readerr hands out lives until the next readerr); two
 * concurrent readerr calls are still memory-safe (err_lock), only the
 * handed-out buffer may be replaced.
 */
#ifndef PROPEL_PL_CQ_INT_H
#define PROPEL_PL_CQ_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_ext.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_cq.h"
#include "pl_spillq.h"
#include "pl_waitable.h"

struct pl_domain;
struct pl_progress_ctx;

/* The one internal entry every format is cut from: the fields of struct
 * fi_cq_tagged_entry, in its order, plus the source address. */
struct pl_cq_ent {
	void *op_context;
	uint64_t flags;
	size_t len;
	void *buf;
	uint64_t data;
	uint64_t tag;
	fi_addr_t src_addr;
};

_Static_assert(sizeof(struct pl_cq_ent) == 56, "slot = 8 + 56 bytes");

/* An error completion; err.err_data points at data[] when
 * err.err_data_size > 0. */
struct pl_cq_err_ent {
	struct pl_cq_err_ent *next;
	struct fi_cq_err_entry err;
	fi_addr_t src_addr;
	unsigned char data[];
};

/* How a successful write wakes a waiter (chosen at open from wait_obj). */
enum pl_cq_wake {
	PL_CQ_WAKE_NEVER,	/* FI_WAIT_NONE, FI_WAIT_YIELD: nobody sleeps */
	PL_CQ_WAKE_ARMED,	/* UNSPEC, FD, POLLFD: only when armed */
	PL_CQ_WAKE_ALWAYS,	/* MUTEX_COND, SET: every write signals */
};

typedef ssize_t (*pl_cq_deq_fn)(struct pl_spillq *q, void *out, size_t n);

struct pl_cq {
	struct fid_cq cq_fid;		/* first: the fid is the object */
	struct fid_peer_cq peer;	/* fi_peer(3) owner side */
	struct pl_domain *dom;
	struct pl_progress_ctx *ctx;	/* manual progress only, else NULL */
	pl_cq_deq_fn deq;		/* mpmc or mpsc, chosen at open; NULL
					 * when serial (read inline) */
	/* FI_THREAD_DOMAIN with manual progress: every write happens in a
	 * call the application serializes with every read (no progress
	 * thread exists), so the queue takes the __ (serial) operations
	 * and a write costs no atomic read-modify-write. The wake-up
	 * protocol is unchanged. */
	bool serial;
	enum fi_cq_format format;	/* never UNSPEC after open */
	enum fi_wait_obj wait_obj;	/* as the application asked */
	enum fi_cq_wait_cond wait_cond;
	enum pl_cq_wake wake;
	uint32_t api_version;
	pl_atomic_u64 err_count;	/* read by every read, written rarely */
	pl_atomic_int refs;

	/* Written by sleeping consumers, read by every producer. */
	pl_atomic_u32 armed PL_CACHE_ALIGNED;

	pthread_mutex_t err_lock PL_CACHE_ALIGNED;
	struct pl_cq_err_ent *err_head;	/* under err_lock */
	struct pl_cq_err_ent *err_tail;	/* under err_lock */
	struct pl_cq_err_ent *err_hold;	/* last one read; under err_lock */

	struct pl_waitable w;

	struct pl_spillq q PL_CACHE_ALIGNED;
};

#define PL_CQ_DEFAULT_SIZE 1024

static inline struct pl_cq *pl_cq_of(struct fid_cq *cq)
{
	return (struct pl_cq *)cq;
}

/* pl_cq_read.c: the ops tables' application side. */
ssize_t pl_cq_read(struct fid_cq *cq, void *buf, size_t count);
ssize_t pl_cq_readfrom(struct fid_cq *cq, void *buf, size_t count,
		       fi_addr_t *src_addr);
ssize_t pl_cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
		      uint64_t flags);
ssize_t pl_cq_sread(struct fid_cq *cq, void *buf, size_t count,
		    const void *cond, int timeout);
ssize_t pl_cq_sreadfrom(struct fid_cq *cq, void *buf, size_t count,
			fi_addr_t *src_addr, const void *cond, int timeout);
int pl_cq_signal(struct fid_cq *cq);
const char *pl_cq_strerror(struct fid_cq *cq, int prov_errno,
			   const void *err_data, char *buf, size_t len);

/* pl_cq_import.c: the CQ fi_cq_open makes with FI_PEER (fi_peer(3),
 * docs/peer.md), whose completions go to the owner's callbacks. open:
 * dom and attr already checked by pl_cq_open. The write and ref entries
 * are pl_cq.c's fallbacks for a fid that is not a ring CQ: -FI_EINVAL
 * (write) or false (ref) when cq is not a peer CQ either. */
int pl_cq_import_open(struct pl_domain *dom, const struct fi_cq_attr *attr,
		      struct fid_cq **cq_p, void *context);
int pl_cq_import_write(struct fid_cq *cq, void *op_context, uint64_t flags,
		       size_t len, void *buf, uint64_t data, uint64_t tag,
		       fi_addr_t src_addr);
int pl_cq_import_write_err(struct fid_cq *cq,
			   const struct fi_cq_err_entry *err,
			   fi_addr_t src_addr);
bool pl_cq_import_ref(struct fid_cq *cq, int delta);

/* pl_cq.c: the ring CQ whose pl_cq_peer() p is, or NULL when p is not
 * one of ours (a foreign owner). */
struct pl_cq *pl_cq_of_owner(struct fid_peer_cq *p);

/* pl_cq.c: the condition sread passes to pl_waitable_wait_until; arg
 * points at its size_t threshold. Arms the CQ like ready() does. */
bool pl_cq_wait_pred(struct pl_waitable *w, void *arg);
/* pl_cq.c: entries queued now (a hint: ring claims + overflow). */
size_t pl_cq_count_approx(struct pl_cq *cq);

#endif /* PROPEL_PL_CQ_INT_H */
