/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm RMA end to end between fork()ed processes, public API only (suite
 * integration). One scenario per run, named by argv[1]:
 *
 *   sizes     both ranks at once: fi_write of every size class (inline,
 *             SAR, CMA and the edges) into the peer's registered buffer,
 *             then fi_read of it back, verified; the target verifies the
 *             bytes that landed; writev/readv with several local iovecs.
 *             Run also with FI_SHM_DISABLE_CMA=1 (meson.build).
 *   event     FI_RMA_EVENT: fi_writedata / fi_inject_writedata give the
 *             target FI_REMOTE_CQ_DATA | FI_RMA | FI_REMOTE_WRITE entries
 *             with the data; the target's remote write / read counters
 *             and the initiator's write / read counters count exactly;
 *             a counter bound to the target's MR with fi_mr_bind
 *             (FI_REMOTE_WRITE) counts the remote writes.
 *   security  a wrong key, an out-of-range offset, a write to a read-only
 *             region, a read from a write-only region, an atomic on a
 *             read-only region, and the key of a closed MR: each fails
 *             at the initiator (FI_EKEYREJECTED / FI_EACCES) in every
 *             size class, and the target's memory is byte-for-byte
 *             unchanged.
 *   multi     fi_writemsg / fi_readmsg with 3 remote buffers: one
 *             completion, remote CQ data once, bytes in place; a bad key
 *             in one segment fails the operation once.
 *   death     the target is SIGKILLed with a read and an atomic pending:
 *             both complete at the initiator with FI_ECONNRESET.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shm_rma_test.h"

static struct rt_board *board;

static void rt_setup(struct rt *r, int rank, int n, fi_addr_t *addrs)
{
	SHM_CHECK(rt_open(r) == 0);
	memcpy(board->tb.name[rank], r->t.name, r->t.namelen);
	rt_barrier(board, r, n, 1);
	tep_insert_all(&r->t, &board->tb, n, addrs);
}

static int run_children(int n, void (*fn)(void *))
{
	board = rt_board_new();
	return board ? tep_run_ranks(n, fn) : 1;
}

static struct fid_mr *reg(struct rt *r, void *buf, size_t len,
			  uint64_t access)
{
	return rt_reg(r, buf, len, access);
}

static uint64_t cntr(struct rt *r, int i)
{
	return fi_cntr_read(r->cntr[i]);
}

/* ---- sizes ---- */

