/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MPSC command queue over shared memory.
 *
 * Position p is served by slot p mod N. Each slot has two words on
 * different lines: its claim word, in the claim table below the queue
 * (descending: shm_layout.h), which producers CAS from the slot's
 * previous round to CLAIMED(p, pid); and its state word, at the start of
 * the command, where the producer stores READY(p) once the command is
 * written and the consumer polls. The consumer never writes a slot: it
 * publishes how far it has read in ctl->head, and a producer reads that
 * (rarely: it keeps the last value) to know that a
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
 *      previous round's value (zero, FREE, before the first round,
 *      which serves p < N; CLAIMED(p - N, any pid) after) to CLAIMED(p, pid), and a CAS
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
 *  (6) Foreign words. Claim words, tail and head live in shared memory
 *      that any process of the user can write (DESIGN.md section 7a),
 *      so no value read there may stop the queue for good. A producer
 *      trusts a claim word only if it is the previous round of its
 *      position or a claim inside the window (below head + N, which
 *      every honest claim is, (2)); anything else is foreign. A foreign
 *      word at a position outside the window means the hint is foreign:
 *      the producer moves tail back to head (every position below head
 *      was read, (4) holds) and tries again, once. A foreign word inside
 *      the window is left to the consumer, who reaches it in order: the
 *      consumer claims its head position itself, with a CAS from the
 *      value it read to CLAIMED(pos, own pid), and moves past it, when
 *      that word is neither the previous round nor a claim of pos, or
 *      when it is the previous round but tail is past pos (honestly
 *      impossible: positions are claimed in order, (4)). The CAS makes
 *      it safe against an honest producer claiming pos at that moment:
 *      one of the two wins, and the loser sees a claim of pos and moves
 *      on. The consumer also puts back its own head word when it reads
 *      another value there.
 *  (7) A live claimer that never commits. (5) skips a dead claimer; a
 *      claim of the head that names a live process (or a word of that
 *      form written by anyone) is skipped once it has stood, unchanged,
 *      for SHM_CMDQ_CLAIM_TIMEOUT_MS. An honest producer does not stay
 *      between claim and commit that long unless it was stopped; if it
 *      commits later, its command may land in the slot's next round and
 *      be dropped or taken as that round's (a garbled command, which the
 *      parsers check like any other foreign bytes), never make us read
 *      outside the slot.
 * Positions are 40 bits in the words and compared modulo 2^40: a
 * producer would have to stall for 2^40 operations to see an ABA.
 */
#include <assert.h>
#include <time.h>

#include <rdma/fi_errno.h>

#include "pl_clock.h"
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
 * be claimed once the consumer is past pos - n)? A slot's word before
 * its first round is zero (the file's own zeros: the owner writes no
 * claim word, so that no page of the queue exists before it is used),
 * and the first round of slot i is position i. */
