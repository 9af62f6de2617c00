/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared receive contexts and fi_cancel on verbs endpoints, through the
 * public API, on a real verbs device (run inside the rxe VM by
 * rxe_wrap.sh). One scenario per run (argv[1]):
 *   srx     two accepted endpoints share one fi_srx_context (an SRQ):
 *           receives posted once, before either connection exists,
 *           take the messages of both peers; each completion is on the
 *           CQ of the endpoint its message came through, with the
 *           context of the receive it filled and the sender's bytes;
 *           the rules (fi_info, bind before enable, fi_recv on a bound
 *           endpoint, fi_close -FI_EBUSY while bound, a completion
 *           still in a closing endpoint's CQ is reported)
 *   cancel  fi_cancel of posted receives: a message that arrives in a
 *           canceled receive completes it normally (no message lost);
 *           at fi_close every receive still posted completes with
 *           FI_ECANCELED (the CQ outlives the endpoint); one flushed by the peer's disconnect completes with
 *           FI_ECANCELED; a context not posted (or a send) -FI_ENOENT
 *   empty   a receive at NULL without a descriptor (fabtests'
 *           fi_shared_ctx posts them for its empty messages) takes an
 *           empty message, and a longer one completes it in error
 * Exit 0: pass; 77: no verbs device here (skipped, says why); 1: fail.
 */
#include "vrb_test_conn.h"

#define NRECV 6
#define RSLOT 65536

/* fi_rx_size_left, which the 1.17 headers mark deprecated */
static ssize_t rx_left(struct fid_ep *ep)
{
	return ep->ops->rx_size_left(ep);
}

static void want_shared(struct fi_info *hints)
{
	hints->ep_attr->rx_ctx_cnt = FI_SHARED_CONTEXT;
}

/* Message k of sender s: its length and its bytes. */
static size_t msg_len(int k)
{
	return k == 0 ? 10 : 40000 + (size_t)k;	/* inline, then not */
}

static char msg_byte(char s, int k, size_t i)
{
	return (char)(s + k * 3 + (int)(i % 97));
}

static void fill(char *buf, char s, int k)
{
	size_t i;

	for (i = 0; i < msg_len(k); i++)
		buf[i] = msg_byte(s, k, i);
}

/* 3 completions on cq, each a receive of sender s: the contexts are
 * receives of ctx[], each filled with one of s's messages, each message
 * once. */
static void expect_from(struct fid_cq *cq, char s, int *ctx, char *rbuf,
			bool *used)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	bool seen[3] = { false, false, false };
	int n, i, k;
	size_t j;

	for (n = 0; n < 3; n++) {
		CHECK(vt_cq_wait(cq, &e, &err));
		i = (int)((int *)e.op_context - ctx);
		EXPECT(i >= 0 && i < NRECV && !used[i]);
		used[i] = true;
		EXPECT(e.flags & FI_RECV);
		for (k = 0; k < 3 && e.len != msg_len(k); k++)
			;
		EXPECT(k < 3 && !seen[k]);
		seen[k] = true;
		for (j = 0; j < e.len; j++)
			if (rbuf[i * RSLOT + j] != msg_byte(s, k, j))
				vt_fail("receive %d: byte %zu is not %c's "
					"message %d", i, j, s, k);
	}
}

