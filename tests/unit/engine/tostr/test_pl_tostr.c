/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_tostr_r / fi_tostr edge cases through the public API of propel's
 * libfabric.so.1: NULL and zero-size arguments, unknown types, buffers of
 * every size, fi_tostr's per-thread buffer, and the fid tostr contract.
 * Byte-level agreement with the reference is tostr_oracle's job.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>

#define GUARD 16
#define N_TYPES (FI_TYPE_LOG_SUBSYS + 1)

/* Large enough, zeroed, for any fi_type's datum, fi_info included. */
static uint64_t zero_datum[64];

static int check_propel_loaded(void **state)
{
	const char *libdir = getenv("PROPEL_LIBDIR");
	char path[4096], want[4096], got[4096];
	Dl_info dli;

	if (!libdir || !dladdr((void *)fi_tostr_r, &dli) || !dli.dli_fname)
		return -1;
	snprintf(path, sizeof(path), "%s/libfabric.so.1", libdir);
	if (!realpath(path, want) || !realpath(dli.dli_fname, got) ||
	    strcmp(want, got)) {
		fprintf(stderr, "fi_tostr_r comes from %s, not %s\n",
			dli.dli_fname, want);
		return -1;
	}
	return 0;
}

static void test_null_data_returns_null_and_leaves_buffer(void **state)
{
	char buf[32];

	for (int t = -1; t <= N_TYPES + 1; t++) {
		memset(buf, 'Z', sizeof(buf));
		assert_null(fi_tostr_r(buf, sizeof(buf), NULL, (enum fi_type)t));
		assert_int_equal(buf[0], 'Z');
		assert_null(fi_tostr(NULL, (enum fi_type)t));
	}
}

static void test_null_buffer_returns_null(void **state)
{
	for (int t = 0; t < N_TYPES; t++)
		assert_null(fi_tostr_r(NULL, 64, zero_datum, (enum fi_type)t));
}

static void test_zero_length_returns_null_and_leaves_buffer(void **state)
{
	char buf[4] = { 'Z', 'Z', 'Z', 'Z' };

	for (int t = 0; t < N_TYPES; t++) {
		assert_null(fi_tostr_r(buf, 0, zero_datum, (enum fi_type)t));
		assert_int_equal(buf[0], 'Z');
	}
}

static void test_unknown_type_prints_unknown_type(void **state)
{
	static const int bad[] = { N_TYPES, N_TYPES + 1, 1000, -1, -1000 };
	char buf[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_ptr_equal(fi_tostr_r(buf, sizeof(buf), zero_datum,
					    (enum fi_type)bad[i]), buf);
		assert_string_equal(buf, "Unknown type");
	}
}

static void test_every_type_prints_something_terminated(void **state)
{
	char buf[4096];

	for (int t = 0; t < N_TYPES; t++) {
		if (t == FI_TYPE_FID)
			continue;	/* a zeroed fid is fine but prints (nil) */
		memset(buf, 'Z', sizeof(buf));
		assert_ptr_equal(fi_tostr_r(buf, sizeof(buf), zero_datum,
					    (enum fi_type)t), buf);
		assert_non_null(memchr(buf, '\0', sizeof(buf)));
	}
}

/* Every size from 1 up: terminated, within len, never past it. */
static void test_small_buffers_never_overrun(void **state)
{
	struct fi_tx_attr tx;
	struct fi_rx_attr rx;
	struct fi_ep_attr ep;
	struct fi_domain_attr dom;
	struct fi_fabric_attr fab = { .name = "fabric", .prov_name = "p" };
	struct fi_info info = { .tx_attr = &tx, .rx_attr = &rx, .ep_attr = &ep,
				.domain_attr = &dom, .fabric_attr = &fab };
	uint64_t all = ~0ULL;
	const void *datum[N_TYPES];
	char *buf = malloc(3000 + GUARD);

	assert_non_null(buf);
	/* All bits set, pointers aside: the longest text of each kind. */
	memset(&tx, 0xff, sizeof(tx));
	memset(&rx, 0xff, sizeof(rx));
	memset(&ep, 0xff, sizeof(ep));
	ep.auth_key = NULL;
	memset(&dom, 0xff, sizeof(dom));
	dom.name = "domain";
	dom.auth_key = NULL;
	info.caps = ~0ULL;
	info.mode = ~0ULL;
	for (int t = 0; t < N_TYPES; t++)
		datum[t] = &all;
	datum[FI_TYPE_INFO] = &info;
	datum[FI_TYPE_TX_ATTR] = &tx;
	datum[FI_TYPE_RX_ATTR] = &rx;
	datum[FI_TYPE_EP_ATTR] = &ep;
	datum[FI_TYPE_DOMAIN_ATTR] = &dom;
	datum[FI_TYPE_FABRIC_ATTR] = &fab;
	datum[FI_TYPE_FID] = NULL;
	for (size_t len = 1; len < 3000; len += (len < 200 ? 1 : 37)) {
		for (int t = 0; t < N_TYPES; t++) {
			const void *d = datum[t];

			if (!d)
				continue;
			memset(buf, 'Z', len + GUARD);
			assert_ptr_equal(fi_tostr_r(buf, len, d,
						    (enum fi_type)t), buf);
			assert_true(strnlen(buf, len) < len);
			for (size_t i = len; i < len + GUARD; i++)
				assert_int_equal(buf[i], 'Z');
		}
	}
	free(buf);
}

