/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bad input and the cache's variables. Calls with a NULL address, a zero
 * length, a wrapping range or access bits outside the mask fail with
 * -FI_EINVAL. A bad FI_MR_CACHE_* value earns a warning naming the
 * variable and the default is kept; FI_LOG_LEVEL=info shows one line
 * naming the monitor and why, and the statistics when a cache closes.
 * Variables are read when a cache opens, so each such scenario runs in a
 * child process with its own environment (pl_test_child.h).
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "pl_test_child.h"
#include "pl_mrc_test.h"

static void test_bad_arguments(void **state)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	struct pl_mrc_entry *e;
	struct pl_mrc *c;
	char buf[64];

	(void)state;
	assert_int_equal(pl_mrc_open(NULL, &c), -FI_EINVAL);
	assert_int_equal(pl_mrc_open(&a, NULL), -FI_EINVAL);
	a.reg = NULL;
	assert_int_equal(pl_mrc_open(&a, &c), -FI_EINVAL);
	a = pl_mrc_test_attr(0);
	assert_int_equal(pl_mrc_open(&a, &c), 0);

	assert_int_equal(pl_mrc_get(c, NULL, 64, FI_SEND, &e), -FI_EINVAL);
	assert_int_equal(pl_mrc_get(c, buf, 0, FI_SEND, &e), -FI_EINVAL);
	assert_int_equal(pl_mrc_get(c, buf, sizeof(buf), 0, &e), -FI_EINVAL);
	assert_int_equal(pl_mrc_get(c, buf, sizeof(buf), FI_TAGGED, &e),
			 -FI_EINVAL);
	assert_int_equal(pl_mrc_get(c, buf, sizeof(buf), FI_SEND | (1ULL << 60),
				    &e), -FI_EINVAL);
	assert_int_equal(pl_mrc_get(c, (void *)(UINTPTR_MAX - 10), 100,
				    FI_SEND, &e), -FI_EINVAL);
	assert_int_equal(pl_mrc_get(c, buf, sizeof(buf), FI_SEND, NULL),
			 -FI_EINVAL);
	assert_int_equal(pl_mrc_get(NULL, buf, sizeof(buf), FI_SEND, &e),
			 -FI_EINVAL);
	pl_mrc_put(c, NULL);
	assert_int_equal(pl_mrc_close(c), 0);
	assert_int_equal(pl_mrc_close(NULL), -FI_EINVAL);
}

static void test_reg_error_returned(void **state)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	struct pl_mrc_entry *e;
	struct pl_mrc_stats s;
	struct pl_mrc *c;
	size_t pg = pl_mrc_test_page();
	char *p;

	(void)state;
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(pl_mrc_open(&a, &c), 0);
	atomic_store(&pl_mrc_test_reg_error, -FI_EACCES);
	assert_int_equal(pl_mrc_get(c, p, pg, FI_SEND, &e), -FI_EACCES);
	atomic_store(&pl_mrc_test_reg_error, 0);
	pl_mrc_stats_get(c, &s);
	assert_int_equal(s.count, 0);
	/* Nothing stale was left behind: the next get registers. */
	assert_int_equal(pl_mrc_get(c, p, pg, FI_SEND, &e), 0);
	pl_mrc_put(c, e);
	assert_int_equal(pl_mrc_close(c), 0);
	munmap(p, pg);
}

/* In the child: open, one miss and one hit, close; arg: expect caching */
static void child_cache(void *arg)
{
	bool want = arg != NULL;
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	struct pl_mrc_entry *e;
	struct pl_mrc_stats s;
	struct pl_mrc *c;
	/* page-aligned: the test's registration reads the first word of
	 * every page the range touches (pl_mrc_test.h), which for a buffer
	 * in the middle of a page is another global's ASan redzone */
	static _Alignas(4096) char buf[256];

	PL_CHILD_CHECK(pl_mrc_open(&a, &c) == 0);
	PL_CHILD_CHECK(pl_mrc_enabled(c) == want);
	PL_CHILD_CHECK(pl_mrc_get(c, buf, sizeof(buf), FI_SEND, &e) == 0);
	pl_mrc_put(c, e);
	PL_CHILD_CHECK(pl_mrc_get(c, buf, sizeof(buf), FI_SEND, &e) == 0);
	pl_mrc_put(c, e);
	pl_mrc_stats_get(c, &s);
	PL_CHILD_CHECK(s.hits == (want ? 1u : 0u));
	PL_CHILD_CHECK(pl_mrc_close(c) == 0);
}

#define CACHING ((void *)1)
#define NOT_CACHING NULL

static void run(const char *const *env, void *want, struct pl_child_result *r)
{
	assert_int_equal(pl_child_run(child_cache, want, env, r), 0);
	if (r->status)
		print_message("child said:\n%s\n", r->out);
	assert_int_equal(r->status, 0);
}

