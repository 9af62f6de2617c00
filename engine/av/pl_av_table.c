/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The private AV's slot array under RCU.
 *
 * Why a lookup never returns freed memory or a wrong peer:
 *
 * 1. Entries are immutable once published. The writer fills the entry,
 *    then __pl_av_table_publish() stores its pointer into the slot with
 *    release (R1); lookup loads the slot with acquire (A1), so it sees the
 *    fields as written. The array pointer is published the same way: release when
 *    the table grows (R0), acquire in lookup (A0).
 * 2. Removal stores NULL into the slot and hands the entry to call_rcu.
 *    A lookup that loaded the pointer before that store is inside a
 *    read-side section that began before the call_rcu, so the entry is
 *    freed only after that section ends. One that loads after sees NULL or
 *    a later occupant.
 * 3. A later occupant of the same slot carries the next generation in its
 *    fi_addr, so lookup's equality test on the whole handle turns a stale
 *    handle away (generations are never reused: pl_av_table.h).
 * 4. Growth copies the slot pointers into a new array, publishes it (R0)
 *    and frees the old one with call_rcu. A lookup still on the old array
 *    may find an entry that was removed after the copy: that entry is not
 *    freed before the lookup's section ends either (2), and returning it
 *    is returning the peer as it was when the section began.
 *
 * Writers (insert, remove, growth) are serialized by the owner's mutex,
 * so the writer-side fields need no atomics at all, and slot stores made
 * by the writer on an array no reader can see yet are relaxed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av_table.h"
#include "pl_compiler.h"

#define PL_AV_TABLE_MIN_SLOTS 16

static struct pl_av_slots *pl_av_table_slots_alloc(size_t nslots)
{
	struct pl_av_slots *s;
	size_t i;

	s = malloc(sizeof(*s) + nslots * sizeof(s->slot[0]));
	if (!s)
		return NULL;
	s->nslots = nslots;
	for (i = 0; i < nslots; i++)
		pl_store_relaxed(&s->slot[i], NULL);	/* not yet visible */
	return s;
}

static void pl_av_table_slots_free_cb(struct rcu_head *head)
{
	struct pl_av_slots *s = caa_container_of(head, struct pl_av_slots, rcu);

	pl_rcu_reclaim_begin(head);
	free(s);
}

static void pl_av_table_entry_free_cb(struct rcu_head *head)
{
	struct pl_av_entry *e = caa_container_of(head, struct pl_av_entry, rcu);

	pl_rcu_reclaim_begin(head);
	free(e);
}

void pl_av_table_entry_reclaim(struct pl_av_entry *entry)
{
	pl_rcu_call(&entry->rcu, pl_av_table_entry_free_cb);
}

/* Resize the writer-side arrays to nslots (growing only). */
static int pl_av_table_meta_grow(struct pl_av_table *t, size_t nslots)
{
	size_t old_words = (t->nslots + 63) / 64, words = (nslots + 63) / 64;
	uint16_t *gen;
	uint64_t *used;

	gen = realloc(t->gen, nslots * sizeof(*gen));
	if (!gen)
		return -FI_ENOMEM;
	memset(gen + t->nslots, 0, (nslots - t->nslots) * sizeof(*gen));
	t->gen = gen;
	used = realloc(t->used, words * sizeof(*used));
	if (!used)
		return -FI_ENOMEM;
	memset(used + old_words, 0, (words - old_words) * sizeof(*used));
	t->used = used;
	return 0;
}

int pl_av_table_init(struct pl_av_table *t, size_t count)
{
	size_t n = PL_AV_TABLE_MIN_SLOTS;
	struct pl_av_slots *s;

	while (n < count && n <= PL_AV_IDX_MAX / 2)
		n *= 2;
	memset(t, 0, sizeof(*t));
	if (pl_av_table_meta_grow(t, n))
		goto err_meta;
	s = pl_av_table_slots_alloc(n);
	if (!s)
		goto err_meta;
	t->nslots = n;
	pl_store_relaxed(&t->slots, s);	/* the AV is not shared yet */
	return 0;

err_meta:
	free(t->gen);
	free(t->used);
	return -FI_ENOMEM;
}

void pl_av_table_fini(struct pl_av_table *t,
		      void (*drop)(struct pl_av_entry *entry, void *arg),
		      void *arg)
{
	struct pl_av_slots *s = pl_load_relaxed(&t->slots); /* alone here */
	size_t i;

	for (i = 0; i < s->nslots; i++) {
		struct pl_av_entry *e = pl_load_relaxed(&s->slot[i]);

		if (e)
			drop(e, arg);
	}
	/* Through call_rcu like any array, so that even a lookup racing a
	 * close (an application bug) reads memory that is still there. */
	pl_rcu_call(&s->rcu, pl_av_table_slots_free_cb);
	free(t->gen);
	free(t->used);
	memset(t, 0, sizeof(*t));
}

