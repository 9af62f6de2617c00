/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Importing an application's memory monitor (fi_mr(3)): the mr_cache fid,
 * fi_import_fid, the monitor's start/subscribe/unsubscribe/valid/stop and
 * the library's notify. Needs no userfaultfd.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_ext.h>

#include "pl_mrc_test.h"

struct app_mon {
	struct fid_mem_monitor mon;
	int starts, stops, subs, unsubs, valid_calls;
	bool valid;
	int start_error;
};

static struct app_mon *app_of(struct fid_mem_monitor *m)
{
	return (struct app_mon *)m;
}

static int mon_start(struct fid_mem_monitor *m)
{
	app_of(m)->starts++;
	return app_of(m)->start_error;
}

static void mon_stop(struct fid_mem_monitor *m)
{
	app_of(m)->stops++;
}

static int mon_subscribe(struct fid_mem_monitor *m, const void *addr,
			 size_t len)
{
	(void)addr;
	(void)len;
	app_of(m)->subs++;
	return 0;
}

static void mon_unsubscribe(struct fid_mem_monitor *m, const void *addr,
			    size_t len)
{
	(void)addr;
	(void)len;
	app_of(m)->unsubs++;
}

static bool mon_valid(struct fid_mem_monitor *m, const void *addr, size_t len)
{
	(void)addr;
	(void)len;
	app_of(m)->valid_calls++;
	return app_of(m)->valid;
}

static struct fi_ops_mem_monitor app_ops = {
	.size = sizeof(struct fi_ops_mem_monitor),
	.start = mon_start,
	.stop = mon_stop,
	.subscribe = mon_subscribe,
	.unsubscribe = mon_unsubscribe,
	.valid = mon_valid,
};

static void app_init(struct app_mon *a)
{
	memset(a, 0, sizeof(*a));
	a->mon.fid.fclass = FI_CLASS_MEM_MONITOR;
	a->mon.export_ops = &app_ops;
	a->valid = true;
}

static void test_import_and_notify(void **state)
{
	struct pl_mrc_attr attr = pl_mrc_test_attr(0);
	size_t len = 2 * pl_mrc_test_page();
	struct pl_mrc_entry *e;
	struct pl_mrc_stats s;
	struct pl_mrc *cache;
	struct app_mon a;
	struct fid *fid;
	char *buf;

	(void)state;
	app_init(&a);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	pl_mrc_test_fill(buf, len);

	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    &fid, NULL), 0);
	assert_int_equal(fid->fclass, FI_CLASS_MR_CACHE);
	assert_int_equal(fi_import_fid(fid, &a.mon.fid, 0), 0);
	assert_int_equal(a.starts, 1);
	assert_non_null(a.mon.import_ops);

	assert_int_equal(pl_mrc_open(&attr, &cache), 0);
	assert_true(pl_mrc_enabled(cache));
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	pl_mrc_put(cache, e);
	assert_int_equal(a.subs, 1);

	/* Hit: valid() is asked. */
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	pl_mrc_put(cache, e);
	assert_int_equal(a.valid_calls, 1);

	/* The application reports a change: the next lookup misses. */
	pl_mrc_test_fill(buf, len);
	a.mon.import_ops->notify(&a.mon, buf + 10, 1);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	assert_true(pl_mrc_test_fresh(e, buf, len));
	pl_mrc_put(cache, e);
	assert_int_equal(a.unsubs, 1);

	/* valid() false: a stale hit becomes a miss. */
	a.valid = false;
	pl_mrc_test_fill(buf, len);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	assert_true(pl_mrc_test_fresh(e, buf, len));
	pl_mrc_put(cache, e);
	a.valid = true;
	pl_mrc_stats_get(cache, &s);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 3);
	assert_int_equal(s.invalidations, 2);

	/* No change of monitor while a cache is open. */
	assert_int_equal(fi_import_fid(fid, &a.mon.fid, 0), -FI_EBUSY);
	assert_int_equal(fi_close(fid), -FI_EBUSY);

	assert_int_equal(pl_mrc_close(cache), 0);
	assert_int_equal(a.subs, a.unsubs);
	assert_int_equal(a.stops, 0);
	assert_int_equal(fi_close(fid), 0);
	assert_int_equal(a.stops, 1);
	munmap(buf, len);
}

