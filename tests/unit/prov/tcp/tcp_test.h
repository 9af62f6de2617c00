/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the tcp provider's end-to-end tests: a server (the parent
 * process) and a client (a fork()ed child) talk over 127.0.0.1 through
 * the public libfabric API only. They share one anonymous MAP_SHARED
 * page (struct tt_board) for the listening port, RMA keys and step
 * counters; the libfabric objects of each side are its own.
 *
 * Failure: TT_CHECK prints the condition and exits 1; in the parent it
 * first kills the child. Every wait runs under a watchdog that catches
 * hangs, not slow runs: every TT_WATCHDOG_S seconds an alarm looks at the
 * board's progress count (bumped by both processes whenever a completion
 * or EQ event is read or a step announced, tt_progress); while it has
 * moved the alarm re-arms, and only a whole period without progress
 * names the phase that hung and exits 1. A hang is a failure, never a
 * stuck test, and a loaded machine is never one.
 */
#ifndef PROPEL_TESTS_TCP_TEST_H
#define PROPEL_TESTS_TCP_TEST_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#define TT_WATCHDOG_S 60

extern pid_t tt_child;		/* parent: the child's pid, else 0 */
extern const char *tt_phase;	/* what this process is doing now */
/* parent: set when the child is killed on purpose */
extern volatile sig_atomic_t tt_child_may_die;

void tt_fail(const char *file, int line, const char *what, long long val);

