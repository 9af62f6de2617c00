/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic MR beyond fi_mr_reg: regv, regattr, fi_mr_bind, fi_mr_enable
 * (FI_MR_ENDPOINT and FI_RMA_EVENT regions), fi_mr_refresh, raw keys,
 * each with good and bad arguments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_mr.h"

static char a[64], b[32];

struct fixture {
	struct pl_domain *dom;
	struct pl_keymap map;
};

static struct fixture *fx_open(int mr_mode, size_t mr_iov_limit)
{
	struct fi_domain_attr da = { .mr_mode = mr_mode,
				     .mr_iov_limit = mr_iov_limit };
	struct fi_info info = { .domain_attr = &da };
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dom = calloc(1, sizeof(*f->dom));
	assert_non_null(f->dom);
	assert_int_equal(pl_domain_init(f->dom, NULL, &info, FI_VERSION(1, 17),
					mr_mode, NULL), 0);
	assert_int_equal(pl_keymap_init(&f->map), 0);
	return f;
}

static void fx_close(struct fixture *f)
{
	/* every MR closed: the domain is no longer busy */
	assert_int_equal(pl_domain_close(&f->dom->domain_fid.fid), 0);
	pl_keymap_fini(&f->map);
	free(f);
}

static int check(struct fixture *f, uint64_t key, uint64_t addr, size_t len,
		 bool virt, uint64_t *base_p)
{
	return pl_keymap_check(&f->map, key, addr, len, FI_REMOTE_WRITE, virt,
			       base_p);
}

/* ---- regv ---- */

static void test_regv_offsets_run_through_buffers(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 4);
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct fid_mr *mr;
	uint64_t base = 0;

	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 2, FI_REMOTE_WRITE,
				    0, 9, 0, &mr, NULL), 0);
	assert_int_equal(fi_mr_key(mr), 9);
	assert_int_equal(check(f, 9, 8, 8, false, &base), 0);
	assert_true(base + 8 == (uintptr_t)a + 8);
	/* offset 70 is byte 6 of the second buffer */
	assert_int_equal(check(f, 9, 70, 8, false, &base), 0);
	assert_true(base + 70 == (uintptr_t)b + 6);
	/* an access straddling the two buffers is refused */
	assert_int_equal(check(f, 9, 60, 8, false, NULL), -FI_EACCES);
	assert_int_equal(check(f, 9, 90, 8, false, NULL), -FI_EACCES);
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

static void test_regv_virt_addr(void **state)
{
	(void)state;
	struct fixture *f = fx_open(FI_MR_VIRT_ADDR, 2);
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct fid_mr *mr;
	uint64_t base = 0;

	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 2, FI_REMOTE_WRITE,
				    0, 3, 0, &mr, NULL), 0);
	assert_int_equal(check(f, 3, (uintptr_t)b + 4, 8, true, &base), 0);
	assert_true(base == (uintptr_t)b);
	assert_int_equal(check(f, 3, (uintptr_t)b + 30, 8, true, NULL),
			 -FI_EACCES);
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

static void test_regv_bad_arguments(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 2);
	struct iovec iov[3] = { { a, 8 }, { b, 8 }, { a + 8, 8 } };
	struct iovec hole[2] = { { a, 8 }, { NULL, 8 } };
	struct iovec empty[2] = { { a, 8 }, { b, 0 } };
	struct fid_mr *mr = (struct fid_mr *)(uintptr_t)0x1;

	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 0, FI_READ, 0, 1, 0,
				    &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 3, FI_READ, 0, 1, 0,
				    &mr, NULL), -FI_EINVAL);	/* > limit 2 */
	assert_int_equal(pl_mr_regv(f->dom, &f->map, NULL, 1, FI_READ, 0, 1, 0,
				    &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, &f->map, hole, 2, FI_READ, 0, 1, 0,
				    &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, &f->map, empty, 2, FI_READ, 0, 1,
				    0, &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 2, 1ULL << 60, 0, 1,
				    0, &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 2, FI_READ, 0, 1,
				    FI_RMA_EVENT, &mr, NULL), -FI_EBADFLAGS);
	assert_int_equal(pl_mr_regv(NULL, &f->map, iov, 2, FI_READ, 0, 1, 0,
				    &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, NULL, iov, 2, FI_READ, 0, 1, 0,
				    &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 2, FI_READ, 0, 1, 0,
				    NULL, NULL), -FI_EINVAL);
	assert_ptr_equal(mr, (struct fid_mr *)(uintptr_t)0x1);	/* untouched */
	/* none of them took the key */
	assert_int_equal(check(f, 1, 0, 1, false, NULL), -FI_EKEYREJECTED);
	fx_close(f);
}

