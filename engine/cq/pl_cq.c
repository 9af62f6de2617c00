/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The completion queue: open/close/control, the provider-side writes and
 * the wake-up protocol. The reads are in pl_cq_read.c; the layout and
 * the synchronization table in pl_cq_int.h.
 *
 * Entries. Successful completions go into a pl_spillq (a lock-free ring
 * plus an overflow list: never drops, blocks or reorders a completion)
 * as one fixed 56-byte struct pl_cq_ent, cut to the CQ's format on read.
 * Errors go to a separate mutex-protected list (they are rare) counted
 * by err_count; any read that finds err_count > 0 returns -FI_EAVAIL,
 * whatever successes are queued ("errors first": what the reference
 * does, and what fi_cq(3)'s "while an item is in the error queue" says).
 *
 * Strategy, chosen once at open from pl_domain_threading():
 *   FI_THREAD_SAFE (UNSPEC is mapped to it by the domain): mpmc dequeue;
 *   FI_THREAD_FID / ENDPOINT / COMPLETION / DOMAIN: the application
 *   serializes its calls on the CQ, so the single-consumer dequeue.
 * Writers are always many (application threads and the progress thread):
 * enqueue is always the multi-producer one.
 *
 * Wake-up protocol (no lost wake-up, no per-completion lock), the event
 * count of base's pl_evcount.h with several waiters on one word. A producer
 * must not take a mutex or write an eventfd when nobody can be asleep.
 * The CQ keeps one word, `armed`, that a consumer sets right before its
 * last look at the queue ahead of a sleep; a producer signals the
 * waitable only when it finds it set, and clears it as it does:
 *
 *   waiter (pl_cq_ready_for: through pl_cq_wait_pred, which sread's
 *   pl_waitable_wait_until calls after it read the waitable's seq under
 *   its lock, and through ready(), which pl_waitable_trywait calls after
 *   it drained the eventfd):
 *     A1  exchange(armed, 1)          acq_rel RMW
 *     F1  seq_cst fence
 *     A2  look at the queue (pl_spillq_empty_approx / count)
 *   producer (pl_cq_write):
 *     P1  enqueue (claims a ring position or counts an overflow node)
 *     F2  seq_cst fence
 *     A3  load armed                   relaxed
 *     A4  if 1: CAS(armed, 1 -> 0)     acq_rel RMW; if it won:
 *     P2  pl_waitable_signal()         (lock, seq++, eventfd, broadcast)
 *
 * Claim: a waiter never sleeps while an entry written before its sleep
 * sits in the queue. Take the waiter's last round (A1 store S, fence F1,
 * look A2 misses entry E of producer P). F1 and F2 are ordered in the
 * single total order of seq_cst operations. If F2 came first, A2 (after
 * F1) sees P1 (before F2): contradiction. So F1 came first and A3 reads S
 * or a later value of armed in its modification order. After S the only
 * writes are producers' winning A4 CASes to 0 and other waiters' A1
 * exchanges to 1, all RMWs, so they continue the release sequence headed
 * by S. Either P's A4 reads such a 1 and P signals, or some producer's A4
 * turned a 1 of that sequence into 0 and that producer signals. Its A4
 * acquire reads from the release sequence of S, so the waiter's seq read
 * (or eventfd drain), sequenced before A1, happens before that signal:
 * the signal bumps seq after the waiter read it (pl_waitable_wait does
 * not sleep, or wakes), or writes the eventfd after the drain (the fd the
 * application epolls is readable). One signal per arm is enough: a woken
 * waiter looks again, re-arming before it does (the look is A2 again).
 *
 * A CQ in a wait set (FI_WAIT_SET) is armed the same way: every wait of
 * the set (pl_wait_set_wait, pl_wait_set_trywait) reads the set's seq
 * under its lock, or drains its eventfd, and then calls ready() on every
 * member before it sleeps, which is A1-F1-A2; P2 is pl_waitable_signal,
 * which signals the set (its lock, seq++, eventfd). The argument above
 * holds with the set's seq and eventfd in place of the waitable's. The
 * set calls ready() only on a live member: pl_cq_open publishes the CQ
 * (pl_waitable_publish) once built, not at its first signal, which an
 * unarmed CQ would never send. Why it matters: rxm puts every core CQ of
 * a domain in one set, and a signal per completion (an eventfd write)
 * cost 0.5 us of a 3.4 us round trip.
 *
 * Where the application may block without fi_trywait or fi_cq_sread
 * (FI_WAIT_MUTEX_COND: a cond wait under the mutex) every write signals
 * (PL_CQ_WAKE_ALWAYS), the waitable's own lock-and-seq protocol then
 * guarantees the wake-up.
 * FI_WAIT_YIELD waiters never sleep: no signal at all. Errors always
 * signal (rare): their push happens before the signal, which is the
 * waitable's own guarantee.
 *
 * Edges, for cross-reference: A1 pairs with A4 (release sequence); F1
 * pairs with F2 (Dekker); E1 (release increment of err_count in
 * pl_cq_write_err) pairs with E2 (acquire loads in reads and ready());
 * E3 (decrement in readerr, under err_lock) pairs with E2 too;
 * R1 (acq_rel refs RMW) pairs with R2 (acquire load in close).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cq.h"
