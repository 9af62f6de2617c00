/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test helpers for state that a process reads only once (the logging
 * configuration, the tuning profile, an imported logger): each scenario
 * runs in a forked child with its own environment, and the parent
 * asserts on what the child wrote to stderr and on its exit status.
 *
 * In the child, use PL_CHILD_CHECK instead of cmocka's asserts: it prints
 * the failed condition (which the parent shows) and exits 1.
 */
#ifndef PROPEL_TESTS_PL_TEST_CHILD_H
#define PROPEL_TESTS_PL_TEST_CHILD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PL_CHILD_CHECK(cond)                                                 \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "CHILD CHECK FAILED %s:%d: %s\n",    \
				__FILE__, __LINE__, #cond);                  \
			fflush(stderr);                                      \
			_exit(1);                                            \
		}                                                            \
	} while (0)

/* Size of the stderr text a child may leave; more is cut. */
#define PL_CHILD_OUT_MAX 65536

struct pl_child_result {
	int	status;			/* exit status, or 128 + signal */
	char	out[PL_CHILD_OUT_MAX];	/* the child's stderr, NUL-ended */
};

/*
 * Fork; in the child set each "NAME=VALUE" of env (NULL-ended; a bare
 * "NAME" unsets it), point stderr at a pipe, run fn(arg) and exit 0.
 * Fills res in the parent. Returns 0, or -1 if the fork or pipe failed.
 */
static inline int pl_child_run(void (*fn)(void *), void *arg,
			       const char *const *env,
			       struct pl_child_result *res)
{
	size_t used = 0;
	int fds[2], wstatus;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		for (; env && *env; env++) {
			const char *eq = strchr(*env, '=');

			if (eq) {
				char name[256];

				snprintf(name, sizeof(name), "%.*s",
					 (int)(eq - *env), *env);
				setenv(name, eq + 1, 1);
			} else {
				unsetenv(*env);
			}
		}
		dup2(fds[1], STDERR_FILENO);
		close(fds[1]);
		fn(arg);
		fflush(stderr);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		n = read(fds[0], res->out + used, sizeof(res->out) - 1 - used);
		if (n > 0) {
			used += (size_t)n;
			if (used == sizeof(res->out) - 1)
				break;
		} else if (n == 0 || errno != EINTR) {
			break;
		}
	}
	res->out[used] = '\0';
	close(fds[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	res->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
		      128 + WTERMSIG(wstatus);
	return 0;
}

/*
 * In-process capture of stderr, for state the process may keep: the text
 * written between begin and end lands in buf (NUL-ended, cut to len).
 */
struct pl_capture {
	FILE	*file;
	int	saved_fd;
};

static inline int pl_capture_begin(struct pl_capture *cap)
{
	fflush(stderr);
	cap->saved_fd = -1;
	cap->file = tmpfile();
	if (!cap->file)
		return -1;
	cap->saved_fd = dup(STDERR_FILENO);
	if (cap->saved_fd < 0 ||
	    dup2(fileno(cap->file), STDERR_FILENO) < 0) {
		if (cap->saved_fd >= 0)
			close(cap->saved_fd);
		cap->saved_fd = -1;
		fclose(cap->file);
		return -1;
	}
	return 0;
}

static inline void pl_capture_end(struct pl_capture *cap, char *buf,
				  size_t len)
{
	size_t n;

	buf[0] = '\0';
	if (cap->saved_fd < 0)
		return;
	fflush(stderr);
	dup2(cap->saved_fd, STDERR_FILENO);
	close(cap->saved_fd);
	rewind(cap->file);
	n = fread(buf, 1, len - 1, cap->file);
	buf[n] = '\0';
	fclose(cap->file);
}

/* Number of times needle occurs in haystack. */
static inline int pl_count(const char *haystack, const char *needle)
{
	size_t len = strlen(needle);
	int n = 0;

	while ((haystack = strstr(haystack, needle))) {
		n++;
		haystack += len;
	}
	return n;
}

#endif /* PROPEL_TESTS_PL_TEST_CHILD_H */
