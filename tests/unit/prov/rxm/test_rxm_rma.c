/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA and atomics on ofi_rxm over tcp (127.0.0.1), through the public
 * API only: endpoint A reads, writes and applies atomics to memory that
 * endpoint B registered, in this process (rxm_test.h).
 *
 *   rma        B's domain in the mode an application that asks nothing
 *              gets (mr_mode 0: offsets into the registration, keys the
 *              application chose)
 *   rma_virt   FI_MR_VIRT_ADDR | FI_MR_PROV_KEY: virtual addresses and
 *              the provider's keys
 *     each: writes from 0 bytes to several buffers' worth (checked at
 *     B; past one buffer they go by the core's own RMA, which the
 *     target drives, rxm_ep_rma_core.c), a read of all of it back,
 *     writedata, small and by the core (B's CQ gets the data),
 *     writemsg over two remote buffers, readv into three local pieces,
 *     an inject write then a read that sees it; refusals (unknown key,
 *     out of range, no remote write on a read-only region; small and by
 *     the core), each an error completion at A with B's memory (and
 *     A's read buffer) unchanged; atomics (sum,
 *     fetch-sum, compare-swap, a fetching read with no operand, one on
 *     a read-only region refused); B's FI_REMOTE_WRITE counter counts
 *     each write once, whatever its size.
 *     also: B's FI_REMOTE_READ counter once a read, a counter bound to
 *     B's region (fi_mr_bind) once a write to it, a write and a read of
 *     a region past 2 MiB with every byte checked, and one atomic of
 *     every (op, datatype) pair fi_atomicvalid and its fetch and
 *     compare variants offer, each a success.
 *   rma_gone   A's reads (one small, one by the core) wait for B, which
 *              closes: each completes exactly once (in error, the
 *              connection's end, unless B's close still answered it),
 *              nothing is lost or leaked.
 * With a second argument "shm" (FI_OFI_RXM_USE_SHM=1) the same run goes
 * through shm, B being node-local: proof that no byte took tcp is that
 * no TCP connection to or from B's port is ever established (read from
 * /proc/net/tcp and tcp6) while the tcp run establishes one; then an
 * atomic with more operands than shm carries at once (128 sums of
 * 64-bit words) still completes, by the core, and a TCP connection to
 * B appears. "shm_auto": the same with FI_PROGRESS_AUTO.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "rxm_test.h"

#define TGT	(5 * 16384 + 999)	/* several buffers of the default */
#define RW_KEY	7
#define RO_KEY	8
#define BIG_KEY	9
#define BIG	(2 * 1024 * 1024 + 4097)	/* past 2 MiB, not aligned */

struct target {
	uint8_t *mem, *ro, *big;
	struct fid_mr *mr, *ro_mr, *big_mr;
	/* B's endpoint: remote writes, remote reads; bound to mr */
	struct fid_cntr *wcntr, *rcntr, *mrcntr;
	uint64_t key, ro_key, big_key;
	bool virt;
};

static uint64_t raddr(const struct target *t, const void *base, size_t off)
{
	return t->virt ? (uint64_t)(uintptr_t)base + off : off;
}

/* B's registrations and its remote write counter, bound before B's
 * endpoint is enabled (ep_open_with). */
