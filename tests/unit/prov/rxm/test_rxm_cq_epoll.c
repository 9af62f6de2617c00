/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An rxm CQ's wait descriptor (FI_WAIT_FD, fi_control FI_GETWAIT) in an
 * epoll set of the application's, as an event loop holds it: the
 * receiver sleeps in epoll_wait after fi_trywait said it may, message
 * after message.
 *
 * Why: the kernel allows a chain of at most five epoll sets above a
 * descriptor. The descriptor was an epoll set over rxm's progress
 * context, over rxm's wait set, over tcp's context, over tcp's set of
 * sockets: five already, so epoll_ctl refused it (ELOOP) and a program
 * that did not check slept forever. Over tcp (FI_OFI_RXM_USE_SHM=0) and
 * through shm ("shm").
 *
 * epoll_wait's timeout is the watchdog's: a wait that outlives it is a
 * lost wake-up, reported as such; it does not time the work.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

#define MESSAGES	1000
#define HANG_MS		(WATCH_S * 1000)

static struct ep a, b;
static fi_addr_t b_at_a;
/* i + 1 once the receiver, waiting for message i, was let sleep by
 * fi_trywait: stored (release) by the receiver before epoll_wait,
 * loaded (acquire) by the sender before it injects message i */
static atomic_int asleep_for;

static uint64_t value(int i)
{
	return (uint64_t)i * 2654435761u + 1;
}

static void *sender(void *arg)
{
	uint64_t out;
	ssize_t r;

	(void)arg;
	for (int i = 0; i < MESSAGES; i++) {
		while (atomic_load_explicit(&asleep_for,
					    memory_order_acquire) != i + 1)
			sched_yield();
		out = value(i);
		/* an inject leaves from the call with nothing to complete:
		 * only B's descriptor can say it arrived */
		do {
			r = fi_tinject(a.ep, &out, sizeof(out), b_at_a, 2);
			if (r == -FI_EAGAIN)
				(void)fi_cq_read(a.cq, NULL, 0);
		} while (r == -FI_EAGAIN);
		CHECK_EQ(r, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ep *all[] = { &a, &b };
	pthread_t t;
	struct epoll_event ev = { .events = EPOLLIN }, got;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fid *waiting[1];
	uint64_t out = 0, in = 0;
	int cq_fd, epfd, i, sleeps = 0, n;
	ssize_t r;

	CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM",
			argc == 2 && !strcmp(argv[1], "shm") ? "1" : "0", 1),
		 0);
	rxm_test_start();
	rxm_test_cq_wait = FI_WAIT_FD;
	phase = "cq_epoll: open";
	ep_open(&a);
	ep_open(&b);
	b_at_a = insert(&a, &b);
	(void)insert(&b, &a);

	phase = "cq_epoll: the descriptor in an application's epoll set";
	CHECK_EQ(fi_control(&b.cq->fid, FI_GETWAIT, &cq_fd), 0);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	CHECK(epfd >= 0);
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, cq_fd, &ev)) {
		fprintf(stderr, "epoll_ctl ADD of the CQ's descriptor: %s\n",
			strerror(errno));
		return 1;
	}

	phase = "cq_epoll: the first message (the connection forms)";
	CHECK_EQ(fi_trecv(b.ep, &in, sizeof(in), NULL, FI_ADDR_UNSPEC, 1, 0,
			  &in), 0);
	send_one(all, 2, &a, &out, sizeof(out), b_at_a, true, 1);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, NULL), 1);

	phase = "cq_epoll: messages while the receiver sleeps in epoll";
	CHECK_EQ(pthread_create(&t, NULL, sender, NULL), 0);
	for (i = 0; i < MESSAGES; i++) {
		CHECK_EQ(fi_trecv(b.ep, &in, sizeof(in), NULL, FI_ADDR_UNSPEC,
				  2, 0, &in), 0);
		for (;;) {
			r = fi_cq_read(b.cq, &e, 1);
			if (r == 1)
				break;
			CHECK_EQ(r, -FI_EAGAIN);
			waiting[0] = &b.cq->fid;
			if (fi_trywait(b.fabric, waiting, 1) != FI_SUCCESS)
				continue;
			sleeps++;
			atomic_store_explicit(&asleep_for, i + 1,
					      memory_order_release);
			n = epoll_wait(epfd, &got, 1, HANG_MS);
			if (n == 0) {
				fprintf(stderr, "message %d: fi_trywait let us "
					"sleep and no wake-up came\n", i);
				return 1;
			}
			CHECK(n == 1 || (n < 0 && errno == EINTR));
		}
		CHECK_EQ(e.tag, 2);
		CHECK_EQ(in, value(i));
	}
	CHECK_EQ(pthread_join(t, NULL), 0);
	printf("cq_epoll: %d messages, %d sleeps in epoll_wait\n", MESSAGES,
	       sleeps);
	/* every message came to a sleeping receiver */
	CHECK(sleeps >= MESSAGES);
	close(epfd);
	phase = "cq_epoll: close";
	ep_close(&a);
	ep_close(&b);
	return 0;
}
