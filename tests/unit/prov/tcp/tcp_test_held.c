/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario "held" (test_tcp_ep.c): under manual progress the provider
 * may keep small sends for the application's next progress call, to
 * write them together (FI_TCP_TX_COALESCE, prov/tcp/tcp_ep_tx.c). A kept
 * send must never be stranded by an application that follows the rules.
 * The client (sender) does three things and, after each, stops calling
 * the library altogether until the server has received everything:
 *
 *  1. HELD_INJ fi_inject calls (no completions at all), then the
 *     fi_trywait discipline on its FI_WAIT_FD tx CQ: read while trywait
 *     says -FI_EAGAIN, and stop at the first FI_SUCCESS, as a client
 *     about to sleep on the fd would. Kept sends must make trywait say
 *     -FI_EAGAIN until a progress call has written them.
 *  2. One plain send (it leaves at once: a pass ran since the last),
 *     then HELD_MORE - 2 sends through fi_sendmsg with FI_MORE, then one
 *     without: the last call of such a series sends the series
 *     (fi_msg(3)), although no progress call came between them.
 *  3. HELD_BARE fi_inject calls back to back (every one after the
 *     first is kept: no pass ran between them), then no call at all, not
 *     even fi_trywait, as a program that hands its last message to the
 *     library and goes on with other work: the fabric's flush timer sends
 *     them (tcp_fabric.c).
 *  4. HELD_CLOSE sends posted back to back, then fi_close of the
 *     endpoint at once: a send posted before the close leaves, as it
 *     would have without coalescing.
 *
 * The server busy-polls and checks every message's length, pattern and
 * order; a stranded send leaves it waiting, and the watchdog names it.
 */
#include <string.h>
#include <sys/uio.h>

#include "tcp_test.h"

#define HELD_INJ 40
#define HELD_MORE 24
#define HELD_BARE 20
#define HELD_CLOSE 30
#define HELD_LEN 24
#define HELD_BARE_AT (HELD_INJ + HELD_MORE)
#define HELD_CLOSE_AT (HELD_BARE_AT + HELD_BARE)
#define HELD_TOTAL (HELD_CLOSE_AT + HELD_CLOSE)

static uint64_t held_seq(int i)
{
	return 7000 + (uint64_t)i;
}

static void held_client(void *arg)
{
	struct tt_opts o = { .tx_wait = FI_WAIT_FD };
	uint8_t (*msg)[HELD_LEN] = malloc(HELD_TOTAL * HELD_LEN);
	struct fid *f;
	struct tt_side c;
	int i, r, done = 0, reads = 0;

	(void)arg;
	TT_CHECK(msg);
	for (i = 0; i < HELD_TOTAL; i++)
		tt_fill(msg[i], HELD_LEN, held_seq(i));
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);

	tt_watch("held client: injecting", TT_WATCHDOG_S);
	for (i = 0; i < HELD_INJ; i++)
		TT_POST(&c, &done, fi_inject(c.ep, msg[i], HELD_LEN, 0));
	f = &c.txcq->fid;
	while ((r = fi_trywait(c.fabric, &f, 1)) == -FI_EAGAIN) {
		TT_EQ(fi_cq_read(c.txcq, NULL, 0), 0);
		reads++;
	}
	TT_EQ(r, 0);
	printf("trywait said FI_SUCCESS after %d progress calls\n", reads);
	tt_step(TT_CLIENT, 1);
	/* no library call until the server has all of them */
	tt_wait_step(TT_SERVER, 2, NULL, NULL);

	tt_watch("held client: FI_MORE series", TT_WATCHDOG_S);
	for (i = HELD_INJ; i < HELD_INJ + HELD_MORE; i++) {
		struct iovec iov = { msg[i], HELD_LEN };
		struct fi_msg m = { .msg_iov = &iov, .iov_count = 1,
				    .context = msg[i] };
		bool more = i > HELD_INJ && i + 1 < HELD_INJ + HELD_MORE;
		uint64_t fl = FI_COMPLETION | (more ? FI_MORE : 0);

		TT_POST(&c, &done, fi_sendmsg(c.ep, &m, fl));
	}
	tt_step(TT_CLIENT, 2);
	tt_wait_step(TT_SERVER, 3, NULL, NULL);
	while (done < HELD_MORE)
		done += tt_drain(c.txcq);

	tt_watch("held client: injects, then no call", TT_WATCHDOG_S);
	for (i = HELD_BARE_AT; i < HELD_CLOSE_AT; i++)
		TT_POST(&c, &done, fi_inject(c.ep, msg[i], HELD_LEN, 0));
	/* not one library call until the server has them all */
	tt_wait_step(TT_SERVER, 4, NULL, NULL);

	tt_watch("held client: close with sends posted", TT_WATCHDOG_S);
	for (i = HELD_CLOSE_AT; i < HELD_TOTAL; i++)
		TT_POST(&c, &done, fi_send(c.ep, msg[i], HELD_LEN, NULL, 0,
					   msg[i]));
	tt_close_ep(&c);
	tt_step(TT_CLIENT, 3);
	tt_watch("held client: waiting for the server", 2 * TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 5, NULL, NULL);
	tt_close(&c);
	free(msg);
}

/* Receive messages [from, to) in order. */
static void held_receive(struct tt_side *s, uint8_t (*slot)[HELD_LEN],
			 int from, int to, const char *what)
{
	struct fi_cq_tagged_entry e;
	static char phase[128];
	int i;

	for (i = from; i < to; i++) {
		snprintf(phase, sizeof(phase), "held server: %s (%d of %d "
			 "received)", what, i - from, to - from);
		tt_phase = phase;
		tt_cq_wait(s->rxcq, &e);
		TT_CHECK(e.op_context == slot[i]);
		TT_EQ(e.len, HELD_LEN);
		TT_EQ(tt_verify(slot[i], HELD_LEN, held_seq(i)), -1);
	}
}

int tt_scn_held(void)
{
	struct tt_opts o = { 0 };
	struct tt_side s;
	uint8_t (*slot)[HELD_LEN] = malloc(HELD_TOTAL * HELD_LEN);

	TT_CHECK(slot);
	tt_board_init();
	tt_spawn(held_client, NULL);
	tt_watch("held server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	for (int i = 0; i < HELD_TOTAL; i++)
		TT_EQ(fi_recv(s.ep, slot[i], HELD_LEN, NULL, 0, slot[i]), 0);
	tt_step(TT_SERVER, 1);

	tt_watch("held server: injects", TT_WATCHDOG_S);
	tt_wait_step(TT_CLIENT, 1, NULL, NULL);
	held_receive(&s, slot, 0, HELD_INJ,
		     "injects sent before fi_trywait said FI_SUCCESS");
	tt_step(TT_SERVER, 2);

	tt_watch("held server: FI_MORE", TT_WATCHDOG_S);
	held_receive(&s, slot, HELD_INJ, HELD_INJ + HELD_MORE,
		     "an FI_MORE series and its last send");
	tt_step(TT_SERVER, 3);

	tt_watch("held server: injects the client never follows",
		 TT_WATCHDOG_S);
	held_receive(&s, slot, HELD_BARE_AT, HELD_CLOSE_AT,
		     "injects followed by no call at all");
	tt_step(TT_SERVER, 4);

	tt_watch("held server: close", TT_WATCHDOG_S);
	held_receive(&s, slot, HELD_CLOSE_AT, HELD_TOTAL,
		     "sends posted just before fi_close");
	tt_step(TT_SERVER, 5);
	tt_watch("held server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	tt_close(&s);
	free(slot);
	return 0;
}
