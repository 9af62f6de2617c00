/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Match cost per message with N posted tagged receives (distinct exact
 * tags): pl_match with exact-tag hashing beside the same engine with
 * hashing off (one list, linear scan: the reference in the same run).
 * One operation = arrival of a message for a random posted tag + done +
 * reposting that tag (so N stays constant and the repost goes to the
 * tail, as in an application that reposts its receives).
 *
 * Second table, the unexpected path: N unexpected messages with distinct
 * tags; one operation = posting an exact receive for a random queued tag
 * (it matches) + done + the same tag arriving again (queued).
 *
 * Usage: bench_pl_match [ops per sample] [reps]
 * Prints medians (ns per message) and the ratio linear / hashed.
 * Not a test: no pass or fail on a time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>

#include "pl_bench.h"
#include "pl_match.h"

static char buf[64];
static struct iovec iov = { buf, sizeof(buf) };

struct run {
	struct pl_match m;
	int unexp;
	size_t n, ops;
	uint64_t rng;
};

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int post_res(struct pl_match *m, uint64_t tag,
		    struct pl_match_result *res)
{
	struct pl_match_recv r = { .iov = &iov, .iov_count = 1,
		.src = FI_ADDR_UNSPEC, .tag = tag };

	return pl_match_post(m, PL_MATCH_TAGGED, &r, res);
}

static int arrive(struct pl_match *m, uint64_t tag,
		  struct pl_match_result *res)
{
	struct pl_match_hdr h = { .src = 0, .size = 8, .tag = tag };

	return pl_match_arrive(m, PL_MATCH_TAGGED, &h, res, NULL);
}

static double sample(void *arg)
{
	struct run *r = arg;
	struct pl_match_result res;
	uint64_t t0 = pl_bench_now_ns();
	uint64_t tag;
	size_t i;

	for (i = 0; i < r->ops; i++) {
		tag = next_rand(&r->rng) % r->n;
		if (r->unexp) {
			if (post_res(&r->m, tag, &res) != PL_MATCH_MATCHED)
				abort();
			pl_match_done(&r->m, &res);
			arrive(&r->m, tag, &res);
		} else {
			if (arrive(&r->m, tag, &res) != PL_MATCH_MATCHED)
				abort();
			pl_match_done(&r->m, &res);
			post_res(&r->m, tag, &res);
		}
	}
	return (double)(pl_bench_now_ns() - t0) / (double)r->ops;
}

static int measure(int unexp, size_t n, size_t buckets, size_t ops,
		   unsigned reps, struct pl_bench_stats *st)
{
	struct pl_match_attr a = { .hash_buckets = buckets };
	struct pl_match_result res;
	struct run r = { .unexp = unexp, .n = n, .ops = ops, .rng = 88172645463325252ull };
	struct pl_bench_series s = { .name = "match", .unit = "ns/msg",
		.warmup = 1, .reps = reps, .sample = sample, .arg = &r };
	size_t i;
	int ret;

	if (pl_match_init(&r.m, &a))
		return -1;
	for (i = 0; i < n; i++) {
		if (unexp)
			arrive(&r.m, i, &res);
		else
			post_res(&r.m, i, &res);
	}
	ret = pl_bench_run(&s, st, NULL);
	pl_match_fini(&r.m);
	return ret;
}

static int table(int unexp, size_t ops, unsigned reps)
{
	static const size_t ns[] = { 1, 16, 256, 1024, 4096 };
	size_t i;

	printf("%s\n%8s %14s %14s %10s\n", unexp ? "unexpected path (post)" :
	       "posted path (arrival)", "queued", "hashed_ns", "linear_ns",
	       "lin/hash");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct pl_bench_stats h, l;
		/* Fewer ops where the linear scan is long. */
		size_t o = ns[i] >= 1024 ? ops / 10 : ops;

		if (measure(unexp, ns[i], 4096, o, reps, &h) ||
		    measure(unexp, ns[i], 1, o, reps, &l))
			return 1;
		printf("%8zu %14.1f %14.1f %10.2f\n", ns[i], h.median,
		       l.median, pl_bench_ratio(l.median, h.median));
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t ops = argc > 1 ? strtoull(argv[1], NULL, 0) : 200000;
	unsigned reps = argc > 2 ? (unsigned)atoi(argv[2]) : 11;

	return table(0, ops, reps) || table(1, ops, reps);
}
