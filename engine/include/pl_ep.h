/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Endpoint plumbing a provider embeds (docs/provider-contract.md,
 * "Endpoints"): the pure
 * decision helpers (bind flag rules, selective completion) and the
 * generic endpoint object, struct pl_ep, which keeps what fi_ep_bind
 * attached (with a reference on each bound CQ, counter, AV and EQ, so
 * that their fi_close answers -FI_EBUSY), checks fi_enable's
 * requirements and answers the provider-independent fi_setopt /
 * fi_getopt options.
 *
 * A provider puts struct pl_ep FIRST in its endpoint struct, fills
 * ep_fid.fid.ops / ep_fid.ops / msg / tagged / ..., and calls:
 *   pl_ep_init      at fi_endpoint (counts as a domain child);
 *   pl_ep_bind      from its fi_ops.bind;
 *   pl_ep_enable    from fi_control(FI_ENABLE), before its own set-up;
 *   pl_ep_setopt / pl_ep_getopt from its fi_ops_ep slots (it may act on
 *                   an option after pl_ep_setopt accepted it);
 *   pl_ep_fini      at close, after its data path has stopped.
 *
 * Synchronization table (one pl_ep):
 *
 *   field                    writer                       readers
 *   type, caps, dom          pl_ep_init                   any thread
 *   tx_cq, rx_cq, *_flags,
 *   cntr[], av, eq           pl_ep_bind (before enable)   data path, after
 *                                                          enable
 *   enabled                  pl_ep_enable                 bind, setopt
 *   min_multi_recv           pl_ep_setopt                 provider
 *
 *   bind, enable, setopt, getopt and fini are control-path calls: the
 *   application does not run two of them at once on one endpoint, nor one
 *   of them concurrently with the data path (fi_endpoint(3): binding and
 *   enabling precede data transfers). Fields written before enable are
 *   read-only afterwards, so the data path reads them without ordering
 *   beyond the happens-before of the enabling call. The stateless helpers
 *   (pl_ep_op_completes, pl_ep_bind_check) are callable from any thread.
 */
#ifndef PROPEL_PL_EP_H
#define PROPEL_PL_EP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

struct pl_domain;

/*
 * Does an operation generate a completion entry, per fi_endpoint(3)?
 * bind_flags: flags the CQ was bound with for this direction
 * (FI_TRANSMIT or FI_RECV, optionally FI_SELECTIVE_COMPLETION).
 * op_flags: the operation's flags (FI_COMPLETION, FI_INJECT ...).
 * Without FI_SELECTIVE_COMPLETION every operation completes; with it,
 * only those carrying FI_COMPLETION. Errors are always reported, so the
 * caller passes is_error to get true regardless.
 */
static inline bool pl_ep_op_completes(uint64_t bind_flags, uint64_t op_flags,
				      bool is_error)
{
	if (is_error)
		return true;
	if (!(bind_flags & FI_SELECTIVE_COMPLETION))
		return true;
	return (op_flags & FI_COMPLETION) != 0;
}

/* Validate fi_ep_bind flags for a fid class: -FI_EINVAL for a flag that
 * class does not take (or a class an endpoint cannot bind), else 0. */
int pl_ep_bind_check(size_t fclass, uint64_t flags);

/* Counters an endpoint can bind, one per fi_ep_bind counter flag. */
enum pl_ep_cntr_kind {
	PL_EP_CNTR_SEND = 0,	/* FI_SEND */
	PL_EP_CNTR_RECV,	/* FI_RECV */
	PL_EP_CNTR_READ,	/* FI_READ */
	PL_EP_CNTR_WRITE,	/* FI_WRITE */
	PL_EP_CNTR_REMOTE_READ,	/* FI_REMOTE_READ */
	PL_EP_CNTR_REMOTE_WRITE, /* FI_REMOTE_WRITE */
	PL_EP_CNTR_KINDS
};

/* FI_OPT_MIN_MULTI_RECV until the application sets it (fi_endpoint(3)
 * leaves the default to the provider). */
