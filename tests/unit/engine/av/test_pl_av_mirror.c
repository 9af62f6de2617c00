/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AV's mirroring hooks (pl_av_addr_ops inserted / removed / closed,
 * pl_av_set_prov): what a provider keeping a second AV in step sees.
 * One call per address that gets a slot of its own, none for a
 * duplicate or a failed insert, one per last removal, closed once at a
 * close that succeeds, the provider's pointer handed back; a named AV
 * calls none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_av.h"

struct seen {
	int inserted, removed, closed;
	uint64_t last_id;
	fi_addr_t last_fi_addr;
	struct fid_av *av;
};

struct addr {
	uint64_t id;
	uint64_t ok;	/* 0: validate refuses it */
};

static int m_validate(struct fid_av *av, const void *a)
{
	(void)av;
	return ((const struct addr *)a)->ok ? 0 : -FI_EINVAL;
}

static void m_inserted(struct fid_av *av, const void *a, fi_addr_t fi_addr)
{
	struct seen *s = pl_av_prov(av);

	s->inserted++;
	s->last_id = ((const struct addr *)a)->id;
	s->last_fi_addr = fi_addr;
}

static void m_removed(struct fid_av *av, const void *a, fi_addr_t fi_addr)
{
	struct seen *s = pl_av_prov(av);

	s->removed++;
	s->last_id = ((const struct addr *)a)->id;
	s->last_fi_addr = fi_addr;
}

static void m_closed(struct fid_av *av)
{
	struct seen *s = pl_av_prov(av);

	s->closed++;
	s->av = av;
}

static const struct pl_av_addr_ops ops = {
	.validate = m_validate,
	.inserted = m_inserted,
	.removed = m_removed,
	.closed = m_closed,
};

static void test_private_av_mirrors(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct addr a = { 1, 1 }, b = { 2, 1 }, bad = { 3, 0 };
	struct seen s = { 0 };
	struct fid_av *av;
	fi_addr_t fa, fb, fx;

	(void)state;
	assert_int_equal(pl_av_open(NULL, &attr, sizeof(struct addr), &ops,
				    &av, NULL), 0);
	assert_null(pl_av_prov(av));
	pl_av_set_prov(av, &s);
	assert_ptr_equal(pl_av_prov(av), &s);
	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	assert_int_equal(s.inserted, 1);
	assert_int_equal(s.last_id, 1);
	assert_int_equal(s.last_fi_addr, fa);
	assert_int_equal(fi_av_insert(av, &b, 1, &fb, 0, NULL), 1);
	assert_int_equal(s.inserted, 2);
	assert_int_equal(s.last_fi_addr, fb);
	/* a duplicate and a refused address: nothing */
	assert_int_equal(fi_av_insert(av, &a, 1, &fx, 0, NULL), 1);
	assert_int_equal(fi_av_insert(av, &bad, 1, &fx, 0, NULL), 0);
	assert_int_equal(s.inserted, 2);
	/* the first removal of a twice-inserted address: nothing */
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	assert_int_equal(s.removed, 0);
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	assert_int_equal(s.removed, 1);
	assert_int_equal(s.last_id, 1);
	assert_int_equal(s.last_fi_addr, fa);
	/* close: closed once, no removal for what is still in */
	pl_av_ref(av);
	assert_int_equal(fi_close(&av->fid), -FI_EBUSY);
	assert_int_equal(s.closed, 0);
	pl_av_unref(av);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(s.closed, 1);
	assert_ptr_equal(s.av, av);
	assert_int_equal(s.removed, 1);
}

static void test_named_av_calls_none_but_closed(void **state)
{
	char name[64];
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 8 };
	struct addr a = { 1, 1 };
	struct seen s = { 0 };
	struct fid_av *av;
	fi_addr_t fa;

	(void)state;
	(void)snprintf(name, sizeof(name), "/pl-av-mirror-%d", (int)getpid());
	attr.name = name;
	assert_int_equal(pl_av_open(NULL, &attr, sizeof(struct addr), &ops,
				    &av, NULL), 0);
	pl_av_set_prov(av, &s);
	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	assert_int_equal(s.inserted, 0);
	assert_int_equal(s.removed, 0);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(s.closed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_av_mirrors),
		cmocka_unit_test(test_named_av_calls_none_but_closed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