static const size_t sizes[] = { 1, 8, 64, 127, 128, 191, 192, 193, 1000,
				4096, 16383, 16384, 16385, 65536, 100000,
				1 << 20, 4 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define SZ_TOTAL (12 << 20)

static void sizes_rank(void *arg)
{
	int rank = (int)(intptr_t)arg, peer = !rank;
	uint8_t *tgt = malloc(SZ_TOTAL), *src = malloc(4 << 20),
		*back = malloc(4 << 20);
	fi_addr_t addrs[2];
	struct fid_mr *mr;
	size_t i, off;
	struct rt r;

	SHM_CHECK(tgt && src && back);
	memset(tgt, 0, SZ_TOTAL);
	rt_setup(&r, rank, 2, addrs);
	mr = reg(&r, tgt, SZ_TOTAL, FI_REMOTE_READ | FI_REMOTE_WRITE);
	board->addr[rank][0] = rt_addr(&r, tgt);
	board->key[rank][0] = fi_mr_key(mr);
	rt_barrier(board, &r, 2, 2);

	for (i = 0, off = 0; i < NSIZES; off += sizes[i], i++) {
		uint64_t seq = (uint64_t)rank * 100 + i;
		uint64_t raddr = board->addr[peer][0] + off;

		shm_test_fill(src, sizes[i], seq);
		SHM_CHECK(RT_RETRY(&r, fi_write(r.t.ep, src, sizes[i], NULL,
			addrs[peer], raddr, board->key[peer][0],
			(void *)i)) == 0);
		SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		memset(back, 0, sizes[i]);
		SHM_CHECK(RT_RETRY(&r, fi_read(r.t.ep, back, sizes[i], NULL,
			addrs[peer], raddr, board->key[peer][0],
			(void *)i)) == 0);
		SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		if (shm_test_verify(back, sizes[i], seq))
			fprintf(stderr, "read back of %zu bytes differs\n",
				sizes[i]);
		SHM_CHECK(shm_test_verify(back, sizes[i], seq) == 0);
	}
	/* zero bytes: allowed, and complete */
	SHM_CHECK(RT_RETRY(&r, fi_write(r.t.ep, src, 0, NULL, addrs[peer],
		board->addr[peer][0], board->key[peer][0], NULL)) == 0);
	SHM_CHECK(rt_tx_next(&r, NULL) == 0);
	SHM_CHECK(RT_RETRY(&r, fi_read(r.t.ep, back, 0, NULL, addrs[peer],
		board->addr[peer][0], board->key[peer][0], NULL)) == 0);
	SHM_CHECK(rt_tx_next(&r, NULL) == 0);
	/* vectored: 3 local pieces each way, across an SAR size */
	{
		struct iovec v[3] = { { src, 100 }, { src + 1000, 5000 },
				      { src + 9000, 70000 } };
		struct iovec w[3] = { { back, 70000 }, { back + 80000, 100 },
				      { back + 90000, 5000 } };
		uint64_t raddr = board->addr[peer][0] + off;

		shm_test_fill(src, 80000, 7);
		SHM_CHECK(RT_RETRY(&r, fi_writev(r.t.ep, v, NULL, 3,
			addrs[peer], raddr, board->key[peer][0],
			NULL)) == 0);
		SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		SHM_CHECK(RT_RETRY(&r, fi_readv(r.t.ep, w, NULL, 3,
			addrs[peer], raddr, board->key[peer][0],
			NULL)) == 0);
		SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		/* what was written, in order, came back in order */
		SHM_CHECK(!memcmp(back, src, 100));
		SHM_CHECK(!memcmp(back + 100, src + 1000, 5000));
		SHM_CHECK(!memcmp(back + 5100, src + 9000, 64900));
		SHM_CHECK(!memcmp(back + 80000, src + 9000 + 64900, 100));
		SHM_CHECK(!memcmp(back + 90000, src + 9000 + 65000, 5000));
		/* 6 pieces: more than a read command carries (DATA reply);
		 * the remote image is the 3 written pieces back to back */
		struct iovec six[6];
		uint8_t *img = malloc(75100);

		SHM_CHECK(img);
		memcpy(img, src, 100);
		memcpy(img + 100, src + 1000, 5000);
		memcpy(img + 5100, src + 9000, 70000);
		for (int k = 0; k < 6; k++)
			six[k] = (struct iovec){ back + 200000 + k * 30000,
						 12500 };
		SHM_CHECK(RT_RETRY(&r, fi_readv(r.t.ep, six, NULL, 6,
			addrs[peer], raddr, board->key[peer][0],
			NULL)) == 0);
		SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		for (int k = 0; k < 6; k++)
			SHM_CHECK(!memcmp(six[k].iov_base, img + k * 12500,
					  12500));
		free(img);
	}
	SHM_CHECK(cntr(&r, RT_WRITE) == NSIZES + 2);
	SHM_CHECK(cntr(&r, RT_READ) == NSIZES + 3);
	rt_barrier(board, &r, 2, 3);
	/* the target's view: the peer's bytes, where it put them */
	for (i = 0, off = 0; i < NSIZES; off += sizes[i], i++)
		SHM_CHECK(shm_test_verify(tgt + off, sizes[i],
					  (uint64_t)peer * 100 + i) == 0);
	SHM_CHECK(cntr(&r, RT_RWRITE) == NSIZES + 2);
	SHM_CHECK(cntr(&r, RT_RREAD) == NSIZES + 3);
	rt_barrier(board, &r, 2, 4);
	fi_close(&mr->fid);
	rt_close(&r);
	free(tgt);
	free(src);
	free(back);
}

/* ---- event ---- */

static void event_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	struct fi_cq_tagged_entry e;
	fi_addr_t addrs[2];
	uint8_t *tgt = calloc(1, 1 << 20), *src = malloc(1 << 20);
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *mrc = NULL;
	struct fid_mr *mr = NULL;
	struct rt r;
	int k;

	SHM_CHECK(tgt && src);
	rt_setup(&r, rank, 2, addrs);
	if (rank == 1) {
		mr = reg(&r, tgt, 1 << 20, FI_REMOTE_READ | FI_REMOTE_WRITE);
		/* a counter bound to the MR itself counts its remote writes
		 * (the reads are not asked for) */
		SHM_CHECK(fi_cntr_open(r.t.domain, &ca, &mrc, NULL) == 0);
		SHM_CHECK(fi_mr_bind(mr, &mrc->fid, FI_REMOTE_WRITE) == 0);
		board->addr[1][0] = rt_addr(&r, tgt);
		board->key[1][0] = fi_mr_key(mr);
	}
	rt_barrier(board, &r, 2, 2);
	if (rank == 0) {
		uint64_t a = board->addr[1][0], key = board->key[1][0];

		shm_test_fill(src, 1 << 20, 5);
		SHM_CHECK(RT_RETRY(&r, fi_writedata(r.t.ep, src, 100, NULL,
			0x1111, addrs[1], a, key, NULL)) == 0);
		SHM_CHECK(RT_RETRY(&r, fi_writedata(r.t.ep, src, 300000, NULL,
			0x2222, addrs[1], a, key, NULL)) == 0);
		SHM_CHECK(RT_RETRY(&r, fi_inject_writedata(r.t.ep, src, 64,
			0x3333, addrs[1], a + 400000, key)) == 0);
		SHM_CHECK(RT_RETRY(&r, fi_inject_write(r.t.ep, src, 4000,
			addrs[1], a + 500000, key)) == 0);
		SHM_CHECK(RT_RETRY(&r, fi_read(r.t.ep, src, 10, NULL,
			addrs[1], a, key, NULL)) == 0);
		SHM_CHECK(RT_RETRY(&r, fi_read(r.t.ep, src, 50000, NULL,
			addrs[1], a, key, NULL)) == 0);
		/* 2 writedata + 2 reads complete; injects never do */
		for (k = 0; k < 4; k++)
			SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		RT_SPIN_UNTIL(&r, cntr(&r, RT_WRITE) == 4 &&
			      cntr(&r, RT_READ) == 2);
		SHM_CHECK(fi_cq_read(r.t.txcq, &e, 1) == -FI_EAGAIN);
		atomic_store(&board->step, 1);
	} else {
		uint64_t seen = 0;

		for (k = 0; k < 3; k++) {
			ssize_t n;

			while ((n = fi_cq_read(r.t.cq, &e, 1)) == -FI_EAGAIN)
				;
			SHM_CHECK(n == 1);
			SHM_CHECK(e.flags == (FI_REMOTE_CQ_DATA | FI_RMA |
					      FI_REMOTE_WRITE));
			SHM_CHECK(e.data == 0x1111 || e.data == 0x2222 ||
				  e.data == 0x3333);
			seen |= 1ull << (e.data >> 12);
			SHM_CHECK(e.len == (e.data == 0x1111 ? 100 :
					    e.data == 0x2222 ? 300000 : 64));
		}
		SHM_CHECK(seen == 0xe);
		RT_SPIN_UNTIL(&r, atomic_load(&board->step) == 1 &&
			      cntr(&r, RT_RWRITE) == 4);
		SHM_CHECK(cntr(&r, RT_RREAD) == 2);
		SHM_CHECK(fi_cntr_read(mrc) == 4);
		/* nothing else: the plain inject_write has no CQ entry */
		SHM_CHECK(fi_cq_read(r.t.cq, &e, 1) == -FI_EAGAIN);
		SHM_CHECK(shm_test_verify(tgt, 300000, 5) == 0);
		SHM_CHECK(shm_test_verify(tgt + 400000, 64, 5) == 0);
		SHM_CHECK(shm_test_verify(tgt + 500000, 4000, 5) == 0);
	}
	rt_barrier(board, &r, 2, 3);
	if (mr)
		SHM_CHECK(fi_close(&mr->fid) == 0);
	if (mrc)
		SHM_CHECK(fi_close(&mrc->fid) == 0);
	rt_close(&r);
	free(tgt);
	free(src);
}