static void test_regv_limit_one(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 0);	/* unset: one buffer */
	struct iovec iov[2] = { { a, 8 }, { b, 8 } };
	struct fid_mr *mr;

	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 2, FI_READ, 0, 1, 0,
				    &mr, NULL), -FI_EINVAL);
	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 1, FI_READ, 0, 1, 0,
				    &mr, NULL), 0);
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

/* ---- regattr ---- */

static void test_regattr(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 1);
	struct iovec iov = { a, sizeof(a) };
	struct fi_mr_attr at = { .mr_iov = &iov, .iov_count = 1,
				 .access = FI_REMOTE_WRITE,
				 .requested_key = 77, .context = &iov,
				 .iface = FI_HMEM_SYSTEM };
	struct fi_mr_attr bad;
	struct fid_mr *mr, *mr2;
	uint8_t ak[4] = { 0 };

	at.device.reserved = 5;	/* not interpreted for system memory */
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &at, 0, &mr), 0);
	assert_int_equal(fi_mr_key(mr), 77);
	assert_ptr_equal(mr->fid.context, &iov);
	assert_non_null(fi_mr_desc(mr));
	assert_int_equal(check(f, 77, 60, 4, false, NULL), 0);
	/* the same key again */
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &at, 0, &mr2),
			 -FI_ENOKEY);
	bad = at, bad.requested_key = FI_KEY_NOTAVAIL;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_EKEYREJECTED);
	bad = at, bad.requested_key = 78, bad.auth_key = ak;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_EINVAL);
	bad = at, bad.requested_key = 78, bad.auth_key_size = 4;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_EINVAL);
	bad = at, bad.requested_key = 78, bad.iface = FI_HMEM_CUDA;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_ENOSYS);
	bad = at, bad.requested_key = 78, bad.iface = (enum fi_hmem_iface)99;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_EINVAL);
	bad = at, bad.requested_key = 78, bad.iov_count = 0;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_EINVAL);
	bad = at, bad.requested_key = 78, bad.mr_iov = NULL;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_EINVAL);
	bad = at, bad.requested_key = 78, bad.access = 1ULL << 61;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, &mr2),
			 -FI_EINVAL);
	bad = at, bad.requested_key = 78;
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 1ULL << 3, &mr2),
			 -FI_EBADFLAGS);
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, NULL, 0, &mr2),
			 -FI_EINVAL);
	assert_int_equal(pl_mr_regattr(f->dom, &f->map, &bad, 0, NULL),
			 -FI_EINVAL);
	assert_int_equal(check(f, 78, 0, 1, false, NULL), -FI_EKEYREJECTED);
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

/* ---- FI_MR_ENDPOINT: bind, enable ---- */

