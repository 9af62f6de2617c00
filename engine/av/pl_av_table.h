/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_av_table: the slots of a process-private AV (FI_AV_TABLE and
 * FI_AV_MAP alike) under RCU.
 *
 * The fi_addr_t encoding is pl_av_addr.h's (engine/include).
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
#include "pl_av_addr.h"
#include "pl_rcu.h"
#include "pl_av_rhash.h"

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
