/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Removing addresses while other threads resolve them (DESIGN.md section
 * 5): 4 threads look up fi_addr_t values in a tight loop, current ones and
 * stale ones, while a writer inserts and removes OPS addresses (argv[1];
 * 1000000 in suite stress, 50000 in unit/concurrency), its live set
 * doubling every eighth of the run so that the table grows from 16 slots
 * to more than 8192.
 *
 * Every address is unique and names itself: a serial number, repeated in
 * two scrambled forms, also passed as the FI_AV_USER_ID. A lookup must
 * return either -FI_EADDRNOTAVAIL or a peer whose bytes are whole, whose
 * user ID is its serial, and whose serial is the one the writer inserted
 * under that very fi_addr_t (the writer logs serial -> fi_addr_t after each
 * insert; a lookup may see an entry before its log, never a different
 * one). The reverse map must agree. ASan and TSan builds turn any
 * use-after-free or unordered access into a failure. An alarm bounds the
 * run.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_av.h"
#include "pl_av_int.h"

#define READERS		4
#define RECENT		4096		/* handles offered to the readers */
#define MAX_LIVE	8192
#define ADDR_MAGIC	0x5eedf00du
#define SCRAMBLE_X	0x9e3779b97f4a7c15ULL
#define SCRAMBLE_M	0xff51afd7ed558ccdULL
#define LOG_UNSET	UINT64_MAX
#define WATCHDOG_S	1800		/* a hang, not a slow machine */

struct stress_addr {
	uint32_t magic;
	uint32_t zero;
	uint64_t serial;
	uint64_t serial_x;	/* serial ^ SCRAMBLE_X */
	uint64_t serial_m;	/* serial * SCRAMBLE_M */
};

static size_t ops = 50000;
static struct fid_av *av;
static pl_atomic_u64 *handle_log;	/* serial -> fi_addr_t, or LOG_UNSET */
static pl_atomic_u64 recent[RECENT];
static pl_atomic_int stop;
static pl_atomic_int failed;

