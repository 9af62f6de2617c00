/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Ping-pong latency between two processes over an RDM endpoint, 1 B to
 * 4 MiB (fi_send/fi_recv, or fi_tsend/fi_trecv with -t; inject for sizes
 * within inject_size). Prints one CSV row per size: half the round trip
 * in microseconds, median and spread of the timed samples. Each size has
 * untimed warm-up samples first, so address resolution and connection
 * set-up never land in the timed loop.
 *
 *   bench_fabric_pingpong [-p shm] [-t] [-m 1] [-M 4194304] [-r reps] ...
 * Run it on propel with LD_LIBRARY_PATH=<propel build>/lib.
 */
#include <stdio.h>

#include "bf_common.h"
#include "pl_bench.h"

struct pp_state {
	struct bf_side *side;
	size_t len;
	unsigned iters;
	unsigned seq;
};

/* One round trip as the initiator: receive posted before the send. */
static void pp_ping(struct pp_state *st)
{
	struct bf_side *s = st->side;

	bf_recv(s, st->len, st->seq);
	bf_send(s, st->len, st->seq);
	st->seq++;
	bf_wait(s, s->tx_done + 0, s->rx_done + 1);
}

static double pp_sample(void *arg)
{
	struct pp_state *st = arg;
	uint64_t t0 = pl_bench_now_ns();
	unsigned i;

	for (i = 0; i < st->iters; i++)
		pp_ping(st);
	return (double)(pl_bench_now_ns() - t0) / 1e3 / (2.0 * st->iters);
}

static int pp_body(struct bf_side *side, void *arg)
{
	const struct bf_opts *o = side->opts;
	const char *bench = o->tagged ? "pingpong_tagged" : "pingpong_msg";
	struct pp_state st = { .side = side };
	struct pl_bench_stats stats;
	size_t len;
	uint64_t i, total;

	(void)arg;
	if (side->rank == 0)
		pl_bench_csv_header(stdout);
	for (len = o->min_size; len <= o->max_size; len *= 2) {
		st.len = len;
		st.iters = bf_iters_for(o, len);
		bf_barrier(side);
		if (side->rank == 0) {
			struct pl_bench_series series = {
				.name = bench, .unit = "us",
				.warmup = o->warmup, .reps = o->reps,
				.sample = pp_sample, .arg = &st,
			};

			if (pl_bench_run(&series, &stats, NULL))
				return 1;
			pl_bench_csv_row(stdout, bench, pl_bench_library_name(),
					 len, "us", &stats);
			fflush(stdout);
		} else {
			/* the echo side: as many round trips as rank 0 makes */
			uint64_t tx0 = side->tx_done;

			total = (uint64_t)(o->warmup + o->reps) * st.iters;
			for (i = 0; i < total; i++) {
				bf_recv(side, len, (unsigned)i);
				bf_wait(side, side->tx_done, side->rx_done + 1);
				bf_send(side, len, (unsigned)i);
			}
			/* every send completes before the barrier: under
			 * manual progress a message sent through bounce
			 * buffers moves on only while its sender polls, so
			 * blocking in the barrier first would leave rank 0
			 * waiting for the last reply's tail (a hang above
			 * four bounce buffers on propel's shm) */
			bf_wait(side, tx0 + total, side->rx_done);
		}
		/* sends still completing are drained before the next size */
		bf_barrier(side);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bf_opts opts;

	bf_opts_parse(argc, argv, NULL, &opts);
	return bf_run_pair(&opts, pp_body, NULL);
}
