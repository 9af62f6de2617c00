/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The protocol layer (prov/shm/shm_xfer_*.c) between real processes:
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
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "shm_addr.h"
#include "shm_cma.h"
#include "shm_params.h"
#include "shm_region.h"
#include "shm_test.h"
#include "shm_xfer.h"

#define UNEXP_MAX 4096

struct node {
	struct shm_xfer_ep	*ep;
	struct shm_xfer_rx	*unexp[UNEXP_MAX];
	unsigned		uhead, ulen;
	unsigned		tx_pending, tx_done;
	int			tx_status;	/* first error seen */
	unsigned		rx_done;
	int			rx_status;
	uint64_t		rx_len;
	bool			sleepy;
	bool			free_ctx;	/* tx contexts are malloc'd */
	unsigned		sleeps;
};

static void cb_rx_msg(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx)
{
	struct node *n = shm_xfer_ep_user(ep);

	SHM_CHECK(n->ulen < UNEXP_MAX);
	n->unexp[(n->uhead + n->ulen++) % UNEXP_MAX] = rx;
}

static void cb_rx_done(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx,
		       int status, uint64_t len)
{
	struct node *n = shm_xfer_ep_user(ep);

	n->rx_done++;
	n->rx_status = status;
	n->rx_len = len;
}

static void cb_tx_done(struct shm_xfer_ep *ep, void *context, int status)
{
	struct node *n = shm_xfer_ep_user(ep);

	n->tx_pending--;
	n->tx_done++;
	if (status && !n->tx_status)
		n->tx_status = status;
	if (n->free_ctx)
		free(context);
}

static const struct shm_xfer_ops ops = {
	.rx_msg = cb_rx_msg, .rx_done = cb_rx_done, .tx_done = cb_tx_done,
};

static void node_open(struct node *n, unsigned idx)
{
	char name[SHM_NAME_MAX];

	memset(n, 0, sizeof(*n));
	shm_addr_format(getpid(), getuid(), idx, name, sizeof(name));
	SHM_CHECK(shm_xfer_ep_open(name, &ops, n, &n->ep) == 0);
}

static void drive(struct node *n)
{
	struct pollfd pfd;

	if (shm_xfer_ep_poll(n->ep, 64) > 0 || !n->sleepy) {
		if (!n->sleepy)
			sched_yield();
		return;
	}
	if (shm_xfer_ep_arm(n->ep))
		return;
	pfd = (struct pollfd){ .fd = shm_xfer_ep_fd(n->ep), .events = POLLIN };
	n->sleeps++;
	SHM_CHECK(poll(&pfd, 1, 10000) == 1);	/* lost wake-up? */
}

static struct shm_xfer_peer *peer_of(struct node *n, pid_t pid, unsigned idx)
{
	struct shm_xfer_peer *p = NULL;
	char name[SHM_NAME_MAX];
	int ret, tries = 0;

	shm_addr_format(pid, getuid(), idx, name, sizeof(name));
	while ((ret = shm_xfer_peer_open(n->ep, name, &p)) &&
	       (ret == -FI_ENOENT || ret == -FI_EAGAIN) && tries++ < 200000)
		sched_yield();
	SHM_CHECK(ret == 0);
	return p;
}

static struct shm_xfer_rx *next_rx(struct node *n)
{
	struct shm_xfer_rx *rx;

	while (!n->ulen)
		drive(n);
	rx = n->unexp[n->uhead];
	n->uhead = (n->uhead + 1) % UNEXP_MAX;
	n->ulen--;
	return rx;
}

/* Place rx in buf (split in two iovecs when odd); returns bytes. */
static uint64_t recv_into(struct node *n, struct shm_xfer_rx *rx, void *buf,
			  size_t cap, bool split, int *status)
{
	struct iovec iov[2] = { { buf, cap / 3 },
				{ (char *)buf + cap / 3, cap - cap / 3 } };
	unsigned before = n->rx_done;
	uint64_t len = 0;
	int ret;

	if (!split) {
		iov[0].iov_len = cap;
	}
	ret = shm_xfer_rx_deliver(rx, iov, split ? 2 : 1, &len);
	if (ret == 1) {
		while (n->rx_done == before)
			drive(n);
		*status = n->rx_status;
		return n->rx_len;
	}
	*status = ret;
	return len;
}

