/* SPDX-License-Identifier: BSD-2-Clause */
/* The producer/consumer harness of pl_test_stress.h. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_test_stress.h"

#define PL_STRESS_MAX_BURST 64

struct pl_stress_run {
	const struct pl_stress_cfg *cfg;
	uint64_t per_producer;
	pthread_barrier_t start;
	/* relaxed counters: only their final values matter, read after
	 * the joins (which order them) */
	pl_atomic_u64 consumed;
	pl_atomic_u64 abandoned;
	pl_atomic_u64 enqueue_full;
	pl_atomic_u64 enqueue_errors;
};

struct pl_stress_consumer {
	struct pl_stress_run *run;
	uint64_t *seen;		/* producers x words bitmaps */
	uint64_t *last;		/* per producer: last seq + 1, 0 = none */
	uint64_t received;
	uint64_t out_of_order;
	uint64_t corrupt;
	uint64_t duplicates;	/* seen twice by this consumer */
};

struct pl_stress_producer {
	struct pl_stress_run *run;
	uint64_t id;
};

static uint64_t pl_test_mix(uint64_t producer, uint64_t seq, uint64_t k)
{
	uint64_t x = (producer << 40) ^ seq ^ (k * 0x9e3779b97f4a7c15ull);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 29);
}

void pl_test_item_make(struct pl_test_item *it, uint64_t producer,
		       uint64_t seq)
{
	int i;

	it->producer = producer;
	it->seq = seq;
	for (i = 0; i < 4; i++)
		it->fill[i] = pl_test_mix(producer, seq, (uint64_t)i);
	it->check = pl_test_mix(producer, seq, 99);
}

bool pl_test_item_valid(const struct pl_test_item *it)
{
	int i;

	for (i = 0; i < 4; i++)
		if (it->fill[i] != pl_test_mix(it->producer, it->seq,
					       (uint64_t)i))
			return false;
	return it->check == pl_test_mix(it->producer, it->seq, 99);
}

static size_t pl_stress_words(const struct pl_stress_run *run)
{
	return (size_t)(run->per_producer + 63) / 64;
}

static void *pl_stress_produce(void *arg)
{
	struct pl_stress_producer *p = arg;
	struct pl_stress_run *run = p->run;
	const struct pl_stress_cfg *cfg = run->cfg;
	struct pl_test_item it;
	uint64_t seq, full = 0;

	pthread_barrier_wait(&run->start);
	for (seq = 0; seq < run->per_producer; seq++) {
		int ret;

		pl_test_item_make(&it, p->id, seq);
		while ((ret = cfg->enqueue(cfg->q, &it)) == -FI_EAGAIN) {
			full++;
			sched_yield();
		}
		if (ret) {
			/* relaxed: statistics, see struct */
			pl_fetch_add_relaxed(&run->enqueue_errors, 1);
			pl_fetch_add_relaxed(&run->abandoned, 1);
		}
		if (cfg->after_enqueue)
			cfg->after_enqueue(cfg->q, seq);
	}
	pl_fetch_add_relaxed(&run->enqueue_full, full);
	return NULL;
}

static void pl_stress_take(struct pl_stress_consumer *c,
			   const struct pl_test_item *it)
{
	struct pl_stress_run *run = c->run;
	uint64_t *bits;

	c->received++;
	if (it->producer >= run->cfg->producers ||
	    it->seq >= run->per_producer || !pl_test_item_valid(it)) {
		c->corrupt++;
		return;
	}
	/* Each consumer must see each producer's entries in order. */
	if (c->last[it->producer] > it->seq)
		c->out_of_order++;
	c->last[it->producer] = it->seq + 1;
	bits = c->seen + it->producer * pl_stress_words(run);
	if (bits[it->seq / 64] & (1ull << (it->seq % 64)))
		c->duplicates++;
	bits[it->seq / 64] |= 1ull << (it->seq % 64);
}

static void *pl_stress_consume(void *arg)
{
	struct pl_stress_consumer *c = arg;
	struct pl_stress_run *run = c->run;
	const struct pl_stress_cfg *cfg = run->cfg;
	struct pl_test_item buf[PL_STRESS_MAX_BURST];
	size_t burst = cfg->burst ? cfg->burst : 1;

	if (burst > PL_STRESS_MAX_BURST)
		burst = PL_STRESS_MAX_BURST;
	pthread_barrier_wait(&run->start);
	/* relaxed: the loop ends once every item is accounted for; the
	 * counters only decide when to stop looking */
	while (pl_load_relaxed(&run->consumed) +
		       pl_load_relaxed(&run->abandoned) < cfg->items) {
		ssize_t i, k = cfg->dequeue(cfg->q, buf, burst);

		if (k == -FI_EAGAIN) {
			sched_yield();
			continue;
		}
		if (k <= 0 || (size_t)k > burst) {
			c->corrupt++;
			break;
		}
		for (i = 0; i < k; i++)
			pl_stress_take(c, &buf[i]);
		pl_fetch_add_relaxed(&run->consumed, (uint64_t)k);
	}
	return NULL;
}

