/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario "sizes" (test_tcp_ep.c): the client sends, the server
 * receives; every payload is a byte pattern checked at the receiver, and
 * the bytes after it in the receive buffer must stay untouched. In turn:
 * fi_send/fi_recv of every size class, fi_sendv/fi_recvv with iovs cut
 * differently on the two sides, fi_senddata, fi_inject (no send
 * completion), truncation (FI_ETRUNC with olen; the stream stays in
 * step), FI_MULTI_RECV, tagged matching with an ignore mask and
 * fi_cancel, FI_DELIVERY_COMPLETE, and counters bound FI_SEND/FI_RECV.
 *
 * The sides move in lock step through numbered steps on the board: the
 * server posts, announces step n, the client sends after it.
 */
#include <string.h>

#include "tcp_test.h"

#define GUARD 0xee
#define GUARD_LEN 64
#define BIG ((size_t)4 << 20)

static const size_t sizes[] = { 0, 1, 63, 64, 65, 4095, 8191, 8192, 65536,
				1 << 20, 4 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* sendv / recvv cuts, both totalling IOV_TOTAL */
#define IOV_TOTAL 10000
static const size_t tx_cut[4] = { 1, 4000, 999, 5000 };
static const size_t rx_cut[4] = { 3000, 3000, 3000, 1000 };

#define CQDATA 0x0123456789abcdefull
#define TRUNC_POSTED 100
#define TRUNC_SENT 300
#define MR_BUF 8192
#define MR_MSG 1500
#define MR_MIN 1000
#define MR_COUNT 5	/* 7500 used: what is left (692) is under MR_MIN */
#define TAG_A 0x1234ull
#define TAG_B 0xab00ull	/* ignore 0xff */
#define TAG_B_SENT 0xab42ull
#define TAG_LONE 0x9999ull
#define TAG_NEVER 0x1111ull
#define DC_LEN 1000
#define DC_IDLE_POLLS 2000

static int guard_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != GUARD)
			return 0;
	return 1;
}

/* ---- client: the sender ---- */

static void send_wait(struct tt_side *c, void *buf, size_t len,
		      uint64_t seq)
{
	struct fi_cq_tagged_entry e;

	tt_fill(buf, len, seq);
	TT_EQ(fi_send(c->ep, buf, len, NULL, 0, (void *)(uintptr_t)seq), 0);
	tt_cq_wait(c->txcq, &e);
	TT_CHECK(e.op_context == (void *)(uintptr_t)seq);
	TT_CHECK((e.flags & (FI_SEND | FI_MSG)) == (FI_SEND | FI_MSG));
}

