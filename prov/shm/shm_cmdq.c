/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MPSC command queue over shared memory.
 *
 * Position p is served by slot p mod N. Each slot has two words on
 * different lines: its claim word, in the claim table, which producers
 * CAS from the slot's previous round to CLAIMED(p, pid); and its state
 * word, at the start of the command, where the producer stores READY(p)
 * once the command is written and the consumer polls. The consumer never
 * writes a slot: it publishes how far it has read in ctl->head, and a
 * producer reads that (rarely: it keeps the last value) to know that a
 * slot's previous command was consumed. `tail` is only a hint.
 *
 * Why two words: the consumer spins on the line of the next slot. When
 * the claim was a CAS on that very line, the consumer's next read,
 * already queued behind the producer's request for the line, took it
 * back between the CAS and the writes that followed, and the producer
 * had to fetch it again (two more transfers on every message of a
 * ping-pong: docs/transport.md, "The claim's window"). Now the producer
 * CASes a line the consumer does not read, and then writes the polled
 * line with plain stores only.
 *
 * Why it is correct:
 *  (1) Exactly once. A position p is handed to one producer: the only
 *      way to claim it is the CAS of slot p mod N's claim word from the
 *      previous round's value (FREE(p) before the first round,
 *      CLAIMED(p - N, any pid) after) to CLAIMED(p, pid), and a CAS
 *      succeeds once; positions only grow. The consumer takes positions
 *      strictly in order (cons_head) and moves past p after reading it
 *      once.
 *  (2) No overwrite. A producer claims p only after it loaded ctl->head
 *      > p - N (acquire, A1), and the consumer stores head = p - N + 1
 *      (release, A2) after it finished reading round p - N. So the new
 *      writes happen after the old reads. A head not yet past p - N
 *      means the queue is full: -FI_EAGAIN, nothing written.
 *  (3) Visibility. The producer stores READY(p) with release (R1) after
 *      writing the command; the consumer loads it with acquire (R2):
 *      every byte of the command is visible before the consumer reads
 *      any. A READY of an older round (the slot's previous command,
 *      never cleared) names another position and is not taken.
 *  (4) The tail hint. Invariant: every position below tail is claimed.
 *      A producer claims only the position it read from tail, so
 *      positions are claimed in order, and position q claimed means all
 *      positions up to q are. tail is written two ways, both keeping
 *      the invariant (relaxed: it orders nothing, it is re-validated
 *      against the claim words): the claimer of p stores p + 1 after
 *      its commit if tail still reads p (a plain store: tail may move
 *      back behind a racing helper, never past an unclaimed position);
 *      a producer that finds the claim word of its position at q >= p
 *      CASes tail from p to q + 1. So a producer that dies between its
 *      claim and its commit never stalls the others, and a hint that
 *      fell behind catches up a round at a time.
 *  (5) A dead claimer. A producer that dies between claim and commit
 *      leaves the head's claim word at CLAIMED(p, pid) and its state word
 *      short of READY(p). After SHM_CMDQ_STALL_CHECK empty peeks the
 *      consumer looks at the claim word, checks pid (dead: kill() says
 *      ESRCH, or a zombie) and moves past p, counting it dropped. A dead
 *      process commits nothing later, so no store of it can land in the
 *      slot once the next round owns it.
 * Positions are 40 bits in the words and compared modulo 2^40: a
 * producer would have to stall for 2^40 operations to see an ABA.
 */
#include <assert.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_proc.h"
#include "shm_cmdq.h"

/*
 * ThreadSanitizer sees one process. What orders a producer's writes of
 * round p + N after the writes of round p (2) runs through the consumer,
 * often another process: R1 here, R2 and A2 there, A1 here. Two threads
 * of one producing process then look unordered to it. These annotations
 * state that edge on the slot itself: the commit releases it, the next
 * claim of the slot acquires it. They cost nothing outside TSan builds.
 */
#if defined(__SANITIZE_THREAD__)
#define SHM_CMDQ_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHM_CMDQ_TSAN 1
#endif
#endif
#ifdef SHM_CMDQ_TSAN
#include <sanitizer/tsan_interface.h>
#define shm_cmdq_tsan_release(p)	__tsan_release(p)
#define shm_cmdq_tsan_acquire(p)	__tsan_acquire(p)
#else
#define shm_cmdq_tsan_release(p)	((void)(p))
#define shm_cmdq_tsan_acquire(p)	((void)(p))
#endif

