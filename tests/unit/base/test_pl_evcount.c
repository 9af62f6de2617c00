/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_evcount: single-thread outcomes of prepare / notify / cancel, then
 * the claim itself under load: notifiers publish items and notify, one
 * waiter takes them and blocks in read(2) on an eventfd whenever its
 * re-check finds nothing. A lost wake-up leaves the waiter blocked with
 * items pending and the test never ends (the suite's timeout reports it);
 * every item is accounted for, and the waiter blocks only through the
 * protocol. Runs in suite 'concurrency' (ThreadSanitizer in CI).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "pl_evcount.h"

#define PL_TEST_SLEEPING	1u
#define PL_TEST_WOKEN		2u

static void test_notify_wakes_only_a_sleeper_once(void **state)
{
	pl_atomic_u32 w = 0;

	/* nobody sleeps: no wake-up, the word untouched */
	assert_false(pl_evcount_notify(&w, PL_TEST_SLEEPING, PL_TEST_WOKEN));
	assert_int_equal(pl_load_relaxed(&w), 0);
	pl_evcount_prepare(&w, PL_TEST_SLEEPING);
	assert_int_equal(pl_load_relaxed(&w), PL_TEST_SLEEPING);
	/* the first notifier wins, the next ones coalesce */
	assert_true(pl_evcount_notify(&w, PL_TEST_SLEEPING, PL_TEST_WOKEN));
	assert_int_equal(pl_load_relaxed(&w), PL_TEST_WOKEN);
	assert_false(pl_evcount_notify(&w, PL_TEST_SLEEPING, PL_TEST_WOKEN));
	pl_evcount_cancel(&w);
	assert_int_equal(pl_load_relaxed(&w), 0);
	/* a cancelled attempt is not woken */
	pl_evcount_prepare(&w, PL_TEST_SLEEPING);
	pl_evcount_cancel(&w);
	assert_false(pl_evcount_notify(&w, PL_TEST_SLEEPING, PL_TEST_WOKEN));
}

static void test_prepare_sync_with_woken_zero(void **state)
{
	pl_atomic_u32 w = 0;

	/* the CQ's use: several waiters arm, one notifier clears to 0 */
	pl_evcount_prepare_sync(&w, 1);
	pl_evcount_prepare_sync(&w, 1);
	assert_true(pl_evcount_notify(&w, 1, 0));
	assert_int_equal(pl_load_relaxed(&w), 0);
	assert_false(pl_evcount_notify(&w, 1, 0));
}

struct pl_test_ec {
	pl_atomic_u32 word;
	pl_atomic_u64 published;	/* items made visible (N0) */
	uint64_t per_notifier;
	int efd;
	uint64_t blocks;		/* waiter's blocking reads */
	uint64_t taken;
};

static void *pl_test_notifier(void *arg)
{
	struct pl_test_ec *ec = arg;
	uint64_t one = 1;

	for (uint64_t i = 0; i < ec->per_notifier; i++) {
		/* N0: release, the waiter's acquire re-check sees it */
		pl_fetch_add_acq_rel(&ec->published, 1);
		if (pl_evcount_notify(&ec->word, PL_TEST_SLEEPING,
				      PL_TEST_WOKEN))
			while (write(ec->efd, &one, sizeof(one)) < 0 &&
			       errno == EINTR)
				;
	}
	return NULL;
}

static void pl_test_run(unsigned notifiers, uint64_t per_notifier)
{
	struct pl_test_ec ec = { .per_notifier = per_notifier };
	pthread_t th[8];
	uint64_t total = notifiers * per_notifier, v;
	unsigned i;

	ec.efd = eventfd(0, EFD_CLOEXEC);
	assert_true(ec.efd >= 0);
	for (i = 0; i < notifiers; i++)
		assert_int_equal(pthread_create(&th[i], NULL, pl_test_notifier,
						&ec), 0);
	while (ec.taken < total) {
		uint64_t avail = pl_load_acquire(&ec.published);

		if (avail > ec.taken) {
			ec.taken = avail;	/* take everything visible */
			continue;
		}
		/* P1, P2, then P3: the re-check */
		pl_evcount_prepare(&ec.word, PL_TEST_SLEEPING);
		if (pl_load_acquire(&ec.published) == ec.taken) {
			ec.blocks++;
			while (read(ec.efd, &v, sizeof(v)) < 0 && errno == EINTR)
				;
		}
		pl_evcount_cancel(&ec.word);
	}
	for (i = 0; i < notifiers; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(ec.taken, total);
	assert_int_equal(pl_load_relaxed(&ec.published), total);
	close(ec.efd);
}

static void test_no_lost_wakeup_one_notifier(void **state)
{
	pl_test_run(1, 200000);
}

static void test_no_lost_wakeup_four_notifiers(void **state)
{
	pl_test_run(4, 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notify_wakes_only_a_sleeper_once),
		cmocka_unit_test(test_prepare_sync_with_woken_zero),
		cmocka_unit_test(test_no_lost_wakeup_one_notifier),
		cmocka_unit_test(test_no_lost_wakeup_four_notifiers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
