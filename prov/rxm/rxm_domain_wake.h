/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What wakes the threads that drive an rxm domain's endpoints: one wait
 * set per domain on the core fabric (fi_wait_open), which every core CQ
 * (or every connection EQ) of the domain's endpoints joins, and whose
 * one descriptor the progress contexts sleep on.
 *
 * Why one per domain and not one descriptor per endpoint: a core CQ with
 * its own FI_WAIT_FD is an epoll set that holds the core domain's
 * progress descriptor (the engine's manual-progress rule, pl_waitable.c),
 * and the kernel bounds how many epoll sets may hold one descriptor at
 * each depth of nesting (a socket under the core domain's set, under N
 * endpoint CQs, under our context, under an application CQ: at most 50
 * paths at the fourth level). Past about 40 endpoints per domain, every
 * new connection's socket was refused (fi_accept: -FI_EINVAL). A wait
 * set holds each progress context once, however many members join it.
 *
 * Each set has a source in the domain's context that does no work of
 * its own (the endpoints' sources, with no descriptor, are polled in
 * every pass) and arms by fi_trywait on the whole set, which drains its
 * descriptor and says -FI_EAGAIN while any member has something to read.
 * The connection set has a second such source in the fabric's
 * connection thread (rxm_fabric.cm_ctx). These arms are the only ones
 * of the core's objects: an endpoint's own arm checks only what it
 * queued itself, since every arm_all of a context that holds endpoints
 * runs the set's source too.
 *
 * Open and close run alone (with the domain's); the sources are the
 * progress engine's to call (pl_progress.h).
 */
#ifndef PROPEL_RXM_DOMAIN_WAKE_H
#define PROPEL_RXM_DOMAIN_WAKE_H

#include <stdbool.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

#include "pl_progress.h"

struct rxm_domain_wake {
	struct fid_fabric *core_fabric;
	struct fid_wait *set;
	struct pl_progress_source src;	/* in the domain's context */
	struct pl_progress_source bg_src; /* in the connection thread's */
	struct pl_progress_ctx *ctx, *bg_ctx;	/* where they were added */
};

/* Open the set on core_fabric and add its source to ctx and, when bg_ctx
 * is not NULL, to bg_ctx. 0 or -FI_E*; on failure nothing is left. */
int rxm_domain_wake_open(struct rxm_domain_wake *w,
			 struct fid_fabric *core_fabric,
			 struct pl_progress_ctx *ctx,
			 struct pl_progress_ctx *bg_ctx, const char *name);
/* Remove the sources and close the set (its members closed first). */
void rxm_domain_wake_close(struct rxm_domain_wake *w);

#endif /* PROPEL_RXM_DOMAIN_WAKE_H */
