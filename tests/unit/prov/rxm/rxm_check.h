/* SPDX-License-Identifier: BSD-2-Clause */
/* The rxm tests' checks: a failed one names its place and exits 1. */
#ifndef PROPEL_RXM_CHECK_H
#define PROPEL_RXM_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                        \
	do {                                                            \
		if (!(c)) {                                             \
			fprintf(stderr, "%s:%d: CHECK FAILED: %s\n",    \
				__FILE__, __LINE__, #c);                \
			exit(1);                                        \
		}                                                       \
	} while (0)
#define CHECK_EQ(a, b)                                                  \
	do {                                                            \
		long long a_ = (long long)(a), b_ = (long long)(b);     \
		if (a_ != b_) {                                         \
			fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);    \
			exit(1);                                        \
		}                                                       \
	} while (0)

#endif /* PROPEL_RXM_CHECK_H */
