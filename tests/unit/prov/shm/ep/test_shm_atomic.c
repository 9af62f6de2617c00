/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm atomics end to end between fork()ed processes, public API only.
 * One scenario per run, named by argv[1]:
 *
 *   contend  8 initiator processes hit the same words of a 9th:
 *            fi_atomic SUM, fi_fetch_atomic SUM (every fetched value
 *            distinct: together exactly 0 .. 8N-1), compare-and-swap
 *            increment loops (fi_compare_atomic CSWAP), FI_MAX of the
 *            ranks, a double SUM; the totals are exact (suite
 *            integration + concurrency).
 *   ops      the semantics of fi_atomic(3) for a spread of (op,
 *            datatype) pairs, vectors (count > 1) and fetch/compare
 *            results, checked against hand-computed values.
 *   query    fi_query_atomic (0, FI_FETCH_ATOMIC, FI_COMPARE_ATOMIC) and
 *            fi_atomicvalid / fi_fetch_atomicvalid /
 *            fi_compare_atomicvalid answer the same truth table over
 *            every op and datatype (-FI_EOPNOTSUPP where unsupported,
 *            count = 64 bytes / datatype size).
 */
#include <complex.h>
#include <stdbool.h>
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

/* ---- contend ---- */

#define CT_INIT 8		/* initiators: ranks 1..8; rank 0 the target */
#define CT_N 200		/* adds and fetch-adds each */
#define CT_CAS 50		/* successful compare-and-swap increments */

struct ct_words {
	uint64_t add, fadd, cas;
	int32_t max;
	int32_t pad;
	double dsum;
};

static void ct_target(struct rt *r)
{
	struct ct_words *w = calloc(1, sizeof(*w));
	static uint8_t seen[CT_INIT * CT_N];
	struct fid_mr *mr;
	int i;

	SHM_CHECK(w);
	w->max = -1;
	mr = rt_reg(r, w, sizeof(*w), FI_REMOTE_READ | FI_REMOTE_WRITE);
	board->addr[0][0] = rt_addr(r, w);
	board->key[0][0] = fi_mr_key(mr);
	atomic_store(&board->step, 1);
	/* serve until every initiator is done */
	RT_SPIN_UNTIL(r, atomic_load(&board->tb.flag[0]) == CT_INIT);
	SHM_CHECK(w->add == CT_INIT * CT_N);
	SHM_CHECK(w->fadd == CT_INIT * CT_N);
	SHM_CHECK(w->cas == CT_INIT * CT_CAS);
	SHM_CHECK(w->max == CT_INIT);
	SHM_CHECK(w->dsum == CT_INIT * CT_N * 0.5);
	/* each fetch saw a distinct old value: a permutation of 0..8N-1 */
	for (i = 0; i < CT_INIT * CT_N; i++) {
		uint64_t v = board->fetched[i];

		SHM_CHECK(v < CT_INIT * CT_N && !seen[v]);
		seen[v] = 1;
	}
	fi_close(&mr->fid);
	free(w);
}

