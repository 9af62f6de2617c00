/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_av_rhash: the reverse map of an AV, provider address -> fi_addr_t,
 * for FI_SOURCE. A liburcu-cds lock-free hash table (cds_lfht, auto-resize)
 * keyed by the address bytes; lookups take no lock and no atomic
 * read-modify-write.
 *
 * Nodes belong to the caller (embedded in an AV entry, or allocated by the
 * shared AV for its local view): the map links them, never frees them. A
 * node taken out with pl_av_rhash_del() may still be seen by a lookup that
 * started before the removal, so its memory (and its key's) is reclaimed
 * after a grace period (pl_rcu_call).
 *
 * Synchronization table:
 *
 *              lookup  add   del   drain  close
 *   lookup     yes     yes   yes   no     no
 *   add        yes     yes   yes*  no     no
 *   del        yes     yes*  yes*  no     no
 *
 *   (*) on different nodes; the map keeps at most one node per key (add
 *   returns the node already there), deleting one node twice is the
 *   caller's bug. drain and close run alone (AV close: no other call).
 *
 * Every function may be called inside or outside a read-side section
 * except lookup, which must be inside one (the node it returns is valid
 * until pl_rcu_read_unlock()).
 */
#ifndef PROPEL_PL_AV_RHASH_H
#define PROPEL_PL_AV_RHASH_H

#include <stddef.h>

#include <rdma/fabric.h>

#include "pl_rcu.h"
#include <urcu/rculfhash.h>

struct pl_av_rhash;

struct pl_av_rhash_node {
	struct cds_lfht_node lnode;	/* liburcu-cds links */
	fi_addr_t fi_addr;		/* value; set before add, then fixed */
	const unsigned char *key;	/* addrlen bytes; set before add, then
					 * fixed, alive as long as the node */
	unsigned long hash;		/* of key; set by add */
};

/* A map for keys of addrlen bytes, sized for about count entries (a hint;
 * the table resizes itself). 0, -FI_EINVAL or -FI_ENOMEM. */
int pl_av_rhash_open(size_t addrlen, size_t count,
		     struct pl_av_rhash **rh_p);

/* The map must be empty (see drain). */
void pl_av_rhash_close(struct pl_av_rhash *rh);

/*
 * Link node (key and fi_addr already set) unless another node has the same
 * key. Returns node itself when linked, else the node already present
 * (which the caller may inspect only inside a read-side section). Takes
 * its own read-side section; implies a full barrier when it links.
 */
struct pl_av_rhash_node *pl_av_rhash_add(struct pl_av_rhash *rh,
					 struct pl_av_rhash_node *node);

/* Unlink node (linked by add). Takes its own read-side section; the caller
 * reclaims the node after a grace period. */
void pl_av_rhash_del(struct pl_av_rhash *rh, struct pl_av_rhash_node *node);

/*
 * The node whose key equals addr, or NULL. Call inside
 * pl_rcu_read_lock(); the node stays valid until the unlock. Lock-free:
 * loads only (the library's traversal acts as rcu_dereference).
 */
struct pl_av_rhash_node *pl_av_rhash_lookup(struct pl_av_rhash *rh,
					    const void *addr);

/* Unlink every node, handing each to fn (AV close: nothing else runs). */
void pl_av_rhash_drain(struct pl_av_rhash *rh,
		       void (*fn)(struct pl_av_rhash_node *node, void *arg),
		       void *arg);

#endif /* PROPEL_PL_AV_RHASH_H */
