/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wake-up protocol (prov/shm/transport/shm_wake.c) between two processes:
 * each side sleeps in poll() on its socket whenever its queue is empty, and a
 * ping-pong of many rounds completes only if no wake-up is ever lost (a lost
 * one shows as a poll() timeout of 10 s, which fails the test). A sender
 * signals only a receiver that declared itself asleep.
 */
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "shm_addr.h"
#include "shm_cmdq.h"
#include "shm_test.h"
#include "shm_wake.h"

#define ROUNDS 3000

static const struct shm_layout_req req = {
	.cmdq_slots = 16, .inline_max = 64, .peer_count = 4,
};

struct side {
	struct shm_region *own, *peer;
	struct shm_wake w;
	struct shm_wake_addr peer_addr;
	uint64_t sleeps, signals;
};

static void name_of(pid_t pid, char *buf, size_t len)
{
	char addr[SHM_NAME_MAX];

	shm_addr_format(pid, getuid(), 0, addr, sizeof(addr));
	shm_addr_region_name(addr, buf, len);
}

/* req, publishing w's address in the region (as shm_xfer_ep_open) */
static const struct shm_layout_req *req_with_wake(const struct shm_wake *w)
{
	static struct shm_layout_req r;

	r = req;
	r.wake_len = (uint32_t)(w->self.len -
				offsetof(struct sockaddr_un, sun_path));
	r.wake_addr = (const uint8_t *)w->self.sun.sun_path;
	return &r;
}

static int side_open(struct side *s, pid_t self, pid_t other)
{
	char mine[SHM_REGION_NAME_MAX], theirs[SHM_REGION_NAME_MAX];
	int ret, tries = 0;

	memset(s, 0, sizeof(*s));
	name_of(self, mine, sizeof(mine));
	name_of(other, theirs, sizeof(theirs));
	if (shm_wake_open(&s->w) ||
	    shm_region_create(mine, req_with_wake(&s->w), 0, &s->own))
		return -1;
	while ((ret = shm_region_map(theirs, &s->peer)) && tries++ < 100000)
		sched_yield();
	return ret ? ret : shm_wake_addr_of(&s->peer_addr, s->peer);
}

/* Block until our queue has a command; sleeping whenever it is empty. */
static void side_wait(struct side *s)
{
	struct pollfd pfd = { .fd = shm_wake_fd(&s->w), .events = POLLIN };
	struct shm_cmd *cmd;

	for (;;) {
		shm_wake_awake(&s->w, s->own);
		cmd = shm_cmdq_peek(s->own);
		if (cmd) {
			shm_cmdq_release(s->own, cmd);
			return;
		}
		if (shm_wake_arm(&s->w, s->own))
			continue;
		s->sleeps++;
		SHM_CHECK(poll(&pfd, 1, 10000) == 1);	/* lost wake-up? */
	}
}

static void side_send(struct side *s, uint64_t seq)
{
	struct shm_cmd *cmd;

	while (shm_cmdq_claim(s->peer, getpid(), &cmd) == -FI_EAGAIN)
		sched_yield();
	cmd->op = SHM_OP_NOP;
	cmd->tag = seq;
	shm_cmdq_commit(s->peer, cmd);
	if (shm_wake_signal(s->w.tx_fd, s->peer, &s->peer_addr) > 0)
		s->signals++;
}

static void side_close(struct side *s)
{
	shm_region_unmap(s->peer);
	shm_region_close(s->own);
	shm_wake_close(&s->w);
}

static void child_pong(void *arg)
{
	pid_t parent = *(pid_t *)arg;
	struct side s;

	SHM_CHECK(side_open(&s, getpid(), parent) == 0);
	for (unsigned i = 0; i < ROUNDS; i++) {
		side_wait(&s);
		side_send(&s, i);
	}
	/* stay until the parent is done with our region */
	side_wait(&s);
	side_close(&s);
}