#include "pl_cq_int.h"
#include "pl_evcount.h"
#include "pl_domain.h"
#include "pl_fid_nosys.h"
#include "pl_progress.h"

size_t pl_cq_count_approx(struct pl_cq *cq)
{
	return pl_ring_count_approx(&cq->q.ring) +
	       pl_spillq_spilled_approx(&cq->q);
}

static struct pl_cq *pl_cq_of_waitable(struct pl_waitable *w)
{
	return (struct pl_cq *)((char *)w - offsetof(struct pl_cq, w));
}

/* The waiter's last look before a sleep: arm (A1, F1), then look (A2):
 * an error, or at least thresh entries (0 and 1 mean one). */
static bool pl_cq_ready_for(struct pl_cq *cq, size_t thresh)
{
	if (cq->wake == PL_CQ_WAKE_ARMED)
		/* A1 (acq_rel RMW, heads the release sequence A4 reads), F1
		 * (pairs with F2 in pl_cq_wake): pl_evcount.h's P1, P2 */
		pl_evcount_prepare_sync(&cq->armed, 1);
	/* E2: acquire, pairs with E1 in pl_cq_write_err */
	if (pl_load_acquire(&cq->err_count))
		return true;
	if (thresh <= 1)
		return !pl_spillq_empty_approx(&cq->q);
	return pl_cq_count_approx(cq) >= thresh;
}

/* The waitable's ready(): fi_trywait, wait and poll sets, plain waits. */
static bool pl_cq_ready(struct pl_waitable *w)
{
	return pl_cq_ready_for(pl_cq_of_waitable(w), 1);
}

bool pl_cq_wait_pred(struct pl_waitable *w, void *arg)
{
	return pl_cq_ready_for(pl_cq_of_waitable(w), *(const size_t *)arg);
}

/* After a successful enqueue (P1): F2, A3, A4, P2. */
static inline void pl_cq_wake(struct pl_cq *cq)
{
	switch (cq->wake) {
	case PL_CQ_WAKE_NEVER:
		return;
	case PL_CQ_WAKE_ALWAYS:
		pl_waitable_signal(&cq->w);
		return;
	case PL_CQ_WAKE_ARMED:
		/* F2 (pairs with F1 in pl_cq_ready), A3 (relaxed, the fence
		 * orders it), A4 (a CAS 1 -> 0, acq_rel, reads the release
		 * sequence of a waiter's A1): pl_evcount.h's N1, N2 */
		if (pl_evcount_notify(&cq->armed, 1, 0))
			pl_waitable_signal(&cq->w);
		return;
	}
}

