/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The protocol layer when a peer goes away: a receiver that closes with
 * messages still queued (its senders are refused, never hung), and a
 * receiver or a sender SIGKILLed in the middle of a transfer (the
 * survivor completes in error and the dead region is cleaned up). Run
 * with and without FI_SHM_DISABLE_CMA=1 (meson), like test_shm_xfer.c.
 */

#include "shm_xfer_test.h"


/* ---- a receiver that closes with messages still queued ---- */

static void closing_receiver(void *p)
{
	struct pair_arg *a = p;
	struct node n;
	char c;

	node_open(&n, 0);
	SHM_CHECK(write(a->pipe_wr, "r", 1) == 1);
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);	/* all queued */
	shm_xfer_ep_close(n.ep);			/* never polled */
	SHM_CHECK(write(a->pipe_wr, "c", 1) == 1);
}

static void closing_sender(void *p)
{
	struct pair_arg *a = p;
	size_t big = 1 << 20;
	uint8_t *buf = calloc(1, big);
	struct shm_xfer_peer *peer, *cma_peer = NULL;
	struct node n, n2;
	unsigned expect = 2;
	char c;

	node_open(&n, 0);
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);
	peer = peer_of(&n, a->peer, 0);
	/* a second endpoint that segments everything */
	setenv("FI_SHM_SAR_THRESHOLD", "1073741824", 1);
	shm_params_reload_for_test();
	node_open(&n2, 1);
	SHM_CHECK(send_msg(&n, peer, buf, 100, 0, SHM_XF_DELIVERY, NULL) == 1);
	if (shm_xfer_send_proto(n.ep, peer, big) == SHM_PROTO_CMA) {
		SHM_CHECK(send_msg(&n, peer, buf, big, 0, 0, NULL) == 1);
		expect++;
	}
	cma_peer = peer_of(&n2, a->peer, 0);
	SHM_CHECK(send_msg(&n2, cma_peer, buf, big, 0, 0, NULL) == 1);
	SHM_CHECK(write(a->pipe_wr, "s", 1) == 1);
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);	/* closed */
	while (n.tx_pending || n2.tx_pending) {
		shm_xfer_ep_poll(n.ep, 64);
		shm_xfer_ep_poll(n2.ep, 64);
	}
	SHM_CHECK(n.tx_done + n2.tx_done == expect);
	SHM_CHECK(n.tx_status == -FI_ECONNRESET);
	SHM_CHECK(n2.tx_status == -FI_ECONNRESET);
	/* and nothing new is accepted */
	{
		struct iovec iov = { buf, 8 };
		struct shm_xfer_msg m = { .iov = &iov, .iov_count = 1 };

		SHM_CHECK(shm_xfer_send(n.ep, peer, &m) == -FI_ECONNREFUSED);
	}
	shm_xfer_peer_close(peer);
	shm_xfer_peer_close(cma_peer);
	shm_xfer_ep_close(n.ep);
	shm_xfer_ep_close(n2.ep);
	free(buf);
}

static void test_receiver_closes_with_queued(void **state)
{
	struct pair_arg ra = { 0 }, sa = { 0 };

	run_pair(closing_receiver, closing_sender, &ra, &sa);
}

/* ---- a peer killed in the middle of a transfer ---- */

static void force_sar(void)
{
	setenv("FI_SHM_SAR_THRESHOLD", "1073741824", 1);
	shm_params_reload_for_test();
}

/* After a cleanup pass the dead process's region is gone. (Another
 * process of ours may have cleaned it first: shm_xfer_ep_open does, once
 * per process, and tests run in parallel.) */
static bool region_gone_after_cleanup(pid_t dead)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/shm/propel-shm-%u-%d-0",
		 (unsigned)getuid(), (int)dead);
	if (shm_region_cleanup_dead(NULL))
		return false;
	return access(path, F_OK) != 0;
}

/* Receiver that takes the message unmatched, then is killed. */
static void victim_receiver(void *p)
{
	struct pair_arg *a = p;
	struct node n;

	node_open(&n, 0);
	(void)next_rx(&n);
	SHM_CHECK(write(a->pipe_wr, "g", 1) == 1);
	for (;;)
		pause();
}

static void survivor_sender(void *p)
{
	struct pair_arg *a = p;
	size_t len = 1 << 20;
	uint8_t *buf = calloc(1, len);
	struct shm_xfer_peer *peer;
	struct node n;
	char c;

	force_sar();
	node_open(&n, 0);
	peer = peer_of(&n, a->peer, 0);
	SHM_CHECK(send_msg(&n, peer, buf, len, 1, 0, NULL) == 1);
	/* and one waiting for an acknowledgement */
	SHM_CHECK(send_msg(&n, peer, buf, 10, 2, SHM_XF_DELIVERY, NULL) == 1);
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);
	kill(a->peer, SIGKILL);
	while (n.tx_pending)
		shm_xfer_ep_poll(n.ep, 64);	/* bounded: reaped */
	SHM_CHECK(n.tx_status == -FI_ECONNRESET && n.tx_done == 2);
	shm_xfer_peer_close(peer);
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void test_receiver_killed(void **state)
{
	struct pair_arg ra = { 0 }, sa = { 0 };

	run_pair_expect(victim_receiver, survivor_sender, &ra, &sa,
			128 + SIGKILL, 0);
	assert_true(region_gone_after_cleanup(ra.self));
}

/* Sender that fills one ring of a large message, then is killed. */
static void victim_sender(void *p)
{
	struct pair_arg *a = p;
	size_t len = 1 << 20;
	uint8_t *buf = calloc(1, len);
	struct shm_xfer_peer *peer;
	struct node n;

	force_sar();
	node_open(&n, 0);
	peer = peer_of(&n, a->peer, 0);
	SHM_CHECK(send_msg(&n, peer, buf, len, 1, 0, NULL) == 1);
	for (;;)
		pause();	/* never refills: the receiver waits */
}

static void survivor_receiver(void *p)
{
	struct pair_arg *a = p;
	uint8_t *buf = malloc(1 << 20);
	struct iovec iov = { buf, 1 << 20 };
	struct shm_xfer_rx *rx;
	struct node n;
	uint64_t len;

	node_open(&n, 0);
	rx = next_rx(&n);
	SHM_CHECK(shm_xfer_rx_deliver(rx, &iov, 1, &len) == 1);
	for (int i = 0; i < 100; i++)
		shm_xfer_ep_poll(n.ep, 64);
	SHM_CHECK(n.rx_done == 0);
	kill(a->peer, SIGKILL);
	while (!n.rx_done)
		shm_xfer_ep_poll(n.ep, 64);	/* bounded: reaped */
	SHM_CHECK(n.rx_status == -FI_ECONNRESET);
	SHM_CHECK(n.rx_len == SHM_SAR_RING * SHM_SAR_BUF_SIZE_DEFAULT);
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void test_sender_killed(void **state)
{
	struct pair_arg ra = { 0 }, sa = { 0 };

	run_pair_expect(survivor_receiver, victim_sender, &ra, &sa,
			0, 128 + SIGKILL);
	assert_true(region_gone_after_cleanup(sa.self));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_receiver_closes_with_queued),
		cmocka_unit_test(test_receiver_killed),
		cmocka_unit_test(test_sender_killed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
