/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers of the auto-progress and peer-death tests (test_shm_auto.c, test_shm_peer_death.c): the
 * stack of shm_ep_test.h opened with a chosen data_progress, and sleeps.
 */
#ifndef PROPEL_TESTS_SHM_AUTO_TEST_H
#define PROPEL_TESTS_SHM_AUTO_TEST_H

#include <time.h>

#include "shm_ep_test.h"

#define CAPS (FI_MSG | FI_TAGGED)

/* Open the stack like tep_open, with data_progress `prog` and caps. */
static inline int auto_open_caps(struct tep *t, enum fi_progress prog,
				 uint64_t caps)
{
	return tep_open_progress(t, caps, prog);
}

static inline int auto_open(struct tep *t, enum fi_progress prog)
{
	return auto_open_caps(t, prog, CAPS);
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* PROPEL_TESTS_SHM_AUTO_TEST_H */
