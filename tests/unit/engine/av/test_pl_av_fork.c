/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AV's RCU across fork() without exec (pl_rcu.h): a child must be
 * able to open, change and close AVs (each close waits for a grace period
 * and for the call_rcu worker) even when, at the moment of the fork, a
 * parent thread was inside a read-side section or another was queueing
 * callbacks. Without the fork handlers the child waits forever for a
 * thread it does not have; an alarm turns that into a failure.
 *
 * Skipped under ThreadSanitizer, whose runtime does not support a child
 * that starts threads after a multi-threaded fork (the call_rcu worker).
 * The second scenario is skipped under AddressSanitizer: GCC 12's ASan
 * runtime (libasan.so.8) has no fork handler of its own (no fork
 * interceptor; TSan's has one), so a parent thread that allocates at the
 * moment of the fork can leave one of ASan's allocator locks held in the
 * child, whose next malloc then waits forever. glibc's malloc takes its
 * locks around fork(), so the release build runs that scenario (CI once
 * saw such a child hang under ASan only; 9000 forks of the release build
 * and 14000 of the ASan build passed here). A child that hangs says, on
 * its way out, which step it was in.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pl_atomic.h"
#include "pl_av_test_util.h"

#define CHILD_ALARM_S 60

#if defined(__SANITIZE_ADDRESS__)
#define PARENT_ALLOCS_AT_FORK_UNSAFE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PARENT_ALLOCS_AT_FORK_UNSAFE 1
#endif
#endif

/* The child's step, for the alarm's report (only the child writes it). */
static volatile sig_atomic_t child_step;
static const char *const child_step_names[] = {
	"open", "insert", "remove", "close",
};

static void child_alarm(int sig)
{
	static const char msg[] = "test_pl_av_fork: child stuck in fi_av_";
	const char *step = child_step_names[child_step];
	size_t len = 0;

	(void)sig;
	while (step[len])
		len++;
	/* write(2) only: async-signal-safe */
	(void)!write(2, msg, sizeof(msg) - 1);
	(void)!write(2, step, len);
	(void)!write(2, "\n", 1);
	_exit(10 + child_step);
}

static struct fid_av *open_av(void)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fid_av *av = NULL;

	if (pl_av_open(NULL, &attr, sizeof(struct test_addr), &test_ops, &av,
		       NULL))
		return NULL;
	return av;
}

/* In a child: use an AV the way a process does, ending with close (grace
 * period, call_rcu barrier). Exit status 0 when all went as expected. */
static void child_use_av(void)
{
	struct fid_av *av;
	fi_addr_t fa[8];
	struct test_addr a[8];
	int i;

	signal(SIGALRM, child_alarm);
	alarm(CHILD_ALARM_S);
	child_step = 0;
	av = open_av();
	if (!av)
		_exit(2);
	for (i = 0; i < 8; i++)
		a[i] = test_addr_make(100 + i, 1);
	child_step = 1;
	if (fi_av_insert(av, a, 8, fa, 0, NULL) != 8)
		_exit(3);
	child_step = 2;
	if (fi_av_remove(av, fa, 8, 0))
		_exit(4);
	child_step = 3;
	if (fi_close(&av->fid))
		_exit(5);
	_exit(0);
}

static int fork_and_use_av(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		child_use_av();
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

struct holder {
	int go[2];		/* the test writes one byte to end the section */
	pl_atomic_int inside;
};

static void *hold_read_section(void *arg)
{
	struct holder *h = arg;
	char c;

	pl_rcu_read_lock();
	pl_store_release(&h->inside, 1);	/* pairs with the test's wait */
	while (read(h->go[0], &c, 1) < 0)
		;
	pl_rcu_read_unlock();
	return NULL;
}

static void test_child_works_while_parent_thread_is_in_section(void **state)
{
	struct fid_av *av = open_av();
	struct test_addr a = test_addr_make(1, 1);
	struct holder h = { .inside = 0 };
	pthread_t th;
	fi_addr_t fa;

	/* The parent has used call_rcu: its worker thread exists. */
	assert_non_null(av);
	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	/* No grace period in flight when the holder enters its section: the
	 * prepare handler waits for the worker to finish the one it is in,
	 * and this section only ends after fork() returns (a real section
	 * ends by itself; pl_rcu.h). */
	pl_rcu_barrier();
	assert_int_equal(pipe(h.go), 0);
	assert_int_equal(pthread_create(&th, NULL, hold_read_section, &h), 0);
	while (!pl_load_acquire(&h.inside))
		usleep(1000);
	assert_int_equal(fork_and_use_av(), 0);
	assert_int_equal(write(h.go[1], "x", 1), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	close(h.go[0]);
	close(h.go[1]);
	assert_int_equal(fi_close(&av->fid), 0);
}

struct churner {
	struct fid_av *av;
	pl_atomic_int stop;
	int failures;
};

static void *churn(void *arg)
{
	struct churner *c = arg;
	uint64_t id = 0;

	while (!pl_load_relaxed(&c->stop)) {	/* join orders the rest */
		struct test_addr a = test_addr_make(id++, 1);
		fi_addr_t fa;

		if (fi_av_insert(c->av, &a, 1, &fa, 0, NULL) != 1 ||
		    fi_av_remove(c->av, &fa, 1, 0))
			c->failures++;
	}
	return NULL;
}

static void test_children_work_while_parent_queues_callbacks(void **state)
{
	struct churner c = { .stop = 0 };
	pthread_t th;
	int i;

	c.av = open_av();
	assert_non_null(c.av);
	assert_int_equal(pthread_create(&th, NULL, churn, &c), 0);
	for (i = 0; i < 20; i++)
		assert_int_equal(fork_and_use_av(), 0);
	pl_store_relaxed(&c.stop, 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(c.failures, 0);
	assert_int_equal(fi_close(&c.av->fid), 0);
}

/* argv[1] picks the scenario ("section" or "churn"); meson runs each as
 * its own test, so a skip is counted as one. */
int main(int argc, char **argv)
{
	const struct CMUnitTest section[] = {
		cmocka_unit_test(test_child_works_while_parent_thread_is_in_section),
	};
	const struct CMUnitTest churn[] = {
		cmocka_unit_test(test_children_work_while_parent_queues_callbacks),
	};
	const char *which = argc > 1 ? argv[1] : "section";

#ifdef PL_RCU_TSAN
	printf("ThreadSanitizer cannot follow a multi-threaded fork: skipped\n");
	return 77;
#endif
	if (!strcmp(which, "section"))
		return cmocka_run_group_tests(section, NULL, NULL);
	if (strcmp(which, "churn")) {
		fprintf(stderr, "usage: %s section|churn\n", argv[0]);
		return 2;
	}
#ifdef PARENT_ALLOCS_AT_FORK_UNSAFE
	printf("AddressSanitizer (GCC 12) keeps no allocator lock across "
	       "fork(): a child of a parent thread that allocates may hang "
	       "in malloc; the release build runs this scenario: skipped\n");
	return 77;
#endif
	return cmocka_run_group_tests(churn, NULL, NULL);
}
