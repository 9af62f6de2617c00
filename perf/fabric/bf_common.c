/* SPDX-License-Identifier: BSD-2-Clause */
/* The two-process fabric benchmark plumbing (bf_common.h). */
#include <errno.h>
#include <sched.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "bf_common.h"

#define BF_TAG 0x5ULL

static void bf_die(const struct bf_side *side, const char *what, long ret)
{
	fprintf(stderr, "bench[rank %d]: %s: %ld (%s)\n", side ? side->rank : -1,
		what, ret, fi_strerror((int)(ret < 0 ? -ret : ret)));
	exit(1);
}

void bf_die_msg(const struct bf_side *side, const char *what, long ret)
{
	bf_die(side, what, ret);
}

void bf_opts_parse(int argc, char **argv, const char *usage_extra,
		   struct bf_opts *opts)
{
	int c;

	*opts = (struct bf_opts){
		.prov = "shm", .min_size = 1, .max_size = 4u << 20,
		.reps = 7, .warmup = 2, .iters = 2000,
		.progress = FI_PROGRESS_UNSPEC, .ep_type = FI_EP_RDM,
	};
	while ((c = getopt(argc, argv, "p:tm:M:r:w:i:aT:s:P:e:")) != -1) {
		switch (c) {
		case 'p': opts->prov = optarg; break;
		case 't': opts->tagged = true; break;
		case 'm': opts->min_size = strtoull(optarg, NULL, 0); break;
		case 'M': opts->max_size = strtoull(optarg, NULL, 0); break;
		case 'r': opts->reps = (unsigned)atoi(optarg); break;
		case 'w': opts->warmup = (unsigned)atoi(optarg); break;
		case 'i': opts->iters = (unsigned)atoi(optarg); break;
		case 'a': opts->progress = FI_PROGRESS_AUTO; break;
		case 'T': opts->threads = (unsigned)atoi(optarg); break;
		case 's': opts->size = strtoull(optarg, NULL, 0); break;
		case 'P': opts->peers = (unsigned)atoi(optarg); break;
		case 'e':
			opts->ep_type = !strcmp(optarg, "msg") ? FI_EP_MSG :
					FI_EP_RDM;
			break;
		default:
			fprintf(stderr, "usage: %s [-p prov] [-t] [-m min] [-M max] "
				"[-r reps] [-w warmup] [-i iters] [-a] [-T threads] "
				"[-s size] [-P peers] [-e msg|rdm]%s\n",
				argv[0], usage_extra ? usage_extra : "");
			exit(2);
		}
	}
	if (!opts->min_size || opts->min_size > opts->max_size ||
	    !opts->reps || !opts->iters) {
		fprintf(stderr, "%s: bad sizes or counts\n", argv[0]);
		exit(2);
	}
}

unsigned bf_iters_for(const struct bf_opts *opts, size_t len)
{
	/* about 64 MiB per sample at most, never fewer than 20 operations */
	size_t cap = (64u << 20) / len;

	if (cap < 20)
		cap = 20;
	return opts->iters < cap ? opts->iters : (unsigned)cap;
}

struct fi_info *bf_hints(const struct bf_opts *opts)
{
	struct fi_info *hints = fi_allocinfo();

	if (!hints)
		return NULL;
	hints->ep_attr->type = opts->ep_type ? opts->ep_type : FI_EP_RDM;
	hints->caps = (opts->tagged ? FI_TAGGED : FI_MSG) | opts->caps;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
		FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->domain_attr->threading = opts->threading ? opts->threading :
					FI_THREAD_DOMAIN;
	hints->domain_attr->data_progress = opts->progress;
	hints->fabric_attr->prov_name = strdup(opts->prov);
	return hints;
}

int bf_getinfo(const struct bf_opts *opts, struct fi_info *hints,
	       struct fi_info **info_p)
{
	/* a provider over sockets serves every interface: the benchmark
	 * keeps to loopback (the first interface would be the machine's
	 * own address), on both libraries alike */
	if (opts->prov && strstr(opts->prov, "tcp")) {
		hints->addr_format = FI_SOCKADDR_IN;
		return fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL,
				  FI_SOURCE, hints, info_p);
	}
	return fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, info_p);
}

int bf_probe(const struct bf_opts *opts)
{
	struct fi_info *hints = bf_hints(opts), *info = NULL;
	int ret;

	if (!hints)
		return -FI_ENOMEM;
	ret = bf_getinfo(opts, hints, &info);
	fi_freeinfo(hints);
	if (!ret)
		fi_freeinfo(info);
	return ret;
}

