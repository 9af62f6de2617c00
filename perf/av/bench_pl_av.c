/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cost of resolving an fi_addr_t on the data path (DESIGN.md section
 * 5): pl_av_lookup_peer() under RCU, beside a mutex-protected table of the
 * same entries measured in the same run (the reference: what a provider
 * would write without RCU), single-threaded and with 2 threads resolving
 * at once.
 *
 * Each lookup reads one byte of the peer's address (a sink), as a send
 * would. Per call, variants:
 *   rcu_section   read lock + pl_av_lookup_peer + read + unlock: a send
 *                 that resolves one peer.
 *   rcu_lookup    pl_av_lookup_peer + read inside one section held across
 *                 the batch (the section's cost amortized: a provider that
 *                 resolves many peers per progress call).
 *   mutex         pthread_mutex_lock, index/generation check, read,
 *                 unlock.
 * With 2 threads both run the same variant at once on the same table;
 * the figure is wall time / lookups per thread (what each caller sees).
 *
 * Usage: bench_pl_av [peers] [lookups per sample] [reps]
 * Prints medians (ns per lookup) and the ratio mutex / RCU for each thread
 * count. Not a test: no pass or fail on a time.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_av.h"
#include "pl_bench.h"

#define ADDRLEN 16

enum variant { V_RCU_SECTION, V_RCU_LOOKUP, V_MUTEX, V_COUNT };

static const char *const variant_name[V_COUNT] = {
	"rcu_section", "rcu_lookup", "mutex",
};

/* The reference: a mutex-protected table with the same checks. */
struct ref_entry {
	fi_addr_t fi_addr;
	unsigned char addr[ADDRLEN];
};

struct ref_table {
	pthread_mutex_t lock;
	size_t n;
	struct ref_entry **slot;
};

static struct fid_av *av;
static struct ref_table ref;
static fi_addr_t *handles;	/* the order in which lookups visit peers */
static size_t peers = 1024, batch = 1000000;
static unsigned reps = 15;

/* Two-thread runs: the helper thread waits at `start', runs `job', and
 * meets the main thread at `end'. Barriers order everything. */
static pthread_barrier_t start, end;
static enum variant job;
static int quit;
static volatile unsigned sink;

static int ref_lookup(fi_addr_t fa, unsigned *byte)
{
	uint64_t idx = fa & 0xffffffffULL;
	int ret = -FI_EADDRNOTAVAIL;

	pthread_mutex_lock(&ref.lock);
	if (idx < ref.n && ref.slot[idx] && ref.slot[idx]->fi_addr == fa) {
		*byte = ref.slot[idx]->addr[fa & (ADDRLEN - 1)];
		ret = 0;
	}
	pthread_mutex_unlock(&ref.lock);
	return ret;
}

static unsigned run_batch(enum variant v, size_t offset)
{
	struct pl_av_peer peer;
	unsigned acc = 0, byte;
	size_t i;

	if (v == V_RCU_LOOKUP)
		pl_rcu_read_lock();
	for (i = 0; i < batch; i++) {
		fi_addr_t fa = handles[(i + offset) % peers];

		switch (v) {
		case V_RCU_SECTION:
			pl_rcu_read_lock();
			if (!pl_av_lookup_peer(av, fa, &peer))
				acc += ((const unsigned char *)peer.addr)
					[fa & (ADDRLEN - 1)];
			pl_rcu_read_unlock();
			break;
		case V_RCU_LOOKUP:
			if (!pl_av_lookup_peer(av, fa, &peer))
				acc += ((const unsigned char *)peer.addr)
					[fa & (ADDRLEN - 1)];
			break;
		default:
			if (!ref_lookup(fa, &byte))
				acc += byte;
			break;
		}
	}
	if (v == V_RCU_LOOKUP)
		pl_rcu_read_unlock();
	return acc;
}

static void *helper_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&start);
		if (quit)
			break;
		sink = run_batch(job, peers / 2);
		pthread_barrier_wait(&end);
	}
	return NULL;
}

static double sample_1t(void *arg)
{
	enum variant v = (enum variant)(uintptr_t)arg;
	uint64_t t0 = pl_bench_now_ns();

	sink = run_batch(v, 0);
	return (double)(pl_bench_now_ns() - t0) / (double)batch;
}

static double sample_2t(void *arg)
{
	enum variant v = (enum variant)(uintptr_t)arg;
	uint64_t t0;

	job = v;
	t0 = pl_bench_now_ns();
	pthread_barrier_wait(&start);
	sink = run_batch(v, 0);
	pthread_barrier_wait(&end);
	return (double)(pl_bench_now_ns() - t0) / (double)batch;
}

