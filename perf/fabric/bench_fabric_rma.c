/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One-sided operations between two processes over an RDM endpoint: rank
 * 1 registers its buffer for remote read and write and only drives
 * progress; rank 0 measures, per size,
 *   put_lat / get_lat   fi_write / fi_read, one at a time, until its
 *                       completion (us per operation)
 *   put_bw / get_bw     BF_WINDOW operations in flight (MB/s)
 * and, once, atomic_lat: fi_fetch_atomic(FI_SUM, FI_UINT64) latency.
 * CSV rows as the other fabric benchmarks (medians and spread of the
 * timed samples after warm-up). Runs on the reference libfabric by
 * default and on propel with LD_LIBRARY_PATH=<build>/lib.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include "bf_common.h"
#include "pl_bench.h"

struct rma_state {
	struct bf_side *side;
	struct fid_mr *rmr;	/* remotely accessible registration */
	uint64_t raddr, rkey;	/* the peer's buffer */
	size_t len;
	unsigned iters;
	int kind;		/* 0 write, 1 read, 2 fetch-add */
	bool window;
	uint64_t one, old;
};

static void rma_die(const char *what, long ret)
{
	fprintf(stderr, "bench_fabric_rma: %s: %ld (%s)\n", what, ret,
		fi_strerror((int)-ret));
	exit(1);
}

static void rma_post(struct rma_state *st, unsigned slot)
{
	struct bf_side *s = st->side;
	void *ctx = &s->ctx[slot % BF_WINDOW];
	ssize_t ret;

	for (;;) {
		if (st->kind == 0)
			ret = fi_write(s->ep, s->buf, st->len, s->desc,
				       s->peer, st->raddr, st->rkey, ctx);
		else if (st->kind == 1)
			ret = fi_read(s->ep, s->buf, st->len, s->desc,
				      s->peer, st->raddr, st->rkey, ctx);
		else
			ret = fi_fetch_atomic(s->ep, &st->one, 1, NULL,
					      &st->old, NULL, s->peer,
					      st->raddr, st->rkey, FI_UINT64,
					      FI_SUM, ctx);
		if (!ret)
			return;
		if (ret != -FI_EAGAIN)
			rma_die("post", ret);
		/* drive progress; count what completes */
		{
			struct fi_cq_entry e;

			if (fi_cq_read(s->tx_cq, &e, 1) == 1)
				s->tx_done++;
		}
	}
}

static double rma_sample(void *arg)
{
	struct rma_state *st = arg;
	struct bf_side *s = st->side;
	uint64_t t0 = pl_bench_now_ns(), tx0 = s->tx_done;
	unsigned i;

	for (i = 0; i < st->iters; i++) {
		rma_post(st, i);
		/* latency: each one alone; bandwidth: windows of BF_WINDOW */
		if (!st->window || (i + 1) % BF_WINDOW == 0)
			bf_wait(s, tx0 + i + 1, 0);
	}
	bf_wait(s, tx0 + st->iters, 0);
	if (st->window)
		return (double)st->len * st->iters /
		       (double)(pl_bench_now_ns() - t0) * 1e3;	/* MB/s */
	return (double)(pl_bench_now_ns() - t0) / 1e3 / st->iters; /* us */
}

/* Rank 1: progress until rank 0 says this size is done. */
static void rma_serve(struct bf_side *s)
{
	struct pollfd p = { .fd = s->sock, .events = POLLIN };
	struct fi_cq_entry e;
	char c;

	for (;;) {
		(void)fi_cq_read(s->rx_cq, &e, 1);
		(void)fi_cq_read(s->tx_cq, &e, 1);
		if (poll(&p, 1, 0) == 1) {
			if (read(s->sock, &c, 1) != 1)
				rma_die("socket", -1);
			return;
		}
	}
}

static void rma_series(struct rma_state *st, const char *name,
		       const char *unit)
{
	const struct bf_opts *o = st->side->opts;
	struct pl_bench_stats stats;
	struct pl_bench_series series = {
		.name = name, .unit = unit, .warmup = o->warmup,
		.reps = o->reps, .sample = rma_sample, .arg = st,
	};

	if (pl_bench_run(&series, &stats, NULL))
		rma_die("pl_bench_run", -1);
	pl_bench_csv_row(stdout, name, pl_bench_library_name(), st->len, unit,
			 &stats);
	fflush(stdout);
}

static void rma_exchange(struct rma_state *st)
{
	struct bf_side *s = st->side;
	uint64_t mine[2] = { (uint64_t)(uintptr_t)s->buf, fi_mr_key(st->rmr) };
	uint64_t theirs[2];

	if (write(s->sock, mine, sizeof(mine)) != sizeof(mine) ||
	    read(s->sock, theirs, sizeof(theirs)) != sizeof(theirs))
		rma_die("key exchange", -1);
	/* FI_MR_VIRT_ADDR: the peer's address; otherwise offset 0 */
	st->raddr = (s->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
		    theirs[0] : 0;
	st->rkey = theirs[1];
}

static int rma_body(struct bf_side *side, void *arg)
{
	const struct bf_opts *o = side->opts;
	struct rma_state st = { .side = side, .one = 1 };
	static const char *names[2][2] = { { "put_lat", "put_bw" },
					   { "get_lat", "get_bw" } };
	long ret;
	char c = 'x';

	(void)arg;
	ret = fi_mr_reg(side->domain, side->buf, side->buf_size,
			FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
			0, 0, 0, &st.rmr, NULL);
	if (ret)
		rma_die("fi_mr_reg", ret);
	if (side->info->domain_attr->mr_mode & FI_MR_LOCAL)
		side->desc = fi_mr_desc(st.rmr);
	rma_exchange(&st);
	if (side->rank == 0)
		pl_bench_csv_header(stdout);
	for (st.len = o->min_size; st.len <= o->max_size; st.len *= 2) {
		bf_barrier(side);
		if (side->rank == 1) {
			rma_serve(side);
		} else {
			for (st.kind = 0; st.kind < 2; st.kind++) {
				st.window = false;
				st.iters = bf_iters_for(o, st.len) / 4 + 1;
				rma_series(&st, names[st.kind][0], "us");
				st.window = true;
				st.iters = (bf_iters_for(o, st.len) +
					    BF_WINDOW - 1) / BF_WINDOW *
					   BF_WINDOW;
				rma_series(&st, names[st.kind][1], "MB/s");
			}
			if (write(side->sock, &c, 1) != 1)
				rma_die("socket", -1);
		}
		bf_barrier(side);
	}
	/* atomic latency, 8 bytes */
	bf_barrier(side);
	if (side->rank == 1) {
		rma_serve(side);
	} else {
		st.kind = 2;
		st.window = false;
		st.len = 8;
		st.iters = o->iters;
		rma_series(&st, "atomic_lat", "us");
		if (write(side->sock, &c, 1) != 1)
			rma_die("socket", -1);
	}
	bf_barrier(side);
	fi_close(&st.rmr->fid);
	return 0;
}

int main(int argc, char **argv)
{
	struct bf_opts opts;

	bf_opts_parse(argc, argv, NULL, &opts);
	opts.caps = FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ |
		    FI_REMOTE_WRITE;
	return bf_run_pair(&opts, rma_body, NULL);
}
