/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the protocol-layer tests (test_shm_xfer.c, test_shm_xfer_fail.c)
 * share: a node (one endpoint driven by one forked child), its callbacks,
 * send/receive helpers, and running a receiver and a sender as a pair of
 * children that learn each other's pid through pipes.
 */
#ifndef PROPEL_TESTS_SHM_XFER_TEST_H
#define PROPEL_TESTS_SHM_XFER_TEST_H

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

static inline void cb_rx_msg(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx)
{
	struct node *n = shm_xfer_ep_user(ep);

	SHM_CHECK(n->ulen < UNEXP_MAX);
	n->unexp[(n->uhead + n->ulen++) % UNEXP_MAX] = rx;
}

static inline void cb_rx_done(struct shm_xfer_ep *ep, struct shm_xfer_rx *rx,
			      int status, uint64_t len)
{
	struct node *n = shm_xfer_ep_user(ep);

	n->rx_done++;
	n->rx_status = status;
	n->rx_len = len;
}

static inline void cb_tx_done(struct shm_xfer_ep *ep, void *context, int status)
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

static inline void node_open(struct node *n, unsigned idx)
{
	char name[SHM_NAME_MAX];

	memset(n, 0, sizeof(*n));
	shm_addr_format(getpid(), getuid(), idx, name, sizeof(name));
	SHM_CHECK(shm_xfer_ep_open(name, &ops, n, &n->ep) == 0);
}

static inline void drive(struct node *n)
{
	int done = shm_xfer_ep_poll(n->ep, 64);
	struct pollfd pfd;

	if (done > 0)
		shm_test_progress();	/* the watchdog's heartbeat */
	if (done > 0 || !n->sleepy) {
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

static inline struct shm_xfer_peer *peer_of(struct node *n, pid_t pid,
					     unsigned idx)
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

static inline struct shm_xfer_rx *next_rx(struct node *n)
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
static inline uint64_t recv_into(struct node *n, struct shm_xfer_rx *rx,
				 void *buf, size_t cap, bool split,
				 int *status)
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

static inline int send_msg(struct node *n, struct shm_xfer_peer *p, void *buf,
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

static inline void wait_tx(struct node *n)
{
	while (n->tx_pending)
		drive(n);
	SHM_CHECK(n->tx_status == 0);
}


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


static inline void run_pair_expect(void (*rcv)(void *), void (*snd)(void *),
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
	shm_test_watchdog_init();
	r = fork();
	if (r == 0) {
		shm_test_watchdog();
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

static inline void run_pair(void (*rcv)(void *), void (*snd)(void *),
			    struct pair_arg *ra, struct pair_arg *sa)
{
	run_pair_expect(rcv, snd, ra, sa, 0, 0);
}


#endif