static int send_msg(struct node *n, struct shm_xfer_peer *p, void *buf,
		    size_t len, uint64_t tag, uint32_t flags, void *ctx)
{
	struct iovec iov[3] = {
		{ buf, len / 4 }, { (char *)buf + len / 4, len / 4 },
		{ (char *)buf + 2 * (len / 4), len - 2 * (len / 4) } };
	bool split = tag & 1;
	struct shm_xfer_msg m = {
		.iov = split ? iov : &(struct iovec){ buf, len },
		.iov_count = split ? 3 : 1, .tag = tag, .cq_data = ~tag,
		.flags = flags | SHM_XF_TAGGED | SHM_XF_CQ_DATA,
		.context = ctx,
	};
	int ret;

	while ((ret = shm_xfer_send(n->ep, p, &m)) == -FI_EAGAIN)
		drive(n);
	SHM_CHECK(ret >= 0);
	if (ret == 1)
		n->tx_pending++;
	return ret;
}

static void wait_tx(struct node *n)
{
	while (n->tx_pending)
		drive(n);
	SHM_CHECK(n->tx_status == 0);
}

static const size_t sizes[] = {
	0, 1, 7, 63, 64, 100, 191, 192, 193, 255, 256, 1000, 4095, 4096, 4097,
	12345, 16383, 16384, 16385, 32767, 32768, 32769, 65536 + 7,
	131072, 131073, 500000, 1 << 20, (4 << 20) + 3,
};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

struct pair_arg {
	pid_t	peer;		/* the other child */
	pid_t	peers[8];
	unsigned n_peers;
	unsigned id;
	int	pipe_rd, pipe_wr;
	bool	sleepy;
	int	cma_case;	/* CMA_* below */
	pid_t	self;		/* set by run_pair_expect, for the parent */
	bool	other_geometry;	/* sender runs with other FI_SHM_* sizes */
};

enum {
	CMA_NORMAL,
	CMA_RECV_REFUSED,	/* the receiver's kernel refuses each copy */
	CMA_RECV_OFF,		/* the receiver runs with CMA disabled */
};

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

		if (rx->size != sizes[i]) fprintf(stderr, "i %u size %llu tag %llu proto %u\n", i, (unsigned long long)rx->size, (unsigned long long)rx->tag, rx->proto);
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
static void run_pair_expect(void (*rcv)(void *), void (*snd)(void *),
			    struct pair_arg *ra, struct pair_arg *sa,
			    int r_status, int s_status)
{
	int fds[2], back[2];
	pid_t r, s;

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(pipe(back), 0);
	ra->pipe_rd = back[0];
	ra->pipe_wr = fds[1];
	sa->pipe_rd = fds[0];
	sa->pipe_wr = back[1];
	/* the sender's pid is needed by the receiver and vice versa: the
	 * receiver learns it through the pipe */
	r = fork();
	if (r == 0) {
		alarm(SHM_TEST_ALARM_S);
		SHM_CHECK(read(ra->pipe_rd, &ra->peer, sizeof(pid_t)) ==
			  sizeof(pid_t));
		rcv(ra);
		_exit(0);
	}
	sa->peer = r;
	ra->self = r;
	s = shm_test_spawn(snd, sa);
	sa->self = s;
	assert_int_equal(write(back[1], &s, sizeof(s)), sizeof(s));
	assert_int_equal(shm_test_wait(s), s_status);
	assert_int_equal(shm_test_wait(r), r_status);
	close(fds[0]);
	close(fds[1]);
	close(back[0]);
	close(back[1]);
}

static void run_pair(void (*rcv)(void *), void (*snd)(void *),
		     struct pair_arg *ra, struct pair_arg *sa)
{
	run_pair_expect(rcv, snd, ra, sa, 0, 0);
}

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
	if (shm_xfer_proto(n.ep, peer, big) == SHM_PROTO_CMA) {
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
		cmocka_unit_test(test_receiver_closes_with_queued),
		cmocka_unit_test(test_receiver_killed),
		cmocka_unit_test(test_sender_killed),
		cmocka_unit_test(test_many_senders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
