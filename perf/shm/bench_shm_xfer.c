/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm transport core (prov/shm/xfer/shm_xfer_*.c) between two processes,
 * below any provider object: 8-byte ping-pong latency, 8-byte message
 * rate (window 64), and streaming bandwidth per size through SAR and
 * through CMA, each bandwidth beside a floor measured in the same run
 * (memcpy of the same size in one process: SAR copies twice, CMA once).
 *
 *   bench_shm_xfer [reps]      medians of `reps` samples (default 7)
 */
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_bench.h"
#include "shm_addr.h"
#include "shm_cma.h"
#include "shm_params.h"
#include "shm_xfer.h"

#define TAG_ECHO	(1ull << 62)	/* server: send the bytes back */
#define TAG_REPLY	(1ull << 61)	/* server: send one byte back */
#define TAG_STOP	(1ull << 60)
#define TAG_SLEEPY	(1ull << 59)	/* server: sleep on the fd when idle */
#define BUF_MAX		(4u << 20)

struct node {
	struct shm_xfer_ep *ep;
	bool sleepy;
	struct shm_xfer_rx *rx[256];
	unsigned head, len, tx_pending, rx_done;
};

static void cb_rx_msg(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx)
{
	struct node *n = shm_xfer_ep_user(ep);

	n->rx[(n->head + n->len++) % 256] = rx;
}

static void cb_rx_done(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx,
		       int status, uint64_t len)
{
	((struct node *)shm_xfer_ep_user(ep))->rx_done++;
}

static void cb_tx_done(struct shm_xfer_ep *ep, void *ctx, int status)
{
	((struct node *)shm_xfer_ep_user(ep))->tx_pending--;
}

static const struct shm_xfer_ops ops = { cb_rx_msg, cb_rx_done, cb_tx_done };

static void node_open(struct node *n, unsigned idx)
{
	char name[SHM_NAME_MAX];

	memset(n, 0, sizeof(*n));
	shm_addr_format(getpid(), getuid(), idx, name, sizeof(name));
	if (shm_xfer_ep_open(name, &ops, n, &n->ep)) {
		fprintf(stderr, "ep open failed\n");
		exit(1);
	}
}

static struct shm_xfer_peer *peer_open(struct node *n, const char *name)
{
	struct shm_xfer_peer *p;

	while (shm_xfer_peer_open(n->ep, name, &p))
		sched_yield();
	return p;
}

static struct shm_xfer_rx *next_rx(struct node *n)
{
	struct shm_xfer_rx *rx;

	while (!n->len) {
		struct pollfd pfd = { shm_xfer_ep_fd(n->ep), POLLIN, 0 };

		if (shm_xfer_ep_poll(n->ep, 64) || !n->sleepy ||
		    shm_xfer_ep_arm(n->ep))
			continue;
		poll(&pfd, 1, -1);
	}
	rx = n->rx[n->head];
	n->head = (n->head + 1) % 256;
	n->len--;
	return rx;
}

static void recv_into(struct node *n, struct shm_xfer_rx *rx, void *buf)
{
	struct iovec iov = { buf, BUF_MAX };
	unsigned before = n->rx_done;
	uint64_t len;

	if (shm_xfer_rx_deliver(rx, &iov, 1, &len) == 1)
		while (n->rx_done == before)
			shm_xfer_ep_poll(n->ep, 64);
}

static void send_buf(struct node *n, struct shm_xfer_peer *p, void *buf,
		     size_t len, uint64_t tag)
{
	struct iovec iov = { buf, len };
	struct shm_xfer_msg m = { &iov, 1, tag, 0, SHM_XF_TAGGED, NULL };
	int ret;

	while ((ret = shm_xfer_send(n->ep, p, &m)) == -FI_EAGAIN)
		shm_xfer_ep_poll(n->ep, 64);
	if (ret == 1)
		n->tx_pending++;
}