static void test_endpoint_mr_valid_only_after_enable(void **state)
{
	(void)state;
	struct fixture *f = fx_open(FI_MR_ENDPOINT, 1);
	struct fid ep = { .fclass = FI_CLASS_EP };
	struct fid ep2 = { .fclass = FI_CLASS_EP };
	struct fid av = { .fclass = FI_CLASS_AV };
	struct fid_mr *mr, *mr2;

	assert_int_equal(pl_mr_reg(f->dom, &f->map, a, sizeof(a),
				   FI_REMOTE_WRITE, 0, 5, 0, &mr, NULL), 0);
	assert_int_equal(check(f, 5, 0, 8, false, NULL), -FI_EKEYREJECTED);
	/* the disabled MR still owns its key */
	assert_int_equal(pl_mr_reg(f->dom, &f->map, b, sizeof(b),
				   FI_REMOTE_WRITE, 0, 5, 0, &mr2, NULL),
			 -FI_ENOKEY);
	/* enable before the endpoint binding */
	assert_int_equal(fi_mr_enable(mr), -FI_EOPBADSTATE);
	assert_int_equal(check(f, 5, 0, 8, false, NULL), -FI_EKEYREJECTED);
	assert_int_equal(fi_mr_bind(mr, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_mr_bind(mr, &av, 0), -FI_EINVAL);
	assert_int_equal(fi_mr_bind(mr, &ep, FI_REMOTE_WRITE), -FI_EBADFLAGS);
	assert_int_equal(fi_mr_bind(mr, &ep, 0), 0);
	assert_int_equal(fi_mr_bind(mr, &ep2, 0), -FI_EALREADY);
	assert_int_equal(check(f, 5, 0, 8, false, NULL), -FI_EKEYREJECTED);
	assert_int_equal(fi_mr_enable(mr), 0);
	assert_int_equal(check(f, 5, 0, 8, false, NULL), 0);
	assert_int_equal(fi_mr_enable(mr), 0);	/* again: no-op */
	assert_int_equal(fi_mr_bind(mr, &ep2, 0), -FI_EOPBADSTATE);
	assert_int_equal(fi_close(&mr->fid), 0);
	assert_int_equal(check(f, 5, 0, 8, false, NULL), -FI_EKEYREJECTED);
	fx_close(f);
}

static void test_plain_mr_enable_is_noop(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 1);
	struct fid ep = { .fclass = FI_CLASS_EP };
	struct fid_mr *mr;

	assert_int_equal(pl_mr_reg(f->dom, &f->map, a, sizeof(a),
				   FI_REMOTE_WRITE, 0, 6, 0, &mr, NULL), 0);
	assert_int_equal(check(f, 6, 0, 8, false, NULL), 0);	/* at once */
	assert_int_equal(fi_mr_enable(mr), 0);
	assert_int_equal(check(f, 6, 0, 8, false, NULL), 0);
	/* endpoint binding needs FI_MR_ENDPOINT */
	assert_int_equal(fi_mr_bind(mr, &ep, 0), -FI_EINVAL);
	assert_int_equal(fi_control(&mr->fid, FI_GETWAIT, NULL), -FI_ENOSYS);
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

/* ---- counters, FI_RMA_EVENT ---- */

static void test_bind_counter(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 1);
	struct fid_cntr *c, *c2;
	struct fid_mr *mr;

	assert_int_equal(pl_cntr_open(&f->dom->domain_fid, NULL, &c, NULL), 0);
	assert_int_equal(pl_cntr_open(&f->dom->domain_fid, NULL, &c2, NULL), 0);
	assert_int_equal(pl_mr_reg(f->dom, &f->map, a, sizeof(a),
				   FI_REMOTE_WRITE, 0, 8, 0, &mr, NULL), 0);
	assert_int_equal(fi_mr_bind(mr, &c->fid, 0), -FI_EINVAL);
	assert_int_equal(fi_mr_bind(mr, &c->fid, FI_REMOTE_READ),
			 -FI_EBADFLAGS);
	assert_int_equal(fi_mr_bind(mr, &c->fid, FI_REMOTE_WRITE | FI_SEND),
			 -FI_EBADFLAGS);
	assert_int_equal(fi_mr_bind(mr, &c->fid, FI_REMOTE_WRITE), 0);
	assert_int_equal(fi_mr_bind(mr, &c2->fid, FI_REMOTE_WRITE),
			 -FI_EALREADY);
	/* the MR holds the counter */
	assert_int_equal(fi_close(&c->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&c2->fid), 0);
	/* a reference on the MR (whatever bound it) makes its close busy */
	pl_mr_ref(mr);
	assert_int_equal(fi_close(&mr->fid), -FI_EBUSY);
	pl_mr_unref(mr);
	assert_int_equal(fi_close(&mr->fid), 0);
	assert_int_equal(fi_close(&c->fid), 0);
	fx_close(f);
}

