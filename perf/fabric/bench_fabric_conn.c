/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Connections on demand at scale. The measuring process sends one
 * message to each of P peers (-P, default 10000) that live in H other
 * processes (-T, default 10; P / H endpoints each, all on 127.0.0.1,
 * each helper with one fabric, domain, CQ and AV for its endpoints).
 * Every first send starts a connection (an RDM provider over a
 * connected one: tcp;ofi_rxm). The helpers sleep in fi_cq_sread; the
 * measurer spins. Rows:
 *
 *   conn_all_first_msg   ms from the first send until every peer has
 *                        received its message (each helper reports when
 *                        all of its endpoints have)
 *   conn_per_s           P / that time
 *   mem_per_conn_peer    (RSS after - RSS before the first address
 *                        insert) / P, KiB: address, connection and
 *                        whatever the provider keeps per peer
 *
 * The size column holds P. One sample (a run opens P connections and
 * 2 P sockets). No progress for 120 s is a stall: the program says how
 * far it got and exits 1. The fd limit is raised as far as the hard
 * limit allows (root: to what the run needs).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "bf_common.h"
#include "pl_bench.h"

#define CONN_TAG	0x5ca1eull
#define CONN_NAME_MAX	64
#define CONN_STALL_S	120
#define CONN_MAX_HELPERS 256

struct conn_side {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_mr *mr;
	void *desc;
	uint8_t *buf;
};

static void conn_die(const char *what, long ret)
{
	fprintf(stderr, "bench_fabric_conn (pid %d): %s: %ld (%s)\n",
		(int)getpid(), what, ret,
		fi_strerror((int)(ret < 0 ? -ret : ret)));
	exit(1);
}

static uint64_t conn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void conn_raise_fd_limit(rlim_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_max < want) {
		rl.rlim_max = want;	/* root may; others keep their hard */
		rl.rlim_cur = want;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return;
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

static void conn_write(int fd, const void *p, size_t len)
{
	int ret = bf_fd_write_all(fd, p, len);

	if (ret)
		conn_die("socket write", ret);
}

static void conn_read(int fd, void *p, size_t len)
{
	int ret = bf_fd_read_all(fd, p, len);

	if (ret)
		conn_die("socket read", ret);
}

/* fabric, domain, one CQ and one AV on 127.0.0.1; buf of len bytes */
static void conn_side_open(struct conn_side *s, const struct bf_opts *o,
			   size_t cq_size, size_t len, bool sleepy)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT,
				      .wait_obj = sleepy ? FI_WAIT_UNSPEC :
							   FI_WAIT_NONE,
				      .size = cq_size };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints = fi_allocinfo();
	long ret;

	if (!hints)
		conn_die("fi_allocinfo", -FI_ENOMEM);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_TAGGED;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->domain_attr->data_progress = o->progress;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup(o->prov);
	ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			 hints, &s->info);
	fi_freeinfo(hints);
	if (ret)
		conn_die("fi_getinfo", ret);
	if ((ret = fi_fabric(s->info->fabric_attr, &s->fabric, NULL)))
		conn_die("fi_fabric", ret);
	if ((ret = fi_domain(s->fabric, s->info, &s->domain, NULL)))
		conn_die("fi_domain", ret);
	if ((ret = fi_cq_open(s->domain, &cq_attr, &s->cq, NULL)))
		conn_die("fi_cq_open", ret);
	if ((ret = fi_av_open(s->domain, &av_attr, &s->av, NULL)))
		conn_die("fi_av_open", ret);
	s->buf = calloc(1, len);
	if (!s->buf)
		conn_die("calloc", -FI_ENOMEM);
	if (s->info->domain_attr->mr_mode & FI_MR_LOCAL) {
		ret = fi_mr_reg(s->domain, s->buf, len, FI_SEND | FI_RECV, 0,
				0, 0, &s->mr, NULL);
		if (ret)
			conn_die("fi_mr_reg", ret);
		s->desc = fi_mr_desc(s->mr);
	}
}

static struct fid_ep *conn_ep_open(struct conn_side *s)
{
	struct fid_ep *ep;
	long ret;