static struct fi_ops pl_cq_fid_ops;

static struct pl_cq *pl_cq_checked(struct fid_cq *cq)
{
	if (!cq || cq->fid.fclass != FI_CLASS_CQ || cq->fid.ops != &pl_cq_fid_ops)
		return NULL;
	return pl_cq_of(cq);
}

static int pl_cq_push(struct pl_cq *cq, void *op_context, uint64_t flags,
		      size_t len, void *buf, uint64_t data, uint64_t tag,
		      fi_addr_t src_addr)
{
	struct pl_cq_ent e = {
		.op_context = op_context,
		.flags = flags,
		.len = len,
		.buf = buf,
		.data = data,
		.tag = tag,
		.src_addr = src_addr,
	};
	int ret;

	/* P1 */
	ret = cq->serial ? __pl_spillq_enqueue_sized(&cq->q, &e, sizeof(e)) :
			   pl_spillq_enqueue_mpmc(&cq->q, &e);
	if (PL_UNLIKELY(ret))
		return ret;
	pl_cq_wake(cq);
	return 0;
}

int pl_cq_write(struct fid_cq *fcq, void *op_context, uint64_t flags,
		size_t len, void *buf, uint64_t data, uint64_t tag,
		fi_addr_t src_addr)
{
	struct pl_cq *cq = pl_cq_checked(fcq);

	/* not a ring: a peer CQ (FI_PEER, pl_cq_import.c), or a bad fid
	 * that it refuses; the ring path keeps its one branch */
	if (PL_UNLIKELY(!cq))
		return pl_cq_import_write(fcq, op_context, flags, len, buf,
					  data, tag, src_addr);
	return pl_cq_push(cq, op_context, flags, len, buf, data, tag,
			  src_addr);
}

static int pl_cq_push_err(struct pl_cq *cq, const struct fi_cq_err_entry *err,
			  fi_addr_t src_addr)
{
	struct pl_cq_err_ent *e;
	size_t dlen;

	if (!err || !err->err || (err->err_data_size && !err->err_data))
		return -FI_EINVAL;
	dlen = err->err_data_size;
	e = malloc(sizeof(*e) + dlen);
	if (!e)
		return -FI_ENOMEM;
	e->next = NULL;
	e->err = *err;
	e->err.err = err->err < 0 ? -err->err : err->err;
	e->src_addr = src_addr;
	e->err.err_data = dlen ? e->data : NULL;
	if (dlen)
		memcpy(e->data, err->err_data, dlen);

	pthread_mutex_lock(&cq->err_lock);
	if (cq->err_tail)
		cq->err_tail->next = e;
	else
		cq->err_head = e;
	cq->err_tail = e;
	/* E1: release, pairs with E2 (the entry is linked before a reader
	 * that sees the count takes err_lock to fetch it) */
	pl_fetch_add_acq_rel(&cq->err_count, 1);
	pthread_mutex_unlock(&cq->err_lock);

	if (cq->wake != PL_CQ_WAKE_NEVER) {
		/* clear the arm (the signal below serves it) and signal
		 * unconditionally: the push happens before the signal */
		if (cq->wake == PL_CQ_WAKE_ARMED)
			pl_exchange_acq_rel(&cq->armed, 0);
		pl_waitable_signal(&cq->w);
	}
	return 0;
}

int pl_cq_write_err(struct fid_cq *fcq, const struct fi_cq_err_entry *err,
		    fi_addr_t src_addr)
{
	struct pl_cq *cq = pl_cq_checked(fcq);

	if (!cq)	/* a peer CQ, or refused there (see pl_cq_write) */
		return pl_cq_import_write_err(fcq, err, src_addr);
	return pl_cq_push_err(cq, err, src_addr);
}

void pl_cq_ref(struct fid_cq *fcq)
{
	struct pl_cq *cq = pl_cq_checked(fcq);

	/* R1: acq_rel, pairs with R2 in close */
	if (cq)
		pl_fetch_add_acq_rel(&cq->refs, 1);
	else
		(void)pl_cq_import_ref(fcq, 1);	/* a peer CQ, or ignored */
}

