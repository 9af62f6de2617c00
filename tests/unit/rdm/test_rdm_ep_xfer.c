/* SPDX-License-Identifier: BSD-2-Clause */
/* The RDM endpoint core's data path over a loopback transport
 * (rdm_ep_test.h): expected and unexpected receives, truncation,
 * deliveries that finish later, multi-recv ordering, PEEK / CLAIM /
 * DISCARD, cancel, remote CQ data and FI_SOURCE. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <rdma/fi_tagged.h>

#include "rdm_ep_test.h"

static void test_tagged_expected(void **state)
{
	struct fi_cq_tagged_entry c;
	char out[8] = "hello", in[8] = { 0 };
	struct env e;
	int ctx_rx, ctx_tx;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_TAGGED | FI_MSG, 4);
	assert_int_equal(fi_trecv(env_fid(&e), in, sizeof(in), NULL,
				  FI_ADDR_UNSPEC, 7, 0, &ctx_rx), 0);
	assert_int_equal(fi_tsend(env_fid(&e), out, 6, NULL, e.self, 7,
				  &ctx_tx), 0);
	/* the send completed on the spot (the transport answered 0) */
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx_tx);
	assert_int_equal(c.flags, FI_SEND | FI_TAGGED);
	env_cq_empty(&e);
	assert_int_equal(env_poll(&e), 1);
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx_rx);
	assert_int_equal(c.flags, FI_RECV | FI_TAGGED);
	assert_int_equal(c.len, 6);
	assert_int_equal(c.tag, 7);
	assert_ptr_equal(c.buf, in);
	assert_string_equal(in, "hello");
	assert_int_equal(fi_cntr_read(e.rx_cntr), 1);
	env_close(&e);
}

static void test_unexpected_then_posted(void **state)
{
	struct fi_cq_tagged_entry c;
	char out[8] = "early", in[8] = { 0 };
	struct env e;
	int ctx;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_TAGGED | FI_MSG, 4);
	assert_int_equal(fi_tinject(env_fid(&e), out, 6, e.self, 3), 0);
	assert_int_equal(env_poll(&e), 1);
	env_cq_empty(&e);	/* an inject writes nothing; nothing posted */
	/* a receive for another tag does not take it */
	assert_int_equal(fi_trecv(env_fid(&e), in, sizeof(in), NULL,
				  FI_ADDR_UNSPEC, 4, 0, &ctx), 0);
	env_cq_empty(&e);
	assert_int_equal(rdm_ep_rx_cancel(&env_fid(&e)->fid, &ctx), 0);
	{
		struct fi_cq_err_entry err;

		env_cq_err(&e, &err);
		assert_int_equal(err.err, FI_ECANCELED);
	}
	assert_int_equal(fi_trecv(env_fid(&e), in, sizeof(in), NULL,
				  FI_ADDR_UNSPEC, 3, 0, &ctx), 0);
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx);
	assert_int_equal(c.len, 6);
	assert_string_equal(in, "early");
	env_close(&e);
}

static void test_truncation(void **state)
{
	struct fi_cq_err_entry err;
	char out[16] = "0123456789", in[4];
	struct env e;
	int ctx;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	assert_int_equal(fi_recv(env_fid(&e), in, sizeof(in), NULL,
				 FI_ADDR_UNSPEC, &ctx), 0);
	assert_int_equal(fi_inject(env_fid(&e), out, 10, e.self), 0);
	env_poll(&e);
	env_cq_err(&e, &err);
	assert_ptr_equal(err.op_context, &ctx);
	assert_int_equal(err.err, FI_ETRUNC);
	assert_int_equal(err.len, 4);
	assert_int_equal(err.olen, 6);
	assert_memory_equal(in, "0123", 4);
	env_close(&e);
}

/* A delivery that finishes later completes at rx_done, with its record
 * kept by the core; a delivery-complete send completes then too. */
static void test_later_delivery(void **state)
{
	struct fi_cq_tagged_entry c;
	static char out[200], in[256];
	struct env e;
	int ctx_rx, ctx_tx;

	(void)state;
	memset(out, 'x', sizeof(out));
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	assert_int_equal(fi_recv(env_fid(&e), in, sizeof(in), NULL,
				 FI_ADDR_UNSPEC, &ctx_rx), 0);
	{
		struct iovec iov = { out, sizeof(out) };
		struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
				      .addr = e.self, .context = &ctx_tx };

		assert_int_equal(fi_sendmsg(env_fid(&e), &msg,
					    FI_DELIVERY_COMPLETE |
					    FI_COMPLETION), 0);
	}
	env_cq_empty(&e);
	assert_int_equal(rdm_ep_tx_size_left(env_fid(&e)), 3);
	env_poll(&e);		/* arrives, placement in progress */
	env_cq_empty(&e);
	env_poll(&e);		/* finishes */
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx_rx);
	assert_int_equal(c.len, sizeof(out));
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx_tx);
	assert_int_equal(rdm_ep_tx_size_left(env_fid(&e)), 4);
	assert_memory_equal(in, out, sizeof(out));
	env_close(&e);
}

/* FI_MULTI_RECV: the release flag comes on the buffer's last
 * completion, even when an earlier placement finishes after it. */
