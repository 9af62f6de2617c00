/* SPDX-License-Identifier: BSD-2-Clause */
/* producers write EQ events; one consumer blocks only through fi_trywait
 * + epoll_wait on the EQ's fd; every event must arrive exactly once. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "pl_eq.h"
#include "pl_trywait.h"

#define NPROD 2
#define PER 20000

static struct fid_eq *eq;
static unsigned char seen[NPROD * PER];

static void *producer(void *arg)
{
	uint64_t base = (uintptr_t)arg * PER;

	for (uint64_t i = 0; i < PER; i++) {
		uint64_t v = base + i;
		/* the EQ is bounded: wait for the reader when full */
		while (pl_eq_write_event(eq, FI_NOTIFY, &v, sizeof(v), 0) ==
		       -FI_EAGAIN)
			sched_yield();
	}
	return NULL;
}

static void test_trywait_epoll(void **s)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_FD };
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct fid *fids[1];
	pthread_t th[NPROD];
	uint32_t event;
	uint64_t v;
	int fd, ep, got = 0, ret;

	(void)s;
	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	assert_int_equal(fi_control(&eq->fid, FI_GETWAIT, &fd), 0);
	ep = epoll_create1(0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	fids[0] = &eq->fid;
	assert_int_equal(pl_trywait(NULL, fids, 1), 0);
	for (uintptr_t i = 0; i < NPROD; i++)
		pthread_create(&th[i], NULL, producer, (void *)i);
	while (got < NPROD * PER) {
		ret = (int)fi_eq_read(eq, &event, &v, sizeof(v), 0);
		if (ret == sizeof(v)) {
			assert_true(v < NPROD * PER);
			assert_int_equal(seen[v], 0);
			seen[v] = 1;
			got++;
			continue;
		}
		assert_int_equal(ret, -FI_EAGAIN);
		if (pl_trywait(NULL, fids, 1) == 0)
			/* watchdog: 30 s without an event is a lost wake-up */
			assert_int_equal(epoll_wait(ep, &out, 1, 30000), 1);
	}
	for (int i = 0; i < NPROD; i++)
		pthread_join(th[i], NULL);
	close(ep);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_trywait_bad_class(void **s)
{
	struct fid f = { .fclass = FI_CLASS_AV };
	struct fid *fids[1] = { &f };

	(void)s;
	assert_int_equal(pl_trywait(NULL, fids, 1), -FI_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trywait_bad_class),
		cmocka_unit_test(test_trywait_epoll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
