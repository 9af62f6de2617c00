/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine CQ, beside its floors, in one run:
 *   throughput, ns per completion (write + read):
 *     1 thread: write a burst of 32, read it back (fi_cq_read, tagged);
 *       FI_WAIT_NONE and FI_WAIT_FD (unarmed: the fence + load of the
 *       wake-up protocol) beside a bare pl_ring of the same entry size;
 *     4 writers / 2 readers (busy-polling reads), wall time per
 *       completion, beside a bare pl_ring (mpmc both sides);
 *   wake-up latency, ns one way (round trip / 2): a thread blocked in
 *     fi_cq_sread woken by pl_cq_write (two CQs, ping-pong), for
 *     FI_WAIT_UNSPEC and FI_WAIT_FD, beside an eventfd ping-pong.
 * Medians of the samples; a benchmark, it never fails on a time.
 *
 * Usage: bench_pl_cq [reps]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_bench.h"
#include "pl_cq.h"
#include "pl_domain.h"
#include "pl_ring.h"

#define BURST 32
#define ST_OPS (1u << 20)
#define MT_OPS (1u << 21)
#define MT_W 4
#define MT_R 2
#define PINGS 2000

struct ent56 {
	uint64_t w[7];
};

static struct pl_domain *dom;

static struct fid_cq *cq_open(enum fi_wait_obj wait)
{
	struct fi_cq_attr attr = {
		.size = 4096, .format = FI_CQ_FORMAT_TAGGED, .wait_obj = wait,
	};
	struct fid_cq *cq;

	if (pl_cq_open(&dom->domain_fid, &attr, &cq, NULL)) {
		fprintf(stderr, "pl_cq_open failed\n");
		exit(1);
	}
	return cq;
}

/* ---- single thread ---- */

static double st_cq(void *arg)
{
	struct fid_cq *cq = arg;
	struct fi_cq_tagged_entry e[BURST];
	uint64_t t0 = pl_bench_now_ns();
	unsigned i, j;

	for (i = 0; i < ST_OPS; i += BURST) {
		for (j = 0; j < BURST; j++)
			pl_cq_write(cq, (void *)(uintptr_t)j, FI_RECV, 8, NULL,
				    0, 0, FI_ADDR_NOTAVAIL);
		if (fi_cq_read(cq, e, BURST) != BURST)
			abort();
	}
	return (double)(pl_bench_now_ns() - t0) / ST_OPS;
}

static double st_ring(void *arg)
{
	struct pl_ring *r = arg;
	struct ent56 e = { { 0 } }, out[BURST];
	uint64_t t0 = pl_bench_now_ns();
	unsigned i, j;

	for (i = 0; i < ST_OPS; i += BURST) {
		for (j = 0; j < BURST; j++) {
			e.w[0] = j;
			pl_ring_enqueue_mpmc(r, &e);
		}
		if (pl_ring_dequeue_burst_mpmc(r, out, BURST) != BURST)
			abort();
	}
	return (double)(pl_bench_now_ns() - t0) / ST_OPS;
}

/* ---- 4 writers, 2 readers ---- */

struct mt {
	struct fid_cq *cq;	/* or NULL: ring */
	struct pl_ring *ring;
	pl_atomic_u64 taken;	/* relaxed: readers stop at MT_OPS */
	pthread_barrier_t go;
};

static void *mt_writer(void *arg)
{
	struct mt *m = arg;
	struct ent56 e = { { 0 } };
	unsigned i;

	pthread_barrier_wait(&m->go);
	for (i = 0; i < MT_OPS / MT_W; i++) {
		if (m->cq) {
			pl_cq_write(m->cq, NULL, FI_RECV, i, NULL, 0, 0, 0);
		} else {
			e.w[0] = i;
			while (pl_ring_enqueue_mpmc(m->ring, &e))
				pl_cpu_relax();
		}
	}
	return NULL;
}