static void ct_initiator(struct rt *r, int rank, fi_addr_t t)
{
	uint64_t base, key, one = 1, old, cur, next;
	double half = 0.5;
	int32_t me = rank;
	int i, done;

	RT_SPIN_UNTIL(r, atomic_load(&board->step) == 1);
	base = board->addr[0][0];
	key = board->key[0][0];
	for (i = 0; i < CT_N; i++) {
		SHM_CHECK(RT_RETRY(r, fi_atomic(r->t.ep, &one, 1, NULL, t,
			base + offsetof(struct ct_words, add), key,
			FI_UINT64, FI_SUM, NULL)) == 0);
		SHM_CHECK(rt_tx_next(r, NULL) == 0);
		SHM_CHECK(RT_RETRY(r, fi_fetch_atomic(r->t.ep, &one, 1, NULL,
			&old, NULL, t, base + offsetof(struct ct_words, fadd),
			key, FI_UINT64, FI_SUM, NULL)) == 0);
		SHM_CHECK(rt_tx_next(r, NULL) == 0);
		board->fetched[(rank - 1) * CT_N + i] = old;
		SHM_CHECK(RT_RETRY(r, fi_atomic(r->t.ep, &half, 1, NULL, t,
			base + offsetof(struct ct_words, dsum), key,
			FI_DOUBLE, FI_SUM, NULL)) == 0);
		SHM_CHECK(rt_tx_next(r, NULL) == 0);
	}
	SHM_CHECK(RT_RETRY(r, fi_atomic(r->t.ep, &me, 1, NULL, t,
		base + offsetof(struct ct_words, max), key, FI_INT32, FI_MAX,
		NULL)) == 0);
	SHM_CHECK(rt_tx_next(r, NULL) == 0);
	/* CAS increments: read, try cur -> cur + 1, retry on a lost race */
	for (done = 0; done < CT_CAS;) {
		SHM_CHECK(RT_RETRY(r, fi_fetch_atomic(r->t.ep, NULL, 1, NULL,
			&cur, NULL, t, base + offsetof(struct ct_words, cas),
			key, FI_UINT64, FI_ATOMIC_READ, NULL)) == 0);
		SHM_CHECK(rt_tx_next(r, NULL) == 0);
		next = cur + 1;
		SHM_CHECK(RT_RETRY(r, fi_compare_atomic(r->t.ep, &next, 1,
			NULL, &cur, NULL, &old, NULL, t,
			base + offsetof(struct ct_words, cas), key, FI_UINT64,
			FI_CSWAP, NULL)) == 0);
		SHM_CHECK(rt_tx_next(r, NULL) == 0);
		if (old == cur)
			done++;
	}
	SHM_CHECK(fi_cntr_read(r->cntr[RT_WRITE]) == 2 * CT_N + 1);
	SHM_CHECK(fi_cntr_read(r->cntr[RT_READ]) >= CT_N + 2 * CT_CAS);
	atomic_fetch_add(&board->tb.flag[0], 1);
}

static void ct_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	fi_addr_t addrs[CT_INIT + 1];
	struct rt r;

	rt_setup(&r, rank, CT_INIT + 1, addrs);
	if (rank == 0)
		ct_target(&r);
	else
		ct_initiator(&r, rank, addrs[0]);
	rt_barrier(board, &r, CT_INIT + 1, 2);
	rt_close(&r);
}

/* ---- ops ---- */

struct op_words {
	int32_t i32[4];
	uint8_t u8[4];
	int8_t s8[2];
	uint16_t pad;
	uint64_t u64[2];
	double d[2];
	float complex fc[2];
	long double ld;
};

/* One fetch atomic: vector of n, results compared with want_old. */
#define OP_FETCH(r, t, field, buf, res, n, dt, op)                          \
	do {                                                                 \
		SHM_CHECK(RT_RETRY(r, fi_fetch_atomic((r)->t.ep, buf, n,     \
			NULL, res, NULL, t, base +                           \
			offsetof(struct op_words, field), key, dt, op,       \
			NULL)) == 0);                                        \
		SHM_CHECK(rt_tx_next(r, NULL) == 0);                         \
	} while (0)

#define OP_CMP(r, t, field, buf, cmp, res, n, dt, op)                       \
	do {                                                                 \
		SHM_CHECK(RT_RETRY(r, fi_compare_atomic((r)->t.ep, buf, n,   \
			NULL, cmp, NULL, res, NULL, t, base +                \
			offsetof(struct op_words, field), key, dt, op,       \
			NULL)) == 0);                                        \
		SHM_CHECK(rt_tx_next(r, NULL) == 0);                         \
	} while (0)

