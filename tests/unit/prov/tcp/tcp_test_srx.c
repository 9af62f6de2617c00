/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario "srx_cancel" (test_tcp_ep.c): fi_cancel of a receive posted
 * to a shared receive context must report it, as every cancel does
 * (fi_endpoint(3)): one error entry, err FI_ECANCELED, the receive's
 * context and FI_RECV with FI_MSG or FI_TAGGED, and the receive counter's
 * error count; a second cancel of that context finds nothing. The
 * context has no CQ of its own: the report goes to the oldest enabled
 * endpoint bound to it (prov/tcp/docs/provider.md). The server checks:
 *
 *  1. a receive canceled before any endpoint is bound: its report
 *     appears once the first bound endpoint is enabled;
 *  2. untagged, then tagged, with one endpoint A: on A's CQ;
 *  3. with A and a later B (each its own receive CQ, and B enabled by
 *     fi_accept, not fi_enable): on A's, none on B's; once A is closed,
 *     on B's, none on A's;
 *  4. the context still delivers: a message sent on B lands in the
 *     receive posted after all this.
 *
 * The client checks the same report for a tagged receive on its plain
 * endpoint, which owns its receives and reports on its own CQ.
 */
#include <string.h>

#include "tcp_test.h"

#define SRX_LEN 64
#define SRX_TAG 0x5eedULL
#define SRX_SEQ 4242

/* The next entry of cq is the report of a canceled receive; the one
 * after, none. The cancel writes it itself, so it is there at once. */
static void srx_expect_canceled(struct fid_cq *cq, void *ctx, uint64_t kind)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;

	TT_EQ(tt_cq_poll(cq, &e, &err), -1);
	TT_EQ(err.err, FI_ECANCELED);
	TT_CHECK(err.op_context == ctx);
	TT_EQ(err.flags, FI_RECV | kind);
	TT_EQ(tt_cq_poll(cq, &e, &err), 0);
}

static void srx_expect_empty(struct fid_cq *cq)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;

	TT_EQ(tt_cq_poll(cq, &e, &err), 0);
}

static void srx_client(void *arg)
{
	struct tt_opts o = { 0 };
	uint8_t msg[SRX_LEN], buf[SRX_LEN];
	struct fid_ep *ep_a;
	struct tt_side c;
	int done = 0;
	char ctx;

	(void)arg;
	tt_watch("srx client: first connection", TT_WATCHDOG_S);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);

	TT_EQ(fi_trecv(c.ep, buf, SRX_LEN, NULL, 0, SRX_TAG, 0, &ctx), 0);
	TT_EQ(fi_cancel(&c.ep->fid, &ctx), 0);
	srx_expect_canceled(c.rxcq, &ctx, FI_TAGGED);
	TT_EQ(fi_cancel(&c.ep->fid, &ctx), -FI_ENOENT);
	tt_step(TT_CLIENT, 1);

	tt_watch("srx client: second connection", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);
	ep_a = c.ep;
	c.ep = NULL;
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);

	tt_watch("srx client: send on the second", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 2, NULL, NULL);
	tt_fill(msg, SRX_LEN, SRX_SEQ);
	TT_POST(&c, &done, fi_send(c.ep, msg, SRX_LEN, NULL, 0, msg));
	while (!done)
		done += tt_drain(c.txcq);
	tt_wait_step(TT_SERVER, 3, NULL, NULL);
	TT_EQ(fi_close(&ep_a->fid), 0);
	tt_close(&c);
}

