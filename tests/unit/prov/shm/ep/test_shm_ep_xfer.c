/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider end to end, between fork()ed processes over real
 * shared memory, through the public API only (suite integration). One
 * scenario per run, named by argv[1]:
 *
 *   sizes      one message of each size class (inline, SAR, CMA, and
 *              the edges between them) each way, data verified; run
 *              also with FI_SHM_DISABLE_CMA=1 (meson.build)
 *   alltoall   16 processes, each sends tagged messages to every other;
 *              receives use a wildcard tag and FI_ADDR_UNSPEC; the data
 *              names its sender and sequence, and is verified
 *   flood      2000 messages (twice the command queue) reach a receiver
 *              that has posted nothing; then it posts and gets them all,
 *              in order, intact
 *   multirecv  4 senders fill FI_MULTI_RECV buffers; every message
 *              lands whole, the buffer is released with FI_MULTI_RECV
 *   delivery   FI_DELIVERY_COMPLETE: no send completion while the
 *              receiver has not taken the message; one after it has
 *   cancel     fi_cancel of a posted receive: FI_ECANCELED with its
 *              context, and the message goes to the next receive
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shm_ep_test.h"

#define CAPS (FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV | \
	      FI_MULTI_RECV)

static struct tep_board *board;

/* Each child: open, publish its name, wait for all, insert all. */
static void child_setup(struct tep *t, int rank, int n, fi_addr_t *addrs)
{
	SHM_CHECK(tep_open(t, CAPS) == 0);
	SHM_CHECK(t->namelen <= TEP_NAME_MAX);
	memcpy(board->name[rank], t->name, t->namelen);
	tep_barrier(board, t, n, 1);
	tep_insert_all(t, board, n, addrs);
}

static int run_children(int n, void (*fn)(void *))
{
	board = tep_board_new();
	return board ? tep_run_ranks(n, fn) : 1;
}

/* ---- sizes ---- */

static const size_t sizes[] = { 0, 1, 8, 9, 63, 64, 191, 192, 193, 1000, 4096,
				16383, 16384, 16385, 65536, 100000,
				1 << 20, 4 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void sizes_rank(void *arg)
{
	int rank = (int)(intptr_t)arg, peer = !rank;
	struct fi_cq_tagged_entry e;
	fi_addr_t addrs[2];
	struct tep t;
	uint8_t *buf = malloc(4 << 20);

	SHM_CHECK(buf);
	child_setup(&t, rank, 2, addrs);
	for (size_t i = 0; i < NSIZES; i++) {
		uint64_t seq = i * 2;

		/* rank 0 sends size i first; rank 1 answers it */
		for (int turn = 0; turn < 2; turn++) {
			if (turn == rank) {
				shm_test_fill(buf, sizes[i], seq + turn);
				SHM_CHECK(TEP_RETRY(&t, fi_send(t.ep, buf,
					sizes[i], NULL, addrs[peer],
					(void *)(intptr_t)(seq + 1))) == 0);
				tep_tx_wait(&t, t.tx_done + 1);
			} else {
				memset(buf, 0xee, sizes[i] + 1 > 16 ?
				       16 : sizes[i] + 1);
				SHM_CHECK(fi_recv(t.ep, buf, sizes[i], NULL,
						  FI_ADDR_UNSPEC,
						  (void *)(intptr_t)seq) == 0);
				tep_wait(&t, &e);
				SHM_CHECK(e.op_context == (void *)(intptr_t)seq);
				SHM_CHECK(e.len == sizes[i]);
				SHM_CHECK(e.flags & FI_RECV);
				SHM_CHECK(e.flags & FI_MSG);
				SHM_CHECK(shm_test_verify(buf, sizes[i],
							  seq + turn) == 0);
			}
		}
	}
	tep_barrier(board, &t, 2, 2);
	tep_close(&t);
	free(buf);
}

/* ---- alltoall ---- */

#define A2A_N		16
#define A2A_MSGS	8	/* per ordered pair */
#define A2A_BIG		20000	/* every other message: SAR or CMA */

static void a2a_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	size_t maxlen = A2A_BIG + 16;
	int expect = (A2A_N - 1) * A2A_MSGS;
	uint8_t *rbuf = malloc((size_t)expect * maxlen);
	uint8_t *sbuf = malloc((size_t)A2A_N * A2A_MSGS * maxlen);
	int got[A2A_N] = { 0 };
	struct fi_cq_tagged_entry e;
	fi_addr_t addrs[A2A_N];
	struct tep t;
	uint64_t sent = 0;

	SHM_CHECK(rbuf && sbuf);
	child_setup(&t, rank, A2A_N, addrs);
	for (int i = 0; i < expect; i++)
		SHM_CHECK(fi_trecv(t.ep, rbuf + (size_t)i * maxlen, maxlen,
				   NULL, FI_ADDR_UNSPEC, 0, ~0ULL,
				   (void *)(intptr_t)i) == 0);
	tep_barrier(board, &t, A2A_N, 2);
	for (int m = 0; m < A2A_MSGS; m++) {
		for (int d = 1; d < A2A_N; d++) {
			int dst = (rank + d) % A2A_N;
			size_t len = (m & 1) ? A2A_BIG : 100 + (size_t)m;
			uint64_t seq = (uint64_t)rank << 32 | (uint64_t)dst << 16 | m;
			uint8_t *p = sbuf + ((size_t)dst * A2A_MSGS + m) * maxlen;

			shm_test_fill(p, len, seq);
			SHM_CHECK(TEP_RETRY(&t, fi_tsend(t.ep, p, len, NULL,
				addrs[dst], seq, NULL)) == 0);
			sent++;
		}
	}
	for (int i = 0; i < expect; i++) {
		int src, m;

		while (!tep_poll(&t, &e, NULL))
			tep_tx_drain(&t);
		SHM_CHECK(e.flags & FI_TAGGED);
		src = (int)(e.tag >> 32);
		m = (int)(e.tag & 0xffff);
		SHM_CHECK(src >= 0 && src < A2A_N && src != rank);
		SHM_CHECK((int)((e.tag >> 16) & 0xffff) == rank);
		SHM_CHECK(e.len == ((m & 1) ? A2A_BIG : 100 + (size_t)m));
		SHM_CHECK(shm_test_verify(e.buf, e.len, e.tag) == 0);
		got[src]++;
	}
	for (int s = 0; s < A2A_N; s++)
		SHM_CHECK(got[s] == (s == rank ? 0 : A2A_MSGS));
	tep_tx_wait(&t, sent);
	tep_barrier(board, &t, A2A_N, 3);
	tep_close(&t);
	free(rbuf);
	free(sbuf);
}