static void ops_initiator(struct rt *r, fi_addr_t t)
{
	uint64_t base = board->addr[1][0], key = board->key[1][0];
	int32_t v[4], res[4], c[4];
	uint8_t u8[4], u8r[4];
	int8_t s8[2], s8r[2];
	uint64_t u[2], ur[2], m[2];
	double d[2], dr[2];
	float complex fc[2], fcr[2];
	long double ld, ldr;

	/* target starts: i32 = {10, -5, 7, 0} */
	v[0] = 3; v[1] = -9; v[2] = 7; v[3] = 100;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_MIN);
	SHM_CHECK(res[0] == 10 && res[1] == -5 && res[2] == 7 && res[3] == 0);
	/* now {3, -9, 7, 0} */
	v[0] = 5; v[1] = -20; v[2] = 8; v[3] = -1;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_MAX);
	SHM_CHECK(res[0] == 3 && res[1] == -9 && res[2] == 7 && res[3] == 0);
	/* now {5, -9, 8, 0} */
	v[0] = 2; v[1] = 3; v[2] = -8; v[3] = 4;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_PROD);
	/* now {10, -27, -64, 0} */
	v[0] = 0; v[1] = 1; v[2] = 0; v[3] = 0;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_LAND);
	SHM_CHECK(res[0] == 10 && res[1] == -27 && res[2] == -64 &&
		  res[3] == 0);
	/* now {0, 1, 0, 0} */
	v[0] = 1; v[1] = 1; v[2] = 0; v[3] = 5;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_LXOR);
	/* now {1, 0, 0, 1} */
	v[0] = 0x0f; v[1] = 0xf0; v[2] = 3; v[3] = 2;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_BOR);
	SHM_CHECK(res[0] == 1 && res[1] == 0 && res[2] == 0 && res[3] == 1);
	/* now {0x0f, 0xf0, 3, 3} */
	v[0] = 0x3c; v[1] = 0x30; v[2] = 1; v[3] = 1;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_BXOR);
	/* now {0x33, 0xc0, 2, 2} */
	v[0] = 0x0f; v[1] = 0xff; v[2] = 0; v[3] = 2;
	OP_FETCH(r, t, i32, v, res, 4, FI_INT32, FI_BAND);
	SHM_CHECK(res[0] == 0x33 && res[1] == 0xc0 && res[2] == 2 &&
		  res[3] == 2);
	/* now {3, 0xc0, 0, 2}; compare variants: element-wise */
	v[0] = 100; v[1] = 101; v[2] = 102; v[3] = 103;
	c[0] = 3; c[1] = 1; c[2] = 0; c[3] = 5;
	OP_CMP(r, t, i32, v, c, res, 4, FI_INT32, FI_CSWAP);
	SHM_CHECK(res[0] == 3 && res[1] == 0xc0 && res[2] == 0 && res[3] == 2);
	/* now {100, 0xc0, 102, 2}: GT swaps where cmp > old */
	c[0] = 100; c[1] = 0xc1; c[2] = 0; c[3] = 3;
	v[0] = 1; v[1] = 2; v[2] = 3; v[3] = 4;
	OP_CMP(r, t, i32, v, c, res, 4, FI_INT32, FI_CSWAP_GT);
	/* now {100, 2, 102, 4}; LE swaps where cmp <= old */
	c[0] = 100; c[1] = 3; c[2] = 101; c[3] = 5;
	v[0] = 7; v[1] = 8; v[2] = 9; v[3] = 10;
	OP_CMP(r, t, i32, v, c, res, 4, FI_INT32, FI_CSWAP_LE);
	SHM_CHECK(res[0] == 100 && res[1] == 2 && res[2] == 102 &&
		  res[3] == 4);
	/* now {7, 2, 9, 4}; NE */
	c[0] = 7; c[1] = 0; c[2] = 9; c[3] = 0;
	v[0] = -1; v[1] = -2; v[2] = -3; v[3] = -4;
	OP_CMP(r, t, i32, v, c, res, 4, FI_INT32, FI_CSWAP_NE);
	/* now {7, -2, 9, -4}; read back with ATOMIC_READ */
	OP_FETCH(r, t, i32, NULL, res, 4, FI_INT32, FI_ATOMIC_READ);
	SHM_CHECK(res[0] == 7 && res[1] == -2 && res[2] == 9 && res[3] == -4);
	/* fi_atomic(3): ATOMIC_READ ignores its source, which may be NULL
	 * inside an iovec (as OpenSHMEM runtimes pass {NULL, 1}) */
	{
		struct fi_ioc src = { .addr = NULL, .count = 4 };
		struct fi_ioc dst = { .addr = res, .count = 4 };
		struct fi_rma_ioc rma = { .addr = base +
			offsetof(struct op_words, i32), .count = 1,
			.key = key };
		struct fi_ioc src1 = { .addr = NULL, .count = 1 };
		struct fi_ioc dst1 = { .addr = res, .count = 1 };
		struct fi_msg_atomic msg = { .msg_iov = &src1,
			.iov_count = 1, .addr = t, .rma_iov = &rma,
			.rma_iov_count = 1, .datatype = FI_INT32,
			.op = FI_ATOMIC_READ };

		memset(res, 0, sizeof(res));
		SHM_CHECK(RT_RETRY(r, fi_fetch_atomicv(r->t.ep, &src, NULL, 1,
			&dst, NULL, 1, t, rma.addr, key, FI_INT32,
			FI_ATOMIC_READ, NULL)) == 0);
		SHM_CHECK(rt_tx_next(r, NULL) == 0);
		SHM_CHECK(res[0] == 7 && res[1] == -2 && res[2] == 9 &&
			  res[3] == -4);
		memset(res, 0, sizeof(res));
		SHM_CHECK(RT_RETRY(r, fi_fetch_atomicmsg(r->t.ep, &msg, &dst1,
			NULL, 1, 0)) == 0);
		SHM_CHECK(rt_tx_next(r, NULL) == 0);
		SHM_CHECK(res[0] == 7 && res[1] == 0);
	}

	/* u8 wraps: {250, 1, 2, 3} + {10, 255, 0, 0} */
	u8[0] = 10; u8[1] = 255; u8[2] = 0; u8[3] = 0;
	OP_FETCH(r, t, u8, u8, u8r, 4, FI_UINT8, FI_SUM);
	OP_FETCH(r, t, u8, NULL, u8r, 4, FI_UINT8, FI_ATOMIC_READ);
	SHM_CHECK(u8r[0] == 4 && u8r[1] == 0 && u8r[2] == 2 && u8r[3] == 3);
	/* signed 8-bit MIN over negatives: {-100, 50} min {-128, 60} */
	s8[0] = -128; s8[1] = 60;
	OP_FETCH(r, t, s8, s8, s8r, 2, FI_INT8, FI_MIN);
	OP_FETCH(r, t, s8, NULL, s8r, 2, FI_INT8, FI_ATOMIC_READ);
	SHM_CHECK(s8r[0] == -128 && s8r[1] == 50);

	/* MSWAP on u64: (buf & mask) | (old & ~mask) */
	u[0] = 0xffffffffffffffffull; u[1] = 0x1234;
	m[0] = 0x00ff00ff00ff00ffull; m[1] = 0;
	OP_CMP(r, t, u64, u, m, ur, 2, FI_UINT64, FI_MSWAP);
	SHM_CHECK(ur[0] == 0x1111111111111111ull && ur[1] == 42);
	OP_FETCH(r, t, u64, NULL, ur, 2, FI_UINT64, FI_ATOMIC_READ);
	SHM_CHECK(ur[0] == 0x11ff11ff11ff11ffull && ur[1] == 42);
	u[0] = 7; u[1] = 8;
	OP_FETCH(r, t, u64, u, ur, 2, FI_UINT64, FI_ATOMIC_WRITE);
	OP_FETCH(r, t, u64, NULL, ur, 2, FI_UINT64, FI_ATOMIC_READ);
	SHM_CHECK(ur[0] == 7 && ur[1] == 8);

	/* double: {1.5, -2} * {4, 0.25}, then MIN, then CSWAP_LT */
	d[0] = 4; d[1] = 0.25;
	OP_FETCH(r, t, d, d, dr, 2, FI_DOUBLE, FI_PROD);
	SHM_CHECK(dr[0] == 1.5 && dr[1] == -2);
	d[0] = 10; d[1] = -1;
	OP_FETCH(r, t, d, d, dr, 2, FI_DOUBLE, FI_MIN);
	SHM_CHECK(dr[0] == 6 && dr[1] == -0.5);
	/* now {6, -1}: LT swaps where cmp < old */
	d[0] = 100; d[1] = 200; dr[0] = 5; dr[1] = -1;
	OP_CMP(r, t, d, d, dr, dr, 2, FI_DOUBLE, FI_CSWAP_LT);
	SHM_CHECK(dr[0] == 6 && dr[1] == -1);
	OP_FETCH(r, t, d, NULL, dr, 2, FI_DOUBLE, FI_ATOMIC_READ);
	SHM_CHECK(dr[0] == 100 && dr[1] == -1);

	/* float complex: {1+2i, 3} * {i, 2} then + {1, 1} */
	fc[0] = I; fc[1] = 2;
	OP_FETCH(r, t, fc, fc, fcr, 2, FI_FLOAT_COMPLEX, FI_PROD);
	fc[0] = 1; fc[1] = 1;
	OP_FETCH(r, t, fc, fc, fcr, 2, FI_FLOAT_COMPLEX, FI_SUM);
	SHM_CHECK(fcr[0] == -2 + 1 * I && fcr[1] == 6);
	OP_FETCH(r, t, fc, NULL, fcr, 2, FI_FLOAT_COMPLEX, FI_ATOMIC_READ);
	SHM_CHECK(fcr[0] == -1 + 1 * I && fcr[1] == 7);

	/* long double SUM and CSWAP */
	ld = 0.25L;
	OP_FETCH(r, t, ld, &ld, &ldr, 1, FI_LONG_DOUBLE, FI_SUM);
	SHM_CHECK(ldr == 1.25L);
	/* now 1.5: a compare with 1.75 fails, with 1.5 swaps */
	ld = 8; ldr = 1.75L;
	OP_CMP(r, t, ld, &ld, &ldr, &ldr, 1, FI_LONG_DOUBLE, FI_CSWAP);
	SHM_CHECK(ldr == 1.5L);
	ld = 9; ldr = 1.5L;
	OP_CMP(r, t, ld, &ld, &ldr, &ldr, 1, FI_LONG_DOUBLE, FI_CSWAP);
	SHM_CHECK(ldr == 1.5L);
	OP_FETCH(r, t, ld, NULL, &ldr, 1, FI_LONG_DOUBLE, FI_ATOMIC_READ);
	SHM_CHECK(ldr == 9);

	/* beyond the count limit: refused before anything is sent */
	{
		int32_t big[32] = { 0 };

		SHM_CHECK(fi_atomic(r->t.ep, big, 17, NULL, t, base, key,
				    FI_INT32, FI_SUM, NULL) == -FI_EINVAL);
		SHM_CHECK(fi_atomic(r->t.ep, big, 1, NULL, t, base, key,
				    FI_DOUBLE, FI_BOR, NULL) == -FI_EOPNOTSUPP);
	}
}

