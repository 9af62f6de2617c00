/* SPDX-License-Identifier: BSD-2-Clause */
/* pl_proc: the caller is alive under its own start time and no other; a
 * child is alive while it runs, dead once it exits (a zombie before it is
 * reaped, gone after). A process that cannot read /proc (no file
 * descriptor left) does not call a live one dead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_proc.h"

static void test_self_is_alive_under_its_start_time(void **state)
{
	uint64_t s1 = 0, s2 = 0;

	assert_int_equal(pl_proc_start_time(getpid(), &s1), 0);
	assert_int_equal(pl_proc_start_time(getpid(), &s2), 0);
	assert_true(s1 == s2 && s1 != 0);
	assert_true(pl_proc_alive(getpid(), s1));
	assert_true(pl_proc_alive(getpid(), 0));
	/* same pid, another start time: another process */
	assert_false(pl_proc_alive(getpid(), s1 + 1));
	assert_false(pl_proc_alive(0, 0));
	assert_false(pl_proc_alive(-1, 0));
}

static void test_child_alive_then_zombie_then_gone(void **state)
{
	int go[2], st;
	uint64_t start = 0, keep = 12345;
	char c;
	pid_t pid;

	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* waits for the parent's byte (or its end), then exits */
		close(go[1]);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	assert_int_equal(pl_proc_start_time(pid, &start), 0);
	assert_true(pl_proc_alive(pid, start));
	(void)!write(go[1], "x", 1);
	close(go[1]);
	/* exited, not reaped: a zombie, dead for us. waitid(WNOWAIT) says
	 * it exited without reaping it. */
	{
		siginfo_t si;

		assert_int_equal(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	}
	assert_false(pl_proc_alive(pid, start));
	assert_false(pl_proc_alive(pid, 0));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_false(pl_proc_alive(pid, start));
	/* gone: no start time, and the output is left alone */
	assert_int_equal(pl_proc_start_time(pid, &keep), -FI_ENOENT);
	assert_int_equal(keep, 12345);
}

/* In a child whose every descriptor is taken: /proc cannot be opened,
 * and the parent, alive, must stay alive for us; a gone pid stays gone
 * (kill() still says so). */
static void test_no_fd_left_is_not_a_death(void **state)
{
	uint64_t start = 0;
	pid_t parent = getpid(), child, gone;
	int st;

	assert_int_equal(pl_proc_start_time(parent, &start), 0);
	gone = fork();
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, &st, 0), gone);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		struct rlimit rl = { 64, 64 };
		uint64_t s;
		int ok = 1;

		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(3);
		while (open("/dev/null", O_RDONLY) >= 0)
			;
		/* the precondition: /proc is out of reach */
		if (pl_proc_start_time(parent, &s) != -FI_EAGAIN)
			_exit(4);
		ok &= pl_proc_alive(parent, start);
		ok &= pl_proc_alive(parent, 0);
		ok &= !pl_proc_alive(gone, 0);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_is_alive_under_its_start_time),
		cmocka_unit_test(test_child_alive_then_zombie_then_gone),
		cmocka_unit_test(test_no_fd_left_is_not_a_death),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