/* ---- flood ---- */

#define FLOOD_N 2000
/* Sizes that travel inline: an unexpected message of a larger class
 * holds a bounce channel (or the sender's buffer) until it is matched,
 * so the sender could not run ahead of the receiver by 2000. */
#define FLOOD_LEN(i) (8 + (size_t)(i) % 180)

static void flood_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	struct fi_cq_tagged_entry e;
	fi_addr_t addrs[2];
	struct tep t;
	uint8_t buf[256];

	child_setup(&t, rank, 2, addrs);
	if (rank == 0) {
		for (uint64_t i = 0; i < FLOOD_N; i++) {
			size_t len = FLOOD_LEN(i);

			shm_test_fill(buf, len, i);
			SHM_CHECK(TEP_RETRY(&t, fi_tsend(t.ep, buf, len, NULL,
				addrs[1], i, NULL)) == 0);
		}
		tep_tx_wait(&t, FLOOD_N);
		atomic_store(&board->flag[0], 1);
	} else {
		/* drive progress with nothing posted until all arrived */
		while (!atomic_load(&board->flag[0]))
			SHM_CHECK(tep_poll(&t, &e, NULL) == 0);
		for (uint64_t i = 0; i < FLOOD_N; i++) {
			size_t len = FLOOD_LEN(i);

			/* any tag: the order of arrival is the order sent */
			SHM_CHECK(fi_trecv(t.ep, buf, sizeof(buf), NULL,
					   FI_ADDR_UNSPEC, 0, ~0ULL,
					   NULL) == 0);
			tep_wait(&t, &e);
			SHM_CHECK(e.tag == i);
			SHM_CHECK(e.len == len);
			SHM_CHECK(shm_test_verify(buf, len, i) == 0);
		}
	}
	tep_barrier(board, &t, 2, 2);
	tep_close(&t);
}

/* ---- multirecv ---- */

#define MR_SENDERS	4
#define MR_MSGS		50
#define MR_LEN		1000
#define MR_BUF		(16 * 1024)

