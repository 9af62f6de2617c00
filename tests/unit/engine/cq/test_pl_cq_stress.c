/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 4 producer threads and 2 consumer threads move N completions through
 * one CQ (a small ring, so the overflow path works too). Consumers block
 * only through the CQ's wait object:
 *   "fd"    : FI_WAIT_FD, fi_trywait (pl_trywait) then epoll_wait(-1)
 *             on the fd from FI_GETWAIT;
 *   "sread" : FI_WAIT_UNSPEC, fi_cq_sreadfrom(timeout -1).
 * Waits are unbounded (auto progress: no sliced sleeps), so a lost
 * wake-up hangs and the watchdog fails the test. Every completion must
 * arrive exactly once, intact, and each consumer must see each
 * producer's completions in order. At the end the main thread writes
 * one STOP completion per consumer through the same CQ; a consumer that
 * takes several puts the extra back.
 *
 * Usage: test_pl_cq_stress [N [fd|sread]]; PROPEL_STRESS_ITEMS, when
 * set, overrides N (TSan runs use a smaller N).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_cq.h"
#include "pl_domain.h"
#include "pl_test_stress.h"
#include "pl_trywait.h"

#define PRODUCERS 4
#define CONSUMERS 2
#define BURST 64
#define STOP ((void *)~(uintptr_t)0)

static uint64_t n_items = 10000000;
static const char *mode = "fd";

struct run {
	struct fid_cq *cq;
	uint64_t per_producer;
	pthread_barrier_t start;
	pl_atomic_u64 consumed;		/* relaxed: progress hint only */
};

struct consumer {
	struct run *run;
	uint64_t *seen;			/* PRODUCERS x words bitmaps */
	uint64_t last[PRODUCERS];	/* last seq + 1 per producer */
	uint64_t received, out_of_order, corrupt, duplicates, errors;
	uint64_t sleeps;
};

struct producer {
	struct run *run;
	uint64_t id;
	uint64_t errors;
};

static size_t words(const struct run *r)
{
	return (size_t)(r->per_producer + 63) / 64;
}

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct pl_test_item it;
	uint64_t seq;

	pthread_barrier_wait(&p->run->start);
	for (seq = 0; seq < p->run->per_producer; seq++) {
		pl_test_item_make(&it, p->id, seq);
		/* item -> entry: every word travels in one field */
		if (pl_cq_write(p->run->cq, (void *)(uintptr_t)it.producer,
				it.seq, it.fill[0], (void *)(uintptr_t)it.fill[1],
				it.fill[2], it.fill[3], it.check))
			p->errors++;
	}
	return NULL;
}

static void take(struct consumer *c, const struct fi_cq_tagged_entry *e,
		 fi_addr_t src)
{
	struct run *r = c->run;
	struct pl_test_item it = {
		.producer = (uintptr_t)e->op_context, .seq = e->flags,
		.fill = { e->len, (uintptr_t)e->buf, e->data, e->tag },
		.check = src,
	};
	uint64_t *bits;

	c->received++;
	if (it.producer >= PRODUCERS || it.seq >= r->per_producer ||
	    !pl_test_item_valid(&it)) {
		c->corrupt++;
		return;
	}
	if (c->last[it.producer] > it.seq)
		c->out_of_order++;
	c->last[it.producer] = it.seq + 1;
	bits = c->seen + it.producer * words(r);
	if (bits[it.seq / 64] & (1ull << (it.seq % 64)))
		c->duplicates++;
	bits[it.seq / 64] |= 1ull << (it.seq % 64);
}

/* Consumes one batch; returns the STOP entries it held, or -1. */
static int batch(struct consumer *c, const struct fi_cq_tagged_entry *e,
		 const fi_addr_t *src, ssize_t n)
{
	int stops = 0;
	ssize_t i, real = 0;

	for (i = 0; i < n; i++) {
		if (e[i].op_context == STOP) {
			stops++;
			continue;
		}
		take(c, &e[i], src[i]);
		real++;
	}
	/* relaxed: tells main when to send the STOPs, orders nothing */
	pl_fetch_add_relaxed(&c->run->consumed, (uint64_t)real);
	return stops;
}

static void finish(struct consumer *c, int stops)
{
	/* keep one STOP, hand the others to the other consumers */
	while (--stops > 0)
		if (pl_cq_write(c->run->cq, STOP, 0, 0, NULL, 0, 0, 0))
			c->errors++;
}

static void *consume_fd(void *arg)
{
	struct consumer *c = arg;
	struct fid *f = &c->run->cq->fid;
	struct fi_cq_tagged_entry e[BURST];
	struct epoll_event ev = { .events = EPOLLIN };
	fi_addr_t src[BURST];
	int fd = -1, epfd, stops;
	ssize_t n;

	if (fi_control(f, FI_GETWAIT, &fd) || fd < 0) {
		c->errors++;
		return NULL;
	}
	epfd = epoll_create1(0);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) {
		c->errors++;
		return NULL;
	}
	pthread_barrier_wait(&c->run->start);
	for (;;) {
		n = fi_cq_readfrom(c->run->cq, e, BURST, src);
		if (n > 0) {
			stops = batch(c, e, src, n);
			if (stops) {
				finish(c, stops);
				break;
			}
			continue;
		}
		if (n != -FI_EAGAIN) {
			c->errors++;
			break;
		}
		if (pl_trywait(NULL, &f, 1) == 0) {
			c->sleeps++;
			if (epoll_wait(epfd, &ev, 1, -1) < 0)
				c->errors++;
		}
	}
	close(epfd);
	return NULL;
}

