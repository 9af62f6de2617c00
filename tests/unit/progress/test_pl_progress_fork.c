/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork() with auto contexts open: the child finds the inherited context
 * dead (no thread to join, nothing shared to disturb), frees it, opens
 * and uses a context of its own and exits cleanly; the parent's context
 * keeps working.
 *
 * In the child, CHILD_CHECK replaces cmocka's asserts (a failure there
 * must end the child, not unwind into the parent's test runner), and
 * alarm() turns a hang (a join of a thread that does not exist) into a
 * failed exit status.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "pl_progress_test.h"

#define CHILD_CHECK(cond)                                                    \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "child check failed %s:%d: %s\n",    \
				__FILE__, __LINE__, #cond);                  \
			_exit(1);                                            \
		}                                                            \
	} while (0)

static void child_body(struct pl_progress_ctx *inherited,
		       struct pt_src *inherited_src)
{
	struct pl_progress_ctx *ctx = NULL;
	struct pl_progress_info info;
	struct pt_src s;

	alarm((unsigned)PT_WATCHDOG_S);

	pl_progress_ctx_info(inherited, &info);
	CHILD_CHECK(info.dead == 1);
	CHILD_CHECK(info.thread_tid == 0);
	CHILD_CHECK(pl_progress_ctx_poll(inherited) == -FI_EOPBADSTATE);
	CHILD_CHECK(pl_progress_ctx_trywait(inherited) == -FI_EOPBADSTATE);
	pl_progress_ctx_kick(inherited);	/* must not wake the parent */
	pt_src_init_kick(&s);
	CHILD_CHECK(pl_progress_source_add(inherited, &s.src) ==
		    -FI_EOPBADSTATE);
	/* Teardown of inherited objects succeeds. */
	CHILD_CHECK(pl_progress_source_remove(inherited,
					      &inherited_src->src) == 0);
	CHILD_CHECK(pl_progress_ctx_close(inherited) == 0);

	/* A context of the child's own, with its own thread. */
	CHILD_CHECK(pl_progress_ctx_open(FI_PROGRESS_AUTO, FI_THREAD_SAFE,
					 NULL, &ctx) == 0);
	pl_progress_ctx_info(ctx, &info);
	CHILD_CHECK(info.dead == 0);
	CHILD_CHECK(info.thread_tid > 0 && info.thread_tid != getpid());
	CHILD_CHECK(pl_progress_source_add(ctx, &s.src) == 0);
	pt_kick_produce(ctx, &s, 3);
	CHILD_CHECK(pt_wait_done(&s, 3, PT_WATCHDOG_S));
	CHILD_CHECK(pl_progress_source_remove(ctx, &s.src) == 0);
	CHILD_CHECK(pl_progress_ctx_close(ctx) == 0);
	_exit(0);
}

static void fork_case(bool busy)
{
	struct pl_progress_ctx *ctx = NULL;
	uint64_t target;
	struct pt_src s;
	int status;
	pid_t pid;

	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_AUTO, FI_THREAD_SAFE,
					      NULL, &ctx), 0);
	pt_src_init_efd(&s);
	/* Busy: the thread is mid-pass (token held) at the fork. */
	s.busy = busy;
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pt_efd_produce(&s, 1);
	assert_true(pt_wait_done(&s, 1, PT_WATCHDOG_S));

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_body(ctx, &s);

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* The parent's context is untouched by the child's teardown. */
	target = pl_load_acquire(&s.done) + 5;
	pt_efd_produce(&s, 5);
	assert_true(pt_wait_done(&s, target, PT_WATCHDOG_S));
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	assert_int_equal(pl_load_relaxed(&s.overlaps), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_fork_idle_auto_context(void **state)
{
	fork_case(false);
}

static void test_fork_while_thread_polls(void **state)
{
	fork_case(true);
}

static void test_fork_manual_context_is_dead_in_child(void **state)
{
	struct pl_progress_ctx *ctx = NULL;
	int status;
	pid_t pid;

	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_MANUAL,
					      FI_THREAD_SAFE, NULL, &ctx), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm((unsigned)PT_WATCHDOG_S);
		CHILD_CHECK(pl_progress_ctx_poll(ctx) == -FI_EOPBADSTATE);
		CHILD_CHECK(pl_progress_ctx_wait_fd(ctx) == -FI_EOPBADSTATE);
		CHILD_CHECK(pl_progress_ctx_close(ctx) == 0);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(pl_progress_ctx_poll(ctx), 0);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

int main(void)
{
#if defined(__SANITIZE_THREAD__)
	/* Its runtime cannot start threads in the child of a threaded
	 * process ("dup thread with used id"); ASan covers this file. */
	printf("skipped: ThreadSanitizer does not support threads started "
	       "after a multi-threaded fork\n");
	return 77;
#endif
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_idle_auto_context),
		cmocka_unit_test(test_fork_while_thread_polls),
		cmocka_unit_test(test_fork_manual_context_is_dead_in_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
