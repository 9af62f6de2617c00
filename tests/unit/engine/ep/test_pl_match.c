/* SPDX-License-Identifier: BSD-2-Clause */
/* pl_match: one scenario per test (fi_msg(3), fi_tagged(3) semantics). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_match.h"

static char bufs[8][256];

struct fx {
	struct pl_match m;
	struct iovec iov[8];
};

static int fx_setup_n(void **state, size_t buckets)
{
	static struct fx f;
	struct pl_match_attr a = { .hash_buckets = buckets,
				   .min_multi_recv = 64 };
	size_t i;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < 8; i++) {
		f.iov[i].iov_base = bufs[i];
		f.iov[i].iov_len = sizeof(bufs[i]);
	}
	if (pl_match_init(&f.m, &a))
		return -1;
	*state = &f;
	return 0;
}

static int fx_setup(void **state) { return fx_setup_n(state, 0); }
static int fx_setup_linear(void **state) { return fx_setup_n(state, 1); }

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	pl_match_fini(&f->m);
	return 0;
}

static uintptr_t ctx_id(const struct pl_match_result *r)
{
	return (uintptr_t)r->rx->context;
}

static int post_t(struct fx *f, uintptr_t ctx, uint64_t tag, uint64_t ign,
		  fi_addr_t src, uint64_t flags, struct pl_match_result *r)
{
	struct pl_match_recv rv = { .iov = &f->iov[ctx % 8], .iov_count = 1,
		.src = src, .tag = tag, .ignore = ign,
		.context = (void *)ctx, .flags = flags };

	return pl_match_post(&f->m, PL_MATCH_TAGGED, &rv, r);
}

static int arrive_t(struct fx *f, uint64_t tag, fi_addr_t src, size_t size,
		    struct pl_match_result *r)
{
	struct pl_match_hdr h = { .src = src, .tag = tag, .size = size };

	return pl_match_arrive(&f->m, PL_MATCH_TAGGED, &h, r, NULL);
}

static void expect_match(struct fx *f, uint64_t tag, fi_addr_t src,
			 uintptr_t ctx)
{
	struct pl_match_result r;

	assert_int_equal(arrive_t(f, tag, src, 8, &r), PL_MATCH_MATCHED);
	assert_int_equal(ctx_id(&r), ctx);
	pl_match_done(&f->m, &r);
}

static void test_ordering(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	assert_int_equal(post_t(f, 1, 5, 0, FI_ADDR_UNSPEC, 0, &r), PL_MATCH_QUEUED);
	assert_int_equal(post_t(f, 2, 5, 0, FI_ADDR_UNSPEC, 0, &r), PL_MATCH_QUEUED);
	expect_match(f, 5, 0, 1);
	expect_match(f, 5, 0, 2);
	assert_int_equal(arrive_t(f, 5, 0, 8, &r), PL_MATCH_QUEUED);
}

static void test_wildcard_before_exact(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	post_t(f, 1, 0, ~0ull, FI_ADDR_UNSPEC, 0, &r);
	post_t(f, 2, 7, 0, FI_ADDR_UNSPEC, 0, &r);
	expect_match(f, 7, 0, 1);
	expect_match(f, 7, 0, 2);
}

static void test_exact_before_wildcard(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	post_t(f, 1, 7, 0, FI_ADDR_UNSPEC, 0, &r);
	post_t(f, 2, 0, ~0ull, FI_ADDR_UNSPEC, 0, &r);
	expect_match(f, 7, 0, 1);
	expect_match(f, 7, 0, 2);
}

static void test_ignore_bits(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	post_t(f, 1, 0x1200, 0xff, FI_ADDR_UNSPEC, 0, &r);
	assert_int_equal(arrive_t(f, 0x1300, 0, 8, &r), PL_MATCH_QUEUED);
	expect_match(f, 0x12ab, 0, 1);
}

static void test_directed_recv(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	post_t(f, 1, 9, 0, 3, 0, &r);
	post_t(f, 2, 9, 0, FI_ADDR_UNSPEC, 0, &r);
	expect_match(f, 9, 4, 2);
	expect_match(f, 9, 3, 1);
}

static void test_unexpected_then_posted(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_unexp *ux;
	struct pl_match_hdr h = { .src = 1, .tag = 11, .size = 4, .data = 99,
				  .flags = FI_REMOTE_CQ_DATA,
				  .inline_buf = "abcd", .inline_len = 4 };

	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_TAGGED, &h, &r, &ux),
			 PL_MATCH_QUEUED);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 1);
	assert_int_equal(post_t(f, 1, 12, 0, FI_ADDR_UNSPEC, 0, &r), PL_MATCH_QUEUED);
	assert_int_equal(post_t(f, 2, 11, 0, FI_ADDR_UNSPEC, 0, &r), PL_MATCH_MATCHED);
	assert_ptr_equal(r.ux, ux);
	assert_int_equal(r.ux->data, 99);
	assert_memory_equal(r.ux->inline_data, "abcd", 4);
	assert_int_equal(r.len, 4);
	assert_int_equal(r.olen, 0);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 0);
	assert_int_equal(pl_match_posted_count(&f->m, PL_MATCH_TAGGED), 1);
}

static void test_posted_then_arrival_msg(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_recv rv = { .iov = f->iov, .iov_count = 2,
		.src = FI_ADDR_UNSPEC, .context = (void *)7 };
	struct pl_match_hdr h = { .src = 0, .size = 300 };

	assert_int_equal(pl_match_post(&f->m, PL_MATCH_MSG, &rv, &r), PL_MATCH_QUEUED);
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL),
			 PL_MATCH_MATCHED);
	assert_int_equal(ctx_id(&r), 7);
	assert_int_equal(r.len, 300);
	assert_int_equal(r.rx->total, 512);
	pl_match_done(&f->m, &r);
}

static void test_peek_nomsg(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	assert_int_equal(post_t(f, 1, 3, 0, FI_ADDR_UNSPEC, FI_PEEK, &r), -FI_ENOMSG);
}

static void test_peek_leaves_message(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	arrive_t(f, 3, 0, 20, &r);
	assert_int_equal(post_t(f, 1, 3, 0, FI_ADDR_UNSPEC, FI_PEEK, &r), PL_MATCH_MATCHED);
	assert_int_equal(r.len, 20);
	assert_null(r.rx);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 1);
	assert_int_equal(post_t(f, 2, 3, 0, FI_ADDR_UNSPEC, 0, &r), PL_MATCH_MATCHED);
	pl_match_done(&f->m, &r);
}

static void test_peek_claim_then_claim(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	arrive_t(f, 3, 0, 20, &r);
	assert_int_equal(post_t(f, 1, 3, 0, FI_ADDR_UNSPEC, FI_PEEK | FI_CLAIM, &r),
			 PL_MATCH_MATCHED);
	pl_match_done(&f->m, &r);
	/* Claimed: invisible to ordinary receives and peeks. */
	assert_int_equal(post_t(f, 2, 3, 0, FI_ADDR_UNSPEC, FI_PEEK, &r), -FI_ENOMSG);
	assert_int_equal(post_t(f, 3, 3, 0, FI_ADDR_UNSPEC, FI_CLAIM, &r), -FI_ENOMSG);
	assert_int_equal(post_t(f, 1, 0, 0, FI_ADDR_UNSPEC, FI_CLAIM, &r), PL_MATCH_MATCHED);
	assert_int_equal(r.len, 20);
	assert_false(r.discard);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 0);
}

