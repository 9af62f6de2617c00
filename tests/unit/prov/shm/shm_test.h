/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the shm tests: real processes (fork), real shared memory.
 * A child reports failure through its exit status: SHM_CHECK prints the
 * condition and exits 1; an alarm turns a hang into a failure (signal).
 */
#ifndef PROPEL_TESTS_SHM_TEST_H
#define PROPEL_TESTS_SHM_TEST_H

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

/* The watchdog's period (seconds); a test may define its own first. */
#ifndef SHM_TEST_ALARM_S
#define SHM_TEST_ALARM_S 30
#endif

#define SHM_CHECK(cond)                                                      \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "CHECK FAILED %s:%d (pid %d): %s\n", \
				__FILE__, __LINE__, (int)getpid(), #cond);   \
			fflush(stderr);                                      \
			_exit(1);                                            \
		}                                                            \
	} while (0)

/*
 * The watchdog catches hangs, not slow runs (a loaded machine, TSan):
 * every SHM_TEST_ALARM_S seconds a child's alarm looks at the test's
 * progress counter, shared by all its processes; while the counter has
 * moved since the last look the alarm re-arms, and only when nothing
 * moved for a whole period does the child end with SIGALRM, as before.
 * A test counts progress with shm_test_progress() where it completes
 * work (a command pushed or popped, a completion read); one that never
 * does keeps a plain SHM_TEST_ALARM_S alarm.
 */
static _Atomic uint64_t *shm_test_beat;	/* MAP_SHARED, before any fork */
static uint64_t shm_test_beat_seen;		/* per process */

static inline void shm_test_progress(void)
{
	/* relaxed: a liveness hint, it orders nothing */
	if (shm_test_beat)
		atomic_fetch_add_explicit(shm_test_beat, 1,
					  memory_order_relaxed);
}

static inline void shm_test_on_alarm(int sig)
{
	/* relaxed: pairs with nothing, see shm_test_progress */
	uint64_t now = shm_test_beat ?
		atomic_load_explicit(shm_test_beat, memory_order_relaxed) : 0;

	if (now != shm_test_beat_seen) {
		shm_test_beat_seen = now;
		alarm(SHM_TEST_ALARM_S);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* In a child: the watchdog above. */
static inline void shm_test_watchdog(void)
{
	if (shm_test_beat) {
		shm_test_beat_seen = atomic_load_explicit(shm_test_beat,
							  memory_order_relaxed);
		signal(SIGALRM, shm_test_on_alarm);
	}
	alarm(SHM_TEST_ALARM_S);
}

/* In the parent, before forking: make the shared progress counter. */
static inline void shm_test_watchdog_init(void)
{
	void *p;

	if (shm_test_beat)
		return;
	p = mmap(NULL, sizeof(*shm_test_beat), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		shm_test_beat = p;
}

/* In a test's main process: the same watchdog for the whole scenario
 * (children spawned later share its counter). */
static inline void shm_test_watchdog_start(void)
{
	shm_test_watchdog_init();
	shm_test_watchdog();
}

/* Fork a child that runs fn(arg) under the watchdog and exits 0. */
static inline pid_t shm_test_spawn(void (*fn)(void *), void *arg)
{
	pid_t pid;

	shm_test_watchdog_init();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		shm_test_watchdog();
		fn(arg);
		_exit(0);
	}
	return pid;
}

/* Exit status of pid, 128 + signal when killed. */
static inline int shm_test_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Deterministic bytes of message `seq` at offset i. */
static inline uint8_t shm_test_byte(uint64_t seq, uint64_t i)
{
	return (uint8_t)((seq * 131 + i * 7 + (i >> 8)) ^ (seq >> 3));
}

static inline void shm_test_fill(void *buf, uint64_t len, uint64_t seq)
{
	for (uint64_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = shm_test_byte(seq, i);
}

static inline int shm_test_verify(const void *buf, uint64_t len, uint64_t seq)
{
	for (uint64_t i = 0; i < len; i++)
		if (((const uint8_t *)buf)[i] != shm_test_byte(seq, i))
			return -1;
	return 0;
}

/* fi_getinfo for the shm provider as the endpoint tests ask for it: RDM,
 * caps, the mr_mode bits every test supports (SHM_TEST_MR_MODE in the
 * environment, a number, replaces them: 0 is what symmetric-heap PGAS
 * runtimes ask, offsets and their own keys), and the threading and
 * data_progress asked for (0: unspecified). shm answers offsets and
 * application keys to any hints (shm_mr_mode.c); the tests run in the
 * mode they name, so the fi_info they open gets the hints' choice bits
 * back, as an application that wants virtual addresses and provider
 * keys sets them. */
static inline int shm_test_getinfo(uint64_t caps, enum fi_threading threading,
				   enum fi_progress progress,
				   struct fi_info **info_p)
{
	struct fi_info *hints = fi_allocinfo();
	int ret;

	if (!hints)
		return -FI_ENOMEM;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = caps;
	hints->domain_attr->mr_mode = getenv("SHM_TEST_MR_MODE") ?
		(int)strtol(getenv("SHM_TEST_MR_MODE"), NULL, 0) :
		FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED;
	hints->domain_attr->threading = threading;
	hints->domain_attr->data_progress = progress;
	hints->fabric_attr->prov_name = strdup("shm");
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, info_p);
	/* the mode granted is one the test asked for */
	if (!ret && ((*info_p)->domain_attr->mr_mode &
		     ~hints->domain_attr->mr_mode))
		ret = -FI_ENODATA;
	if (!ret)
		(*info_p)->domain_attr->mr_mode = hints->domain_attr->mr_mode &
			(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY);
	fi_freeinfo(hints);
	return ret;
}

#endif /* PROPEL_TESTS_SHM_TEST_H */
