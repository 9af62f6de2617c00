/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Multi-threaded message rate between two processes: 1..T thread pairs
 * (thread i of rank 0 sends to thread i of rank 1), small tagged messages
 * (-s, 8 B by default), windows of BF_WINDOW sends answered by a 1-byte
 * acknowledgement (bench_fabric_bw's shape), in two modes:
 *
 *   mt_rate_shared   one FI_THREAD_SAFE endpoint per process shared by all
 *                    its threads; pair i uses tag i, completions of the
 *                    shared CQs are credited to the thread whose context
 *                    they carry, whichever thread read them
 *   mt_rate_per_ep   one FI_THREAD_DOMAIN domain (and fabric, CQs, AV,
 *                    endpoint) per thread: fi_domain(3) lets only one
 *                    thread at a time use the objects of such a domain,
 *                    so each thread gets its own
 *
 * One CSV row per mode and thread count (1, 2, 4, ... and T itself):
 * aggregate millions of messages per second; the size column holds the
 * thread count. -i is the number of messages per thread per sample.
 * BF_PIN is ignored: the threads of one process need every CPU.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "bf_common.h"
#include "pl_bench.h"

#define MT_MAX_THREADS 16
#define MT_ACK_TAG (1ULL << 32)
#define MT_ACK_SLOT BF_WINDOW

struct mt_thread;

/* What a thread posts on: the shared endpoint or its own. */
struct mt_lane {
	struct fi_info *info;	/* own lanes only */
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_ep *ep;
	struct fid_cq *tx_cq;
	struct fid_cq *rx_cq;
	struct fid_av *av;
	fi_addr_t peer;
	size_t inject_size;
	bool mr_local;
};

/* The context every operation carries, so any reader of a shared CQ
 * knows whose completion it holds. */
struct mt_ctx {
	struct fi_context ctx;	/* first: op_context points here */
	struct mt_thread *owner;
};

struct mt_run;

/*
 * One thread. tx_done/rx_done are bumped by whichever thread reads the
 * completion (release) and read by the owner (acquire); every other field
 * is the owner's alone once the thread runs.
 */
struct mt_thread {
	struct mt_run *run;
	unsigned idx;
	struct mt_lane *lane;
	struct fid_mr *mr;
	void *desc;
	char *buf;		/* send half, receive half */
	uint64_t tx_posted;	/* sends that will write a completion */
	uint64_t rx_posted;	/* receives posted so far */
	_Atomic uint64_t tx_done;
	_Atomic uint64_t rx_done;
	struct mt_ctx ctx[BF_WINDOW + 1];
	pthread_t tid;
};

struct mt_run {
	struct bf_side *side;
	size_t len;
	unsigned nthreads;
	unsigned windows;	/* per thread per sample */
	unsigned samples;	/* warm-up + timed */
	pthread_barrier_t start, end;	/* rank 0: main + threads */
	struct mt_thread th[MT_MAX_THREADS];
};

static void mt_die(const char *what, long ret)
{
	fprintf(stderr, "bench_fabric_mt_rate: %s: %ld (%s)\n", what, ret,
		fi_strerror((int)(ret < 0 ? -ret : ret)));
	exit(1);
}

/* Credits what one CQ holds to its owners; returns how many. */
static int mt_cq_drain(struct fid_cq *cq, bool tx)
{
	struct fi_cq_entry e[16];
	struct fi_cq_err_entry err = { 0 };
	struct mt_thread *owner;
	ssize_t n, i;

	n = fi_cq_read(cq, e, 16);
	if (n == -FI_EAGAIN)
		return 0;
	if (n == -FI_EAVAIL && fi_cq_readerr(cq, &err, 0) > 0)
		mt_die("completion error", -err.err);
	if (n < 0)
		mt_die("fi_cq_read", n);
	for (i = 0; i < n; i++) {
		owner = ((struct mt_ctx *)e[i].op_context)->owner;
		/* release: pairs with the owner's acquire in mt_wait */
		atomic_fetch_add_explicit(tx ? &owner->tx_done : &owner->rx_done,
					  1, memory_order_release);
	}
	return (int)n;
}

static void mt_wait(struct mt_thread *t, uint64_t tx, uint64_t rx)
{
	unsigned idle = 0;

	/* acquire: pairs with the release in mt_cq_drain */
	while (atomic_load_explicit(&t->tx_done, memory_order_acquire) < tx ||
	       atomic_load_explicit(&t->rx_done, memory_order_acquire) < rx) {
		if (mt_cq_drain(t->lane->tx_cq, true) +
		    mt_cq_drain(t->lane->rx_cq, false)) {
			idle = 0;
		} else if (++idle == 64) {
			/* more spinning threads than CPUs: let the others run */
			sched_yield();
			idle = 0;
		}
	}
}

static void mt_send(struct mt_thread *t, size_t len, uint64_t tag,
		    unsigned slot)
{
	struct mt_lane *l = t->lane;
	bool inject = len <= l->inject_size;
	ssize_t ret;

	for (;;) {
		ret = inject ? fi_tinject(l->ep, t->buf, len, l->peer, tag) :
			       fi_tsend(l->ep, t->buf, len, t->desc, l->peer,
					tag, &t->ctx[slot].ctx);
		if (ret != -FI_EAGAIN)
			break;
		mt_cq_drain(l->tx_cq, true);
		mt_cq_drain(l->rx_cq, false);
	}
	if (ret)
		mt_die(inject ? "fi_tinject" : "fi_tsend", ret);
	if (!inject)
		t->tx_posted++;
}

static void mt_recv(struct mt_thread *t, size_t len, uint64_t tag,
		    unsigned slot)
{
	struct mt_lane *l = t->lane;
	ssize_t ret;

	t->rx_posted++;
	for (;;) {
		ret = fi_trecv(l->ep, t->buf + t->run->len, len, t->desc,
			       l->peer, tag, 0, &t->ctx[slot].ctx);
		if (ret != -FI_EAGAIN)
			break;
		mt_cq_drain(l->tx_cq, true);
		mt_cq_drain(l->rx_cq, false);
	}
	if (ret)
		mt_die("fi_trecv", ret);
}

/* Rank 0: one window out, its acknowledgement back. */
static void mt_window_send(struct mt_thread *t)
{
	unsigned i;

	mt_recv(t, 1, MT_ACK_TAG | t->idx, MT_ACK_SLOT);
	for (i = 0; i < BF_WINDOW; i++)
		mt_send(t, t->run->len, t->idx, i);
	mt_wait(t, t->tx_posted, t->rx_posted);
}

static void *mt_thread_main(void *arg)
{
	struct mt_thread *t = arg;
	struct mt_run *run = t->run;
	uint64_t s, w, total = (uint64_t)run->samples * run->windows;
	unsigned i;

	if (run->side->rank == 0) {
		for (s = 0; s < run->samples; s++) {
			pthread_barrier_wait(&run->start);
			for (w = 0; w < run->windows; w++)
				mt_window_send(t);
			pthread_barrier_wait(&run->end);
		}
		return NULL;
	}
	/* rank 1: the next window's receives go up before the ack. The
	 * target is what was posted up to this window (rx_posted), never a
	 * count read from rx_done: with a shared CQ another thread may
	 * already have credited part of the window before we read it, and
	 * then the target would never be reached. */
	for (i = 0; i < BF_WINDOW; i++)
		mt_recv(t, run->len, t->idx, i);
	for (w = 0; w < total; w++) {
		mt_wait(t, t->tx_posted, t->rx_posted);
		if (w + 1 < total)
			for (i = 0; i < BF_WINDOW; i++)
				mt_recv(t, run->len, t->idx, i);
		mt_send(t, 1, MT_ACK_TAG | t->idx, MT_ACK_SLOT);
	}
	mt_wait(t, t->tx_posted, 0);
	return NULL;
}

/* Rank 0's sample: every thread runs its windows; aggregate Mmsg/s. */
static double mt_sample(void *arg)
{
	struct mt_run *run = arg;
	uint64_t t0 = pl_bench_now_ns();

	pthread_barrier_wait(&run->start);
	pthread_barrier_wait(&run->end);
	return (double)run->nthreads * run->windows * BF_WINDOW /
	       ((double)(pl_bench_now_ns() - t0) / 1e3);
}

static void mt_lane_open(struct bf_side *side, struct mt_lane *l)
{
	struct bf_opts o = *side->opts;
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT,
				      .wait_obj = FI_WAIT_NONE,
				      .size = 4 * BF_WINDOW };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints;
	long ret;

	o.threading = FI_THREAD_DOMAIN;
	hints = bf_hints(&o);
	if (!hints)
		mt_die("fi_allocinfo", -FI_ENOMEM);
	ret = bf_getinfo(&o, hints, &l->info);
	fi_freeinfo(hints);
	if (ret)
		mt_die("fi_getinfo (FI_THREAD_DOMAIN)", ret);
	if ((ret = fi_fabric(l->info->fabric_attr, &l->fabric, NULL)) ||
	    (ret = fi_domain(l->fabric, l->info, &l->domain, NULL)) ||
	    (ret = fi_cq_open(l->domain, &cq_attr, &l->tx_cq, NULL)) ||
	    (ret = fi_cq_open(l->domain, &cq_attr, &l->rx_cq, NULL)) ||
	    (ret = fi_av_open(l->domain, &av_attr, &l->av, NULL)) ||
	    (ret = fi_endpoint(l->domain, l->info, &l->ep, NULL)) ||
	    (ret = fi_ep_bind(l->ep, &l->tx_cq->fid, FI_TRANSMIT)) ||
	    (ret = fi_ep_bind(l->ep, &l->rx_cq->fid, FI_RECV)) ||
	    (ret = fi_ep_bind(l->ep, &l->av->fid, 0)) ||
	    (ret = fi_enable(l->ep)))
		mt_die("opening a per-thread endpoint", ret);
	l->inject_size = l->info->tx_attr->inject_size;
	l->mr_local = l->info->domain_attr->mr_mode & FI_MR_LOCAL;
}