static void test_peek_discard(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	arrive_t(f, 3, 0, 20, &r);
	assert_int_equal(post_t(f, 1, 3, 0, FI_ADDR_UNSPEC, FI_PEEK | FI_DISCARD, &r),
			 PL_MATCH_MATCHED);
	assert_true(r.discard);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 0);
}

static void test_claim_discard(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	arrive_t(f, 3, 0, 20, &r);
	post_t(f, 1, 3, 0, FI_ADDR_UNSPEC, FI_PEEK | FI_CLAIM, &r);
	pl_match_done(&f->m, &r);
	assert_int_equal(post_t(f, 1, 0, 0, FI_ADDR_UNSPEC, FI_CLAIM | FI_DISCARD, &r),
			 PL_MATCH_MATCHED);
	assert_true(r.discard);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 0);
}

static void test_cancel(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_rx *rx;

	post_t(f, 1, 3, 0, FI_ADDR_UNSPEC, 0, &r);
	post_t(f, 2, 3, 0, FI_ADDR_UNSPEC, 0, &r);
	assert_int_equal(pl_match_cancel(&f->m, (void *)1, &rx), 0);
	assert_ptr_equal(rx->context, (void *)1);
	pl_match_rx_free(&f->m, rx);
	assert_int_equal(pl_match_cancel(&f->m, (void *)1, &rx), -FI_ENOENT);
	expect_match(f, 3, 0, 2);
}

