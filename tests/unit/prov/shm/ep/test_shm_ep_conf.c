/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg(3), fi_tagged(3), fi_cq(3) and fi_cntr(3) semantics of the shm
 * endpoint, one process, several endpoints of one domain (suite unit).
 * One scenario per run, named by argv[1]:
 *
 *   peek       FI_PEEK with nothing: FI_ENOMSG error completion; FI_PEEK
 *              reports length, tag and data and moves nothing; FI_PEEK |
 *              FI_CLAIM hides the message from other receives until an
 *              FI_CLAIM receive with the same context takes it; FI_PEEK |
 *              FI_DISCARD and FI_CLAIM | FI_DISCARD drop it
 *   source     fi_cq_readfrom gives the sender's fi_addr_t (FI_SOURCE);
 *              a sender missing from the AV: FI_EADDRNOTAVAIL error
 *              completion with its name as err_data (FI_SOURCE_ERR)
 *   directed   a receive for peer B is not matched by C's message
 *   lateav     messages queued before their sender was in the AV match
 *              a receive directed at it once it is inserted, and
 *              FI_SOURCE reports it
 *   ignore     tag ignore bits select which tags match
 *   selective  FI_SELECTIVE_COMPLETION: completions only with
 *              FI_COMPLETION; the counters count every operation
 *   cqdata     senddata / injectdata / tsenddata / tinjectdata / sendmsg
 *              with FI_REMOTE_CQ_DATA: data and FI_REMOTE_CQ_DATA arrive
 *   sendmsg    FI_INJECT (buffer reusable on return), FI_COMPLETION,
 *              FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE,
 *              FI_DELIVERY_COMPLETE: one completion each, right context
 *   matchcomp  FI_MATCH_COMPLETE, FI_DELIVERY_COMPLETE, FI_COMMIT_COMPLETE:
 *              no send completion while the message waits unmatched
 *   limits     inject beyond inject_size and iovecs beyond iov_limit:
 *              -FI_EINVAL; iov_limit iovecs gather and scatter; zero
 *              bytes without a buffer; truncation: FI_ETRUNC and olen
 *   formats    CQ formats CONTEXT, MSG, DATA, TAGGED: flags, len, buf
 *   mrorder    a bounce-buffer message and an inline one fill a
 *              multi-recv buffer: the FI_MULTI_RECV completion is last
 *   cancel     fi_cancel of a tagged receive
 * The endpoint's other calls: test_shm_ep_objs.c.
 */
#include <stdlib.h>
#include <unistd.h>

#include "shm_conf_test.h"

/* ---- peek ---- */

static int peek_post(struct cep *a, uint64_t tag, void *buf, size_t len,
		     void *ctx, uint64_t flags, struct fi_cq_tagged_entry *e,
		     struct fi_cq_err_entry *err)
{
	struct iovec iov = { buf, len };
	struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = buf ? 1 : 0,
				   .addr = FI_ADDR_UNSPEC, .tag = tag,
				   .context = ctx };

	SHM_CHECK(fi_trecvmsg(a->ep, &m, flags) == 0);
	return conf_read(a->rcq, e, 1, err, NULL);
}

static void peek_until_found(struct cep *a, uint64_t tag, void *ctx,
			     uint64_t flags, struct fi_cq_tagged_entry *e)
{
	struct fi_cq_err_entry err;

	while (peek_post(a, tag, NULL, 0, ctx, flags, e, &err) != 1) {
		SHM_CHECK(err.err == FI_ENOMSG);
		SHM_CHECK(err.op_context == ctx);
	}
}