static inline bool shm_claim_prev(uint64_t st, uint64_t pos, uint32_t n)
{
	if (shm_st_phase(st) == SHM_PH_FREE)
		return st == 0 && (pos & SHM_POS_MASK) < n;
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

/* Is position q (a claim word's) inside the window, below head + n?
 * The cached head first (it is at most the real one, so a yes is a
 * yes), then the owner's line. A1 again, as in shm_claim_room. */
static bool shm_claim_in_window(struct shm_region *r, uint64_t q, uint32_t n)
{
	uint64_t head = pl_load_acquire(&r->prod_head);

	if (shm_pos_diff(q, head) < (int64_t)n)
		return true;
	head = pl_load_acquire(&r->ctl->head);
	pl_store_release(&r->prod_head, head);
	return shm_pos_diff(q, head) < (int64_t)n;
}

/* A foreign claim word at pos (6): if pos itself lies outside the window
 * the hint is what is foreign: move it back to head and say so (true:
 * try again). Inside the window the word is the consumer's to repair. */
static bool shm_claim_reset_tail(struct shm_region *r, uint64_t pos,
				 uint32_t n)
{
	/* acquire: A1, the head we restart from was read up to */
	uint64_t head = pl_load_acquire(&r->ctl->head), exp = pos;
	int64_t d = shm_pos_diff(pos, head);

	if (d >= 0 && d <= (int64_t)n)
		return false;
	/* relaxed: a hint (4); a failed CAS means someone moved it */
	(void)pl_cas_weak_relaxed(&r->ctl->tail, &exp, head);
	return true;
}

/* Claim a position as the tail hint names it, or helping the hint on
 * (4), (6): the loop shm_cmdq_claim falls back to when the position the
 * hint named was taken, or the queue looked full. */
static PL_NOINLINE int shm_cmdq_claim_loop(struct shm_region *r, uint32_t pid,
					   struct shm_cmd **cmd_p)
{
	uint32_t mask = r->slot_mask, n = mask + 1, rounds;
	bool reset = false;
	pl_atomic_u64 *cw;
	uint64_t pos, st, exp;
	int64_t d;

	/* relaxed: a hint (4) */
	pos = pl_load_relaxed(&r->ctl->tail);
	/* Each round moves pos forward or fails; honest hints catch up
	 * within a few rounds of the queue, foreign ones are stopped here
	 * (6): no producer spins on values another process wrote. */
	for (rounds = 0; rounds < 2 * n + 16; rounds++) {
		cw = shm_region_claim(r, (uint32_t)(pos & mask));
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
		 * only on another value): position pos + d is claimed, if
		 * the word is honest. */
		d = shm_st_phase(st) == SHM_PH_CLAIMED ?
		    shm_pos_diff(shm_st_pos(st), pos) : -1;
		if (d < 0 || !shm_claim_in_window(r, pos + (uint64_t)d, n)) {
			/* older than the previous round, or ahead of
			 * anything a producer may claim: foreign (6) */
			if (reset || !shm_claim_reset_tail(r, pos, n))
				return -FI_EAGAIN;
			reset = true;
			pos = pl_load_relaxed(&r->ctl->tail);
			continue;
		}
		/* everything below pos + d is claimed too (4): help the
		 * hint past it, retry. weak: a spurious failure only means
		 * one more round through this loop */
		exp = pos;
		(void)pl_cas_weak_relaxed(&r->ctl->tail, &exp,
					  pos + (uint64_t)d + 1);
		pos = pl_load_relaxed(&r->ctl->tail);
	}
	return -FI_EAGAIN;
}

int shm_cmdq_claim(struct shm_region *r, uint32_t pid, struct shm_cmd **cmd_p)
{
	uint32_t mask = r->slot_mask;
	pl_atomic_u64 *cw;
	uint64_t pos, st;

	/* acquire: pairs with the release store of CLOSING in
	 * shm_region_close; a closing owner takes no more commands. */
	if (pl_load_acquire(&r->hdr->state) != SHM_REGION_READY)
		return -FI_ECONNREFUSED;
	/* The common case, as the first round of shm_cmdq_claim_loop: the
	 * hint names a free position with room. relaxed loads and the
	 * acquire CAS as there (4), (2). */
	pos = pl_load_relaxed(&r->ctl->tail);
	cw = shm_region_claim(r, (uint32_t)(pos & mask));
	st = pl_load_relaxed(cw);
	if (PL_LIKELY(shm_claim_prev(st, pos, mask + 1) &&
		      shm_claim_room(r, pos, mask + 1) &&
		      pl_cas_acquire(cw, &st, shm_st(SHM_PH_CLAIMED, pos,
						     pid)))) {
		*cmd_p = shm_region_slot(r, (uint32_t)(pos & mask));
		shm_cmdq_tsan_acquire(*cmd_p);
		return 0;
	}
	return shm_cmdq_claim_loop(r, pid, cmd_p);
}

