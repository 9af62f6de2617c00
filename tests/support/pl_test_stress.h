/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A producer/consumer harness for the queue tests (pl_ring, pl_spillq):
 * P producer threads each enqueue items/P numbered entries, C consumer
 * threads dequeue until all items are in, and every consumer checks, per
 * producer, that what it receives comes in increasing order (which the
 * queues promise to one consumer thread). Afterwards the main thread
 * checks that every item arrived exactly once and that no entry was torn.
 *
 * Threads never call cmocka (it is not thread-safe): they count problems
 * and the test asserts on the counts. A watchdog (alarm) turns a hang
 * into a failure that names the scenario.
 */
#ifndef PROPEL_PL_TEST_STRESS_H
#define PROPEL_PL_TEST_STRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 56 bytes: a struct fi_cq_tagged_entry (48) plus a flag word, the
 * shape a CQ stores. Every word is derived from (producer, seq), so a
 * torn or mixed copy is detected. */
struct pl_test_item {
	uint64_t producer;
	uint64_t seq;
	uint64_t fill[4];
	uint64_t check;
};

struct pl_stress_cfg {
	const char *name;
	void *q;
	/* 0, or -FI_EAGAIN to be retried */
	int (*enqueue)(void *q, const void *entry);
	/* count >= 1 of entries written to out, or -FI_EAGAIN */
	ssize_t (*dequeue)(void *q, void *out, size_t n);
	unsigned producers;
	unsigned consumers;
	uint64_t items;		/* in all; a multiple of producers */
	size_t burst;		/* most entries asked per dequeue call */
	/* called by producer threads after every enqueue (to sample a
	 * statistic, or to pace themselves); may be NULL */
	void (*after_enqueue)(void *q, uint64_t seq);
};

struct pl_stress_result {
	uint64_t received;
	uint64_t duplicates;
	uint64_t missing;
	uint64_t out_of_order;
	uint64_t corrupt;
	uint64_t enqueue_full;	/* -FI_EAGAIN answers to producers */
	uint64_t enqueue_errors;
};

/* 0 on success (the result then says what happened), -1 if threads
 * could not be started. */
int pl_stress_run(const struct pl_stress_cfg *cfg,
		  struct pl_stress_result *res);

/* Items for a scenario: 2 million by default; PROPEL_STRESS_ITEMS
 * overrides (rounded to a multiple of 4). */
uint64_t pl_stress_items(void);

/* Fails the process (exit 1, naming what) if not disarmed in time. */
void pl_stress_watchdog(const char *what, unsigned seconds);
void pl_stress_watchdog_off(void);

void pl_test_item_make(struct pl_test_item *it, uint64_t producer,
		       uint64_t seq);
bool pl_test_item_valid(const struct pl_test_item *it);

#endif /* PROPEL_PL_TEST_STRESS_H */
