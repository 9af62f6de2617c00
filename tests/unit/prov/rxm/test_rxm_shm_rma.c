/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA and atomics between two processes on one node, rxm over shm
 * (FI_OFI_RXM_USE_SHM=1): the parent (A) reads, writes and applies
 * atomics to memory the child (B) registered (offsets and the keys the
 * application chose: the mode rxm answers when asked nothing), B
 * driving its own endpoint meanwhile and checking, at A's request,
 * what arrived. The pipes carry only names and commands.
 *
 *   procs     A: a writedata past 2 MiB (every byte checked at B, its
 *             data and length in B's CQ), a read of it back, a
 *             fetch-and-add, refusals (unknown key, out of range,
 *             read-only), each an error completion with B unchanged;
 *             B's remote write and read counters and the counter bound
 *             to its region count what succeeded, once each. No TCP
 *             connection to or from B's port was made. Then B dies
 *             without closing, and A's next read of it ends in an error
 *             completion, not a hang.
 *   ... nocma  the same with FI_SHM_DISABLE_CMA=1: the 2 MiB go through
 *             shm's bounce buffers instead of its single copy.
 *   fallback  B without shm (FI_OFI_RXM_USE_SHM=0 in the child): A's
 *             shm finds no endpoint by B's name, and the same
 *             operations (the very first an RMA) go over tcp instead,
 *             with the same results, and B sees a TCP connection.
 */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "rxm_test.h"

#define KEY	7
#define RO_KEY	8
#define BIG	(2 * 1024 * 1024 + 4097)
#define WORD	BIG		/* the atomic's word, after the data */
#define DATA	0x77abcdULL

/* B's side. */
struct tgt {
	uint8_t *mem, ro[64];
	struct fid_mr *mr, *ro_mr;
	struct fid_cntr *wcntr, *rcntr, *mrcntr;
};

static void tgt_open(struct ep *b, void *arg)
{
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	struct tgt *t = arg;

	t->mem = calloc(1, BIG + 8);
	CHECK(t->mem);
	memcpy(t->mem + WORD, &(uint64_t){ 10 }, 8);
	CHECK_EQ(fi_mr_reg(b->domain, t->mem, BIG + 8,
			   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, KEY, 0, &t->mr,
			   NULL), 0);
	CHECK_EQ(fi_mr_reg(b->domain, t->ro, sizeof(t->ro), FI_REMOTE_READ,
			   0, RO_KEY, 0, &t->ro_mr, NULL), 0);
	CHECK_EQ(fi_cntr_open(b->domain, &ca, &t->wcntr, NULL), 0);
	CHECK_EQ(fi_ep_bind(b->ep, &t->wcntr->fid, FI_REMOTE_WRITE), 0);
	b->extra[b->nextra++] = &t->wcntr->fid;
	CHECK_EQ(fi_cntr_open(b->domain, &ca, &t->rcntr, NULL), 0);
	CHECK_EQ(fi_ep_bind(b->ep, &t->rcntr->fid, FI_REMOTE_READ), 0);
	b->extra[b->nextra++] = &t->rcntr->fid;
	CHECK_EQ(fi_cntr_open(b->domain, &ca, &t->mrcntr, NULL), 0);
	CHECK_EQ(fi_mr_bind(t->mr, &t->mrcntr->fid, FI_REMOTE_WRITE), 0);
}

/* B: what A's operations must have left. */
static void tgt_check(struct tgt *t, const struct fi_cq_tagged_entry *e,
		      int entries)
{
	uint8_t *want = malloc(BIG);
	uint64_t w;

	CHECK(want);
	fill(want, BIG, 5);
	CHECK(!memcmp(t->mem, want, BIG));
	memcpy(&w, t->mem + WORD, 8);
	CHECK_EQ(w, 15);
	for (size_t i = 0; i < sizeof(t->ro); i++)
		CHECK_EQ(t->ro[i], 0);
	CHECK_EQ(entries, 1);
	CHECK_EQ(e->flags, FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA);
	CHECK_EQ(e->data, DATA);
	CHECK_EQ(e->len, BIG);
	/* the write and the atomic; the read; both modified the region */
	CHECK_EQ(fi_cntr_read(t->wcntr), 2);
	CHECK_EQ(fi_cntr_read(t->rcntr), 1);
	CHECK_EQ(fi_cntr_read(t->mrcntr), 2);
	free(want);
}

/* B: drive the endpoint (A's operations need B's progress) until A
 * asks: 'c' check and answer, 'd' die, 'q' close and leave. */
static void child(int cmd, int ans)
{
	struct fi_cq_tagged_entry e, got;
	struct pollfd pfd = { .fd = cmd, .events = POLLIN };
	struct tgt t = { 0 };
	struct ep b;
	int entries = 0;
	ssize_t n;
	char c;

	ep_open_with(&b, FI_RMA | FI_ATOMIC | FI_RMA_EVENT, 0, tgt_open, &t);
	CHECK(write(ans, &b.namelen, sizeof(b.namelen)) ==
	      (ssize_t)sizeof(b.namelen));
	CHECK(write(ans, b.name, b.namelen) == (ssize_t)b.namelen);
	for (;;) {
		n = fi_cq_read(b.cq, &e, 1);
		CHECK(n == 1 || n == -FI_EAGAIN);
		if (n == 1) {
			got = e;
			entries++;
		}
		if (poll(&pfd, 1, 0) != 1)
			continue;
		CHECK(read(cmd, &c, 1) == 1);
		if (c == 'c') {
			tgt_check(&t, &got, entries);
			/* whether anything reached us over tcp */
			c = rxm_test_tcp_conns(&b) ? 't' : 's';
			CHECK(write(ans, &c, 1) == 1);
		} else if (c == 'd') {
			_exit(0);	/* no close: a peer that dies */
		} else {
			break;
		}
	}
	CHECK_EQ(fi_close(&t.mr->fid), 0);
	CHECK_EQ(fi_close(&t.ro_mr->fid), 0);
	CHECK_EQ(fi_close(&t.mrcntr->fid), 0);
	ep_close(&b);
	free(t.mem);
	_exit(0);
}

/* A's completion of the operation posted with ctx: 0 or its error. */
static int done(struct ep *a, void *ctx)
{
	struct ep *all[1] = { a };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;

	if (wait_one(all, 1, a->cq, &e, &err, NULL) < 0) {
		CHECK(err.op_context == ctx);
		return err.err;
	}
	CHECK(e.op_context == ctx);
	return 0;
}

#define POST(a, call)                                                   \
	do {                                                            \
		ssize_t r_;                                             \
		struct ep *all_[1] = { (a) };                           \
		while ((r_ = (call)) == -FI_EAGAIN)                     \
			drive(all_, 1);                                 \
		CHECK_EQ(r_, 0);                                        \
	} while (0)

static int scenario(bool fallback)
{
	int to_child[2], to_parent[2], st;
	uint8_t *out = malloc(BIG), *in = calloc(1, BIG), small[8] = { 1 };
	uint64_t v = 5, res = 0;
	struct ep a, b;	/* b: the child's name only */
	fi_addr_t dest;
	pid_t pid;
	char c;

	CHECK(out && in);
	CHECK(!pipe(to_child) && !pipe(to_parent));
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		/* before the child's first fi_* call: read once */
		if (fallback)
			CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", "0", 1), 0);
		child(to_child[0], to_parent[1]);
	}
	ep_open_caps(&a, FI_RMA | FI_ATOMIC, 0);
	memset(&b, 0, sizeof(b));
	CHECK(read(to_parent[0], &b.namelen, sizeof(b.namelen)) ==
	      (ssize_t)sizeof(b.namelen));
	CHECK(b.namelen <= sizeof(b.name));
	CHECK(read(to_parent[0], b.name, b.namelen) == (ssize_t)b.namelen);
	CHECK_EQ(fi_av_insert(a.av, b.name, 1, &dest, 0, NULL), 1);

	phase = "writedata past 2 MiB";
	fill(out, BIG, 5);
	POST(&a, fi_writedata(a.ep, out, BIG, NULL, DATA, dest, 0, KEY, out));
	CHECK_EQ(done(&a, out), 0);
	phase = "read it back";
	POST(&a, fi_read(a.ep, in, BIG, NULL, dest, 0, KEY, in));
	CHECK_EQ(done(&a, in), 0);
	CHECK(!memcmp(in, out, BIG));
	phase = "fetch and add";
	POST(&a, fi_fetch_atomic(a.ep, &v, 1, NULL, &res, NULL, dest, WORD,
				 KEY, FI_UINT64, FI_SUM, &res));
	CHECK_EQ(done(&a, &res), 0);
	CHECK_EQ(res, 10);
	phase = "refusals";
	POST(&a, fi_write(a.ep, small, 8, NULL, dest, 0, KEY + 100, small));
	CHECK_EQ(done(&a, small), FI_EKEYREJECTED);
	POST(&a, fi_write(a.ep, small, 8, NULL, dest, BIG + 4, KEY, small));
	CHECK_EQ(done(&a, small), FI_EACCES);
	POST(&a, fi_write(a.ep, small, 8, NULL, dest, 0, RO_KEY, small));
	CHECK_EQ(done(&a, small), FI_EACCES);
	POST(&a, fi_read(a.ep, in, 16, NULL, dest, BIG, KEY, in));
	CHECK_EQ(done(&a, in), FI_EACCES);
	POST(&a, fi_atomic(a.ep, &v, 1, NULL, dest, 0, RO_KEY, FI_UINT64,
			   FI_SUM, &v));
	CHECK_EQ(done(&a, &v), FI_EACCES);

	phase = "B checks";
	CHECK(write(to_child[1], "c", 1) == 1);
	CHECK(read(to_parent[0], &c, 1) == 1);
	/* the route: over shm no TCP connection to B, over tcp one */
	CHECK_EQ(c, fallback ? 't' : 's');
	CHECK_EQ(rxm_test_tcp_conns(&b) > 0, fallback);
	if (fallback) {
		CHECK(write(to_child[1], "q", 1) == 1);
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	} else {
		CHECK(write(to_child[1], "d", 1) == 1);
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		phase = "a read of a peer that died";
		POST(&a, fi_read(a.ep, in, 8, NULL, dest, 0, KEY, in));
		CHECK(done(&a, in) != 0);
	}
	ep_close(&a);
	free(out);
	free(in);
	return 0;
}

int main(int argc, char **argv)
{
	bool nocma = argc == 3 && !strcmp(argv[2], "nocma");

	CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", "1", 1), 0);
	/* shm's bounce buffers instead of its single copy (both sides
	 * read it: the child inherits it) */
	if (nocma)
		CHECK_EQ(setenv("FI_SHM_DISABLE_CMA", "1", 1), 0);
	rxm_test_start();
	if ((argc == 2 || nocma) && !strcmp(argv[1], "procs"))
		return scenario(false);
	if ((argc == 2 || nocma) && !strcmp(argv[1], "fallback"))
		return scenario(true);
	fprintf(stderr, "usage: %s procs|fallback [nocma]\n", argv[0]);
	return 2;
}