static void test_multi_recv_threshold(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_recv rv = { .iov = f->iov, .iov_count = 1,
		.src = FI_ADDR_UNSPEC, .context = (void *)5,
		.flags = FI_MULTI_RECV };
	struct pl_match_hdr h = { .src = 0, .size = 100 };

	/* 256 bytes, min 64: 100 (156 left), 100 (56 left < 64: released). */
	assert_int_equal(pl_match_post(&f->m, PL_MATCH_MSG, &rv, &r), PL_MATCH_QUEUED);
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL), 1);
	assert_int_equal(r.offset, 0);
	assert_false(r.multi_last);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL), 1);
	assert_int_equal(r.offset, 100);
	assert_true(r.multi_last);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_posted_count(&f->m, PL_MATCH_MSG), 0);
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL), 0);
}

static void test_multi_recv_unexpected_pull(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_recv rv = { .iov = f->iov, .iov_count = 1,
		.src = FI_ADDR_UNSPEC, .context = (void *)5,
		.flags = FI_MULTI_RECV };
	struct pl_match_hdr h = { .src = 0, .size = 100 };
	struct pl_match_rx *rx;
	int i;

	for (i = 0; i < 3; i++)
		pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL);
	assert_int_equal(pl_match_post(&f->m, PL_MATCH_MSG, &rv, &r), 1);
	rx = r.rx;
	assert_false(r.multi_last);
	pl_match_done(&f->m, &r);
	/* 156 left: the second fits (56 left < 64: released); third waits. */
	assert_int_equal(pl_match_rx_pull(&f->m, rx, &r), 1);
	assert_int_equal(r.offset, 100);
	assert_true(r.multi_last);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_MSG), 1);
}

static void test_multi_recv_too_big(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_recv rv = { .iov = f->iov, .iov_count = 1,
		.src = FI_ADDR_UNSPEC, .flags = FI_MULTI_RECV };
	struct pl_match_hdr h = { .src = 0, .size = 180 };

	pl_match_post(&f->m, PL_MATCH_MSG, &rv, &r);
	pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL);
	pl_match_done(&f->m, &r);
	/* 76 left, 180 arrives: truncated into the rest, buffer released. */
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL), 1);
	assert_int_equal(r.len, 76);
	assert_int_equal(r.olen, 104);
	assert_true(r.multi_last);
	pl_match_done(&f->m, &r);
}

static void test_truncation(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	post_t(f, 1, 3, 0, FI_ADDR_UNSPEC, 0, &r);
	assert_int_equal(arrive_t(f, 3, 0, 1000, &r), PL_MATCH_MATCHED);
	assert_int_equal(r.len, 256);
	assert_int_equal(r.olen, 744);
	pl_match_done(&f->m, &r);
}

static void test_many_entries(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	const uint64_t n = 100000;
	uint64_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(post_t(f, i + 1, i, 0, FI_ADDR_UNSPEC, 0, &r),
				 PL_MATCH_QUEUED);
	post_t(f, n + 1, 0, ~0ull, FI_ADDR_UNSPEC, 0, &r);
	/* In posting order: linear mode finds each at the head, too. */
	for (i = 0; i < n; i++)
		expect_match(f, i, 0, i + 1);
	expect_match(f, 12345, 0, n + 1);
	for (i = 0; i < n; i++)
		assert_int_equal(arrive_t(f, i, 0, 1, &r), PL_MATCH_QUEUED);
	for (i = 0; i < n; i++) {
		assert_int_equal(post_t(f, 1, i, 0, FI_ADDR_UNSPEC, 0, &r),
				 PL_MATCH_MATCHED);
		assert_int_equal(r.ux->tag, i);
		pl_match_done(&f->m, &r);
	}
	assert_int_equal(pl_match_posted_count(&f->m, PL_MATCH_TAGGED), 0);
}

static void test_wildcard_between_exacts(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	post_t(f, 1, 7, 0, FI_ADDR_UNSPEC, 0, &r);
	post_t(f, 2, 0, ~0ull, 2, 0, &r);
	post_t(f, 3, 7, 0, FI_ADDR_UNSPEC, 0, &r);
	expect_match(f, 7, 2, 1);
	expect_match(f, 7, 1, 3);	/* wildcard is directed at src 2 */
	expect_match(f, 7, 2, 2);
}

