/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Stress test, third run: 4 producers and 2 consumers move
 * completions through a wait set holding two CQs (FI_WAIT_SET) and a
 * counter; the consumers block only in fi_wait on the set. Every CQ
 * completion must arrive exactly once, the counter must end at the
 * number of counted completions, and no consumer may hang: a watchdog
 * thread aborts the run when nothing moves for WATCHDOG_S seconds, and
 * fi_wait itself is given that long (its -FI_ETIMEDOUT fails the test).
 *
 * argv[1]: the total number of completions (default 200000); one in
 * COUNTED of them goes to the counter instead of a CQ.
 * argv[2]: the wait set's kind: fd (default), mutex_cond, yield, pollfd.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_wait_set.h"
#include "pl_cntr.h"
#include "pl_cq.h"
#include "pl_domain.h"

#define NPROD 4
#define NCONS 2
#define COUNTED 8		/* ids with id % COUNTED == 0: the counter */
#define BURST 16
#define WATCHDOG_S 60

static uint64_t total = 200000;
static enum fi_wait_obj set_kind = FI_WAIT_FD;

static struct fid_wait *ws;
static struct fid_cq *cqs[2];
static struct fid_cntr *cntr;
static atomic_uchar *seen;
static atomic_uint_fast64_t cq_got;	/* CQ completions consumed */
static atomic_uint_fast64_t moved;	/* anything, for the watchdog */
static atomic_int dup_seen, bad_ret, done, stop_watchdog;
static uint64_t cq_expected, cntr_expected;

static void *producer(void *arg)
{
	uint64_t p = (uintptr_t)arg;

	/* producer p writes ids p, p + NPROD, ... */
	for (uint64_t id = p; id < total; id += NPROD) {
		if (id % COUNTED == 0) {
			pl_cntr_inc(cntr);
		} else if (pl_cq_write(cqs[id & 1], (void *)(uintptr_t)(id + 1),
				       FI_SEND, 0, NULL, 0, 0,
				       FI_ADDR_NOTAVAIL)) {
			atomic_fetch_add(&bad_ret, 1);
		}
		atomic_fetch_add_explicit(&moved, 1, memory_order_relaxed);
	}
	return NULL;
}

static void consume_entry(struct fi_cq_entry *e)
{
	uint64_t id = (uintptr_t)e->op_context - 1;

	if (id >= total || id % COUNTED == 0 ||
	    atomic_exchange(&seen[id], 1) != 0)
		atomic_fetch_add(&dup_seen, 1);
	atomic_fetch_add(&cq_got, 1);
	atomic_fetch_add_explicit(&moved, 1, memory_order_relaxed);
}

static bool all_in(void)
{
	return atomic_load(&cq_got) == cq_expected &&
	       fi_cntr_read(cntr) == cntr_expected;
}

static void *consumer(void *arg)
{
	struct fi_cq_entry ent[BURST];
	ssize_t n;
	int ret;

	(void)arg;
	while (!atomic_load(&done)) {
		for (int q = 0; q < 2; q++) {
			while ((n = fi_cq_read(cqs[q], ent, BURST)) > 0)
				for (ssize_t i = 0; i < n; i++)
					consume_entry(&ent[i]);
			if (n != -FI_EAGAIN)
				atomic_fetch_add(&bad_ret, 1);
		}
		if (all_in()) {
			atomic_store(&done, 1);
			/* wake the other consumer: a signal on a member */
			fi_cntr_add(cntr, 0);
			break;
		}
		ret = fi_wait(ws, WATCHDOG_S * 1000);
		if (ret) {
			fprintf(stderr, "fi_wait: %d (cq %lu/%lu)\n", ret,
				(unsigned long)atomic_load(&cq_got),
				(unsigned long)cq_expected);
			atomic_fetch_add(&bad_ret, 1);
			break;
		}
	}
	return NULL;
}