static void target_open(struct ep *b, void *arg)
{
	struct target *t = arg;
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };

	t->mem = calloc(1, TGT);
	t->ro = calloc(1, 4096);
	t->big = calloc(1, BIG);
	CHECK(t->mem && t->ro && t->big);
	CHECK_EQ(fi_mr_reg(b->domain, t->mem, TGT,
			   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, RW_KEY, 0,
			   &t->mr, NULL), 0);
	CHECK_EQ(fi_mr_reg(b->domain, t->ro, 4096, FI_REMOTE_READ, 0, RO_KEY,
			   0, &t->ro_mr, NULL), 0);
	CHECK_EQ(fi_mr_reg(b->domain, t->big, BIG,
			   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, BIG_KEY, 0,
			   &t->big_mr, NULL), 0);
	t->big_key = fi_mr_key(t->big_mr);
	/* the mode the domain runs in is the fi_info's */
	CHECK_EQ(!!(b->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR),
		 t->virt);
	t->key = fi_mr_key(t->mr);
	t->ro_key = fi_mr_key(t->ro_mr);
	if (!t->virt) {
		/* the keys the application asked for */
		CHECK_EQ(t->key, RW_KEY);
		CHECK_EQ(t->ro_key, RO_KEY);
	}
	CHECK_EQ(fi_cntr_open(b->domain, &ca, &t->wcntr, NULL), 0);
	CHECK_EQ(fi_ep_bind(b->ep, &t->wcntr->fid, FI_REMOTE_WRITE), 0);
	b->extra[b->nextra++] = &t->wcntr->fid;
	CHECK_EQ(fi_cntr_open(b->domain, &ca, &t->rcntr, NULL), 0);
	CHECK_EQ(fi_ep_bind(b->ep, &t->rcntr->fid, FI_REMOTE_READ), 0);
	b->extra[b->nextra++] = &t->rcntr->fid;
	/* counts the remote writes and atomics that modify t->mem */
	CHECK_EQ(fi_cntr_open(b->domain, &ca, &t->mrcntr, NULL), 0);
	CHECK_EQ(fi_mr_bind(t->mr, &t->mrcntr->fid, FI_REMOTE_WRITE), 0);
}

static void target_close(struct target *t)
{
	CHECK_EQ(fi_close(&t->mr->fid), 0);
	CHECK_EQ(fi_close(&t->ro_mr->fid), 0);
	CHECK_EQ(fi_close(&t->big_mr->fid), 0);
	/* the MR held it: its counter closes after the MR */
	CHECK_EQ(fi_close(&t->mrcntr->fid), 0);
	free(t->mem);
	free(t->ro);
	free(t->big);
}

/*
 * Order this thread's accesses to B's memory with B's progress, which
 * may run on a provider thread (the fabric's connection thread) and
 * places RMA data under B's endpoint lock. The network orders them
 * (A's completion follows B's placement; B's next placement follows
 * A's next post), but ThreadSanitizer cannot see through a socket: a
 * cancel of a context B never saw takes and releases that lock, which
 * it can see. Called after each of A's completions, before the test
 * reads B's memory, and before each post, after it read it.
 */
static void sync_b(struct ep **all)
{
	static char never_posted;

	CHECK_EQ(fi_cancel(&all[1]->ep->fid, &never_posted), -FI_ENOENT);
}

/* Post until the endpoint takes it, driving both meanwhile. */
#define POST(all, call)                                                 \
	do {                                                            \
		ssize_t r_;                                             \
		sync_b(all);                                            \
		while ((r_ = (call)) == -FI_EAGAIN)                     \
			drive(all, 2);                                  \
		CHECK_EQ(r_, 0);                                        \
	} while (0)

/* The same, driving only the endpoints in who (B left alone). */
#define POST_A(who, call)                                               \
	do {                                                            \
		ssize_t r_;                                             \
		while ((r_ = (call)) == -FI_EAGAIN)                     \
			drive(who, 1);                                  \
		CHECK_EQ(r_, 0);                                        \
	} while (0)

/* A's completion of the operation posted with ctx: 0 or its error. */
static int done(struct ep **all, void *ctx, uint64_t flags)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;

	if (wait_one(all, 2, all[0]->cq, &e, &err, NULL) < 0) {
		CHECK(err.op_context == ctx);
		sync_b(all);
		return err.err;
	}
	CHECK(e.op_context == ctx);
	CHECK_EQ(e.flags & flags, flags);
	sync_b(all);
	return 0;
}

