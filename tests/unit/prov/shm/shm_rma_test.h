/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the shm RMA and atomic tests (test_shm_rma.c,
 * test_shm_atomic.c), over shm_ep_test.h: a stack with FI_RMA |
 * FI_ATOMIC | FI_RMA_EVENT and counters bound before enable, a board of
 * published MR addresses and keys shared by the fork()ed processes, and
 * a wait for ONE transmit completion that returns its error, if any.
 */
#ifndef PROPEL_TESTS_SHM_RMA_TEST_H
#define PROPEL_TESTS_SHM_RMA_TEST_H

#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include "shm_ep_test.h"

#define RT_CAPS (FI_MSG | FI_RMA | FI_ATOMIC | FI_RMA_EVENT | FI_READ | \
		 FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)
#define RT_MRS 8

/* Counters: remote write / remote read (target side), write / read
 * (initiator side). */
enum { RT_RWRITE, RT_RREAD, RT_WRITE, RT_READ, RT_NCNTR };

struct rt {
	struct tep t;
	struct fid_cntr *cntr[RT_NCNTR];
};

/* Published by each rank: addresses and keys of its MRs, and flags. */
struct rt_board {
	struct tep_board tb;
	uint64_t addr[TEP_PROCS_MAX][RT_MRS];
	uint64_t key[TEP_PROCS_MAX][RT_MRS];
	_Atomic uint64_t word[TEP_PROCS_MAX][4];
	_Atomic int step;
	uint64_t fetched[8 * 4096];	/* atomic test: values fetched */
};

static inline struct rt_board *rt_board_new(void)
{
	void *p = mmap(NULL, sizeof(struct rt_board), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static inline int rt_open(struct rt *r)
{
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_NONE };
	static const uint64_t bind[RT_NCNTR] = {
		FI_REMOTE_WRITE, FI_REMOTE_READ, FI_WRITE, FI_READ };
	struct tep *t = &r->t;
	int ret, i;

	memset(r, 0, sizeof(*r));
	ret = tep_open_bound(t, RT_CAPS, FI_PROGRESS_UNSPEC);
	if (ret)
		return ret;
	for (i = 0; i < RT_NCNTR; i++)
		if ((ret = fi_cntr_open(t->domain, &ca, &r->cntr[i], NULL)) ||
		    (ret = fi_ep_bind(t->ep, &r->cntr[i]->fid, bind[i])))
			return ret;
	return tep_enable(t);
}

static inline void rt_close(struct rt *r)
{
	if (r->t.ep)
		fi_close(&r->t.ep->fid);
	r->t.ep = NULL;
	for (int i = 0; i < RT_NCNTR; i++)
		if (r->cntr[i])
			fi_close(&r->cntr[i]->fid);
	tep_close(&r->t);
}

/* Register buf in the domain's mode: without FI_MR_PROV_KEY the test
 * picks the keys (0x1000, 0x1001, ... in each process). */
static inline struct fid_mr *rt_reg(struct rt *r, void *buf, size_t len,
				    uint64_t access)
{
	static uint64_t next_key = 0x1000;
	struct fid_mr *mr;

	SHM_CHECK(fi_mr_reg(r->t.domain, buf, len, access, 0, next_key++, 0,
			    &mr, NULL) == 0);
	if (!(r->t.info->domain_attr->mr_mode & FI_MR_PROV_KEY))
		SHM_CHECK(fi_mr_key(mr) == next_key - 1);
	return mr;
}

/* What a peer names the start of a registration by: its virtual
 * address, or offset 0 without FI_MR_VIRT_ADDR. */
static inline uint64_t rt_addr(const struct rt *r, const void *start)
{
	return (r->t.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
	       (uint64_t)(uintptr_t)start : 0;
}

/* Wait for the next transmit completion; 0 or its positive fi_errno
 * (err_p gets the error entry). Drives progress. */
static inline int rt_tx_next(struct rt *r, struct fi_cq_err_entry *err_p)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	ssize_t n;

	for (;;) {
		n = fi_cq_read(r->t.txcq, &e, 1);
		if (n == 1)
			return 0;
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			SHM_CHECK(fi_cq_readerr(r->t.txcq, &err, 0) == 1);
			if (err_p)
				*err_p = err;
			else
				fprintf(stderr, "tx error %d (%s)\n",
					err.err, fi_strerror(err.err));
			return err.err;
		}
		SHM_CHECK(n == -FI_EAGAIN);
		/* the target needs the CPU to answer (2 cores, 9 procs) */
		sched_yield();
	}
}

/* Retry a data call on -FI_EAGAIN while driving progress (through the
 * receive CQ: transmit completions must stay for rt_tx_next). */
#define RT_RETRY(r, call)                                                    \
	({                                                                   \
		ssize_t r_;                                                  \
		struct fi_cq_tagged_entry e_;                                \
		while ((r_ = (call)) == -FI_EAGAIN)                          \
			(void)fi_cq_read((r)->t.cq, &e_, 0);                 \
		r_;                                                          \
	})

/* Keep progressing (for peers' requests) until cond holds. */
#define RT_SPIN_UNTIL(r, cond)                                               \
	do {                                                                 \
		struct fi_cq_tagged_entry e_;                                \
		while (!(cond)) {                                            \
			(void)fi_cq_read((r)->t.cq, &e_, 0);                 \
			sched_yield();                                       \
		}                                                            \
	} while (0)

/* Barrier of n that keeps progressing our endpoint. */
static inline void rt_barrier(struct rt_board *b, struct rt *r, int n,
			      int round)
{
	atomic_fetch_add(&b->tb.arrived, 1);
	RT_SPIN_UNTIL(r, atomic_load(&b->tb.arrived) >= n * round);
}

#endif /* PROPEL_TESTS_SHM_RMA_TEST_H */
