/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One endpoint's shared region (layout: shm_layout.h), as a process sees
 * it: created by its owner, mapped by peers, removed when its owner closes
 * it or, after a crash, by the next process of the same user that runs
 * shm_region_cleanup_dead().
 *
 * A struct shm_region is process-private and not shared between threads
 * without the caller's own exclusion: create/map/close/unmap are control
 * path calls. The pointers it holds into the mapping are stable until
 * close/unmap.
 */
#ifndef PROPEL_SHM_REGION_H
#define PROPEL_SHM_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm_layout.h"

/* Longest shm_open name we produce ("/propel-shm-<uid>-..."). */
#define SHM_REGION_NAME_MAX	(SHM_NAME_MAX + 32)
/* Every region of user U is named SHM_REGION_PREFIX "<U>-...". */
#define SHM_REGION_PREFIX	"/propel-shm-"

/*
 * The geometry a process relies on is its own: `geo` is a private copy
 * of the header, taken once (the owner's from what it computed, a peer's
 * after READY) and checked once (shm_layout_check), and every index and
 * size below comes from it, never from the shared header, which any
 * process of the user can rewrite at any time (DESIGN.md section 7a).
 * Only `hdr->state` is read through the mapping after that.
 */
struct shm_region {
	void			*base;
	size_t			size;
	struct shm_region_hdr	*hdr;	/* shared: read `state` only */
	struct shm_ctl		*ctl;
	uint8_t			*cmdq;		/* slot 0 */
	/* the queue's geometry, from geo, beside the pointers the hot
	 * path uses with it (one line) */
	uint32_t		slot_mask;	/* geo.cmdq_slots - 1 */
	uint32_t		slot_size;	/* geo.cmdq_slot_size */
	uint32_t		inline_max;	/* geo.inline_max */
	pl_atomic_u64		*claim_top;	/* geo.claim_off: slot i's
						 * claim word is
						 * claim_top[-1 - i] */
	/* slot index from a slot's byte offset without a division (an
	 * exact one: offset >> slot_shift, times the inverse of the slot
	 * size's odd factor modulo 2^64), shm_region_slot_index */
	unsigned		slot_shift;
	uint64_t		slot_inv;
	struct shm_peer_ent	*peers;
	struct shm_sar_chan	*sar;
	uint8_t			*sarbuf;
	struct shm_split_job	*split;
	bool			owner;		/* we created it (and unlink it) */
	/* consumer state, owner only (shm_cmdq.c) */
	uint64_t		cons_head;	/* next position to pop */
	uint32_t		cons_stall;	/* polls that found nothing */
	uint32_t		cons_pid;	/* ours: the pid of our own
						 * claims (shm_cmdq.c (6)) */
	uint64_t		stall_word;	/* claim word of a live claimer
						 * that has not committed... */
	uint64_t		stall_since;	/* ...since (ns, monotonic) */
	/* producer state, any thread of this process: the consumer's head
	 * as last read from ctl->head (release/acquire, shm_cmdq_claim),
	 * so that a claim reads the owner's line only when the queue looks
	 * full */
	pl_atomic_u64		prod_head;
	struct shm_region_hdr	geo;		/* private, checked copy */
	char			name[SHM_REGION_NAME_MAX];	/* shm_open name */
};

/*
 * Create and initialize a region named `name` (a shm_open name, leading
 * '/', see shm_addr_region_name), mode 0600, O_EXCL, checked to be ours
 * after the open. A region of that name left by a dead owner (pid gone
 * or start time different) is removed first; any other file under the
 * name is left alone and the name is refused (the caller picks another,
 * shm_ep_enable). flags: SHM_RF_*. The region is READY on return.
 * Returns 0, -FI_EINVAL (bad req or name), -FI_EADDRINUSE (a live owner
 * has it), -FI_ENOMEM, -errno of a failed call.
 */
int shm_region_create(const char *name, const struct shm_layout_req *req,
		      uint32_t flags, struct shm_region **region_p);

/*
 * Map a peer's region by name, read/write. Checks state, then takes the
 * private copy of the header (geo) and checks it (shm_layout_check:
 * magic, version, geometry within our limits, every table inside the
 * mapping). Returns 0, -FI_ENOENT (no such region), -FI_EAGAIN (its
 * owner is still building it), -FI_ECONNREFUSED (closing, or its owner is
 * dead), -FI_ENOPROTOOPT (another user's file, not ours, other
 * version), -errno.
 */
int shm_region_map(const char *name, struct shm_region **region_p);

/* Peer side: unmap and free (never unlinks). */
void shm_region_unmap(struct shm_region *region);

/* Owner side: mark CLOSING (release), unlink, unmap, free. */
void shm_region_close(struct shm_region *region);

/* Is the region's owner still the process that created it? */
bool shm_region_owner_alive(const struct shm_region *region);

/*
 * Peer side, after its owner was found dead: unlink the region's name
 * (the mapping stays valid) if the file under that name is still the
 * dead owner's. Returns 1 when removed, 0 otherwise (alive, already
 * gone, or a new owner's region under the name).
 */
int shm_region_unlink_dead(const struct shm_region *region);

/*
 * Remove the regions of the calling user whose owner is dead (scans
 * /dev/shm for SHM_REGION_PREFIX "<uid>-"): by the header's identity,
 * or, when the header is not a region's (scribbled), by the pid the name
 * carries. Regions of other users and of live owners are never touched. *removed_p (may be NULL) gets the count.
 * Returns 0 or -errno of opendir.
 */
int shm_region_cleanup_dead(unsigned *removed_p);

/* Address of slot i (i <= r->slot_mask). */
static inline struct shm_cmd *shm_region_slot(const struct shm_region *r,
					      uint32_t i)
{
	return (struct shm_cmd *)(r->cmdq + (size_t)i * r->slot_size);
}

/* The claim word of slot i (i <= r->slot_mask): the table descends
 * from geo.claim_off (shm_layout.h). */
static inline pl_atomic_u64 *shm_region_claim(const struct shm_region *r,
					      uint32_t i)
{
	return r->claim_top - 1 - (size_t)i;
}

/* Index of slot cmd (a pointer shm_region_slot gave). */
static inline uint32_t shm_region_slot_index(const struct shm_region *r,
					     const struct shm_cmd *cmd)
{
	uint64_t off = (uint64_t)((const uint8_t *)cmd - r->cmdq);

	return (uint32_t)((off >> r->slot_shift) * r->slot_inv);
}

/* Bounce buffer b (< SHM_SAR_RING) of channel c (< geo.sar_chan_count). */
static inline uint8_t *shm_region_sarbuf(const struct shm_region *r,
					 uint32_t c, uint32_t b)
{
	return r->sarbuf + ((size_t)c * SHM_SAR_RING + b) *
			   r->geo.sar_buf_size;
}

#endif /* PROPEL_SHM_REGION_H */