static void t_peek(void)
{
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char buf[32];
	int ctx1, ctx2, ctx3;

	open2(&a, &b, NULL, NULL, NULL, &to_a);
	/* nothing there: an FI_ENOMSG error completion (fi_tagged(3)) */
	memset(&err, 0, sizeof(err));
	SHM_CHECK(peek_post(&a, 5, NULL, 0, &ctx1, FI_PEEK, &e, &err) ==
		  -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ENOMSG);
	SHM_CHECK(err.op_context == &ctx1);
	SHM_CHECK(err.flags & FI_RECV);

	SHM_CHECK(fi_tsenddata(b.ep, "hello", 6, NULL, 0xabc, to_a, 5,
			       NULL) == 0);
	/* FI_PEEK: the header, no data */
	memset(buf, 'x', sizeof(buf));
	peek_until_found(&a, 5, &ctx1, FI_PEEK, &e);
	SHM_CHECK(e.op_context == &ctx1);
	SHM_CHECK(e.len == 6);
	SHM_CHECK(e.tag == 5);
	SHM_CHECK(e.data == 0xabc);
	SHM_CHECK(e.flags & FI_REMOTE_CQ_DATA);
	SHM_CHECK((e.flags & (FI_RECV | FI_TAGGED)) == (FI_RECV | FI_TAGGED));
	/* still there: a second peek finds it again */
	SHM_CHECK(peek_post(&a, 5, NULL, 0, &ctx1, FI_PEEK, &e, NULL) == 1);
	SHM_CHECK(e.len == 6);

	/* FI_PEEK | FI_CLAIM: reserved for ctx2 */
	SHM_CHECK(peek_post(&a, 5, NULL, 0, &ctx2, FI_PEEK | FI_CLAIM, &e,
			    NULL) == 1);
	SHM_CHECK(e.op_context == &ctx2 && e.len == 6);
	/* a plain receive does not get the claimed message */
	SHM_CHECK(fi_trecv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC, 5, 0,
			   &ctx3) == 0);
	conf_none(a.rcq);
	SHM_CHECK(fi_cancel(&a.ep->fid, &ctx3) == 0);
	SHM_CHECK(conf_read(a.rcq, &e, 1, &err, NULL) == -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ECANCELED && err.op_context == &ctx3);
	/* a peek does not see it either */
	SHM_CHECK(peek_post(&a, 5, NULL, 0, &ctx1, FI_PEEK, &e, &err) ==
		  -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ENOMSG);
	/* FI_CLAIM with the claiming context takes it, data and all */
	SHM_CHECK(peek_post(&a, 5, buf, sizeof(buf), &ctx2, FI_CLAIM, &e,
			    NULL) == 1);
	SHM_CHECK(e.op_context == &ctx2 && e.len == 6 && e.tag == 5);
	SHM_CHECK(!strcmp(buf, "hello"));
	SHM_CHECK(e.data == 0xabc);

	/* FI_PEEK | FI_DISCARD: the message goes away */
	SHM_CHECK(fi_tsend(b.ep, "drop1", 6, NULL, to_a, 6, NULL) == 0);
	peek_until_found(&a, 6, &ctx1, FI_PEEK | FI_DISCARD, &e);
	SHM_CHECK(e.op_context == &ctx1 && e.tag == 6);
	SHM_CHECK(peek_post(&a, 6, NULL, 0, &ctx1, FI_PEEK, &e, &err) ==
		  -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ENOMSG);

	/* FI_PEEK | FI_CLAIM, then FI_CLAIM | FI_DISCARD */
	SHM_CHECK(fi_tsend(b.ep, "drop2", 6, NULL, to_a, 7, NULL) == 0);
	peek_until_found(&a, 7, &ctx2, FI_PEEK | FI_CLAIM, &e);
	memset(buf, 'x', sizeof(buf));
	SHM_CHECK(peek_post(&a, 7, buf, sizeof(buf), &ctx2,
			    FI_CLAIM | FI_DISCARD, &e, NULL) == 1);
	SHM_CHECK(e.op_context == &ctx2);
	SHM_CHECK(buf[0] == 'x');	/* nothing copied */
	SHM_CHECK(peek_post(&a, 7, NULL, 0, &ctx1, FI_PEEK, &e, &err) ==
		  -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ENOMSG);
	/* the next message of that tag is a fresh one */
	SHM_CHECK(fi_tsend(b.ep, "keep", 5, NULL, to_a, 7, NULL) == 0);
	SHM_CHECK(fi_trecv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC, 7, 0,
			   &ctx3) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.op_context == &ctx3 && !strcmp(buf, "keep"));
	cep_close(&a);
	cep_close(&b);
}

/* ---- source ---- */

