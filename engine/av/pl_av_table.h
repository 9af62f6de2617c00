/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_av_table: the slots of a process-private AV (FI_AV_TABLE and
 * FI_AV_MAP alike) under RCU, and the fi_addr_t encoding every AV uses.
 *
 * fi_addr_t layout (the values an AV hands out; DESIGN.md section 5):
 *
 *    63        48 47        32 31                       0
 *   +------------+------------+--------------------------+
 *   |  rx index  | generation |        slot index        |
 *   +------------+------------+--------------------------+
 *
 *   slot index   bits 0..31. For FI_AV_TABLE it is the insertion index
 *                fi_av(3) promises: 0 for the first address, then 1, 2...
 *                The lowest free slot is used, as fi_av(3) asks; index
 *                0xffffffff is never used.
 *   generation   bits 32..47: 0 the first time a slot is used, one more
 *                at each reuse after a removal. A handle from before the
 *                removal carries the old generation and no longer matches:
 *                stale values are detected, not aliased to the new peer.
 *                A slot whose generation would pass PL_AV_GEN_MAX is
 *                retired for good, so detection is exact, never
 *                probabilistic (one slot lost per 65535 reuses of it).
 *   rx index     bits 48..63: zero in what the AV returns; fi_rx_addr()
 *                puts a scalable endpoint's receive context in the top
 *                rx_ctx_bits (at most PL_AV_RX_CTX_BITS_MAX) bits.
 *
 * So a table AV that nobody removes from gives exactly 0, 1, 2..., values
 * are never pointers, and FI_ADDR_NOTAVAIL (all ones) is never valid,
 * whatever rx_ctx_bits is. Shared (named) AVs use the same layout with
 * generation 0: their slots are never reused (pl_av_shared.c).
 *
 * Synchronization table (one table):
 *
 *                 lookup  __reserve/publish  __remove  __get  fini
 *   lookup        yes     yes                yes       yes    no
 *   __reserve...  yes     no                 no        no     no
 *   __remove      yes     no                 no        no     no
 *
 *   lookup runs inside pl_rcu_read_lock() in any thread, concurrently
 *   with everything but fini. The __ functions need the owner's writer
 *   mutex (the AV lock). fini runs alone (AV close).
 */
#ifndef PROPEL_PL_AV_TABLE_H
#define PROPEL_PL_AV_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>

#include "pl_atomic.h"
#include "pl_rcu.h"
#include "pl_av_rhash.h"

#define PL_AV_IDX_BITS		32
#define PL_AV_GEN_SHIFT		32
#define PL_AV_GEN_BITS		16
#define PL_AV_IDX_MAX		0xfffffffeULL
#define PL_AV_GEN_MAX		0xfffeU
#define PL_AV_RX_CTX_BITS_MAX	16
/* Bits that must be zero in a handle once the rx index is stripped. */
#define PL_AV_HANDLE_MASK	((1ULL << (PL_AV_IDX_BITS + PL_AV_GEN_BITS)) - 1)

static inline fi_addr_t pl_av_table_handle(uint64_t idx, uint32_t gen)
{
	return (fi_addr_t)(idx | ((uint64_t)gen << PL_AV_GEN_SHIFT));
}

static inline uint64_t pl_av_table_handle_idx(fi_addr_t handle)
{
	return handle & 0xffffffffULL;
}

static inline uint32_t pl_av_table_handle_gen(fi_addr_t handle)
{
	return (uint32_t)(handle >> PL_AV_GEN_SHIFT) & 0xffffU;
}

/*
 * One address in a private AV. Immutable once published (fi_addr, user_id,
 * addr), except refcnt, which only writers touch under the AV lock.
 */
struct pl_av_entry {
	struct rcu_head rcu;		/* reclaim after a grace period */
	struct pl_av_rhash_node rnode;	/* reverse map; key = addr below */
	fi_addr_t fi_addr;		/* handle: index | generation */
	fi_addr_t user_id;		/* FI_AV_USER_ID value, else fi_addr */
	uint32_t refcnt;		/* inserts of this same address */
	uint32_t addrlen;
	unsigned char addr[] __attribute__((aligned(8)));
};

/* One published generation of the slot array (RCU-protected). */
struct pl_av_slots {
	struct rcu_head rcu;
	size_t nslots;
	pl_atomic_ptr slot[];		/* struct pl_av_entry *, NULL: free */
};

struct pl_av_table {
	/* Read side: the current array, replaced when the table grows. */
	pl_atomic_ptr slots;		/* struct pl_av_slots * */
	/* Writer side only, under the AV lock: */
	uint16_t *gen;			/* per slot: generation of its next
					 * (or current) occupant */
	uint64_t *used;			/* bitmap: occupied or retired */
	size_t nslots;			/* == current array's nslots */
	size_t free_hint;		/* no free slot below this index */
	size_t live;			/* occupied slots */
};

/* An empty table sized for about count entries. 0 or -FI_ENOMEM. */
int pl_av_table_init(struct pl_av_table *t, size_t count);

/*
 * Release the table (AV close: no lookup may run). Each entry still in it
 * is handed to drop(entry, arg), which owns it from then on.
 */
void pl_av_table_fini(struct pl_av_table *t,
		      void (*drop)(struct pl_av_entry *entry, void *arg),
		      void *arg);

/*
 * The entry whose handle is exactly handle (rx index already stripped), or
 * NULL: unknown, removed, or stale (an older generation of its slot).
 * Call inside pl_rcu_read_lock(); the entry stays valid until the
 * unlock. No lock, no atomic read-modify-write: two acquire loads (the
 * array, then the slot) pairing with the release stores that published
 * them in __pl_av_table_publish() and the growth path.
 */
struct pl_av_entry *pl_av_table_lookup(struct pl_av_table *t,
				       fi_addr_t handle);

/* Writer side (AV lock held): the live entry of handle, or NULL. */
struct pl_av_entry *__pl_av_table_get(struct pl_av_table *t,
				      fi_addr_t handle);

/*
 * Writer side (AV lock held): the handle the next published entry will get
 * (lowest free slot, its current generation), growing the array if no slot
 * is free. Nothing changes for readers. 0, -FI_ENOMEM or -FI_ENOSPC (every
 * index used).
 */
int __pl_av_table_reserve(struct pl_av_table *t, fi_addr_t *handle_p);

/*
 * Writer side (AV lock held, right after __pl_av_table_reserve): publish
 * entry, completely filled in, with entry->fi_addr the reserved handle.
 */
void __pl_av_table_publish(struct pl_av_table *t, struct pl_av_entry *entry);

/*
 * Writer side (AV lock held): empty entry's slot (entry came from
 * __pl_av_table_get). Lookups that already loaded the entry may still use
 * it: the caller reclaims it through pl_av_table_entry_reclaim().
 */
void __pl_av_table_remove(struct pl_av_table *t, struct pl_av_entry *entry);

/* Free entry after a grace period (it must be unreachable by then). */
void pl_av_table_entry_reclaim(struct pl_av_entry *entry);

/* Current array size, for diagnostics and tests (writer side). */
size_t __pl_av_table_nslots(const struct pl_av_table *t);

#endif /* PROPEL_PL_AV_TABLE_H */