struct pl_av_entry *pl_av_table_lookup(struct pl_av_table *t,
				       fi_addr_t handle)
{
	uint64_t idx = pl_av_table_handle_idx(handle);
	struct pl_av_slots *s;
	struct pl_av_entry *e;

	s = pl_rcu_deref(&t->slots);			/* A0, pairs with R0 */
	if (PL_UNLIKELY(idx >= s->nslots))
		return NULL;
	e = pl_load_acquire(&s->slot[idx]);		/* A1, pairs with R1 */
	/* The whole handle: index, generation, and zero high bits. */
	if (PL_UNLIKELY(!e || e->fi_addr != handle))
		return NULL;
	return e;
}

struct pl_av_entry *__pl_av_table_get(struct pl_av_table *t,
				      fi_addr_t handle)
{
	uint64_t idx = pl_av_table_handle_idx(handle);
	struct pl_av_slots *s = pl_load_relaxed(&t->slots); /* writer's own */
	struct pl_av_entry *e;

	if (idx >= s->nslots)
		return NULL;
	e = pl_load_relaxed(&s->slot[idx]);		/* writer's own store */
	if (!e || e->fi_addr != handle)
		return NULL;
	return e;
}

/* Lowest index whose used bit is clear, or t->nslots if none is. */
static size_t pl_av_table_find_free(struct pl_av_table *t)
{
	size_t w, words = (t->nslots + 63) / 64;

	for (w = t->free_hint / 64; w < words; w++) {
		if (t->used[w] != UINT64_MAX) {
			size_t idx = w * 64 + (size_t)__builtin_ctzll(~t->used[w]);

			return idx < t->nslots ? idx : t->nslots;
		}
	}
	return t->nslots;
}

static int pl_av_table_grow(struct pl_av_table *t)
{
	struct pl_av_slots *old = pl_load_relaxed(&t->slots); /* writer's */
	struct pl_av_slots *s;
	size_t n, i;
	int ret;

	if (t->nslots > PL_AV_IDX_MAX)
		return -FI_ENOSPC;
	n = t->nslots * 2;
	if (n > PL_AV_IDX_MAX + 1)
		n = PL_AV_IDX_MAX + 1;
	s = pl_av_table_slots_alloc(n);
	if (!s)
		return -FI_ENOMEM;
	ret = pl_av_table_meta_grow(t, n);
	if (ret) {
		free(s);
		return ret;
	}
	/* Relaxed: s is not visible until R0 below, which orders these. */
	for (i = 0; i < old->nslots; i++)
		pl_store_relaxed(&s->slot[i], pl_load_relaxed(&old->slot[i]));
	t->nslots = n;
	pl_rcu_assign(&t->slots, s);			/* R0, pairs with A0 */
	pl_rcu_call(&old->rcu, pl_av_table_slots_free_cb);
	return 0;
}

int __pl_av_table_reserve(struct pl_av_table *t, fi_addr_t *handle_p)
{
	size_t idx;
	int ret;

	idx = pl_av_table_find_free(t);
	if (idx > PL_AV_IDX_MAX)
		return -FI_ENOSPC;
	if (idx == t->nslots) {
		ret = pl_av_table_grow(t);
		if (ret)
			return ret;
	}
	*handle_p = pl_av_table_handle(idx, t->gen[idx]);
	return 0;
}

void __pl_av_table_publish(struct pl_av_table *t, struct pl_av_entry *entry)
{
	size_t idx = (size_t)pl_av_table_handle_idx(entry->fi_addr);
	struct pl_av_slots *s = pl_load_relaxed(&t->slots); /* writer's own */

	t->used[idx / 64] |= 1ULL << (idx % 64);
	t->free_hint = idx + 1;	/* idx was the lowest free slot */
	t->live++;
	pl_store_release(&s->slot[idx], entry);		/* R1, pairs with A1 */
}

void __pl_av_table_remove(struct pl_av_table *t, struct pl_av_entry *entry)
{
	size_t idx = (size_t)pl_av_table_handle_idx(entry->fi_addr);
	struct pl_av_slots *s = pl_load_relaxed(&t->slots); /* writer's own */

	/* Relaxed: a reader that loads NULL dereferences nothing; one that
	 * loaded the entry before is covered by the grace period that the
	 * caller waits for (call_rcu) before freeing it. */
	pl_store_relaxed(&s->slot[idx], NULL);
	t->live--;
	if (t->gen[idx] >= PL_AV_GEN_MAX)
		return;		/* retired: its used bit stays set forever */
	t->gen[idx]++;
	t->used[idx / 64] &= ~(1ULL << (idx % 64));
	if (idx < t->free_hint)
		t->free_hint = idx;
}

size_t __pl_av_table_nslots(const struct pl_av_table *t)
{
	return t->nslots;
}