/* ---- security ---- */

#define SEC_LEN (1 << 20)
enum { SEC_RW, SEC_RO, SEC_WO, SEC_CLOSED, SEC_N };
static const size_t sec_sizes[] = { 8, 8000, 256 << 10 };

/* One refused operation: it completes in error at the initiator. */
static void sec_expect(struct rt *r, ssize_t posted, int want)
{
	struct fi_cq_err_entry err;
	int got;

	SHM_CHECK(posted == 0);
	got = rt_tx_next(r, &err);
	if (got != want)
		fprintf(stderr, "expected err %d (%s), got %d (%s)\n", want,
			fi_strerror(want), got, fi_strerror(got));
	SHM_CHECK(got == want);
	SHM_CHECK(err.flags & (FI_RMA | FI_ATOMIC));
}

static void sec_initiator(struct rt *r, fi_addr_t t)
{
	uint8_t *src = malloc(SEC_LEN), *dst = malloc(SEC_LEN);
	uint64_t *a = board->addr[1], *k = board->key[1], one = 1, res;
	size_t i, n;

	SHM_CHECK(src && dst);
	memset(src, 0xee, SEC_LEN);
	RT_SPIN_UNTIL(r, atomic_load(&board->tb.flag[0]));	/* registered */
	/* the closed MR's key works while it is open */
	SHM_CHECK(RT_RETRY(r, fi_write(r->t.ep, src, 64, NULL, t,
		a[SEC_CLOSED], k[SEC_CLOSED], NULL)) == 0);
	SHM_CHECK(rt_tx_next(r, NULL) == 0);
	atomic_store(&board->step, 1);
	RT_SPIN_UNTIL(r, atomic_load(&board->step) == 2);	/* closed */

	for (i = 0; i < sizeof(sec_sizes) / sizeof(sec_sizes[0]); i++) {
		n = sec_sizes[i];
		/* wrong key */
		sec_expect(r, RT_RETRY(r, fi_write(r->t.ep, src, n, NULL, t,
			a[SEC_RW], k[SEC_RW] + 0x5a5a5a, NULL)),
			FI_EKEYREJECTED);
		sec_expect(r, RT_RETRY(r, fi_read(r->t.ep, dst, n, NULL, t,
			a[SEC_RW], k[SEC_RW] + 0x5a5a5a, NULL)),
			FI_EKEYREJECTED);
		/* out of range: the tail passes the end, or starts before */
		sec_expect(r, RT_RETRY(r, fi_write(r->t.ep, src, n, NULL, t,
			a[SEC_RW] + SEC_LEN - n + 1, k[SEC_RW], NULL)),
			FI_EACCES);
		sec_expect(r, RT_RETRY(r, fi_write(r->t.ep, src, n, NULL, t,
			a[SEC_RW] - 8, k[SEC_RW], NULL)), FI_EACCES);
		sec_expect(r, RT_RETRY(r, fi_read(r->t.ep, dst, n, NULL, t,
			a[SEC_RW] + SEC_LEN - n + 1, k[SEC_RW], NULL)),
			FI_EACCES);
		/* write to read-only, read from write-only */
		sec_expect(r, RT_RETRY(r, fi_write(r->t.ep, src, n, NULL, t,
			a[SEC_RO], k[SEC_RO], NULL)), FI_EACCES);
		sec_expect(r, RT_RETRY(r, fi_read(r->t.ep, dst, n, NULL, t,
			a[SEC_WO], k[SEC_WO], NULL)), FI_EACCES);
		/* the closed MR's key */
		sec_expect(r, RT_RETRY(r, fi_write(r->t.ep, src, n, NULL, t,
			a[SEC_CLOSED], k[SEC_CLOSED], NULL)),
			FI_EKEYREJECTED);
		sec_expect(r, RT_RETRY(r, fi_read(r->t.ep, dst, n, NULL, t,
			a[SEC_CLOSED], k[SEC_CLOSED], NULL)),
			FI_EKEYREJECTED);
	}
	/* atomics: read-only, wrong key, out of range, closed */
	sec_expect(r, RT_RETRY(r, fi_atomic(r->t.ep, &one, 1, NULL, t,
		a[SEC_RO], k[SEC_RO], FI_UINT64, FI_SUM, NULL)), FI_EACCES);
	sec_expect(r, RT_RETRY(r, fi_fetch_atomic(r->t.ep, &one, 1, NULL,
		&res, NULL, t, a[SEC_WO], k[SEC_WO], FI_UINT64, FI_SUM,
		NULL)), FI_EACCES);
	sec_expect(r, RT_RETRY(r, fi_atomic(r->t.ep, &one, 1, NULL, t,
		a[SEC_RW], k[SEC_RW] ^ 0x77, FI_UINT64, FI_SUM, NULL)),
		FI_EKEYREJECTED);
	sec_expect(r, RT_RETRY(r, fi_atomic(r->t.ep, &one, 1, NULL, t,
		a[SEC_RW] + SEC_LEN - 4, k[SEC_RW], FI_UINT64, FI_SUM, NULL)),
		FI_EACCES);
	sec_expect(r, RT_RETRY(r, fi_compare_atomic(r->t.ep, &one, 1, NULL,
		&one, NULL, &res, NULL, t, a[SEC_CLOSED], k[SEC_CLOSED],
		FI_UINT64, FI_CSWAP, NULL)), FI_EKEYREJECTED);
	/* an inject_write that is refused still reports its error */
	sec_expect(r, RT_RETRY(r, fi_inject_write(r->t.ep, src, 16, t,
		a[SEC_RO], k[SEC_RO])), FI_EACCES);
	/* and the allowed operations still work afterwards */
	SHM_CHECK(RT_RETRY(r, fi_read(r->t.ep, dst, 64, NULL, t, a[SEC_RO],
		k[SEC_RO], NULL)) == 0);
	SHM_CHECK(rt_tx_next(r, NULL) == 0);
	SHM_CHECK(dst[0] == 0xa5 && dst[63] == 0xa5);
	free(src);
	free(dst);
}