static void *mt_reader(void *arg)
{
	struct mt *m = arg;
	struct fi_cq_tagged_entry e[BURST];
	struct ent56 out[BURST];
	ssize_t n;

	pthread_barrier_wait(&m->go);
	while (pl_load_relaxed(&m->taken) < MT_OPS) {
		n = m->cq ? fi_cq_read(m->cq, e, BURST) :
			pl_ring_dequeue_burst_mpmc(m->ring, out, BURST);
		if (n > 0)
			pl_fetch_add_relaxed(&m->taken, (uint64_t)n);
		else
			pl_cpu_relax();
	}
	return NULL;
}

static double mt_run(void *arg)
{
	struct mt *m = arg;
	pthread_t t[MT_W + MT_R];
	uint64_t t0;
	int i;

	atomic_init(&m->taken, 0);
	pthread_barrier_init(&m->go, NULL, MT_W + MT_R + 1);
	for (i = 0; i < MT_W; i++)
		pthread_create(&t[i], NULL, mt_writer, m);
	for (i = 0; i < MT_R; i++)
		pthread_create(&t[MT_W + i], NULL, mt_reader, m);
	pthread_barrier_wait(&m->go);
	t0 = pl_bench_now_ns();
	for (i = 0; i < MT_W + MT_R; i++)
		pthread_join(t[i], NULL);
	t0 = pl_bench_now_ns() - t0;
	pthread_barrier_destroy(&m->go);
	return (double)t0 / MT_OPS;
}

/* ---- wake-up latency ---- */

struct pp {
	struct fid_cq *a, *b;	/* CQ ping-pong, or NULL: eventfds */
	int efa, efb;
};

static void *pp_echo(void *arg)
{
	struct pp *p = arg;
	struct fi_cq_tagged_entry e;
	uint64_t v;
	int i;

	for (i = 0; i < PINGS; i++) {
		if (p->a) {
			while (fi_cq_sread(p->a, &e, 1, NULL, -1) != 1)
				;
			pl_cq_write(p->b, e.op_context, 0, 0, NULL, 0, 0, 0);
		} else {
			if (read(p->efa, &v, sizeof(v)) != sizeof(v))
				abort();
			if (write(p->efb, &v, sizeof(v)) != sizeof(v))
				abort();
		}
	}
	return NULL;
}

static double pp_run(void *arg)
{
	struct pp *p = arg;
	struct fi_cq_tagged_entry e;
	uint64_t v = 1, t0;
	pthread_t t;
	int i;

	pthread_create(&t, NULL, pp_echo, p);
	usleep(1000);	/* let it block first */
	t0 = pl_bench_now_ns();
	for (i = 0; i < PINGS; i++) {
		if (p->a) {
			pl_cq_write(p->a, (void *)(uintptr_t)i, 0, 0, NULL, 0,
				    0, 0);
			while (fi_cq_sread(p->b, &e, 1, NULL, -1) != 1)
				;
		} else {
			if (write(p->efa, &v, sizeof(v)) != sizeof(v) ||
			    read(p->efb, &v, sizeof(v)) != sizeof(v))
				abort();
		}
	}
	t0 = pl_bench_now_ns() - t0;
	pthread_join(t, NULL);
	return (double)t0 / PINGS / 2;
}

static void report(const char *name, double (*fn)(void *), void *arg,
		   unsigned reps, const char *unit, size_t size,
		   struct pl_bench_stats *st)
{
	struct pl_bench_series s = {
		.name = name, .unit = unit, .warmup = 1, .reps = reps,
		.sample = fn, .arg = arg,
	};

	if (pl_bench_run(&s, st, NULL)) {
		fprintf(stderr, "%s failed\n", name);
		exit(1);
	}
	pl_bench_csv_row(stdout, name, "propel", size, unit, st);
}