/* The server: echo or reply to whoever sent, until TAG_STOP. */
static void server(void)
{
	struct shm_xfer_peer *peers[4] = { 0 };
	char names[4][SHM_NAME_MAX];
	uint8_t *buf = malloc(BUF_MAX);
	struct node n;
	unsigned np = 0, i;

	node_open(&n, 0);
	for (;;) {
		struct shm_xfer_rx *rx = next_rx(&n);
		uint64_t tag = rx->tag, size = rx->size;
		struct shm_xfer_peer *p = NULL;

		for (i = 0; i < np; i++)
			if (!strcmp(names[i], rx->src_name))
				p = peers[i];
		if (!p && np < 4) {
			snprintf(names[np], SHM_NAME_MAX, "%s", rx->src_name);
			p = peers[np++] = peer_open(&n, rx->src_name);
		}
		recv_into(&n, rx, buf);
		n.sleepy = tag & TAG_SLEEPY;
		if (tag & TAG_STOP)
			break;
		if (tag & TAG_ECHO)
			send_buf(&n, p, buf, size, tag);
		else if (tag & TAG_REPLY)
			send_buf(&n, p, buf, 1, tag);
		while (n.tx_pending)
			shm_xfer_ep_poll(n.ep, 64);
	}
	for (i = 0; i < np; i++)
		shm_xfer_peer_close(peers[i]);
	shm_xfer_ep_close(n.ep);
	exit(0);
}

struct ctx {
	struct node *n;
	struct shm_xfer_peer *p;
	uint8_t *buf, *in;
	size_t size;
	unsigned iters, window;
};

static double sample_latency(void *arg)
{
	struct ctx *c = arg;
	uint64_t t0 = pl_bench_now_ns();

	for (unsigned i = 0; i < c->iters; i++) {
		send_buf(c->n, c->p, c->buf, 8, TAG_ECHO);
		recv_into(c->n, next_rx(c->n), c->in);
	}
	/* one-way: half a round trip, in microseconds */
	return (double)(pl_bench_now_ns() - t0) / c->iters / 2 / 1000.0;
}

/* Both sides sleep in poll() on their wake-up socket while waiting: the
 * cost of the wake-up path (what an idle auto-progress thread pays). */
static double sample_latency_sleepy(void *arg)
{
	struct ctx *c = arg;
	uint64_t t0;

	c->n->sleepy = true;
	t0 = pl_bench_now_ns();
	for (unsigned i = 0; i < c->iters; i++) {
		send_buf(c->n, c->p, c->buf, 8, TAG_ECHO | TAG_SLEEPY);
		recv_into(c->n, next_rx(c->n), c->in);
	}
	c->n->sleepy = false;
	return (double)(pl_bench_now_ns() - t0) / c->iters / 2 / 1000.0;
}

static double sample_stream(void *arg)
{
	struct ctx *c = arg;
	uint64_t t0 = pl_bench_now_ns();

	for (unsigned i = 0; i < c->iters; i++) {
		send_buf(c->n, c->p, c->buf, c->size,
			 i + 1 == c->iters ? TAG_REPLY : 0);
		/* a bounded window of sends in flight */
		while (c->n->tx_pending >= c->window)
			shm_xfer_ep_poll(c->n->ep, 64);
	}
	recv_into(c->n, next_rx(c->n), c->in);
	while (c->n->tx_pending)
		shm_xfer_ep_poll(c->n->ep, 64);
	return (double)c->size * c->iters /
	       ((double)(pl_bench_now_ns() - t0) / 1e9) / 1e6;	/* MB/s */
}

static double sample_rate(void *arg)
{
	struct ctx *c = arg;
	double mbs = sample_stream(arg);

	return mbs / (double)c->size;	/* Mmsg/s */
}

