/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Split copies: the receiver of a large CMA message and its sender copy
 * it together, from both ends (shared state: struct shm_split_job in
 * shm_layout.h).
 *
 * Why: a CMA message is otherwise one process_vm_readv by the receiver,
 * one core copying while the sender's core only waits for the
 * acknowledgement. Two cores move a large message about twice as fast
 * (prov/shm/docs/transport.md, "Split copies"), and every byte is still
 * copied once.
 *
 * How, for a message of n chunks (owner: the receiver; helper: the
 * sender):
 *  1. Only from a sender that a CMA read already worked for (a refusal
 *     is then unlikely; if it comes, step 4 turns it into the usual SAR
 *     resend once the helper is done).
 *  2. At delivery the owner publishes job j: len, chunk, its buffers,
 *     help_done = help_err = 0, then claim = gen' | 0 | n with a release
 *     store (P1), and queues SHM_OP_SPLIT(j, gen') to the sender. A full
 *     queue there only means no help.
 *  3. The owner takes chunk lo by CAS (lo + 1) and reads it; the helper
 *     takes chunk hi - 1 by CAS (hi - 1), writes it, and counts it in
 *     help_done (H3). Both stop when lo == hi.
 *  4. The owner finishes once lo == hi and help_done == n - hi (O1):
 *     every chunk the helper took is done with. After a helper error
 *     (help_err) the owner reads the helper's range [hi, n) itself.
 *     A refused read of ours becomes a SAR resend of the whole message.
 *  5. Then the sender's acknowledgement, then the reception's completion.
 *     The job is free again only after 4.
 *
 * Chunks are large (half the message, at least SHM_SPLIT_CHUNK_MIN):
 * here a process_vm_readv of 64 KiB moves data at half the speed of one
 * of 1 MiB, and a boundary that moved from message to message would make
 * the two caches pass a reused receive buffer's lines back and forth.
 * With two chunks the helper takes the back half if it comes in time,
 * and the owner does everything if it does not.
 *
 * Why it is correct:
 *  (1) A chunk is copied by one side (or redone by the owner after a
 *      helper error): lo only grows, hi only shrinks, each by a CAS that
 *      requires lo < hi, so [0, lo) and [hi, n) never overlap.
 *  (2) The helper never writes into a reception that completed: it
 *      copies only chunks it took with a CAS naming the job's gen, and
 *      the owner completes, and reuses the job under a new gen, only
 *      after help_done counts every one of them (4). A helper that reads
 *      the job while the owner reuses it may read two jobs' fields mixed;
 *      its CAS on the old gen then fails and it copies nothing.
 *  (3) The data is in place at completion: the helper's
 *      process_vm_writev returned before its acq_rel increment of
 *      help_done (H3), which the owner loads with acquire (O1).
 *  (4) The helper's source stays valid: its send completes only on the
 *      ACK, which the owner sends after 4 and which reaches the helper's
 *      queue after the SHM_OP_SPLIT that asked for help.
 *  (5) A dead helper holds the owner until the next liveness check only
 *      (shm_xfer_split_reap): the sender's memory is gone with it, so the
 *      reception fails with -FI_ECONNRESET, as a plain CMA read would.
 *
 * Threading: the owner's functions run under its endpoint's
 * serialization (its progress source), the helper's under the sender's.
 * Claims are relaxed CAS: they order no data, each side only learns
 * which chunks are its own; data order is P1/H1 and H3/O1.
 */
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "shm_cma.h"
#include "shm_cmd.h"
#include "shm_xfer_int.h"

#define SHM_SPLIT_CHUNK_MIN	(32u * 1024)
#define SHM_SPLIT_PAGE		4096u
#define SHM_SPLIT_IDX_MASK	((1ull << SHM_SPLIT_IDX_BITS) - 1)
#define SHM_SPLIT_GEN_SHIFT	(2 * SHM_SPLIT_IDX_BITS)

static inline uint64_t shm_split_word(uint64_t gen, uint64_t lo, uint64_t hi)
{
	return gen << SHM_SPLIT_GEN_SHIFT | lo << SHM_SPLIT_IDX_BITS | hi;
}

static inline uint64_t shm_split_gen(uint64_t w)
{
	return w >> SHM_SPLIT_GEN_SHIFT;
}

static inline uint64_t shm_split_lo(uint64_t w)
{
	return (w >> SHM_SPLIT_IDX_BITS) & SHM_SPLIT_IDX_MASK;
}

static inline uint64_t shm_split_hi(uint64_t w)
{
	return w & SHM_SPLIT_IDX_MASK;
}

static inline struct shm_split_job *shm_split_job_of(struct shm_xfer_rx *rx)
{
	return &rx->ep->region->split[rx->split_job];
}

/* Owner: take the first unclaimed chunk. */
static bool shm_split_take_front(struct shm_split_job *job, uint64_t *k_p)
{
	/* relaxed: claims order no data (see the header) */
	uint64_t w = pl_load_relaxed(&job->claim);

	do {
		if (shm_split_lo(w) >= shm_split_hi(w))
			return false;
	} while (!pl_cas_weak_relaxed(&job->claim, &w,
				      w + (1ull << SHM_SPLIT_IDX_BITS)));
	*k_p = shm_split_lo(w);
	return true;
}

/* Owner: take every chunk still unclaimed (an error, or closing). */
static void shm_split_take_rest(struct shm_split_job *job)
{
	/* relaxed: claims order no data; lo = hi leaves the helper no
	 * chunk (its CAS needs lo < hi) */
	uint64_t w = pl_load_relaxed(&job->claim);

	while (shm_split_lo(w) < shm_split_hi(w) &&
	       !pl_cas_weak_relaxed(&job->claim, &w,
			shm_split_word(shm_split_gen(w), shm_split_hi(w),
				       shm_split_hi(w))))
		;
}

/* Owner: read chunks [first, last) from the sender. 0 or -FI_E*. */
static int shm_split_read(struct shm_xfer_rx *rx, uint64_t len,
			  uint64_t chunk, uint64_t first, uint64_t last)
{
	struct iovec l[SHM_XFER_IOV_MAX], r[SHM_CMA_IOV_MAX],
		     src[SHM_CMA_IOV_MAX];
	uint64_t off = first * chunk, end = last * chunk;
	size_t i, lc, rc;
	ssize_t got;

	if (end > len)
		end = len;
	if (off >= end)
		return 0;
	for (i = 0; i < rx->u.cma.iov_cnt; i++) {
		src[i].iov_base = (void *)(uintptr_t)rx->u.cma.iov[i].base;
		src[i].iov_len = (size_t)rx->u.cma.iov[i].len;
	}
	lc = pl_iov_slice(rx->iov, rx->iov_count, off, end - off, l);
	rc = pl_iov_slice(src, rx->u.cma.iov_cnt, off, end - off, r);
	got = shm_cma_read(rx->u.cma.pid, l, lc, r, rc);
	return got < 0 ? (int)got : 0;
}

/* Owner: the first free job, or split_count when every one is busy. */
static uint32_t shm_split_free_job(const struct shm_xfer_ep *ep)
{
	uint32_t j;

	for (j = 0; j < ep->region->geo.split_count &&
		    (ep->split_busy & (1u << j)); j++)
		;
	return j;
}

int shm_xfer_split_start(struct shm_xfer_rx *rx, const struct iovec *local,
			 size_t lcnt, uint64_t len, uint64_t cap)
{
	struct shm_xfer_ep *ep = rx->ep;
	struct shm_rpeer *rp = rx->rpeer;
	uint64_t chunk, n, gen, w;
	struct shm_split_job *job;
	uint32_t j;
	size_t i;

	if (!ep->split_min || len < ep->split_min || !ep->cma || !rp ||
	    !rp->cma_read_ok || lcnt > SHM_CMA_IOV_MAX)
		return 0;
	/* half the message, in whole pages */
	chunk = (len / 2 + SHM_SPLIT_PAGE - 1) & ~(uint64_t)(SHM_SPLIT_PAGE - 1);
	if (chunk < SHM_SPLIT_CHUNK_MIN)
		chunk = SHM_SPLIT_CHUNK_MIN;
	n = (len + chunk - 1) / chunk;
	if (n < 2)
		return 0;
	j = shm_split_free_job(ep);
	if (j == ep->region->geo.split_count || shm_xfer_rpeer_map(ep, rp))
		return 0;

	for (i = 0; i < lcnt; i++)
		rx->iov[i] = local[i];
	rx->iov_count = lcnt;
	rx->cap = cap;
	rx->nchunks = n;
	rx->split_job = j;
	rx->split_status = 0;

	job = &ep->region->split[j];
	/* relaxed: only we write claim; a helper reads it (see P1) */
	w = pl_load_relaxed(&job->claim);
	gen = (shm_split_gen(w) + 1) & 0xffff;
	/* relaxed: published by P1 */
	pl_store_relaxed(&job->len, len);
	pl_store_relaxed(&job->chunk, chunk);
	pl_store_relaxed(&job->iov_cnt, (uint64_t)lcnt);
	for (i = 0; i < lcnt; i++) {
		pl_store_relaxed(&job->iov[i][0],
				 (uint64_t)(uintptr_t)local[i].iov_base);
		pl_store_relaxed(&job->iov[i][1], (uint64_t)local[i].iov_len);
	}
	pl_store_relaxed(&job->help_done, 0);
	pl_store_relaxed(&job->help_err, 0u);
	/* P1, release: pairs with H1 in shm_xfer_split_help */
	pl_store_release(&job->claim, shm_split_word(gen, 0, n));
	ep->split_busy |= 1u << j;
	/* ask the sender for help: job j, gen in cq_data; a full queue
	 * there only means no help */
	(void)shm_xfer_ack_ctl_send(ep, rp, SHM_OP_SPLIT, j,
		&(struct shm_ack){ .xfer_id = rx->xfer_id, .cookie = gen });

	ep->stats.split_rx++;
	rx->next = NULL;
	*ep->split_tail = rx;
	ep->split_tail = &rx->next;
	/* a delivery from the application's call: the copy is progress
	 * work, and the progress source may be asleep */
	shm_xfer_ep_self_poke(ep);
	return 1;
}

bool shm_xfer_split_full(const struct shm_xfer_ep *ep, uint64_t size)
{
	uint32_t jobs = ep->region->geo.split_count;

	return ep->split_min && size >= ep->split_min && ep->cma && jobs &&
	       shm_split_free_job(ep) == jobs;
}

/* Owner: lo == hi; is every chunk the helper took done with? */
static bool shm_split_settled(struct shm_xfer_rx *rx, struct shm_split_job *job)
{
	uint64_t hi = shm_split_hi(pl_load_relaxed(&job->claim));

	/* O1, acquire: pairs with H3 (its copies, and help_err, before) */
	return pl_load_acquire(&job->help_done) == rx->nchunks - hi;
}

/* Owner: acknowledge, complete and free a settled reception. */
static void shm_split_finish(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx)
{
	struct shm_split_job *job = shm_split_job_of(rx);
	uint64_t hi = shm_split_hi(pl_load_relaxed(&job->claim));
	uint64_t len = pl_load_relaxed(&job->len);
	int status = rx->split_status, rx_status;

	/* relaxed: ordered by O1 in shm_split_settled */
	if (!status && pl_load_relaxed(&job->help_err))
		/* the helper could not write to us: its range, by us */
		status = shm_split_read(rx, len, pl_load_relaxed(&job->chunk),
					hi, rx->nchunks);
	ep->split_busy &= ~(1u << rx->split_job);
	if (status == -FI_EPERM || status == -FI_ENOSYS) {
		/* the kernel refuses us this sender after all: the whole
		 * message again, by SAR (nobody writes into it any more) */
		shm_xfer_rx_cma_refused(rx);
		return;
	}
	rx_status = status ? status : (rx->size > rx->cap ? -FI_ETRUNC : 0);
	/* our side first (the receive's completion, an RMA write's
	 * events), so that the sender's completion implies it */
	shm_xfer_rx_done_cb(ep, rx, rx_status, status ? 0 : len);
	/* the sender's status: its buffer was read, or the copy failed */
	shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, status, 0, 0);
	shm_xfer_rx_free(rx);
}

