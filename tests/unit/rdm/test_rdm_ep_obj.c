/* SPDX-License-Identifier: BSD-2-Clause */
/* The RDM endpoint core's object over a loopback transport
 * (rdm_ep_test.h): the locking strategy chosen at open, argument checks,
 * fi_tx_size_left / fi_rx_size_left, aliases and op flags, the per-peer
 * cache keyed by AV slot and generation, the progress source's idle
 * shortcut. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rdm_ep_test.h"

static void test_lock_strategy(void **state)
{
	struct env e;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	assert_true(e.ep->rdm.locking);
	assert_null(e.ep->rdm.asym);
	env_close(&e);
	/* the application serializes the domain, manual progress: none */
	env_open(&e, FI_THREAD_DOMAIN, FI_MSG, 4);
	assert_false(e.ep->rdm.locking);
	assert_null(e.ep->rdm.asym);
	env_close(&e);
}

static void test_bad_arguments(void **state)
{
	struct iovec iov[5] = { { NULL, 0 } };
	char big[32] = { 0 };
	struct env e;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG | FI_TAGGED, 4);
	assert_int_equal(fi_sendv(env_fid(&e), iov, NULL, 5, e.self, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_inject(env_fid(&e), big, sizeof(big), e.self),
			 -FI_EINVAL);
	assert_int_equal(fi_recvv(env_fid(&e), NULL, NULL, 1, FI_ADDR_UNSPEC,
				  NULL), -FI_EINVAL);
	/* multi-recv is for one untagged buffer */
	{
		struct fi_msg_tagged tm = { .msg_iov = iov, .iov_count = 1 };

		assert_int_equal(fi_trecvmsg(env_fid(&e), &tm, FI_MULTI_RECV),
				 -FI_EINVAL);
	}
	assert_int_equal(fi_sendmsg(env_fid(&e), NULL, 0), -FI_EINVAL);
	/* an address the AV never gave */
	assert_int_equal(fi_send(env_fid(&e), big, 1, NULL, 12345, NULL),
			 -FI_EADDRNOTAVAIL);
	assert_int_equal(e.ep->peer_opens, 0);
	env_close(&e);
}

static void test_not_ready(void **state)
{
	struct env e;
	char b[4];

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	e.ep->rdm.ready = false;
	assert_int_equal(fi_send(env_fid(&e), b, 1, NULL, e.self, NULL),
			 -FI_EOPBADSTATE);
	assert_int_equal(fi_recv(env_fid(&e), b, 1, NULL, FI_ADDR_UNSPEC,
				 NULL), -FI_EOPBADSTATE);
	assert_int_equal(rdm_ep_tx_size_left(env_fid(&e)), -FI_EOPBADSTATE);
	assert_int_equal(rdm_ep_rx_size_left(env_fid(&e)), -FI_EOPBADSTATE);
	assert_int_equal(env_poll(&e), 0);
	e.ep->rdm.ready = true;
	env_close(&e);
}

/* Every tx entry in use: -FI_EAGAIN after one pass of our own, which
 * here frees none (delivery-complete sends wait for their receives). */
static void test_tx_entries_run_out(void **state)
{
	struct iovec iov = { "z", 1 };
	struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1 };
	struct env e;
	char in[4];
	int i;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 2);
	msg.addr = e.self;
	for (i = 0; i < 2; i++)
		assert_int_equal(fi_sendmsg(env_fid(&e), &msg,
					    FI_DELIVERY_COMPLETE), 0);
	assert_int_equal(rdm_ep_tx_size_left(env_fid(&e)), 0);
	assert_int_equal(fi_sendmsg(env_fid(&e), &msg, FI_DELIVERY_COMPLETE),
			 -FI_EAGAIN);
	assert_int_equal(rdm_ep_rx_size_left(env_fid(&e)), 8);
	/* the receives take the queued messages: the sends complete */
	for (i = 0; i < 2; i++)
		assert_int_equal(fi_recv(env_fid(&e), in, sizeof(in), NULL,
					 FI_ADDR_UNSPEC, NULL), 0);
	assert_int_equal(rdm_ep_tx_size_left(env_fid(&e)), 2);
	env_close(&e);
}

/* A transport error is the call's; its tx entry comes back. */
static void test_send_error_returns_entry(void **state)
{
	struct env e;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 2);
	e.ep->fail_send = -FI_ECONNREFUSED;
	assert_int_equal(fi_send(env_fid(&e), "a", 1, NULL, e.self, NULL),
			 -FI_ECONNREFUSED);
	assert_int_equal(rdm_ep_tx_size_left(env_fid(&e)), 2);
	env_close(&e);
}