static void test_directed_msg(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_recv rv = { .iov = f->iov, .iov_count = 1, .src = 4,
				    .context = (void *)1 };
	struct pl_match_hdr h = { .src = 5, .size = 1 };

	pl_match_post(&f->m, PL_MATCH_MSG, &rv, &r);
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL),
			 PL_MATCH_QUEUED);
	h.src = 4;
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL),
			 PL_MATCH_MATCHED);
	pl_match_done(&f->m, &r);
	/* The queued message from 5 is not for a receive directed at 4. */
	assert_int_equal(pl_match_post(&f->m, PL_MATCH_MSG, &rv, &r),
			 PL_MATCH_QUEUED);
}

static void test_unexpected_limit(void **state)
{
	struct pl_match m;
	struct pl_match_attr a = { .max_unexp = 2 };
	struct pl_match_hdr h = { .src = 0, .size = 1 };
	struct pl_match_result r;
	int i, ret = 0;

	(void)state;
	assert_int_equal(pl_match_init(&m, &a), 0);
	for (i = 0; i < 100000 && ret == 0; i++)
		ret = pl_match_arrive(&m, PL_MATCH_MSG, &h, &r, NULL);
	assert_int_equal(ret, -FI_ENOMEM);
	assert_true(pl_match_unexp_count(&m, PL_MATCH_MSG) >= 2);
	pl_match_fini(&m);
}

static void test_unexpected_exact_and_wild(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;

	arrive_t(f, 5, 1, 1, &r);
	arrive_t(f, 6, 1, 2, &r);
	arrive_t(f, 5, 2, 3, &r);
	assert_int_equal(post_t(f, 1, 5, 0, 2, 0, &r), PL_MATCH_MATCHED);
	assert_int_equal(r.ux->size, 3);
	pl_match_done(&f->m, &r);
	assert_int_equal(post_t(f, 2, 0, ~0ull, FI_ADDR_UNSPEC, 0, &r),
			 PL_MATCH_MATCHED);
	assert_int_equal(r.ux->size, 1);
	pl_match_done(&f->m, &r);
	assert_int_equal(post_t(f, 3, 5, 0, FI_ADDR_UNSPEC, 0, &r), PL_MATCH_QUEUED);
	assert_int_equal(post_t(f, 4, 6, 0, FI_ADDR_UNSPEC, 0, &r), PL_MATCH_MATCHED);
	assert_int_equal(r.ux->size, 2);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 0);
}

/* take finds what arrive would, and on a miss leaves no trace: the
 * message is not queued, so a receive posted later does not find it */
static void test_take_matches_or_changes_nothing(void **state)
{
	struct fx *f = *state;
	struct pl_match_hdr h = { .src = 1, .tag = 9, .size = 300 };
	struct pl_match_result r;

	assert_int_equal(pl_match_take(&f->m, PL_MATCH_TAGGED, &h, &r),
			 -FI_ENOMSG);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 0);
	assert_int_equal(post_t(f, 1, 9, 0, FI_ADDR_UNSPEC, 0, &r),
			 PL_MATCH_QUEUED);
	assert_int_equal(post_t(f, 2, 9, 0, FI_ADDR_UNSPEC, 0, &r),
			 PL_MATCH_QUEUED);
	/* the oldest fitting receive, as arrive picks it, with the
	 * truncation worked out (256-byte buffers) */
	memset(&r, 0x01, sizeof(r));	/* true in every bool */
	assert_int_equal(pl_match_take(&f->m, PL_MATCH_TAGGED, &h, &r),
			 PL_MATCH_MATCHED);
	assert_int_equal(ctx_id(&r), 1);
	assert_null(r.ux);
	assert_false(r.discard);
	assert_false(r.multi_last);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.len, 256);
	assert_int_equal(r.olen, 44);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_posted_count(&f->m, PL_MATCH_TAGGED), 1);
	/* another tag: the remaining receive is not taken */
	h.tag = 10;
	assert_int_equal(pl_match_take(&f->m, PL_MATCH_TAGGED, &h, &r),
			 -FI_ENOMSG);
	assert_int_equal(pl_match_posted_count(&f->m, PL_MATCH_TAGGED), 1);
}

/* After a take that found nothing, queue_unexp queues the message with
 * its provider handle, in arrival order with the ones arrive queues */