static void test_rma_event_region(void **state)
{
	(void)state;
	struct fixture *f = fx_open(FI_MR_RMA_EVENT, 1);
	struct fid_mr *mr, *plain;
	struct fid_cntr *c;

	assert_int_equal(pl_cntr_open(&f->dom->domain_fid, NULL, &c, NULL), 0);
	assert_int_equal(pl_mr_reg(f->dom, &f->map, a, sizeof(a),
				   FI_REMOTE_WRITE, 0, 11, FI_RMA_EVENT, &mr,
				   NULL), 0);
	assert_int_equal(check(f, 11, 0, 8, false, NULL), -FI_EKEYREJECTED);
	assert_int_equal(fi_mr_bind(mr, &c->fid, FI_REMOTE_WRITE), 0);
	assert_int_equal(fi_mr_enable(mr), 0);
	assert_int_equal(check(f, 11, 0, 8, false, NULL), 0);
	/* without the flag a region is valid at once */
	assert_int_equal(pl_mr_reg(f->dom, &f->map, b, sizeof(b),
				   FI_REMOTE_WRITE, 0, 12, 0, &plain, NULL), 0);
	assert_int_equal(check(f, 12, 0, 8, false, NULL), 0);
	assert_int_equal(fi_close(&plain->fid), 0);
	assert_int_equal(fi_close(&mr->fid), 0);
	assert_int_equal(fi_close(&c->fid), 0);
	fx_close(f);
}

static void test_rma_event_flag_needs_mode(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 1);
	struct fid_mr *mr;

	assert_int_equal(pl_mr_reg(f->dom, &f->map, a, sizeof(a),
				   FI_REMOTE_WRITE, 0, 13, FI_RMA_EVENT, &mr,
				   NULL), -FI_EBADFLAGS);
	fx_close(f);
}

/* ---- refresh ---- */

