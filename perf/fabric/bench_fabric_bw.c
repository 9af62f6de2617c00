/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Windowed bandwidth and message rate between two processes over an RDM
 * endpoint: rank 0 keeps BF_WINDOW sends in flight, rank 1 pre-posts as
 * many receives and answers each window with a 1-byte acknowledgement
 * (the shape of osu_bw). Prints two CSV rows per size: MB/s
 * ("bw_msg"/"bw_tagged") and millions of messages per second
 * ("rate_msg"/"rate_tagged"), medians and spread of the timed samples,
 * after untimed warm-up samples.
 */
#include <stdio.h>

#include "bf_common.h"
#include "pl_bench.h"

struct bw_state {
	struct bf_side *side;
	size_t len;
	unsigned windows;
};

static void bw_window_send(struct bw_state *st)
{
	struct bf_side *s = st->side;
	unsigned i;

	bf_recv(s, 1, 0);	/* the acknowledgement */
	for (i = 0; i < BF_WINDOW; i++)
		bf_send(s, st->len, i);
	bf_wait(s, s->tx_done, s->rx_done + 1);
}

static void bw_window_recv(struct bw_state *st)
{
	struct bf_side *s = st->side;
	uint64_t want = s->rx_done + BF_WINDOW;
	unsigned i;

	for (i = 0; i < BF_WINDOW; i++)
		bf_recv(s, st->len, i);
	bf_wait(s, s->tx_done, want);
	bf_send(s, 1, 0);
}

static double bw_sample(void *arg)
{
	struct bw_state *st = arg;
	struct bf_side *s = st->side;
	uint64_t t0 = pl_bench_now_ns(), tx0 = s->tx_done;
	unsigned w;

	for (w = 0; w < st->windows; w++)
		bw_window_send(st);
	/* every send completed: the buffers are the application's again */
	bf_wait(s, tx0 + (uint64_t)st->windows * BF_WINDOW, s->rx_done);
	return (double)st->len * BF_WINDOW * st->windows /
	       (double)(pl_bench_now_ns() - t0) * 1e3;	/* MB/s */
}

static void bw_print_rate(const char *bench, size_t len,
			  const struct pl_bench_stats *bw)
{
	/* MB/s over the message size is messages per microsecond */
	struct pl_bench_stats r = *bw;
	double k = 1.0 / (double)len;

	r.median *= k; r.min *= k; r.max *= k; r.mean *= k;
	r.p10 *= k; r.p90 *= k;
	pl_bench_csv_row(stdout, bench, pl_bench_library_name(), len,
			 "Mmsg/s", &r);
}

static int bw_body(struct bf_side *side, void *arg)
{
	const struct bf_opts *o = side->opts;
	struct bw_state st = { .side = side };
	struct pl_bench_stats stats;
	size_t len;
	uint64_t i, total;

	(void)arg;
	if (side->rank == 0)
		pl_bench_csv_header(stdout);
	for (len = o->min_size; len <= o->max_size; len *= 2) {
		st.len = len;
		st.windows = (bf_iters_for(o, len) + BF_WINDOW - 1) / BF_WINDOW;
		bf_barrier(side);
		if (side->rank == 0) {
			struct pl_bench_series series = {
				.name = "bw", .unit = "MB/s",
				.warmup = o->warmup, .reps = o->reps,
				.sample = bw_sample, .arg = &st,
			};

			if (pl_bench_run(&series, &stats, NULL))
				return 1;
			pl_bench_csv_row(stdout, o->tagged ? "bw_tagged" : "bw_msg",
					 pl_bench_library_name(), len, "MB/s",
					 &stats);
			bw_print_rate(o->tagged ? "rate_tagged" : "rate_msg",
				      len, &stats);
			fflush(stdout);
		} else {
			uint64_t tx0 = side->tx_done;

			total = (uint64_t)(o->warmup + o->reps) * st.windows;
			for (i = 0; i < total; i++)
				bw_window_recv(&st);
			/* one acknowledgement per window, all completed */
			bf_wait(side, tx0 + total, side->rx_done);
		}
		bf_barrier(side);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bf_opts opts;

	bf_opts_parse(argc, argv, NULL, &opts);
	return bf_run_pair(&opts, bw_body, NULL);
}