static void test_queue_unexp_after_take(void **state)
{
	struct fx *f = *state;
	struct pl_match_hdr h = { .src = 1, .tag = 4, .size = 8,
				  .prov = (void *)0x11 };
	struct pl_match_unexp *ux = NULL;
	struct pl_match_result r;

	assert_int_equal(pl_match_take(&f->m, PL_MATCH_TAGGED, &h, &r),
			 -FI_ENOMSG);
	assert_int_equal(pl_match_queue_unexp(&f->m, PL_MATCH_TAGGED, &h, &ux),
			 PL_MATCH_QUEUED);
	assert_non_null(ux);
	assert_ptr_equal(ux->prov, (void *)0x11);
	h.prov = (void *)0x22;
	assert_int_equal(arrive_t(f, 4, 1, 16, &r), PL_MATCH_QUEUED);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 2);
	assert_int_equal(post_t(f, 1, 4, 0, FI_ADDR_UNSPEC, 0, &r),
			 PL_MATCH_MATCHED);
	assert_ptr_equal(r.ux, ux);
	assert_int_equal(r.ux->size, 8);
	pl_match_done(&f->m, &r);
	assert_int_equal(post_t(f, 2, 4, 0, FI_ADDR_UNSPEC, 0, &r),
			 PL_MATCH_MATCHED);
	assert_int_equal(r.ux->size, 16);
	pl_match_done(&f->m, &r);
	assert_int_equal(pl_match_unexp_count(&f->m, PL_MATCH_TAGGED), 0);
}

/* the provider's lookup: tag 1's sender is now known as 9, tag 2's
 * still is not */
static fi_addr_t resolve_by_tag(void *arg, const struct pl_match_unexp *ux)
{
	(void)arg;
	return ux->tag == 1 ? 9 : FI_ADDR_NOTAVAIL;
}

/* Unexpected messages queued without a sender address take the one the
 * provider resolves later, and then match receives directed at it. */
static void test_unexp_resolve_late_source(void **state)
{
	struct fx *f = *state;
	struct pl_match_result r;
	struct pl_match_hdr h = { .src = FI_ADDR_NOTAVAIL, .size = 8 };

	assert_int_equal(arrive_t(f, 1, FI_ADDR_NOTAVAIL, 8, &r),
			 PL_MATCH_QUEUED);
	assert_int_equal(arrive_t(f, 2, FI_ADDR_NOTAVAIL, 8, &r),
			 PL_MATCH_QUEUED);
	assert_int_equal(pl_match_arrive(&f->m, PL_MATCH_MSG, &h, &r, NULL),
			 PL_MATCH_QUEUED);
	assert_int_equal(post_t(f, 1, 1, 0, 9, 0, &r), PL_MATCH_QUEUED);
	pl_match_cancel(&f->m, (void *)1, &r.rx);
	pl_match_rx_free(&f->m, r.rx);
	/* tag 2 and the untagged one stay without a source */
	assert_int_equal(pl_match_unexp_resolve(&f->m, resolve_by_tag, NULL),
			 2);
	assert_int_equal(post_t(f, 1, 1, 0, 9, 0, &r), PL_MATCH_MATCHED);
	assert_int_equal(r.ux->src, 9);
	pl_match_done(&f->m, &r);
	assert_int_equal(post_t(f, 2, 2, 0, 9, 0, &r), PL_MATCH_QUEUED);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown), \
	cmocka_unit_test_setup_teardown(fn, fx_setup_linear, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ordering), T(test_wildcard_before_exact),
		T(test_exact_before_wildcard), T(test_ignore_bits),
		T(test_directed_recv), T(test_unexpected_then_posted),
		T(test_posted_then_arrival_msg), T(test_peek_nomsg),
		T(test_peek_leaves_message), T(test_peek_claim_then_claim),
		T(test_peek_discard), T(test_claim_discard), T(test_cancel),
		T(test_multi_recv_threshold),
		T(test_multi_recv_unexpected_pull),
		T(test_multi_recv_too_big), T(test_truncation),
		T(test_many_entries), T(test_wildcard_between_exacts),
		T(test_directed_msg), T(test_unexpected_exact_and_wild),
		T(test_take_matches_or_changes_nothing),
		T(test_queue_unexp_after_take),
		T(test_unexp_resolve_late_source),
		cmocka_unit_test(test_unexpected_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