static void *consume_sread(void *arg)
{
	struct consumer *c = arg;
	struct fi_cq_tagged_entry e[BURST];
	fi_addr_t src[BURST];
	int stops;
	ssize_t n;

	pthread_barrier_wait(&c->run->start);
	for (;;) {
		n = fi_cq_sreadfrom(c->run->cq, e, BURST, src, NULL, -1);
		if (n > 0) {
			stops = batch(c, e, src, n);
			if (stops) {
				finish(c, stops);
				break;
			}
			continue;
		}
		if (n != -FI_EAGAIN) {
			c->errors++;
			break;
		}
		c->sleeps++;	/* woken with nothing left: someone won it */
	}
	return NULL;
}

static void run_scenario(enum fi_wait_obj wait, void *(*consume)(void *))
{
	static struct fi_domain_attr da;
	static struct fi_info info;
	struct fi_cq_attr attr = {
		.size = 128, .format = FI_CQ_FORMAT_TAGGED, .wait_obj = wait,
	};
	struct pl_domain *dom = calloc(1, sizeof(*dom));
	struct consumer cons[CONSUMERS];
	struct producer prod[PRODUCERS];
	pthread_t tc[CONSUMERS], tp[PRODUCERS];
	struct run r = { .per_producer = n_items / PRODUCERS };
	uint64_t p, s, received = 0, sleeps = 0;
	unsigned i;
	char what[64];

	snprintf(what, sizeof(what), "pl_cq_stress %s N=%llu", mode,
		 (unsigned long long)n_items);
	pl_stress_watchdog(what, n_items >= 1000000 ? 900 : 300);

	assert_non_null(dom);
	/* auto progress: the waitable sleeps unsliced, so a lost wake-up
	 * is a hang, not a 1 ms delay */
	da.data_progress = FI_PROGRESS_AUTO;
	da.threading = FI_THREAD_SAFE;
	da.mr_mode = FI_MR_VIRT_ADDR;
	info.domain_attr = &da;
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &r.cq, NULL), 0);
	atomic_init(&r.consumed, 0);
	assert_int_equal(pthread_barrier_init(&r.start, NULL,
					      PRODUCERS + CONSUMERS), 0);
	memset(cons, 0, sizeof(cons));
	for (i = 0; i < CONSUMERS; i++) {
		cons[i].run = &r;
		cons[i].seen = calloc(PRODUCERS * words(&r), sizeof(uint64_t));
		assert_non_null(cons[i].seen);
		assert_int_equal(pthread_create(&tc[i], NULL, consume,
						&cons[i]), 0);
	}
	for (i = 0; i < PRODUCERS; i++) {
		prod[i] = (struct producer){ .run = &r, .id = i };
		assert_int_equal(pthread_create(&tp[i], NULL, produce,
						&prod[i]), 0);
	}
	for (i = 0; i < PRODUCERS; i++) {
		pthread_join(tp[i], NULL);
		assert_int_equal(prod[i].errors, 0);
	}
	/* every real completion taken before the STOPs go in */
	while (pl_load_relaxed(&r.consumed) < r.per_producer * PRODUCERS)
		usleep(1000);
	for (i = 0; i < CONSUMERS; i++)
		assert_int_equal(pl_cq_write(r.cq, STOP, 0, 0, NULL, 0, 0, 0),
				 0);
	for (i = 0; i < CONSUMERS; i++)
		pthread_join(tc[i], NULL);
	pl_stress_watchdog_off();

	for (i = 0; i < CONSUMERS; i++) {
		assert_int_equal(cons[i].errors, 0);
		assert_int_equal(cons[i].corrupt, 0);
		assert_int_equal(cons[i].out_of_order, 0);
		assert_int_equal(cons[i].duplicates, 0);
		received += cons[i].received;
		sleeps += cons[i].sleeps;
	}
	assert_int_equal(received, r.per_producer * PRODUCERS);
	for (p = 0; p < PRODUCERS; p++) {
		for (s = 0; s < r.per_producer; s++) {
			unsigned hits = 0;

			for (i = 0; i < CONSUMERS; i++)
				hits += !!(cons[i].seen[p * words(&r) + s / 64] &
					   (1ull << (s % 64)));
			if (hits != 1)
				fail_msg("producer %llu seq %llu arrived %u times",
					 (unsigned long long)p,
					 (unsigned long long)s, hits);
		}
	}
	printf("# %s: %llu completions, %llu consumer sleeps\n", what,
	       (unsigned long long)received, (unsigned long long)sleeps);
	for (i = 0; i < CONSUMERS; i++)
		free(cons[i].seen);
	pthread_barrier_destroy(&r.start);
	assert_int_equal(fi_close(&r.cq->fid), 0);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

static void test_stress(void **state)
{
	(void)state;
	if (!strcmp(mode, "sread"))
		run_scenario(FI_WAIT_UNSPEC, consume_sread);
	else
		run_scenario(FI_WAIT_FD, consume_fd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};
	const char *env = getenv("PROPEL_STRESS_ITEMS");

	if (argc > 1)
		n_items = strtoull(argv[1], NULL, 10);
	if (argc > 2)
		mode = argv[2];
	if (env && *env)
		n_items = strtoull(env, NULL, 10);
	n_items -= n_items % PRODUCERS;
	if (!n_items)
		n_items = PRODUCERS;
	if (strcmp(mode, "fd") && strcmp(mode, "sread")) {
		fprintf(stderr, "unknown mode %s (fd|sread)\n", mode);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
