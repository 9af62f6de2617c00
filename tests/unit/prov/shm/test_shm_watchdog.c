/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tests' watchdog (shm_test.h) catches hangs, not slow runs: a child
 * that keeps counting progress outlives many watchdog periods, and one
 * that stops is ended by SIGALRM after about one period. The period is
 * short here (2 s); the working child runs for 3 periods and counts
 * progress every 20 ms, 100 times per period.
 */
#define SHM_TEST_ALARM_S 2

#include <time.h>

#include "shm_test.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Slow but moving: 3 periods of work, progress every 20 ms. */
static void slow_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3 * SHM_TEST_ALARM_S * 50; i++) {
		sleep_ms(20);
		shm_test_progress();
	}
}

/* Hung: never counts progress again. */
static void hung_worker(void *arg)
{
	(void)arg;
	shm_test_progress();
	for (;;)
		pause();
}

int main(void)
{
	int slow, hung;

	slow = shm_test_wait(shm_test_spawn(slow_worker, NULL));
	hung = shm_test_wait(shm_test_spawn(hung_worker, NULL));
	if (slow != 0)
		fprintf(stderr, "a slow worker was ended (status %d)\n", slow);
	if (hung != 128 + SIGALRM)
		fprintf(stderr, "a hung worker ended with %d, not SIGALRM\n",
			hung);
	return slow != 0 || hung != 128 + SIGALRM;
}