static void t_source(void)
{
	struct cep a, b, c;
	fi_addr_t a_b, b_a, c_a, from;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char buf[32];

	open2(&a, &b, NULL, NULL, &a_b, &b_a);
	SHM_CHECK(cep_open(&C, &c, &(struct cep_opts){ 0 }) == 0);
	c_a = cep_insert(&c, &a);	/* a does not know c */

	SHM_CHECK(fi_send(b.ep, "from b", 7, NULL, b_a, NULL) == 0);
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	from = FI_ADDR_UNSPEC;
	SHM_CHECK(conf_read(a.rcq, &e, 1, NULL, &from) == 1);
	SHM_CHECK(from == a_b);
	SHM_CHECK(!strcmp(buf, "from b"));

	/* FI_SOURCE_ERR: the data is placed, the error names the sender */
	SHM_CHECK(fi_send(c.ep, "from c", 7, NULL, c_a, NULL) == 0);
	memset(buf, 0, sizeof(buf));
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  buf) == 0);
	memset(&err, 0, sizeof(err));
	SHM_CHECK(conf_read(a.rcq, &e, 1, &err, &from) == -FI_EAVAIL);
	SHM_CHECK(err.err == FI_EADDRNOTAVAIL);
	SHM_CHECK(err.op_context == buf);
	SHM_CHECK(err.err_data && err.err_data_size == c.namelen);
	SHM_CHECK(!memcmp(err.err_data, c.name, c.namelen));
	SHM_CHECK(!strcmp(buf, "from c"));
	/* once c is inserted, its messages carry its address */
	from = cep_insert(&a, &c);
	SHM_CHECK(fi_send(c.ep, "again", 6, NULL, c_a, NULL) == 0);
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	{
		fi_addr_t got = FI_ADDR_UNSPEC;

		SHM_CHECK(conf_read(a.rcq, &e, 1, NULL, &got) == 1);
		SHM_CHECK(got == from);
	}
	cep_close(&a);
	cep_close(&b);
	cep_close(&c);
}

/* ---- directed ---- */

static void t_directed(void)
{
	struct cep a, b, c;
	fi_addr_t a_b, a_c, b_a, c_a;
	struct fi_cq_tagged_entry e;
	char rb[16], rc[16], tb[16];

	open2(&a, &b, NULL, NULL, &a_b, &b_a);
	SHM_CHECK(cep_open(&C, &c, &(struct cep_opts){ 0 }) == 0);
	a_c = cep_insert(&a, &c);
	c_a = cep_insert(&c, &a);

	/* untagged and tagged receives directed at b */
	SHM_CHECK(fi_recv(a.ep, rb, sizeof(rb), NULL, a_b, rb) == 0);
	SHM_CHECK(fi_trecv(a.ep, tb, sizeof(tb), NULL, a_b, 1, 0, tb) == 0);
	SHM_CHECK(fi_send(c.ep, "c-msg", 6, NULL, c_a, NULL) == 0);
	SHM_CHECK(fi_tsend(c.ep, "c-tag", 6, NULL, c_a, 1, NULL) == 0);
	conf_none(a.rcq);	/* c's messages wait as unexpected */
	SHM_CHECK(fi_send(b.ep, "b-msg", 6, NULL, b_a, NULL) == 0);
	SHM_CHECK(fi_tsend(b.ep, "b-tag", 6, NULL, b_a, 1, NULL) == 0);
	for (int i = 0; i < 2; i++) {
		conf_wait(a.rcq, &e);
		SHM_CHECK(e.op_context == rb || e.op_context == tb);
	}
	SHM_CHECK(!strcmp(rb, "b-msg") && !strcmp(tb, "b-tag"));
	/* receives directed at c get c's */
	SHM_CHECK(fi_recv(a.ep, rc, sizeof(rc), NULL, a_c, rc) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.op_context == rc && !strcmp(rc, "c-msg"));
	SHM_CHECK(fi_trecv(a.ep, rc, sizeof(rc), NULL, a_c, 1, 0, rc) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.op_context == rc && !strcmp(rc, "c-tag"));
	cep_close(&a);
	cep_close(&b);
	cep_close(&c);
}

/* ---- lateav ---- */

