/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_bufpool under concurrency (suites unit and concurrency): objects
 * allocated on one thread and freed on another, no object handed to two
 * owners, per-thread caches given back when a thread exits, and a pool
 * destroyed while threads that used it are still alive (ASan/LSan and
 * TSan check the memory side).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_bufpool.h"
#include "pl_ring.h"
#include "pl_test_stress.h"

#define PL_TEST_WATCHDOG_S 300
#define PL_TEST_THREADS 4
#define PL_TEST_OBJ 64

/* Each thread allocates, stamps the object with its id and a serial
 * number, and passes it on a ring to the next thread, which checks the
 * stamp and frees it: every free is cross-thread. A pool that handed one
 * object to two owners would break a stamp (and TSan would see the two
 * unsynchronized writers). */
struct pl_test_relay {
	struct pl_bufpool *pool;
	struct pl_ring *rings;	/* rings[i]: from thread i to i + 1 */
	uint64_t rounds;
	pthread_barrier_t start;
};

struct pl_test_relay_arg {
	struct pl_test_relay *relay;
	unsigned id;
	uint64_t bad;
	uint64_t enomem;
};

static void pl_test_stamp(void *obj, uint64_t who, uint64_t n)
{
	uint64_t *w = obj;
	size_t i;

	for (i = 0; i < PL_TEST_OBJ / 8; i++)
		w[i] = who << 48 | n << 8 | i;
}

static bool pl_test_stamp_ok(const void *obj)
{
	const uint64_t *w = obj;
	size_t i;

	for (i = 0; i < PL_TEST_OBJ / 8; i++)
		if (w[i] != ((w[0] & ~0xffull) | i))
			return false;
	return true;
}

static void *pl_test_relay_thread(void *p)
{
	struct pl_test_relay_arg *a = p;
	struct pl_test_relay *r = a->relay;
	struct pl_ring *out = &r->rings[a->id];
	struct pl_ring *in = &r->rings[(a->id + PL_TEST_THREADS - 1) %
				       PL_TEST_THREADS];
	uint64_t sent = 0, got = 0;

	pthread_barrier_wait(&r->start);
	while (sent < r->rounds || got < r->rounds) {
		void *obj;

		if (sent < r->rounds) {
			if (pl_bufpool_alloc(r->pool, &obj) == 0) {
				pl_test_stamp(obj, a->id, sent);
				if (pl_ring_enqueue_spsc(out, &obj) == 0)
					sent++;
				else
					pl_bufpool_free(r->pool, obj);
			} else {
				a->enomem++;
			}
		}
		if (got < r->rounds && pl_ring_dequeue_spsc(in, &obj) == 0) {
			if (!pl_test_stamp_ok(obj))
				a->bad++;
			pl_bufpool_free(r->pool, obj);
			got++;
		} else {
			sched_yield();
		}
	}
	return NULL;
}

static void test_cross_thread_free_relay(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = PL_TEST_OBJ,
					.cache_objs = 8 };
	struct pl_test_relay relay = { .rounds = pl_stress_items() / 8 };
	struct pl_test_relay_arg args[PL_TEST_THREADS];
	pthread_t th[PL_TEST_THREADS];
	unsigned i;

	relay.rings = aligned_alloc(PL_CACHELINE,
				    PL_TEST_THREADS * sizeof(struct pl_ring));
	assert_non_null(relay.rings);
	for (i = 0; i < PL_TEST_THREADS; i++)
		assert_int_equal(pl_ring_init(&relay.rings[i], sizeof(void *),
					      64), 0);
	assert_int_equal(pl_bufpool_create(&attr, &relay.pool), 0);
	assert_int_equal(pthread_barrier_init(&relay.start, NULL,
					      PL_TEST_THREADS), 0);
	pl_stress_watchdog("bufpool relay", PL_TEST_WATCHDOG_S);
	for (i = 0; i < PL_TEST_THREADS; i++) {
		args[i] = (struct pl_test_relay_arg){ .relay = &relay, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL,
						pl_test_relay_thread, &args[i]),
				 0);
	}
	for (i = 0; i < PL_TEST_THREADS; i++)
		pthread_join(th[i], NULL);
	pl_stress_watchdog_off();
	for (i = 0; i < PL_TEST_THREADS; i++) {
		assert_int_equal(args[i].bad, 0);
		assert_int_equal(args[i].enomem, 0);
		pl_ring_fini(&relay.rings[i]);
	}
	pthread_barrier_destroy(&relay.start);
	pl_bufpool_destroy(relay.pool);
	free(relay.rings);
}

/* A bounded pool: a thread takes every object, frees them all (most
 * land in its cache) and exits; its cache must come back, or the main
 * thread could not take them all again. */
static void *pl_test_take_all(void *p)
{
	struct pl_bufpool *pool = p;
	void *objs[64];
	int i;

	for (i = 0; i < 64; i++)
		if (pl_bufpool_alloc(pool, &objs[i]))
			return (void *)1;
	for (i = 0; i < 64; i++)
		pl_bufpool_free(pool, objs[i]);
	return NULL;
}

