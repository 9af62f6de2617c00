/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One sender, many receivers in other processes: the sender sends one
 * tagged message to each of RECEIVERS x PER endpoints, every first send
 * making a connection. Each receiving process has one FI_THREAD_DOMAIN
 * domain with manual progress, one CQ shared by its PER endpoints, and
 * sleeps in fi_cq_sread; every message must arrive once, with its value.
 *
 * Why: in such a domain the application serializes its own calls, and
 * the engine once gave its CQs a queue without atomics for writers that
 * are all serialized with the reader. rxm's connection thread runs
 * endpoints' passes too (a connection formed: what waited for it
 * leaves, what arrived is read), and those write the same CQ beside the
 * application's progress: now and then a completion was lost, and one
 * endpoint of the thousands never saw its message (bench_fabric_conn
 * with -P 2000 -T 2 stalled in three runs of four).
 *
 * Usage: test_rxm_fanin [PER] (default 1000). A process that sees no
 * completion for WATCH_S seconds fails (rxm_test.h's watchdog). The
 * file-descriptor limit is raised as the run needs; where the hard limit
 * forbids it the test skips (77) and says so.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

#define RECEIVERS	2
#define TAG		0xfa41ull
#define NAME_MAX_LEN	64

struct side {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	struct fid_av *av;
};

static void io_all(int fd, void *p, size_t len, bool out)
{
	uint8_t *b = p;
	ssize_t n;

	while (len) {
		n = out ? write(fd, b, len) : read(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		CHECK(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

static void side_open(struct side *s, bool receiver)
{
	struct fi_cq_attr cq_attr = {
		.format = FI_CQ_FORMAT_TAGGED,
		.wait_obj = receiver ? FI_WAIT_UNSPEC : FI_WAIT_NONE,
	};
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints = fi_allocinfo();

	CHECK(hints);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_TAGGED;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			    hints, &s->info), 0);
	fi_freeinfo(hints);
	CHECK_EQ(s->info->domain_attr->threading, FI_THREAD_DOMAIN);
	CHECK_EQ(s->info->domain_attr->data_progress, FI_PROGRESS_MANUAL);
	CHECK_EQ(fi_fabric(s->info->fabric_attr, &s->fabric, NULL), 0);
	CHECK_EQ(fi_domain(s->fabric, s->info, &s->domain, NULL), 0);
	CHECK_EQ(fi_cq_open(s->domain, &cq_attr, &s->cq, NULL), 0);
	CHECK_EQ(fi_av_open(s->domain, &av_attr, &s->av, NULL), 0);
}

static struct fid_ep *ep_new(struct side *s)
{
	struct fid_ep *ep;

	CHECK_EQ(fi_endpoint(s->domain, s->info, &ep, NULL), 0);
	CHECK_EQ(fi_ep_bind(ep, &s->cq->fid, FI_TRANSMIT | FI_RECV), 0);
	CHECK_EQ(fi_ep_bind(ep, &s->av->fid, 0), 0);
	CHECK_EQ(fi_enable(ep), 0);
	return ep;
}

static void side_close(struct side *s)
{
	CHECK_EQ(fi_close(&s->av->fid), 0);
	CHECK_EQ(fi_close(&s->cq->fid), 0);
	CHECK_EQ(fi_close(&s->domain->fid), 0);
	CHECK_EQ(fi_close(&s->fabric->fid), 0);
	fi_freeinfo(s->info);
}

static void completion_error(struct fid_cq *cq)
{
	struct fi_cq_err_entry err = { 0 };

	CHECK_EQ(fi_cq_readerr(cq, &err, 0), 1);
	fprintf(stderr, "%s: completion error %d (%s)\n", phase, err.err,
		fi_strerror(err.err));
	exit(1);
}

static uint64_t value_of(unsigned receiver, unsigned i)
{
	return ((uint64_t)receiver << 32 | i) * 0x9e3779b97f4a7c15ull;
}

/* PER endpoints, a receive each; names out; then every message, once,
 * read while sleeping in fi_cq_sread. */
static int receive(int sock, unsigned receiver, unsigned per)
{
	uint64_t *in = calloc(per, sizeof(*in));
	struct fid_ep **eps = calloc(per, sizeof(*eps));
	bool *seen = calloc(per, sizeof(*seen));
	struct fi_cq_tagged_entry e[64];
	char name[NAME_MAX_LEN], c;
	unsigned i, got = 0;
	struct side s;
	size_t len;
	ssize_t n;

	CHECK(in && eps && seen);
	alarm(WATCH_S);		/* the watchdog: fork keeps no alarm */
	side_open(&s, true);
	for (i = 0; i < per; i++) {
		eps[i] = ep_new(&s);
		len = sizeof(name);
		CHECK_EQ(fi_getname(&eps[i]->fid, name, &len), 0);
		CHECK_EQ(fi_trecv(eps[i], &in[i], sizeof(in[i]), NULL,
				  FI_ADDR_UNSPEC, TAG, 0, &in[i]), 0);
		io_all(sock, &len, sizeof(len), true);
		io_all(sock, name, len, true);
	}
	phase = "receiving";
	while (got < per) {
		n = fi_cq_sread(s.cq, e, 64, NULL, 100);
		if (n == -FI_EAVAIL)
			completion_error(s.cq);
		if (n == -FI_EAGAIN || n == -FI_ETIMEDOUT)
			continue;	/* the watchdog ends a hang */
		CHECK(n > 0);
		rxm_test_beat();
		for (ssize_t k = 0; k < n; k++) {
			i = (unsigned)((uint64_t *)e[k].op_context - in);
			CHECK(i < per);
			CHECK(!seen[i]);
			seen[i] = true;
			CHECK(e[k].flags & FI_RECV);
			CHECK_EQ(e[k].len, sizeof(in[i]));
			CHECK_EQ(in[i], value_of(receiver, i));
		}
		got += (unsigned)n;
	}
	c = 'd';
	io_all(sock, &c, 1, true);
	io_all(sock, &c, 1, false);	/* the sender is done */
	for (i = 0; i < per; i++)
		CHECK_EQ(fi_close(&eps[i]->fid), 0);
	side_close(&s);
	free(seen);
	free(eps);
	free(in);
	return 0;
}

/* One message to every receiver's every endpoint; then their "done". */
static void send_all(const int *socks, unsigned per)
{
	unsigned total = RECEIVERS * per, posted = 0, done = 0, i;
	char (*names)[NAME_MAX_LEN] = calloc(total, NAME_MAX_LEN);
	fi_addr_t *addr = calloc(total, sizeof(*addr));
	uint64_t *out = calloc(total, sizeof(*out));
	struct fi_cq_tagged_entry e[64];
	struct fid_ep *ep;
	struct side s;
	size_t len;
	ssize_t n;
	char c;

	CHECK(names && addr && out);
	for (i = 0; i < total; i++) {
		io_all(socks[i / per], &len, sizeof(len), false);
		CHECK(len <= NAME_MAX_LEN);
		io_all(socks[i / per], names[i], len, false);
	}
	side_open(&s, false);
	ep = ep_new(&s);
	for (i = 0; i < total; i++)
		CHECK_EQ(fi_av_insert(s.av, names[i], 1, &addr[i], 0, NULL),
			 1);
	phase = "sending";
	while (done < total) {
		n = fi_cq_read(s.cq, e, 64);
		if (n == -FI_EAVAIL)
			completion_error(s.cq);
		if (n > 0) {
			done += (unsigned)n;
			rxm_test_beat();
		} else {
			CHECK_EQ(n, -FI_EAGAIN);
		}
		if (posted == total)
			continue;
		out[posted] = value_of(posted / per, posted % per);
		n = fi_tsend(ep, &out[posted], sizeof(out[posted]), NULL,
			     addr[posted], TAG, &out[posted]);
		if (!n)
			posted++;
		else
			CHECK_EQ(n, -FI_EAGAIN);
	}
	phase = "waiting for the receivers";
	for (i = 0; i < RECEIVERS; i++)
		io_all(socks[i], &c, 1, false);
	for (i = 0; i < RECEIVERS; i++)
		io_all(socks[i], &c, 1, true);
	CHECK_EQ(fi_close(&ep->fid), 0);
	side_close(&s);
	free(out);
	free(addr);
	free(names);
}

/* Each receiver: a listener and an accepted socket per endpoint, and
 * the provider's own descriptors; the sender: a socket per peer. */
static bool fd_limit(rlim_t want)
{
	struct rlimit rl;

	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur >= want)
		return true;
	/* root may raise its hard limit too; others only up to it */
	if (rl.rlim_max < want)
		rl.rlim_max = want;
	rl.rlim_cur = want;
	return !setrlimit(RLIMIT_NOFILE, &rl);
}

int main(int argc, char **argv)
{
	unsigned per = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1000;
	int socks[RECEIVERS], sv[2], status, rc = 0;
	pid_t pids[RECEIVERS];
	rlim_t want;

	CHECK(per > 0 && per <= 100000);
	rxm_test_start();
	want = (rlim_t)(3 * per + RECEIVERS * per + 1024);
	if (!fd_limit(want)) {
		printf("SKIP: needs %lu open files; the hard limit is lower "
		       "(run as root or raise it)\n", (unsigned long)want);
		return 77;
	}
	for (int i = 0; i < RECEIVERS; i++) {
		CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (!pids[i]) {
			close(sv[0]);
			_exit(receive(sv[1], (unsigned)i, per));
		}
		close(sv[1]);
		socks[i] = sv[0];
	}
	send_all(socks, per);
	for (int i = 0; i < RECEIVERS; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	if (!rc)
		printf("%u endpoints in %d processes (FI_THREAD_DOMAIN, "
		       "manual, one CQ each): every message once\n",
		       RECEIVERS * per, RECEIVERS);
	return rc;
}