static void t_lateav(void)
{
	struct fi_cq_tagged_entry e;
	fi_addr_t a_c, c_a, got;
	char r1[16], r2[16];
	struct cep a, c;

	SHM_CHECK(cep_open(&C, &a, &(struct cep_opts){ 0 }) == 0);
	SHM_CHECK(cep_open(&C, &c, &(struct cep_opts){ 0 }) == 0);
	c_a = cep_insert(&c, &a);	/* a does not know c yet */
	SHM_CHECK(fi_send(c.ep, "c-msg", 6, NULL, c_a, NULL) == 0);
	SHM_CHECK(fi_tsend(c.ep, "c-tag", 6, NULL, c_a, 5, NULL) == 0);
	conf_none(a.rcq);	/* both arrive and wait as unexpected */
	a_c = cep_insert(&a, &c);
	/* queued before c was in the AV, they now carry its address: the
	 * receives directed at c take them at once, and FI_SOURCE names c
	 * (no FI_SOURCE_ERR error) */
	SHM_CHECK(fi_recv(a.ep, r1, sizeof(r1), NULL, a_c, r1) == 0);
	got = FI_ADDR_UNSPEC;
	SHM_CHECK(conf_read(a.rcq, &e, 0, NULL, &got) == 1);
	SHM_CHECK(e.op_context == r1 && !strcmp(r1, "c-msg") && got == a_c);
	SHM_CHECK(fi_trecv(a.ep, r2, sizeof(r2), NULL, a_c, 5, 0, r2) == 0);
	got = FI_ADDR_UNSPEC;
	SHM_CHECK(conf_read(a.rcq, &e, 0, NULL, &got) == 1);
	SHM_CHECK(e.op_context == r2 && !strcmp(r2, "c-tag") && got == a_c);
	cep_close(&a);
	cep_close(&c);
}

/* ---- ignore ---- */

static void t_ignore(void)
{
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	char buf[16];

	open2(&a, &b, NULL, NULL, NULL, &to_a);
	SHM_CHECK(fi_trecv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			   0x1200, 0xff, buf) == 0);
	SHM_CHECK(fi_tsend(b.ep, "1300", 5, NULL, to_a, 0x1300, NULL) == 0);
	conf_none(a.rcq);
	SHM_CHECK(fi_tsend(b.ep, "12ab", 5, NULL, to_a, 0x12ab, NULL) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.tag == 0x12ab && !strcmp(buf, "12ab"));
	/* the ignored bits do not widen the others */
	SHM_CHECK(fi_trecv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			   0x1300, 0, buf) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.tag == 0x1300 && !strcmp(buf, "1300"));
	cep_close(&a);
	cep_close(&b);
}

/* ---- selective ---- */

static void cntr_wait(struct fid_cntr *c, uint64_t n)
{
	while (fi_cntr_read(c) < n)
		;
	SHM_CHECK(fi_cntr_read(c) == n);
}

static void t_selective(void)
{
	struct cep_opts o = { .tx_bind = FI_SELECTIVE_COMPLETION,
			      .rx_bind = FI_SELECTIVE_COMPLETION,
			      .counters = 1 };
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	char r1[16], r2[16];
	struct iovec iov = { r2, sizeof(r2) };
	struct iovec siov = { "two", 4 };
	struct fi_msg rm = { .msg_iov = &iov, .iov_count = 1,
			     .addr = FI_ADDR_UNSPEC, .context = r2 };
	struct fi_msg sm = { .msg_iov = &siov, .iov_count = 1, .context = r2 };

	open2(&a, &b, &o, &o, NULL, &to_a);
	sm.addr = to_a;
	/* no FI_COMPLETION: no entries, but the counters move */
	SHM_CHECK(fi_recv(a.ep, r1, sizeof(r1), NULL, FI_ADDR_UNSPEC, r1) == 0);
	SHM_CHECK(fi_send(b.ep, "one", 4, NULL, to_a, r1) == 0);
	cntr_wait(a.rcntr, 1);
	cntr_wait(b.scntr, 1);
	SHM_CHECK(!strcmp(r1, "one"));
	conf_none(a.rcq);
	conf_none(b.tcq);
	/* FI_COMPLETION: entries on both sides */
	SHM_CHECK(fi_recvmsg(a.ep, &rm, FI_COMPLETION) == 0);
	SHM_CHECK(fi_sendmsg(b.ep, &sm, FI_COMPLETION) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.op_context == r2 && !strcmp(r2, "two"));
	conf_wait(b.tcq, &e);
	SHM_CHECK(e.op_context == r2);
	SHM_CHECK((e.flags & (FI_SEND | FI_MSG)) == (FI_SEND | FI_MSG));
	cntr_wait(a.rcntr, 2);
	cntr_wait(b.scntr, 2);
	/* fi_inject never completes, yet counts */
	SHM_CHECK(fi_recv(a.ep, r1, sizeof(r1), NULL, FI_ADDR_UNSPEC, r1) == 0);
	SHM_CHECK(fi_inject(b.ep, "inj", 4, to_a) == 0);
	cntr_wait(a.rcntr, 3);
	cntr_wait(b.scntr, 3);
	conf_none(b.tcq);
	SHM_CHECK(fi_cntr_readerr(a.rcntr) == 0);
	SHM_CHECK(fi_cntr_readerr(b.scntr) == 0);
	cep_close(&a);
	cep_close(&b);
}