static void ops_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	struct op_words *w = NULL;
	struct fid_mr *mr = NULL;
	fi_addr_t addrs[2];
	struct rt r;

	rt_setup(&r, rank, 2, addrs);
	if (rank == 1) {
		w = calloc(1, sizeof(*w));
		SHM_CHECK(w);
		w->i32[0] = 10; w->i32[1] = -5; w->i32[2] = 7;
		w->u8[0] = 250; w->u8[1] = 1; w->u8[2] = 2; w->u8[3] = 3;
		w->s8[0] = -100; w->s8[1] = 50;
		w->u64[0] = 0x1111111111111111ull; w->u64[1] = 42;
		w->d[0] = 1.5; w->d[1] = -2;
		w->fc[0] = 1 + 2 * I; w->fc[1] = 3;
		w->ld = 1.25L;
		mr = rt_reg(&r, w, sizeof(*w),
			    FI_REMOTE_READ | FI_REMOTE_WRITE);
		board->addr[1][0] = rt_addr(&r, w);
		board->key[1][0] = fi_mr_key(mr);
	}
	rt_barrier(board, &r, 2, 2);
	if (rank == 0)
		ops_initiator(&r, addrs[1]);
	rt_barrier(board, &r, 2, 3);
	if (mr)
		fi_close(&mr->fid);
	free(w);
	rt_close(&r);
}