void pl_cq_unref(struct fid_cq *fcq)
{
	struct pl_cq *cq = pl_cq_checked(fcq);

	/* R1 */
	if (cq)
		pl_fetch_sub_acq_rel(&cq->refs, 1);
	else
		(void)pl_cq_import_ref(fcq, -1);
}

struct pl_waitable *pl_cq_waitable(struct fid_cq *fcq)
{
	struct pl_cq *cq = pl_cq_checked(fcq);

	return cq ? &cq->w : NULL;
}

/* ---- fi_peer(3): the owner side ---- */

static struct pl_cq *pl_cq_of_peer(struct fid_peer_cq *p)
{
	return (struct pl_cq *)((char *)p - offsetof(struct pl_cq, peer));
}

static ssize_t pl_cq_owner_write(struct fid_peer_cq *p, void *context,
				 uint64_t flags, size_t len, void *buf,
				 uint64_t data, uint64_t tag, fi_addr_t src)
{
	if (!p)
		return -FI_EINVAL;
	return pl_cq_push(pl_cq_of_peer(p), context, flags, len, buf, data,
			  tag, src);
}

static ssize_t pl_cq_owner_writeerr(struct fid_peer_cq *p,
				    const struct fi_cq_err_entry *err)
{
	if (!p)
		return -FI_EINVAL;
	return pl_cq_push_err(pl_cq_of_peer(p), err, FI_ADDR_NOTAVAIL);
}

static struct fi_ops_cq_owner pl_cq_owner_tbl = {
	.size = sizeof(struct fi_ops_cq_owner),
	.write = pl_cq_owner_write,
	.writeerr = pl_cq_owner_writeerr,
};

struct fi_ops_cq_owner *pl_cq_owner_ops(struct fid_cq *cq)
{
	return pl_cq_checked(cq) ? &pl_cq_owner_tbl : NULL;
}

struct fid_peer_cq *pl_cq_peer(struct fid_cq *fcq)
{
	struct pl_cq *cq = pl_cq_checked(fcq);

	return cq ? &cq->peer : NULL;
}

struct pl_cq *pl_cq_of_owner(struct fid_peer_cq *p)
{
	struct pl_cq *cq;

	/* only pl_cq_open makes a fid_peer_cq with our table, and it
	 * points the fid's context back at the CQ: both must hold before
	 * p is taken for ours (another provider may reuse the table) */
	if (!p || p->owner_ops != &pl_cq_owner_tbl ||
	    p->fid.fclass != FI_CLASS_PEER_CQ)
		return NULL;
	cq = pl_cq_of_peer(p);
	return p->fid.context == cq ? cq : NULL;
}

/* ---- fid ops ---- */

static void pl_cq_free(struct pl_cq *cq)
{
	struct pl_cq_err_ent *e, *next;

	for (e = cq->err_head; e; e = next) {
		next = e->next;
		free(e);
	}
	free(cq->err_hold);
	pl_waitable_fini(&cq->w);
	pthread_mutex_destroy(&cq->err_lock);
	pl_spillq_fini(&cq->q);
	free(cq);
}

static int pl_cq_close(struct fid *fid)
{
	struct pl_cq *cq = pl_cq_checked((struct fid_cq *)fid);
	struct pl_domain *dom;

	if (!cq)
		return -FI_EINVAL;
	/* R2: acquire, pairs with R1 */
	if (pl_load_acquire(&cq->refs) > 0)
		return -FI_EBUSY;
	dom = cq->dom;
	pl_cq_free(cq);
	pl_domain_child_put(dom);
	return 0;
}

