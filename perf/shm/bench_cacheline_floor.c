/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The floor under any shared-memory ping-pong on this machine: two
 * processes on CPUs 0 and 1 pass a counter back and forth through slots
 * of a shared mapping, the way a command queue would (each message in a
 * fresh 128-byte slot of a 64-slot ring, one line written and polled),
 * with no library at all. A provider's one-way latency minus this is
 * what its software costs.
 *
 *   bench_cacheline_floor [round trips]   default 2000000
 *
 * Prints the one-way time in microseconds. Needs two CPUs.
 */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOTS		64
#define SLOT_WORDS	16	/* 128 bytes */

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static volatile uint64_t *slot(volatile uint64_t *ring, uint64_t i)
{
	return ring + (i % SLOTS) * SLOT_WORDS;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000, i;
	size_t ring_len = SLOTS * SLOT_WORDS * sizeof(uint64_t);
	volatile uint64_t *ping, *pong;
	struct timespec t0, t1;
	int status;
	pid_t child;
	void *mem;

	if (!n)
		return 2;
	mem = mmap(NULL, 2 * ring_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	ping = mem;
	pong = ping + SLOTS * SLOT_WORDS;
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		if (pin(1))
			_exit(3);
		/* volatile accesses, x86 store order: each store is seen
		 * after the ones before it, nothing more is needed here */
		for (i = 1; i <= n; i++) {
			while (*slot(ping, i) != i)
				;
			*slot(pong, i) = i;
		}
		_exit(0);
	}
	if (pin(0)) {
		fprintf(stderr, "bench_cacheline_floor: needs CPUs 0 and 1\n");
		kill(child, SIGKILL);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 1; i <= n; i++) {
		*slot(ping, i) = i;
		while (*slot(pong, i) != i)
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench_cacheline_floor: the echo process failed "
			"(needs CPUs 0 and 1)\n");
		return 1;
	}
	printf("cache-line ping-pong, one way: %.3f us\n",
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		(double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)n / 2.0);
	return 0;
}