#define PL_EP_MIN_MULTI_RECV_DEFAULT 64

struct pl_ep {
	struct fid_ep ep_fid;		/* the provider fills the ops */
	struct pl_domain *dom;		/* init only */
	enum fi_ep_type type;		/* init only */
	uint64_t caps;			/* init only: info->caps */
	struct fid_cq *tx_cq, *rx_cq;	/* bind only */
	uint64_t tx_cq_flags, rx_cq_flags; /* FI_SELECTIVE_COMPLETION ... */
	struct fid_cntr *cntr[PL_EP_CNTR_KINDS]; /* bind only */
	struct fid_av *av;		/* bind only */
	struct fid_eq *eq;		/* bind only */
	bool enabled;			/* pl_ep_enable */
	size_t min_multi_recv;		/* FI_OPT_MIN_MULTI_RECV */
};

/*
 * Initialise ep for an endpoint of domain d described by info (type and
 * caps; NULL ep_attr means FI_EP_RDM, caps 0 means every capability the
 * type may have). Sets ep_fid.fid.fclass = FI_CLASS_EP and its context,
 * and counts the endpoint as a child of d. -FI_EINVAL for NULL ep or a
 * domain that is not a pl_domain.
 */
int pl_ep_init(struct pl_ep *ep, struct fid_domain *d,
	       const struct fi_info *info, void *context);

/*
 * fi_ep_bind: bfid is a CQ (FI_TRANSMIT / FI_RECV, optionally
 * FI_SELECTIVE_COMPLETION), a counter (FI_SEND, FI_RECV, FI_READ,
 * FI_WRITE, FI_REMOTE_READ, FI_REMOTE_WRITE), an AV or an EQ (no flags).
 * Takes a reference on what it binds (pl_cq_ref, pl_cntr_ref, pl_av_ref,
 * pl_eq_ref). Errors: -FI_EINVAL (NULL bfid, bad flags, an object of
 * another domain, a class the endpoint cannot bind, a direction already
 * bound), -FI_EOPBADSTATE (after fi_enable).
 */
int pl_ep_bind(struct pl_ep *ep, struct fid *bfid, uint64_t flags);

/*
 * fi_enable's checks (fi_endpoint(3)): a connectionless endpoint
 * (FI_EP_RDM, FI_EP_DGRAM) needs an AV (-FI_ENOAV); each direction its
 * capabilities use needs a CQ or a counter (-FI_ENOCQ): transmit when
 * caps has FI_SEND (or no direction bit) with FI_MSG or FI_TAGGED,
 * receive likewise with FI_RECV. -FI_EOPBADSTATE when already enabled.
 * On success marks the endpoint enabled (binds are refused from now).
 */
int pl_ep_enable(struct pl_ep *ep);

/*
 * fi_setopt / fi_getopt at level FI_OPT_ENDPOINT:
 *   FI_OPT_MIN_MULTI_RECV (size_t): kept in ep->min_multi_recv;
 *   FI_OPT_CM_DATA_SIZE: only connection-oriented endpoints (FI_EP_MSG)
 *     have CM data; -FI_ENOPROTOOPT on others (the provider answers it
 *     for MSG endpoints itself).
 * Other options and levels: -FI_ENOPROTOOPT. -FI_EINVAL for NULL optval,
 * a wrong optlen, or (getopt) a NULL optlen; getopt with *optlen too
 * small: -FI_ETOOSMALL and *optlen set to the size needed.
 */
int pl_ep_setopt(struct pl_ep *ep, int level, int optname, const void *optval,
		 size_t optlen);
int pl_ep_getopt(struct pl_ep *ep, int level, int optname, void *optval,
		 size_t *optlen);

/* Drop every reference taken by pl_ep_bind and the domain child count. */
void pl_ep_fini(struct pl_ep *ep);

/* The counter bound for kind, or NULL. */
static inline struct fid_cntr *pl_ep_cntr(const struct pl_ep *ep,
					  enum pl_ep_cntr_kind kind)
{
	return ep->cntr[kind];
}

#endif