	if ((ret = fi_endpoint(s->domain, s->info, &ep, NULL)))
		conn_die("fi_endpoint", ret);
	if ((ret = fi_ep_bind(ep, &s->cq->fid, FI_TRANSMIT | FI_RECV)) ||
	    (ret = fi_ep_bind(ep, &s->av->fid, 0)))
		conn_die("fi_ep_bind", ret);
	if ((ret = fi_enable(ep)))
		conn_die("fi_enable", ret);
	return ep;
}

static void conn_side_close(struct conn_side *s)
{
	if (s->mr)
		fi_close(&s->mr->fid);
	fi_close(&s->av->fid);
	fi_close(&s->cq->fid);
	fi_close(&s->domain->fid);
	fi_close(&s->fabric->fid);
	fi_freeinfo(s->info);
	free(s->buf);
}

/* Completions read (waiting up to timeout_ms with sread when it is not
 * 0: a helper sleeps, so that hundreds of them leave the CPUs to the
 * measurer and the providers' threads), errors fatal. */
static size_t conn_drain(struct conn_side *s, int timeout_ms)
{
	struct fi_cq_entry e[64];
	struct fi_cq_err_entry err;
	ssize_t n = timeout_ms ? fi_cq_sread(s->cq, e, 64, NULL, timeout_ms) :
				 fi_cq_read(s->cq, e, 64);

	if (n > 0)
		return (size_t)n;
	if (n == -FI_EAGAIN || n == -FI_ETIMEDOUT)
		return 0;
	if (n == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		(void)fi_cq_readerr(s->cq, &err, 0);
		conn_die("completion error", -err.err);
	}
	conn_die("fi_cq_read", n);
	return 0;
}

/* A helper: n endpoints, one receive each; names out, then "done" once
 * every receive completed. */
static int conn_helper(const struct bf_opts *o, int sock, unsigned n)
{
	struct fi_context *ctx = calloc(n, sizeof(*ctx));
	struct fid_ep **eps = calloc(n, sizeof(*eps));
	char name[CONN_NAME_MAX], c;
	struct conn_side s = { 0 };
	size_t len, got = 0;
	unsigned i;
	long ret;

	if (!ctx || !eps)
		conn_die("calloc", -FI_ENOMEM);
	conn_side_open(&s, o, 2 * n + 64, 8 * (size_t)n, true);
	for (i = 0; i < n; i++) {
		eps[i] = conn_ep_open(&s);
		len = sizeof(name);
		if ((ret = fi_getname(&eps[i]->fid, name, &len)))
			conn_die("fi_getname", ret);
		ret = fi_trecv(eps[i], s.buf + 8 * (size_t)i, 8, s.desc,
			       FI_ADDR_UNSPEC, CONN_TAG, 0, &ctx[i]);
		if (ret)
			conn_die("fi_trecv", ret);
		conn_write(sock, &len, sizeof(len));
		conn_write(sock, name, len);
	}
	while (got < n)
		got += conn_drain(&s, 100);
	c = 'd';
	conn_write(sock, &c, 1);
	conn_read(sock, &c, 1);		/* the measurer is done */
	for (i = 0; i < n; i++)
		fi_close(&eps[i]->fid);
	conn_side_close(&s);
	free(eps);
	free(ctx);
	return 0;
}

static void conn_row(const char *bench, unsigned peers, const char *unit,
		     double v)
{
	struct pl_bench_stats stats;

	pl_bench_stats_compute(&v, 1, &stats);
	pl_bench_csv_row(stdout, bench, pl_bench_library_name(), peers, unit,
			 &stats);
}

/* Helpers that reported "done" since the last look (non-blocking). */
static unsigned conn_poll_done(struct pollfd *pfd, unsigned h)
{
	unsigned i, done = 0;
	char c;

	if (poll(pfd, h, 0) <= 0)
		return 0;
	for (i = 0; i < h; i++)
		if (pfd[i].revents & (POLLIN | POLLHUP)) {
			conn_read(pfd[i].fd, &c, 1);
			pfd[i].fd = -pfd[i].fd - 1;	/* poll skips it */
			done++;
		}
	return done;
}