static void scenario_srx(void)
{
	struct fi_rx_attr rxa = { .size = 16 };
	char *rbuf = calloc(NRECV + 2, RSLOT), *sbuf = malloc(2 * RSLOT);
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct vt_conn a, b;
	struct fid_mr *rmr, *smr;
	struct fid_ep *srx;
	bool used[NRECV] = { false };
	int ctx[NRECV + 2], sctx, i, k;
	struct vt t;

	vt_open(&t, want_shared);
	EXPECT(t.info->domain_attr->max_ep_srx_ctx >= 1);
	EXPECT(t.info->ep_attr->rx_ctx_cnt == FI_SHARED_CONTEXT);
	rmr = vt_reg(&t, rbuf, (NRECV + 2) * (size_t)RSLOT, FI_RECV);
	smr = vt_reg(&t, sbuf, 2 * RSLOT, FI_SEND);
	CHECK(fi_srx_context(t.domain, &rxa, &srx, NULL));
	EXPECT(srx->fid.fclass == FI_CLASS_SRX_CTX);
	/* posted before any endpoint exists: the SRQ keeps them */
	for (i = 0; i < NRECV; i++)
		CHECK(fi_recv(srx, rbuf + i * RSLOT, RSLOT, fi_mr_desc(rmr),
			      0, &ctx[i]));
	EXPECT(rx_left(srx) == 16 - NRECV);
	vt_connect(&t, &a, srx);
	vt_connect(&t, &b, srx);
	/* receives go to the context, not the endpoint; the QP was made
	 * with the SRQ, so a bind after fi_enable is too late */
	EXPECT(fi_recv(a.srv, rbuf, 16, fi_mr_desc(rmr), 0, NULL) ==
	       -FI_EOPBADSTATE);
	EXPECT(fi_ep_bind(a.srv, &srx->fid, 0) == -FI_EOPBADSTATE);
	EXPECT(fi_close(&srx->fid) == -FI_EBUSY);
	for (k = 0; k < 3; k++) {
		fill(sbuf, 'A', k);
		fill(sbuf + RSLOT, 'B', k);
		CHECK(fi_send(a.cli, sbuf, msg_len(k), fi_mr_desc(smr), 0,
			      &sctx));
		CHECK(fi_send(b.cli, sbuf + RSLOT, msg_len(k),
			      fi_mr_desc(smr), 0, &sctx));
		CHECK(vt_cq_wait(a.ccq, &e, &err));
		CHECK(vt_cq_wait(b.ccq, &e, &err));
	}
	expect_from(a.scq, 'A', ctx, rbuf, used);
	expect_from(b.scq, 'B', ctx, rbuf, used);
	EXPECT(fi_cq_read(a.scq, &e, 1) == -FI_EAGAIN);
	EXPECT(rx_left(srx) == 16);
	/* a message that arrived before its endpoint closes is reported
	 * on that endpoint's CQ: by a progress pass, or by the close if it
	 * is still in the device's CQ (the receive belongs to the context,
	 * which would otherwise hold its slot forever) */
	CHECK(fi_recv(srx, rbuf + NRECV * RSLOT, RSLOT, fi_mr_desc(rmr), 0,
		      &ctx[NRECV]));
	fill(sbuf, 'A', 1);
	CHECK(fi_send(a.cli, sbuf, msg_len(1), fi_mr_desc(smr), 0, &sctx));
	CHECK(vt_cq_wait(a.ccq, &e, &err));
	CHECK(fi_close(&a.srv->fid));
	a.srv = NULL;
	CHECK(vt_cq_wait(a.scq, &e, &err));
	EXPECT(e.op_context == &ctx[NRECV] && e.len == msg_len(1));
	EXPECT(rx_left(srx) == 16);
	/* still posted at close, without a descriptor (the provider's
	 * cache registration goes back with the context) */
	CHECK(fi_recv(srx, rbuf + (NRECV + 1) * RSLOT, RSLOT, NULL, 0,
		      &ctx[NRECV + 1]));
	vt_conn_close(&t, &a);
	EXPECT(fi_close(&srx->fid) == -FI_EBUSY);	/* b still bound */
	vt_conn_close(&t, &b);
	CHECK(fi_close(&srx->fid));
	CHECK(fi_close(&rmr->fid));
	CHECK(fi_close(&smr->fid));
	vt_close(&t);
	free(rbuf);
	free(sbuf);
}