static void *watchdog(void *arg)
{
	uint64_t last = UINT64_MAX, cur;
	int idle = 0;

	(void)arg;
	while (!atomic_load(&stop_watchdog)) {
		sleep(1);
		cur = atomic_load_explicit(&moved, memory_order_relaxed);
		idle = cur == last ? idle + 1 : 0;
		last = cur;
		if (idle >= WATCHDOG_S) {
			fprintf(stderr, "watchdog: no progress for %d s "
				"(cq %lu/%lu, cntr %lu/%lu)\n", WATCHDOG_S,
				(unsigned long)atomic_load(&cq_got),
				(unsigned long)cq_expected,
				(unsigned long)fi_cntr_read(cntr),
				(unsigned long)cntr_expected);
			abort();
		}
	}
	return NULL;
}

static void test_wait_set_two_cqs_and_counter(void **s)
{
	struct fi_domain_attr da = { .data_progress = FI_PROGRESS_MANUAL,
				     .threading = FI_THREAD_SAFE,
				     .mr_mode = FI_MR_LOCAL };
	struct fi_info info = { .domain_attr = &da };
	struct fi_wait_attr wa = { .wait_obj = set_kind };
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT,
				  .wait_obj = FI_WAIT_SET };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_SET };
	pthread_t prod[NPROD], cons[NCONS], wd;
	struct pl_domain *dom = calloc(1, sizeof(*dom));

	(void)s;
	assert_non_null(dom);
	seen = calloc(total, sizeof(*seen));
	assert_non_null(seen);
	cntr_expected = (total + COUNTED - 1) / COUNTED;
	cq_expected = total - cntr_expected;
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	assert_int_equal(pl_wait_open(NULL, &wa, &ws), 0);
	cqa.wait_set = ws;
	ca.wait_set = ws;
	for (int q = 0; q < 2; q++)
		assert_int_equal(pl_cq_open(&dom->domain_fid, &cqa, &cqs[q],
					    NULL), 0);
	assert_int_equal(pl_cntr_open(&dom->domain_fid, &ca, &cntr, NULL), 0);

	assert_int_equal(pthread_create(&wd, NULL, watchdog, NULL), 0);
	for (int i = 0; i < NCONS; i++)
		assert_int_equal(pthread_create(&cons[i], NULL, consumer,
						NULL), 0);
	for (uintptr_t i = 0; i < NPROD; i++)
		assert_int_equal(pthread_create(&prod[i], NULL, producer,
						(void *)i), 0);
	for (int i = 0; i < NPROD; i++)
		pthread_join(prod[i], NULL);
	for (int i = 0; i < NCONS; i++)
		pthread_join(cons[i], NULL);
	atomic_store(&stop_watchdog, 1);
	pthread_join(wd, NULL);

	assert_int_equal(atomic_load(&bad_ret), 0);
	assert_int_equal(atomic_load(&dup_seen), 0);
	assert_int_equal(atomic_load(&cq_got), cq_expected);
	assert_int_equal(fi_cntr_read(cntr), cntr_expected);
	for (uint64_t id = 0; id < total; id++)
		if (id % COUNTED)
			assert_int_equal(atomic_load(&seen[id]), 1);

	assert_int_equal(fi_close(&ws->fid), -FI_EBUSY);
	for (int q = 0; q < 2; q++)
		assert_int_equal(fi_close(&cqs[q]->fid), 0);
	assert_int_equal(fi_close(&cntr->fid), 0);
	assert_int_equal(fi_close(&ws->fid), 0);
	assert_int_equal(pl_domain_fini(dom), 0);
	free(dom);
	free(seen);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_set_two_cqs_and_counter),
	};

	if (argc > 1)
		total = strtoull(argv[1], NULL, 0);
	if (argc > 2) {
		if (!strcmp(argv[2], "mutex_cond"))
			set_kind = FI_WAIT_MUTEX_COND;
		else if (!strcmp(argv[2], "yield"))
			set_kind = FI_WAIT_YIELD;
		else if (!strcmp(argv[2], "pollfd"))
			set_kind = FI_WAIT_POLLFD;
	}
	if (total < 1) {
		fprintf(stderr, "skip: no completions asked for\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
