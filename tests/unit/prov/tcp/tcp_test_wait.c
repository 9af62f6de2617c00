/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario "trywait" (test_tcp_ep.c): 50,000 small messages, both sides
 * blocking between reads the way fi_trywait(3) prescribes. The receiver
 * (server) has an FI_WAIT_FD rx CQ, the sender (client) an FI_WAIT_FD tx
 * CQ; each loops fi_cq_read, then fi_trywait on its CQ, then epoll_wait
 * on the CQ's fd from fi_control(FI_GETWAIT) for at most 1000 ms. A wait
 * that times out while messages are outstanding is a lost wake-up and
 * fails the test (the peer is busy the whole time: a second with no
 * event means the fd was not signalled). Every message carries its
 * sequence number and a pattern, checked in order.
 *
 * Scenario "trywait_big": the same with 5,000 messages of up to 64 KiB:
 * the sender's socket fills, so its sends wait for POLLOUT, which must
 * wake its fd.
 *
 * Scenario "trywait_rma": the same blocking discipline on RMA. The client
 * (FI_WAIT_FD tx CQ) writes 16 slots of 4 KiB into the server's region,
 * then reads them back and checks them, 200 rounds, sleeping through
 * fi_trywait + epoll whenever its CQ is empty; the server only polls.
 *
 * On such a timeout, TT_DIAG_SS=1 in the environment prints the queues
 * of the connection (ss -tn) and then polls the CQ for a second: empty
 * queues and nothing found by polling mean the work is held in user
 * space where no fd (and no poll pass) sees it.
 *
 * Scenario "burst": no wait objects. The server posts BURST_N receives
 * and does not call the library while the client sends BURST_N small
 * messages and sees them all complete (they all fit the socket buffers);
 * then the server busy-polls its CQ: every message must be delivered
 * although no byte arrives after the first poll.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>

#include "tcp_test.h"

#define TW_POSTED 128
#define TW_WAIT_MS 1000

/* the run's message count and largest message (set before the fork) */
static uint64_t tw_msgs = 50000;
static size_t tw_slot = 64;

static size_t tw_len(uint64_t seq)
{
	return tw_slot - seq % (tw_slot - 15);
}

static int tw_epoll(struct fid_cq *cq)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = -1, ep;

	TT_EQ(fi_control(&cq->fid, FI_GETWAIT, &fd), 0);
	TT_CHECK(fd >= 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	TT_CHECK(ep >= 0);
	TT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	return ep;
}

/* Nothing to read: trywait, then block. Returns the sleeps taken (0 or
 * 1). Fails on a timeout while `outstanding` operations are pending. */
static int tw_block(struct tt_side *t, struct fid_cq *cq, int ep,
		    long outstanding)
{
	struct fid *f = &cq->fid;
	struct epoll_event ev;
	int r;

	r = fi_trywait(t->fabric, &f, 1);
	if (r == -FI_EAGAIN)
		return 0;
	TT_EQ(r, 0);
	do {
		r = epoll_wait(ep, &ev, 1, TW_WAIT_MS);
	} while (r < 0 && errno == EINTR);
	if (r == 0) {
		fprintf(stderr, "epoll_wait timed out after fi_trywait "
			"said FI_SUCCESS, %ld outstanding\n", outstanding);
		if (getenv("TT_DIAG_SS")) {
			char cmd[160];

			snprintf(cmd, sizeof(cmd), "ss -tn '( sport = :%d or "
				 "dport = :%d )' >&2", tt_board->port,
				 tt_board->port);
			(void)!system(cmd);
			for (int k = 0; k < 1000; k++) {
				struct fi_cq_tagged_entry e;
				struct fi_cq_err_entry er;
				int got = tt_cq_poll(cq, &e, &er);

				if (got) {
					fprintf(stderr, "a poll %d ms later "
						"found a completion\n", k);
					break;
				}
				usleep(1000);
			}
		}
	}
	TT_CHECK(r > 0);
	return 1;
}

