/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The auto-progress additions to the wake-up descriptor
 * (prov/shm/transport/shm_wake.c): the descriptor an owner sleeps on covers
 * both the datagram socket and the liveness timer; shm_wake_timer_due()
 * consumes an expired timer so the descriptor is quiet again (a readable
 * descriptor nobody consumes would make a sleeping progress thread spin); a
 * timer is started once until consumed; and a signal to one's own socket wakes
 * the descriptor. Waits are bounded by generous poll() timeouts, never asserted
 * short.
 */
#include <poll.h>
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

static const struct shm_layout_req req = {
	.cmdq_slots = 16, .inline_max = 64, .peer_count = 4,
};

/* each test its own name, so one that fails (and leaves its socket
 * bound) does not make the next fail with -FI_EADDRINUSE */
static void own_name(unsigned idx, char *buf, size_t len)
{
	char addr[SHM_NAME_MAX];

	shm_addr_format(getpid(), getuid(), idx, addr, sizeof(addr));
	shm_addr_region_name(addr, buf, len);
}

/* Is fd readable within ms milliseconds? */
static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void test_timer_wakes_and_is_consumed(void **state)
{
	struct shm_wake w;

	(void)state;
	assert_int_equal(shm_wake_open(&w), 0);
	assert_false(readable(shm_wake_fd(&w), 0));
	assert_false(shm_wake_timer_due(&w));	/* none running */
	assert_int_equal(shm_wake_timer_start(&w, 30), 0);
	assert_true(w.timer_set);
	/* a second start while one runs changes nothing */
	assert_int_equal(shm_wake_timer_start(&w, 100000), 0);
	assert_true(readable(shm_wake_fd(&w), 10000));
	assert_true(shm_wake_timer_due(&w));
	assert_false(w.timer_set);
	/* consumed: quiet again, and due() says no */
	assert_false(readable(shm_wake_fd(&w), 50));
	assert_false(shm_wake_timer_due(&w));
	shm_wake_close(&w);
}

static void test_due_before_expiry_is_false(void **state)
{
	struct shm_wake w;

	(void)state;
	assert_int_equal(shm_wake_open(&w), 0);
	assert_int_equal(shm_wake_timer_start(&w, 60000), 0);
	assert_false(shm_wake_timer_due(&w));
	assert_true(w.timer_set);
	assert_false(readable(shm_wake_fd(&w), 0));
	shm_wake_close(&w);
}

static void test_self_signal_wakes(void **state)
{
	char name[SHM_REGION_NAME_MAX];
	struct shm_wake_addr self;
	struct shm_region *own;
	struct shm_wake w;

	(void)state;
	own_name(10, name, sizeof(name));
	assert_int_equal(shm_wake_open(&w), 0);
	assert_int_equal(shm_region_create(name, &req, 0, &own), 0);
	self = w.self;
	/* awake: a signal sends nothing */
	assert_int_equal(shm_wake_signal(w.tx_fd, own, &self), 0);
	assert_false(readable(shm_wake_fd(&w), 0));
	/* asleep (empty queue): a signal makes the descriptor readable */
	assert_int_equal(shm_wake_arm(&w, own), 0);
	assert_int_equal(shm_wake_signal(w.tx_fd, own, &self), 1);
	assert_true(readable(shm_wake_fd(&w), 10000));
	shm_wake_awake(&w, own);
	assert_false(readable(shm_wake_fd(&w), 0));
	shm_region_close(own);
	shm_wake_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_wakes_and_is_consumed),
		cmocka_unit_test(test_due_before_expiry_is_false),
		cmocka_unit_test(test_self_signal_wakes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