static void mr_rank(void *arg)
{
	int rank = (int)(intptr_t)arg, n = MR_SENDERS + 1;
	static uint8_t bufs[2][MR_BUF];
	int got[MR_SENDERS + 1] = { 0 }, total = 0, released = 0;
	struct fi_cq_tagged_entry e;
	fi_addr_t addrs[MR_SENDERS + 1];
	struct tep t;
	uint8_t sbuf[MR_LEN];

	child_setup(&t, rank, n, addrs);
	if (rank == 0) {
		size_t min = MR_LEN;
		struct iovec iov[2] = {
			{ bufs[0], MR_BUF }, { bufs[1], MR_BUF } };

		SHM_CHECK(fi_setopt(&t.ep->fid, FI_OPT_ENDPOINT,
				    FI_OPT_MIN_MULTI_RECV, &min,
				    sizeof(min)) == 0);
		for (int b = 0; b < 2; b++) {
			struct fi_msg msg = { .msg_iov = &iov[b],
				.iov_count = 1, .addr = FI_ADDR_UNSPEC,
				.context = (void *)(intptr_t)(b + 1) };

			SHM_CHECK(fi_recvmsg(t.ep, &msg, FI_MULTI_RECV) == 0);
		}
		tep_barrier(board, &t, n, 2);
		while (total < MR_SENDERS * MR_MSGS) {
			int b;
			uint64_t seq;

			tep_wait(&t, &e);
			b = (int)(intptr_t)e.op_context - 1;
			SHM_CHECK(b == 0 || b == 1);
			if (e.flags & FI_MULTI_RECV) {
				struct fi_msg msg = { .msg_iov = &iov[b],
					.iov_count = 1, .addr = FI_ADDR_UNSPEC,
					.context = e.op_context };

				released++;
				if (!e.len) {	/* release only */
					SHM_CHECK(fi_recvmsg(t.ep, &msg,
						FI_MULTI_RECV) == 0);
					continue;
				}
				/* the data of this last message is read
				 * before the buffer is posted again */
				SHM_CHECK(e.len == MR_LEN);
				memcpy(sbuf, e.buf, MR_LEN);
				SHM_CHECK(fi_recvmsg(t.ep, &msg,
						     FI_MULTI_RECV) == 0);
				e.buf = sbuf;
			}
			SHM_CHECK(e.len == MR_LEN);
			SHM_CHECK((uint8_t *)e.buf == sbuf ||
				  ((uint8_t *)e.buf >= bufs[b] &&
				   (uint8_t *)e.buf + MR_LEN <= bufs[b] + MR_BUF));
			memcpy(&seq, e.buf, sizeof(seq));
			SHM_CHECK((seq >> 32) >= 1 && (seq >> 32) <= MR_SENDERS);
			SHM_CHECK(shm_test_verify((uint8_t *)e.buf + 8,
						  MR_LEN - 8, seq) == 0);
			got[seq >> 32]++;
			total++;
		}
		for (int s = 1; s <= MR_SENDERS; s++)
			SHM_CHECK(got[s] == MR_MSGS);
		/* 200 x 1000 B through 16 KiB buffers: released many times */
		SHM_CHECK(released >= (MR_SENDERS * MR_MSGS * MR_LEN) /
				      MR_BUF - 2);
	} else {
		tep_barrier(board, &t, n, 2);
		for (uint64_t m = 0; m < MR_MSGS; m++) {
			uint64_t seq = (uint64_t)rank << 32 | m;

			memcpy(sbuf, &seq, sizeof(seq));
			shm_test_fill(sbuf + 8, MR_LEN - 8, seq);
			SHM_CHECK(TEP_RETRY(&t, fi_send(t.ep, sbuf, MR_LEN,
				NULL, addrs[0], NULL)) == 0);
			tep_tx_wait(&t, m + 1);
		}
	}
	tep_barrier(board, &t, n, 3);
	tep_close(&t);
}

/* ---- delivery ---- */

#define DC_POLLS 20000	/* progress passes with the receiver idle */