struct reader {
	pthread_t th;
	uint64_t seed;
	uint64_t hits, misses;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct stress_addr addr_of(uint64_t serial)
{
	struct stress_addr a = {
		.magic = ADDR_MAGIC, .serial = serial,
		.serial_x = serial ^ SCRAMBLE_X,
		.serial_m = serial * SCRAMBLE_M,
	};
	return a;
}

static void report_failure(const char *what, fi_addr_t fa, uint64_t serial)
{
	fprintf(stderr, "FAIL: %s (fi_addr 0x%llx serial %llu)\n", what,
		(unsigned long long)fa, (unsigned long long)serial);
	pl_store_relaxed(&failed, 1);	/* read after the joins */
}

/* Check one resolved peer against what the writer inserted; inside the
 * read-side section that produced it. */
static void check_peer(fi_addr_t fa, const struct pl_av_peer *peer)
{
	const struct stress_addr *a = peer->addr;
	fi_addr_t logged, rev;
	int ret;

	if (a->magic != ADDR_MAGIC || a->zero ||
	    a->serial_x != (a->serial ^ SCRAMBLE_X) ||
	    a->serial_m != a->serial * SCRAMBLE_M || a->serial >= ops) {
		report_failure("torn or foreign address bytes", fa, a->serial);
		return;
	}
	if (peer->fi_addr != fa || peer->user_id != a->serial) {
		report_failure("peer does not carry its own handle and user id", fa,
		     a->serial);
		return;
	}
	/* Acquire: pairs with the writer's release after the insert. */
	logged = pl_load_acquire(&handle_log[a->serial]);
	if (logged != LOG_UNSET && logged != fa) {
		report_failure("address inserted under another fi_addr_t", fa, a->serial);
		return;
	}
	ret = pl_av_reverse_lookup(av, a, &rev, NULL);
	if (ret != -FI_ENODATA && (ret || rev != fa))
		report_failure("reverse map disagrees", fa, a->serial);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pl_av_peer peer;
	fi_addr_t fa;
	int ret;

	/* Relaxed: stop only ends the loop; the join orders the rest. */
	while (!pl_load_relaxed(&stop)) {
		uint64_t x = rnd(&r->seed);

		if (x & 1)	/* a handle the writer handed out lately */
			fa = pl_load_relaxed(&recent[(x >> 1) % RECENT]);
		else		/* any index, a few generations */
			fa = pl_av_table_handle((x >> 8) % (2 * MAX_LIVE),
						(uint32_t)(x >> 1) % 4);
		pl_rcu_read_lock();
		ret = pl_av_lookup_peer(av, fa, &peer);
		if (!ret)
			check_peer(fa, &peer);
		pl_rcu_read_unlock();
		if (ret == 0)
			r->hits++;
		else if (ret == -FI_EADDRNOTAVAIL)
			r->misses++;
		else
			report_failure("lookup returned neither 0 nor -FI_EADDRNOTAVAIL",
			     fa, 0);
	}
	return NULL;
}

struct writer {
	fi_addr_t live_fa[MAX_LIVE];
	uint64_t live_serial[MAX_LIVE];
	size_t live;
	uint64_t serial;
	uint64_t seed;
};

static void writer_insert(struct writer *w)
{
	struct stress_addr a = addr_of(w->serial);
	fi_addr_t fa = w->serial;	/* in: the user id; out: handle */

	if (fi_av_insert(av, &a, 1, &fa, FI_AV_USER_ID, NULL) != 1) {
		report_failure("insert", fa, w->serial);
		return;
	}
	/* Release: pairs with check_peer's acquire. */
	pl_store_release(&handle_log[w->serial], fa);
	pl_store_relaxed(&recent[w->serial % RECENT], fa); /* a hint only */
	w->live_fa[w->live] = fa;
	w->live_serial[w->live++] = w->serial++;
}

static void writer_remove(struct writer *w)
{
	size_t k = rnd(&w->seed) % w->live;
	fi_addr_t fa = w->live_fa[k];

	if (fi_av_remove(av, &fa, 1, 0))
		report_failure("remove", fa, w->live_serial[k]);
	w->live--;
	w->live_fa[k] = w->live_fa[w->live];
	w->live_serial[k] = w->live_serial[w->live];
}

static void run(void)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 16 };
	struct reader readers[READERS];
	struct writer *w;
	struct pl_av_peer peer;
	size_t op, i, phase_len = ops / 8 ? ops / 8 : 1;
	uint64_t hits = 0;

	handle_log = malloc(ops * sizeof(*handle_log));
	w = calloc(1, sizeof(*w));
	assert_non_null(handle_log);
	assert_non_null(w);
	for (i = 0; i < ops; i++)
		pl_store_relaxed(&handle_log[i], LOG_UNSET); /* before threads */
	for (i = 0; i < RECENT; i++)
		pl_store_relaxed(&recent[i], FI_ADDR_NOTAVAIL);
	assert_int_equal(pl_av_open(NULL, &attr, sizeof(struct stress_addr),
				    NULL, &av, NULL), 0);
	assert_int_equal(__pl_av_table_nslots(&pl_av_of(av)->table), 16);
	w->seed = 0x1234567;
	for (i = 0; i < READERS; i++) {
		readers[i].seed = 0x9876543 + i * 7919;
		readers[i].hits = readers[i].misses = 0;
		assert_int_equal(pthread_create(&readers[i].th, NULL,
						reader_main, &readers[i]), 0);
	}
	/* The writer: one insert or remove per op, keeping about `target'
	 * addresses live, the target doubling each phase (64 .. 8192). */
	for (op = 0; op < ops; op++) {
		size_t target = (size_t)64 << (op / phase_len);

		if (target > MAX_LIVE)
			target = MAX_LIVE;
		if (w->live == 0 || (w->live < target &&
				     (rnd(&w->seed) % 4 || w->live < target / 2)))
			writer_insert(w);
		else
			writer_remove(w);
	}
	pl_store_relaxed(&stop, 1);
	for (i = 0; i < READERS; i++) {
		assert_int_equal(pthread_join(readers[i].th, NULL), 0);
		hits += readers[i].hits;
	}
	/* After the storm: every live address resolves to itself, and the
	 * table grew several times. */
	pl_rcu_read_lock();
	for (i = 0; i < w->live; i++) {
		assert_int_equal(pl_av_lookup_peer(av, w->live_fa[i], &peer), 0);
		check_peer(w->live_fa[i], &peer);
	}
	pl_rcu_read_unlock();
	assert_true(__pl_av_table_nslots(&pl_av_of(av)->table) >= MAX_LIVE);
	printf("stress: %zu ops, %zu live at the end, %zu slots, reader hits "
	       "%llu\n", ops, w->live,
	       __pl_av_table_nslots(&pl_av_of(av)->table),
	       (unsigned long long)hits);
	assert_int_equal(pl_load_relaxed(&failed), 0);
	/* The readers did meet live peers, not only misses. */
	assert_true(hits > 0);
	assert_int_equal(fi_close(&av->fid), 0);
	free(w);
	free(handle_log);
}

static void test_lookups_see_current_or_absent_during_churn(void **state)
{
	run();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookups_see_current_or_absent_during_churn),
	};

	if (argc > 1)
		ops = strtoull(argv[1], NULL, 10);
	if (ops < 8)
		ops = 8;
	alarm(WATCHDOG_S);	/* SIGALRM ends a hung run, reported failed */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