static double sample_memcpy(void *arg)
{
	struct ctx *c = arg;
	uint64_t t0 = pl_bench_now_ns();

	for (unsigned i = 0; i < c->iters; i++) {
		memcpy(c->in, c->buf, c->size);
		__asm__ __volatile__("" ::: "memory");
	}
	return (double)c->size * c->iters /
	       ((double)(pl_bench_now_ns() - t0) / 1e9) / 1e6;
}

static struct pl_bench_stats run(const char *name, const char *unit,
				 double (*fn)(void *), struct ctx *c,
				 unsigned reps)
{
	struct pl_bench_series s = { name, unit, 2, reps, fn, c };
	struct pl_bench_stats st = { 0 };

	pl_bench_run(&s, &st, NULL);
	return st;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 65536, 262144, 1 << 20, 4 << 20 };
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : 7;
	char sname[SHM_NAME_MAX];
	struct node n, nsar;
	struct ctx c = { 0 }, csar;
	struct pl_bench_stats st, fl;
	pid_t srv;

	srv = fork();
	if (srv == 0)
		server();
	shm_addr_format(srv, getuid(), 0, sname, sizeof(sname));
	node_open(&n, 0);
	c.n = &n;
	c.p = peer_open(&n, sname);
	c.buf = malloc(BUF_MAX);
	c.in = malloc(BUF_MAX);
	memset(c.buf, 1, BUF_MAX);
	memset(c.in, 2, BUF_MAX);
	/* a second endpoint that always segments (no CMA) */
	setenv("FI_SHM_SAR_THRESHOLD", "1099511627776", 1);
	shm_params_reload_for_test();
	node_open(&nsar, 1);
	csar = c;
	csar.n = &nsar;
	csar.p = peer_open(&nsar, sname);

	printf("# shm transport core, 2 processes; CMA %s; medians of %u\n",
	       shm_cma_available() ? "on" : "off", reps);
	c.iters = 20000;
	st = run("latency_8B", "us", sample_latency, &c, reps);
	printf("latency 8 B (one way)       %8.3f us  [p10 %.3f p90 %.3f]\n",
	       st.median, st.p10, st.p90);
	c.iters = 5000;
	fl = run("latency_8B_sleeping", "us", sample_latency_sleepy, &c, reps);
	printf("latency 8 B, both asleep    %8.3f us  (%.1fx spinning)\n",
	       fl.median, pl_bench_ratio(fl.median, st.median));
	/* wake the server out of sleepy mode */
	c.iters = 1;
	(void)sample_latency(&c);
	c.iters = 200000;
	c.size = 8;
	c.window = 64;
	st = run("rate_8B", "Mmsg/s", sample_rate, &c, reps);
	printf("message rate 8 B, window 64 %8.3f Mmsg/s\n", st.median);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct pl_bench_stats cma;

		c.size = csar.size = sizes[i];
		c.iters = csar.iters = (unsigned)((256u << 20) / sizes[i]);
		c.window = csar.window = 8;
		fl = run("memcpy", "MB/s", sample_memcpy, &c, reps);
		st = run("bw_sar", "MB/s", sample_stream, &csar, reps);
		cma = run("bw_default", "MB/s", sample_stream, &c, reps);
		printf("bandwidth %7zu B: SAR %8.0f MB/s (%.2fx memcpy)  "
		       "default %8.0f MB/s (%.2fx memcpy)  memcpy %8.0f MB/s\n",
		       sizes[i], st.median, pl_bench_ratio(st.median, fl.median),
		       cma.median, pl_bench_ratio(cma.median, fl.median),
		       fl.median);
	}
	send_buf(&n, c.p, c.buf, 1, TAG_STOP);
	while (n.tx_pending)
		shm_xfer_ep_poll(n.ep, 64);
	waitpid(srv, NULL, 0);
	shm_xfer_peer_close(c.p);
	shm_xfer_peer_close(csar.p);
	shm_xfer_ep_close(n.ep);
	shm_xfer_ep_close(nsar.ep);
	return 0;
}
