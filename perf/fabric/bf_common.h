/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the two-process fabric benchmarks share: the resources of one
 * side (fabric, domain, RDM endpoint, CQs, AV, a registered buffer), the
 * exchange of endpoint names over a socketpair made before fork(), and
 * completion waiting.
 *
 * Written against the public libfabric API only, requesting
 * FI_VERSION(1,17), and linked against the reference libfabric.so.1, so
 * the same binary runs on the reference (default) and on propel
 * (LD_LIBRARY_PATH=<propel>/lib). Nothing here is thread-safe except
 * where a function says so: one struct bf_side per process.
 */
#ifndef PROPEL_BF_COMMON_H
#define PROPEL_BF_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

/* Most operations one side keeps in flight (the bandwidth window). */
#define BF_WINDOW 64

struct bf_opts {
	const char *prov;	/* -p: provider name (default shm) */
	bool tagged;		/* -t: fi_tsend/fi_trecv instead of fi_send/fi_recv */
	size_t min_size;	/* -m */
	size_t max_size;	/* -M */
	unsigned reps;		/* -r: timed samples per size */
	unsigned warmup;	/* -w: untimed samples per size */
	unsigned iters;		/* -i: operations per sample at 1 byte */
	enum fi_progress progress; /* -a: FI_PROGRESS_AUTO, else unspec */
	uint64_t caps;		/* extra caps a benchmark needs (FI_RMA...) */
	enum fi_threading threading; /* unspec: FI_THREAD_DOMAIN */
	unsigned threads;	/* -T: thread pairs (0: the program's default) */
	size_t size;		/* -s: one message size (0: the program's default) */
	unsigned peers;		/* -P: peers (0: the program's default) */
	enum fi_ep_type ep_type; /* -e msg|rdm (default rdm) */
};

struct bf_side {
	int rank;		/* 0: the parent, which prints; 1: the child */
	int sock;		/* socketpair end to the peer process */
	const struct bf_opts *opts;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_ep *ep;
	struct fid_cq *tx_cq;
	struct fid_cq *rx_cq;
	struct fid_av *av;	/* RDM only */
	struct fid_eq *eq;	/* MSG only: connection events */
	struct fid_pep *pep;	/* MSG only, rank 0: the listener */
	struct fid_mr *mr;
	void *desc;		/* fi_mr_desc when the domain wants FI_MR_LOCAL */
	fi_addr_t peer;
	uint64_t t_getinfo_ns;	/* CLOCK_MONOTONIC when bf_side_open called fi_getinfo */
	char *buf;		/* 2 * max_size: send half, receive half */
	size_t buf_size;
	uint64_t tx_done;	/* completions seen so far */
	uint64_t rx_done;
	struct fi_context ctx[2 * BF_WINDOW];	/* for FI_CONTEXT providers */
};

/* Parses the common options; prints usage and exits on a bad one. */
void bf_opts_parse(int argc, char **argv, const char *usage_extra,
		   struct bf_opts *opts);

/*
 * fork()s: runs body(side, arg) in the parent (rank 0) and in a child
 * (rank 1), each with its own opened and connected side. Returns the
 * parent's exit status combined with the child's (0 when both are 0).
 */
int bf_run_pair(const struct bf_opts *opts,
		int (*body)(struct bf_side *side, void *arg), void *arg);

/* Operations on the send half / receive half of side->buf; retry on
 * -FI_EAGAIN while driving completions. Exit the process on an error. */
void bf_send(struct bf_side *side, size_t len, unsigned slot);
void bf_recv(struct bf_side *side, size_t len, unsigned slot);
/* Reads both CQs until tx_done >= tx and rx_done >= rx. */
void bf_wait(struct bf_side *side, uint64_t tx, uint64_t rx);
/* Both processes reach this point before either goes on. */
void bf_barrier(struct bf_side *side);

/* The hints every benchmark asks with (caller frees with fi_freeinfo),
 * and fi_getinfo with them: 0, or the negative error (-FI_ENODATA when
 * this library cannot offer what opts ask for). */
struct fi_info *bf_hints(const struct bf_opts *opts);
/* fi_getinfo for the benchmark: a provider over sockets (tcp, and rxm
 * over it) on 127.0.0.1, any other as it comes. */
int bf_getinfo(const struct bf_opts *opts, struct fi_info *hints,
	       struct fi_info **info_p);
int bf_probe(const struct bf_opts *opts);

/* One side's resources without bf_run_pair: open (fi_getinfo through an
 * enabled endpoint and a buffer of 2 * opts->max_size; dies on an error)
 * and close. side->opts and side->rank must be set. */
void bf_side_open(struct bf_side *side);
void bf_side_close(struct bf_side *side);
/* All of len bytes over fd: 0, or a negative errno (-FI_ECONNRESET at
 * end of stream). */
int bf_fd_write_all(int fd, const void *p, size_t len);
int bf_fd_read_all(int fd, void *p, size_t len);
/* Resident set of this process, KiB (/proc/self/statm); dies on error. */
double bf_rss_kib(void);
/* All of len bytes over side->sock, or die. */
void bf_sock_write(struct bf_side *side, const void *p, size_t len);
void bf_sock_read(struct bf_side *side, void *p, size_t len);

/* FI_EP_MSG (bf_msg.c): open fabric, EQ, domain, CQs and endpoint and
 * connect them through a passive endpoint of rank 0 on 127.0.0.1, whose
 * address travels over side->sock. Dies on an error. */
void bf_msg_open_connect(struct bf_side *side);
void bf_msg_close(struct bf_side *side);
/* Print the error and exit (for bf_msg.c). */
void bf_die_msg(const struct bf_side *side, const char *what, long ret);

/* Iterations per sample for a message of len bytes: iters at 1 byte,
 * fewer for large messages so each sample moves a bounded volume. */
unsigned bf_iters_for(const struct bf_opts *opts, size_t len);

#endif /* PROPEL_BF_COMMON_H */
