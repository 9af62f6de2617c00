/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario "kill" (test_tcp_ep.c): the client sends 64 MiB messages in a
 * loop, for ever; the server keeps two 64 MiB receives posted, takes the
 * first message whole, lets the next one start arriving, and SIGKILLs
 * the client. Then every receive still posted must complete: a success
 * only for a message that arrived whole and intact, an error
 * (FI_ECONNRESET or another connection error) otherwise, and at least
 * one of them in error (no kernel buffer holds 64 MiB); FI_SHUTDOWN
 * follows on the server's EQ.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "tcp_test.h"

#define KILL_MSG ((size_t)64 << 20)
#define KILL_POLLS 50

/* A message: its sequence number in the first 8 bytes, then stream 0. */
static int kill_msg_ok(const uint8_t *p, size_t len, uint64_t seq)
{
	uint64_t got;

	if (len != KILL_MSG)
		return 0;
	memcpy(&got, p, sizeof(got));
	if (got != seq)
		return 0;
	for (size_t i = 8; i < len; i += 4093)
		if (p[i] != tt_byte(0, i))
			return 0;
	return p[len - 1] == tt_byte(0, len - 1);
}

static void kill_client(void *arg)
{
	struct fi_cq_tagged_entry e;
	struct tt_opts o = { 0 };
	struct tt_side c;
	uint8_t *big = malloc(KILL_MSG);

	(void)arg;
	TT_CHECK(big);
	tt_fill(big, KILL_MSG, 0);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	/* no watchdog: the server kills us */
	tt_watch("kill client: sending", 0);
	for (uint64_t seq = 1;; seq++) {
		memcpy(big, &seq, sizeof(seq));
		TT_EQ(fi_send(c.ep, big, KILL_MSG, NULL, 0, big), 0);
		tt_cq_wait(c.txcq, &e);
	}
}

static int conn_error(int err)
{
	return err == FI_ECONNRESET || err == FI_ECONNABORTED ||
	       err == EPIPE || err == FI_ESHUTDOWN || err == FI_ENOTCONN ||
	       err == FI_EIO;
}

int tt_scn_kill(void)
{
	uint8_t evbuf[sizeof(struct fi_eq_cm_entry) + 64];
	struct fi_eq_cm_entry *ev = (void *)evbuf;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct tt_opts o = { 0 };
	struct tt_side s;
	uint8_t *rb[2] = { malloc(KILL_MSG), malloc(KILL_MSG) };
	uint64_t next = 1;
	int pending = 2, errors = 0, r;
	pid_t child;

	TT_CHECK(rb[0] && rb[1]);
	tt_board_init();
	child = tt_spawn(kill_client, NULL);
	tt_watch("kill server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	for (int k = 0; k < 2; k++)
		TT_EQ(fi_recv(s.ep, rb[k], KILL_MSG, NULL, 0, rb[k]), 0);

	tt_watch("kill server: first message", TT_WATCHDOG_S);
	tt_cq_wait(s.rxcq, &e);
	TT_CHECK(e.op_context == rb[0]);
	TT_CHECK(kill_msg_ok(rb[0], e.len, next));
	next++;
	memset(rb[0], 0, 64);
	TT_EQ(fi_recv(s.ep, rb[0], KILL_MSG, NULL, 0, rb[0]), 0);
	/* the next message is on its way into rb[1] */
	for (int k = 0; k < KILL_POLLS; k++) {
		r = tt_cq_poll(s.rxcq, &e, &err);
		TT_CHECK(r >= 0);
		if (r) {
			/* it arrived whole: check it, post again */
			uint8_t *p = e.op_context;

			TT_CHECK(kill_msg_ok(p, e.len, next));
			next++;
			memset(p, 0, 64);
			TT_EQ(fi_recv(s.ep, p, KILL_MSG, NULL, 0, p), 0);
		}
	}
	tt_child_may_die = 1;
	TT_EQ(kill(child, SIGKILL), 0);
	TT_EQ(tt_join(), 128 + SIGKILL);

	tt_watch("kill server: pending receives after the kill",
		 TT_WATCHDOG_S);
	while (pending) {
		r = tt_cq_wait_any(s.rxcq, &e, &err);
		if (r > 0) {
			printf("receive %p completed with %zu bytes\n",
			       e.op_context, e.len);
			TT_CHECK(kill_msg_ok(e.op_context, e.len, next));
			next++;
		} else {
			printf("receive %p: err %d (%s), len %zu\n",
			       err.op_context, err.err, fi_strerror(err.err),
			       err.len);
			TT_CHECK(err.op_context == rb[0] ||
				 err.op_context == rb[1]);
			TT_CHECK(conn_error(err.err));
			errors++;
		}
		pending--;
	}
	TT_CHECK(errors >= 1);
	printf("messages received whole: %llu\n",
	       (unsigned long long)(next - 1));

	tt_watch("kill server: FI_SHUTDOWN", TT_WATCHDOG_S);
	tt_eq_wait(&s, FI_SHUTDOWN, evbuf, sizeof(evbuf), tt_poke_empty, &s);
	TT_CHECK(ev->fid == &s.ep->fid);
	tt_close(&s);
	free(rb[0]);
	free(rb[1]);
	return 0;
}