/* ---- cqdata ---- */

static void t_cqdata(void)
{
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	char buf[16];
	struct iovec siov = { "msg", 4 };
	struct fi_msg sm = { .msg_iov = &siov, .iov_count = 1, .data = 55 };

	open2(&a, &b, NULL, NULL, NULL, &to_a);
	sm.addr = to_a;
	for (int i = 0; i < 5; i++) {
		int tagged = i == 2 || i == 3;

		if (tagged)
			SHM_CHECK(fi_trecv(a.ep, buf, sizeof(buf), NULL,
					   FI_ADDR_UNSPEC, 9, 0, buf) == 0);
		else
			SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL,
					  FI_ADDR_UNSPEC, buf) == 0);
		switch (i) {
		case 0:
			SHM_CHECK(fi_senddata(b.ep, "msg", 4, NULL, 50, to_a,
					      NULL) == 0);
			break;
		case 1:
			SHM_CHECK(fi_injectdata(b.ep, "msg", 4, 51, to_a) == 0);
			break;
		case 2:
			SHM_CHECK(fi_tsenddata(b.ep, "msg", 4, NULL, 52, to_a,
					       9, NULL) == 0);
			break;
		case 3:
			SHM_CHECK(fi_tinjectdata(b.ep, "msg", 4, 53, to_a,
						 9) == 0);
			break;
		case 4:
			sm.data = 54;
			SHM_CHECK(fi_sendmsg(b.ep, &sm, FI_REMOTE_CQ_DATA) == 0);
			break;
		}
		conf_wait(a.rcq, &e);
		SHM_CHECK(e.op_context == buf && e.len == 4);
		SHM_CHECK(e.flags & FI_REMOTE_CQ_DATA);
		SHM_CHECK(e.flags & FI_RECV);
		SHM_CHECK(e.flags & (tagged ? FI_TAGGED : FI_MSG));
		SHM_CHECK(e.data == (uint64_t)(50 + i));
		SHM_CHECK(!strcmp(buf, "msg"));
	}
	/* without FI_REMOTE_CQ_DATA: no flag (data is not defined) */
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  buf) == 0);
	SHM_CHECK(fi_sendmsg(b.ep, &sm, 0) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(!(e.flags & FI_REMOTE_CQ_DATA));
	cep_close(&a);
	cep_close(&b);
}

/* ---- sendmsg ---- */

static void t_sendmsg(void)
{
	static const uint64_t fl[] = { FI_INJECT, FI_COMPLETION,
		FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE,
		FI_DELIVERY_COMPLETE, FI_INJECT | FI_DELIVERY_COMPLETE };
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	char big[20000], rbig[20000], sbuf[32];

	open2(&a, &b, NULL, NULL, NULL, &to_a);
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		for (int large = 0; large < 2; large++) {
			size_t len = large ? sizeof(big) : 32;
			char *src = large ? big : sbuf;
			struct iovec siov = { src, len };
			struct fi_msg sm = { .msg_iov = &siov, .iov_count = 1,
					     .addr = to_a,
					     .context = (void *)&fl[i] };

			if (large && (fl[i] & FI_INJECT))
				continue;	/* beyond inject_size */
			shm_test_fill(src, len, i);
			SHM_CHECK(fi_recv(a.ep, rbig, len, NULL, FI_ADDR_UNSPEC,
					  rbig) == 0);
			SHM_CHECK(CONF_RETRY(b.tcq,
				fi_sendmsg(b.ep, &sm, fl[i])) == 0);
			if (fl[i] & FI_INJECT)
				memset(src, 0, len);	/* ours again */
			conf_wait(b.tcq, &e);
			SHM_CHECK(e.op_context == &fl[i]);
			SHM_CHECK((e.flags & (FI_SEND | FI_MSG)) ==
				  (FI_SEND | FI_MSG));
			SHM_CHECK(!(e.flags & FI_RECV));
			conf_wait(a.rcq, &e);
			SHM_CHECK(e.len == len);
			SHM_CHECK(shm_test_verify(rbig, len, i) == 0);
			conf_none(b.tcq);	/* exactly one */
		}
	}
	cep_close(&a);
	cep_close(&b);
}