/* Unlink rx, found at *pp, from the owner's list. */
static void shm_split_unlink(struct shm_xfer_ep *ep, struct shm_xfer_rx **pp,
			     struct shm_xfer_rx *rx)
{
	*pp = rx->next;
	if (!rx->next)
		ep->split_tail = pp;
}

int shm_xfer_split_progress(struct shm_xfer_ep *ep, unsigned budget)
{
	struct shm_xfer_rx **pp = &ep->split_rx, *rx;
	unsigned done = 0;

	while ((rx = *pp) && done < budget) {
		struct shm_split_job *job = shm_split_job_of(rx);
		uint64_t len = pl_load_relaxed(&job->len);
		uint64_t chunk = pl_load_relaxed(&job->chunk), k;
		int ret;

		while (done < budget && shm_split_take_front(job, &k)) {
			ret = shm_split_read(rx, len, chunk, k, k + 1);
			ep->stats.split_chunks_own++;
			done++;
			if (ret && !rx->split_status) {
				/* the message failed: no more copies */
				rx->split_status = ret;
				shm_split_take_rest(job);
			}
		}
		if (done >= budget)
			break;
		if (!shm_split_settled(rx, job)) {
			/* the helper is in a system call for us */
			pp = &rx->next;
			continue;
		}
		shm_split_unlink(ep, pp, rx);
		shm_split_finish(ep, rx);
		done++;
	}
	return (int)done;
}