static void test_refresh(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 2);
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec in[2] = { { a + 8, 8 }, { b, sizeof(b) } };
	struct iovec out = { a + 60, 8 };
	struct fid_mr *mr;

	assert_int_equal(pl_mr_regv(f->dom, &f->map, iov, 2, FI_REMOTE_WRITE,
				    0, 14, 0, &mr, NULL), 0);
	assert_int_equal(fi_mr_refresh(mr, NULL, 0, 0), 0);	/* whole */
	assert_int_equal(fi_mr_refresh(mr, in, 2, 0), 0);
	assert_int_equal(fi_mr_refresh(mr, &out, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_mr_refresh(mr, NULL, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_mr_refresh(mr, in, 1, 1ULL << 2), -FI_EBADFLAGS);
	assert_int_equal(fi_control(&mr->fid, FI_REFRESH, NULL), -FI_EINVAL);
	assert_int_equal(check(f, 14, 0, 8, false, NULL), 0);
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

/* ---- raw keys ---- */

static void test_raw_keys(void **state)
{
	(void)state;
	struct fixture *f = fx_open(FI_MR_RAW | FI_MR_VIRT_ADDR |
				    FI_MR_PROV_KEY, 1);
	struct fi_mr_map_raw map;
	uint8_t raw[16];
	uint64_t base = 0, key = 0, unmap;
	size_t ksz = 4;
	struct fid_mr *mr;

	assert_int_equal(pl_mr_reg(f->dom, &f->map, a, sizeof(a),
				   FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL), 0);
	assert_true(fi_mr_key(mr) == FI_KEY_NOTAVAIL);
	assert_int_equal(fi_mr_raw_attr(mr, &base, raw, &ksz, 0),
			 -FI_ETOOSMALL);
	assert_int_equal(ksz, PL_MR_RAW_KEY_SIZE);
	assert_int_equal(fi_mr_raw_attr(mr, &base, raw, &ksz, 1),
			 -FI_EBADFLAGS);
	assert_int_equal(fi_mr_raw_attr(mr, &base, raw, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_mr_raw_attr(mr, &base, NULL, &ksz, 0), -FI_EINVAL);
	assert_int_equal(fi_mr_raw_attr(mr, &base, raw, &ksz, 0), 0);
	assert_true(base == (uintptr_t)a);

	/* the peer side: map the raw key, use it, unmap it */
	map = (struct fi_mr_map_raw){ .base_addr = base, .raw_key = raw,
				      .key_size = ksz, .key = &key };
	assert_int_equal(pl_mr_domain_control(f->dom, FI_MAP_RAW_MR, &map), 0);
	assert_int_equal(check(f, key, (uintptr_t)a + 8, 8, true, NULL), 0);
	map.key_size = 4;
	assert_int_equal(pl_mr_domain_control(f->dom, FI_MAP_RAW_MR, &map),
			 -FI_EINVAL);
	map.key_size = ksz, map.flags = 1;
	assert_int_equal(pl_mr_domain_control(f->dom, FI_MAP_RAW_MR, &map),
			 -FI_EBADFLAGS);
	map.flags = 0, map.key = NULL;
	assert_int_equal(pl_mr_domain_control(f->dom, FI_MAP_RAW_MR, &map),
			 -FI_EINVAL);
	assert_int_equal(pl_mr_domain_control(f->dom, FI_MAP_RAW_MR, NULL),
			 -FI_EINVAL);
	unmap = key;
	assert_int_equal(pl_mr_domain_control(f->dom, FI_UNMAP_KEY, &unmap), 0);
	assert_int_equal(pl_mr_domain_control(f->dom, FI_GETWAIT, &unmap),
			 -FI_ENOSYS);
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

static void test_raw_attr_offset_mode(void **state)
{
	(void)state;
	struct fixture *f = fx_open(0, 1);
	uint64_t base = 1, key = 0;
	uint8_t raw[8];
	size_t ksz = sizeof(raw);
	struct fid_mr *mr;

	assert_int_equal(pl_mr_reg(f->dom, &f->map, a, sizeof(a),
				   FI_REMOTE_WRITE, 0, 21, 0, &mr, NULL), 0);
	/* safe on any MR; without FI_MR_VIRT_ADDR the base is 0 */
	assert_int_equal(fi_mr_raw_attr(mr, &base, raw, &ksz, 0), 0);
	assert_true(base == 0);
	memcpy(&key, raw, sizeof(key));
	assert_true(key == fi_mr_key(mr));
	assert_int_equal(fi_close(&mr->fid), 0);
	fx_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regv_offsets_run_through_buffers),
		cmocka_unit_test(test_regv_virt_addr),
		cmocka_unit_test(test_regv_bad_arguments),
		cmocka_unit_test(test_regv_limit_one),
		cmocka_unit_test(test_regattr),
		cmocka_unit_test(test_endpoint_mr_valid_only_after_enable),
		cmocka_unit_test(test_plain_mr_enable_is_noop),
		cmocka_unit_test(test_bind_counter),
		cmocka_unit_test(test_rma_event_region),
		cmocka_unit_test(test_rma_event_flag_needs_mode),
		cmocka_unit_test(test_refresh),
		cmocka_unit_test(test_raw_keys),
		cmocka_unit_test(test_raw_attr_offset_mode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
