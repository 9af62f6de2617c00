/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The protocol layer (prov/shm/xfer/shm_xfer_*.c) between real processes:
 * inline, SAR and CMA messages of many sizes with data checks in both
 * directions, delivery-complete acknowledgements, truncation and discard,
 * flow control with a receiver that does not take a message, several
 * senders into one receiver, and endpoints that sleep on their wake-up
 * descriptor whenever idle. Run once as is and once with
 * FI_SHM_DISABLE_CMA=1 (meson), where no message may use CMA.
 *
 * Every endpoint lives in a forked child; the cmocka process only forks
 * and waits. A lost wake-up shows as a 10 s poll() timeout: failure.
 */

#include "shm_xfer_test.h"

static const size_t sizes[] = {
	0, 1, 7, 8, 9, 63, 64, 100, 191, 192, 193, 255, 256, 1000, 4095, 4096, 4097,
	12345, 16383, 16384, 16385, 32767, 32768, 32769, 65536 + 7,
	131072, 131073, 500000, 1 << 20, (4 << 20) + 3,
};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ---- ping-pong of every size, echoed back ---- */

static void pp_receiver(void *p)
{
	struct pair_arg *a = p;
	struct shm_xfer_peer *back;
	struct node n;
	uint8_t *buf = malloc((4 << 20) + 128);
	char want[SHM_NAME_MAX];

	if (a->cma_case == CMA_RECV_REFUSED)
		shm_cma_fail_for_test(true);
	if (a->cma_case == CMA_RECV_OFF) {
		setenv("FI_SHM_DISABLE_CMA", "1", 1);
		shm_params_reload_for_test();
		shm_cma_reset_for_test();
	}
	node_open(&n, 0);
	n.sleepy = a->sleepy;
	back = peer_of(&n, a->peer, 0);
	shm_addr_format(a->peer, getuid(), 0, want, sizeof(want));
	for (unsigned i = 0; i < N_SIZES; i++) {
		struct shm_xfer_rx *rx = next_rx(&n);
		uint64_t len;
		int st;

		SHM_CHECK(rx->size == sizes[i]);
		SHM_CHECK(rx->tag == i && rx->cq_data == ~(uint64_t)i);
		SHM_CHECK(rx->flags == (SHM_XF_TAGGED | SHM_XF_CQ_DATA));
		SHM_CHECK(rx->src_name && !strcmp(rx->src_name, want));
		memset(buf, 0xee, sizes[i] + 64);
		len = recv_into(&n, rx, buf, sizes[i] + 64, i & 1, &st);
		SHM_CHECK(st == 0 && len == sizes[i]);
		SHM_CHECK(shm_test_verify(buf, len, i) == 0);
		SHM_CHECK(buf[len] == 0xee);	/* nothing past the end */
		/* echo it, delivery-complete every other time */
		send_msg(&n, back, buf, len, i, (i & 2) ? SHM_XF_DELIVERY : 0,
			 NULL);
		wait_tx(&n);
	}
	shm_xfer_peer_close(back);
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void pp_sender(void *p)
{
	struct pair_arg *a = p;
	struct shm_xfer_stats st;
	struct shm_xfer_peer *peer;
	uint8_t *out = malloc(4 << 20 | 64), *in = malloc((4 << 20) + 64);
	struct node n;

	if (a->other_geometry) {
		/* each side must use the OTHER's region geometry */
		setenv("FI_SHM_INLINE_SIZE", "1000", 1);
		setenv("FI_SHM_SAR_BUF_SIZE", "4096", 1);
		setenv("FI_SHM_SAR_BUF_COUNT", "4", 1);
		setenv("FI_SHM_RX_SIZE", "8", 1);
		shm_params_reload_for_test();
	}
	node_open(&n, 0);
	n.sleepy = a->sleepy;
	peer = peer_of(&n, a->peer, 0);
	for (unsigned i = 0; i < N_SIZES; i++) {
		struct shm_xfer_rx *rx;
		uint64_t len;
		int s;

		shm_test_fill(out, sizes[i], i);
		send_msg(&n, peer, out, sizes[i], i,
			 (i & 4) ? SHM_XF_DELIVERY : 0, NULL);
		wait_tx(&n);
		rx = next_rx(&n);
		SHM_CHECK(rx->size == sizes[i] && rx->tag == i);
		len = recv_into(&n, rx, in, sizes[i], false, &s);
		SHM_CHECK(s == 0 && len == sizes[i]);
		SHM_CHECK(shm_test_verify(in, len, i) == 0);
	}
	shm_xfer_ep_stats(n.ep, &st);
	SHM_CHECK(st.tx_inline > 0 && st.tx_sar > 0);
	if (!shm_cma_available() || a->cma_case == CMA_RECV_OFF)
		SHM_CHECK(st.tx_cma == 0);
	else if (a->cma_case == CMA_RECV_REFUSED)
		/* one refused attempt, then SAR for good */
		SHM_CHECK(st.tx_cma == 1);
	else
		SHM_CHECK(st.tx_cma > 0);
	if (getenv("FI_SHM_DISABLE_CMA"))
		SHM_CHECK(shm_cma_state() == SHM_CMA_OFF_PARAM);
	SHM_CHECK(st.acks_rx > 0);
	fprintf(stderr, "sender: inline %llu sar %llu cma %llu acks %llu "
		"wakes %llu sleeps %u\n", (unsigned long long)st.tx_inline,
		(unsigned long long)st.tx_sar, (unsigned long long)st.tx_cma,
		(unsigned long long)st.acks_rx,
		(unsigned long long)st.wakes_tx, n.sleeps);
	shm_xfer_peer_close(peer);
	shm_xfer_ep_close(n.ep);
	free(out);
	free(in);
}

/* Fork receiver then sender, each knowing the other's pid. */
static void test_pingpong_all_sizes(void **state)
{
	struct pair_arg ra = { 0 }, sa = { 0 };

	run_pair(pp_receiver, pp_sender, &ra, &sa);
}

static void test_pingpong_sleeping(void **state)
{
	struct pair_arg ra = { .sleepy = true }, sa = { .sleepy = true };

	run_pair(pp_receiver, pp_sender, &ra, &sa);
}

static void test_cma_refused_at_run_time(void **state)
{
	struct pair_arg ra = { .cma_case = CMA_RECV_REFUSED },
			sa = { .cma_case = CMA_RECV_REFUSED };

	run_pair(pp_receiver, pp_sender, &ra, &sa);
}

static void test_cma_off_at_receiver(void **state)
{
	struct pair_arg ra = { .cma_case = CMA_RECV_OFF },
			sa = { .cma_case = CMA_RECV_OFF };

	run_pair(pp_receiver, pp_sender, &ra, &sa);
}

static void test_mixed_geometry(void **state)
{
	struct pair_arg ra = { 0 }, sa = { .other_geometry = true };

	run_pair(pp_receiver, pp_sender, &ra, &sa);
}

/* ---- an endpoint sending to itself ---- */

static void loopback(void *p)
{
	uint8_t *out = malloc(2 << 20), *in = malloc(2 << 20);
	struct shm_xfer_peer *self;
	struct node n;
	size_t i;

	node_open(&n, 5);
	self = peer_of(&n, getpid(), 5);
	for (i = 0; i < N_SIZES && sizes[i] <= (2u << 20); i++) {
		uint64_t len;
		int st;

		shm_test_fill(out, sizes[i], i);
		send_msg(&n, self, out, sizes[i], i, SHM_XF_DELIVERY, NULL);
		len = recv_into(&n, next_rx(&n), in, sizes[i], i & 1, &st);
		SHM_CHECK(st == 0 && len == sizes[i]);
		SHM_CHECK(shm_test_verify(in, len, i) == 0);
		wait_tx(&n);
	}
	shm_xfer_peer_close(self);
	shm_xfer_ep_close(n.ep);
	free(out);
	free(in);
}

static void test_loopback(void **state)
{
	assert_int_equal(shm_test_wait(shm_test_spawn(loopback, NULL)), 0);
}

/* ---- a receiver that leaves a SAR message unmatched ---- */

static void slow_receiver(void *p)
{
	struct pair_arg *a = p;
	size_t len = 1 << 20;
	uint8_t *buf = malloc(len);
	struct shm_xfer_rx *rx;
	struct node n;
	char c;
	int st;

	node_open(&n, 0);
	rx = next_rx(&n);	/* unexpected: not delivered yet */
	SHM_CHECK(rx->size == len);
	SHM_CHECK(write(a->pipe_wr, "g", 1) == 1);
	/* keep polling the queue meanwhile: nothing must move */
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);
	SHM_CHECK(recv_into(&n, rx, buf, len, true, &st) == len && st == 0);
	SHM_CHECK(shm_test_verify(buf, len, 77) == 0);
	/* stay until the sender saw its completion */
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void slow_sender(void *p)
{
	struct pair_arg *a = p;
	size_t len = 1 << 20;
	uint8_t *buf = malloc(len);
	struct shm_xfer_stats st;
	struct shm_xfer_peer *peer;
	struct node n;
	char c;

	/* force SAR for this size whatever CMA can do */
	setenv("FI_SHM_SAR_THRESHOLD", "1073741824", 1);
	shm_params_reload_for_test();
	node_open(&n, 0);
	peer = peer_of(&n, a->peer, 0);
	shm_test_fill(buf, len, 77);
	SHM_CHECK(send_msg(&n, peer, buf, len, 77, 0, NULL) == 1);
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);
	/* the receiver holds the message unmatched: however much we poll,
	 * we may fill the ring once and no more */
	for (int i = 0; i < 20000; i++)
		shm_xfer_ep_poll(n.ep, 64);
	shm_xfer_ep_stats(n.ep, &st);
	SHM_CHECK(st.tx_sar == 1);
	SHM_CHECK(st.sar_chunks_tx == SHM_SAR_RING);
	SHM_CHECK(n.tx_pending == 1);
	SHM_CHECK(write(a->pipe_wr, "d", 1) == 1);
	wait_tx(&n);
	shm_xfer_ep_stats(n.ep, &st);
	SHM_CHECK(st.sar_chunks_tx == len / SHM_SAR_BUF_SIZE_DEFAULT);
	SHM_CHECK(write(a->pipe_wr, "x", 1) == 1);
	shm_xfer_peer_close(peer);
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void test_flow_control_slow_receiver(void **state)
{
	struct pair_arg ra = { 0 }, sa = { 0 };

	run_pair(slow_receiver, slow_sender, &ra, &sa);
}

/* ---- truncation and discard ---- */

static const size_t trunc_sizes[] = { 100, 100000, 3 << 20 };

static void trunc_receiver(void *p)
{
	uint8_t *buf = malloc(4096);
	struct node n;

	node_open(&n, 0);
	for (unsigned i = 0; i < 3; i++) {
		struct shm_xfer_rx *rx = next_rx(&n);
		uint64_t len;
		int st;

		SHM_CHECK(rx->size == trunc_sizes[i]);
		len = recv_into(&n, rx, buf, 50 + i * 1000, false, &st);
		SHM_CHECK(st == -FI_ETRUNC && len == 50 + i * 1000);
		SHM_CHECK(shm_test_verify(buf, len, i) == 0);
	}
	for (unsigned i = 0; i < 3; i++)
		shm_xfer_rx_discard(next_rx(&n));
	/* let the sender finish before our region goes */
	for (int i = 0; i < 1000; i++)
		shm_xfer_ep_poll(n.ep, 64);
	{
		char c;
		struct pair_arg *a = p;

		SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);
	}
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void trunc_sender(void *p)
{
	struct pair_arg *a = p;
	uint8_t *buf = malloc(3 << 20);
	struct shm_xfer_peer *peer;
	struct node n;

	node_open(&n, 0);
	peer = peer_of(&n, a->peer, 0);
	for (unsigned r = 0; r < 2; r++)
		for (unsigned i = 0; i < 3; i++) {
			shm_test_fill(buf, trunc_sizes[i], i);
			send_msg(&n, peer, buf, trunc_sizes[i], i,
				 SHM_XF_DELIVERY, NULL);
			wait_tx(&n);	/* truncated/discarded: still 0 */
		}
	SHM_CHECK(write(a->pipe_wr, "x", 1) == 1);
	shm_xfer_peer_close(peer);
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void test_truncate_and_discard(void **state)
{
	struct pair_arg ra = { 0 }, sa = { 0 };

	run_pair(trunc_receiver, trunc_sender, &ra, &sa);
}
/* ---- several senders streaming into one receiver ---- */

#define MS_SENDERS 4
#define MS_MSGS 300

static size_t ms_size(unsigned id, unsigned i)
{
	static const size_t s[] = { 8, 200, 3000, 40000, 70000, 300000 };

	return s[(i * 7 + id) % 6];
}

static void ms_sender(void *p)
{
	struct pair_arg *a = p;
	struct shm_xfer_peer *peer;
	struct node n;

	node_open(&n, 1 + a->id);
	n.free_ctx = true;
	peer = peer_of(&n, a->peer, 0);
	for (unsigned i = 0; i < MS_MSGS; i++) {
		size_t len = ms_size(a->id, i);
		uint8_t *buf = malloc(len);
		uint64_t tag = (uint64_t)a->id << 32 | i;

		shm_test_fill(buf, len, tag);
		if (!send_msg(&n, peer, buf, len, tag, 0, buf))
			free(buf);	/* complete already */
	}
	wait_tx(&n);
	shm_xfer_peer_close(peer);
	shm_xfer_ep_close(n.ep);
}

static void ms_receiver(void *p)
{
	unsigned next[MS_SENDERS] = { 0 };
	uint8_t *buf = malloc(300000);
	struct node n;

	node_open(&n, 0);
	n.sleepy = true;
	for (unsigned k = 0; k < MS_SENDERS * MS_MSGS; k++) {
		struct shm_xfer_rx *rx = next_rx(&n);
		unsigned id = (unsigned)(rx->tag >> 32), i = (uint32_t)rx->tag;
		uint64_t len;
		int st;

		SHM_CHECK(id < MS_SENDERS && i == next[id]);
		SHM_CHECK(rx->size == ms_size(id, i));
		len = recv_into(&n, rx, buf, 300000, i & 1, &st);
		SHM_CHECK(st == 0 && len == ms_size(id, i));
		SHM_CHECK(shm_test_verify(buf, len, (uint64_t)id << 32 | i) == 0);
		next[id]++;
	}
	/* senders finish on our acks / done flags; give them time to see
	 * them while we still exist */
	for (int i = 0; i < 2000; i++) {
		shm_xfer_ep_poll(n.ep, 64);
		sched_yield();
	}
	shm_xfer_ep_close(n.ep);
	free(buf);
}

static void test_many_senders(void **state)
{
	struct pair_arg ra = { 0 }, sa[MS_SENDERS];
	pid_t r, s[MS_SENDERS];

	r = shm_test_spawn(ms_receiver, &ra);
	for (unsigned i = 0; i < MS_SENDERS; i++) {
		sa[i] = (struct pair_arg){ .peer = r, .id = i };
		s[i] = shm_test_spawn(ms_sender, &sa[i]);
	}
	for (unsigned i = 0; i < MS_SENDERS; i++)
		assert_int_equal(shm_test_wait(s[i]), 0);
	assert_int_equal(shm_test_wait(r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pingpong_all_sizes),
		cmocka_unit_test(test_pingpong_sleeping),
		cmocka_unit_test(test_cma_refused_at_run_time),
		cmocka_unit_test(test_cma_off_at_receiver),
		cmocka_unit_test(test_mixed_geometry),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_flow_control_slow_receiver),
		cmocka_unit_test(test_truncate_and_discard),
		cmocka_unit_test(test_many_senders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