static void mt_lane_close(struct mt_lane *l)
{
	fi_close(&l->ep->fid);
	fi_close(&l->av->fid);
	fi_close(&l->tx_cq->fid);
	fi_close(&l->rx_cq->fid);
	fi_close(&l->domain->fid);
	fi_close(&l->fabric->fid);
	fi_freeinfo(l->info);
}

/* Exchanges the names of n lanes with the peer process, in order. */
static void mt_lanes_connect(struct bf_side *side, struct mt_lane *l,
			     unsigned n)
{
	char name[256];
	size_t len;
	unsigned i;
	long ret;

	for (i = 0; i < n; i++) {
		len = sizeof(name);
		if ((ret = fi_getname(&l[i].ep->fid, name, &len)))
			mt_die("fi_getname", ret);
		bf_sock_write(side, &len, sizeof(len));
		bf_sock_write(side, name, len);
	}
	for (i = 0; i < n; i++) {
		bf_sock_read(side, &len, sizeof(len));
		if (len > sizeof(name))
			mt_die("peer name too long", -FI_EINVAL);
		bf_sock_read(side, name, len);
		ret = fi_av_insert(l[i].av, name, 1, &l[i].peer, 0, NULL);
		if (ret != 1)
			mt_die("fi_av_insert", ret);
	}
}

