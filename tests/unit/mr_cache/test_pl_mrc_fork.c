/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork: a child that unmaps and replaces cached memory neither hangs (its
 * copies of the ranges are not registered with the parent's userfaultfd,
 * and it has no reader) nor disturbs the parent's cache; and the child's
 * own lookups never return the parent's entries for its changed memory;
 * a cache the child opens afresh watches the child's memory.
 * Not in the 'concurrency' suite: ThreadSanitizer does not support a
 * multi-threaded process that forks. Run twice by meson: with the
 * default monitor and as pl_mrc_memhooks_fork (FI_MR_CACHE_MONITOR=
 * memhooks: the child's hooks are inherited, its inherited caches stop
 * caching all the same, and its fresh cache installs the hooks again).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pl_mrc_test.h"

#define LEN_PAGES 4

/* The child closes the cache it inherited and opens a new one: that one
 * gets a userfaultfd monitor of its own, watching the child. */
static int child_fresh_cache(struct pl_mrc *inherited, size_t len)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	struct pl_mrc_entry *e;
	struct pl_mrc_stats s;
	struct pl_mrc *cache;
	char *p;

	if (pl_mrc_close(inherited))
		return 10;
	if (pl_mrc_open(&a, &cache) || !pl_mrc_enabled(cache))
		return 11;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 12;
	pl_mrc_test_fill(p, len);
	if (pl_mrc_get(cache, p, len, FI_SEND, &e))
		return 13;
	pl_mrc_put(cache, e);
	if (mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
		return 14;
	pl_mrc_test_fill(p, len);
	if (pl_mrc_get(cache, p, len, FI_SEND, &e) ||
	    !pl_mrc_test_fresh(e, p, len))
		return 15;
	pl_mrc_put(cache, e);
	pl_mrc_stats_get(cache, &s);
	if (s.invalidations != 1 || s.hits != 0)
		return 16;
	if (pl_mrc_close(cache))
		return 17;
	munmap(p, len);
	return 0;
}

static int child_main(struct pl_mrc *cache, char *buf, size_t len)
{
	struct pl_mrc_entry *e;

	alarm(20);	/* a hang in munmap becomes SIGALRM */
	if (munmap(buf, len))
		return 2;
	if (mmap(buf, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != buf)
		return 3;
	pl_mrc_test_fill(buf, len);
	if (pl_mrc_get(cache, buf, len, FI_SEND, &e))
		return 4;
	if (!pl_mrc_test_fresh(e, buf, len))
		return 5;	/* the parent's entry leaked into the child */
	pl_mrc_put(cache, e);
	if (munmap(buf, len))
		return 6;
	return child_fresh_cache(cache, len);
}

static void test_child_unmaps(void **state)
{
	struct pl_mrc_attr a = pl_mrc_test_attr(0);
	size_t len = LEN_PAGES * pl_mrc_test_page();
	struct pl_mrc_stats s;
	struct pl_mrc_entry *e;
	struct pl_mrc *cache;
	int status;
	pid_t pid;
	char *buf;

	(void)state;
	assert_int_equal(pl_mrc_open(&a, &cache), 0);
	assert_string_equal(pl_mrc_test_monitor_name(),
			    pl_mrc_test_memhooks() ? "memhooks" : "userfaultfd");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	pl_mrc_test_fill(buf, len);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	pl_mrc_put(cache, e);

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_main(cache, buf, len));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		print_message("child killed by signal %d\n", WTERMSIG(status));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* The parent's entry is still valid and still served. */
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	assert_true(pl_mrc_test_fresh(e, buf, len));
	pl_mrc_put(cache, e);
	pl_mrc_stats_get(cache, &s);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.invalidations, 0);

	/* And the parent's monitor still works after the fork. */
	assert_int_equal(munmap(buf, len), 0);
	/* NOREPLACE: never clobber what another thread mapped there. */
	assert_ptr_equal(mmap(buf, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS |
			      MAP_FIXED_NOREPLACE, -1, 0), buf);
	pl_mrc_test_fill(buf, len);
	assert_int_equal(pl_mrc_get(cache, buf, len, FI_SEND, &e), 0);
	assert_true(pl_mrc_test_fresh(e, buf, len));
	pl_mrc_put(cache, e);
	pl_mrc_stats_get(cache, &s);
	assert_int_equal(s.invalidations, 1);
	assert_int_equal(pl_mrc_close(cache), 0);
	munmap(buf, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_unmaps),
	};

	pl_mrc_test_require_monitor();
	return cmocka_run_group_tests_name("pl_mrc_fork", tests, NULL, NULL);
}