static void sizes_client(void *arg)
{
	struct tt_opts o = { .cntrs = true };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct iovec iov[4];
	struct fi_msg msg;
	struct tt_side c;
	uint8_t *buf = malloc(BIG), *src = malloc(IOV_TOTAL);
	uint64_t before;
	size_t inj, off = 0;
	int step = 0;

	(void)arg;
	TT_CHECK(buf && src);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);

	tt_watch("sizes client: sizes", TT_WATCHDOG_S);
	for (size_t i = 0; i < NSIZES; i++) {
		tt_wait_step(TT_SERVER, ++step, NULL, NULL);
		send_wait(&c, buf, sizes[i], 100 + i);
	}

	/* sendv: the pieces sit apart in buf */
	tt_watch("sizes client: sendv", TT_WATCHDOG_S);
	tt_fill(src, IOV_TOTAL, 200);
	for (int k = 0; k < 4; k++) {
		iov[k].iov_base = buf + (size_t)k * 16384;
		iov[k].iov_len = tx_cut[k];
		memcpy(iov[k].iov_base, src + off, tx_cut[k]);
		off += tx_cut[k];
	}
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	TT_EQ(fi_sendv(c.ep, iov, NULL, 4, 0, src), 0);
	tt_cq_wait(c.txcq, &e);
	TT_CHECK(e.op_context == src);

	/* senddata, then a plain send */
	tt_watch("sizes client: senddata", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	tt_fill(buf, 200, 300);
	TT_EQ(fi_senddata(c.ep, buf, 200, NULL, CQDATA, 0, buf), 0);
	tt_cq_wait(c.txcq, &e);
	send_wait(&c, buf, 200, 301);

	/* inject: the buffer is ours again at return; no completion */
	tt_watch("sizes client: inject", TT_WATCHDOG_S);
	inj = c.info->tx_attr->inject_size;
	TT_CHECK(inj >= 1);
	if (inj > 4096)
		inj = 4096;
	atomic_store(&tt_board->val[0], inj);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	tt_fill(buf, inj, 400);
	TT_EQ(fi_inject(c.ep, buf, inj, 0), 0);
	memset(buf, 0, inj);
	/* the server says when it has the data; until then and after, our
	 * tx CQ stays empty (polling it also drives our progress) */
	tt_wait_step(TT_SERVER, ++step, tt_poke_empty, &c);
	TT_EQ(tt_cq_poll(c.txcq, &e, &err), 0);

	/* truncation, then a message that must arrive intact */
	tt_watch("sizes client: truncation", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	send_wait(&c, buf, TRUNC_SENT, 500);
	send_wait(&c, buf, 50, 501);

	/* multi-recv: MR_COUNT messages, then one to a plain receive */
	tt_watch("sizes client: multi-recv", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	for (int k = 0; k < MR_COUNT; k++)
		send_wait(&c, buf, MR_MSG, 600 + (uint64_t)k);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	send_wait(&c, buf, MR_MSG, 610);

	/* tagged */
	tt_watch("sizes client: tagged", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	tt_fill(buf, 700, 700);
	TT_EQ(fi_tsend(c.ep, buf, 700, NULL, 0, TAG_B_SENT, NULL), 0);
	tt_cq_wait(c.txcq, &e);
	TT_CHECK(e.flags & FI_TAGGED);
	send_wait(&c, buf, 701, 701);
	tt_fill(buf, 702, 702);
	TT_EQ(fi_tsend(c.ep, buf, 702, NULL, 0, TAG_A, NULL), 0);
	tt_cq_wait(c.txcq, &e);
	tt_fill(buf, 703, 703);
	TT_EQ(fi_tsend(c.ep, buf, 703, NULL, 0, TAG_LONE, NULL), 0);
	tt_cq_wait(c.txcq, &e);

	/* FI_DELIVERY_COMPLETE: nothing while no receive is posted */
	tt_watch("sizes client: delivery complete", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	tt_fill(buf, DC_LEN, 800);
	iov[0].iov_base = buf;
	iov[0].iov_len = DC_LEN;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.iov_count = 1;
	msg.context = buf;
	TT_EQ(fi_sendmsg(c.ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE),
	      0);
	for (int k = 0; k < DC_IDLE_POLLS; k++) {
		TT_EQ(tt_cq_poll(c.txcq, &e, &err), 0);
		usleep(100);
	}
	tt_step(TT_CLIENT, 1);
	tt_cq_wait(c.txcq, &e);
	TT_CHECK(e.op_context == buf);
	TT_CHECK((e.flags & (FI_SEND | FI_MSG)) == (FI_SEND | FI_MSG));

	/* counters */
	tt_watch("sizes client: counters", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	before = fi_cntr_read(c.txcntr);
	for (int k = 0; k < 3; k++)
		send_wait(&c, buf, 64, 900 + (uint64_t)k);
	TT_EQ(fi_cntr_read(c.txcntr) - before, 3);
	TT_EQ(fi_cntr_readerr(c.txcntr), 0);

	tt_wait_step(TT_SERVER, ++step, NULL, NULL);
	tt_close(&c);
	free(buf);
	free(src);
}

/* ---- server: the receiver ---- */

static void recv_check(struct tt_side *s, uint8_t *buf, size_t len,
		       uint64_t seq)
{
	struct fi_cq_tagged_entry e;

	tt_cq_wait(s->rxcq, &e);
	TT_CHECK(e.op_context == buf);
	TT_EQ(e.len, len);
	TT_CHECK((e.flags & (FI_RECV | FI_MSG)) == (FI_RECV | FI_MSG));
	TT_CHECK(!(e.flags & FI_REMOTE_CQ_DATA));
	TT_EQ(tt_verify(buf, len, seq), -1);
	TT_CHECK(guard_ok(buf + len, GUARD_LEN));
}

static void post(struct tt_side *s, uint8_t *buf, size_t cap)
{
	memset(buf, GUARD, cap + GUARD_LEN);
	TT_EQ(fi_recv(s->ep, buf, cap, NULL, 0, buf), 0);
}

/* Take the completions of the tagged section, in any order. */
static void tagged_server(struct tt_side *s, uint8_t *buf)
{
	uint8_t *a = buf, *b = buf + 4096, *u = buf + 8192,
		*lone = buf + 12288, *never = buf + 16384;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int seen = 0;

	memset(buf, GUARD, 20480);
	TT_EQ(fi_trecv(s->ep, never, 1024, NULL, 0, TAG_NEVER, 0, never), 0);
	TT_EQ(fi_trecv(s->ep, a, 1024, NULL, 0, TAG_A, 0, a), 0);
	TT_EQ(fi_trecv(s->ep, b, 1024, NULL, 0, TAG_B, 0xff, b), 0);
	TT_EQ(fi_recv(s->ep, u, 1024, NULL, 0, u), 0);
	tt_step(TT_SERVER, atomic_load(&tt_board->step[TT_SERVER]) + 1);
	while (seen != 7) {
		tt_cq_wait(s->rxcq, &e);
		if (e.op_context == b) {
			TT_CHECK(e.flags & FI_TAGGED);
			TT_EQ(e.tag, TAG_B_SENT);
			TT_EQ(e.len, 700);
			TT_EQ(tt_verify(b, 700, 700), -1);
			seen |= 1;
		} else if (e.op_context == u) {
			TT_CHECK(e.flags & FI_MSG);
			TT_CHECK(!(e.flags & FI_TAGGED));
			TT_EQ(e.len, 701);
			TT_EQ(tt_verify(u, 701, 701), -1);
			seen |= 2;
		} else {
			TT_CHECK(e.op_context == a);
			TT_CHECK(e.flags & FI_TAGGED);
			TT_EQ(e.tag, TAG_A);
			TT_EQ(e.len, 702);
			TT_EQ(tt_verify(a, 702, 702), -1);
			seen |= 4;
		}
	}
	/* TAG_LONE matches nothing posted (TAG_NEVER differs): it waits
	 * for the receive posted now */
	TT_EQ(fi_trecv(s->ep, lone, 1024, NULL, 0, TAG_LONE, 0, lone), 0);
	tt_cq_wait(s->rxcq, &e);
	TT_CHECK(e.op_context == lone);
	TT_EQ(e.tag, TAG_LONE);
	TT_EQ(e.len, 703);
	TT_EQ(tt_verify(lone, 703, 703), -1);
	TT_CHECK(guard_ok(never, 1024));
	TT_EQ(fi_cancel(&s->ep->fid, never), 0);
	TT_EQ(tt_cq_wait_any(s->rxcq, &e, &err), -1);
	TT_EQ(err.err, FI_ECANCELED);
	TT_CHECK(err.op_context == never);
}

static void multirecv_server(struct tt_side *s, uint8_t *buf, int *step)
{
	struct fi_cq_tagged_entry e;
	struct iovec iov = { .iov_base = buf, .iov_len = MR_BUF };
	struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
			      .context = buf };
	bool released = false;

	memset(buf, GUARD, MR_BUF + GUARD_LEN);
	TT_EQ(fi_recvmsg(s->ep, &msg, FI_MULTI_RECV | FI_COMPLETION), 0);
	tt_step(TT_SERVER, ++*step);
	for (int k = 0; k < MR_COUNT; k++) {
		tt_cq_wait(s->rxcq, &e);
		TT_CHECK(e.op_context == buf);
		TT_EQ(e.len, MR_MSG);
		TT_CHECK(e.buf == buf + (size_t)k * MR_MSG);
		TT_EQ(tt_verify(e.buf, MR_MSG, 600 + (uint64_t)k), -1);
		if (k < MR_COUNT - 1)
			TT_CHECK(!(e.flags & FI_MULTI_RECV));
		else
			released = e.flags & FI_MULTI_RECV;
	}
	if (!released) {
		/* the release may come as an entry of its own */
		tt_cq_wait(s->rxcq, &e);
		TT_CHECK(e.op_context == buf);
		TT_CHECK(e.flags & FI_MULTI_RECV);
		TT_EQ(e.len, 0);
	}
	TT_CHECK(guard_ok(buf + MR_COUNT * MR_MSG, MR_BUF - MR_COUNT * MR_MSG));
	post(s, buf + 16384, 2000);
	tt_step(TT_SERVER, ++*step);
	recv_check(s, buf + 16384, MR_MSG, 610);
}

int tt_scn_sizes(void)
{
	struct tt_opts o = { .cntrs = true, .min_multi_recv = MR_MIN };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct iovec iov[4];
	struct tt_side s;
	uint8_t *buf = malloc(BIG + 65536), *whole = malloc(IOV_TOTAL);
	uint64_t before;
	size_t inj, off = 0;
	int step = 0;

	TT_CHECK(buf && whole);
	tt_board_init();
	tt_spawn(sizes_client, NULL);
	tt_watch("sizes server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);

	tt_watch("sizes server: sizes", TT_WATCHDOG_S);
	for (size_t i = 0; i < NSIZES; i++) {
		post(&s, buf, sizes[i] + 17);
		tt_step(TT_SERVER, ++step);
		recv_check(&s, buf, sizes[i], 100 + i);
	}

	tt_watch("sizes server: recvv", TT_WATCHDOG_S);
	memset(buf, GUARD, 65536);
	for (int k = 0; k < 4; k++) {
		iov[k].iov_base = buf + (size_t)k * 16384;
		iov[k].iov_len = rx_cut[k];
	}
	TT_EQ(fi_recvv(s.ep, iov, NULL, 4, 0, whole), 0);
	tt_step(TT_SERVER, ++step);
	tt_cq_wait(s.rxcq, &e);
	TT_CHECK(e.op_context == whole);
	TT_EQ(e.len, IOV_TOTAL);
	for (int k = 0; k < 4; k++) {
		memcpy(whole + off, iov[k].iov_base, rx_cut[k]);
		TT_CHECK(guard_ok((uint8_t *)iov[k].iov_base + rx_cut[k],
				  GUARD_LEN));
		off += rx_cut[k];
	}
	TT_EQ(tt_verify(whole, IOV_TOTAL, 200), -1);

	tt_watch("sizes server: senddata", TT_WATCHDOG_S);
	post(&s, buf, 1024);
	post(&s, buf + 4096, 1024);
	tt_step(TT_SERVER, ++step);
	tt_cq_wait(s.rxcq, &e);
	TT_CHECK(e.op_context == buf);
	TT_EQ(e.len, 200);
	TT_CHECK(e.flags & FI_REMOTE_CQ_DATA);
	TT_EQ(e.data, CQDATA);
	TT_EQ(tt_verify(buf, 200, 300), -1);
	recv_check(&s, buf + 4096, 200, 301);

	tt_watch("sizes server: inject", TT_WATCHDOG_S);
	while (!(inj = atomic_load(&tt_board->val[0])))
		usleep(100);
	post(&s, buf, inj);
	tt_step(TT_SERVER, ++step);
	recv_check(&s, buf, inj, 400);
	tt_step(TT_SERVER, ++step);

	tt_watch("sizes server: truncation", TT_WATCHDOG_S);
	post(&s, buf, TRUNC_POSTED);
	post(&s, buf + 4096, 1024);
	tt_step(TT_SERVER, ++step);
	TT_EQ(tt_cq_wait_any(s.rxcq, &e, &err), -1);
	TT_EQ(err.err, FI_ETRUNC);
	TT_CHECK(err.op_context == buf);
	TT_EQ(err.olen, TRUNC_SENT - TRUNC_POSTED);
	TT_EQ(err.len, TRUNC_POSTED);
	TT_EQ(tt_verify(buf, TRUNC_POSTED, 500), -1);
	TT_CHECK(guard_ok(buf + TRUNC_POSTED, GUARD_LEN));
	recv_check(&s, buf + 4096, 50, 501);
	TT_EQ(fi_cntr_readerr(s.rxcntr), 1);

	tt_watch("sizes server: multi-recv", TT_WATCHDOG_S);
	multirecv_server(&s, buf, &step);

	tt_watch("sizes server: tagged", TT_WATCHDOG_S);
	tagged_server(&s, buf);
	step++;

	tt_watch("sizes server: delivery complete", TT_WATCHDOG_S);
	tt_step(TT_SERVER, ++step);
	tt_wait_step(TT_CLIENT, 1, tt_poke_empty, &s);
	post(&s, buf, 2 * DC_LEN);
	recv_check(&s, buf, DC_LEN, 800);

	tt_watch("sizes server: counters", TT_WATCHDOG_S);
	before = fi_cntr_read(s.rxcntr);
	for (int k = 0; k < 3; k++)
		post(&s, buf + (size_t)k * 4096, 1024);
	tt_step(TT_SERVER, ++step);
	for (int k = 0; k < 3; k++)
		recv_check(&s, buf + (size_t)k * 4096, 64, 900 + (uint64_t)k);
	TT_EQ(fi_cntr_read(s.rxcntr) - before, 3);

	tt_step(TT_SERVER, ++step);
	tt_watch("sizes server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	tt_close(&s);
	free(buf);
	free(whole);
	return 0;
}