/* (a - b) as a signed distance modulo 2^40 */
static inline int64_t shm_pos_diff(uint64_t a, uint64_t b)
{
	uint64_t d = (a - b) & SHM_POS_MASK;

	return d & (1ull << (SHM_CMDQ_POS_BITS - 1)) ?
		(int64_t)d - (int64_t)(1ull << SHM_CMDQ_POS_BITS) : (int64_t)d;
}

/* Is claim word st the previous round of position pos (so that pos may
 * be claimed once the consumer is past pos - n)? */
static inline bool shm_claim_prev(uint64_t st, uint64_t pos, uint32_t n)
{
	if (shm_st_phase(st) == SHM_PH_FREE)
		return shm_st_pos(st) == (pos & SHM_POS_MASK);
	return shm_st_phase(st) == SHM_PH_CLAIMED &&
	       shm_st_pos(st) == ((pos - n) & SHM_POS_MASK);
}

/* Has the consumer read position pos - n, so that pos's slot is free? A1:
 * the acquire loads pair with the consumer's release of ctl->head (A2),
 * directly or through another thread of ours that stored prod_head
 * (release) after its own A1. */
static bool shm_claim_room(struct shm_region *r, uint64_t pos, uint32_t n)
{
	uint64_t head = pl_load_acquire(&r->prod_head);

	if (pos - head < n)
		return true;
	head = pl_load_acquire(&r->ctl->head);
	pl_store_release(&r->prod_head, head);
	return pos - head < n;
}

int shm_cmdq_claim(struct shm_region *r, uint32_t pid, struct shm_cmd **cmd_p)
{
	uint32_t mask = r->slot_mask, n = mask + 1;
	pl_atomic_u64 *cw;
	uint64_t pos, st, exp;
	int64_t d;

	/* acquire: pairs with the release store of CLOSING in
	 * shm_region_close; a closing owner takes no more commands. */
	if (pl_load_acquire(&r->hdr->state) != SHM_REGION_READY)
		return -FI_ECONNREFUSED;
	/* relaxed: a hint (4) */
	pos = pl_load_relaxed(&r->ctl->tail);
	for (;;) {
		cw = &r->claims[pos & mask];
		/* relaxed: judged here, re-checked by the CAS. The claim
		 * line is the producers' own: with one producer it stays in
		 * its cache, and a read first costs nothing */
		st = pl_load_relaxed(cw);
		if (shm_claim_prev(st, pos, n)) {
			if (!shm_claim_room(r, pos, n))
				return -FI_EAGAIN;	/* full (2) */
			/* No prefetch of the command's line: without
			 * prefetchw it would fetch the line shared, and the
			 * stores would then need it a second time. */
			/* acquire, though A1 in shm_claim_room already
			 * ordered our writes after the consumer's reads; on
			 * failure st holds the word (relaxed) */
			if (pl_cas_acquire(cw, &st, shm_st(SHM_PH_CLAIMED,
							   pos, pid))) {
				*cmd_p = shm_region_slot(r,
						(uint32_t)(pos & mask));
				shm_cmdq_tsan_acquire(*cmd_p);
				return 0;
			}
		}
		/* Not the previous round, or a lost CAS (a strong CAS fails
		 * only on another value): position pos + d is claimed. */
		d = shm_st_phase(st) == SHM_PH_FREE ? -1 :
		    shm_pos_diff(shm_st_pos(st), pos);
		if (d < 0)
			return -FI_EAGAIN;	/* older than the previous
						 * round: cannot happen (4);
						 * refuse, write nothing */
		/* everything below pos + d is claimed too (4): help the
		 * hint past it, retry. weak: a spurious failure only means
		 * one more round through this loop */
		exp = pos;
		(void)pl_cas_weak_relaxed(&r->ctl->tail, &exp,
					  pos + (uint64_t)d + 1);
		pos = pl_load_relaxed(&r->ctl->tail);
	}
}

/* The position a claimed slot serves, from its claim word (ours). */
static uint64_t shm_cmdq_claimed_pos(const struct shm_region *r,
				     const struct shm_cmd *cmd)
{
	/* relaxed: our own CLAIMED word, nobody else changes it while the
	 * claimer lives */
	return shm_st_pos(pl_load_relaxed(
		&r->claims[shm_region_slot_index(r, cmd)]));
}