static void rma_data(struct ep **all, fi_addr_t dest, struct target *t)
{
	static const size_t sizes[] = { 0, 1, 1000, 16384, TGT };
	uint8_t *out = malloc(TGT), *in = malloc(TGT);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep *a = all[0], *b = all[1];
	size_t i, writes = 0, reads = 0;

	uint64_t seen = fi_cntr_read(t->wcntr);

	CHECK(out && in);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		phase = "write, each size";
		fill(out, sizes[i], (unsigned)i + 1);
		POST(all, fi_write(a->ep, out, sizes[i], NULL, dest,
				   raddr(t, t->mem, 0), t->key, out));
		CHECK_EQ(done(all, out, FI_RMA | FI_WRITE), 0);
		/* B counted the write before A's completion came */
		CHECK_EQ(fi_cntr_read(t->wcntr), seen + writes + 1);
		CHECK(!memcmp(t->mem, out, sizes[i]));
		writes++;
	}
	phase = "read it all back";
	memset(in, 0, TGT);
	POST(all, fi_read(a->ep, in, TGT, NULL, dest, raddr(t, t->mem, 0),
			  t->key, in));
	CHECK_EQ(done(all, in, FI_RMA | FI_READ), 0);
	CHECK(!memcmp(in, t->mem, TGT));
	reads++;

	phase = "writedata: the data at B";
	fill(out, 300, 9);
	POST(all, fi_writedata(a->ep, out, 300, NULL, 0xabcdef, dest,
			       raddr(t, t->mem, 64), t->key, out));
	CHECK_EQ(done(all, out, FI_RMA | FI_WRITE), 0);
	writes++;
	CHECK_EQ(wait_one(all, 2, b->cq, &e, &err, NULL), 1);
	CHECK_EQ(e.flags, FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA);
	CHECK_EQ(e.data, 0xabcdef);
	CHECK_EQ(e.len, 300);
	CHECK(!memcmp(t->mem + 64, out, 300));

	phase = "writedata past a buffer (by the core): the data at B";
	fill(out, 40000, 10);
	POST(all, fi_writedata(a->ep, out, 40000, NULL, 0x5eed, dest,
			       raddr(t, t->mem, 1000), t->key, out));
	CHECK_EQ(done(all, out, FI_RMA | FI_WRITE), 0);
	writes++;
	CHECK_EQ(wait_one(all, 2, b->cq, &e, &err, NULL), 1);
	CHECK_EQ(e.flags, FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA);
	CHECK_EQ(e.data, 0x5eed);
	CHECK_EQ(e.len, 40000);
	CHECK(!memcmp(t->mem + 1000, out, 40000));

	phase = "writemsg over two remote buffers";
	{
		struct iovec iov[2] = { { out, 30 }, { out + 30, 70 } };
		struct fi_rma_iov rma[2] = {
			{ raddr(t, t->mem, 100), 50, t->key },
			{ raddr(t, t->mem, 5000), 50, t->key },
		};
		struct fi_msg_rma msg = {
			.msg_iov = iov, .iov_count = 2, .addr = dest,
			.rma_iov = rma, .rma_iov_count = 2, .context = iov,
		};

		fill(out, 100, 11);
		POST(all, fi_writemsg(a->ep, &msg, FI_COMPLETION));
		CHECK_EQ(done(all, iov, FI_RMA | FI_WRITE), 0);
		CHECK(!memcmp(t->mem + 100, out, 50));
		CHECK(!memcmp(t->mem + 5000, out + 50, 50));
		writes += 2;	/* one request per remote buffer */
	}

	phase = "readv into three pieces";
	{
		struct iovec iov[3] = { { in, 10 }, { in + 100, 20000 },
					{ in + 30000, 5 } };

		memset(in, 0, TGT);
		POST(all, fi_readv(a->ep, iov, NULL, 3, dest,
				   raddr(t, t->mem, 7), t->key, iov));
		CHECK_EQ(done(all, iov, FI_RMA | FI_READ), 0);
		CHECK(!memcmp(in, t->mem + 7, 10));
		CHECK(!memcmp(in + 100, t->mem + 17, 20000));
		CHECK(!memcmp(in + 30000, t->mem + 20017, 5));
		reads++;
	}

	phase = "inject write, then a read that sees it";
	fill(out, 8, 21);
	POST(all, fi_inject_write(a->ep, out, 8, dest, raddr(t, t->mem, 900),
				  t->key));
	writes++;
	memset(out + 8, 0, 8);
	POST(all, fi_read(a->ep, out + 8, 8, NULL, dest,
			  raddr(t, t->mem, 900), t->key, in));
	CHECK_EQ(done(all, in, FI_RMA | FI_READ), 0);
	CHECK(!memcmp(out, out + 8, 8));
	reads++;

	phase = "B's remote write counter: once a write";
	CHECK_EQ(fi_cntr_read(t->wcntr), writes);
	phase = "the counter bound to B's region: once a write to it";
	CHECK_EQ(fi_cntr_read(t->mrcntr), writes);
	phase = "B's remote read counter: once a read";
	CHECK_EQ(fi_cntr_read(t->rcntr), reads);
	free(out);
	free(in);
}