void bf_side_open(struct bf_side *side)
{
	const struct bf_opts *opts = side->opts;
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT,
				      .wait_obj = FI_WAIT_NONE };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints;
	struct timespec now;
	long ret;

	if (opts->ep_type == FI_EP_MSG) {
		bf_msg_open_connect(side);
		goto buffer;
	}
	hints = bf_hints(opts);
	if (!hints)
		bf_die(side, "fi_allocinfo", -FI_ENOMEM);
	clock_gettime(CLOCK_MONOTONIC, &now);
	side->t_getinfo_ns = (uint64_t)now.tv_sec * 1000000000u +
			     (uint64_t)now.tv_nsec;
	ret = bf_getinfo(opts, hints, &side->info);
	fi_freeinfo(hints);
	if (ret)
		bf_die(side, "fi_getinfo", ret);
	if ((ret = fi_fabric(side->info->fabric_attr, &side->fabric, NULL)))
		bf_die(side, "fi_fabric", ret);
	if ((ret = fi_domain(side->fabric, side->info, &side->domain, NULL)))
		bf_die(side, "fi_domain", ret);
	cq_attr.size = 4 * BF_WINDOW;
	if ((ret = fi_cq_open(side->domain, &cq_attr, &side->tx_cq, NULL)))
		bf_die(side, "fi_cq_open tx", ret);
	if ((ret = fi_cq_open(side->domain, &cq_attr, &side->rx_cq, NULL)))
		bf_die(side, "fi_cq_open rx", ret);
	if ((ret = fi_av_open(side->domain, &av_attr, &side->av, NULL)))
		bf_die(side, "fi_av_open", ret);
	if ((ret = fi_endpoint(side->domain, side->info, &side->ep, NULL)))
		bf_die(side, "fi_endpoint", ret);
	if ((ret = fi_ep_bind(side->ep, &side->tx_cq->fid, FI_TRANSMIT)) ||
	    (ret = fi_ep_bind(side->ep, &side->rx_cq->fid, FI_RECV)) ||
	    (ret = fi_ep_bind(side->ep, &side->av->fid, 0)))
		bf_die(side, "fi_ep_bind", ret);
	if ((ret = fi_enable(side->ep)))
		bf_die(side, "fi_enable", ret);
buffer:

	side->buf_size = 2 * opts->max_size;
	if (posix_memalign((void **)&side->buf, 4096, side->buf_size))
		bf_die(side, "posix_memalign", -FI_ENOMEM);
	memset(side->buf, side->rank ? 0xb1 : 0xa0, side->buf_size);
	if (side->info->domain_attr->mr_mode & FI_MR_LOCAL) {
		ret = fi_mr_reg(side->domain, side->buf, side->buf_size,
				FI_SEND | FI_RECV, 0, 0, 0, &side->mr, NULL);
		if (ret)
			bf_die(side, "fi_mr_reg", ret);
		side->desc = fi_mr_desc(side->mr);
	}
}

int bf_fd_write_all(int fd, const void *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p = (const char *)p + n;
		len -= (size_t)n;
	}
	return 0;
}

int bf_fd_read_all(int fd, void *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -FI_ECONNRESET;
		p = (char *)p + n;
		len -= (size_t)n;
	}
	return 0;
}

void bf_sock_write(struct bf_side *side, const void *p, size_t len)
{
	int ret = bf_fd_write_all(side->sock, p, len);

	if (ret)
		bf_die(side, "socket write", ret);
}

void bf_sock_read(struct bf_side *side, void *p, size_t len)
{
	int ret = bf_fd_read_all(side->sock, p, len);

	if (ret)
		bf_die(side, "socket read (peer gone?)", ret);
}

double bf_rss_kib(void)
{
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int n = f ? fscanf(f, "%lu %lu", &size, &resident) : 0;

	if (f)
		fclose(f);
	if (n != 2)
		bf_die(NULL, "reading /proc/self/statm", -FI_EOTHER);
	return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1024.0;
}

static void bf_connect(struct bf_side *side)
{
	char name[256], peer_name[256];
	size_t len = sizeof(name), peer_len;
	long ret;

	if (side->opts->ep_type == FI_EP_MSG)
		return;	/* connected when opened */
	if ((ret = fi_getname(&side->ep->fid, name, &len)))
		bf_die(side, "fi_getname", ret);
	bf_sock_write(side, &len, sizeof(len));
	bf_sock_write(side, name, len);
	bf_sock_read(side, &peer_len, sizeof(peer_len));
	if (peer_len > sizeof(peer_name))
		bf_die(side, "peer name too long", -FI_EINVAL);
	bf_sock_read(side, peer_name, peer_len);
	ret = fi_av_insert(side->av, peer_name, 1, &side->peer, 0, NULL);
	if (ret != 1)
		bf_die(side, "fi_av_insert", ret);
}

void bf_side_close(struct bf_side *side)
{
	if (side->mr)
		fi_close(&side->mr->fid);
	if (side->opts->ep_type == FI_EP_MSG) {
		bf_msg_close(side);
		fi_freeinfo(side->info);
		free(side->buf);
		return;
	}
	fi_close(&side->ep->fid);
	fi_close(&side->av->fid);
	fi_close(&side->tx_cq->fid);
	fi_close(&side->rx_cq->fid);
	fi_close(&side->domain->fid);
	fi_close(&side->fabric->fid);
	fi_freeinfo(side->info);
	free(side->buf);
}

