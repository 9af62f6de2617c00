/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Blocking on shm CQs between two fork()ed processes (suite integration).
 * One scenario per run, named by argv[1]:
 *
 *   waitfd   the receiver's CQ has FI_WAIT_FD: it sleeps in epoll_wait
 *            on the fd fi_control(FI_GETWAIT) gives, after fi_trywait
 *            said so, and is woken for every message (inline, bounce
 *            buffer and single copy sizes), data verified
 *   sread    FI_WAIT_UNSPEC and fi_cq_sread: a timeout with nothing
 *            there is -FI_EAGAIN; each message wakes the reader;
 *            sread_fd, sread_mutex, sread_yield: the same with
 *            FI_WAIT_FD, FI_WAIT_MUTEX_COND, FI_WAIT_YIELD
 *
 * The sender sends message i only once the receiver has taken i - 1, so
 * the receiver has every chance to be asleep when a message comes.
 */
#include <sys/epoll.h>

#include "shm_conf_test.h"
#include "shm_ep_test.h"

#define W_MSGS 24
static const size_t w_len[] = { 100, 5000, 100000 };
#define W_LEN(i) w_len[(i) % 3]

static struct tep_board *board;
static enum fi_wait_obj sread_wait = FI_WAIT_UNSPEC;

/* Open one endpoint, publish the name, insert the peer's. */
static fi_addr_t w_setup(struct cep *e, int rank, enum fi_wait_obj w)
{
	struct cep_opts o = { .wait_obj = w };
	fi_addr_t peer;

	SHM_CHECK(conf_open(&C, CONF_CAPS) == 0);
	SHM_CHECK(cep_open(&C, e, &o) == 0);
	memcpy(board->name[rank], e->name, e->namelen);
	tep_barrier(board, NULL, 2, 1);
	SHM_CHECK(fi_av_insert(e->av, board->name[!rank], 1, &peer, 0,
			       NULL) == 1);
	return peer;
}

static void w_sender(struct cep *e, fi_addr_t peer)
{
	uint8_t *buf = malloc(100000);
	struct fi_cq_tagged_entry c;

	SHM_CHECK(buf);
	for (int i = 0; i < W_MSGS; i++) {
		while (atomic_load(&board->flag[0]) < i)
			(void)fi_cq_read(e->tcq, NULL, 0);	/* progress */
		usleep(2000);	/* let the receiver fall asleep */
		shm_test_fill(buf, W_LEN(i), (uint64_t)i);
		SHM_CHECK(CONF_RETRY(e->tcq, fi_send(e->ep, buf, W_LEN(i),
			NULL, peer, NULL)) == 0);
		conf_wait(e->tcq, &c);
	}
	free(buf);
}

static void w_check(struct fi_cq_tagged_entry *c, uint8_t *rbuf, int i)
{
	SHM_CHECK(c->op_context == (void *)(intptr_t)(i + 1));
	SHM_CHECK(c->len == W_LEN(i));
	SHM_CHECK(shm_test_verify(rbuf, W_LEN(i), (uint64_t)i) == 0);
	atomic_store(&board->flag[0], i + 1);
}

static void waitfd_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	struct fi_cq_tagged_entry c;
	struct epoll_event ev = { .events = EPOLLIN };
	struct cep e;
	fi_addr_t peer = w_setup(&e, rank, FI_WAIT_FD);
	uint8_t *rbuf;
	int fd = -1, efd, sleeps = 0;

	if (rank == 1) {
		w_sender(&e, peer);
		goto out;
	}
	rbuf = malloc(100000);
	SHM_CHECK(rbuf);
	SHM_CHECK(fi_control(&e.rcq->fid, FI_GETWAIT, &fd) == 0 && fd >= 0);
	efd = epoll_create1(0);
	SHM_CHECK(efd >= 0 && epoll_ctl(efd, EPOLL_CTL_ADD, fd, &ev) == 0);
	for (int i = 0; i < W_MSGS; i++) {
		struct fid *fids[1] = { &e.rcq->fid };
		ssize_t n;

		SHM_CHECK(fi_recv(e.ep, rbuf, 100000, NULL, FI_ADDR_UNSPEC,
				  (void *)(intptr_t)(i + 1)) == 0);
		for (;;) {
			int t = fi_trywait(C.fabric, fids, 1);

			if (t == 0) {
				struct epoll_event out;

				SHM_CHECK(epoll_wait(efd, &out, 1, -1) >= 0 ||
					  errno == EINTR);
				sleeps++;
			} else {
				SHM_CHECK(t == -FI_EAGAIN);
			}
			n = fi_cq_read(e.rcq, &c, 1);
			if (n == 1)
				break;
			SHM_CHECK(n == -FI_EAGAIN);
		}
		w_check(&c, rbuf, i);
	}
	/* how often it really slept (not asserted: it may find its
	 * message already there) */
	fprintf(stderr, "waitfd: %d epoll sleeps for %d messages\n", sleeps,
		W_MSGS);
	close(efd);
	free(rbuf);
out:
	tep_barrier(board, NULL, 2, 2);
	cep_close(&e);
	conf_close(&C);
}

static void sread_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	struct fi_cq_tagged_entry c;
	struct cep e;
	fi_addr_t peer = w_setup(&e, rank, sread_wait);
	uint8_t *rbuf;

	if (rank == 1) {
		while (!atomic_load(&board->flag[1]))
			(void)fi_cq_read(e.tcq, NULL, 0);
		w_sender(&e, peer);
		goto out;
	}
	rbuf = malloc(100000);
	SHM_CHECK(rbuf);
	/* nothing comes yet: the timeout ends the wait */
	SHM_CHECK(fi_cq_sread(e.rcq, &c, 1, NULL, 10) == -FI_EAGAIN);
	atomic_store(&board->flag[1], 1);
	for (int i = 0; i < W_MSGS; i++) {
		ssize_t n;

		SHM_CHECK(fi_recv(e.ep, rbuf, 100000, NULL, FI_ADDR_UNSPEC,
				  (void *)(intptr_t)(i + 1)) == 0);
		while ((n = fi_cq_sread(e.rcq, &c, 1, NULL, -1)) == -FI_EAGAIN)
			;
		SHM_CHECK(n == 1);
		w_check(&c, rbuf, i);
	}
	free(rbuf);
out:
	tep_barrier(board, NULL, 2, 2);
	cep_close(&e);
	conf_close(&C);
}

static int run2(void (*fn)(void *))
{
	pid_t pid[2];
	int fail = 0;

	board = tep_board_new();
	if (!board)
		return 1;
	for (intptr_t i = 0; i < 2; i++)
		pid[i] = shm_test_spawn(fn, (void *)i);
	for (int i = 0; i < 2; i++) {
		int st = shm_test_wait(pid[i]);

		if (st) {
			fprintf(stderr, "rank %d exited %d\n", i, st);
			fail = 1;
		}
	}
	return fail;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	if (!strcmp(s, "waitfd"))
		return run2(waitfd_rank);
	if (!strcmp(s, "sread"))
		return run2(sread_rank);
	if (!strcmp(s, "sread_fd") || !strcmp(s, "sread_mutex") ||
	    !strcmp(s, "sread_yield")) {
		sread_wait = s[6] == 'f' ? FI_WAIT_FD :
			     s[6] == 'm' ? FI_WAIT_MUTEX_COND : FI_WAIT_YIELD;
		return run2(sread_rank);
	}
	fprintf(stderr, "usage: %s waitfd|sread[_fd|_mutex|_yield]\n",
		argv[0]);
	return 2;
}
