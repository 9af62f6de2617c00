/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_spillq: ring + overflow list, never dropping, blocking or reordering.
 *
 * Design. The overflow is Vyukov's intrusive MPSC queue: producers append
 * with one exchange on ovf_tail and one store (wait-free); the consumer
 * side walks from ovf_head with a stub node. Many consumers share that
 * single-consumer side through a try-lock (the _mpmc mode), which is off
 * the ring's fast path: a consumer that finds it held reads the ring
 * instead. Nodes come from a pl_bufpool (per-thread caches), so spilling
 * does not call malloc. urcu's wfcqueue would serve as well; the intrusive
 * queue needs no library and its consumer side is ours to extend with the
 * eligibility test below.
 *
 * Rules.
 *   R1 (producers) An entry goes to the ring only if ovf_count was 0 at
 *      the producer's check (S0) and the ring accepted it; otherwise to the
 *      overflow, counted (S1) before it is linked, and stamped with
 *      mark = the ring's tail position read after that (S2).
 *   R2 (consumers) An overflow node may be taken only when the ring's
 *      head position is >= its mark ("eligible"); the ring may always be
 *      read. The overflow is taken in list order; its count drops (S5)
 *      after the node is unlinked.
 *
 * Correctness argument: let enqueue(a) happen before enqueue(b).
 *  1. a, b both in the ring: pl_ring's FIFO (tail order) -- b's position
 *     is higher, and head order takes a first.
 *  2. a in the ring at position p, b in the overflow: a's claim of p
 *     happens before b's S2, so by coherence of the monotonic tail,
 *     mark(b) >= p + 1. b is taken only after some consumer read head >=
 *     mark(b) > p, i.e. after p was claimed by a's consumer; and any
 *     consumer that synchronizes with b's taker reads head past p too, so
 *     it can never claim p again.
 *  3. a, b both in the overflow: appends are ordered by the exchange on
 *     ovf_tail (a's happens before b's), the list is taken in order and
 *     b cannot be taken while a is ahead of it.
 *  4. a in the overflow, b in the ring: by R1 b's producer read
 *     ovf_count == 0 at S0, which is at or after a's increment S1 in the
 *     count's modification order (coherence), so a's decrement S5 came
 *     before it; S5 is a release RMW and S0 an acquire load reading it or
 *     a later RMW of its release sequence, so a's taking happens before
 *     enqueue(b), let alone dequeue(b).
 *  No entry is taken twice: the ring guarantees it for ring entries; a
 *  node leaves the list once, under the consumer-side exclusion.
 *  No entry is lost: R1 puts each entry in exactly one place; R2 never
 *  waits on the overflow for ring entries, and a node not yet eligible
 *  becomes so once the ring positions below its mark are taken, which
 *  consumers do by reading the ring (the only stall is pl_ring's own:
 *  a producer stopped between claiming and publishing a slot).
 *  Burst output alternates runs of eligible overflow entries and runs of
 *  ring entries, each appended in the order taken: by 2 an overflow
 *  entry's ring predecessors were claimed before its eligibility test,
 *  so they are earlier in this output or in another consumer's; by 4 a
 *  ring entry's overflow predecessors were taken before it was even
 *  enqueued.
 *
 * Node reuse: the consumer returns a node only once its next link is set
 * (Vyukov's condition), i.e. after the one producer that exchanged the
 * tail away from it has made its last access (O0). So freeing it right
 * after is safe.
 *
 * Synchronizing edges:
 *   O0 (append: release store prev->next)    pairs with O1
 *   O1 (take: acquire load of next)          pairs with O0; makes the
 *       node's entry, mark and its NULL next visible
 *   OX (append: acq_rel exchange of tail)    pairs with the previous
 *       appender's OX: its store next = NULL precedes our O0 on prev
 *   S0 (enqueue: acquire load of ovf_count)  pairs with S5 (argument 4)
 *   S5 (take: release decrement of count)    pairs with S0
 *   S1, S2 and the eligibility load of the ring head: relaxed, justified
 *       by coherence of a single variable (arguments 2 and 4)
 *   L0 (try-lock: acquire CAS)               pairs with L1
 *   L1 (unlock: release store)               pairs with L0; hands
 *       ovf_head and the list walk to the next consumer
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_bufpool.h"
#include "pl_spillq.h"

_Static_assert(sizeof(struct pl_spillq_link) % 8 == 0,
	       "entries after a link stay 8-byte aligned");

static inline void *pl_spillq_entry(struct pl_spillq_link *n)
{
	return n + 1;
}

int pl_spillq_init(struct pl_spillq *q, size_t entry_size,
		   size_t ring_capacity, uint32_t flags)
{
	struct pl_bufpool_attr attr = { 0 };
	int ret;

	if (!q || (flags & ~PL_SPILLQ_F_SERIAL))
		return -FI_EINVAL;
	ret = pl_ring_init(&q->ring, entry_size, ring_capacity);
	if (ret)
		return ret;
	attr.obj_size = sizeof(struct pl_spillq_link) + entry_size;
	attr.align = 8;
	attr.flags = (flags & PL_SPILLQ_F_SERIAL) ? PL_BUFPOOL_F_SERIAL : 0;
	ret = pl_bufpool_create(&attr, &q->pool);
	if (ret)
		goto err_ring_fini;

	atomic_init(&q->stub.next, NULL);
	q->stub.mark = 0;
	atomic_init(&q->ovf_tail, &q->stub);
	atomic_init(&q->ovf_count, 0);
	atomic_init(&q->ovf_lock, 0);
	q->ovf_head = &q->stub;
	q->entry_size = (uint32_t)entry_size;
	q->flags = flags;
	return 0;

err_ring_fini:
	pl_ring_fini(&q->ring);
	return ret;
}

void pl_spillq_fini(struct pl_spillq *q)
{
	if (!q)
		return;
	/* Nodes still listed belong to the pool and go with it. */
	pl_bufpool_destroy(q->pool);
	q->pool = NULL;
	pl_ring_fini(&q->ring);
}

/* Appends n (Vyukov's push). serial: the caller excludes everyone. */
static void pl_spillq_append(struct pl_spillq *q, struct pl_spillq_link *n,
			     bool serial)
{
	struct pl_spillq_link *prev;

	/* relaxed: published to consumers by O0, to the next appender by
	 * OX */
	pl_store_relaxed(&n->next, NULL);
	if (serial) {
		/* relaxed: one thread at a time */
		prev = pl_load_relaxed(&q->ovf_tail);
		pl_store_relaxed(&q->ovf_tail, n);
		pl_store_relaxed(&prev->next, n);
		return;
	}
	/* OX, acq_rel: pairs with the previous appender's OX */
	prev = pl_exchange_acq_rel(&q->ovf_tail, n);
	/* O0, release: pairs with O1; publishes n's mark and entry to the
	 * consumer that follows the link */
	pl_store_release(&prev->next, n);
}

/*
 * Unlinks the oldest node if it is eligible (R2). NULL: empty, oldest not
 * eligible yet, or an appender between OX and O0 (try again later). The
 * caller owns the consumer side (lock, single consumer, or serial).
 */
static struct pl_spillq_link *pl_spillq_take(struct pl_spillq *q, bool serial)
{
	struct pl_spillq_link *head = q->ovf_head;
	/* O1, acquire: pairs with O0 */
	struct pl_spillq_link *next = pl_load_acquire(&head->next);

	if (head == &q->stub) {
		if (!next)
			return NULL;
		q->ovf_head = head = next;
		/* O1, acquire: pairs with O0 */
		next = pl_load_acquire(&head->next);
	}
	/* R2 (relaxed head load, argument 2) */
	if (pl_ring_head_pos(&q->ring) < head->mark)
		return NULL;
	if (next) {
		q->ovf_head = next;
		return head;
	}
	/* relaxed: only compared; a stale value leads to the stub append,
	 * which is correct either way */
	if (pl_load_relaxed(&q->ovf_tail) != head)
		return NULL; /* an appender is linking after head */
	/* head is last: put the stub behind it so head can leave */
	pl_spillq_append(q, &q->stub, serial);
	/* O1, acquire: pairs with O0 (ours, or an appender's that beat us) */
	next = pl_load_acquire(&head->next);
	if (!next)
		return NULL;
	q->ovf_head = next;
	return head;
}

int pl_spillq_enqueue_mpmc(struct pl_spillq *q, const void *entry)
{
	struct pl_spillq_link *n;
	void *obj;
	int ret;

	/* S0, acquire: pairs with S5 (argument 4) */
	if (PL_LIKELY(pl_load_acquire(&q->ovf_count) == 0) &&
	    pl_ring_enqueue_mpmc(&q->ring, entry) == 0)
		return 0;
	ret = pl_bufpool_alloc(q->pool, &obj);
	if (ret)
		return ret;
	n = obj;
	memcpy(pl_spillq_entry(n), entry, q->entry_size);
	/* S1, relaxed: counted before linked, so the count never drops
	 * below the nodes listed; the S0/S5 edge does the ordering */
	pl_fetch_add_relaxed(&q->ovf_count, 1);
	/* S2: relaxed tail load (argument 2) */
	n->mark = pl_ring_tail_pos(&q->ring);
	pl_spillq_append(q, n, false);
	return 0;
}

int __pl_spillq_enqueue(struct pl_spillq *q, const void *entry)
{
	struct pl_spillq_link *n;
	void *obj;
	int ret;

	/* relaxed everywhere: the caller excludes every other operation */
	if (pl_load_relaxed(&q->ovf_count) == 0 &&
	    __pl_ring_enqueue(&q->ring, entry) == 0)
		return 0;
	ret = __pl_bufpool_alloc(q->pool, &obj);
	if (ret)
		return ret;
	n = obj;
	memcpy(pl_spillq_entry(n), entry, q->entry_size);
	pl_store_relaxed(&q->ovf_count, pl_load_relaxed(&q->ovf_count) + 1);
	n->mark = pl_ring_tail_pos(&q->ring);
	pl_spillq_append(q, n, true);
	return 0;
}

static bool pl_spillq_trylock(struct pl_spillq *q)
{
	int expected = 0;

	/* relaxed: a peek that spares the line a CAS bound to fail */
	if (pl_load_relaxed(&q->ovf_lock))
		return false;
	/* L0, acquire: pairs with L1 */
	return pl_cas_acquire(&q->ovf_lock, &expected, 1);
}

static void pl_spillq_unlock(struct pl_spillq *q)
{
	/* L1, release: pairs with L0 */
	pl_store_release(&q->ovf_lock, 0);
}

/*
 * Takes up to n eligible overflow entries into out, in list order, and
 * frees their nodes. locked: take the try-lock first (mpmc); serial:
 * caller-serialized (no RMW on the count).
 */
static size_t pl_spillq_drain_ovf(struct pl_spillq *q, unsigned char *out,
				  size_t n, bool locked, bool serial)
{
	struct pl_spillq_link *node, *done = NULL;
	size_t got = 0;

	/* relaxed: a stale 0 only skips the overflow this time; ring
	 * entries may always be taken (argument 4), and the node stays for
	 * the next call */
	if (!n || !pl_load_relaxed(&q->ovf_count))
		return 0;
	if (locked && !pl_spillq_trylock(q))
		return 0;
	while (got < n && (node = pl_spillq_take(q, serial))) {
		memcpy(out + got * q->entry_size, pl_spillq_entry(node),
		       q->entry_size);
		/* relaxed: the node is ours now; chain it for freeing */
		pl_store_relaxed(&node->next, done);
		done = node;
		got++;
	}
	if (locked)
		pl_spillq_unlock(q);
	if (!got)
		return 0;
	if (serial) {
		pl_store_relaxed(&q->ovf_count,
				 pl_load_relaxed(&q->ovf_count) - got);
	} else {
		/* S5, release: pairs with S0 (argument 4) */
		pl_fetch_sub_release(&q->ovf_count, (uint64_t)got);
	}
	while (done) {
		node = done;
		/* relaxed: our own chain */
		done = pl_load_relaxed(&node->next);
		if (serial)
			__pl_bufpool_free(q->pool, node);
		else
			pl_bufpool_free(q->pool, node);
	}
	return got;
}

enum pl_spillq_mode { PL_SPILLQ_MPMC, PL_SPILLQ_MPSC, PL_SPILLQ_SERIAL };

/*
 * Alternates between the overflow and the ring until n entries are taken
 * or neither gives anything: taking ring entries can make overflow nodes
 * eligible. The output order keeps the guarantee (see "Burst output").
 */
static ssize_t pl_spillq_take_n(struct pl_spillq *q, unsigned char *out,
				size_t n, enum pl_spillq_mode mode)
{
	size_t got = 0;

	while (got < n) {
		size_t o = pl_spillq_drain_ovf(q, out + got * q->entry_size,
					       n - got, mode == PL_SPILLQ_MPMC,
					       mode == PL_SPILLQ_SERIAL);
		unsigned char *dst;
		ssize_t k;

		got += o;
		if (got == n)
			break;
		dst = out + got * q->entry_size;
		if (mode == PL_SPILLQ_MPMC)
			k = pl_ring_dequeue_burst_mpmc(&q->ring, dst, n - got);
		else if (mode == PL_SPILLQ_MPSC)
			k = pl_ring_dequeue_burst_spsc(&q->ring, dst, n - got);
		else
			k = __pl_ring_dequeue_burst(&q->ring, dst, n - got);
		if (k <= 0) {
			if (!o)
				break;
			continue;
		}
		got += (size_t)k;
		/* relaxed: nothing spilled, nothing to revisit */
		if (!pl_load_relaxed(&q->ovf_count))
			break;
	}
	return got || !n ? (ssize_t)got : -FI_EAGAIN;
}

int pl_spillq_dequeue_mpmc(struct pl_spillq *q, void *out)
{
	ssize_t k = pl_spillq_take_n(q, out, 1, PL_SPILLQ_MPMC);

	return k < 0 ? (int)k : 0;
}

int pl_spillq_dequeue_mpsc(struct pl_spillq *q, void *out)
{
	ssize_t k = pl_spillq_take_n(q, out, 1, PL_SPILLQ_MPSC);

	return k < 0 ? (int)k : 0;
}

int __pl_spillq_dequeue(struct pl_spillq *q, void *out)
{
	ssize_t k = pl_spillq_take_n(q, out, 1, PL_SPILLQ_SERIAL);

	return k < 0 ? (int)k : 0;
}

ssize_t pl_spillq_dequeue_burst_mpmc(struct pl_spillq *q, void *out, size_t n)
{
	return pl_spillq_take_n(q, out, n, PL_SPILLQ_MPMC);
}

ssize_t pl_spillq_dequeue_burst_mpsc(struct pl_spillq *q, void *out, size_t n)
{
	return pl_spillq_take_n(q, out, n, PL_SPILLQ_MPSC);
}

ssize_t __pl_spillq_dequeue_burst(struct pl_spillq *q, void *out, size_t n)
{
	return pl_spillq_take_n(q, out, n, PL_SPILLQ_SERIAL);
}

bool pl_spillq_empty_approx(const struct pl_spillq *q)
{
	/* acquire: pairs with nothing here; the sleep/wake protocol of
	 * pl_ring_empty_approx (caller's seq_cst fences) covers both
	 * halves, an appender having counted (S1) before linking */
	return pl_load_acquire(&q->ovf_count) == 0 &&
	       pl_ring_empty_approx(&q->ring);
}

size_t pl_spillq_spilled_approx(const struct pl_spillq *q)
{
	/* relaxed: a statistic */
	return (size_t)pl_load_relaxed(&q->ovf_count);
}