static void security_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	static const uint64_t acc[SEC_N] = {
		FI_REMOTE_READ | FI_REMOTE_WRITE, FI_REMOTE_READ,
		FI_REMOTE_WRITE, FI_REMOTE_READ | FI_REMOTE_WRITE };
	uint8_t *buf[SEC_N], *snap[SEC_N];
	struct fid_mr *mr[SEC_N];
	fi_addr_t addrs[2];
	struct rt r;
	int i;

	rt_setup(&r, rank, 2, addrs);
	if (rank == 0) {
		sec_initiator(&r, addrs[1]);
		atomic_store(&board->step, 3);
		rt_barrier(board, &r, 2, 2);
		rt_close(&r);
		return;
	}
	for (i = 0; i < SEC_N; i++) {
		/* guard bytes around each region: out-of-range must not
		 * touch them either */
		buf[i] = malloc(SEC_LEN + 2 * 4096);
		snap[i] = malloc(SEC_LEN + 2 * 4096);
		SHM_CHECK(buf[i] && snap[i]);
		memset(buf[i], 0xa5, SEC_LEN + 2 * 4096);
		mr[i] = reg(&r, buf[i] + 4096, SEC_LEN, acc[i]);
		board->addr[1][i] = rt_addr(&r, (buf[i] + 4096));
		board->key[1][i] = fi_mr_key(mr[i]);
	}
	atomic_store(&board->tb.flag[0], 1);
	RT_SPIN_UNTIL(&r, atomic_load(&board->step) == 1);
	fi_close(&mr[SEC_CLOSED]->fid);
	mr[SEC_CLOSED] = NULL;
	for (i = 0; i < SEC_N; i++)
		memcpy(snap[i], buf[i], SEC_LEN + 2 * 4096);
	/* the allowed first write did land */
	SHM_CHECK(buf[SEC_CLOSED][4096] == 0xee &&
		  buf[SEC_CLOSED][4096 + 63] == 0xee);
	atomic_store(&board->step, 2);
	RT_SPIN_UNTIL(&r, atomic_load(&board->step) == 3);
	for (i = 0; i < SEC_N; i++) {
		if (memcmp(snap[i], buf[i], SEC_LEN + 2 * 4096))
			fprintf(stderr, "region %d changed\n", i);
		SHM_CHECK(!memcmp(snap[i], buf[i], SEC_LEN + 2 * 4096));
	}
	SHM_CHECK(cntr(&r, RT_RWRITE) == 1);	/* the one allowed write */
	rt_barrier(board, &r, 2, 2);
	for (i = 0; i < SEC_N; i++) {
		if (mr[i])
			fi_close(&mr[i]->fid);
		free(buf[i]);
		free(snap[i]);
	}
	rt_close(&r);
}