void shm_xfer_split_help(struct shm_xfer_ep *ep, const struct shm_cmd *cmd)
{
	uint32_t idx = (uint32_t)cmd->xfer_id;
	uint32_t tgen = (uint32_t)(cmd->xfer_id >> 32);
	struct iovec dst[SHM_CMA_IOV_MAX], l[SHM_XFER_IOV_MAX],
		     r[SHM_CMA_IOV_MAX];
	uint64_t w, gen = cmd->cq_data, len, chunk, cnt, n, off, clen;
	struct shm_split_job *job;
	struct shm_region *reg;
	unsigned copied = 0;
	bool took = false;
	struct shm_tx *tx;
	size_t i, lc, rc;
	ssize_t got;

	if (idx >= ep->tx_count)
		return;
	tx = &ep->tx[idx];
	/* stale (the send completed) or not a CMA send: nothing to help */
	if (tx->gen != tgen || tx->state != SHM_TX_ACK || !tx->cma)
		return;
	reg = tx->peer->region;
	/* read once: the index checked is the index used */
	w = shm_cmd_once_u64(&cmd->tag);
	if (w >= reg->geo.split_count)
		return;
	job = &reg->split[w];
	/* H1, acquire: pairs with P1 (the job's fields) */
	w = pl_load_acquire(&job->claim);
	if (shm_split_gen(w) != gen)
		return;		/* the owner finished and moved on */
	/* relaxed: see shm_layout.h; a reused job fails our CAS below */
	len = pl_load_relaxed(&job->len);
	chunk = pl_load_relaxed(&job->chunk);
	cnt = pl_load_relaxed(&job->iov_cnt);
	if (!chunk || cnt > SHM_CMA_IOV_MAX || len > tx->size)
		return;
	for (i = 0; i < cnt; i++) {
		dst[i].iov_base =
			(void *)(uintptr_t)pl_load_relaxed(&job->iov[i][0]);
		dst[i].iov_len = (size_t)pl_load_relaxed(&job->iov[i][1]);
	}
	n = (len + chunk - 1) / chunk;
	while (shm_split_gen(w) == gen && shm_split_lo(w) < shm_split_hi(w) &&
	       shm_split_hi(w) <= n) {
		/* relaxed: claims order no data */
		if (!pl_cas_weak_relaxed(&job->claim, &w, w - 1))
			continue;
		took = true;
		off = (shm_split_hi(w) - 1) * chunk;
		clen = len - off < chunk ? len - off : chunk;
		lc = pl_iov_slice(tx->iov, tx->iov_count, off, clen, l);
		rc = pl_iov_slice(dst, (size_t)cnt, off, clen, r);
		got = shm_cma_write(reg->geo.owner_pid, l, lc, r, rc);
		if (got < 0)
			/* H2, release: before H3, read after O1 */
			pl_store_release(&job->help_err, (uint32_t)-got);
		/* H3, acq_rel: pairs with O1; our copy is done */
		pl_fetch_add_acq_rel(&job->help_done, 1);
		if (got < 0)
			break;
		copied++;
		w = pl_load_relaxed(&job->claim);
	}
	ep->stats.split_chunks_help += copied;
	if (took)
		/* an owner asleep waits for help_done */
		shm_xfer_ep_poke(ep, reg, &tx->peer->wake);
}