/* ---- matchcomp ---- */

static void t_matchcomp(void)
{
	static const uint64_t fl[] = { FI_MATCH_COMPLETE,
		FI_DELIVERY_COMPLETE, FI_COMMIT_COMPLETE };
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	static char src[8000], dst[8000];

	open2(&a, &b, NULL, NULL, NULL, &to_a);
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		for (size_t len = 16; len <= sizeof(src); len += 7984) {
			struct iovec siov = { src, len };
			struct fi_msg sm = { .msg_iov = &siov, .iov_count = 1,
					     .addr = to_a, .context = src };

			shm_test_fill(src, len, len + i);
			SHM_CHECK(CONF_RETRY(b.tcq,
				fi_sendmsg(b.ep, &sm, fl[i])) == 0);
			/* arrived (progress runs) but unmatched: no
			 * completion at that level yet */
			conf_none(b.tcq);
			SHM_CHECK(fi_recv(a.ep, dst, len, NULL, FI_ADDR_UNSPEC,
					  dst) == 0);
			conf_wait(b.tcq, &e);
			SHM_CHECK(e.op_context == src);
			conf_wait(a.rcq, &e);
			SHM_CHECK(e.len == len);
			SHM_CHECK(shm_test_verify(dst, len, len + i) == 0);
		}
	}
	cep_close(&a);
	cep_close(&b);
}

/* ---- limits ---- */

static void t_limits(void)
{
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	size_t inj = C.info->tx_attr->inject_size;
	size_t lim = C.info->tx_attr->iov_limit;
	char *big = calloc(1, inj + 1), parts[8][8], out[64];
	struct iovec iov[8], riov[8];
	struct fi_msg sm = { .msg_iov = iov };

	SHM_CHECK(big && lim >= 1 && lim < 8);
	SHM_CHECK(C.info->rx_attr->iov_limit == lim);
	open2(&a, &b, NULL, NULL, NULL, &to_a);
	sm.addr = to_a;
	SHM_CHECK(fi_inject(b.ep, big, inj + 1, to_a) == -FI_EINVAL);
	SHM_CHECK(fi_tinject(b.ep, big, inj + 1, to_a, 1) == -FI_EINVAL);
	SHM_CHECK(fi_injectdata(b.ep, big, inj + 1, 1, to_a) == -FI_EINVAL);
	iov[0] = (struct iovec){ big, inj + 1 };
	sm.iov_count = 1;
	SHM_CHECK(fi_sendmsg(b.ep, &sm, FI_INJECT) == -FI_EINVAL);
	/* exactly inject_size is fine */
	SHM_CHECK(fi_recv(a.ep, big, inj, NULL, FI_ADDR_UNSPEC, NULL) == 0);
	SHM_CHECK(CONF_RETRY(b.tcq, fi_inject(b.ep, big, inj, to_a)) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.len == inj);

	for (size_t i = 0; i < 8; i++) {
		memset(parts[i], 'a' + (int)i, sizeof(parts[i]));
		iov[i] = (struct iovec){ parts[i], sizeof(parts[i]) };
		riov[i] = (struct iovec){ out + i * 8, 8 };
	}
	SHM_CHECK(fi_sendv(b.ep, iov, NULL, lim + 1, to_a, NULL) ==
		  -FI_EINVAL);
	SHM_CHECK(fi_tsendv(b.ep, iov, NULL, lim + 1, to_a, 1, NULL) ==
		  -FI_EINVAL);
	SHM_CHECK(fi_recvv(a.ep, riov, NULL, lim + 1, FI_ADDR_UNSPEC, NULL) ==
		  -FI_EINVAL);
	SHM_CHECK(fi_trecvv(a.ep, riov, NULL, lim + 1, FI_ADDR_UNSPEC, 1, 0,
			    NULL) == -FI_EINVAL);
	conf_none(a.rcq);	/* nothing was posted or sent */
	/* lim iovecs gather into lim iovecs of another split */
	memset(out, 0, sizeof(out));
	riov[0].iov_len = 3;
	riov[1] = (struct iovec){ out + 3, lim * 8 - 3 };
	SHM_CHECK(fi_recvv(a.ep, riov, NULL, 2, FI_ADDR_UNSPEC, out) == 0);
	SHM_CHECK(fi_sendv(b.ep, iov, NULL, lim, to_a, NULL) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.len == lim * 8);
	for (size_t i = 0; i < lim * 8; i++)
		SHM_CHECK(out[i] == 'a' + (int)(i / 8));
	conf_wait(b.tcq, &e);

	/* zero bytes, no buffer at all */
	SHM_CHECK(fi_recv(a.ep, NULL, 0, NULL, FI_ADDR_UNSPEC, out) == 0);
	SHM_CHECK(fi_send(b.ep, NULL, 0, NULL, to_a, NULL) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.op_context == out && e.len == 0);
	SHM_CHECK(fi_recv(a.ep, NULL, 0, NULL, FI_ADDR_UNSPEC, out) == 0);
	SHM_CHECK(fi_inject(b.ep, NULL, 0, to_a) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.len == 0);

	/* truncation (inline and bounce-buffer sizes): FI_ETRUNC, the
	 * bytes that fit are placed, olen says how many did not */
	for (size_t len = 32; len <= 8192; len += 8160) {
		struct fi_cq_err_entry err;
		char *src = malloc(len), *dst = calloc(1, len);

		SHM_CHECK(src && dst);
		shm_test_fill(src, len, len);
		SHM_CHECK(fi_recv(a.ep, dst, 16, NULL, FI_ADDR_UNSPEC, dst) == 0);
		SHM_CHECK(CONF_RETRY(b.tcq, fi_send(b.ep, src, len, NULL, to_a,
						    NULL)) == 0);
		memset(&err, 0, sizeof(err));
		SHM_CHECK(conf_read(a.rcq, &e, 1, &err, NULL) == -FI_EAVAIL);
		SHM_CHECK(err.err == FI_ETRUNC && err.op_context == dst);
		SHM_CHECK(err.len == 16 && err.olen == len - 16);
		SHM_CHECK(shm_test_verify(dst, 16, len) == 0);
		SHM_CHECK(dst[16] == 0);
		free(src);
		free(dst);
	}
	free(big);
	cep_close(&a);
	cep_close(&b);
}