/* ---- multi ---- */

/* fi_writemsg / fi_readmsg with 3 remote buffers: one completion each,
 * the target's remote CQ data once, bytes where the segments say; a bad
 * key in one segment fails the whole operation once. */
static void multi_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	uint8_t *tgt = calloc(1, 1 << 20), *src = malloc(1 << 20),
		*back = calloc(1, 1 << 20);
	struct fi_cq_tagged_entry e;
	struct fid_mr *mr = NULL;
	fi_addr_t addrs[2];
	struct rt r;

	SHM_CHECK(tgt && src && back);
	rt_setup(&r, rank, 2, addrs);
	if (rank == 1) {
		mr = reg(&r, tgt, 1 << 20, FI_REMOTE_READ | FI_REMOTE_WRITE);
		board->addr[1][0] = rt_addr(&r, tgt);
		board->key[1][0] = fi_mr_key(mr);
	}
	rt_barrier(board, &r, 2, 2);
	if (rank == 0) {
		uint64_t a = board->addr[1][0], k = board->key[1][0];
		struct fi_rma_iov rv[3] = { { a + 1000, 100, k },
					    { a + 5000, 20000, k },
					    { a + 500000, 300000, k } };
		struct iovec lv[2] = { { src, 150000 }, { src + 200000,
							  170100 } };
		struct iovec bv[3] = { { back, 7 }, { back + 100, 300000 },
				       { back + 400000, 20093 } };
		struct fi_msg_rma m = { .msg_iov = lv, .iov_count = 2,
					.addr = addrs[1], .rma_iov = rv,
					.rma_iov_count = 3, .data = 0xd00d,
					.context = (void *)7 };
		struct fi_cq_err_entry err;

		shm_test_fill(src, 1 << 20, 11);
		SHM_CHECK(RT_RETRY(&r, fi_writemsg(r.t.ep, &m,
			FI_REMOTE_CQ_DATA | FI_COMPLETION)) == 0);
		SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		m.msg_iov = bv;
		m.iov_count = 3;
		SHM_CHECK(RT_RETRY(&r, fi_readmsg(r.t.ep, &m,
			FI_COMPLETION)) == 0);
		SHM_CHECK(rt_tx_next(&r, NULL) == 0);
		/* the local bytes, in order, went out and came back */
		SHM_CHECK(!memcmp(back, src, 7));
		SHM_CHECK(!memcmp(back + 100, src + 7, 149993));
		SHM_CHECK(!memcmp(back + 100 + 149993, src + 200000,
				  150007));
		SHM_CHECK(!memcmp(back + 400000, src + 200000 + 150007,
				  20093));
		/* one bad key among three: one error completion */
		rv[1].key = k + 0x9999;
		m.msg_iov = lv;
		m.iov_count = 2;
		SHM_CHECK(RT_RETRY(&r, fi_writemsg(r.t.ep, &m,
			FI_COMPLETION)) == 0);
		SHM_CHECK(rt_tx_next(&r, &err) == FI_EKEYREJECTED);
		SHM_CHECK(err.op_context == (void *)7);
		SHM_CHECK(fi_cq_read(r.t.txcq, &e, 1) == -FI_EAGAIN);
		SHM_CHECK(cntr(&r, RT_WRITE) == 1 && cntr(&r, RT_READ) == 1);
		atomic_store(&board->step, 1);
	} else {
		ssize_t n;

		while ((n = fi_cq_read(r.t.cq, &e, 1)) == -FI_EAGAIN)
			;
		SHM_CHECK(n == 1 && e.data == 0xd00d &&
			  (e.flags & FI_REMOTE_CQ_DATA));
		RT_SPIN_UNTIL(&r, atomic_load(&board->step) == 1);
		SHM_CHECK(fi_cq_read(r.t.cq, &e, 1) == -FI_EAGAIN);
		/* the initiator's byte stream (src[0..150000) then
		 * src[200000..370100)) cut 100 / 20000 / 300000 */
		shm_test_fill(src, 1 << 20, 11);
		SHM_CHECK(!memcmp(tgt + 1000, src, 100));
		SHM_CHECK(!memcmp(tgt + 5000, src + 100, 20000));
		SHM_CHECK(!memcmp(tgt + 500000, src + 20100, 129900));
		SHM_CHECK(!memcmp(tgt + 500000 + 129900, src + 200000,
				  170100));
	}
	rt_barrier(board, &r, 2, 3);
	if (mr)
		fi_close(&mr->fid);
	rt_close(&r);
	free(tgt);
	free(src);
	free(back);
}

