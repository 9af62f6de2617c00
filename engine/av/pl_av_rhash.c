/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reverse map over liburcu-cds's rculfhash, tied to the urcu-bp
 * flavour of pl_rcu.h.
 *
 * Why the nodes carry a key pointer rather than the key: the private AV's
 * node sits inside its entry, right before the address bytes, so the key
 * costs nothing; the shared AV's local nodes copy the address behind the
 * node. Either way one match reads one pointer and addrlen bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av_rhash.h"

struct pl_av_rhash {
	struct cds_lfht *ht;
	size_t addrlen;
};

/* What cds_lfht hands the match function: the key and its length. */
struct pl_av_rhash_key {
	const void *bytes;
	size_t len;
};

/* One 8-byte word into a lane: a bijection of the lane for a fixed
 * state, so two keys that differ in one word differ in that lane. */
static inline uint64_t pl_av_rhash_mix(uint64_t lane, uint64_t w, uint64_t k)
{
	lane = (lane ^ w) * k;
	return lane ^ (lane >> 32);
}

/*
 * Every FI_SOURCE report of a transport that names its senders (shm: a
 * 112-byte NUL-padded name) hashes the whole address, once per message.
 * A byte at a time that was a chain of 112 dependent multiplies, 9% of
 * the samples of an 8-byte ping-pong over rxm to a node-local peer
 * (perf record of bench_fabric_pingpong); two independent lanes of 8
 * bytes a step take a fraction of that.
 */
static unsigned long pl_av_rhash_hash(const void *key, size_t len)
{
	const uint64_t k1 = 0x9e3779b97f4a7c15ULL, k2 = 0xff51afd7ed558ccdULL;
	const unsigned char *p = key;
	uint64_t a = 0xcbf29ce484222325ULL ^ len, b = 0x6a09e667f3bcc909ULL;
	uint64_t w, h;
	size_t i = 0;

	for (; i + 16 <= len; i += 16) {
		memcpy(&w, p + i, 8);
		a = pl_av_rhash_mix(a, w, k1);
		memcpy(&w, p + i + 8, 8);
		b = pl_av_rhash_mix(b, w, k2);
	}
	if (i + 8 <= len) {
		memcpy(&w, p + i, 8);
		a = pl_av_rhash_mix(a, w, k1);
		i += 8;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, p + i, len - i);
		b = pl_av_rhash_mix(b, w, k2);
	}
	h = a ^ ((b << 31) | (b >> 33));
	/* Addresses that differ in one port byte must land in different
	 * buckets whatever bits the table looks at: a 64-bit finalizer
	 * spreads every input bit over the whole word. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (unsigned long)h;
}

/* Called by the library inside the caller's read-side section. */
static int pl_av_rhash_match(struct cds_lfht_node *lnode, const void *arg)
{
	const struct pl_av_rhash_node *node =
		caa_container_of(lnode, struct pl_av_rhash_node, lnode);
	const struct pl_av_rhash_key *key = arg;

	/* Pairs with pl_rcu_tsan_publish() in pl_av_rhash_add(). */
	pl_rcu_tsan_subscribe(node);
	return memcmp(node->key, key->bytes, key->len) == 0;
}

static unsigned long pl_av_rhash_pow2(size_t n)
{
	unsigned long p = 1;

	while (p < n && p < (1UL << 20))
		p <<= 1;
	return p;
}

int pl_av_rhash_open(size_t addrlen, size_t count,
		     struct pl_av_rhash **rh_p)
{
	struct pl_av_rhash *rh;
	unsigned long init;

	if (!addrlen || !rh_p)
		return -FI_EINVAL;
	rh = calloc(1, sizeof(*rh));
	if (!rh)
		return -FI_ENOMEM;
	rh->addrlen = addrlen;
	init = pl_av_rhash_pow2(count < 64 ? 64 : count);
	/* The resize worker is the library's own thread (liburcu >= 0.10);
	 * ACCOUNTING lets it grow the table with the node count. */
	rh->ht = cds_lfht_new_flavor(init, 1, 0,
				     CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
				     &urcu_bp_flavor, NULL);
	if (!rh->ht) {
		free(rh);
		return -FI_ENOMEM;
	}
	*rh_p = rh;
	return 0;
}

void pl_av_rhash_close(struct pl_av_rhash *rh)
{
	if (!rh)
		return;
	/* Fails only on a non-empty table: the caller drained it. */
	(void)cds_lfht_destroy(rh->ht, NULL);
	free(rh);
}

struct pl_av_rhash_node *pl_av_rhash_add(struct pl_av_rhash *rh,
					 struct pl_av_rhash_node *node)
{
	struct pl_av_rhash_key key = { node->key, rh->addrlen };
	struct cds_lfht_node *got;

	node->hash = pl_av_rhash_hash(node->key, rh->addrlen);
	cds_lfht_node_init(&node->lnode);
	/* The node's fields were written before this; the library's commit
	 * is a full barrier that TSan cannot see, hence the annotation,
	 * which pairs with the subscribe in the match function. */
	pl_rcu_tsan_publish(node);
	pl_rcu_fork_guard_enter();	/* may queue a resize */
	pl_rcu_read_lock();
	got = cds_lfht_add_unique(rh->ht, node->hash, pl_av_rhash_match,
				  &key, &node->lnode);
	pl_rcu_read_unlock();
	pl_rcu_fork_guard_exit();
	return caa_container_of(got, struct pl_av_rhash_node, lnode);
}

void pl_av_rhash_del(struct pl_av_rhash *rh, struct pl_av_rhash_node *node)
{
	pl_rcu_fork_guard_enter();	/* may queue a resize */
	pl_rcu_read_lock();
	(void)cds_lfht_del(rh->ht, &node->lnode);
	pl_rcu_read_unlock();
	pl_rcu_fork_guard_exit();
}

struct pl_av_rhash_node *pl_av_rhash_lookup(struct pl_av_rhash *rh,
					    const void *addr)
{
	struct pl_av_rhash_key key = { addr, rh->addrlen };
	struct cds_lfht_iter iter;
	struct cds_lfht_node *lnode;

	cds_lfht_lookup(rh->ht, pl_av_rhash_hash(addr, rh->addrlen),
			pl_av_rhash_match, &key, &iter);
	lnode = cds_lfht_iter_get_node(&iter);
	if (!lnode)
		return NULL;
	return caa_container_of(lnode, struct pl_av_rhash_node, lnode);
}

void pl_av_rhash_drain(struct pl_av_rhash *rh,
		       void (*fn)(struct pl_av_rhash_node *node, void *arg),
		       void *arg)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *lnode;

	pl_rcu_read_lock();
	cds_lfht_first(rh->ht, &iter);
	while ((lnode = cds_lfht_iter_get_node(&iter)) != NULL) {
		struct pl_av_rhash_node *node =
			caa_container_of(lnode, struct pl_av_rhash_node,
					 lnode);

		/* Step before unlinking: the iterator reads the node's
		 * successor, which del leaves intact until a grace period. */
		cds_lfht_next(rh->ht, &iter);
		pl_rcu_tsan_subscribe(node);
		pl_rcu_fork_guard_enter();	/* may queue a resize */
		(void)cds_lfht_del(rh->ht, lnode);
		pl_rcu_fork_guard_exit();
		fn(node, arg);	/* may call pl_rcu_call: guard released */
	}
	pl_rcu_read_unlock();
}
