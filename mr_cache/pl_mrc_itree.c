/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The interval tree of pl_mrc_itree.h.
 *
 * Correctness: the order is total (ties broken by address), so removal
 * finds exactly the node asked for. Every path that changes a subtree
 * rebuilds it bottom-up through pl_mrc_itree_balance, which recomputes
 * height and max_end from the children after each rotation; hence
 * max_end is exact at every node, and a walk may skip a subtree whose
 * max_end does not reach the query, and the right part of a subtree
 * once a node starts past the query's end (everything to its right
 * starts at least as late). Recursion depth is the AVL height, at most
 * about 1.44 log2(n) (under 90 for any count memory can hold).
 */
#include <stddef.h>

#include "pl_compiler.h"
#include "pl_mrc_itree.h"

typedef struct pl_mrc_itree_node node_t;

static inline int pl_mrc_itree_height(const node_t *n)
{
	return n ? n->height : 0;
}

static void pl_mrc_itree_fix(node_t *n)
{
	int hl = pl_mrc_itree_height(n->left);
	int hr = pl_mrc_itree_height(n->right);
	uintptr_t m = n->end;

	n->height = 1 + PL_MAX(hl, hr);
	if (n->left && n->left->max_end > m)
		m = n->left->max_end;
	if (n->right && n->right->max_end > m)
		m = n->right->max_end;
	n->max_end = m;
}

static int pl_mrc_itree_cmp(const node_t *a, const node_t *b)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a != b)
		return (uintptr_t)a < (uintptr_t)b ? -1 : 1;
	return 0;
}

static node_t *pl_mrc_itree_rot_right(node_t *y)
{
	node_t *x = y->left;

	y->left = x->right;
	x->right = y;
	pl_mrc_itree_fix(y);
	pl_mrc_itree_fix(x);
	return x;
}

static node_t *pl_mrc_itree_rot_left(node_t *x)
{
	node_t *y = x->right;

	x->right = y->left;
	y->left = x;
	pl_mrc_itree_fix(x);
	pl_mrc_itree_fix(y);
	return y;
}

static node_t *pl_mrc_itree_balance(node_t *n)
{
	int bf;

	pl_mrc_itree_fix(n);
	bf = pl_mrc_itree_height(n->left) - pl_mrc_itree_height(n->right);
	if (bf > 1) {
		if (pl_mrc_itree_height(n->left->left) <
		    pl_mrc_itree_height(n->left->right))
			n->left = pl_mrc_itree_rot_left(n->left);
		return pl_mrc_itree_rot_right(n);
	}
	if (bf < -1) {
		if (pl_mrc_itree_height(n->right->right) <
		    pl_mrc_itree_height(n->right->left))
			n->right = pl_mrc_itree_rot_right(n->right);
		return pl_mrc_itree_rot_left(n);
	}
	return n;
}

static node_t *pl_mrc_itree_ins(node_t *root, node_t *n)
{
	if (!root)
		return n;
	if (pl_mrc_itree_cmp(n, root) < 0)
		root->left = pl_mrc_itree_ins(root->left, n);
	else
		root->right = pl_mrc_itree_ins(root->right, n);
	return pl_mrc_itree_balance(root);
}

void pl_mrc_itree_init(struct pl_mrc_itree *t)
{
	t->root = NULL;
	t->count = 0;
}

void pl_mrc_itree_insert(struct pl_mrc_itree *t, node_t *n)
{
	n->left = n->right = NULL;
	n->height = 1;
	n->max_end = n->end;
	t->root = pl_mrc_itree_ins(t->root, n);
	t->count++;
}

static node_t *pl_mrc_itree_del_min(node_t *root, node_t **min_p)
{
	if (!root->left) {
		*min_p = root;
		return root->right;
	}
	root->left = pl_mrc_itree_del_min(root->left, min_p);
	return pl_mrc_itree_balance(root);
}

static node_t *pl_mrc_itree_del(node_t *root, node_t *n)
{
	node_t *min, *l, *r;
	int c;

	if (!root)
		return NULL;	/* not in the tree: a caller bug, tree intact */
	c = pl_mrc_itree_cmp(n, root);
	if (c < 0) {
		root->left = pl_mrc_itree_del(root->left, n);
	} else if (c > 0) {
		root->right = pl_mrc_itree_del(root->right, n);
	} else {
		l = root->left;
		r = root->right;
		if (!r)
			return l;
		r = pl_mrc_itree_del_min(r, &min);
		min->left = l;
		min->right = r;
		return pl_mrc_itree_balance(min);
	}
	return pl_mrc_itree_balance(root);
}

void pl_mrc_itree_remove(struct pl_mrc_itree *t, node_t *n)
{
	t->root = pl_mrc_itree_del(t->root, n);
	t->count--;
	n->left = n->right = NULL;
}

static int pl_mrc_itree_visit(node_t *n, uintptr_t start, uintptr_t end,
			      bool adj, pl_mrc_itree_fn fn, void *arg)
{
	int ret;

	while (n) {
		/* Nothing below ends late enough to meet the query. */
		if (adj ? n->max_end < start : n->max_end <= start)
			return 0;
		ret = pl_mrc_itree_visit(n->left, start, end, adj, fn, arg);
		if (ret)
			return ret;
		/* n and everything right of it start too late. */
		if (adj ? n->start > end : n->start >= end)
			return 0;
		if (adj ? n->end >= start : n->end > start) {
			ret = fn(n, arg);
			if (ret)
				return ret;
		}
		n = n->right;
	}
	return 0;
}

int pl_mrc_itree_walk(const struct pl_mrc_itree *t, uintptr_t start,
		      uintptr_t end, bool adjacent, pl_mrc_itree_fn fn,
		      void *arg)
{
	return pl_mrc_itree_visit(t->root, start, end, adjacent, fn, arg);
}

int pl_mrc_itree_walk_all(const struct pl_mrc_itree *t, pl_mrc_itree_fn fn,
			  void *arg)
{
	return pl_mrc_itree_visit(t->root, 0, UINTPTR_MAX, true, fn, arg);
}

static long pl_mrc_itree_chk(const node_t *n, const node_t *lo,
			     const node_t *hi)
{
	long cl, cr;
	uintptr_t m;

	if (!n)
		return 0;
	if (n->end <= n->start)
		return -1;
	if ((lo && pl_mrc_itree_cmp(n, lo) <= 0) ||
	    (hi && pl_mrc_itree_cmp(n, hi) >= 0))
		return -1;
	cl = pl_mrc_itree_chk(n->left, lo, n);
	cr = pl_mrc_itree_chk(n->right, n, hi);
	if (cl < 0 || cr < 0)
		return -1;
	if (n->height != 1 + PL_MAX(pl_mrc_itree_height(n->left),
				    pl_mrc_itree_height(n->right)))
		return -1;
	if (pl_mrc_itree_height(n->left) - pl_mrc_itree_height(n->right) > 1 ||
	    pl_mrc_itree_height(n->right) - pl_mrc_itree_height(n->left) > 1)
		return -1;
	m = n->end;
	if (n->left && n->left->max_end > m)
		m = n->left->max_end;
	if (n->right && n->right->max_end > m)
		m = n->right->max_end;
	if (m != n->max_end)
		return -1;
	return cl + cr + 1;
}

long pl_mrc_itree_check(const struct pl_mrc_itree *t)
{
	long n = pl_mrc_itree_chk(t->root, NULL, NULL);

	if (n >= 0 && (size_t)n != t->count)
		return -1;
	return n;
}