static void test_ping_pong_sleeping(void **state)
{
	pid_t self = getpid(), child;
	struct side s;

	child = shm_test_spawn(child_pong, &self);
	assert_int_equal(side_open(&s, self, child), 0);
	for (unsigned i = 0; i < ROUNDS; i++) {
		side_send(&s, i);
		side_wait(&s);
	}
	side_send(&s, ROUNDS);
	assert_int_equal(shm_test_wait(child), 0);
	/* we did sleep, and every sleep was ended by a datagram or a race
	 * that arm caught (never by a timeout: that fails the child/us) */
	print_message("parent sleeps %llu signals sent %llu drained %llu\n",
		      (unsigned long long)s.sleeps,
		      (unsigned long long)s.signals,
		      (unsigned long long)s.w.signals_rx);
	assert_true(s.sleeps > 0);
	side_close(&s);
}

static void test_no_signal_when_awake(void **state)
{
	char name[SHM_REGION_NAME_MAX];
	struct shm_wake_addr a;
	struct shm_region *r;
	struct shm_wake w;
	struct pollfd pfd;

	name_of(getpid(), name, sizeof(name));
	assert_int_equal(shm_wake_open(&w), 0);
	assert_int_equal(shm_region_create(name, req_with_wake(&w), 0, &r), 0);
	/* what a peer reads from the header is the bound address */
	assert_int_equal(shm_wake_addr_of(&a, r), 0);
	assert_int_equal(a.len, w.self.len);
	assert_memory_equal(&a.sun, &w.self.sun, a.len);
	/* awake: nothing is sent */
	assert_int_equal(shm_wake_signal(w.tx_fd, r, &a), 0);
	/* asleep: exactly one datagram, then the flag is cleared */
	assert_int_equal(shm_wake_arm(&w, r), 0);
	assert_int_equal(shm_wake_signal(w.tx_fd, r, &a), 1);
	assert_int_equal(shm_wake_signal(w.tx_fd, r, &a), 0);
	pfd = (struct pollfd){ .fd = shm_wake_fd(&w), .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 1);
	shm_wake_awake(&w, r);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	/* the kernel names each socket: a second one never collides */
	{
		struct shm_wake w2;

		assert_int_equal(shm_wake_open(&w2), 0);
		assert_true(w2.self.len != w.self.len ||
			    memcmp(&w2.self.sun, &w.self.sun, w.self.len));
		shm_wake_close(&w2);
	}
	/* a receiver whose socket is gone (closed or dead): the sender
	 * learns it from the failed send */
	{
		int tx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		shm_wake_close(&w);
		pl_store_relaxed(&r->ctl->asleep, 1u);
		assert_int_equal(shm_wake_signal(tx, r, &a), -FI_ECONNREFUSED);
		close(tx);
	}
	/* the published address is input: out of bounds, or a path
	 * rather than an abstract name, is refused */
	{
		struct shm_wake_addr b;

		r->geo.wake_len = SHM_WAKE_ADDR_MAX + 1;
		assert_int_equal(shm_wake_addr_of(&b, r), -FI_ENOPROTOOPT);
		r->geo.wake_len = 1;
		assert_int_equal(shm_wake_addr_of(&b, r), -FI_ENOPROTOOPT);
		r->geo.wake_len = 6;
		r->geo.wake_addr[0] = '/';
		assert_int_equal(shm_wake_addr_of(&b, r), -FI_ENOPROTOOPT);
	}
	shm_region_close(r);
}

static void test_arm_sees_pending(void **state)
{
	char name[SHM_REGION_NAME_MAX];
	struct shm_region *r;
	struct shm_wake w;
	struct shm_cmd *cmd;

	name_of(getpid(), name, sizeof(name));
	assert_int_equal(shm_wake_open(&w), 0);
	assert_int_equal(shm_region_create(name, &req, 0, &r), 0);
	assert_int_equal(shm_cmdq_claim(r, getpid(), &cmd), 0);
	shm_cmdq_commit(r, cmd);
	assert_int_equal(shm_wake_arm(&w, r), -FI_EAGAIN);
	assert_int_equal(pl_load_relaxed(&r->ctl->asleep), 0);
	shm_region_close(r);
	shm_wake_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_signal_when_awake),
		cmocka_unit_test(test_arm_sees_pending),
		cmocka_unit_test(test_ping_pong_sleeping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
