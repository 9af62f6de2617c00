/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the shm provider's endpoint tests, through the public
 * libfabric API only: open a whole stack (fabric, domain, CQ, AV,
 * endpoint) on provider "shm", wait for completions, and exchange names
 * among fork()ed processes through a shared anonymous mapping made
 * before the fork (a name board and a barrier counter).
 */
#ifndef PROPEL_TESTS_SHM_EP_TEST_H
#define PROPEL_TESTS_SHM_EP_TEST_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <stdio.h>

#include "shm_test.h"

#define TEP_NAME_MAX 128
#define TEP_PROCS_MAX 32

struct tep {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;		/* receive completions */
	struct fid_cq *txcq;		/* send completions, counted */
	uint64_t tx_done, tx_err;
	struct fid_av *av;
	struct fid_ep *ep;
	char name[TEP_NAME_MAX];
	size_t namelen;
};

/* Shared among the processes of one test. */
struct tep_board {
	_Atomic int arrived;
	_Atomic int flag[TEP_PROCS_MAX];
	char name[TEP_PROCS_MAX][TEP_NAME_MAX];
};

static inline struct tep_board *tep_board_new(void)
{
	void *p = mmap(NULL, sizeof(struct tep_board), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Runs fn(rank) in n fork()ed children, ranks 0..n-1, and waits for them
 * all; 0 when every child exited 0. */
static inline int tep_run_ranks(int n, void (*fn)(void *))
{
	pid_t pid[TEP_PROCS_MAX];
	int fail = 0;

	for (intptr_t i = 0; i < n; i++)
		pid[i] = shm_test_spawn(fn, (void *)i);
	for (int i = 0; i < n; i++) {
		int st = shm_test_wait(pid[i]);

		if (st) {
			fprintf(stderr, "rank %d exited %d\n", i, st);
			fail = 1;
		}
	}
	return fail;
}

/* Open the stack. caps: what to ask fi_getinfo for. Two CQs of format
 * TAGGED: receives (read by the test) and sends (counted by
 * tep_tx_drain). Returns 0 or a negative fi_errno.
 * tep_open_bound stops before fi_enable, so that a test can bind more
 * (counters) first; tep_enable finishes. data_progress:
 * FI_PROGRESS_UNSPEC (the provider's default, manual), or
 * FI_PROGRESS_AUTO / MANUAL as asked. The threading model is the
 * provider's default, or FI_THREAD_DOMAIN when the environment has
 * SHM_TEST_THREADING=domain (the auto-progress scenarios run both: an
 * FI_THREAD_DOMAIN auto domain excludes its thread differently). */
static inline int tep_open_bound(struct tep *t, uint64_t caps,
				 enum fi_progress progress)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .wait_obj = FI_WAIT_NONE, .size = 4096 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	const char *th = getenv("SHM_TEST_THREADING");
	int ret;

	memset(t, 0, sizeof(*t));
	ret = shm_test_getinfo(caps, th && !strcmp(th, "domain") ?
			       FI_THREAD_DOMAIN : FI_THREAD_UNSPEC,
			       progress, &t->info);
	if (ret)
		return ret;
	/* a run meant for FI_THREAD_DOMAIN must get it, or it would pass
	 * without exercising what it names */
	if (th && !strcmp(th, "domain") &&
	    t->info->domain_attr->threading != FI_THREAD_DOMAIN)
		return -FI_ENODATA;
	if ((ret = fi_fabric(t->info->fabric_attr, &t->fabric, NULL)) ||
	    (ret = fi_domain(t->fabric, t->info, &t->domain, NULL)) ||
	    (ret = fi_cq_open(t->domain, &cqa, &t->cq, NULL)) ||
	    (ret = fi_cq_open(t->domain, &cqa, &t->txcq, NULL)) ||
	    (ret = fi_av_open(t->domain, &ava, &t->av, NULL)) ||
	    (ret = fi_endpoint(t->domain, t->info, &t->ep, NULL)) ||
	    (ret = fi_ep_bind(t->ep, &t->av->fid, 0)) ||
	    (ret = fi_ep_bind(t->ep, &t->cq->fid, FI_RECV)) ||
	    (ret = fi_ep_bind(t->ep, &t->txcq->fid, FI_TRANSMIT)))
		return ret;
	return 0;
}

/* fi_enable, then the endpoint's name into t->name. */
static inline int tep_enable(struct tep *t)
{
	int ret = fi_enable(t->ep);

	if (ret)
		return ret;
	t->namelen = sizeof(t->name);
	return fi_getname(&t->ep->fid, t->name, &t->namelen);
}

static inline int tep_open_progress(struct tep *t, uint64_t caps,
				    enum fi_progress progress)
{
	int ret = tep_open_bound(t, caps, progress);

	return ret ? ret : tep_enable(t);
}



static inline int tep_open(struct tep *t, uint64_t caps)
{
	return tep_open_progress(t, caps, FI_PROGRESS_UNSPEC);
}

static inline void tep_close(struct tep *t)
{
	if (t->ep)
		fi_close(&t->ep->fid);
	if (t->av)
		fi_close(&t->av->fid);
	if (t->cq)
		fi_close(&t->cq->fid);
	if (t->txcq)
		fi_close(&t->txcq->fid);
	if (t->domain)
		fi_close(&t->domain->fid);
	if (t->fabric)
		fi_close(&t->fabric->fid);
	if (t->info)
		fi_freeinfo(t->info);
	memset(t, 0, sizeof(*t));
}

/* Count the send completions there are (drives progress). */
static inline void tep_tx_drain(struct tep *t)
{
	struct fi_cq_tagged_entry e[16];
	struct fi_cq_err_entry err;
	ssize_t n;

	while ((n = fi_cq_read(t->txcq, e, 16)) > 0) {
		t->tx_done += (uint64_t)n;
		shm_test_progress();	/* the watchdog's heartbeat */
	}
	if (n == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		if (fi_cq_readerr(t->txcq, &err, 0) == 1)
			t->tx_err++;
	}
}

/* Wait until n sends have completed in all. */
static inline void tep_tx_wait(struct tep *t, uint64_t n)
{
	while (t->tx_done + t->tx_err < n)
		tep_tx_drain(t);
	SHM_CHECK(t->tx_err == 0);
}

/* Read one receive completion (driving progress). 1: entry, 0: nothing yet,
 * -FI_EAVAIL: an error entry was read into *err (when err != NULL). */
static inline int tep_poll(struct tep *t, struct fi_cq_tagged_entry *e,
			   struct fi_cq_err_entry *err)
{
	struct fi_cq_err_entry tmp;
	ssize_t n;

	n = fi_cq_read(t->cq, e, 1);
	if (n == 1) {
		shm_test_progress();	/* the watchdog's heartbeat */
		return 1;
	}
	if (n == -FI_EAGAIN)
		return 0;
	if (n == -FI_EAVAIL) {
		memset(&tmp, 0, sizeof(tmp));
		SHM_CHECK(fi_cq_readerr(t->cq, err ? err : &tmp, 0) == 1);
		return -FI_EAVAIL;
	}
	fprintf(stderr, "fi_cq_read: %zd\n", n);
	return (int)n;
}

/* Wait for one successful completion; a test alarm bounds it. */
static inline void tep_wait(struct tep *t, struct fi_cq_tagged_entry *e)
{
	struct fi_cq_err_entry err;
	int r;

	while (!(r = tep_poll(t, e, &err)))
		;
	if (r < 0)
		fprintf(stderr, "error completion: err %d (%s) ctx %p\n",
			err.err, fi_strerror(err.err), err.op_context);
	SHM_CHECK(r == 1);
}

/* Everyone reaches round `round` (1, 2, ...) of n processes; the
 * caller's endpoint keeps being progressed while it waits. */
static inline void tep_barrier(struct tep_board *b, struct tep *t, int n,
			       int round)
{
	atomic_fetch_add(&b->arrived, 1);
	while (atomic_load(&b->arrived) < n * round) {
		if (t && t->txcq)
			tep_tx_drain(t);	/* progress, sends counted */
		sched_yield();
	}
}

/* Insert every name on the board into t's AV: fi_addr[i] for rank i. */
static inline void tep_insert_all(struct tep *t, struct tep_board *b, int n,
				  fi_addr_t *addrs)
{
	for (int i = 0; i < n; i++)
		SHM_CHECK(fi_av_insert(t->av, b->name[i], 1, &addrs[i], 0,
				       NULL) == 1);
}

/* Send, retrying on -FI_EAGAIN while driving progress. */
#define TEP_RETRY(t, call)                                                   \
	({                                                                   \
		ssize_t r_;                                                  \
		while ((r_ = (call)) == -FI_EAGAIN)                          \
			tep_tx_drain(t);                                     \
		r_;                                                          \
	})

#endif /* PROPEL_TESTS_SHM_EP_TEST_H */