int main(int argc, char **argv)
{
	static struct fi_domain_attr da;
	static struct fi_info info;
	static struct pl_ring ring PL_CACHE_ALIGNED, ring_mt PL_CACHE_ALIGNED;
	struct pl_bench_stats st_none, st_fd, st_r, mt_c, mt_r, l_u, l_f, l_e;
	unsigned reps = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 9;
	struct mt m_cq = { 0 }, m_ring = { 0 };
	struct pp p_u = { 0 }, p_f = { 0 }, p_e = { 0 };
	struct fid_cq *c_none, *c_fd;

	if (!reps)
		reps = 9;
	dom = calloc(1, sizeof(*dom));
	da.data_progress = FI_PROGRESS_AUTO;	/* reads poll nothing */
	da.threading = FI_THREAD_SAFE;
	info.domain_attr = &da;
	if (!dom || pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17), 0,
				   NULL)) {
		fprintf(stderr, "domain init failed\n");
		return 1;
	}
	if (pl_ring_init(&ring, sizeof(struct ent56), 4096) ||
	    pl_ring_init(&ring_mt, sizeof(struct ent56), 4096))
		return 1;
	c_none = cq_open(FI_WAIT_NONE);
	c_fd = cq_open(FI_WAIT_FD);
	m_cq.cq = cq_open(FI_WAIT_NONE);
	m_ring.ring = &ring_mt;
	p_u.a = cq_open(FI_WAIT_UNSPEC);
	p_u.b = cq_open(FI_WAIT_UNSPEC);
	p_f.a = cq_open(FI_WAIT_FD);
	p_f.b = cq_open(FI_WAIT_FD);
	p_e.efa = eventfd(0, EFD_CLOEXEC);
	p_e.efb = eventfd(0, EFD_CLOEXEC);

	printf("# CQ: %u samples each; %u ops per 1-thread sample, %u per "
	       "4w/2r sample, %u round trips per latency sample\n",
	       reps, ST_OPS, MT_OPS, PINGS);
	pl_bench_csv_header(stdout);
	report("cq_st_wait_none", st_cq, c_none, reps, "ns/op", BURST, &st_none);
	report("cq_st_wait_fd", st_cq, c_fd, reps, "ns/op", BURST, &st_fd);
	report("ring_st", st_ring, &ring, reps, "ns/op", BURST, &st_r);
	report("cq_mt_4w2r", mt_run, &m_cq, reps, "ns/op", BURST, &mt_c);
	report("ring_mt_4w2r", mt_run, &m_ring, reps, "ns/op", BURST, &mt_r);
	report("cq_wake_sread_unspec", pp_run, &p_u, reps, "ns", 1, &l_u);
	report("cq_wake_sread_fd", pp_run, &p_f, reps, "ns", 1, &l_f);
	report("eventfd_pingpong", pp_run, &p_e, reps, "ns", 1, &l_e);

	printf("\n%-28s %12s %12s\n", "median", "propel CQ", "floor");
	printf("%-28s %9.1f ns %9.1f ns  (ring)\n", "1 thread, FI_WAIT_NONE",
	       st_none.median, st_r.median);
	printf("%-28s %9.1f ns %9.1f ns  (ring)\n", "1 thread, FI_WAIT_FD",
	       st_fd.median, st_r.median);
	printf("%-28s %9.1f ns %9.1f ns  (ring)\n", "4 writers / 2 readers",
	       mt_c.median, mt_r.median);
	printf("%-28s %9.0f ns %9.0f ns  (eventfd)\n", "wake-up, UNSPEC sread",
	       l_u.median, l_e.median);
	printf("%-28s %9.0f ns %9.0f ns  (eventfd)\n", "wake-up, FD sread",
	       l_f.median, l_e.median);

	fi_close(&c_none->fid);
	fi_close(&c_fd->fid);
	fi_close(&m_cq.cq->fid);
	fi_close(&p_u.a->fid);
	fi_close(&p_u.b->fid);
	fi_close(&p_f.a->fid);
	fi_close(&p_f.b->fid);
	close(p_e.efa);
	close(p_e.efb);
	pl_ring_fini(&ring);
	pl_ring_fini(&ring_mt);
	return pl_domain_close(&dom->domain_fid.fid) ? 1 : 0;
}
