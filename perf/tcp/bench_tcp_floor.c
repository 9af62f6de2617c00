/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The floor for the tcp provider's figures: the same exchanges over a
 * plain TCP socket pair on 127.0.0.1, with no library in between, written
 * the way a provider must drive them (nonblocking sockets, TCP_NODELAY,
 * busy polling with recv/send until the bytes are through).
 *
 *   bench_tcp_floor pingpong [-m min] [-M max] [-r reps] [-w warmup] [-i iters]
 *       round trip / 2 per size, microseconds ("pingpong_msg")
 *   bench_tcp_floor bw [...]
 *       64 messages in flight per window, a 1-byte answer per window
 *       (the shape of bench_fabric_bw): MB/s ("bw_msg") and millions of
 *       messages per second ("rate_msg")
 *
 * CSV rows in the harness's format, library "socket-floor". Medians only;
 * nothing here passes or fails on a time.
 */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pl_bench.h"

#define FLOOR_WINDOW 64

struct floor {
	int fd;
	char *buf;
	size_t len;
	unsigned iters;
	bool bw;
};

static void floor_die(const char *what)
{
	fprintf(stderr, "bench_tcp_floor: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void floor_send(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			floor_die("send");
		}
	}
}

static void floor_recv(int fd, char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n == 0) {
			errno = ECONNRESET;
			floor_die("recv");
		} else if (errno != EAGAIN && errno != EINTR) {
			floor_die("recv");
		}
	}
}

static double floor_pp_sample(void *arg)
{
	struct floor *f = arg;
	uint64_t t0 = pl_bench_now_ns();
	unsigned i;

	for (i = 0; i < f->iters; i++) {
		floor_send(f->fd, f->buf, f->len);
		floor_recv(f->fd, f->buf, f->len);
	}
	return (double)(pl_bench_now_ns() - t0) / f->iters / 2 / 1e3;
}

static double floor_bw_sample(void *arg)
{
	struct floor *f = arg;
	uint64_t t0 = pl_bench_now_ns();
	unsigned i, w;
	char ack;

	for (i = 0; i < f->iters; i++) {
		for (w = 0; w < FLOOR_WINDOW; w++)
			floor_send(f->fd, f->buf, f->len);
		floor_recv(f->fd, &ack, 1);
	}
	return (double)f->len * FLOOR_WINDOW * f->iters /
	       (double)(pl_bench_now_ns() - t0) * 1e3;	/* MB/s */
}

/* The peer: echo or absorb as many exchanges as rank 0 makes. */
static void floor_peer(struct floor *f, unsigned total)
{
	unsigned i, w;
	char ack = 'a';

	for (i = 0; i < total; i++) {
		if (!f->bw) {
			floor_recv(f->fd, f->buf, f->len);
			floor_send(f->fd, f->buf, f->len);
			continue;
		}
		for (w = 0; w < FLOOR_WINDOW; w++)
			floor_recv(f->fd, f->buf, f->len);
		floor_send(f->fd, &ack, 1);
	}
}

static int floor_pair(int sv[2])
{
	int lfd, one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1) || getsockname(lfd, (struct sockaddr *)&sa, &sl))
		floor_die("listen");
	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[0] < 0 || connect(sv[0], (struct sockaddr *)&sa, sizeof(sa)))
		floor_die("connect");
	sv[1] = accept(lfd, NULL, NULL);
	if (sv[1] < 0)
		floor_die("accept");
	close(lfd);
	setsockopt(sv[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(sv[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

int main(int argc, char **argv)
{
	size_t min = 1, max = 4u << 20, len;
	unsigned reps = 7, warmup = 2, iters = 2000;
	struct pl_bench_stats stats;
	struct floor f = { 0 };
	int sv[2], c, status;
	pid_t child;

	if (argc < 2 || (strcmp(argv[1], "pingpong") && strcmp(argv[1], "bw"))) {
		fprintf(stderr, "usage: %s pingpong|bw [-m min] [-M max] "
			"[-r reps] [-w warmup] [-i iters]\n", argv[0]);
		return 2;
	}
	f.bw = !strcmp(argv[1], "bw");
	optind = 2;
	while ((c = getopt(argc, argv, "m:M:r:w:i:")) != -1) {
		switch (c) {
		case 'm': min = strtoull(optarg, NULL, 0); break;
		case 'M': max = strtoull(optarg, NULL, 0); break;
		case 'r': reps = (unsigned)atoi(optarg); break;
		case 'w': warmup = (unsigned)atoi(optarg); break;
		case 'i': iters = (unsigned)atoi(optarg); break;
		default: return 2;
		}
	}
	if (!min || min > max || !reps || !iters)
		return 2;
	f.buf = malloc(max);
	if (!f.buf)
		return 1;
	memset(f.buf, 0x5a, max);
	floor_pair(sv);
	fflush(NULL);
	child = fork();
	if (child < 0)
		floor_die("fork");
	f.fd = sv[child == 0];
	close(sv[child != 0]);
	for (len = min; len <= max; len *= 2) {
		/* about 64 MiB per sample at most, at least 20 exchanges */
		size_t cap = (64u << 20) / len / (f.bw ? FLOOR_WINDOW : 1);

		f.len = len;
		f.iters = iters < cap ? iters : (unsigned)(cap < 20 ? 20 : cap);
		if (child == 0) {
			floor_peer(&f, (warmup + reps) * f.iters);
			continue;
		}
		struct pl_bench_series s = {
			.name = f.bw ? "bw_msg" : "pingpong_msg",
			.unit = f.bw ? "MB/s" : "us",
			.warmup = warmup, .reps = reps,
			.sample = f.bw ? floor_bw_sample : floor_pp_sample,
			.arg = &f,
		};
		if (len == min)
			pl_bench_csv_header(stdout);
		if (pl_bench_run(&s, &stats, NULL))
			return 1;
		pl_bench_csv_row(stdout, s.name, "socket-floor", len, s.unit,
				 &stats);
		if (f.bw) {
			struct pl_bench_stats r = stats;

			/* the same samples as messages per second */
			r.median /= (double)len;
			r.min /= (double)len;
			r.max /= (double)len;
			r.p10 /= (double)len;
			r.p90 /= (double)len;
			r.mean /= (double)len;
			pl_bench_csv_row(stdout, "rate_msg", "socket-floor",
					 len, "Mmsg/s", &r);
		}
		fflush(stdout);
	}
	if (child == 0)
		_exit(0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	return 0;
}