#define TT_CHECK(cond)                                                 \
	do {                                                           \
		if (!(cond))                                           \
			tt_fail(__FILE__, __LINE__, #cond, 0);         \
	} while (0)

/* Check that expr evaluates to want, printing the value when not. */
#define TT_EQ(expr, want)                                              \
	do {                                                           \
		long long tt_v_ = (long long)(expr);                   \
		if (tt_v_ != (long long)(want))                        \
			tt_fail(__FILE__, __LINE__, #expr " == " #want, \
				tt_v_);                                \
	} while (0)

/* Arm the watchdog for periods of secs seconds (0 disarms) and name the
 * phase. */
void tt_watch(const char *phase, unsigned secs);
/* Count progress for the watchdog (any process of the test). */
void tt_progress(void);

/* What the two processes share. */
struct tt_board {
	_Atomic int port;		/* server's listening port, 0: not yet */
	_Atomic int step[2];		/* [TT_SERVER], [TT_CLIENT] */
	_Atomic uint64_t val[32];	/* scenario-defined values */
	uint8_t bytes[512];		/* scenario-defined (addresses, ...) */
	_Atomic uint64_t beat;		/* progress count (tt_progress) */
};

#define TT_SERVER 0
#define TT_CLIENT 1

extern struct tt_board *tt_board;

/* Map the board; call before tt_spawn. */
void tt_board_init(void);
/* Fork a child that runs fn(arg) under the watchdog and exits 0. */
pid_t tt_spawn(void (*fn)(void *), void *arg);
/* Wait for the child; its exit status (128 + signal when killed). */
int tt_join(void);
/* Announce that side reached step n. */
void tt_step(int side, int n);
/* Wait until side reached step n; poke (may be NULL) runs between
 * looks, e.g. to drive a manual-progress domain. */
void tt_wait_step(int side, int n, void (*poke)(void *), void *arg);

/* Is libfabric.so.1 mapped in this process the build's (propel's)?
 * Exits 1 with a message when it is another one. */
void tt_check_propel(void);

/* Deterministic bytes of stream `seq` at offset i. */
static inline uint8_t tt_byte(uint64_t seq, uint64_t i)
{
	return (uint8_t)((seq * 151 + i * 13 + (i >> 9)) ^ (seq >> 5));
}

void tt_fill(void *buf, size_t len, uint64_t seq);
/* First offset whose byte differs from stream seq, or -1. */
long long tt_verify(const void *buf, size_t len, uint64_t seq);

/* What a scenario asks of its side's objects. */
struct tt_opts {
	enum fi_progress data_progress;	/* 0: the provider's default */
	enum fi_wait_obj rx_wait;	/* rx CQ's wait object */
	enum fi_wait_obj tx_wait;	/* tx CQ's wait object */
	bool cntrs;			/* bind FI_SEND / FI_RECV counters */
	bool remote_cntr;		/* bind an FI_REMOTE_WRITE counter */
	size_t min_multi_recv;		/* 0: leave the default */
	bool no_enable;			/* leave it to fi_accept/fi_connect */
};

/* One side: fabric, domain, EQ, CQs, counters, endpoints. */
struct tt_side {
	struct tt_opts opts;
	struct fi_info *info;		/* fi_getinfo answer (first entry) */
	struct fi_info *conn_info;	/* server: the last FI_CONNREQ's */
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;
	struct fid_pep *pep;
	struct fid_ep *ep;
	struct fid_cq *txcq, *rxcq;
	struct fid_cntr *txcntr, *rxcntr;
	struct fid_cntr *rwcntr;	/* opts.remote_cntr */
	struct fid_ep *srx;		/* a shared receive context the
					 * scenario opened: every endpoint
					 * set up after is bound to it */
	int port;			/* server: listening port */
};

/* Hints for the tcp provider: FI_EP_MSG, MSG | TAGGED | RMA, and the
 * data progress asked for. */
struct fi_info *tt_hints(const struct tt_opts *o);

/* Server: fi_getinfo(FI_SOURCE, 127.0.0.1, 0), fabric, EQ, passive
 * endpoint listening; s->port is its port, also published on the board. */
void tt_server_listen(struct tt_side *s, const struct tt_opts *o);
/* Server: wait for FI_CONNREQ; its CM data is copied to data (up to
 * *len, *len set to the received length). s->conn_info keeps the info. */
void tt_server_connreq(struct tt_side *s, void *data, size_t *len);
/* Server: open the domain (first time), CQs, and an endpoint from
 * s->conn_info, then fi_accept with data and wait FI_CONNECTED. */
void tt_server_accept(struct tt_side *s, const void *data, size_t len);

/* Open the side's CQs (and counters, as its opts ask) on t->domain;
 * tt_server_accept does it unless the scenario opened the domain. */
void tt_open_cqs(struct tt_side *t);

/* Client: fabric, domain, EQ, CQs from fi_getinfo(127.0.0.1, port). */
void tt_client_open(struct tt_side *c, const struct tt_opts *o, int port);
/* Client: open an endpoint bound to the EQ and CQs, enabled. */
void tt_client_ep(struct tt_side *c);
/* Client: fi_connect with data, wait FI_CONNECTED; its data is copied
 * out as for tt_server_connreq (data may be NULL). */
void tt_client_connect(struct tt_side *c, const void *data, size_t len,
		       void *rdata, size_t *rlen);

/* Wait for event `want` on the EQ (an error event fails); returns the
 * bytes fi_eq_read returned; buf must hold a struct fi_eq_cm_entry plus
 * CM data. poke (may be NULL) runs between reads. */
ssize_t tt_eq_wait(struct tt_side *t, uint32_t want, void *buf, size_t size,
		   void (*poke)(void *), void *arg);
/* Wait for an error event; err->err_data points at the provider's copy
 * until the next read. */
void tt_eq_wait_err(struct tt_side *t, struct fi_eq_err_entry *err);

/* Read one completion from cq: 1 success (e filled), -1 error (err
 * filled), 0 none. */
int tt_cq_poll(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
	       struct fi_cq_err_entry *err);
/* Wait for one successful completion; an error entry fails. */
void tt_cq_wait(struct fid_cq *cq, struct fi_cq_tagged_entry *e);
/* Wait for one completion, success (1) or error (-1). */
int tt_cq_wait_any(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		   struct fi_cq_err_entry *err);
/* Poke helper: fi_cq_read on a struct tt_side's CQs, which must be
 * empty (drives a manual-progress domain). */
void tt_poke_empty(void *side);

/* Post with retries while the provider answers -FI_EAGAIN (driving its
 * tx CQ meanwhile: completions read are counted in *done). */
#define TT_POST(t, done, call)                                         \
	do {                                                           \
		ssize_t tt_r_;                                         \
		while ((tt_r_ = (call)) == -FI_EAGAIN)                 \
			*(done) += tt_drain((t)->txcq);                \
		TT_EQ(tt_r_, 0);                                       \
	} while (0)
/* Read every success completion queued on cq; an error fails. Returns
 * the number read. */
int tt_drain(struct fid_cq *cq);

/* Close whatever of the side is open, endpoints first. */
void tt_close_ep(struct tt_side *t);
void tt_close(struct tt_side *t);

/* Open fds and resident bytes of this process. */
int tt_count_fds(void);
long long tt_rss(void);

static inline void tt_sleep_ms(unsigned ms)
{
	usleep(ms * 1000u);
}

/* The scenarios (test_tcp_ep.c runs the one argv[1] names); each
 * returns the process's exit status. */
int tt_scn_cm(void);		/* test_tcp_ep.c */
int tt_scn_storm(void);
int tt_scn_sizes(void);		/* tcp_test_xfer.c */
int tt_scn_rma(void);		/* tcp_test_rma.c */
int tt_scn_rma_iov(void);	/* tcp_test_rma_iov.c */
int tt_scn_auto(void);
int tt_scn_kill(void);		/* tcp_test_fail.c */
int tt_scn_trywait(void);	/* tcp_test_wait.c */
int tt_scn_trywait_big(void);
int tt_scn_trywait_rma(void);
int tt_scn_burst(void);
int tt_scn_held(void);		/* tcp_test_held.c */
int tt_scn_spin_wait(void);	/* tcp_test_spin.c */
int tt_scn_srx_cancel(void);	/* tcp_test_srx.c */

#endif /* PROPEL_TESTS_TCP_TEST_H */
