/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MPSC command queue over shared memory.
 *
 * Each slot's 64-bit state word cycles FREE(p) -> CLAIMED(p, pid) ->
 * READY(p) -> FREE(p + N), p being the position the slot serves (slot =
 * p mod N). `tail` is only a hint: the claim is a CAS on the slot word.
 *
 * Why it is correct:
 *  (1) Exactly once. A position p is handed to one producer: the only
 *      transition out of FREE(p) is the CAS to CLAIMED(p, pid), and a CAS
 *      succeeds once. The consumer takes positions strictly in order
 *      (cons_head) and moves a slot from READY(p) to FREE(p + N) only
 *      after reading it; so each committed command is read once.
 *  (2) No overwrite. A producer writes slot data only after its claim
 *      CAS saw FREE(p); FREE(p) is stored by the consumer (release, A2)
 *      after it finished reading round p - N, and the claim is an
 *      acquire (A1) that pairs with it. So the new writes happen after
 *      the old reads. A slot still in round p - N (READY or CLAIMED)
 *      means the queue is full: -FI_EAGAIN, nothing written.
 *  (3) Visibility. The producer's commit stores READY(p) with release
 *      (R1); the consumer loads it with acquire (R2): every byte of the
 *      command is visible before the consumer reads any.
 *  (4) Progress of the tail hint. tail only moves from p to p + 1 by
 *      CAS (relaxed: it orders nothing, it is re-validated against the
 *      slot words). The claimer of p moves it after its commit; a
 *      producer that sees slot p already claimed, ready, or in a later
 *      round knows position p was taken and helps the hint past it; so
 *      a producer that dies between its claim and its commit never
 *      stalls the others.
 *  (5) A dead claimer. A producer that dies between claim and commit
 *      leaves CLAIMED(p, pid) at the head. The consumer notices the head
 *      stuck in CLAIMED, checks pid (kill(pid, 0) == ESRCH) and CASes the
 *      slot to FREE(p + N) (release, A2'), counting it dropped. The CAS
 *      and not a store: had the claimer been alive after all, its commit
 *      wins or the skip wins, never both.
 * Positions are 40 bits in the word and compared modulo 2^40: a producer
 * would have to stall for 2^40 operations to see an ABA.
 */
#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "shm_cmdq.h"

/* (a - b) as a signed distance modulo 2^40 */
static inline int64_t shm_pos_diff(uint64_t a, uint64_t b)
{
	uint64_t d = (a - b) & SHM_POS_MASK;

	return d & (1ull << (SHM_CMDQ_POS_BITS - 1)) ?
		(int64_t)d - (int64_t)(1ull << SHM_CMDQ_POS_BITS) : (int64_t)d;
}

int shm_cmdq_claim(struct shm_region *r, uint32_t pid, struct shm_cmd **cmd_p)
{
	uint32_t mask = r->hdr->cmdq_slots - 1;
	struct shm_cmd *cmd;
	uint64_t pos, st;
	uint32_t full;
	bool look;
	int64_t d;

	/* acquire: pairs with the release store of CLOSING in
	 * shm_region_close; a closing owner takes no more commands. */
	if (pl_load_acquire(&r->hdr->state) != SHM_REGION_READY)
		return -FI_ECONNREFUSED;
	/* relaxed: a hint (4) */
	pos = pl_load_relaxed(&r->ctl->tail);
	/* relaxed: a hint (set below, on a full queue) */
	full = pl_load_relaxed(&r->claim_full);
	look = full;
	for (;;) {
		cmd = shm_region_slot(r, (uint32_t)(pos & mask));
		if (PL_UNLIKELY(look)) {
			/* full last time, or this call lost a CAS already:
			 * look first, so that senders waiting for room or
			 * racing each other read lines shared instead of
			 * taking them exclusive on every try (relaxed: the
			 * CAS below re-reads it) */
			st = pl_load_relaxed(&cmd->state);
			if (st != shm_st(SHM_PH_FREE, pos, 0))
				goto taken_or_full;
		}
		/* the inline payload's line: fetched while the CAS waits for
		 * the state word's line, not after it */
		PL_PREFETCH_WRITE(cmd + 1);
		st = shm_st(SHM_PH_FREE, pos, 0);
		/* A1, acquire: pairs with A2/A2' (the consumer's release of
		 * round p - N), see (2). Straight to the CAS, no read first
		 * (unless the queue was full): a read would fetch the line
		 * shared and the CAS would then need it again, exclusive (two
		 * transfers instead of one). On failure st holds the word
		 * (relaxed: judged below). */
		if (pl_cas_acquire(&cmd->state, &st,
				   shm_st(SHM_PH_CLAIMED, pos, pid))) {
			/* the tail hint moves on at commit (4) */
			if (PL_UNLIKELY(full))
				pl_store_relaxed(&r->claim_full, 0u);
			*cmd_p = cmd;
			return 0;
		}
		look = true;
taken_or_full:
		d = shm_pos_diff(shm_st_pos(st), pos);
		if (d >= 0) {
			/* position pos is taken: help the hint on, retry */
			uint64_t exp = pos;

			/* weak: a spurious failure only means one more
			 * round through this loop */
			(void)pl_cas_weak_relaxed(&r->ctl->tail, &exp, pos + 1);
			pos = pl_load_relaxed(&r->ctl->tail);
			continue;
		}
		/* the slot still serves round pos - N: full */
		if (!full)
			pl_store_relaxed(&r->claim_full, 1u);
		return -FI_EAGAIN;
	}
}

void shm_cmdq_commit(struct shm_region *r, struct shm_cmd *cmd)
{
	/* relaxed: our own CLAIMED word, nobody else changes it while the
	 * claimer lives */
	uint64_t st = pl_load_relaxed(&cmd->state);
	uint64_t pos = shm_st_pos(st), tail;

	/* R1, release: pairs with R2 in shm_cmdq_peek (3) */
	pl_store_release(&cmd->state, shm_st(SHM_PH_READY, pos, 0));
	/* The tail hint moves past our position here, after R1, not at the
	 * claim: the consumer polls this slot's line, and a locked
	 * instruction between our claim and R1 gave its read the time to
	 * take the line back, so that R1 had to fetch it a second time
	 * (prov/shm/docs/transport.md, "The claim's window"). The word
	 * holds 40 bits of the position, the hint all 64: move the hint
	 * only if it still names our position; any other value was moved
	 * on by a producer that found the position taken (4).
	 * relaxed, both: hint only (4). */
	tail = pl_load_relaxed(&r->ctl->tail);
	if ((tail & SHM_POS_MASK) == pos)
		(void)pl_cas_weak_relaxed(&r->ctl->tail, &tail, tail + 1);
}

struct shm_cmd *shm_cmdq_peek_slow(struct shm_region *r, struct shm_cmd *cmd,
				   uint64_t st)
{
	uint64_t pos = r->cons_head;

	if (shm_st_phase(st) != SHM_PH_CLAIMED ||
	    shm_pos_diff(shm_st_pos(st), pos) != 0)
		return NULL;
	if (++r->cons_stall < SHM_CMDQ_STALL_CHECK)
		return NULL;
	r->cons_stall = 0;
	if (shm_proc_alive((pid_t)(st & SHM_PID_MASK), 0))
		return NULL;
	/* A2', release: as A2; a CAS so that a live claimer's commit and
	 * our skip exclude each other (5); weak: a spurious failure is
	 * retried at the next stall check. */
	if (pl_cas_weak_release(&cmd->state, &st,
			shm_st(SHM_PH_FREE, pos + r->hdr->cmdq_slots, 0))) {
		r->cons_head = pos + 1;
		/* relaxed: statistics */
		pl_store_relaxed(&r->ctl->head, pos + 1);
		pl_fetch_add_relaxed(&r->ctl->dropped, 1);
	}
	return NULL;
}

void shm_cmdq_release(struct shm_region *r, struct shm_cmd *cmd)
{
	uint64_t pos = r->cons_head;

	r->cons_stall = 0;
	/* A2, release: our reads of the slot happen before the next
	 * producer's writes (pairs with A1) */
	pl_store_release(&cmd->state,
			 shm_st(SHM_PH_FREE, pos + r->hdr->cmdq_slots, 0));
	r->cons_head = pos + 1;
	/* relaxed: statistics only */
	pl_store_relaxed(&r->ctl->head, pos + 1);
}

bool shm_cmdq_maybe_pending(const struct shm_region *r)
{
	/* relaxed: a hint; the consumer stores it after each release. An
	 * older value only makes the answer "maybe" (see the header). */
	uint64_t pos = pl_load_relaxed(&r->ctl->head);
	const struct shm_cmd *cmd;

	cmd = shm_region_slot(r, (uint32_t)(pos & (r->hdr->cmdq_slots - 1)));
	/* relaxed: only decides whether to poll; shm_cmdq_peek re-reads
	 * the word with acquire (R2) under the consumer's serialization */
	return pl_load_relaxed(&((struct shm_cmd *)cmd)->state) !=
	       shm_st(SHM_PH_FREE, pos, 0);
}

bool shm_cmdq_pending(const struct shm_region *r)
{
	uint64_t pos = r->cons_head;
	const struct shm_cmd *cmd;

	cmd = shm_region_slot(r, (uint32_t)(pos & (r->hdr->cmdq_slots - 1)));
	/* relaxed: ordered by the caller's seq_cst fence (shm_wake_arm) */
	return pl_load_relaxed(&((struct shm_cmd *)cmd)->state) !=
	       shm_st(SHM_PH_FREE, pos, 0);
}