void shm_cmdq_commit(struct shm_region *r, struct shm_cmd *cmd)
{
	uint64_t pos = shm_cmdq_claimed_pos(r, cmd), tail;

	/* R1, release: pairs with R2 in shm_cmdq_peek (3) */
	pl_store_release(&cmd->state, shm_st(SHM_PH_READY, pos, 0));
	shm_cmdq_tsan_release(cmd);
	/* The tail hint moves past our position after R1, and by a plain
	 * store, not a CAS (4): a locked instruction here would wait for
	 * R1's line, i.e. for the consumer, and a sender of many messages
	 * would wait so once per message. The words hold 40 bits of the
	 * position, the hint all 64: move the hint only if it still names
	 * our position; any other value was moved on by a producer that
	 * found the position taken (4). relaxed, both: hint only (4). */
	tail = pl_load_relaxed(&r->ctl->tail);
	if ((tail & SHM_POS_MASK) == pos)
		pl_store_relaxed(&r->ctl->tail, tail + 1);
}

struct shm_cmd *shm_cmdq_peek_slow(struct shm_region *r)
{
	uint64_t pos = r->cons_head, st;
	struct shm_cmd *cmd;

	r->cons_stall = 0;
	cmd = shm_region_slot(r, (uint32_t)(pos & r->slot_mask));
	/* R2, as in shm_cmdq_peek: committed meanwhile */
	if (pl_load_acquire(&cmd->state) == shm_st(SHM_PH_READY, pos, 0))
		return cmd;
	/* relaxed: a claim of pos whose claimer is alive commits later;
	 * one that is dead never will (5) */
	st = pl_load_relaxed(&r->claims[pos & r->slot_mask]);
	if (shm_st_phase(st) != SHM_PH_CLAIMED ||
	    shm_st_pos(st) != (pos & SHM_POS_MASK))
		return NULL;	/* nobody claimed pos yet */
	if (pl_proc_alive((pid_t)(st & SHM_PID_MASK), 0))
		return NULL;
	r->cons_head = pos + 1;
	/* A2', release: as A2 (the slot is free for round pos + N) */
	pl_store_release(&r->ctl->head, pos + 1);
	/* relaxed: statistics */
	pl_fetch_add_relaxed(&r->ctl->dropped, 1);
	return NULL;
}

void shm_cmdq_release(struct shm_region *r, struct shm_cmd *cmd)
{
	uint64_t pos = r->cons_head;

	assert(cmd == shm_region_slot(r, (uint32_t)(pos &
					r->slot_mask)));
	(void)cmd;
	r->cons_stall = 0;
	r->cons_head = pos + 1;
	/* A2, release: our reads of the slot happen before the next
	 * producer's writes (pairs with A1 in shm_claim_room). Our own
	 * control line: producers read it only when the queue looks full
	 * to them, so this store rarely has to take it back. */
	pl_store_release(&r->ctl->head, pos + 1);
}

/* Anything claimed or committed at position pos of r? Relaxed loads:
 * the callers say what orders them. */
static bool shm_cmdq_busy_at(const struct shm_region *r, uint64_t pos)
{
	uint32_t i = (uint32_t)(pos & r->slot_mask);
	uint64_t st;

	if (pl_load_relaxed(&shm_region_slot(r, i)->state) ==
	    shm_st(SHM_PH_READY, pos, 0))
		return true;
	st = pl_load_relaxed(&r->claims[i]);
	return shm_st_phase(st) == SHM_PH_CLAIMED &&
	       shm_st_pos(st) == (pos & SHM_POS_MASK);
}

bool shm_cmdq_maybe_pending(const struct shm_region *r)
{
	/* relaxed: a hint; the consumer stores it after each read. An
	 * older value finds that read's READY: "maybe" (see the header). */
	return shm_cmdq_busy_at(r, pl_load_relaxed(&r->ctl->head));
}

bool shm_cmdq_pending(const struct shm_region *r)
{
	/* relaxed: ordered by the caller's seq_cst fence (shm_wake_arm) */
	return shm_cmdq_busy_at(r, r->cons_head);
}