static int setup(void)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = peers };
	unsigned char *addrs;
	size_t i;
	int ret;

	addrs = calloc(peers, ADDRLEN);
	handles = calloc(peers, sizeof(*handles));
	ref.slot = calloc(peers, sizeof(*ref.slot));
	if (!addrs || !handles || !ref.slot)
		return -FI_ENOMEM;
	for (i = 0; i < peers * ADDRLEN; i++)
		addrs[i] = (unsigned char)(i * 131 + 7);
	ret = pl_av_open(NULL, &attr, ADDRLEN, NULL, &av, NULL);
	if (ret)
		return ret;
	ret = fi_av_insert(av, addrs, peers, handles, 0, NULL);
	if (ret != (int)peers)
		return ret < 0 ? ret : -FI_EIO;
	pthread_mutex_init(&ref.lock, NULL);
	ref.n = peers;
	for (i = 0; i < peers; i++) {
		struct ref_entry *e = malloc(sizeof(*e));

		if (!e)
			return -FI_ENOMEM;
		e->fi_addr = handles[i];
		memcpy(e->addr, addrs + i * ADDRLEN, ADDRLEN);
		ref.slot[handles[i] & 0xffffffffULL] = e;
	}
	/* Visit peers in a scattered order, not sequentially. */
	for (i = peers - 1; i > 0; i--) {
		size_t j = (i * 2654435761u) % (i + 1);
		fi_addr_t t = handles[i];

		handles[i] = handles[j];
		handles[j] = t;
	}
	free(addrs);
	return 0;
}

int main(int argc, char **argv)
{
	struct pl_bench_stats st[2][V_COUNT];
	struct pl_bench_series s = { .unit = "ns/lookup", .warmup = 2 };
	pthread_t helper;
	int t, v, ret;

	if (argc > 1)
		peers = strtoull(argv[1], NULL, 10);
	if (argc > 2)
		batch = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		reps = (unsigned)strtoul(argv[3], NULL, 10);
	if (!peers || !batch || !reps) {
		fprintf(stderr, "usage: %s [peers] [lookups] [reps]\n", argv[0]);
		return 2;
	}
	s.reps = reps;
	ret = setup();
	if (ret) {
		fprintf(stderr, "setup: %s\n", fi_strerror(-ret));
		return 1;
	}
	pthread_barrier_init(&start, NULL, 2);
	pthread_barrier_init(&end, NULL, 2);
	if (pthread_create(&helper, NULL, helper_main, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	printf("# AV lookup: %zu peers, %zu lookups per sample, %u samples\n",
	       peers, batch, reps);
	pl_bench_csv_header(stdout);
	for (t = 0; t < 2; t++) {
		for (v = 0; v < V_COUNT; v++) {
			char name[64];

			snprintf(name, sizeof(name), "av_%s_%dt",
				 variant_name[v], t + 1);
			s.name = name;
			s.sample = t ? sample_2t : sample_1t;
			s.arg = (void *)(uintptr_t)v;
			ret = pl_bench_run(&s, &st[t][v], NULL);
			if (ret) {
				fprintf(stderr, "%s: %d\n", name, ret);
				return 1;
			}
			pl_bench_csv_row(stdout, name, "propel", peers,
					 s.unit, &st[t][v]);
		}
	}
	quit = 1;
	pthread_barrier_wait(&start);
	pthread_join(helper, NULL);
	printf("\n%-8s %14s %14s %14s %12s %12s\n", "threads",
	       "rcu_section", "rcu_lookup", "mutex", "mutex/rcu_s",
	       "mutex/rcu_l");
	for (t = 0; t < 2; t++)
		printf("%-8d %11.2f ns %11.2f ns %11.2f ns %11.2fx %11.2fx\n",
		       t + 1, st[t][V_RCU_SECTION].median,
		       st[t][V_RCU_LOOKUP].median, st[t][V_MUTEX].median,
		       pl_bench_ratio(st[t][V_MUTEX].median,
				      st[t][V_RCU_SECTION].median),
		       pl_bench_ratio(st[t][V_MUTEX].median,
				      st[t][V_RCU_LOOKUP].median));
	printf("(2 threads: ns per lookup as each thread sees it; the "
	       "ratio > 1 means the mutex costs more)\n");
	fi_close(&av->fid);
	return 0;
}