/* ---- query ---- */

static size_t dt_size(int dt)
{
	static const size_t s[FI_DATATYPE_LAST] = {
		1, 1, 2, 2, 4, 4, 8, 8, sizeof(float), sizeof(double),
		sizeof(float complex), sizeof(double complex),
		sizeof(long double), sizeof(long double complex) };

	return s[dt];
}

/* The expected answer, written out from fi_atomic(3) independently of
 * the provider's table. kind 0 atomic, 1 fetch, 2 compare. */
static bool expect_ok(int dt, int op, int kind)
{
	bool is_int = dt <= FI_UINT64;
	bool cplx = dt == FI_FLOAT_COMPLEX || dt == FI_DOUBLE_COMPLEX ||
		    dt == FI_LONG_DOUBLE_COMPLEX;
	bool bitop = op == FI_BOR || op == FI_BAND || op == FI_BXOR ||
		     op == FI_MSWAP;
	bool ordered = op == FI_MIN || op == FI_MAX || op == FI_CSWAP_LE ||
		       op == FI_CSWAP_LT || op == FI_CSWAP_GE ||
		       op == FI_CSWAP_GT;

	if (kind == 0 && !(op <= FI_BXOR || op == FI_ATOMIC_WRITE))
		return false;
	if (kind == 1 && op > FI_ATOMIC_WRITE)
		return false;
	if (kind == 2 && op < FI_CSWAP)
		return false;
	if (bitop && !is_int)
		return false;
	if (ordered && cplx)
		return false;
	return true;
}