static void test_alias_flags(void **state)
{
	struct fid *alias_fid = NULL;
	struct fi_alias alias = { .fid = &alias_fid,
				  .flags = FI_TRANSMIT | FI_COMPLETION };
	struct fi_cq_tagged_entry c;
	uint64_t flags;
	struct env e;
	char in[4];
	int ctx;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	/* both directions at once, or neither: refused */
	{
		struct fi_alias bad = { .fid = &alias_fid,
					.flags = FI_TRANSMIT | FI_RECV };

		assert_int_equal(rdm_ep_control(&e.ep->rdm, FI_ALIAS, &bad),
				 -FI_EINVAL);
	}
	assert_int_equal(rdm_ep_control(&e.ep->rdm, FI_ALIAS, &alias), 0);
	assert_non_null(alias_fid);
	assert_int_equal(e.ep->rdm.naliases, 1);
	flags = FI_TRANSMIT;
	assert_int_equal(fi_control(alias_fid, FI_GETOPSFLAG, &flags), 0);
	assert_int_equal(flags, FI_COMPLETION);
	/* the alias's data calls reach the endpoint */
	assert_int_equal(fi_recv(env_fid(&e), in, sizeof(in), NULL,
				 FI_ADDR_UNSPEC, &ctx), 0);
	assert_int_equal(fi_send((struct fid_ep *)alias_fid, "q", 1, NULL,
				 e.self, NULL), 0);
	env_poll(&e);
	env_cq_next(&e, &c);
	assert_int_equal(c.flags, FI_SEND | FI_MSG);
	env_cq_next(&e, &c);
	assert_ptr_equal(c.op_context, &ctx);
	assert_int_equal(fi_close(alias_fid), 0);
	assert_int_equal(e.ep->rdm.naliases, 0);
	env_close(&e);
}

/* One handle per AV slot; a slot reused for another address (a new
 * generation) opens a new one, and the old one closes only at fini. */
static void test_peer_cache(void **state)
{
	static const char other[LOOP_ADDRLEN] = "loop1";
	fi_addr_t fa;
	struct env e;

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	assert_int_equal(fi_inject(env_fid(&e), "a", 1, e.self), 0);
	assert_int_equal(fi_inject(env_fid(&e), "b", 1, e.self), 0);
	assert_int_equal(e.ep->peer_opens, 1);
	assert_int_equal(rdm_ep_peer_slot(e.self),
			 pl_av_table_handle_idx(e.self));
	assert_int_equal(fi_av_remove(e.av, &e.self, 1, 0), 0);
	/* the removed address is refused, the handle stays */
	assert_true(fi_inject(env_fid(&e), "c", 1, e.self) < 0);
	assert_int_equal(fi_av_insert(e.av, other, 1, &fa, 0, NULL), 1);
	assert_int_equal(rdm_ep_peer_slot(fa), rdm_ep_peer_slot(e.self));
	assert_int_not_equal(fa, e.self);
	assert_int_equal(fi_inject(env_fid(&e), "d", 1, fa), 0);
	assert_int_equal(e.ep->peer_opens, 2);
	assert_int_equal(e.ep->peer_closes, 0);
	e.self = fa;
	env_close(&e);
}

/* A locking endpoint's source skips the trylock while nothing can have
 * changed (dirty 0, queue empty), and sees a send made since. */
static void test_progress_idle_shortcut(void **state)
{
	struct env e;
	char in[4];

	(void)state;
	env_open(&e, FI_THREAD_SAFE, FI_MSG, 4);
	assert_int_equal(env_poll(&e), 0);
	assert_int_equal(pl_load_relaxed(&e.ep->rdm.dirty), 0);
	/* held by an application call: the pass reports nothing, arm
	 * refuses to sleep */
	rdm_ep_lock(&e.ep->rdm);
	assert_int_equal(rdm_ep_progress_arm(&e.ep->src.src), -FI_EAGAIN);
	rdm_ep_unlock(&e.ep->rdm);
	assert_int_equal(pl_load_relaxed(&e.ep->rdm.dirty), 1);
	assert_int_equal(fi_recv(env_fid(&e), in, sizeof(in), NULL,
				 FI_ADDR_UNSPEC, NULL), 0);
	assert_int_equal(fi_inject(env_fid(&e), "a", 1, e.self), 0);
	assert_int_equal(env_poll(&e), 1);
	assert_int_equal(rdm_ep_progress_arm(&e.ep->src.src), 0);
	env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_strategy),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_not_ready),
		cmocka_unit_test(test_tx_entries_run_out),
		cmocka_unit_test(test_send_error_returns_entry),
		cmocka_unit_test(test_alias_flags),
		cmocka_unit_test(test_peer_cache),
		cmocka_unit_test(test_progress_idle_shortcut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
