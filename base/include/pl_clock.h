/* SPDX-License-Identifier: BSD-2-Clause */
/* The monotonic clock in nanoseconds, for deadlines and stall bounds. */
#ifndef PROPEL_PL_CLOCK_H
#define PROPEL_PL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pl_clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* PROPEL_PL_CLOCK_H */