int pl_stress_run(const struct pl_stress_cfg *cfg, struct pl_stress_result *res)
{
	struct pl_stress_run run = { .cfg = cfg };
	pthread_t threads[64];
	struct pl_stress_producer prod[32];
	struct pl_stress_consumer cons[32];
	unsigned i, n = 0;
	uint64_t p, s;
	size_t words;
	int ret = -1;

	if (cfg->producers > 32 || cfg->consumers > 32 || !cfg->producers ||
	    !cfg->consumers || cfg->items % cfg->producers)
		return -1;
	memset(res, 0, sizeof(*res));
	run.per_producer = cfg->items / cfg->producers;
	words = pl_stress_words(&run);
	atomic_init(&run.consumed, 0);
	atomic_init(&run.abandoned, 0);
	atomic_init(&run.enqueue_full, 0);
	atomic_init(&run.enqueue_errors, 0);
	memset(cons, 0, sizeof(cons));
	for (i = 0; i < cfg->consumers; i++) {
		cons[i].run = &run;
		cons[i].seen = calloc(cfg->producers * words, sizeof(uint64_t));
		cons[i].last = calloc(cfg->producers, sizeof(uint64_t));
		if (!cons[i].seen || !cons[i].last)
			goto out;
	}
	if (pthread_barrier_init(&run.start, NULL,
				 cfg->producers + cfg->consumers))
		goto out;
	for (i = 0; i < cfg->consumers; i++)
		if (pthread_create(&threads[n], NULL, pl_stress_consume,
				   &cons[i]) == 0)
			n++;
	for (i = 0; i < cfg->producers; i++) {
		prod[i].run = &run;
		prod[i].id = i;
		if (pthread_create(&threads[n], NULL, pl_stress_produce,
				   &prod[i]) == 0)
			n++;
	}
	if (n != cfg->producers + cfg->consumers) {
		/* the barrier would never open: nothing sensible to do */
		fprintf(stderr, "%s: cannot start threads\n", cfg->name);
		abort();
	}
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&run.start);

	for (i = 0; i < cfg->consumers; i++) {
		res->received += cons[i].received;
		res->out_of_order += cons[i].out_of_order;
		res->corrupt += cons[i].corrupt;
		res->duplicates += cons[i].duplicates;
	}
	for (p = 0; p < cfg->producers; p++) {
		for (s = 0; s < run.per_producer; s++) {
			unsigned hits = 0;

			for (i = 0; i < cfg->consumers; i++) {
				uint64_t *bits = cons[i].seen + p * words;

				hits += !!(bits[s / 64] & (1ull << (s % 64)));
			}
			if (!hits)
				res->missing++;
			else if (hits > 1)
				res->duplicates += hits - 1;
		}
	}
	res->enqueue_full = pl_load_relaxed(&run.enqueue_full);
	res->enqueue_errors = pl_load_relaxed(&run.enqueue_errors);
	ret = 0;
out:
	for (i = 0; i < cfg->consumers; i++) {
		free(cons[i].seen);
		free(cons[i].last);
	}
	return ret;
}

uint64_t pl_stress_items(void)
{
	const char *s = getenv("PROPEL_STRESS_ITEMS");
	uint64_t n = 2000000;

	if (s && *s)
		n = strtoull(s, NULL, 10);
	n -= n % 4;
	return n ? n : 4;
}

static const char *pl_stress_what;

static void pl_stress_alarm(int sig)
{
	static const char msg[] = "watchdog: scenario did not finish: ";

	(void)sig;
	/* async-signal-safe output only */
	(void)!write(2, msg, sizeof(msg) - 1);
	if (pl_stress_what)
		(void)!write(2, pl_stress_what, strlen(pl_stress_what));
	(void)!write(2, "\n", 1);
	_exit(1);
}

void pl_stress_watchdog(const char *what, unsigned seconds)
{
	pl_stress_what = what;
	signal(SIGALRM, pl_stress_alarm);
	alarm(seconds);
}

void pl_stress_watchdog_off(void)
{
	alarm(0);
}