static void test_multi_recv_last(void **state)
{
	struct fi_cq_tagged_entry c[3];
	static char buf[256], big[100], small[40];
	struct env e;
	int ctx, i;
	size_t min = 120;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG | FI_MULTI_RECV, 4);
	assert_int_equal(rdm_ep_setopt(&e.ep->rdm, FI_OPT_ENDPOINT,
				       FI_OPT_MIN_MULTI_RECV, &min,
				       sizeof(min)), 0);
	{
		struct iovec iov = { buf, sizeof(buf) };
		struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
				      .addr = FI_ADDR_UNSPEC, .context = &ctx };

		assert_int_equal(fi_recvmsg(env_fid(&e), &msg,
					    FI_MULTI_RECV), 0);
	}
	/* 100 bytes (later), then 40 (now): 116 left < min releases */
	assert_int_equal(fi_inject(env_fid(&e), small, 0, e.self), 0);
	assert_int_equal(fi_send(env_fid(&e), big, sizeof(big), NULL, e.self,
				 NULL), 0);
	assert_int_equal(fi_send(env_fid(&e), small, sizeof(small), NULL,
				 e.self, NULL), 0);
	for (i = 0; i < 2; i++) {	/* the sends of big and small */
		env_cq_next(&e, &c[0]);
		assert_int_equal(c[0].flags, FI_SEND | FI_MSG);
	}
	/* the empty message completes at once; big moves; small releases
	 * the buffer but completes before big finishes */
	assert_int_equal(env_poll(&e), 3);
	for (i = 0; i < 2; i++)
		env_cq_next(&e, &c[i]);
	env_cq_empty(&e);
	assert_int_equal(c[0].len, 0);
	assert_int_equal(c[1].len, sizeof(small));
	assert_false(c[0].flags & FI_MULTI_RECV);
	assert_false(c[1].flags & FI_MULTI_RECV);
	env_poll(&e);
	env_cq_next(&e, &c[2]);
	assert_int_equal(c[2].len, sizeof(big));
	assert_true(c[2].flags & FI_MULTI_RECV);
	assert_ptr_equal(c[2].op_context, &ctx);
	env_close(&e);
}

static void test_peek_claim_discard(void **state)
{
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	char out[8] = "peekme", in[8] = { 0 };
	struct iovec iov = { in, sizeof(in) };
	struct fi_msg_tagged msg = { .msg_iov = &iov, .iov_count = 1,
				     .addr = FI_ADDR_UNSPEC, .tag = 9 };
	struct env e;
	int ctx_peek, ctx_other;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_TAGGED, 4);
	/* nothing there: FI_ENOMSG */
	msg.context = &ctx_peek;
	assert_int_equal(fi_trecvmsg(env_fid(&e), &msg, FI_PEEK), 0);
	env_cq_err(&e, &err);
	assert_int_equal(err.err, FI_ENOMSG);
	assert_int_equal(fi_tinject(env_fid(&e), out, 7, e.self, 9), 0);
	assert_int_equal(fi_tinject(env_fid(&e), out, 3, e.self, 9), 0);
	env_poll(&e);
	/* peek and claim the first: the header, no data, no counter */
	assert_int_equal(fi_trecvmsg(env_fid(&e), &msg, FI_PEEK | FI_CLAIM),
			 0);
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx_peek);
	assert_int_equal(c.len, 7);
	assert_int_equal(in[0], 0);
	assert_int_equal(fi_cntr_read(e.rx_cntr), 0);
	/* another receive takes the second message, not the claimed one */
	msg.context = &ctx_other;
	assert_int_equal(fi_trecvmsg(env_fid(&e), &msg, 0), 0);
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx_other);
	assert_int_equal(c.len, 3);
	/* the claim with discard drops the first */
	msg.context = &ctx_peek;
	assert_int_equal(fi_trecvmsg(env_fid(&e), &msg, FI_CLAIM | FI_DISCARD),
			 0);
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx_peek);
	assert_int_equal(c.len, 0);
	assert_int_equal(e.ep->discards, 1);
	env_cq_empty(&e);
	env_close(&e);
}

static void test_cq_data_and_source(void **state)
{
	struct fi_cq_tagged_entry c;
	fi_addr_t src = 0;
	char in[8];
	struct env e;
	int ctx;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG | FI_SOURCE | FI_DIRECTED_RECV, 4);
	assert_int_equal(fi_recv(env_fid(&e), in, sizeof(in), NULL, e.self,
				 &ctx), 0);
	assert_int_equal(fi_injectdata(env_fid(&e), "ab", 2, 0x55, e.self), 0);
	env_poll(&e);
	assert_int_equal(fi_cq_readfrom(e.cq, &c, 1, &src), 1);
	assert_true(c.flags & FI_REMOTE_CQ_DATA);
	assert_int_equal(c.data, 0x55);
	assert_int_equal(src, e.self);
	env_close(&e);
}

/* A held unexpected message goes back to the transport at close. */
static void test_close_discards_unexpected(void **state)
{
	struct env e;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	assert_int_equal(fi_inject(env_fid(&e), "x", 1, e.self), 0);
	env_poll(&e);
	rdm_ep_close_rx(&e.ep->rdm);
	assert_int_equal(e.ep->discards, 1);
	env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tagged_expected),
		cmocka_unit_test(test_unexpected_then_posted),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_later_delivery),
		cmocka_unit_test(test_multi_recv_last),
		cmocka_unit_test(test_peek_claim_discard),
		cmocka_unit_test(test_cq_data_and_source),
		cmocka_unit_test(test_close_discards_unexpected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
