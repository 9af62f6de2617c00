/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Address vectors, one process, one thread at a time: fi_av(3) semantics
 * of a private AV built with pl_av_open() for a pretend provider
 * (pl_av_test_util.h), bad input, the fi_addr_t encoding, FI_AV_USER_ID,
 * rx_ctx_bits, FI_EVENT completions, the reverse map.
 *
 * Not tested: calls on an AV after a successful fi_close (the object is
 * freed; there is nothing safe to observe). fi_close while the AV is still
 * in use (-FI_EBUSY, the AV stays usable) is in test_pl_av_badinput.c.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pl_av_test_util.h"
#include "pl_av_int.h"
#include "pl_eq.h"

static struct fid_av *open_av(enum fi_av_type type, int rx_ctx_bits,
			      uint64_t flags)
{
	struct fi_av_attr attr = { .type = type, .rx_ctx_bits = rx_ctx_bits,
				   .flags = flags };
	struct fid_av *av = NULL;

	assert_int_equal(pl_av_open(NULL, &attr, sizeof(struct test_addr),
				    &test_ops, &av, NULL), 0);
	return av;
}

static fi_addr_t insert_one(struct fid_av *av, uint64_t id)
{
	struct test_addr a = test_addr_make(id, 7);
	fi_addr_t fa = 12345;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	return fa;
}

/* The id of the address behind fi_addr, or -1 if the AV has none. */
static long long peer_id(struct fid_av *av, fi_addr_t fi_addr)
{
	struct pl_av_peer peer;
	long long id = -1;

	pl_rcu_read_lock();
	if (!pl_av_lookup_peer(av, fi_addr, &peer))
		id = (long long)((const struct test_addr *)peer.addr)->id;
	pl_rcu_read_unlock();
	return id;
}

static void test_open_rejects_bad_arguments(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fid_av *av = NULL;

	assert_int_equal(pl_av_open(NULL, NULL, 16, NULL, &av, NULL),
			 -FI_EINVAL);
	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, NULL, NULL),
			 -FI_EINVAL);
	assert_int_equal(pl_av_open(NULL, &attr, 0, NULL, &av, NULL),
			 -FI_EINVAL);
	attr.type = (enum fi_av_type)77;
	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, &av, NULL),
			 -FI_EINVAL);
	attr.type = FI_AV_TABLE;
	attr.rx_ctx_bits = 17;
	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, &av, NULL),
			 -FI_EINVAL);
	attr.rx_ctx_bits = -1;
	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, &av, NULL),
			 -FI_EINVAL);
	attr.rx_ctx_bits = 0;
	attr.flags = 1ULL << 40;
	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, &av, NULL),
			 -FI_EBADFLAGS);
	attr.flags = FI_READ;	/* read-only needs a name */
	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, &av, NULL),
			 -FI_EINVAL);
	assert_null(av);
}