static void dc_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	struct fi_cq_tagged_entry e;
	fi_addr_t addrs[2];
	struct tep t;
	char buf[64] = "delivery";
	struct iovec iov = { buf, sizeof(buf) };

	child_setup(&t, rank, 2, addrs);
	if (rank == 0) {
		struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
				      .addr = addrs[1], .context = buf };

		/* without FI_DELIVERY_COMPLETE an inline send completes
		 * although nobody has received it yet */
		SHM_CHECK(fi_sendmsg(t.ep, &msg, 0) == 0);
		tep_tx_wait(&t, 1);
		SHM_CHECK(fi_sendmsg(t.ep, &msg, FI_DELIVERY_COMPLETE) == 0);
		for (int i = 0; i < DC_POLLS; i++) {
			tep_tx_drain(&t);
			SHM_CHECK(t.tx_done == 1);
		}
		atomic_store(&board->flag[0], 1);	/* receiver: go */
		tep_tx_wait(&t, 2);
		SHM_CHECK(atomic_load(&board->flag[1]) >= 1);
	} else {
		char rb[64];

		while (!atomic_load(&board->flag[0]))
			SHM_CHECK(tep_poll(&t, &e, NULL) == 0);
		for (int i = 0; i < 2; i++) {
			SHM_CHECK(fi_recv(t.ep, rb, sizeof(rb), NULL,
					  FI_ADDR_UNSPEC, NULL) == 0);
			tep_wait(&t, &e);
			SHM_CHECK(!strcmp(rb, "delivery"));
			atomic_fetch_add(&board->flag[1], 1);
		}
	}
	tep_barrier(board, &t, 2, 2);
	tep_close(&t);
}

/* ---- cancel ---- */

static void cancel_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	fi_addr_t addrs[2];
	struct tep t;
	char a[32], b[32];

	child_setup(&t, rank, 2, addrs);
	if (rank == 1) {
		SHM_CHECK(fi_recv(t.ep, a, sizeof(a), NULL, FI_ADDR_UNSPEC,
				  a) == 0);
		SHM_CHECK(fi_trecv(t.ep, b, sizeof(b), NULL, FI_ADDR_UNSPEC,
				   7, 0, b) == 0);
		SHM_CHECK(fi_cancel(&t.ep->fid, a) == 0);
		memset(&err, 0, sizeof(err));
		SHM_CHECK(tep_poll(&t, &e, &err) == -FI_EAVAIL);
		SHM_CHECK(err.err == FI_ECANCELED);
		SHM_CHECK(err.op_context == a);
		SHM_CHECK(err.flags & FI_RECV);
		/* gone: a second cancel finds nothing */
		SHM_CHECK(fi_cancel(&t.ep->fid, a) == -FI_ENOENT);
		SHM_CHECK(tep_poll(&t, &e, NULL) == 0);
		atomic_store(&board->flag[1], 1);
		/* the untagged message lands in the next untagged receive */
		SHM_CHECK(fi_recv(t.ep, a, sizeof(a), NULL, FI_ADDR_UNSPEC,
				  (void *)1) == 0);
		tep_wait(&t, &e);
		SHM_CHECK(e.op_context == (void *)1);
		SHM_CHECK(!strcmp(a, "after cancel"));
		/* the tagged receive is still posted and matches */
		tep_wait(&t, &e);
		SHM_CHECK(e.op_context == b);
		SHM_CHECK(!strcmp(b, "tagged"));
	} else {
		while (!atomic_load(&board->flag[1]))
			tep_tx_drain(&t);
		SHM_CHECK(TEP_RETRY(&t, fi_send(t.ep, "after cancel", 13,
			NULL, addrs[1], NULL)) == 0);
		SHM_CHECK(TEP_RETRY(&t, fi_tsend(t.ep, "tagged", 7, NULL,
			addrs[1], 7, NULL)) == 0);
		tep_tx_wait(&t, 2);
	}
	tep_barrier(board, &t, 2, 2);
	tep_close(&t);
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	if (!strcmp(s, "sizes"))
		return run_children(2, sizes_rank);
	if (!strcmp(s, "alltoall"))
		return run_children(A2A_N, a2a_rank);
	if (!strcmp(s, "flood"))
		return run_children(2, flood_rank);
	if (!strcmp(s, "multirecv"))
		return run_children(MR_SENDERS + 1, mr_rank);
	if (!strcmp(s, "delivery"))
		return run_children(2, dc_rank);
	if (!strcmp(s, "cancel"))
		return run_children(2, cancel_rank);
	fprintf(stderr, "usage: %s sizes|alltoall|flood|multirecv|delivery|"
		"cancel\n", argv[0]);
	return 2;
}
