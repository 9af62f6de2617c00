/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Process liveness (pl_proc.h).
 *
 * /proc/PID/stat field 22 (start time, in clock ticks since boot) is fixed
 * for the life of a process, so a different value under the same pid
 * means a different process.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_proc.h"

/* Start time of pid; *zombie_p (may be NULL) tells a process that exited
 * and waits for its parent (state Z or X): it will never act again.
 * -FI_ENOENT only when the kernel says pid is gone (the entry is absent,
 * or vanished between open and read); any other failure (no fd left,
 * no memory, a line we cannot parse) is -FI_EAGAIN: we do not know. */
static int pl_proc_stat(pid_t pid, uint64_t *start_p, bool *zombie_p)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -FI_ENOENT :
							   -FI_EAGAIN;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno != ESRCH) {
		close(fd);
		return -FI_EAGAIN;
	}
	close(fd);
	if (n <= 0)
		return -FI_ENOENT;	/* reaped after our open */
	buf[n] = '\0';
	/* the command name (field 2) may hold spaces and ')' */
	p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2])
		return -FI_EAGAIN;
	/* p + 2 is field 3 (state); field 22 is 19 fields further */
	p += 2;
	if (zombie_p)
		*zombie_p = *p == 'Z' || *p == 'X' || *p == 'x';
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &start) != 1)
		return -FI_EAGAIN;
	*start_p = start;
	return 0;
}

int pl_proc_start_time(pid_t pid, uint64_t *start_p)
{
	return pl_proc_stat(pid, start_p, NULL);
}

bool pl_proc_alive(pid_t pid, uint64_t start)
{
	bool zombie = false;
	uint64_t now;
	int ret;

	if (pid <= 0)
		return false;
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	/* a zombie (killed, not yet reaped by its parent) still answers
	 * kill(); it is dead for us. Dead means the kernel said so: a
	 * failure to look (no fd left on a loaded machine) is not a death,
	 * and calling a live peer dead fails its traffic for good. */
	ret = pl_proc_stat(pid, &now, &zombie);
	if (ret == -FI_ENOENT)
		return false;
	if (ret)
		return true;
	return !zombie && (!start || now == start);
}