int tt_scn_srx_cancel(void)
{
	struct tt_opts o = { .cntrs = true };
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED, .size = 64 };
	struct fi_rx_attr ra = { .size = 16 };
	struct fi_cq_tagged_entry e;
	uint8_t buf[SRX_LEN];
	struct fid_cq *cq_a, *cq_b;
	struct fid_ep *ep_a;
	struct tt_side s;
	char ctx[6];

	tt_board_init();
	tt_spawn(srx_client, NULL);
	tt_watch("srx server: first connection", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	TT_EQ(fi_domain(s.fabric, s.conn_info, &s.domain, NULL), 0);
	tt_open_cqs(&s);
	TT_EQ(fi_srx_context(s.domain, &ra, &s.srx, NULL), 0);

	/* 1: nothing bound yet; the report waits for an endpoint */
	tt_watch("srx server: cancel before any endpoint", TT_WATCHDOG_S);
	TT_EQ(fi_recv(s.srx, buf, SRX_LEN, NULL, 0, &ctx[0]), 0);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[0]), 0);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[0]), -FI_ENOENT);
	srx_expect_empty(s.rxcq);
	tt_server_accept(&s, NULL, 0);
	srx_expect_canceled(s.rxcq, &ctx[0], FI_MSG);
	TT_EQ(fi_cntr_readerr(s.rxcntr), 1);

	/* 2: one endpoint */
	tt_watch("srx server: cancel with one endpoint", TT_WATCHDOG_S);
	TT_EQ(fi_recv(s.srx, buf, SRX_LEN, NULL, 0, &ctx[1]), 0);
	TT_EQ(fi_trecv(s.srx, buf, SRX_LEN, NULL, 0, SRX_TAG, 0, &ctx[2]), 0);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[1]), 0);
	srx_expect_canceled(s.rxcq, &ctx[1], FI_MSG);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[1]), -FI_ENOENT);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[2]), 0);
	srx_expect_canceled(s.rxcq, &ctx[2], FI_TAGGED);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[2]), -FI_ENOENT);
	TT_EQ(fi_cntr_readerr(s.rxcntr), 3);
	tt_wait_step(TT_CLIENT, 1, NULL, NULL);
	tt_step(TT_SERVER, 1);

	/* 3: a second endpoint with a receive CQ of its own */
	tt_watch("srx server: second connection", TT_WATCHDOG_S);
	tt_server_connreq(&s, NULL, NULL);
	ep_a = s.ep;
	cq_a = s.rxcq;
	s.ep = NULL;
	TT_EQ(fi_cq_open(s.domain, &ca, &s.rxcq, NULL), 0);
	cq_b = s.rxcq;
	s.opts.no_enable = true;
	tt_server_accept(&s, NULL, 0);
	tt_watch("srx server: cancel with two endpoints", TT_WATCHDOG_S);
	TT_EQ(fi_recv(s.srx, buf, SRX_LEN, NULL, 0, &ctx[3]), 0);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[3]), 0);
	srx_expect_canceled(cq_a, &ctx[3], FI_MSG);
	srx_expect_empty(cq_b);
	TT_EQ(fi_close(&ep_a->fid), 0);
	TT_EQ(fi_trecv(s.srx, buf, SRX_LEN, NULL, 0, SRX_TAG, 0, &ctx[4]), 0);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[4]), 0);
	srx_expect_canceled(cq_b, &ctx[4], FI_TAGGED);
	srx_expect_empty(cq_a);
	TT_EQ(fi_cancel(&s.srx->fid, &ctx[4]), -FI_ENOENT);
	TT_EQ(fi_cntr_readerr(s.rxcntr), 5);

	/* 4: still delivers */
	tt_watch("srx server: a message after the cancels", TT_WATCHDOG_S);
	TT_EQ(fi_recv(s.srx, buf, SRX_LEN, NULL, 0, &ctx[5]), 0);
	tt_step(TT_SERVER, 2);
	tt_cq_wait(cq_b, &e);
	TT_CHECK(e.op_context == &ctx[5]);
	TT_EQ(e.flags, FI_RECV | FI_MSG);
	TT_EQ(e.len, SRX_LEN);
	TT_EQ(tt_verify(buf, SRX_LEN, SRX_SEQ), -1);
	TT_EQ(fi_cntr_readerr(s.rxcntr), 5);
	tt_step(TT_SERVER, 3);

	tt_watch("srx server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	TT_EQ(fi_close(&cq_a->fid), 0);
	tt_close(&s);
	return 0;
}