void shm_xfer_split_reap(struct shm_xfer_ep *ep)
{
	struct shm_xfer_rx **pp = &ep->split_rx, *rx;

	while ((rx = *pp)) {
		if (shm_xfer_live_rx_sender(rx)) {
			pp = &rx->next;
			continue;
		}
		/* a dead helper writes no more: nothing to wait for */
		shm_split_take_rest(shm_split_job_of(rx));
		shm_split_unlink(ep, pp, rx);
		ep->split_busy &= ~(1u << rx->split_job);
		shm_xfer_rx_done_cb(ep, rx, -FI_ECONNRESET, 0);
		shm_xfer_rx_free(rx);
	}
}

void shm_xfer_split_abandon(struct shm_xfer_ep *ep)
{
	struct shm_xfer_rx *rx;

	while ((rx = ep->split_rx)) {
		struct shm_split_job *job = shm_split_job_of(rx);

		ep->split_rx = rx->next;
		shm_split_take_rest(job);
		/* The helper may be writing a chunk into the buffer that the
		 * application frees once we are closed: wait for it. Each
		 * chunk is one bounded system call; a dead helper writes
		 * nothing more. The count it publishes lives in our region,
		 * where any process can write it: a count that never
		 * settles must not keep us here, so the wait is bounded
		 * (SHM_SPLIT_CLOSE_WAIT polls of 100 us, far beyond one
		 * chunk's copy by a helper that runs). */
		for (unsigned w = 0; w < SHM_SPLIT_CLOSE_WAIT &&
		     !shm_split_settled(rx, job) &&
		     shm_xfer_live_rx_sender(rx); w++)
			usleep(100);
		ep->split_busy &= ~(1u << rx->split_job);
		shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, -FI_ECONNRESET, 0, 0);
		shm_xfer_rx_free(rx);
	}
	ep->split_tail = &ep->split_rx;
}