static void test_thread_exit_returns_its_cache(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = 32, .max_objs = 64,
					.cache_objs = 32 };
	struct pl_bufpool *pool;
	void *objs[64], *ret;
	pthread_t th;
	int i, round;

	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	for (round = 0; round < 3; round++) {
		assert_int_equal(pthread_create(&th, NULL, pl_test_take_all,
						pool), 0);
		pthread_join(th, &ret);
		assert_null(ret);
	}
	for (i = 0; i < 64; i++)
		assert_int_equal(pl_bufpool_alloc(pool, &objs[i]), 0);
	for (i = 0; i < 64; i++)
		pl_bufpool_free(pool, objs[i]);
	pl_bufpool_destroy(pool);
}

/* Threads fill their caches in two pools, then wait while the main
 * thread destroys the first; they go on with the second (and with a
 * pool created after the destroy, which may reuse the address) and exit
 * only then, their exit handlers running after the destroy. */
struct pl_test_live {
	struct pl_bufpool *doomed, *kept, *fresh;
	pthread_barrier_t filled, destroyed;
	uint64_t errors;	/* under the barriers' ordering */
	pthread_mutex_t lock;
};

static void *pl_test_live_thread(void *p)
{
	struct pl_test_live *l = p;
	void *objs[40];
	int i, err = 0;

	for (i = 0; i < 40; i++)
		err |= pl_bufpool_alloc(l->doomed, &objs[i]);
	for (i = 0; i < 40; i++)
		pl_bufpool_free(l->doomed, objs[i]);
	for (i = 0; i < 40; i++)
		err |= pl_bufpool_alloc(l->kept, &objs[i]);
	for (i = 0; i < 20; i++)
		pl_bufpool_free(l->kept, objs[i]);
	pthread_barrier_wait(&l->filled);
	pthread_barrier_wait(&l->destroyed);
	for (i = 20; i < 40; i++)
		pl_bufpool_free(l->kept, objs[i]);
	for (i = 0; i < 40; i++)
		err |= pl_bufpool_alloc(l->fresh, &objs[i]);
	for (i = 0; i < 40; i++)
		pl_bufpool_free(l->fresh, objs[i]);
	if (err) {
		pthread_mutex_lock(&l->lock);
		l->errors++;
		pthread_mutex_unlock(&l->lock);
	}
	return NULL;
}

static void test_destroy_while_threads_live(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = 96, .cache_objs = 16 };
	struct pl_test_live l = { 0 };
	pthread_t th[PL_TEST_THREADS];
	unsigned i;

	assert_int_equal(pl_bufpool_create(&attr, &l.doomed), 0);
	assert_int_equal(pl_bufpool_create(&attr, &l.kept), 0);
	pthread_mutex_init(&l.lock, NULL);
	pthread_barrier_init(&l.filled, NULL, PL_TEST_THREADS + 1);
	pthread_barrier_init(&l.destroyed, NULL, PL_TEST_THREADS + 1);
	pl_stress_watchdog("bufpool destroy with live threads",
			   PL_TEST_WATCHDOG_S);
	for (i = 0; i < PL_TEST_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL,
						pl_test_live_thread, &l), 0);
	pthread_barrier_wait(&l.filled);
	pl_bufpool_destroy(l.doomed);
	assert_int_equal(pl_bufpool_create(&attr, &l.fresh), 0);
	pthread_barrier_wait(&l.destroyed);
	for (i = 0; i < PL_TEST_THREADS; i++)
		pthread_join(th[i], NULL);
	pl_stress_watchdog_off();
	assert_int_equal(l.errors, 0);
	pl_bufpool_destroy(l.kept);
	pl_bufpool_destroy(l.fresh);
	pthread_barrier_destroy(&l.filled);
	pthread_barrier_destroy(&l.destroyed);
	pthread_mutex_destroy(&l.lock);
}

/* Threads that come and go reuse thread slots: many more threads than
 * the cache table has entries, a few at a time. */
static void *pl_test_short_lived(void *p)
{
	struct pl_bufpool *pool = p;
	void *obj;

	if (pl_bufpool_alloc(pool, &obj))
		return (void *)1;
	memset(obj, 0x33, 16);
	pl_bufpool_free(pool, obj);
	return NULL;
}

static void test_many_short_lived_threads(void **state)
{
	struct pl_bufpool_attr attr = { .obj_size = 16, .max_objs = 256 };
	struct pl_bufpool *pool;
	pthread_t th[8];
	void *ret;
	int round, i;

	assert_int_equal(pl_bufpool_create(&attr, &pool), 0);
	for (round = 0; round < 300; round++) {
		for (i = 0; i < 8; i++)
			assert_int_equal(pthread_create(&th[i], NULL,
							pl_test_short_lived,
							pool), 0);
		for (i = 0; i < 8; i++) {
			pthread_join(th[i], &ret);
			assert_null(ret);
		}
	}
	pl_bufpool_destroy(pool);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cross_thread_free_relay),
		cmocka_unit_test(test_thread_exit_returns_its_cache),
		cmocka_unit_test(test_destroy_while_threads_live),
		cmocka_unit_test(test_many_short_lived_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
