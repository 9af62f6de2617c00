/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario "spin_wait" (test_tcp_ep.c): a receiver that busy-polls long
 * enough for its domain to take the connection's socket out of the epoll
 * set (prov/tcp/tcp_prov.h, "Detached sockets"), then sleeps the way
 * fi_trywait(3) prescribes, must still be woken by the next message.
 *
 * Each of SW_ROUNDS rounds: the server reads its empty FI_WAIT_FD rx CQ
 * SW_SPIN times (each read is a progress pass). The epoll registrations
 * of this process's sockets (counted from /proc/self/fdinfo) must then be
 * one fewer than with the socket attached: the data socket left its set.
 * In even rounds the client sends before the server arms (the bytes wait
 * in the socket while it is detached); in odd rounds it sends after the
 * server announced its sleep. fi_trywait must put the socket back (the
 * count is whole again), and epoll_wait on the CQ's fd must return. Its
 * timeout is the hang watchdog's period, not a measure of speed: the
 * message is sent while the server sleeps, so no wake-up means a lost
 * one. The message read then carries the round's bytes. The socket's
 * hang-up watch (the CM context's registration) leaves and comes back
 * with it: detached, the count is two fewer.
 *
 * Last, the server spins until detached once more, then stops calling
 * the data path and only reads its EQ while the client calls
 * fi_shutdown: FI_SHUTDOWN must arrive (the fabric's watch timer gives
 * an unpolled set its sockets back, with their watch).
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>

#include "tcp_test.h"

#define SW_ROUNDS 20
#define SW_SPIN 5000
#define SW_LEN 40

/* Epoll registrations of this process's sockets: "tfd:" lines of every
 * epoll fd whose target is a socket. */
static int sw_socket_epoll_refs(void)
{
	char path[320], link[64], line[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int refs = 0, tfd;
	ssize_t n;
	FILE *f;

	TT_CHECK(dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strcmp(link, "anon_inode:[eventpoll]"))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "tfd: %d", &tfd) != 1)
				continue;
			snprintf(path, sizeof(path), "/proc/self/fd/%d", tfd);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0 && (link[n] = 0, !strncmp(link, "socket:", 7)))
				refs++;
		}
		fclose(f);
	}
	closedir(dir);
	return refs;
}

static void sw_client(void *arg)
{
	struct tt_opts o = { 0 };
	uint8_t buf[SW_LEN];
	struct tt_side c;
	int done = 0;

	(void)arg;
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	for (int r = 0; r < SW_ROUNDS; r++) {
		/* even: once the server spun; odd: once it sleeps */
		tt_wait_step(TT_SERVER, 2 * r + 1 + (r & 1), NULL, NULL);
		tt_fill(buf, sizeof(buf), (uint64_t)r);
		TT_POST(&c, &done, fi_send(c.ep, buf, sizeof(buf), NULL, 0,
					   NULL));
		while (done <= r)
			done += tt_drain(c.txcq);
		tt_step(TT_CLIENT, r + 1);
	}
	tt_wait_step(TT_SERVER, 2 * SW_ROUNDS + 1, NULL, NULL);
	TT_EQ(fi_shutdown(c.ep, 0), 0);
	tt_wait_step(TT_SERVER, 2 * SW_ROUNDS + 2, NULL, NULL);
	tt_close(&c);
}

int tt_scn_spin_wait(void)
{
	struct tt_opts o = { .rx_wait = FI_WAIT_FD };
	struct epoll_event ev = { .events = EPOLLIN };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	uint8_t buf[SW_LEN];
	struct tt_side s;
	struct fid *f;
	int fd = -1, epfd, attached, got, n, sleeps = 0;

	tt_board_init();
	tt_spawn(sw_client, NULL);
	tt_watch("spin_wait server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	TT_EQ(fi_control(&s.rxcq->fid, FI_GETWAIT, &fd), 0);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	TT_CHECK(epfd >= 0);
	TT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);
	attached = sw_socket_epoll_refs();
	f = &s.rxcq->fid;

	for (int r = 0; r < SW_ROUNDS; r++) {
		tt_watch("spin_wait server: round", TT_WATCHDOG_S);
		TT_EQ(fi_recv(s.ep, buf, sizeof(buf), NULL, 0, NULL), 0);
		for (int k = 0; k < SW_SPIN; k++)
			TT_EQ(tt_cq_poll(s.rxcq, &e, &err), 0);
		TT_EQ(sw_socket_epoll_refs(), attached - 2);
		if (!(r & 1)) {
			/* the message waits in the detached socket */
			tt_step(TT_SERVER, 2 * r + 1);
			tt_wait_step(TT_CLIENT, r + 1, NULL, NULL);
		}
		got = 0;
		if (fi_trywait(s.fabric, &f, 1) == 0) {
			TT_EQ(sw_socket_epoll_refs(), attached);
			tt_step(TT_SERVER, 2 * r + 2);
			do {
				n = epoll_wait(epfd, &ev, 1,
					       TT_WATCHDOG_S * 1000);
			} while (n < 0 && errno == EINTR);
			if (n == 0)
				fprintf(stderr, "round %d: epoll_wait woke "
					"for nothing: a lost wake-up\n", r);
			TT_EQ(n, 1);
			sleeps++;
		} else {
			tt_step(TT_SERVER, 2 * r + 2);
		}
		while (!(got = tt_cq_poll(s.rxcq, &e, &err)))
			;
		TT_EQ(got, 1);
		TT_EQ(e.len, SW_LEN);
		TT_EQ(tt_verify(buf, SW_LEN, (uint64_t)r), -1);
		tt_progress();
		if (!(r & 1))
			continue;
		tt_wait_step(TT_CLIENT, r + 1, NULL, NULL);
	}
	printf("spin_wait: %d rounds, %d sleeps\n", SW_ROUNDS, sleeps);
	/* odd rounds sleep before the message exists: at least those */
	TT_CHECK(sleeps >= SW_ROUNDS / 2);

	tt_watch("spin_wait server: FI_SHUTDOWN through the EQ alone",
		 TT_WATCHDOG_S);
	for (int k = 0; k < SW_SPIN; k++)
		TT_EQ(tt_cq_poll(s.rxcq, &e, &err), 0);
	TT_EQ(sw_socket_epoll_refs(), attached - 2);
	tt_step(TT_SERVER, 2 * SW_ROUNDS + 1);
	{
		uint8_t ev_buf[sizeof(struct fi_eq_cm_entry) + 64];

		tt_eq_wait(&s, FI_SHUTDOWN, ev_buf, sizeof(ev_buf), NULL,
			   NULL);
	}
	tt_step(TT_SERVER, 2 * SW_ROUNDS + 2);
	tt_watch("spin_wait server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	close(epfd);
	tt_close(&s);
	return 0;
}