static void rma_refusals(struct ep **all, fi_addr_t dest, struct target *t)
{
	uint8_t *copy = malloc(TGT), out[64] = { 1, 2, 3 }, in[64];
	struct ep *a = all[0];

	CHECK(copy);
	memcpy(copy, t->mem, TGT);
	phase = "refused: unknown key";
	POST(all, fi_write(a->ep, out, 8, NULL, dest, raddr(t, t->mem, 0),
			   t->key + t->ro_key + 1000, out));
	CHECK_EQ(done(all, out, 0), FI_EKEYREJECTED);
	POST(all, fi_read(a->ep, in, 8, NULL, dest, raddr(t, t->mem, 0),
			  t->key + t->ro_key + 1000, in));
	CHECK_EQ(done(all, in, 0), FI_EKEYREJECTED);
	phase = "refused: past the registration";
	POST(all, fi_write(a->ep, out, 8, NULL, dest,
			   raddr(t, t->mem, TGT - 4), t->key, out));
	CHECK_EQ(done(all, out, 0), FI_EACCES);
	phase = "refused: write to a read-only region";
	POST(all, fi_write(a->ep, out, 8, NULL, dest, raddr(t, t->ro, 0),
			   t->ro_key, out));
	CHECK_EQ(done(all, out, 0), FI_EACCES);
	CHECK(!memcmp(copy, t->mem, TGT));
	for (size_t i = 0; i < 4096; i++)
		CHECK_EQ(t->ro[i], 0);
	/* past one buffer a write or read goes by the core's own RMA
	 * (rxm_ep_rma_core.c): the target refuses it the same way, before
	 * a byte moves */
	{
		uint8_t *big = calloc(1, TGT);

		CHECK(big);
		phase = "refused by the core path: unknown key";
		POST(all, fi_write(a->ep, big, TGT, NULL, dest,
				   raddr(t, t->mem, 0),
				   t->key + t->ro_key + 1000, big));
		CHECK_EQ(done(all, big, 0), FI_EKEYREJECTED);
		POST(all, fi_read(a->ep, big, TGT, NULL, dest,
				  raddr(t, t->mem, 0),
				  t->key + t->ro_key + 1000, big));
		CHECK_EQ(done(all, big, 0), FI_EKEYREJECTED);
		phase = "refused by the core path: past the registration";
		POST(all, fi_write(a->ep, big, 20000, NULL, dest,
				   raddr(t, t->mem, TGT - 19999), t->key,
				   big));
		CHECK_EQ(done(all, big, 0), FI_EACCES);
		POST(all, fi_read(a->ep, big, 20000, NULL, dest,
				  raddr(t, t->mem, TGT - 19999), t->key,
				  big));
		CHECK_EQ(done(all, big, 0), FI_EACCES);
		phase = "refused by the core path: read-only region";
		POST(all, fi_write(a->ep, big, 20000, NULL, dest,
				   raddr(t, t->ro, 0), t->ro_key, big));
		CHECK_EQ(done(all, big, 0), FI_EACCES);
		for (size_t i = 0; i < TGT; i++)
			CHECK_EQ(big[i], 0);	/* no read landed */
		free(big);
		CHECK(!memcmp(copy, t->mem, TGT));
	}
	phase = "a read of the read-only region is fine";
	POST(all, fi_read(a->ep, in, 8, NULL, dest, raddr(t, t->ro, 0),
			  t->ro_key, in));
	CHECK_EQ(done(all, in, FI_RMA | FI_READ), 0);
	free(copy);
}