static int pl_cq_control(struct fid *fid, int command, void *arg)
{
	struct pl_cq *cq = pl_cq_checked((struct fid_cq *)fid);

	if (!cq)
		return -FI_EINVAL;
	switch (command) {
	case FI_GETWAIT:
	case FI_GETWAITOBJ:
		return pl_waitable_control(&cq->w, command, arg);
	case FI_EXPORT_FID: {
		/* fi_export_fid: the owner side of fi_peer(3) for a provider
		 * outside this library, the fid_peer_cq it passes to its
		 * peer's fi_cq_open(FI_PEER); it lives as long as the CQ */
		struct fi_fid_export *exp = arg;

		if (!exp || !exp->fid || (exp->flags & ~FI_PEER))
			return -FI_EINVAL;
		*exp->fid = &cq->peer.fid;
		return 0;
	}
	default:
		return -FI_ENOSYS;
	}
}

static struct fi_ops pl_cq_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_cq_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_cq_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_cq pl_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = pl_cq_read,
	.readfrom = pl_cq_readfrom,
	.readerr = pl_cq_readerr,
	.sread = pl_cq_sread,
	.sreadfrom = pl_cq_sreadfrom,
	.signal = pl_cq_signal,
	.strerror = pl_cq_strerror,
};

/* ---- open ---- */

static int pl_cq_attr_check(const struct fi_cq_attr *attr)
{
	/* FI_AFFINITY: signaling_vector is a hint we may ignore; FI_PEER:
	 * a peer CQ (pl_cq_import.c), whose own checks follow */
	if (attr->flags & ~(uint64_t)(FI_AFFINITY | FI_PEER))
		return -FI_EINVAL;
	if ((unsigned)attr->format > FI_CQ_FORMAT_TAGGED)
		return -FI_EINVAL;
	switch (attr->wait_obj) {
	case FI_WAIT_NONE: case FI_WAIT_UNSPEC: case FI_WAIT_FD:
	case FI_WAIT_POLLFD: case FI_WAIT_MUTEX_COND: case FI_WAIT_YIELD:
		break;
	case FI_WAIT_SET:
		if (!attr->wait_set)
			return -FI_EINVAL;
		break;
	default:
		return -FI_EINVAL;
	}
	if (attr->wait_cond != FI_CQ_COND_NONE &&
	    attr->wait_cond != FI_CQ_COND_THRESHOLD)
		return -FI_EINVAL;
	/* a bound on what one open allocates (pl_cq.h) */
	if (attr->size > PL_CQ_MAX_SIZE)
		return -FI_EINVAL;
	return 0;
}

static size_t pl_cq_ring_size(size_t want)
{
	size_t n = 2;

	if (!want)
		want = PL_CQ_DEFAULT_SIZE;	/* <= PL_CQ_MAX_SIZE: checked */
	while (n < want)
		n <<= 1;
	return n;
}

/*
 * FI_WAIT_UNSPEC promises the application no native object (fi_cq(3)),
 * so it gets the cheapest one for fi_cq_sread: a mutex and condition
 * (no eventfd write on a wake-up); FI_GETWAITOBJ reports it as
 * FI_WAIT_MUTEX_COND. Its writes still use the armed protocol, because
 * only sread (and fi_trywait) wait on it.
 */
static enum pl_cq_wake pl_cq_wake_mode(enum fi_wait_obj w)
{
	switch (w) {
	case FI_WAIT_UNSPEC: case FI_WAIT_FD: case FI_WAIT_POLLFD:
	case FI_WAIT_SET:
		return PL_CQ_WAKE_ARMED;
	case FI_WAIT_MUTEX_COND:
		return PL_CQ_WAKE_ALWAYS;
	default:
		return PL_CQ_WAKE_NEVER;
	}
}

int pl_cq_open(struct fid_domain *d, struct fi_cq_attr *attr,
	       struct fid_cq **cq_p, void *context)
{
	struct fi_cq_attr def = {
		.format = FI_CQ_FORMAT_CONTEXT,
		.wait_obj = FI_WAIT_NONE,
	};
	struct pl_domain *dom = pl_domain_of(d);
	enum fi_threading th;
	enum fi_wait_obj kind;
	struct pl_cq *cq;
	size_t sz;
	int ret;