static int query_run(void)
{
	static const uint64_t qflags[3] = { 0, FI_FETCH_ATOMIC,
					    FI_COMPARE_ATOMIC };
	struct fi_atomic_attr attr;
	int dt, op, kind, ret, checked = 0;
	size_t count;
	struct rt r;

	shm_test_watchdog_start();
	SHM_CHECK(rt_open(&r) == 0);
	for (kind = 0; kind < 3; kind++) {
		for (dt = 0; dt < FI_DATATYPE_LAST; dt++) {
			for (op = 0; op < FI_ATOMIC_OP_LAST; op++) {
				bool ok = expect_ok(dt, op, kind);

				memset(&attr, 0, sizeof(attr));
				ret = fi_query_atomic(r.t.domain, dt, op,
						      &attr, qflags[kind]);
				if (ret != (ok ? 0 : -FI_EOPNOTSUPP))
					fprintf(stderr, "dt %d op %d kind %d:"
						" %d\n", dt, op, kind, ret);
				SHM_CHECK(ret == (ok ? 0 : -FI_EOPNOTSUPP));
				if (ok) {
					SHM_CHECK(attr.size == dt_size(dt));
					SHM_CHECK(attr.count ==
						  64 / dt_size(dt));
				}
				count = 0;
				ret = kind == 0 ? fi_atomicvalid(r.t.ep, dt,
								 op, &count) :
				      kind == 1 ? fi_fetch_atomicvalid(r.t.ep,
							dt, op, &count) :
				      fi_compare_atomicvalid(r.t.ep, dt, op,
							     &count);
				SHM_CHECK(ret == (ok ? 0 : -FI_EOPNOTSUPP));
				SHM_CHECK(!ok || count == 64 / dt_size(dt));
				checked++;
			}
		}
	}
	SHM_CHECK(checked == 3 * FI_DATATYPE_LAST * FI_ATOMIC_OP_LAST);
	/* 128-bit integers: a datatype we do not do */
	SHM_CHECK(fi_query_atomic(r.t.domain, FI_INT128, FI_SUM, &attr, 0) ==
		  -FI_EOPNOTSUPP);
	/* both kinds at once, bad flags, nonsense op */
	SHM_CHECK(fi_query_atomic(r.t.domain, FI_INT32, FI_CSWAP, &attr,
		  FI_FETCH_ATOMIC | FI_COMPARE_ATOMIC) == -FI_EINVAL);
	SHM_CHECK(fi_query_atomic(r.t.domain, FI_INT32, FI_SUM, &attr,
				  FI_SEND) == -FI_EBADFLAGS);
	SHM_CHECK(fi_query_atomic(r.t.domain, FI_INT32, (enum fi_op)99, &attr,
				  0) == -FI_EINVAL);
	rt_close(&r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	if (!strcmp(s, "contend"))
		return run_children(CT_INIT + 1, ct_rank);
	if (!strcmp(s, "ops"))
		return run_children(2, ops_rank);
	if (!strcmp(s, "query"))
		return query_run();
	fprintf(stderr, "usage: %s contend|ops|query\n", argv[0]);
	return 2;
}