static void test_length_one_gives_empty_string(void **state)
{
	char buf[1] = { 'Z' };
	int ep = FI_EP_MSG;

	assert_ptr_equal(fi_tostr_r(buf, 1, &ep, FI_TYPE_EP_TYPE), buf);
	assert_int_equal(buf[0], '\0');
}

static void test_text_is_kept_to_len_minus_two(void **state)
{
	char buf[8];
	int ep = FI_EP_RDM;	/* "FI_EP_RDM": 9 characters */

	assert_ptr_equal(fi_tostr_r(buf, sizeof(buf), &ep, FI_TYPE_EP_TYPE),
			 buf);
	assert_string_equal(buf, "FI_EP_");
}

static void test_fi_tostr_reuses_its_buffer(void **state)
{
	uint64_t caps = FI_MSG;
	char *a = fi_tostr(&caps, FI_TYPE_CAPS);
	char *b;

	assert_non_null(a);
	assert_string_equal(a, "FI_MSG");
	caps = FI_RMA;
	b = fi_tostr(&caps, FI_TYPE_CAPS);
	assert_ptr_equal(a, b);
	assert_string_equal(b, "FI_RMA");
}

static void *other_thread(void *arg)
{
	uint64_t caps = FI_TAGGED;

	return fi_tostr(&caps, FI_TYPE_CAPS);
}

static void test_fi_tostr_buffer_is_per_thread(void **state)
{
	uint64_t caps = FI_MSG;
	char *mine = fi_tostr(&caps, FI_TYPE_CAPS);
	pthread_t th;
	void *theirs;

	assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
	assert_int_equal(pthread_join(th, &theirs), 0);
	assert_non_null(theirs);
	assert_ptr_not_equal(mine, theirs);
	assert_string_equal(mine, "FI_MSG");
}

static void test_fi_tostr_cuts_long_text_at_8190(void **state)
{
	static char name[10000];
	struct fi_fabric_attr fab = { .name = name, .prov_name = "p" };
	char *s;

	memset(name, 'x', sizeof(name) - 1);
	s = fi_tostr(&fab, FI_TYPE_FABRIC_ATTR);
	assert_non_null(s);
	assert_int_equal(strlen(s), 8190);
}

static char *op_buf;
static size_t op_len;

static int record_tostr(const struct fid *fid, char *buf, size_t len)
{
	op_buf = buf;
	op_len = len;
	return 0;
}

/* A fid's own op gets the buffer start and the room after the text. */
static void test_fid_op_gets_buffer_start_and_room_left(void **state)
{
	struct fi_ops ops = { .size = sizeof(ops), .tostr = record_tostr };
	struct fid fid = { .fclass = FI_CLASS_EP, .ops = &ops };
	struct fi_info info = { .handle = &fid };
	char buf[4096];
	size_t before;

	assert_ptr_equal(fi_tostr_r(buf, sizeof(buf), &info, FI_TYPE_INFO),
			 buf);
	assert_ptr_equal(op_buf, buf);
	/* The op ran after dest_addr and wrote nothing; text kept going. */
	before = strstr(buf, "    fi_tx_attr:") - buf;
	assert_int_equal(op_len, sizeof(buf) - before);
	assert_null(strstr(buf, "handle:"));
}

static void test_fid_without_op_prints_pointer(void **state)
{
	struct fi_ops ops = { .size = offsetof(struct fi_ops, tostr) };
	struct fid fid = { .fclass = FI_CLASS_EP, .ops = &ops };
	char buf[64], want[64];

	snprintf(want, sizeof(want), "fid: %p\n", (void *)&fid);
	assert_ptr_equal(fi_tostr_r(buf, sizeof(buf), &fid, FI_TYPE_FID), buf);
	assert_string_equal(buf, want);
}

static void test_info_null_attrs_print_null(void **state)
{
	struct fi_info info = { 0 };
	char buf[4096];

	assert_ptr_equal(fi_tostr_r(buf, sizeof(buf), &info, FI_TYPE_INFO),
			 buf);
	assert_non_null(strstr(buf, "    fi_tx_attr: (null)\n"));
	assert_non_null(strstr(buf, "    fi_fabric_attr: (null)\n"));
	assert_non_null(strstr(buf, "    src_addr: (null)\n"));
	assert_non_null(strstr(buf, "    nic: (nil)\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_data_returns_null_and_leaves_buffer),
		cmocka_unit_test(test_null_buffer_returns_null),
		cmocka_unit_test(test_zero_length_returns_null_and_leaves_buffer),
		cmocka_unit_test(test_unknown_type_prints_unknown_type),
		cmocka_unit_test(test_every_type_prints_something_terminated),
		cmocka_unit_test(test_small_buffers_never_overrun),
		cmocka_unit_test(test_length_one_gives_empty_string),
		cmocka_unit_test(test_text_is_kept_to_len_minus_two),
		cmocka_unit_test(test_fi_tostr_reuses_its_buffer),
		cmocka_unit_test(test_fi_tostr_buffer_is_per_thread),
		cmocka_unit_test(test_fi_tostr_cuts_long_text_at_8190),
		cmocka_unit_test(test_fid_op_gets_buffer_start_and_room_left),
		cmocka_unit_test(test_fid_without_op_prints_pointer),
		cmocka_unit_test(test_info_null_attrs_print_null),
	};

	return cmocka_run_group_tests(tests, check_propel_loaded, NULL);
}
