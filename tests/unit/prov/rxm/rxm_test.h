/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the rxm endpoint tests share (test_rxm_ep.c, test_rxm_rma.c): two
 * or more rxm endpoints over tcp on 127.0.0.1 in this process, each with
 * its own fabric, domain, CQ and AV, opened through the public API only;
 * a watchdog that fails a scenario after WATCH_S seconds without a
 * completion (each completion read is a beat); and the proof that the
 * libfabric.so.1 loaded is the build's (PROPEL_LIBDIR), since the
 * reference is installed too.
 */
#ifndef PROPEL_RXM_TEST_H
#define PROPEL_RXM_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include "rxm_check.h"

#define WATCH_S 30

/* what the watchdog reports a hang in */
extern const char *phase;
/* what ep_open asks for: data progress (0: any) and the CQ's wait
 * object (0: none) */
extern enum fi_progress rxm_test_progress;
extern enum fi_wait_obj rxm_test_cq_wait;
/* the source address ep_open binds to (FI_SOURCE): 127.0.0.1 unless a
 * test says otherwise */
extern const char *rxm_test_node;

struct ep {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_ep *ep;
	char name[64];
	size_t namelen;
	/* closed by ep_close after the endpoint, before the domain */
	struct fid *extra[4];
	int nextra;
};

/* Open e with caps (beside FI_MSG | FI_TAGGED | FI_SOURCE |
 * FI_DIRECTED_RECV) and the registration mode bits mr_mode in the hints
 * and in the fi_info the domain opens with; enabled, named. */
void ep_open_caps(struct ep *e, uint64_t caps, int mr_mode);
/* The same, with before_enable(e, arg) called once the domain, CQ and
 * AV exist (binding counters, which only a disabled endpoint takes). */
void ep_open_with(struct ep *e, uint64_t caps, int mr_mode,
		  void (*before_enable)(struct ep *e, void *arg), void *arg);
static inline void ep_open(struct ep *e)
{
	ep_open_caps(e, 0, 0);
}
void ep_close(struct ep *e);
fi_addr_t insert(struct ep *at, const struct ep *who);
void fill(uint8_t *p, size_t n, unsigned seed);
/* Drive all n endpoints until cq yields one entry: 1 (e, and *src when
 * src is not NULL) or -1 (an error entry, in err). */
int wait_one(struct ep **all, int n, struct fid_cq *cq,
	     struct fi_cq_tagged_entry *e, struct fi_cq_err_entry *err,
	     fi_addr_t *src);
/* A send from a to dest with its completion, while the others drive. */
void send_one(struct ep **all, int n, struct ep *a, const void *buf,
	      size_t len, fi_addr_t dest, bool tagged, uint64_t tag);
/* Progress seen (for the watchdog), outside wait_one. */
void rxm_test_beat(void);
/* Drive every endpoint once. */
void drive(struct ep **all, int n);
/* ESTABLISHED TCP connections (state 01 in /proc/net/tcp and tcp6) with
 * e's port at either end: 0 proves that nothing reached e over tcp. */
int rxm_test_tcp_conns(const struct ep *e);
/* The checks every test main makes first: the library, the watchdog. */
void rxm_test_start(void);

#endif /* PROPEL_RXM_TEST_H */