static void test_open_unspec_becomes_table(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_UNSPEC };
	struct fid_av *av;

	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, &av, NULL), 0);
	assert_int_equal(attr.type, FI_AV_TABLE);
	assert_int_equal(av->fid.fclass, FI_CLASS_AV);
	assert_int_equal(pl_av_addrlen(av), 16);
	assert_null(pl_av_domain(av));
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_every_op_slot_is_filled(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);

	assert_true(av->fid.ops->size == sizeof(struct fi_ops));
	assert_non_null(av->fid.ops->close);
	assert_non_null(av->fid.ops->bind);
	assert_non_null(av->fid.ops->control);
	assert_non_null(av->fid.ops->ops_open);
	assert_non_null(av->fid.ops->tostr);
	assert_non_null(av->fid.ops->ops_set);
	assert_true(av->ops->size == sizeof(struct fi_ops_av));
	assert_non_null(av->ops->insert);
	assert_non_null(av->ops->insertsvc);
	assert_non_null(av->ops->insertsym);
	assert_non_null(av->ops->remove);
	assert_non_null(av->ops->lookup);
	assert_non_null(av->ops->straddr);
	assert_non_null(av->ops->av_set);
	assert_int_equal(fi_control(&av->fid, 0, NULL), -FI_ENOSYS);
	assert_int_equal(av->ops->av_set(av, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_table_indices_are_sequential_across_calls(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr a[5];
	fi_addr_t fa[5];
	int i;

	for (i = 0; i < 5; i++)
		a[i] = test_addr_make(100 + i, 1);
	assert_int_equal(fi_av_insert(av, a, 3, fa, 0, NULL), 3);
	assert_int_equal(fi_av_insert(av, a + 3, 2, fa + 3, FI_MORE, NULL), 2);
	for (i = 0; i < 5; i++) {
		assert_int_equal(fa[i], i);
		assert_int_equal(peer_id(av, fa[i]), 100 + i);
	}
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_table_insert_accepts_null_fi_addr(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr a = test_addr_make(5, 5);

	assert_int_equal(fi_av_insert(av, &a, 1, NULL, 0, NULL), 1);
	assert_int_equal(peer_id(av, 0), 5);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_lookup_copies_address(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr out, in = test_addr_make(42, 4242);
	size_t len = sizeof(out);
	fi_addr_t fa;

	assert_int_equal(fi_av_insert(av, &in, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_av_lookup(av, fa, &out, &len), 0);
	assert_int_equal(len, sizeof(in));
	assert_memory_equal(&out, &in, sizeof(in));
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_lookup_short_buffer_truncates_and_reports_size(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr in = test_addr_make(42, 4242);
	unsigned char out[sizeof(in) + 4];
	size_t len = 5;
	fi_addr_t fa;

	memset(out, 0xee, sizeof(out));
	assert_int_equal(fi_av_insert(av, &in, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_av_lookup(av, fa, out, &len), 0);
	assert_int_equal(len, sizeof(in));
	assert_memory_equal(out, &in, 5);
	assert_int_equal(out[5], 0xee);		/* nothing past the buffer */
	len = 0;				/* size query */
	assert_int_equal(fi_av_lookup(av, fa, NULL, &len), 0);
	assert_int_equal(len, sizeof(in));
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_lookup_rejects_null_and_unknown(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr out;
	size_t len = sizeof(out);
	fi_addr_t fa = insert_one(av, 1);

	assert_int_equal(fi_av_lookup(av, fa, &out, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_lookup(av, fa, NULL, &len), -FI_EINVAL);
	assert_int_equal(fi_av_lookup(av, 77, &out, &len), -FI_ENODATA);
	assert_int_equal(fi_av_lookup(av, FI_ADDR_NOTAVAIL, &out, &len),
			 -FI_ENODATA);
	assert_int_equal(fi_av_lookup(av, fa | (1ULL << 40), &out, &len),
			 -FI_ENODATA);
	assert_int_equal(len, sizeof(out));	/* untouched on error */
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_removed_handle_is_stale_after_slot_reuse(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	fi_addr_t a = insert_one(av, 10), b = insert_one(av, 11), c;
	struct pl_av_peer peer;

	assert_int_equal(fi_av_remove(av, &a, 1, 0), 0);
	assert_int_equal(peer_id(av, a), -1);
	/* The lowest free slot again, one generation up. */
	c = insert_one(av, 12);
	assert_int_equal(pl_av_table_handle_idx(c), pl_av_table_handle_idx(a));
	assert_int_equal(pl_av_table_handle_gen(c), 1);
	assert_int_equal(peer_id(av, c), 12);
	assert_int_equal(peer_id(av, a), -1);
	assert_int_equal(peer_id(av, b), 11);
	pl_rcu_read_lock();
	assert_int_equal(pl_av_lookup_peer(av, a, &peer), -FI_EADDRNOTAVAIL);
	pl_rcu_read_unlock();
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_slot_retires_at_last_generation(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	fi_addr_t fa = insert_one(av, 0), last;
	unsigned i;

	for (i = 1; i <= PL_AV_GEN_MAX; i++) {
		assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
		fa = insert_one(av, i);
		assert_int_equal(fa, pl_av_table_handle(0, i));
	}
	last = fa;
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	/* Slot 0 can never again carry a generation that was handed out. */
	fa = insert_one(av, 99);
	assert_int_equal(fa, 1);
	assert_int_equal(peer_id(av, last), -1);
	assert_int_equal(peer_id(av, pl_av_table_handle(0, 0)), -1);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_remove_rejects_bad_input(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	fi_addr_t fa = insert_one(av, 1), bad[2];

	assert_int_equal(fi_av_remove(av, &fa, 1, FI_MORE), -FI_EBADFLAGS);
	assert_int_equal(fi_av_remove(av, NULL, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_av_remove(av, NULL, 0, 0), 0);
	bad[0] = 55;
	bad[1] = fa;
	/* The unknown one is reported, the valid one removed anyway. */
	assert_int_equal(fi_av_remove(av, bad, 2, 0), -FI_EINVAL);
	assert_int_equal(peer_id(av, fa), -1);
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_insert_rejects_bad_flags_and_arguments(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct fid_av *map = open_av(FI_AV_MAP, 0, 0);
	struct test_addr a = test_addr_make(1, 1);
	fi_addr_t fa = 0;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 1ULL << 40, NULL),
			 -FI_EBADFLAGS);
	assert_int_equal(fi_av_insert(av, NULL, 1, &fa, 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insert(av, NULL, 0, NULL, 0, NULL), 0);
	assert_int_equal(fi_av_insert(map, &a, 1, NULL, 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insert(av, &a, 1, NULL, FI_AV_USER_ID, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insert(av, &a, 1, &fa, FI_SYNC_ERR, NULL),
			 -FI_EINVAL);
	assert_int_equal(peer_id(av, 0), -1);	/* nothing went in */
	assert_int_equal(fi_close(&map->fid), 0);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_invalid_address_fails_alone(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr a[3] = { test_addr_make(1, 1), test_addr_make(2, 2),
				  test_addr_make(3, 3) };
	fi_addr_t fa[3];

	a[1].magic = 0;		/* the provider's validate refuses it */
	assert_int_equal(fi_av_insert(av, a, 3, fa, 0, NULL), 2);
	assert_int_equal(fa[0], 0);
	assert_int_equal(fa[1], FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);
	assert_int_equal(peer_id(av, fa[2]), 3);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_sync_err_reports_each_address(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr a[3] = { test_addr_make(1, 1), test_addr_make(2, 2),
				  test_addr_make(3, 3) };
	int err[3] = { -1, -1, -1 };
	fi_addr_t fa[3];

	a[2].magic = 0;
	assert_int_equal(fi_av_insert(av, a, 3, fa, FI_SYNC_ERR, err), 2);
	assert_int_equal(err[0], 0);
	assert_int_equal(err[1], 0);
	assert_int_equal(err[2], FI_EINVAL);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_duplicate_insert_shares_handle_until_last_remove(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	fi_addr_t a = insert_one(av, 9), b = insert_one(av, 9);

	assert_int_equal(a, b);
	assert_int_equal(fi_av_remove(av, &a, 1, 0), 0);
	assert_int_equal(peer_id(av, a), 9);
	assert_int_equal(fi_av_remove(av, &b, 1, 0), 0);
	assert_int_equal(peer_id(av, a), -1);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_user_id_is_reported_in_place_of_fi_addr(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr a[2] = { test_addr_make(1, 1), test_addr_make(2, 2) };
	fi_addr_t fa[2] = { 0xabc, 0xdef }, got, uid;
	struct pl_av_peer peer;

	assert_int_equal(fi_av_insert(av, a, 2, fa, FI_AV_USER_ID, NULL), 2);
	/* Output unchanged by the flag: the handles. */
	assert_int_equal(fa[0], 0);
	assert_int_equal(fa[1], 1);
	pl_rcu_read_lock();
	assert_int_equal(pl_av_lookup_peer(av, fa[1], &peer), 0);
	assert_int_equal(peer.user_id, 0xdef);
	assert_int_equal(peer.fi_addr, 1);
	assert_int_equal(pl_av_reverse_lookup(av, &a[0], &got, &uid), 0);
	assert_int_equal(got, 0);
	assert_int_equal(uid, 0xabc);
	pl_rcu_read_unlock();
	got = insert_one(av, 3);		/* no flag: user id = handle */
	pl_rcu_read_lock();
	assert_int_equal(pl_av_lookup_peer(av, got, &peer), 0);
	assert_int_equal(peer.user_id, got);
	pl_rcu_read_unlock();
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_rx_ctx_bits_carry_the_receive_context(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 4, 0);
	fi_addr_t fa, rx;
	struct pl_av_peer peer;
	struct test_addr out;
	size_t len = sizeof(out);

	insert_one(av, 1);
	fa = insert_one(av, 2);
	rx = fi_rx_addr(fa, 5, 4);
	assert_int_not_equal(rx, fa);
	pl_rcu_read_lock();
	assert_int_equal(pl_av_lookup_peer(av, rx, &peer), 0);
	assert_int_equal(peer.fi_addr, fa);
	assert_int_equal(peer.rx_index, 5);
	assert_int_equal(((const struct test_addr *)peer.addr)->id, 2);
	assert_int_equal(pl_av_lookup_peer(av, fi_rx_addr(fa, 15, 4), &peer),
			 0);
	assert_int_equal(peer.rx_index, 15);
	pl_rcu_read_unlock();
	assert_int_equal(fi_av_lookup(av, rx, &out, &len), 0);
	assert_int_equal(out.id, 2);
	/* Without rx bits the same value is just an unknown address. */
	assert_int_equal(fi_close(&av->fid), 0);
	av = open_av(FI_AV_TABLE, 0, 0);
	insert_one(av, 1);
	fa = insert_one(av, 2);
	assert_int_equal(peer_id(av, fi_rx_addr(fa, 5, 4)), -1);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_map_handles_resolve_and_go_stale(void **state)
{
	struct fid_av *av = open_av(FI_AV_MAP, 0, 0);
	fi_addr_t a = insert_one(av, 1), b;

	assert_int_equal(peer_id(av, a), 1);
	assert_int_equal(fi_av_remove(av, &a, 1, 0), 0);
	b = insert_one(av, 2);
	assert_int_not_equal(a, b);
	assert_int_equal(peer_id(av, a), -1);
	assert_int_equal(peer_id(av, b), 2);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_table_grows_and_keeps_entries(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct pl_av *pav = pl_av_of(av);
	size_t first = __pl_av_table_nslots(&pav->table);
	fi_addr_t fa;
	int i;

	for (i = 0; i < 5000; i++) {
		fa = insert_one(av, 1000 + i);
		assert_int_equal(fa, i);
	}
	assert_true(__pl_av_table_nslots(&pav->table) >= 5000);
	assert_true(__pl_av_table_nslots(&pav->table) > first);
	for (i = 0; i < 5000; i++)
		assert_int_equal(peer_id(av, i), 1000 + i);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_straddr_truncates_and_reports_size(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr a = test_addr_make(12, 34);
	char buf[64];
	size_t len = sizeof(buf);

	assert_ptr_equal(fi_av_straddr(av, &a, buf, &len), buf);
	assert_string_equal(buf, "test://12:34");
	assert_int_equal(len, strlen("test://12:34") + 1);
	len = 5;
	memset(buf, 'x', sizeof(buf));
	assert_ptr_equal(fi_av_straddr(av, &a, buf, &len), buf);
	assert_string_equal(buf, "test");
	assert_int_equal(len, strlen("test://12:34") + 1);
	assert_null(fi_av_straddr(av, &a, buf, NULL));
	assert_null(fi_av_straddr(av, NULL, buf, &len));
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_straddr_default_is_hex(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	unsigned char a[3] = { 0x01, 0xab, 0xff };
	struct fid_av *av;
	char buf[16];
	size_t len = sizeof(buf);

	assert_int_equal(pl_av_open(NULL, &attr, 3, NULL, &av, NULL), 0);
	assert_ptr_equal(fi_av_straddr(av, a, buf, &len), buf);
	assert_string_equal(buf, "0x01abff");
	assert_int_equal(len, 9);
	len = 4;
	fi_av_straddr(av, a, buf, &len);
	assert_string_equal(buf, "0x0");
	assert_int_equal(len, 9);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_insertsvc_without_resolve_is_enosys(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fid_av *av;
	fi_addr_t fa;

	assert_int_equal(pl_av_open(NULL, &attr, 16, NULL, &av, NULL), 0);
	assert_int_equal(fi_av_insertsvc(av, "10.0.0.1", "1", &fa, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(fi_av_insertsym(av, "10.0.0.1", 2, "1", 2, &fa, 0,
					 NULL), -FI_ENOSYS);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_insertsvc_resolves_one_address(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr out;
	size_t len = sizeof(out);
	fi_addr_t fa;

	assert_int_equal(fi_av_insertsvc(av, "10.0.0.1", "5000", &fa, 0,
					 NULL), 1);
	assert_int_equal(fi_av_lookup(av, fa, &out, &len), 0);
	assert_int_equal(out.id, 0x0a000001);
	assert_int_equal(out.port, 5000);
	assert_int_equal(fi_av_insertsvc(av, NULL, "1", &fa, 0, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insertsvc(av, "bogus", "1", &fa, 0, NULL), 0);
	assert_int_equal(fa, FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_insertsym_expands_nodes_then_services(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	const struct { uint64_t id; uint32_t port; } want[] = {
		{ 0x0a0101ff, 5000 }, { 0x0a0101ff, 5001 },
		{ 0x0a010200, 5000 }, { 0x0a010200, 5001 },
	};
	struct test_addr out;
	fi_addr_t fa[4];
	size_t len;
	int i;

	assert_int_equal(fi_av_insertsym(av, "10.1.1.255", 2, "5000", 2, fa,
					 0, NULL), 4);
	for (i = 0; i < 4; i++) {
		len = sizeof(out);
		assert_int_equal(fi_av_lookup(av, fa[i], &out, &len), 0);
		assert_int_equal(out.id, want[i].id);
		assert_int_equal(out.port, want[i].port);
	}
	/* Host names count up their numeric suffix, keeping its width. */
	assert_int_equal(fi_av_insertsym(av, "host09", 2, "7", 1, fa, 0,
					 NULL), 2);
	len = sizeof(out);
	assert_int_equal(fi_av_lookup(av, fa[1], &out, &len), 0);
	assert_int_equal(out.id, 1000000 + 10);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_insertsym_needs_numeric_suffixes(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	int err[2];
	fi_addr_t fa[2];

	/* The first address needs no counting; the second cannot exist. */
	assert_int_equal(fi_av_insertsym(av, "hostA", 2, "7", 1, fa,
					 FI_SYNC_ERR, err), 1);
	assert_int_equal(err[0], 0);
	assert_int_equal(err[1], FI_EINVAL);
	assert_int_equal(fa[1], FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_av_insertsym(av, "host1", 1, "http", 2, fa,
					 FI_SYNC_ERR, err), 1);
	assert_int_equal(err[1], FI_EINVAL);
	assert_int_equal(fi_av_insertsym(av, "host1", 0, "7", 1, fa, 0,
					 NULL), -FI_EINVAL);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_bind_checks_flags_and_class(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, FI_EVENT);
	struct fid_av *other = open_av(FI_AV_TABLE, 0, 0);
	struct test_eq eq;

	test_eq_init(&eq);
	assert_int_equal(fi_av_bind(av, &eq.eq.fid, 1), -FI_EBADFLAGS);
	assert_int_equal(fi_av_bind(av, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_av_bind(av, &other->fid, 0), -FI_EINVAL);
	assert_int_equal(fi_av_bind(av, &eq.eq.fid, 0), 0);
	assert_int_equal(fi_av_bind(av, &eq.eq.fid, 0), -FI_EALREADY);
	assert_int_equal(fi_close(&other->fid), 0);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_event_insert_without_eq_is_enoeq(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, FI_EVENT);
	struct test_addr a = test_addr_make(1, 1);
	fi_addr_t fa;

	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), -FI_ENOEQ);
	assert_int_equal(peer_id(av, 0), -1);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_event_insert_reports_errors_then_completion(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, FI_EVENT);
	struct test_addr a[3] = { test_addr_make(1, 1), test_addr_make(2, 2),
				  test_addr_make(3, 3) };
	struct fi_eq_entry done;
	struct test_eq eq;
	int ctx, err[3];
	fi_addr_t fa[3];

	test_eq_init(&eq);
	assert_int_equal(fi_av_bind(av, &eq.eq.fid, 0), 0);
	a[1].magic = 0;
	/* FI_SYNC_ERR is for synchronous AVs only. */
	assert_int_equal(fi_av_insert(av, a, 3, fa, FI_SYNC_ERR, err),
			 -FI_EBADFLAGS);
	assert_int_equal(fi_av_insert(av, a, 3, fa, 0, &ctx), 0);
	assert_int_equal(fa[0], 0);
	assert_int_equal(fa[1], FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);
	assert_int_equal(eq.n, 2);
	/* The error entry precedes the completion of its insert. */
	assert_int_equal(eq.rec[0].event, FI_AV_COMPLETE);
	assert_true(eq.rec[0].flags & PL_AV_EQ_WRITE_ERROR);
	assert_int_equal(eq.rec[0].len, sizeof(struct fi_eq_err_entry));
	assert_ptr_equal(eq.rec[0].entry.fid, &av->fid);
	assert_ptr_equal(eq.rec[0].entry.context, &ctx);
	assert_int_equal(eq.rec[0].entry.data, 1);
	assert_int_equal(eq.rec[0].entry.err, FI_EINVAL);
	assert_int_equal(eq.rec[1].event, FI_AV_COMPLETE);
	assert_int_equal(eq.rec[1].flags, 0);
	assert_int_equal(eq.rec[1].len, sizeof(struct fi_eq_entry));
	memcpy(&done, &eq.rec[1].entry, sizeof(done));
	assert_ptr_equal(done.fid, &av->fid);
	assert_ptr_equal(done.context, &ctx);
	assert_int_equal(done.data, 2);
	assert_int_equal(peer_id(av, fa[2]), 3);
	/* An empty insert still completes, with 0 addresses. */
	assert_int_equal(fi_av_insert(av, NULL, 0, NULL, 0, &ctx), 0);
	assert_int_equal(eq.n, 3);
	assert_int_equal(eq.rec[2].entry.data, 0);
	assert_int_equal(fi_close(&av->fid), 0);
}

/* The same FI_EVENT insert reported on the engine's own EQ, read back as
 * an application does: the error surfaces as -FI_EAVAIL and fi_eq_readerr,
 * then the FI_AV_COMPLETE event with the count inserted. */
static void test_event_insert_on_engine_eq(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, FI_EVENT);
	struct test_addr a[3] = { test_addr_make(1, 1), test_addr_make(2, 2),
				  test_addr_make(3, 3) };
	struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_NONE };
	struct fi_eq_err_entry err = { 0 };
	struct fi_eq_entry done;
	struct fid_eq *eq;
	uint32_t event;
	fi_addr_t fa[3];
	int ctx;

	assert_int_equal(pl_eq_open(NULL, &eq_attr, &eq, NULL), 0);
	assert_int_equal(fi_av_bind(av, &eq->fid, 0), 0);
	a[1].magic = 0;
	assert_int_equal(fi_av_insert(av, a, 3, fa, 0, &ctx), 0);
	assert_int_equal(fi_eq_read(eq, &event, &done, sizeof(done), 0),
			 -FI_EAVAIL);
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_ptr_equal(err.fid, &av->fid);
	assert_ptr_equal(err.context, &ctx);
	assert_int_equal(err.data, 1);
	assert_int_equal(err.err, FI_EINVAL);
	assert_int_equal(fi_eq_read(eq, &event, &done, sizeof(done), 0),
			 sizeof(done));
	assert_int_equal(event, FI_AV_COMPLETE);
	assert_ptr_equal(done.fid, &av->fid);
	assert_ptr_equal(done.context, &ctx);
	assert_int_equal(done.data, 2);
	assert_int_equal(fi_eq_read(eq, &event, &done, sizeof(done), 0),
			 -FI_EAGAIN);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_reverse_lookup_follows_insert_and_remove(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct test_addr a[64];
	fi_addr_t fa[64], got;
	int i;

	for (i = 0; i < 64; i++)
		a[i] = test_addr_make(500 + i, (uint32_t)i);
	assert_int_equal(fi_av_insert(av, a, 64, fa, 0, NULL), 64);
	for (i = 0; i < 64; i += 2)
		assert_int_equal(fi_av_remove(av, &fa[i], 1, 0), 0);
	/* Put two back: they get new handles. */
	assert_int_equal(fi_av_insert(av, &a[0], 1, &fa[0], 0, NULL), 1);
	assert_int_equal(fi_av_insert(av, &a[2], 1, &fa[2], 0, NULL), 1);
	pl_rcu_read_lock();
	for (i = 0; i < 64; i++) {
		int ret = pl_av_reverse_lookup(av, &a[i], &got, NULL);

		if (i % 2 || i <= 2) {		/* kept or put back */
			assert_int_equal(ret, 0);
			assert_int_equal(got, fa[i]);
		} else {
			assert_int_equal(ret, -FI_ENODATA);
		}
	}
	pl_rcu_read_unlock();
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_close_refused_while_endpoint_holds_av(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);

	pl_av_ref(av);
	assert_int_equal(fi_close(&av->fid), -FI_EBUSY);
	pl_av_unref(av);
	assert_int_equal(fi_close(&av->fid), 0);
}

struct thread_lookup {
	struct fid_av *av;
	fi_addr_t fa;
	long long id;
};

static void *lookup_thread(void *arg)
{
	struct thread_lookup *t = arg;

	t->id = peer_id(t->av, t->fa);
	return NULL;
}

/* A thread nobody registered with RCU resolves addresses, exits, and the
 * grace period at close still completes. */
static void test_unregistered_thread_can_look_up(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0, 0);
	struct thread_lookup t = { .av = av };
	pthread_t th;

	t.fa = insert_one(av, 77);
	assert_int_equal(pthread_create(&th, NULL, lookup_thread, &t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.id, 77);
	assert_int_equal(fi_av_remove(av, &t.fa, 1, 0), 0);
	assert_int_equal(fi_close(&av->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_rejects_bad_arguments),
		cmocka_unit_test(test_open_unspec_becomes_table),
		cmocka_unit_test(test_every_op_slot_is_filled),
		cmocka_unit_test(test_table_indices_are_sequential_across_calls),
		cmocka_unit_test(test_table_insert_accepts_null_fi_addr),
		cmocka_unit_test(test_lookup_copies_address),
		cmocka_unit_test(test_lookup_short_buffer_truncates_and_reports_size),
		cmocka_unit_test(test_lookup_rejects_null_and_unknown),
		cmocka_unit_test(test_removed_handle_is_stale_after_slot_reuse),
		cmocka_unit_test(test_slot_retires_at_last_generation),
		cmocka_unit_test(test_remove_rejects_bad_input),
		cmocka_unit_test(test_insert_rejects_bad_flags_and_arguments),
		cmocka_unit_test(test_invalid_address_fails_alone),
		cmocka_unit_test(test_sync_err_reports_each_address),
		cmocka_unit_test(test_duplicate_insert_shares_handle_until_last_remove),
		cmocka_unit_test(test_user_id_is_reported_in_place_of_fi_addr),
		cmocka_unit_test(test_rx_ctx_bits_carry_the_receive_context),
		cmocka_unit_test(test_map_handles_resolve_and_go_stale),
		cmocka_unit_test(test_table_grows_and_keeps_entries),
		cmocka_unit_test(test_straddr_truncates_and_reports_size),
		cmocka_unit_test(test_straddr_default_is_hex),
		cmocka_unit_test(test_insertsvc_without_resolve_is_enosys),
		cmocka_unit_test(test_insertsvc_resolves_one_address),
		cmocka_unit_test(test_insertsym_expands_nodes_then_services),
		cmocka_unit_test(test_insertsym_needs_numeric_suffixes),
		cmocka_unit_test(test_bind_checks_flags_and_class),
		cmocka_unit_test(test_event_insert_without_eq_is_enoeq),
		cmocka_unit_test(test_event_insert_reports_errors_then_completion),
		cmocka_unit_test(test_event_insert_on_engine_eq),
		cmocka_unit_test(test_reverse_lookup_follows_insert_and_remove),
		cmocka_unit_test(test_close_refused_while_endpoint_holds_av),
		cmocka_unit_test(test_unregistered_thread_can_look_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