static void tw_client(void *arg)
{
	struct tt_opts o = { .tx_wait = FI_WAIT_FD };
	struct fi_cq_tagged_entry e[32];
	struct fi_cq_err_entry err;
	struct tt_side c;
	uint8_t *slot;
	int *free_slot, nfree, ep, sleeps = 0;
	size_t ring;
	long outstanding = 0;
	ssize_t n;

	(void)arg;
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	ring = c.info->tx_attr->size;
	TT_CHECK(ring >= 1);
	if (ring > 256)
		ring = 256;
	slot = malloc(ring * tw_slot);
	free_slot = malloc(ring * sizeof(int));
	TT_CHECK(slot && free_slot);
	for (nfree = 0; nfree < (int)ring; nfree++)
		free_slot[nfree] = nfree;
	ep = tw_epoll(c.txcq);

	tt_watch("trywait client: sending", TT_WATCHDOG_S);
	for (uint64_t seq = 0; seq < tw_msgs || outstanding;) {
		if (seq < tw_msgs && nfree) {
			int k = free_slot[--nfree];
			size_t len = tw_len(seq);
			uint8_t *p = slot + (size_t)k * tw_slot;

			tt_fill(p, len, seq);
			memcpy(p, &seq, sizeof(seq));
			n = fi_send(c.ep, p, len, NULL, 0,
				    (void *)(intptr_t)k);
			if (n == 0) {
				seq++;
				outstanding++;
				continue;
			}
			TT_EQ(n, -FI_EAGAIN);
			free_slot[nfree++] = k;
		}
		n = fi_cq_read(c.txcq, e, 32);
		if (n > 0) {
			tt_progress();
			for (ssize_t i = 0; i < n; i++)
				free_slot[nfree++] =
					(int)(intptr_t)e[i].op_context;
			outstanding -= n;
			continue;
		}
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			TT_EQ(fi_cq_readerr(c.txcq, &err, 0), 1);
			TT_EQ(err.err, 0);
		}
		TT_EQ(n, -FI_EAGAIN);
		if (!outstanding)
			continue;
		sleeps += tw_block(&c, c.txcq, ep, outstanding);
	}
	printf("sender slept %d times\n", sleeps);
	tt_watch("trywait client: done", 2 * TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);
	close(ep);
	tt_close(&c);
	free(slot);
	free(free_slot);
}

int tt_scn_trywait_big(void)
{
	tw_msgs = 5000;
	tw_slot = 65536;
	return tt_scn_trywait();
}