	if (!dom || !cq_p)
		return -FI_EINVAL;
	if (!attr)
		attr = &def;
	ret = pl_cq_attr_check(attr);
	if (ret)
		return ret;
	if (attr->flags & FI_PEER)
		return pl_cq_import_open(dom, attr, cq_p, context);

	sz = (sizeof(*cq) + PL_CACHELINE - 1) & ~(size_t)(PL_CACHELINE - 1);
	cq = aligned_alloc(PL_CACHELINE, sz);
	if (!cq)
		return -FI_ENOMEM;
	memset(cq, 0, sizeof(*cq));
	/* Only FI_THREAD_DOMAIN serializes every writer with every reader:
	 * under FI_THREAD_COMPLETION a read of another CQ of the domain may
	 * drive progress that writes this one while it is read; with auto
	 * progress the domain's thread writes. The owner ops (cq->peer)
	 * reach only propel's own layered providers (pl_cq_peer), whose
	 * progress runs inside this domain's, so they write in the same
	 * serialized calls; unless the provider writes from a thread of
	 * its own (pl_domain.own_writer_thread). A peer CQ of another
	 * domain is let in only on the same terms (pl_cq_import.c). */
	th = pl_domain_threading(d);
	cq->serial = pl_domain_serialized(dom);
	ret = pl_spillq_init(&cq->q, sizeof(struct pl_cq_ent),
			     pl_cq_ring_size(attr->size),
			     cq->serial ? PL_SPILLQ_F_SERIAL : 0);
	if (ret)
		goto err_free;

	cq->dom = dom;
	if (dom->data_progress != FI_PROGRESS_AUTO)
		cq->ctx = pl_domain_progress(d);
	/* a serial CQ is read one entry at a time, inline (pl_cq_read.c) */
	cq->deq = cq->serial ? NULL :
		  (th == FI_THREAD_SAFE || th == FI_THREAD_UNSPEC) ?
		  pl_spillq_dequeue_burst_mpmc : pl_spillq_dequeue_burst_mpsc;
	cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ?
		     FI_CQ_FORMAT_CONTEXT : attr->format;
	cq->wait_obj = attr->wait_obj;
	cq->wait_cond = attr->wait_cond;
	cq->wake = pl_cq_wake_mode(attr->wait_obj);
	cq->api_version = pl_domain_api_version(d);
	atomic_init(&cq->err_count, 0);
	atomic_init(&cq->refs, 0);
	atomic_init(&cq->armed, 0);

	kind = attr->wait_obj == FI_WAIT_UNSPEC ? FI_WAIT_MUTEX_COND :
		attr->wait_obj;
	ret = pl_waitable_init(&cq->w, kind,
			       kind == FI_WAIT_SET ? attr->wait_set : NULL,
			       cq->ctx, pl_cq_ready);
	if (ret)
		goto err_spillq;
	ret = pthread_mutex_init(&cq->err_lock, NULL);
	if (ret) {
		ret = -FI_ENOMEM;
		goto err_waitable;
	}

	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = &pl_cq_fid_ops;
	cq->cq_fid.ops = &pl_cq_ops;
	cq->peer.fid.fclass = FI_CLASS_PEER_CQ;
	cq->peer.fid.context = cq;
	/* the peer fid is only a handle for owner_ops: no fid ops */
	cq->peer.fid.ops = (struct fi_ops *)&pl_fid_nosys_fid_ops;
	cq->peer.owner_ops = &pl_cq_owner_tbl;
	pl_domain_child_get(dom);
	/* built: a wait set may look at us (armed protocol, above) */
	pl_waitable_publish(&cq->w);
	*cq_p = &cq->cq_fid;
	return 0;

err_waitable:
	pl_waitable_fini(&cq->w);
err_spillq:
	pl_spillq_fini(&cq->q);
err_free:
	free(cq);
	return ret;
}
