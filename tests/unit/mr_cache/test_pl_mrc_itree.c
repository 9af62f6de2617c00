/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The interval tree against a brute-force list: random inserts and
 * removals of overlapping, repeated and adjacent ranges; after each step
 * the AVL invariants and the max_end augmentation hold, and every walk
 * (overlap and adjacency) finds exactly the ranges the list does, in
 * ascending order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "pl_mrc_itree.h"

#define N 600

struct walk {
	struct pl_mrc_itree_node *seen[N];
	size_t n;
	int stop_after;
};

static int collect(struct pl_mrc_itree_node *n, void *arg)
{
	struct walk *w = arg;

	w->seen[w->n++] = n;
	return w->stop_after && (int)w->n == w->stop_after ? 7 : 0;
}

static bool meets(const struct pl_mrc_itree_node *n, uintptr_t s, uintptr_t e,
		  bool adj)
{
	return adj ? n->start <= e && n->end >= s : n->start < e && n->end > s;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check_walk(struct pl_mrc_itree *t, struct pl_mrc_itree_node *nodes,
		       bool *in, uintptr_t s, uintptr_t e, bool adj)
{
	struct walk w = { .n = 0 };
	size_t i, expect = 0, k;

	pl_mrc_itree_walk(t, s, e, adj, collect, &w);
	for (i = 0; i < N; i++)
		if (in[i] && meets(&nodes[i], s, e, adj))
			expect++;
	assert_int_equal(w.n, expect);
	for (k = 0; k < w.n; k++) {
		assert_true(meets(w.seen[k], s, e, adj));
		assert_true(in[w.seen[k] - nodes]);
		if (k)
			assert_true(w.seen[k - 1]->start <= w.seen[k]->start);
	}
}

static void test_random_against_list(void **state)
{
	static struct pl_mrc_itree_node nodes[N];
	static bool in[N];
	struct pl_mrc_itree t;
	size_t i, step;

	(void)state;
	pl_mrc_itree_init(&t);
	for (step = 0; step < 6000; step++) {
		i = next() % N;
		if (in[i]) {
			pl_mrc_itree_remove(&t, &nodes[i]);
			in[i] = false;
		} else {
			/* Small key space: many overlaps and duplicates. */
			nodes[i].start = next() % 2000;
			nodes[i].end = nodes[i].start + 1 + next() % 100;
			pl_mrc_itree_insert(&t, &nodes[i]);
			in[i] = true;
		}
		assert_true(pl_mrc_itree_check(&t) >= 0);
		if (step % 10 == 0) {
			uintptr_t s = next() % 2100, e = s + 1 + next() % 150;

			check_walk(&t, nodes, in, s, e, false);
			check_walk(&t, nodes, in, s, e, true);
		}
	}
	for (i = 0; i < N; i++)
		if (in[i])
			pl_mrc_itree_remove(&t, &nodes[i]);
	assert_int_equal(pl_mrc_itree_check(&t), 0);
	assert_null(t.root);
}

static void test_adjacent_and_stop(void **state)
{
	struct pl_mrc_itree_node a = { .start = 0, .end = 10 };
	struct pl_mrc_itree_node b = { .start = 10, .end = 20 };
	struct pl_mrc_itree_node c = { .start = 20, .end = 30 };
	struct pl_mrc_itree t;
	struct walk w = { .n = 0 };

	(void)state;
	pl_mrc_itree_init(&t);
	pl_mrc_itree_insert(&t, &c);
	pl_mrc_itree_insert(&t, &a);
	pl_mrc_itree_insert(&t, &b);
	/* [10, 20) overlaps only b; touching finds all three. */
	pl_mrc_itree_walk(&t, 10, 20, false, collect, &w);
	assert_int_equal(w.n, 1);
	assert_ptr_equal(w.seen[0], &b);
	w.n = 0;
	pl_mrc_itree_walk(&t, 10, 20, true, collect, &w);
	assert_int_equal(w.n, 3);
	/* A non-zero return stops the walk and is returned. */
	w.n = 0;
	w.stop_after = 2;
	assert_int_equal(pl_mrc_itree_walk_all(&t, collect, &w), 7);
	assert_int_equal(w.n, 2);
	assert_int_equal(pl_mrc_itree_check(&t), 3);
}

static void test_sequential_stays_balanced(void **state)
{
	static struct pl_mrc_itree_node nodes[4096];
	struct pl_mrc_itree t;
	size_t i;

	(void)state;
	pl_mrc_itree_init(&t);
	for (i = 0; i < 4096; i++) {
		nodes[i].start = i * 4096;
		nodes[i].end = nodes[i].start + 4096;
		pl_mrc_itree_insert(&t, &nodes[i]);
	}
	assert_int_equal(pl_mrc_itree_check(&t), 4096);
	/* AVL height bound: 1.44 log2(4097) < 18 */
	assert_true(t.root->height <= 18);
	for (i = 0; i < 4096; i += 2)
		pl_mrc_itree_remove(&t, &nodes[i]);
	assert_int_equal(pl_mrc_itree_check(&t), 2048);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_against_list),
		cmocka_unit_test(test_adjacent_and_stop),
		cmocka_unit_test(test_sequential_stays_balanced),
	};

	return cmocka_run_group_tests_name("pl_mrc_itree", tests, NULL, NULL);
}