static void test_bad_import(void **state)
{
	struct app_mon a;
	struct fid *fid;
	struct fid wrong = { .fclass = FI_CLASS_MR };

	(void)state;
	app_init(&a);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    NULL, NULL), -FI_EINVAL);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), &a, sizeof(a),
					    0, &fid, NULL), -FI_EINVAL);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 1,
					    &fid, NULL), -FI_EBADFLAGS);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    &fid, NULL), 0);
	assert_int_equal(fi_import_fid(fid, &wrong, 0), -FI_EINVAL);
	assert_int_equal(fi_import_fid(fid, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_import_fid(fid, &a.mon.fid, 1), -FI_EBADFLAGS);
	/* A failing start leaves nothing imported. */
	a.start_error = -FI_ENODEV;
	assert_int_equal(fi_import_fid(fid, &a.mon.fid, 0), -FI_ENODEV);
	assert_null(a.mon.import_ops);
	assert_int_equal(fi_close(fid), 0);
	assert_int_equal(a.stops, 0);
}

static void test_second_import_replaces(void **state)
{
	struct app_mon a, b;
	struct fid *f1, *f2;

	(void)state;
	app_init(&a);
	app_init(&b);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    &f1, NULL), 0);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    &f2, NULL), 0);
	assert_int_equal(fi_import_fid(f1, &a.mon.fid, 0), 0);
	assert_int_equal(fi_import_fid(f2, &b.mon.fid, 0), 0);
	assert_int_equal(a.stops, 1);
	/* Closing the replaced one's fid leaves b in place. */
	assert_int_equal(fi_close(f1), 0);
	assert_int_equal(b.stops, 0);
	assert_int_equal(fi_close(f2), 0);
	assert_int_equal(b.stops, 1);
}

/* Import fills the monitor's fid.ops: the application may fi_close its
 * own monitor, after the mr_cache fid (Open MPI's order: nothing left to
 * do) or before it (the monitor is removed and stopped once). */
static void test_app_closes_its_monitor(void **state)
{
	struct app_mon a;
	struct fid *fid;

	(void)state;
	app_init(&a);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    &fid, NULL), 0);
	assert_int_equal(fi_import_fid(fid, &a.mon.fid, 0), 0);
	assert_non_null(a.mon.fid.ops);
	assert_int_equal(fi_close(fid), 0);
	assert_int_equal(a.stops, 1);
	assert_int_equal(fi_close(&a.mon.fid), 0);
	assert_int_equal(a.stops, 1);

	app_init(&a);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    &fid, NULL), 0);
	assert_int_equal(fi_import_fid(fid, &a.mon.fid, 0), 0);
	assert_int_equal(fi_close(&a.mon.fid), 0);
	assert_int_equal(a.stops, 1);
	assert_int_equal(fi_close(fid), 0);
	assert_int_equal(a.stops, 1);
}

/* More ranges than the log holds between two lookups: the cache cannot
 * know which were lost, so it drops everything (never serves stale). */
static void test_log_overflow_drops_all(void **state)
{
	struct pl_mrc_attr attr = pl_mrc_test_attr(0);
	size_t len = pl_mrc_test_page();
	struct pl_mrc_entry *e;
	struct pl_mrc_stats s;
	struct pl_mrc *cache;
	static char other;
	struct app_mon a;
	struct fid *fid;
	char *buf;
	unsigned i;

	(void)state;
	app_init(&a);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	pl_mrc_test_fill(buf, len);
	assert_int_equal(pl_mrc_import_open(FI_VERSION(1, 17), NULL, 0, 0,
					    &fid, NULL), 0);
	assert_int_equal(fi_import_fid(fid, &a.mon.fid, 0), 0);
	assert_int_equal(pl_mrc_open(&attr, &cache), 0);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	pl_mrc_put(cache, e);
	for (i = 0; i < 8192 + 10; i++)
		a.mon.import_ops->notify(&a.mon, &other, 1);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	pl_mrc_put(cache, e);
	pl_mrc_stats_get(cache, &s);
	assert_int_equal(s.hits, 0);
	assert_int_equal(s.misses, 2);
	assert_int_equal(s.invalidations, 1);
	assert_int_equal(pl_mrc_close(cache), 0);
	assert_int_equal(fi_close(fid), 0);
	munmap(buf, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_and_notify),
		cmocka_unit_test(test_bad_import),
		cmocka_unit_test(test_second_import_replaces),
		cmocka_unit_test(test_app_closes_its_monitor),
		cmocka_unit_test(test_log_overflow_drops_all),
	};

	return cmocka_run_group_tests_name("pl_mrc_import", tests, NULL, NULL);
}