static void scenario_cancel(void)
{
	char rbuf[3][64], cbuf[64], sbuf[64] = "first";
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct fid_mr *rmr, *cmr, *smr;
	int r[3], c0, sctx, bogus, i;
	struct vt_conn c;
	struct vt t;

	vt_open(&t, NULL);
	rmr = vt_reg(&t, rbuf, sizeof(rbuf), FI_RECV);
	cmr = vt_reg(&t, cbuf, sizeof(cbuf), FI_RECV);
	smr = vt_reg(&t, sbuf, sizeof(sbuf), FI_SEND);
	vt_connect(&t, &c, NULL);
	for (i = 0; i < 3; i++)
		CHECK(fi_recv(c.srv, rbuf[i], 64, fi_mr_desc(rmr), 0, &r[i]));
	CHECK(fi_cancel(&c.srv->fid, &r[0]));
	EXPECT(fi_cancel(&c.srv->fid, &r[0]) == -FI_ENOENT);
	EXPECT(fi_cancel(&c.srv->fid, &bogus) == -FI_ENOENT);
	/* the message takes the oldest receive, the canceled one: it
	 * completes normally, the message is not lost */
	CHECK(fi_send(c.cli, sbuf, 6, fi_mr_desc(smr), 0, &sctx));
	CHECK(vt_cq_wait(c.ccq, &e, &err));
	EXPECT(e.op_context == &sctx);
	EXPECT(fi_cancel(&c.cli->fid, &sctx) == -FI_ENOENT);
	CHECK(vt_cq_wait(c.scq, &e, &err));
	EXPECT(e.op_context == &r[0] && e.len == 6 &&
	       !strcmp(rbuf[0], "first"));
	/* the endpoint closes: r[1] (canceled) and r[2] (not) complete
	 * with FI_ECANCELED, oldest first, nothing else */
	CHECK(fi_cancel(&c.srv->fid, &r[1]));
	CHECK(fi_recv(c.cli, cbuf, 64, fi_mr_desc(cmr), 0, &c0));
	CHECK(fi_cancel(&c.cli->fid, &c0));
	CHECK(fi_close(&c.srv->fid));
	c.srv = NULL;
	EXPECT(vt_cq_wait(c.scq, &e, &err) == -FI_ECANCELED);
	EXPECT(err.op_context == &r[1]);
	EXPECT(vt_cq_wait(c.scq, &e, &err) == -FI_ECANCELED);
	EXPECT(err.op_context == &r[2]);
	EXPECT(fi_cq_read(c.scq, &e, 1) == -FI_EAGAIN);
	/* the peer's close disconnects the client: its receive is
	 * flushed, FI_ECANCELED */
	EXPECT(vt_cq_wait(c.ccq, &e, &err) == -FI_ECANCELED);
	EXPECT(err.op_context == &c0);
	vt_conn_close(&t, &c);
	CHECK(fi_close(&rmr->fid));
	CHECK(fi_close(&cmr->fid));
	CHECK(fi_close(&smr->fid));
	vt_close(&t);
}

static void scenario_empty(void)
{
	char sbuf[16] = "not empty";
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct fid_mr *smr;
	struct vt_conn c;
	int r0, r1, sctx, ret;
	struct vt t;

	vt_open(&t, NULL);
	smr = vt_reg(&t, sbuf, sizeof(sbuf), FI_SEND);
	vt_connect(&t, &c, NULL);
	CHECK(fi_recv(c.srv, NULL, 256, NULL, 0, &r0));
	CHECK(fi_send(c.cli, NULL, 0, NULL, 0, &sctx));
	CHECK(vt_cq_wait(c.ccq, &e, &err));
	CHECK(vt_cq_wait(c.scq, &e, &err));
	EXPECT(e.op_context == &r0 && e.len == 0);
	/* bad arguments, no crash: nothing to send from (inline size) */
	EXPECT(fi_send(c.cli, NULL, 10, NULL, 0, &sctx) == -FI_EINVAL);
	EXPECT(fi_inject(c.cli, NULL, 10, 0) == -FI_EINVAL);
	CHECK(fi_recv(c.srv, NULL, 256, NULL, 0, &r1));
	CHECK(fi_send(c.cli, sbuf, 10, fi_mr_desc(smr), 0, &sctx));
	/* FI_ETRUNC where the device says "local length" (rxe says
	 * "local QP operation": FI_EIO); never a success */
	ret = vt_cq_wait(c.scq, &e, &err);
	if (ret != -FI_ETRUNC && ret != -FI_EIO)
		vt_fail("a 10-byte message in an empty receive: %d (%s), "
			"prov_errno %d, not an error", ret, fi_strerror(-ret),
			err.prov_errno);
	EXPECT(err.op_context == &r1);
	vt_conn_close(&t, &c);
	CHECK(fi_close(&smr->fid));
	vt_close(&t);
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "srx";

	if (!strcmp(s, "srx"))
		scenario_srx();
	else if (!strcmp(s, "cancel"))
		scenario_cancel();
	else if (!strcmp(s, "empty"))
		scenario_empty();
	else {
		fprintf(stderr, "unknown scenario %s\n", s);
		return 2;
	}
	printf("PASS: verbs %s\n", s);
	return 0;
}