static void rma_atomics(struct ep **all, fi_addr_t dest, struct target *t)
{
	uint64_t v, res, cmp, *word = (uint64_t *)(void *)t->mem;
	struct fi_atomic_attr attr;
	struct ep *a = all[0];
	size_t count = 0;

	CHECK_EQ(fi_atomicvalid(a->ep, FI_UINT64, FI_SUM, &count), 0);
	CHECK(count >= 1);
	CHECK_EQ(fi_query_atomic(all[1]->domain, FI_UINT64, FI_CSWAP, &attr,
				 FI_COMPARE_ATOMIC), 0);
	CHECK_EQ(attr.size, 8);
	*word = 10;
	phase = "atomic sum";
	v = 5;
	POST(all, fi_atomic(a->ep, &v, 1, NULL, dest, raddr(t, t->mem, 0),
			    t->key, FI_UINT64, FI_SUM, &v));
	CHECK_EQ(done(all, &v, FI_ATOMIC | FI_WRITE), 0);
	CHECK_EQ(*word, 15);
	phase = "fetch and add";
	v = 1;
	res = 0;
	POST(all, fi_fetch_atomic(a->ep, &v, 1, NULL, &res, NULL, dest,
				  raddr(t, t->mem, 0), t->key, FI_UINT64,
				  FI_SUM, &res));
	CHECK_EQ(done(all, &res, FI_ATOMIC | FI_READ), 0);
	CHECK_EQ(res, 15);
	CHECK_EQ(*word, 16);
	phase = "compare and swap";
	v = 100;
	cmp = 16;
	POST(all, fi_compare_atomic(a->ep, &v, 1, NULL, &cmp, NULL, &res,
				    NULL, dest, raddr(t, t->mem, 0), t->key,
				    FI_UINT64, FI_CSWAP, &cmp));
	CHECK_EQ(done(all, &cmp, FI_ATOMIC | FI_READ), 0);
	CHECK_EQ(res, 16);
	CHECK_EQ(*word, 100);
	phase = "fetching read with no operand";
	res = 0;
	POST(all, fi_fetch_atomic(a->ep, NULL, 1, NULL, &res, NULL, dest,
				  raddr(t, t->mem, 0), t->key, FI_UINT64,
				  FI_ATOMIC_READ, &res));
	CHECK_EQ(done(all, &res, FI_ATOMIC | FI_READ), 0);
	CHECK_EQ(res, 100);
	phase = "refused: a sum on a read-only region";
	POST(all, fi_atomic(a->ep, &v, 1, NULL, dest, raddr(t, t->ro, 0),
			    t->ro_key, FI_UINT64, FI_SUM, &v));
	CHECK_EQ(done(all, &v, 0), FI_EACCES);
	CHECK_EQ(*(uint64_t *)(void *)t->ro, 0);
}

/* A write of all of B's large region, then a read of it back into
 * fresh memory: every byte checked at B, then at A. */
static void rma_large(struct ep **all, fi_addr_t dest, struct target *t)
{
	uint8_t *out = malloc(BIG), *in = calloc(1, BIG);
	struct ep *a = all[0];

	CHECK(out && in);
	phase = "write past 2 MiB";
	fill(out, BIG, 77);
	POST(all, fi_write(a->ep, out, BIG, NULL, dest,
			   raddr(t, t->big, 0), t->big_key, out));
	CHECK_EQ(done(all, out, FI_RMA | FI_WRITE), 0);
	CHECK(!memcmp(t->big, out, BIG));
	phase = "read past 2 MiB";
	POST(all, fi_read(a->ep, in, BIG, NULL, dest, raddr(t, t->big, 0),
			  t->big_key, in));
	CHECK_EQ(done(all, in, FI_RMA | FI_READ), 0);
	CHECK(!memcmp(in, out, BIG));
	free(out);
	free(in);
}