/* ---- death ---- */

/* Rank 1 registers, then stops driving progress and is SIGKILLed by
 * rank 0 with a read and an atomic pending: both complete at rank 0
 * with FI_ECONNRESET (no hang), and later calls fail cleanly. */
static void death_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	uint8_t *buf = calloc(1, 1 << 20);
	uint64_t one = 1, res = 0;
	fi_addr_t addrs[2];
	struct fid_mr *mr;
	struct rt r;

	SHM_CHECK(buf);
	rt_setup(&r, rank, 2, addrs);
	if (rank == 1) {
		mr = reg(&r, buf, 1 << 20, FI_REMOTE_READ | FI_REMOTE_WRITE);
		board->addr[1][0] = rt_addr(&r, buf);
		board->key[1][0] = fi_mr_key(mr);
		atomic_store(&board->word[1][0], (uint64_t)getpid());
		atomic_store(&board->step, 1);
		for (;;)
			pause();	/* no progress from here on */
	}
	RT_SPIN_UNTIL(&r, atomic_load(&board->step) == 1);
	SHM_CHECK(RT_RETRY(&r, fi_read(r.t.ep, buf, 1 << 20, NULL, addrs[1],
		board->addr[1][0], board->key[1][0], NULL)) == 0);
	SHM_CHECK(RT_RETRY(&r, fi_fetch_atomic(r.t.ep, &one, 1, NULL, &res,
		NULL, addrs[1], board->addr[1][0], board->key[1][0],
		FI_UINT64, FI_SUM, NULL)) == 0);
	SHM_CHECK(kill((pid_t)atomic_load(&board->word[1][0]), SIGKILL) == 0);
	SHM_CHECK(rt_tx_next(&r, NULL) == FI_ECONNRESET);
	SHM_CHECK(rt_tx_next(&r, NULL) == FI_ECONNRESET);
	rt_close(&r);
	free(buf);
}

static int death_run(void)
{
	pid_t p0, p1;
	int s0, s1;

	board = rt_board_new();
	if (!board)
		return 1;
	p0 = shm_test_spawn(death_rank, (void *)0);
	p1 = shm_test_spawn(death_rank, (void *)1);
	s0 = shm_test_wait(p0);
	s1 = shm_test_wait(p1);
	if (s0 || s1 != 128 + SIGKILL)
		fprintf(stderr, "initiator %d, target %d\n", s0, s1);
	return s0 || s1 != 128 + SIGKILL;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	if (!strcmp(s, "sizes"))
		return run_children(2, sizes_rank);
	if (!strcmp(s, "event"))
		return run_children(2, event_rank);
	if (!strcmp(s, "security"))
		return run_children(2, security_rank);
	if (!strcmp(s, "death"))
		return death_run();
	if (!strcmp(s, "multi"))
		return run_children(2, multi_rank);
	fprintf(stderr, "usage: %s sizes|event|security|death|multi\n", argv[0]);
	return 2;
}
