/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The software cost of one message, without the machine's cross-core
 * cost: ONE process sends to its own endpoint and receives it (receive
 * posted, send or inject, completions read until it lands), on whatever
 * single CPU it runs. A two-process ping-pong's one-way latency is about
 * this plus the cache-line floor (perf/shm/bench_cacheline_floor); this
 * number moves only with the library's own code, so it is the one to
 * compare when a change is meant to save instructions, fences or
 * locked operations (it showed three rep stos of 200+ bytes per
 * message, and the auto-progress token's cost).
 *
 *   taskset -c 1 bench_fabric_selfloop [-p shm] [-t] [-a] [-s 8] [-r reps]
 * Prints one CSV row: ns per message, median and spread of the samples.
 * Run it on propel with LD_LIBRARY_PATH=<propel build>/lib.
 */
#include <stdio.h>

#include <rdma/fi_cm.h>

#include "bf_common.h"
#include "pl_bench.h"

struct sl_state {
	struct bf_side *side;
	size_t len;
	unsigned iters;
	unsigned seq;
};

static double sl_sample(void *arg)
{
	struct sl_state *st = arg;
	struct bf_side *s = st->side;
	uint64_t t0 = pl_bench_now_ns();
	unsigned i;

	for (i = 0; i < st->iters; i++, st->seq++) {
		bf_recv(s, st->len, st->seq);
		bf_send(s, st->len, st->seq);
		bf_wait(s, s->tx_done, s->rx_done + 1);
	}
	return (double)(pl_bench_now_ns() - t0) / (double)st->iters;
}

int main(int argc, char **argv)
{
	struct bf_opts o;
	struct bf_side s = { 0 };
	struct sl_state st = { .side = &s };
	struct pl_bench_series series = {
		.name = "selfloop", .unit = "ns", .sample = sl_sample,
		.arg = &st,
	};
	struct pl_bench_stats stats;
	char name[256];
	size_t len = sizeof(name);
	int ret;

	bf_opts_parse(argc, argv, "[-s size]", &o);
	st.len = o.size ? o.size : 8;
	o.min_size = o.max_size = st.len;
	st.iters = o.iters * 50;	/* ~0.2 ns resolution per sample */
	series.warmup = o.warmup;
	series.reps = o.reps;
	s.opts = &o;
	bf_side_open(&s);
	if ((ret = fi_getname(&s.ep->fid, name, &len)) ||
	    fi_av_insert(s.av, name, 1, &s.peer, 0, NULL) != 1) {
		fprintf(stderr, "selfloop: cannot address its own endpoint "
			"(%d)\n", ret);
		return 1;
	}
	if (pl_bench_run(&series, &stats, NULL))
		return 1;
	pl_bench_csv_header(stdout);
	pl_bench_csv_row(stdout, "selfloop", pl_bench_library_name(), st.len,
			 "ns", &stats);
	bf_side_close(&s);
	return 0;
}
