/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The multi-producer, single-consumer command queue of a region
 * (layout: shm_layout.h; algorithm: shm_cmdq.c). Producers are any
 * threads of any processes that mapped the region; the consumer is its
 * owner. Bounded: a full queue answers -FI_EAGAIN, it never overwrites.
 *
 * Synchronization table:
 *
 *                  | claim/commit | peek/release | pending | reap
 *   claim/commit   |     yes      |     yes      |   yes   |  yes
 *   peek/release   |     yes      |     no       |   no    |  no
 *   pending (arm)  |     yes      |     no       |   no    |  no
 *
 * Consumer calls (peek, release, pending) need the owner's exclusion:
 * they are `__`-free only because one object (the endpoint's progress
 * source) makes them, under the progress token.
 *
 * Barriers implied: commit is a release (everything the producer wrote
 * into the slot is visible to the consumer that peeks it, acquire);
 * release is a release of the consumer's head (its reads of the slot
 * happen before the next producer's writes, which follow its acquire
 * load of that head).
 */
#ifndef PROPEL_SHM_CMDQ_H
#define PROPEL_SHM_CMDQ_H

#include <stdbool.h>
#include <stdint.h>

#include "pl_compiler.h"
#include "shm_region.h"

/*
 * Claim the next slot of r's queue for pid (the caller's getpid(): the
 * consumer skips the slot if that process dies before committing).
 * Returns 0 and the slot in *cmd_p, -FI_EAGAIN when full, -FI_ECONNREFUSED
 * when the owner is closing. Fill the command (not `state`) and the
 * inline bytes after it, then shm_cmdq_commit().
 */
int shm_cmdq_claim(struct shm_region *r, uint32_t pid, struct shm_cmd **cmd_p);

/* Publish a slot claimed in r (release), and move r's tail hint past it.
 * Call shm_wake_signal() after it (shm_wake.h). */
void shm_cmdq_commit(struct shm_region *r, struct shm_cmd *cmd);

/* A queue word: phase, position, pid (shm_layout.h; shm_cmdq.c has the
 * cycle and the argument). */
#define SHM_PH_FREE	0ull
#define SHM_PH_CLAIMED	1ull
#define SHM_PH_READY	2ull
#define SHM_POS_MASK	((1ull << SHM_CMDQ_POS_BITS) - 1)
#define SHM_PID_MASK	((1ull << SHM_CMDQ_PID_BITS) - 1)

static inline uint64_t shm_st(uint64_t phase, uint64_t pos, uint64_t pid)
{
	return phase << 62 | (pos & SHM_POS_MASK) << SHM_CMDQ_PID_BITS |
	       (pid & SHM_PID_MASK);
}

static inline uint64_t shm_st_phase(uint64_t st)
{
	return st >> 62;
}

static inline uint64_t shm_st_pos(uint64_t st)
{
	return (st >> SHM_CMDQ_PID_BITS) & SHM_POS_MASK;
}

#define SHM_CMDQ_STALL_CHECK	1024
/* A claim of the head that names a live process and stays uncommitted
 * this long is skipped (shm_cmdq.c (7)). */
#define SHM_CMDQ_CLAIM_TIMEOUT_MS	2000

/* Nothing committed at the head for SHM_CMDQ_STALL_CHECK peeks: is a
 * dead claimer holding it? (shm_cmdq_peek) */
struct shm_cmd *shm_cmdq_peek_slow(struct shm_region *r);

/*
 * Consumer: the command at the head, committed, or NULL. Every
 * SHM_CMDQ_STALL_CHECK peeks that find nothing, also skips (counts in
 * ctl->dropped) a head position whose claimer died before committing,
 * whose claim stood uncommitted for SHM_CMDQ_CLAIM_TIMEOUT_MS, or whose
 * claim word another process scribbled (shm_cmdq.c (5)-(7)).
 * Inline: every progress pass asks, and most find nothing. A peek
 * changes nothing a second peek would see: asking twice is harmless.
 */
static inline struct shm_cmd *shm_cmdq_peek(struct shm_region *r)
{
	uint64_t pos = r->cons_head;
	struct shm_cmd *cmd;

	cmd = shm_region_slot(r, (uint32_t)(pos & r->slot_mask));
	/* R2, acquire: pairs with R1 in shm_cmdq_commit */
	if (pl_load_acquire(&cmd->state) == shm_st(SHM_PH_READY, pos, 0))
		return cmd;
	if (PL_LIKELY(++r->cons_stall < SHM_CMDQ_STALL_CHECK))
		return NULL;
	return shm_cmdq_peek_slow(r);
}

/* Consumer: done with the command peek returned; its slot may be
 * claimed again. */
void shm_cmdq_release(struct shm_region *r, struct shm_cmd *cmd);

/* Consumer: is anything claimed or committed at the head? Relaxed: the
 * caller orders it (shm_wake_arm's seq_cst fence). */
bool shm_cmdq_pending(const struct shm_region *r);
/* The same question asked by a thread that is not the consumer, without
 * its serialization: reads the shared head (ctl->head) instead of the
 * consumer's private cursor. A stale head shows a command already read
 * (READY of its position): "maybe". A "no" can only lag (relaxed
 * loads): a later call sees the command. */
bool shm_cmdq_maybe_pending(const struct shm_region *r);

/* Payload bytes after the command. */
static inline void *shm_cmd_payload(struct shm_cmd *cmd)
{
	return cmd + 1;
}

/* Where an SHM_PROTO_INLINE command's bytes are: in its key word
 * (SHM_CF_IN_HDR, set by the sender before it writes them) or after it.
 * The one place both sides decide it. */
static inline void *shm_cmd_inline_data(struct shm_cmd *cmd)
{
	return (cmd->flags & SHM_CF_IN_HDR) ? (void *)&cmd->key :
					      shm_cmd_payload(cmd);
}

#endif /* PROPEL_SHM_CMDQ_H */