static void mt_thread_setup(struct mt_run *run, unsigned i,
			    struct mt_lane *lane)
{
	struct mt_thread *t = &run->th[i];
	unsigned k;
	long ret;

	memset(t, 0, sizeof(*t));
	t->run = run;
	t->idx = i;
	t->lane = lane;
	t->buf = calloc(2, run->len);
	if (!t->buf)
		mt_die("calloc", -FI_ENOMEM);
	for (k = 0; k <= BF_WINDOW; k++)
		t->ctx[k].owner = t;
	if (lane->mr_local) {
		ret = fi_mr_reg(lane->domain, t->buf, 2 * run->len,
				FI_SEND | FI_RECV, 0, 0, 0, &t->mr, NULL);
		if (ret)
			mt_die("fi_mr_reg", ret);
		t->desc = fi_mr_desc(t->mr);
	}
}

/* One mode at one thread count, both ranks; rank 0 prints the row. */
static void mt_run_one(struct mt_run *run, const char *bench,
		       struct mt_lane *lanes, bool shared)
{
	const struct bf_opts *o = run->side->opts;
	struct pl_bench_stats stats;
	struct pl_bench_series series = {
		.name = bench, .unit = "Mmsg/s", .warmup = o->warmup,
		.reps = o->reps, .sample = mt_sample, .arg = run,
	};
	unsigned i;