/* ---- formats ---- */

static void t_formats(void)
{
	static const enum fi_cq_format f[] = { FI_CQ_FORMAT_CONTEXT,
		FI_CQ_FORMAT_MSG, FI_CQ_FORMAT_DATA, FI_CQ_FORMAT_TAGGED };
	char buf[16], ctx;

	for (size_t i = 0; i < 4; i++) {
		struct cep_opts o = { .format = f[i] };
		struct fi_cq_tagged_entry e;
		struct cep a, b;
		fi_addr_t to_a;

		open2(&a, &b, &o, &o, NULL, &to_a);
		for (int tagged = 0; tagged < 2; tagged++) {
			memset(&e, 0xa5, sizeof(e));
			if (tagged) {
				SHM_CHECK(fi_trecv(a.ep, buf, sizeof(buf), NULL,
					FI_ADDR_UNSPEC, 3, 0, &ctx) == 0);
				SHM_CHECK(fi_tsenddata(b.ep, "fmt", 4, NULL, 8,
						       to_a, 3, buf) == 0);
			} else {
				SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL,
						  FI_ADDR_UNSPEC, &ctx) == 0);
				SHM_CHECK(fi_senddata(b.ep, "fmt", 4, NULL, 8,
						      to_a, buf) == 0);
			}
			conf_wait(a.rcq, &e);
			SHM_CHECK(e.op_context == &ctx);
			if (f[i] != FI_CQ_FORMAT_CONTEXT) {
				SHM_CHECK(e.flags == (FI_RECV | FI_REMOTE_CQ_DATA |
					(tagged ? FI_TAGGED : FI_MSG)));
				SHM_CHECK(e.len == 4);
			}
			if (f[i] == FI_CQ_FORMAT_DATA ||
			    f[i] == FI_CQ_FORMAT_TAGGED) {
				SHM_CHECK(e.data == 8);
				SHM_CHECK(e.buf == buf);
			}
			if (f[i] == FI_CQ_FORMAT_TAGGED)
				SHM_CHECK(e.tag == (tagged ? 3u : 0u));
			conf_wait(b.tcq, &e);
			SHM_CHECK(e.op_context == buf);
			if (f[i] != FI_CQ_FORMAT_CONTEXT)
				SHM_CHECK(e.flags == (FI_SEND |
					(tagged ? FI_TAGGED : FI_MSG)));
		}
		cep_close(&a);
		cep_close(&b);
	}
}