/* One atomic of kind (0, FI_FETCH_ATOMIC, FI_COMPARE_ATOMIC) on one
 * element of dt at B, operands zero: its completion status. */
static int atomic_one(struct ep **all, fi_addr_t dest, struct target *t,
		      enum fi_datatype dt, enum fi_op op, uint64_t kind)
{
	/* the largest element: a long double complex */
	uint8_t opnd[64] = { 0 }, cmp[64] = { 0 }, res[64];
	struct ep *a = all[0];
	uint64_t at = raddr(t, t->mem, 4096);

	memset(t->mem + 4096, 0, 64);
	if (kind == FI_COMPARE_ATOMIC)
		POST(all, fi_compare_atomic(a->ep, opnd, 1, NULL, cmp, NULL,
					    res, NULL, dest, at, t->key, dt,
					    op, res));
	else if (kind == FI_FETCH_ATOMIC)
		POST(all, fi_fetch_atomic(a->ep, opnd, 1, NULL, res, NULL,
					  dest, at, t->key, dt, op, res));
	else
		POST(all, fi_atomic(a->ep, opnd, 1, NULL, dest, at, t->key,
				    dt, op, res));
	return done(all, res, FI_ATOMIC);
}

/* Every (op, datatype) pair A's endpoint offers, in each of the three
 * calls, applied once: all succeed (none is refused by the transport
 * that carried it). */
static void rma_all_atomics(struct ep **all, fi_addr_t dest,
			    struct target *t)
{
	static const uint64_t kinds[3] = { 0, FI_FETCH_ATOMIC,
					   FI_COMPARE_ATOMIC };
	struct ep *a = all[0];
	size_t count, done_n = 0;
	int dt, op, k, ret;

	phase = "every (op, datatype) pair offered";
	for (k = 0; k < 3; k++)
		for (dt = 0; dt < FI_DATATYPE_LAST; dt++)
			for (op = 0; op < FI_ATOMIC_OP_LAST; op++) {
				count = 0;
				ret = kinds[k] == FI_COMPARE_ATOMIC ?
				      fi_compare_atomicvalid(a->ep, dt, op,
							     &count) :
				      kinds[k] == FI_FETCH_ATOMIC ?
				      fi_fetch_atomicvalid(a->ep, dt, op,
							   &count) :
				      fi_atomicvalid(a->ep, dt, op, &count);
				if (ret || !count)
					continue;
				CHECK_EQ(atomic_one(all, dest, t, dt, op,
						    kinds[k]), 0);
				done_n++;
			}
	/* sums, compare-swaps and reads of every integer and float type
	 * at least */
	CHECK(done_n >= 30);
}

/* More operands than shm carries in one request: by the core, which
 * connects to B; every word summed. */
static void rma_wide_atomic(struct ep **all, fi_addr_t dest,
			    struct target *t)
{
	uint64_t v[128], *w = (uint64_t *)(void *)(t->mem + 8192);
	struct ep *a = all[0];
	size_t count = 0, i;

	CHECK_EQ(fi_atomicvalid(a->ep, FI_UINT64, FI_SUM, &count), 0);
	CHECK(count >= 128);
	for (i = 0; i < 128; i++) {
		w[i] = i;
		v[i] = 1000 + i;
	}
	phase = "an atomic of 128 words";
	POST(all, fi_atomic(a->ep, v, 128, NULL, dest,
			    raddr(t, t->mem, 8192), t->key, FI_UINT64, FI_SUM,
			    v));
	CHECK_EQ(done(all, v, FI_ATOMIC | FI_WRITE), 0);
	for (i = 0; i < 128; i++)
		CHECK_EQ(w[i], 1000 + 2 * i);
}