	pthread_barrier_init(&run->start, NULL, run->nthreads + 1);
	pthread_barrier_init(&run->end, NULL, run->nthreads + 1);
	for (i = 0; i < run->nthreads; i++)
		mt_thread_setup(run, i, shared ? &lanes[0] : &lanes[1 + i]);
	bf_barrier(run->side);
	for (i = 0; i < run->nthreads; i++)
		if (pthread_create(&run->th[i].tid, NULL, mt_thread_main,
				   &run->th[i]))
			mt_die("pthread_create", -FI_EOTHER);
	if (run->side->rank == 0) {
		if (pl_bench_run(&series, &stats, NULL))
			mt_die("pl_bench_run", -FI_EOTHER);
		pl_bench_csv_row(stdout, bench, pl_bench_library_name(),
				 run->nthreads, "Mmsg/s", &stats);
		fflush(stdout);
	}
	for (i = 0; i < run->nthreads; i++) {
		pthread_join(run->th[i].tid, NULL);
		if (run->th[i].mr)
			fi_close(&run->th[i].mr->fid);
		free(run->th[i].buf);
	}
	bf_barrier(run->side);
	pthread_barrier_destroy(&run->start);
	pthread_barrier_destroy(&run->end);
}

static int mt_body(struct bf_side *side, void *arg)
{
	const struct bf_opts *o = side->opts;
	bool shared_ok = *(bool *)arg;
	static struct mt_run run;
	struct mt_lane lanes[1 + MT_MAX_THREADS] = { 0 };
	unsigned n, mode;

	run = (struct mt_run){
		.side = side, .len = o->size,
		.windows = (o->iters + BF_WINDOW - 1) / BF_WINDOW,
		.samples = o->warmup + o->reps,
	};
	/* lane 0: the shared endpoint bf_run_pair opened */
	lanes[0] = (struct mt_lane){
		.domain = side->domain, .ep = side->ep, .tx_cq = side->tx_cq,
		.rx_cq = side->rx_cq, .av = side->av, .peer = side->peer,
		.inject_size = side->info->tx_attr->inject_size,
		.mr_local = side->info->domain_attr->mr_mode & FI_MR_LOCAL,
	};
	for (n = 0; n < o->threads; n++)
		mt_lane_open(side, &lanes[1 + n]);
	mt_lanes_connect(side, &lanes[1], o->threads);
	if (side->rank == 0) {
		pl_bench_csv_header(stdout);
		if (!shared_ok)
			printf("# mt_rate_shared n/a on this library (%s): "
			       "no FI_THREAD_SAFE %s endpoint\n",
			       pl_bench_library_name(), o->prov);
	}
	for (mode = shared_ok ? 0 : 1; mode < 2; mode++) {
		for (n = 1; n <= o->threads; n = n * 2 > o->threads &&
		     n < o->threads ? o->threads : n * 2) {
			run.nthreads = n;
			mt_run_one(&run, mode ? "mt_rate_per_ep" : "mt_rate_shared",
				   lanes, mode == 0);
		}
	}
	for (n = 0; n < o->threads; n++)
		mt_lane_close(&lanes[1 + n]);
	return 0;
}

int main(int argc, char **argv)
{
	struct bf_opts opts;
	bool shared_ok;

	bf_opts_parse(argc, argv, NULL, &opts);
	opts.tagged = true;
	if (!opts.threads)
		opts.threads = 2;
	if (!opts.size)
		opts.size = 8;
	if (opts.threads > MT_MAX_THREADS) {
		fprintf(stderr, "%s: at most %d threads\n", argv[0],
			MT_MAX_THREADS);
		return 2;
	}
	opts.min_size = opts.max_size = opts.size;
	unsetenv("BF_PIN");
	opts.threading = FI_THREAD_SAFE;
	shared_ok = bf_probe(&opts) == 0;
	if (!shared_ok)
		opts.threading = FI_THREAD_DOMAIN;
	if (!shared_ok && bf_probe(&opts)) {
		printf("# mt_rate n/a on this library (%s): no %s endpoint "
		       "with these options\n", pl_bench_library_name(),
		       opts.prov);
		return 0;
	}
	return bf_run_pair(&opts, mt_body, &shared_ok);
}
