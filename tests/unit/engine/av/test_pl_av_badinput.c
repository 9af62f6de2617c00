/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bad input to a private AV that test_pl_av.c does not already cover,
 * with the semantics fi_av(3) gives: invalid flags on every call that
 * takes flags, handles with stray bits (receive-context bits on an AV
 * without rx_ctx_bits, generation bits of a slot never reused, the
 * reserved FI_ADDR_NOTAVAIL), removed handles through every entry point,
 * and the size queries of lookup and straddr.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pl_av_test_util.h"
#include "pl_av_int.h"

static struct fid_av *open_av(int rx_ctx_bits)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE,
				   .rx_ctx_bits = rx_ctx_bits };
	struct fid_av *av = NULL;

	assert_int_equal(pl_av_open(NULL, &attr, sizeof(struct test_addr),
				    &test_ops, &av, NULL), 0);
	return av;
}

static int resolve(struct fid_av *av, fi_addr_t fa)
{
	struct pl_av_peer peer;
	int ret;

	pl_rcu_read_lock();
	ret = pl_av_lookup_peer(av, fa, &peer);
	pl_rcu_read_unlock();
	return ret;
}

static void test_insertsvc_and_insertsym_check_flags(void **state)
{
	struct fid_av *av = open_av(0);
	fi_addr_t fa[4];
	int err[4];

	assert_int_equal(fi_av_insertsvc(av, "10.0.0.1", "80", fa, 1ULL << 40,
					 NULL), -FI_EBADFLAGS);
	assert_int_equal(fi_av_insertsym(av, "10.0.0.1", 2, "80", 2, fa,
					 1ULL << 40, NULL), -FI_EBADFLAGS);
	/* FI_SYNC_ERR needs its array (the context). */
	assert_int_equal(fi_av_insertsvc(av, "10.0.0.1", "80", fa,
					 FI_SYNC_ERR, NULL), -FI_EINVAL);
	/* Neither inserted anything. */
	assert_int_equal(resolve(av, 0), -FI_EADDRNOTAVAIL);
	/* And the good path with FI_SYNC_ERR: one unresolvable node. */
	assert_int_equal(fi_av_insertsym(av, "bad-name", 1, "80", 1, fa,
					 FI_SYNC_ERR, err), 0);
	assert_int_equal(err[0], FI_EINVAL);
	assert_int_equal(fa[0], FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_handles_with_stray_bits_are_unknown(void **state)
{
	struct fid_av *av = open_av(0);
	struct test_addr a = test_addr_make(1, 1), out;
	size_t len = sizeof(out);
	fi_addr_t fa, bad;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	/* Receive-context bits on an AV opened without rx_ctx_bits. */
	bad = fa | (1ULL << 63);
	assert_int_equal(resolve(av, bad), -FI_EADDRNOTAVAIL);
	assert_int_equal(fi_av_lookup(av, bad, &out, &len), -FI_ENODATA);
	assert_int_equal(fi_av_remove(av, &bad, 1, 0), -FI_EINVAL);
	/* A generation the slot never had. */
	bad = pl_av_table_handle(pl_av_table_handle_idx(fa), 3);
	assert_int_equal(resolve(av, bad), -FI_EADDRNOTAVAIL);
	assert_int_equal(fi_av_remove(av, &bad, 1, 0), -FI_EINVAL);
	/* The reserved value, and an index far past the table. */
	assert_int_equal(resolve(av, FI_ADDR_NOTAVAIL), -FI_EADDRNOTAVAIL);
	assert_int_equal(resolve(av, 0xfffffffeULL), -FI_EADDRNOTAVAIL);
	bad = FI_ADDR_NOTAVAIL;
	assert_int_equal(fi_av_remove(av, &bad, 1, 0), -FI_EINVAL);
	/* None of that disturbed the real entry. */
	assert_int_equal(resolve(av, fa), 0);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_rx_bits_beyond_the_handle_are_stripped_not_aliased(void **state)
{
	struct fid_av *av = open_av(4);
	struct test_addr a = test_addr_make(1, 1);
	struct pl_av_peer peer;
	fi_addr_t fa;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	pl_rcu_read_lock();
	assert_int_equal(pl_av_lookup_peer(av, fi_rx_addr(fa, 15, 4), &peer),
			 0);
	assert_int_equal(peer.rx_index, 15);
	assert_int_equal(peer.fi_addr, fa);
	/* A bit between the rx field and the generation: not a handle. */
	assert_int_equal(pl_av_lookup_peer(av, fa | (1ULL << 56), &peer),
			 -FI_EADDRNOTAVAIL);
	pl_rcu_read_unlock();
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_removed_handle_fails_through_every_entry_point(void **state)
{
	struct fid_av *av = open_av(0);
	struct test_addr a = test_addr_make(9, 9), out;
	size_t len = sizeof(out);
	fi_addr_t fa, got;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	assert_int_equal(resolve(av, fa), -FI_EADDRNOTAVAIL);
	assert_int_equal(fi_av_lookup(av, fa, &out, &len), -FI_ENODATA);
	assert_int_equal(len, sizeof(out));	/* untouched on error */
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), -FI_EINVAL);
	pl_rcu_read_lock();
	assert_int_equal(pl_av_reverse_lookup(av, &a, &got, NULL),
			 -FI_ENODATA);
	pl_rcu_read_unlock();
	assert_int_equal(fi_close(&av->fid), 0);
}

/* Size queries: a zero length reports the needed length and writes
 * nothing; lookup needs no buffer for it. */
static void test_size_queries_write_nothing(void **state)
{
	struct fid_av *av = open_av(0);
	struct test_addr a = test_addr_make(12, 34);
	char buf[8];
	size_t len = 0;
	fi_addr_t fa;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	memset(buf, 'x', sizeof(buf));
	fi_av_straddr(av, &a, buf, &len);
	assert_int_equal(len, strlen("test://12:34") + 1);
	assert_int_equal(buf[0], 'x');
	len = 1;	/* room for the NUL only */
	assert_ptr_equal(fi_av_straddr(av, &a, buf, &len), buf);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(len, strlen("test://12:34") + 1);
	len = 0;
	assert_int_equal(fi_av_lookup(av, fa, NULL, &len), 0);
	assert_int_equal(len, sizeof(a));
	assert_int_equal(fi_close(&av->fid), 0);
}

/* fi_close(3) on an AV an endpoint still uses: -FI_EBUSY, the AV stays
 * whole and usable, and the close succeeds once the endpoint lets go. */
static void test_close_while_in_use_leaves_the_av_usable(void **state)
{
	struct fid_av *av = open_av(0);
	struct test_addr a = test_addr_make(5, 5);
	fi_addr_t fa;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	pl_av_ref(av);
	pl_av_ref(av);
	assert_int_equal(fi_close(&av->fid), -FI_EBUSY);
	assert_int_equal(resolve(av, fa), 0);
	pl_av_unref(av);
	assert_int_equal(fi_close(&av->fid), -FI_EBUSY);
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	pl_av_unref(av);
	assert_int_equal(fi_close(&av->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insertsvc_and_insertsym_check_flags),
		cmocka_unit_test(test_handles_with_stray_bits_are_unknown),
		cmocka_unit_test(test_rx_bits_beyond_the_handle_are_stripped_not_aliased),
		cmocka_unit_test(test_removed_handle_fails_through_every_entry_point),
		cmocka_unit_test(test_size_queries_write_nothing),
		cmocka_unit_test(test_close_while_in_use_leaves_the_av_usable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