/* ---- mrorder ---- */

#define MRO_BIG  (256 * 1024)	/* many rounds of the bounce ring */
#define MRO_SMALL 64
#define MRO_MIN  1001

static void t_mrorder(void)
{
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	size_t blen = MRO_BIG + MRO_SMALL + MRO_MIN - 1, min = MRO_MIN;
	uint8_t *rbuf = malloc(blen), *big = malloc(MRO_BIG);
	struct iovec iov = { rbuf, blen };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1,
			    .addr = FI_ADDR_UNSPEC, .context = rbuf };
	uint8_t small[MRO_SMALL];
	int seen = 0;

	SHM_CHECK(rbuf && big);
	open2(&a, &b, NULL, NULL, NULL, &to_a);
	SHM_CHECK(fi_setopt(&a.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			    &min, sizeof(min)) == 0);
	SHM_CHECK(fi_recvmsg(a.ep, &m, FI_MULTI_RECV) == 0);
	shm_test_fill(big, MRO_BIG, 1);
	shm_test_fill(small, MRO_SMALL, 2);
	/* the big one leaves MRO_SMALL + MRO_MIN - 1 bytes: not released;
	 * the small one leaves MRO_MIN - 1: released */
	SHM_CHECK(CONF_RETRY(b.tcq, fi_send(b.ep, big, MRO_BIG, NULL, to_a,
					    NULL)) == 0);
	SHM_CHECK(CONF_RETRY(b.tcq, fi_send(b.ep, small, MRO_SMALL, NULL, to_a,
					    NULL)) == 0);
	while (seen < 2) {
		conf_wait(a.rcq, &e);
		SHM_CHECK(e.op_context == rbuf);
		seen++;
		/* the release is the buffer's last completion */
		SHM_CHECK(!!(e.flags & FI_MULTI_RECV) == (seen == 2));
		SHM_CHECK((uint8_t *)e.buf >= rbuf &&
			  (uint8_t *)e.buf + e.len <= rbuf + blen);
		if (e.len == MRO_BIG) {
			SHM_CHECK((uint8_t *)e.buf == rbuf);
			SHM_CHECK(shm_test_verify(e.buf, MRO_BIG, 1) == 0);
		} else {
			SHM_CHECK(e.len == MRO_SMALL);
			SHM_CHECK((uint8_t *)e.buf == rbuf + MRO_BIG);
			SHM_CHECK(shm_test_verify(e.buf, MRO_SMALL, 2) == 0);
		}
	}
	conf_none(a.rcq);
	cep_close(&a);
	cep_close(&b);
	free(rbuf);
	free(big);
}

/* ---- cancel ---- */

static void t_cancel(void)
{
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char buf[16], buf2[16];

	open2(&a, &b, NULL, NULL, NULL, &to_a);
	SHM_CHECK(fi_trecv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC, 9, 0,
			   buf) == 0);
	SHM_CHECK(fi_cancel(&a.ep->fid, buf) == 0);
	memset(&err, 0, sizeof(err));
	SHM_CHECK(conf_read(a.rcq, &e, 1, &err, NULL) == -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ECANCELED && err.op_context == buf);
	SHM_CHECK((err.flags & (FI_RECV | FI_TAGGED)) == (FI_RECV | FI_TAGGED));
	SHM_CHECK(fi_cancel(&a.ep->fid, buf) == -FI_ENOENT);
	SHM_CHECK(fi_tsend(b.ep, "t9", 3, NULL, to_a, 9, NULL) == 0);
	conf_none(a.rcq);
	SHM_CHECK(fi_trecv(a.ep, buf2, sizeof(buf2), NULL, FI_ADDR_UNSPEC, 9,
			   0, buf2) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(e.op_context == buf2 && !strcmp(buf2, "t9"));
	cep_close(&a);
	cep_close(&b);
}

static const struct conf_scenario scenarios[] = {
	{ "peek", t_peek }, { "source", t_source },
	{ "directed", t_directed }, { "ignore", t_ignore },
	{ "selective", t_selective }, { "cqdata", t_cqdata },
	{ "sendmsg", t_sendmsg }, { "limits", t_limits },
	{ "formats", t_formats }, { "mrorder", t_mrorder },
	{ "cancel", t_cancel }, { "matchcomp", t_matchcomp },
	{ "lateav", t_lateav },
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, scenarios,
			 sizeof(scenarios) / sizeof(scenarios[0]));
}