int tt_scn_trywait(void)
{
	struct tt_opts o = { .rx_wait = FI_WAIT_FD };
	struct fi_cq_tagged_entry e[32];
	struct fi_cq_err_entry err;
	struct tt_side s;
	uint8_t *slot = malloc(TW_POSTED * tw_slot);
	uint64_t got = 0, seq;
	int ep, sleeps = 0;
	ssize_t n;

	TT_CHECK(slot);
	tt_board_init();
	tt_spawn(tw_client, NULL);
	tt_watch("trywait server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	ep = tw_epoll(s.rxcq);
	for (int k = 0; k < TW_POSTED; k++)
		TT_EQ(fi_recv(s.ep, slot + (size_t)k * tw_slot, tw_slot, NULL,
			      0, (void *)(intptr_t)k), 0);

	tt_watch("trywait server: receiving", TT_WATCHDOG_S);
	while (got < tw_msgs) {
		n = fi_cq_read(s.rxcq, e, 32);
		if (n > 0) {
			tt_progress();
			for (ssize_t i = 0; i < n; i++) {
				int k = (int)(intptr_t)e[i].op_context;
				uint8_t *p = slot + (size_t)k * tw_slot;

				TT_CHECK(k >= 0 && k < TW_POSTED);
				memcpy(&seq, p, sizeof(seq));
				TT_EQ(seq, got);
				TT_EQ(e[i].len, tw_len(seq));
				for (size_t b = 8; b < e[i].len; b++)
					TT_EQ(p[b], tt_byte(seq, b));
				got++;
				TT_EQ(fi_recv(s.ep, p, tw_slot, NULL, 0,
					      e[i].op_context), 0);
			}
			continue;
		}
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			TT_EQ(fi_cq_readerr(s.rxcq, &err, 0), 1);
			fprintf(stderr, "rx error %d (%s)\n", err.err,
				fi_strerror(err.err));
			TT_EQ(err.err, 0);
		}
		TT_EQ(n, -FI_EAGAIN);
		sleeps += tw_block(&s, s.rxcq, ep, (long)(tw_msgs - got));
	}
	printf("receiver slept %d times, %llu messages\n", sleeps,
	       (unsigned long long)got);
	tt_step(TT_SERVER, 1);
	tt_watch("trywait server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	close(ep);
	tt_close(&s);
	free(slot);
	return 0;
}

/* ---- burst ---- */

#define BURST_N 200
#define BURST_LEN 32

static void burst_client(void *arg)
{
	struct tt_opts o = { 0 };
	struct tt_side c;
	uint8_t (*msg)[BURST_LEN] = malloc(BURST_N * BURST_LEN);
	int done = 0;

	(void)arg;
	TT_CHECK(msg);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	tt_watch("burst client: sending", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);
	for (uint64_t i = 0; i < BURST_N; i++) {
		tt_fill(msg[i], BURST_LEN, 1000 + i);
		TT_POST(&c, &done, fi_send(c.ep, msg[i], BURST_LEN, NULL, 0,
					   NULL));
	}
	while (done < BURST_N)
		done += tt_drain(c.txcq);
	/* every transmit entry back, those made and those never made */
	TT_EQ(c.ep->ops->tx_size_left(c.ep), (ssize_t)c.info->tx_attr->size);
	tt_step(TT_CLIENT, 1);
	/* the server's watchdog names a hang there: outlive it */
	tt_watch("burst client: waiting for the server", 2 * TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 2, NULL, NULL);
	tt_close(&c);
	free(msg);
}

int tt_scn_burst(void)
{
	struct fi_cq_tagged_entry e;
	struct tt_opts o = { 0 };
	struct tt_side s;
	uint8_t (*slot)[BURST_LEN] = malloc(BURST_N * BURST_LEN);
	static char phase[128];

	TT_CHECK(slot);
	tt_board_init();
	tt_spawn(burst_client, NULL);
	tt_watch("burst server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	/* the receive table is made a chunk at a time: every entry counts
	 * as free, made or not, and each post takes one */
	TT_EQ(s.ep->ops->rx_size_left(s.ep), (ssize_t)s.conn_info->rx_attr->size);
	for (int i = 0; i < BURST_N; i++)
		TT_EQ(fi_recv(s.ep, slot[i], BURST_LEN, NULL, 0, slot[i]), 0);
	TT_EQ(s.ep->ops->rx_size_left(s.ep),
	      (ssize_t)s.conn_info->rx_attr->size - BURST_N);
	TT_EQ(s.ep->ops->tx_size_left(s.ep), (ssize_t)s.conn_info->tx_attr->size);
	tt_step(TT_SERVER, 1);
	/* not a call into the library until every send has completed */
	tt_wait_step(TT_CLIENT, 1, NULL, NULL);
	tt_watch("burst server: busy-polling for messages already sent",
		 TT_WATCHDOG_S);
	for (int i = 0; i < BURST_N; i++) {
		snprintf(phase, sizeof(phase), "burst server: busy-polling "
			 "for messages already sent (%d of %d received)", i,
			 BURST_N);
		tt_phase = phase;
		tt_cq_wait(s.rxcq, &e);
		TT_CHECK(e.op_context == slot[i]);
		TT_EQ(e.len, BURST_LEN);
		TT_EQ(tt_verify(slot[i], BURST_LEN, 1000 + (uint64_t)i), -1);
	}
	tt_step(TT_SERVER, 2);
	tt_watch("burst server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	tt_close(&s);
	free(slot);
	return 0;
}

/* ---- trywait_rma ---- */

#define TR_SLOTS 16
#define TR_LEN 4096
#define TR_ROUNDS 200

/* Wait until n operations completed, blocking as fi_trywait allows. */
static void tr_complete(struct tt_side *c, int ep, int n, int *sleeps)
{
	struct fi_cq_tagged_entry e[TR_SLOTS];
	struct fi_cq_err_entry err;
	ssize_t r;

	while (n) {
		r = fi_cq_read(c->txcq, e, TR_SLOTS);
		if (r > 0) {
			tt_progress();
			n -= (int)r;
			continue;
		}
		if (r == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			TT_EQ(fi_cq_readerr(c->txcq, &err, 0), 1);
			fprintf(stderr, "RMA error %d (%s)\n", err.err,
				fi_strerror(err.err));
			TT_EQ(err.err, 0);
		}
		TT_EQ(r, -FI_EAGAIN);
		*sleeps += tw_block(c, c->txcq, ep, n);
	}
}

static void tr_client(void *arg)
{
	struct tt_opts o = { .tx_wait = FI_WAIT_FD };
	uint8_t *buf = malloc(TR_SLOTS * TR_LEN);
	uint64_t key, addr;
	struct tt_side c;
	int ep, sleeps = 0;
	static char phase[96];

	(void)arg;
	TT_CHECK(buf);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	ep = tw_epoll(c.txcq);
	while (!atomic_load(&tt_board->val[2]))
		usleep(100);
	key = tt_board->val[0];
	addr = tt_board->val[1];
	tt_watch("trywait_rma client: writes and reads", TT_WATCHDOG_S);
	for (uint64_t r = 0; r < TR_ROUNDS; r++) {
		snprintf(phase, sizeof(phase), "trywait_rma client: round %d "
			 "writes", (int)r);
		tt_phase = phase;
		for (int k = 0; k < TR_SLOTS; k++) {
			uint8_t *p = buf + (size_t)k * TR_LEN;

			tt_fill(p, TR_LEN, r * TR_SLOTS + (uint64_t)k);
			TT_EQ(fi_write(c.ep, p, TR_LEN, NULL, 0,
				       addr + (uint64_t)k * TR_LEN, key, p),
			      0);
		}
		tr_complete(&c, ep, TR_SLOTS, &sleeps);
		snprintf(phase, sizeof(phase), "trywait_rma client: round %d "
			 "reads", (int)r);
		memset(buf, 0, TR_SLOTS * TR_LEN);
		for (int k = 0; k < TR_SLOTS; k++) {
			uint8_t *p = buf + (size_t)k * TR_LEN;

			TT_EQ(fi_read(c.ep, p, TR_LEN, NULL, 0,
				      addr + (uint64_t)k * TR_LEN, key, p), 0);
		}
		tr_complete(&c, ep, TR_SLOTS, &sleeps);
		for (int k = 0; k < TR_SLOTS; k++)
			TT_EQ(tt_verify(buf + (size_t)k * TR_LEN, TR_LEN,
					r * TR_SLOTS + (uint64_t)k), -1);
	}
	printf("initiator slept %d times\n", sleeps);
	tt_step(TT_CLIENT, 1);
	tt_watch("trywait_rma client: done", 2 * TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);
	close(ep);
	tt_close(&c);
	free(buf);
}

int tt_scn_trywait_rma(void)
{
	uint8_t *mem = calloc(TR_SLOTS, TR_LEN);
	struct tt_opts o = { 0 };
	struct fid_mr *mr;
	struct tt_side s;
	uint64_t mode;

	TT_CHECK(mem);
	tt_board_init();
	tt_spawn(tr_client, NULL);
	tt_watch("trywait_rma server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	mode = (uint64_t)s.conn_info->domain_attr->mr_mode;
	TT_EQ(fi_mr_reg(s.domain, mem, TR_SLOTS * TR_LEN,
			FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0x77, 0, &mr,
			NULL), 0);
	atomic_store(&tt_board->val[0], (mode & FI_MR_PROV_KEY) ?
		     fi_mr_key(mr) : 0x77);
	atomic_store(&tt_board->val[1], (mode & FI_MR_VIRT_ADDR) ?
		     (uint64_t)(uintptr_t)mem : 0);
	atomic_store(&tt_board->val[2], 1);
	tt_watch("trywait_rma server: serving", TT_WATCHDOG_S);
	tt_wait_step(TT_CLIENT, 1, tt_poke_empty, &s);
	tt_step(TT_SERVER, 1);
	tt_watch("trywait_rma server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	TT_EQ(fi_close(&mr->fid), 0);
	tt_close(&s);
	free(mem);
	return 0;
}