static int scn_rma(bool virt, bool shm)
{
	int mode = virt ? FI_MR_VIRT_ADDR | FI_MR_PROV_KEY : 0;
	struct ep a, b, *all[2] = { &a, &b };
	struct target t = { .virt = virt };
	fi_addr_t b_at_a;

	ep_open_caps(&a, FI_RMA | FI_ATOMIC | FI_RMA_EVENT, mode);
	ep_open_with(&b, FI_RMA | FI_ATOMIC | FI_RMA_EVENT, mode, target_open,
		     &t);
	CHECK(a.info->caps & FI_RMA && a.info->caps & FI_ATOMIC);
	b_at_a = insert(&a, &b);
	(void)insert(&b, &a);
	rma_data(all, b_at_a, &t);
	rma_refusals(all, b_at_a, &t);
	rma_atomics(all, b_at_a, &t);
	rma_all_atomics(all, b_at_a, &t);
	rma_large(all, b_at_a, &t);
	phase = "the route: a TCP connection to B over tcp, none over shm";
	if (shm)
		CHECK_EQ(rxm_test_tcp_conns(&b), 0);
	else
		CHECK(rxm_test_tcp_conns(&b) > 0);
	rma_wide_atomic(all, b_at_a, &t);
	CHECK(rxm_test_tcp_conns(&b) > 0);
	target_close(&t);
	ep_close(&a);
	ep_close(&b);
	return 0;
}

static int scn_gone(void)
{
	struct ep a, b, *all[2] = { &a, &b }, *only_a[2] = { &a, &a };
	uint8_t in[64], *big = malloc(TGT);
	struct target t = { .virt = false };
	fi_addr_t b_at_a;

	CHECK(big);
	ep_open_caps(&a, FI_RMA, 0);
	ep_open_with(&b, FI_RMA | FI_RMA_EVENT, 0, target_open, &t);
	b_at_a = insert(&a, &b);
	phase = "a first read connects";
	POST(all, fi_read(a.ep, in, 8, NULL, b_at_a, 0, t.key, in));
	CHECK_EQ(done(all, in, FI_RMA | FI_READ), 0);
	phase = "reads B never answers (one by the core): B closes";
	/* posted without touching B (POST's sync_b takes B's endpoint,
	 * whose pass could answer the first before B closes) */
	POST_A(only_a, fi_read(a.ep, in, 8, NULL, b_at_a, 0, t.key, in + 1));
	POST_A(only_a, fi_read(a.ep, big, TGT, NULL, b_at_a, 0, t.key, big));
	target_close(&t);
	ep_close(&b);
	/* each completes once, in any order: in error, or (when B's close
	 * still ran a pass that answered it) successfully */
	{
		struct fi_cq_tagged_entry e;
		struct fi_cq_err_entry err;
		bool small = false, large = false;
		void *ctx;

		for (int n = 0; n < 2; n++) {
			ctx = wait_one(only_a, 2, a.cq, &e, &err, NULL) < 0 ?
			      err.op_context : e.op_context;
			CHECK(ctx == in + 1 || ctx == big);
			CHECK(!(ctx == in + 1 ? small : large));
			*(ctx == in + 1 ? &small : &large) = true;
		}
	}
	ep_close(&a);
	free(big);
	return 0;
}

int main(int argc, char **argv)
{
	bool shm = argc == 3 && (!strcmp(argv[2], "shm") ||
				 !strcmp(argv[2], "shm_auto"));

	/* before rxm_test_start, which pins tcp unless told */
	if (shm)
		CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", "1", 1), 0);
	/* the domains' progress threads hand the listed operations to shm
	 * and serve them while the test posts and checks */
	if (shm && !strcmp(argv[2], "shm_auto"))
		rxm_test_progress = FI_PROGRESS_AUTO;
	rxm_test_start();
	if (argc >= 2 && argc <= 3 && (argc == 2 || shm)) {
		if (!strcmp(argv[1], "rma"))
			return scn_rma(false, shm);
		if (!strcmp(argv[1], "rma_virt"))
			return scn_rma(true, shm);
		if (!strcmp(argv[1], "rma_gone"))
			return scn_gone();
	}
	fprintf(stderr, "usage: %s rma|rma_virt|rma_gone [shm|shm_auto]\n",
		argv[0]);
	return 2;
}