/* Reads what both CQs hold; dies on an error completion. */
static void bf_progress(struct bf_side *side)
{
	struct fi_cq_entry e[16];
	struct fi_cq_err_entry err = { 0 };
	ssize_t n;

	n = fi_cq_read(side->tx_cq, e, 16);
	if (n > 0)
		side->tx_done += (uint64_t)n;
	else if (n == -FI_EAVAIL && fi_cq_readerr(side->tx_cq, &err, 0) > 0)
		bf_die(side, "send completion error", -err.err);
	else if (n < 0 && n != -FI_EAGAIN)
		bf_die(side, "fi_cq_read tx", n);
	n = fi_cq_read(side->rx_cq, e, 16);
	if (n > 0)
		side->rx_done += (uint64_t)n;
	else if (n == -FI_EAVAIL && fi_cq_readerr(side->rx_cq, &err, 0) > 0)
		bf_die(side, "receive completion error", -err.err);
	else if (n < 0 && n != -FI_EAGAIN)
		bf_die(side, "fi_cq_read rx", n);
}

void bf_wait(struct bf_side *side, uint64_t tx, uint64_t rx)
{
	while (side->tx_done < tx || side->rx_done < rx)
		bf_progress(side);
}

void bf_send(struct bf_side *side, size_t len, unsigned slot)
{
	struct fi_context *ctx = &side->ctx[slot % BF_WINDOW];
	bool inject = len <= side->info->tx_attr->inject_size;
	ssize_t ret;

	for (;;) {
		if (inject)
			ret = side->opts->tagged ?
				fi_tinject(side->ep, side->buf, len, side->peer, BF_TAG) :
				fi_inject(side->ep, side->buf, len, side->peer);
		else
			ret = side->opts->tagged ?
				fi_tsend(side->ep, side->buf, len, side->desc,
					 side->peer, BF_TAG, ctx) :
				fi_send(side->ep, side->buf, len, side->desc,
					side->peer, ctx);
		if (ret != -FI_EAGAIN)
			break;
		bf_progress(side);
	}
	if (ret)
		bf_die(side, inject ? "fi_inject" : "fi_send", ret);
	if (inject)
		side->tx_done++;	/* an inject writes no completion */
}

void bf_recv(struct bf_side *side, size_t len, unsigned slot)
{
	struct fi_context *ctx = &side->ctx[BF_WINDOW + slot % BF_WINDOW];
	char *rbuf = side->buf + side->buf_size / 2;
	ssize_t ret;

	for (;;) {
		ret = side->opts->tagged ?
			fi_trecv(side->ep, rbuf, len, side->desc, side->peer,
				 BF_TAG, 0, ctx) :
			fi_recv(side->ep, rbuf, len, side->desc, side->peer, ctx);
		if (ret != -FI_EAGAIN)
			break;
		bf_progress(side);
	}
	if (ret)
		bf_die(side, "fi_recv", ret);
}

void bf_barrier(struct bf_side *side)
{
	char c = 'b';

	bf_sock_write(side, &c, 1);
	bf_sock_read(side, &c, 1);
}

/* BF_PIN=1 puts rank r on CPU r (modulo the CPUs we may use), so the
 * two processes of a run never share or swap cores. The CPUs are those
 * the process had before its first pair: the parent stays pinned after a
 * pair, and a later child would otherwise inherit that single CPU and
 * land on it too (both ranks on one core). */
static cpu_set_t bf_pin_allowed;
static bool bf_pin_saved;

static void bf_pin_save(void)
{
	if (!bf_pin_saved &&
	    !sched_getaffinity(0, sizeof(bf_pin_allowed), &bf_pin_allowed))
		bf_pin_saved = true;
}

static void bf_pin(int rank)
{
	const char *env = getenv("BF_PIN");
	cpu_set_t one;
	int cpu, n = 0;

	if (!env || strcmp(env, "1") || !bf_pin_saved)
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &bf_pin_allowed))
			continue;
		if (n++ == rank % CPU_COUNT(&bf_pin_allowed)) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			sched_setaffinity(0, sizeof(one), &one);
			return;
		}
	}
}

int bf_run_pair(const struct bf_opts *opts,
		int (*body)(struct bf_side *side, void *arg), void *arg)
{
	struct bf_side side = { .opts = opts };
	int sv[2], status, rc;
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	fflush(NULL);
	bf_pin_save();	/* before any pair pinned us */
	child = fork();
	if (child < 0)
		return 1;
	side.rank = child == 0;
	side.sock = sv[side.rank];
	bf_pin(side.rank);
	close(sv[!side.rank]);
	bf_side_open(&side);
	bf_connect(&side);
	bf_barrier(&side);
	rc = body(&side, arg);
	bf_barrier(&side);
	bf_side_close(&side);
	close(side.sock);
	if (child == 0)
		_exit(rc);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 1;
	return rc | WEXITSTATUS(status);
}
