/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_mrc_itree: an interval tree over half-open address ranges
 * [start, end), an AVL tree ordered by (start, end, node address) and
 * augmented with the largest end of each subtree, so that every range
 * overlapping a query is found in O(log n + k).
 *
 * Ranges may overlap each other and repeat (the order breaks ties by the
 * node's address). Nodes are embedded in the caller's objects.
 *
 * Concurrency: none; the caller serializes every call on one tree (the
 * cache holds its lock). A walk's callback must not change the tree.
 */
#ifndef PROPEL_PL_MRC_ITREE_H
#define PROPEL_PL_MRC_ITREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pl_mrc_itree_node {
	struct pl_mrc_itree_node *left;
	struct pl_mrc_itree_node *right;
	uintptr_t start;	/* set before insert, constant while inserted */
	uintptr_t end;		/* > start */
	uintptr_t max_end;	/* largest end in this subtree */
	int height;		/* of this subtree; a leaf is 1 */
};

struct pl_mrc_itree {
	struct pl_mrc_itree_node *root;
	size_t count;
};

void pl_mrc_itree_init(struct pl_mrc_itree *t);
void pl_mrc_itree_insert(struct pl_mrc_itree *t, struct pl_mrc_itree_node *n);
/* n must be in t. */
void pl_mrc_itree_remove(struct pl_mrc_itree *t, struct pl_mrc_itree_node *n);

/*
 * Call fn for every node whose range meets [start, end), in ascending
 * order: overlapping it, or also touching it (n->end == start or
 * n->start == end) when adjacent is true. Stops when fn returns non-zero
 * and returns that value; 0 otherwise.
 */
typedef int (*pl_mrc_itree_fn)(struct pl_mrc_itree_node *n, void *arg);
int pl_mrc_itree_walk(const struct pl_mrc_itree *t, uintptr_t start,
		      uintptr_t end, bool adjacent, pl_mrc_itree_fn fn,
		      void *arg);

/* Every node, ascending (fn as above). */
int pl_mrc_itree_walk_all(const struct pl_mrc_itree *t, pl_mrc_itree_fn fn,
			  void *arg);

/* Checks the AVL balance, the order and the max_end augmentation; returns
 * the number of nodes, or -1 if something is wrong (tests). */
long pl_mrc_itree_check(const struct pl_mrc_itree *t);

#endif /* PROPEL_PL_MRC_ITREE_H */