/* The position a claimed slot serves, from its claim word (ours). */
static uint64_t shm_cmdq_claimed_pos(const struct shm_region *r,
				     const struct shm_cmd *cmd)
{
	/* relaxed: our own CLAIMED word, nobody else changes it while the
	 * claimer lives */
	return shm_st_pos(pl_load_relaxed(
		shm_region_claim(r, shm_region_slot_index(r, cmd))));
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

/* Skip position pos, which carries no command (a dead or stuck claimer,
 * a foreign word): the consumer moves past it as if it had read it. */
static void shm_cmdq_skip(struct shm_region *r, uint64_t pos)
{
	r->cons_head = pos + 1;
	/* A2', release: as A2 (the slot is free for round pos + N) */
	pl_store_release(&r->ctl->head, pos + 1);
	/* relaxed: statistics */
	pl_fetch_add_relaxed(&r->ctl->dropped, 1);
}

/* A claim word st of the head position: will its claimer never commit?
 * Dead (5), or the same word has stood for the bound (7). */
static bool shm_cmdq_claim_stuck(struct shm_region *r, uint64_t st)
{
	uint64_t now;

	if (!pl_proc_alive((pid_t)(st & SHM_PID_MASK), 0))
		return true;
	now = pl_clock_now_ns();
	if (r->stall_word != st) {
		r->stall_word = st;
		r->stall_since = now;
		return false;
	}
	return now - r->stall_since >=
	       SHM_CMDQ_CLAIM_TIMEOUT_MS * 1000000ull;
}

struct shm_cmd *shm_cmdq_peek_slow(struct shm_region *r)
{
	uint64_t pos = r->cons_head, st, tail;
	uint32_t i = (uint32_t)(pos & r->slot_mask);
	struct shm_cmd *cmd;

	r->cons_stall = 0;
	cmd = shm_region_slot(r, i);
	/* R2, as in shm_cmdq_peek: committed meanwhile */
	if (pl_load_acquire(&cmd->state) == shm_st(SHM_PH_READY, pos, 0))
		return cmd;
	/* Our own word (6): producers judge room by it. relaxed load: we
	 * are its only honest writer; the store is A2 again (release). */
	if (pl_load_relaxed(&r->ctl->head) != pos)
		pl_store_release(&r->ctl->head, pos);
	/* relaxed: a claim of pos whose claimer is alive commits later;
	 * one that is dead never will (5), nor one that stood too long (7) */
	st = pl_load_relaxed(shm_region_claim(r, i));
	if (shm_st_phase(st) == SHM_PH_CLAIMED &&
	    shm_st_pos(st) == (pos & SHM_POS_MASK)) {
		if (shm_cmdq_claim_stuck(r, st))
			shm_cmdq_skip(r, pos);
		return NULL;
	}
	if (shm_claim_prev(st, pos, r->slot_mask + 1)) {
		/* relaxed: a hint; past pos only if pos was jumped (6) */
		tail = pl_load_relaxed(&r->ctl->tail);
		if (shm_pos_diff(tail, pos) <= 0)
			return NULL;	/* nobody claimed pos yet */
	}
	/* A foreign word, or a position producers went past: claim it
	 * ourselves (6). acquire: orders nothing we need (we write no slot),
	 * a strong CAS so that failure means an honest claim came first,
	 * which the next look sees. */
	if (pl_cas_acquire(shm_region_claim(r, i), &st,
			   shm_st(SHM_PH_CLAIMED, pos, r->cons_pid)))
		shm_cmdq_skip(r, pos);
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
	st = pl_load_relaxed(shm_region_claim(r, i));
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
	uint64_t pos = r->cons_head;

	/* relaxed: ordered by the caller's seq_cst fence (shm_wake_arm).
	 * A head word that peek_slow would repair (6) counts as pending
	 * too: a consumer asleep on it would leave every producer with
	 * -FI_EAGAIN. */
	if (shm_cmdq_busy_at(r, pos))
		return true;
	return !shm_claim_prev(pl_load_relaxed(shm_region_claim(r,
					(uint32_t)(pos & r->slot_mask))),
			       pos, r->slot_mask + 1) ||
	       shm_pos_diff(pl_load_relaxed(&r->ctl->tail), pos) > 0;
}