static int conn_measure(const struct bf_opts *o, const int *socks,
			unsigned h, unsigned per)
{
	unsigned p = h * per, i, posted = 0, helpers_done = 0;
	struct fi_context *ctx = calloc(p, sizeof(*ctx));
	fi_addr_t *addr = calloc(p, sizeof(*addr));
	char (*names)[CONN_NAME_MAX] = calloc(p, CONN_NAME_MAX);
	struct pollfd pfd[CONN_MAX_HELPERS];
	size_t tx_done = 0, len;
	uint64_t t0, t1, last;
	struct conn_side s = { 0 };
	struct fid_ep *ep;
	double rss0, rss1;
	char c = 'q';
	long ret;

	if (!ctx || !addr || !names)
		conn_die("calloc", -FI_ENOMEM);
	memset(ctx, 0, p * sizeof(*ctx));	/* resident before rss0 */
	memset(addr, 0, p * sizeof(*addr));
	for (i = 0; i < p; i++) {
		conn_read(socks[i / per], &len, sizeof(len));
		if (len > CONN_NAME_MAX)
			conn_die("peer name too long", -FI_EINVAL);
		conn_read(socks[i / per], names[i], len);
	}
	conn_side_open(&s, o, 16384, 64, false);
	ep = conn_ep_open(&s);
	rss0 = bf_rss_kib();
	for (i = 0; i < p; i++)
		if ((ret = fi_av_insert(s.av, names[i], 1, &addr[i], 0,
					NULL)) != 1)
			conn_die("fi_av_insert", ret);
	for (i = 0; i < h; i++)
		pfd[i] = (struct pollfd){ .fd = socks[i], .events = POLLIN };
	t0 = last = conn_now_ns();
	while (tx_done < p || helpers_done < h) {
		size_t got = conn_drain(&s, 0);
		unsigned hd = conn_poll_done(pfd, h);

		if (posted < p) {
			ret = fi_tsend(ep, s.buf, 8, s.desc, addr[posted],
				       CONN_TAG, &ctx[posted]);
			if (!ret)
				posted++;
			else if (ret != -FI_EAGAIN)
				conn_die("fi_tsend", ret);
			else if (!got && !hd)
				sched_yield();
		}
		tx_done += got;
		helpers_done += hd;
		if (got || hd || (posted < p && !ret)) {
			last = conn_now_ns();
		} else if (conn_now_ns() - last > CONN_STALL_S * 1000000000ull) {
			printf("# STALL on %s: no progress for %d s with %u of "
			       "%u sends posted, %zu complete, %u of %u "
			       "helpers' peers all reached\n",
			       pl_bench_library_name(), CONN_STALL_S, posted,
			       p, tx_done, helpers_done, h);
			fflush(stdout);
			exit(1);
		}
	}
	t1 = conn_now_ns();
	rss1 = bf_rss_kib();
	conn_row("conn_all_first_msg", p, "ms", (double)(t1 - t0) / 1e6);
	conn_row("conn_per_s", p, "conn/s", (double)p * 1e9 /
		 (double)(t1 - t0));
	conn_row("mem_per_conn_peer", p, "KiB", (rss1 - rss0) / p);
	fflush(stdout);
	for (i = 0; i < h; i++)
		conn_write(socks[i], &c, 1);
	fi_close(&ep->fid);
	conn_side_close(&s);
	free(names);
	free(addr);
	free(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	int socks[CONN_MAX_HELPERS], sv[2], status, rc = 0;
	pid_t pids[CONN_MAX_HELPERS];
	unsigned h, per, i;
	struct bf_opts opts;

	bf_opts_parse(argc, argv, NULL, &opts);
	h = opts.threads ? opts.threads : 10;
	if (!opts.peers)
		opts.peers = 10000;
	if (h > CONN_MAX_HELPERS || h > opts.peers) {
		fprintf(stderr, "%s: -T: 1 to %d helpers, at most -P\n",
			argv[0], CONN_MAX_HELPERS);
		return 2;
	}
	per = opts.peers / h;
	/* the measurer: a socket per peer; a helper: a listener and an
	 * accepted socket per endpoint, and the provider's own */
	conn_raise_fd_limit((rlim_t)(3 * (size_t)per + opts.peers + 4096));
	pl_bench_csv_header(stdout);
	fflush(NULL);
	for (i = 0; i < h; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			return 1;
		pids[i] = fork();
		if (pids[i] < 0)
			return 1;
		if (!pids[i]) {
			close(sv[0]);
			_exit(conn_helper(&opts, sv[1], per));
		}
		close(sv[1]);
		socks[i] = sv[0];
	}
	rc = conn_measure(&opts, socks, h, per);
	for (i = 0; i < h; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	return rc;
}
