/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Start-up cost: the wall time from a process's first fi_getinfo call to
 * the first message it receives. Each sample is a fresh pair of processes
 * forked from a driver that never calls into the fabric library: rank 0
 * opens its endpoint, exchanges names with rank 1, sends 8 B (-s) and
 * waits for the echo; rank 1 opens, waits for that message and echoes it.
 * Each measures from its own fi_getinfo to its own first receive, and
 * the sample is the larger of the two, in milliseconds. One CSV row,
 * "startup" (size column: the message size), median and spread over -r
 * samples after -w untimed ones (which warm the page cache).
 *
 * The library is loaded (and its constructors have run) in the driver
 * before the fork: what is timed is initialisation from fi_getinfo on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bf_common.h"
#include "pl_bench.h"

struct su_state {
	const struct bf_opts *opts;
	int result_fd;		/* write end, in the pair's processes */
};

static int su_body(struct bf_side *side, void *arg)
{
	struct su_state *st = arg;
	size_t len = side->opts->size;
	double ms;

	bf_recv(side, len, 0);
	if (side->rank == 0)
		bf_send(side, len, 0);
	bf_wait(side, 0, 1);
	ms = (double)(pl_bench_now_ns() - side->t_getinfo_ns) / 1e6;
	if (side->rank == 1)
		bf_send(side, len, 0);
	bf_wait(side, side->rank == 1 ? 1 : 0, 1);
	if (write(st->result_fd, &ms, sizeof(ms)) != sizeof(ms))
		return 1;
	return 0;
}

/* One sample: a fresh pair; the larger of the two start-up times. */
static double su_sample(void *arg)
{
	struct su_state *st = arg;
	double ms[2] = { -1, -1 };
	size_t got = 0;
	ssize_t n;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		st->result_fd = fds[1];
		_exit(bf_run_pair(st->opts, su_body, st));
	}
	close(fds[1]);
	while (got < sizeof(ms)) {
		n = read(fds[0], (char *)ms + got, sizeof(ms) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || got != sizeof(ms)) {
		fprintf(stderr, "bench_fabric_startup: a pair failed\n");
		exit(1);
	}
	return ms[0] > ms[1] ? ms[0] : ms[1];
}

int main(int argc, char **argv)
{
	struct bf_opts opts;
	struct su_state st = { .opts = &opts };
	struct pl_bench_stats stats;
	struct pl_bench_series series = { .name = "startup", .unit = "ms",
					  .sample = su_sample, .arg = &st };

	bf_opts_parse(argc, argv, NULL, &opts);
	opts.tagged = true;
	if (!opts.size)
		opts.size = 8;
	opts.min_size = opts.max_size = opts.size;
	series.warmup = opts.warmup;
	series.reps = opts.reps;
	if (pl_bench_run(&series, &stats, NULL))
		return 1;
	pl_bench_csv_header(stdout);
	pl_bench_csv_row(stdout, "startup", pl_bench_library_name(), opts.size,
			 "ms", &stats);
	return 0;
}