static void test_bad_max_count(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_MR_CACHE_MAX_COUNT=lots", "FI_LOG_LEVEL",
			      NULL };

	(void)state;
	run(env, CACHING, &r);
	assert_int_equal(pl_count(r.out, "FI_MR_CACHE_MAX_COUNT"), 1);
}

static void test_bad_max_size(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_MR_CACHE_MAX_SIZE=-5", "FI_LOG_LEVEL",
			      NULL };

	(void)state;
	run(env, CACHING, &r);
	assert_int_equal(pl_count(r.out, "FI_MR_CACHE_MAX_SIZE"), 1);
}

static void test_bad_monitor(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_MR_CACHE_MONITOR=kdreg9", "FI_LOG_LEVEL",
			      NULL };

	(void)state;
	run(env, CACHING, &r);
	assert_int_equal(pl_count(r.out, "FI_MR_CACHE_MONITOR=\"kdreg9\""), 1);
	assert_non_null(strstr(r.out, "userfaultfd, memhooks or disabled"));
}

static void test_memhooks_selected(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_MR_CACHE_MONITOR=memhooks",
			      "FI_LOG_LEVEL=info", NULL };

	(void)state;
	run(env, CACHING, &r);
	assert_int_equal(pl_count(r.out, "MR cache monitor: "), 1);
	assert_int_equal(pl_count(r.out, "MR cache monitor: memhooks "
				  "(FI_MR_CACHE_MONITOR=memhooks)"), 1);
	assert_int_equal(pl_count(r.out, "memhooks monitor stopped"), 1);
}

/* In the child: refuse userfaultfd() with EPERM (what a container's
 * seccomp profile does), then child_cache. */
static void child_no_uffd(void *arg)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_userfaultfd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	PL_CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	PL_CHILD_CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
	PL_CHILD_CHECK(syscall(SYS_userfaultfd, 0) < 0 && errno == EPERM);
	child_cache(arg);
}

/* The default is the best monitor that works: memhooks where
 * userfaultfd is refused, with one line saying so. */
static void test_default_falls_back_to_memhooks(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_LOG_LEVEL=info", "FI_MR_CACHE_MONITOR",
			      NULL };

	(void)state;
	assert_int_equal(pl_child_run(child_no_uffd, CACHING, env, &r), 0);
	if (r.status)
		print_message("child said:\n%s\n", r.out);
	assert_int_equal(r.status, 0);
	assert_int_equal(pl_count(r.out, "MR cache monitor: "), 1);
	assert_int_equal(pl_count(r.out, "MR cache monitor: memhooks "
				  "(default: userfaultfd is not usable: "
				  "refused (EPERM)"), 1);
}

static void test_monitor_disabled(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_MR_CACHE_MONITOR=disabled",
			      "FI_LOG_LEVEL=info", NULL };

	(void)state;
	run(env, NOT_CACHING, &r);
	assert_int_equal(pl_count(r.out, "MR cache monitor: disabled "
				  "(FI_MR_CACHE_MONITOR=disabled)"), 1);
}

static void test_max_count_zero(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_MR_CACHE_MAX_COUNT=0", "FI_LOG_LEVEL",
			      NULL };

	(void)state;
	run(env, NOT_CACHING, &r);
	assert_int_equal(pl_count(r.out, "FI_MR_CACHE_MAX_COUNT"), 0);
}

static void test_max_size_zero(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_MR_CACHE_MAX_SIZE=0", "FI_LOG_LEVEL",
			      NULL };

	(void)state;
	run(env, NOT_CACHING, &r);
}

static void test_info_lines(void **state)
{
	static struct pl_child_result r;
	const char *env[] = { "FI_LOG_LEVEL=info", "FI_MR_CACHE_MONITOR",
			      NULL };

	(void)state;
	run(env, CACHING, &r);
	assert_int_equal(pl_count(r.out, "MR cache monitor: "), 1);
	assert_int_equal(pl_count(r.out, "MR cache monitor: userfaultfd "
				  "(default: "), 1);
	assert_int_equal(pl_count(r.out, "MR cache statistics: 1 hits, "
				  "1 misses, 0 evictions, 0 invalidations"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_max_count),
		cmocka_unit_test(test_bad_max_size),
		cmocka_unit_test(test_bad_monitor),
		cmocka_unit_test(test_memhooks_selected),
		cmocka_unit_test(test_default_falls_back_to_memhooks),
		cmocka_unit_test(test_monitor_disabled),
		cmocka_unit_test(test_max_count_zero),
		cmocka_unit_test(test_max_size_zero),
		cmocka_unit_test(test_info_lines),
		/* In-process last: the children above must be the first to
		 * read the logging configuration. */
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_reg_error_returned),
	};

	pl_mrc_test_require_monitor();
	return cmocka_run_group_tests_name("pl_mrc_args", tests, NULL, NULL);
}
