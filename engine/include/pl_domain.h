/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The generic domain object a provider embeds (docs/provider-contract.md,
 * "Domain"): one
 * progress context, the threading model chosen once at creation, the
 * negotiated mr_mode, the bound EQ and a count of open child objects.
 *
 * A provider puts struct pl_domain first-class in its own domain struct
 * and points domain_fid at its ops; every engine object opened on the
 * domain (CQ, counter, endpoint, MR, AV) calls pl_domain_child_get() and
 * pl_domain_child_put() so that fi_close(domain) refuses with -FI_EBUSY
 * while any remains open.
 *
 * A peer domain (fi_domain2 with FI_PEER, pl_domain_init2) whose owner
 * is a pl_domain shares the owner's progress context instead of opening
 * its own (DESIGN.md section 3: one context drives the whole stack) and
 * counts as the owner's child until it closes. docs/peer.md.
 *
 * Synchronization table
 *   field          writer                    readers          ordering
 *   ctx, owner,
 *   threading,
 *   api_version,
 *   mr_mode,
 *   mr_iov_limit   pl_domain_init only       any thread       init happens
 *                                                              before publish
 *   children       child open/close (any)    pl_domain_close  acq_rel RMW;
 *                                                              acquire load
 *   eq             pl_domain_bind (once)     close            CAS acq_rel
 */
#ifndef PROPEL_PL_DOMAIN_H
#define PROPEL_PL_DOMAIN_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "pl_atomic.h"

struct pl_progress_ctx;

/* magic: a second check after the live-domain registry lookup. */
#define PL_DOMAIN_MAGIC 0x706c646f6d61696eULL

struct pl_domain {
	struct fid_domain domain_fid;	/* provider fills ops; engine reads */
	uint64_t magic;			/* init only */
	/* init only; closed in fini unless it is owner's */
	struct pl_progress_ctx *ctx;
	/* init only: the domain whose ctx this one shares (FI_PEER), held
	 * as its child until fini; NULL when ctx is our own */
	struct pl_domain *owner;
	enum fi_threading threading;	/* init only; owner's when shared */
	enum fi_progress data_progress;	/* init only; owner's when shared */
	/* init only (set by the provider before its first CQ opens): a
	 * thread of the provider's own writes completions even under
	 * manual progress (rxm's connection thread runs endpoints' passes,
	 * rxm_ep.c), so no CQ of the domain has writers that are all
	 * serialized with its reader (pl_cq.c) */
	bool own_writer_thread;
	uint32_t api_version;		/* init only */
	int mr_mode;			/* init only: negotiated FI_MR_* bits */
	size_t mr_iov_limit;		/* init only: domain_attr's, 0 -> 1 */
	struct fid_fabric *fabric;	/* init only */
	pl_atomic_int children;		/* any thread, see table */
	pl_atomic_ptr eq;		/* bound struct fid_eq *, see table */
	struct pl_domain *live_next;	/* under the registry lock only */
};

/* ---- provider contract (docs/provider-contract.md): keep these
 * signatures ---- */

/* The domain's progress context; NULL for a domain that is not a
 * pl_domain or that has none. */
struct pl_progress_ctx *pl_domain_progress(struct fid_domain *d);
/* The threading model chosen at creation; FI_THREAD_SAFE for NULL or a
 * domain that is not a pl_domain (the conservative choice). */
enum fi_threading pl_domain_threading(const struct fid_domain *d);
/* FI_VERSION the application passed to fi_getinfo/fi_fabric; the
 * current FI_VERSION(1,17) for NULL or a foreign domain. */
uint32_t pl_domain_api_version(const struct fid_domain *d);

/* ---- provider side ---- */

/*
 * Initialise dom from info->domain_attr: opens the progress context
 * (FI_PROGRESS_AUTO starts its thread), records threading and negotiates
 * mr_mode (pl_domain_mr_mode). dom->domain_fid.fid.ops / .ops / .mr are
 * left for the provider. Returns 0, -FI_EINVAL (NULL argument, bad
 * attribute), -FI_ENODATA (mr_mode the provider cannot satisfy), or
 * the error of pl_progress_ctx_open.
 */
int pl_domain_init(struct pl_domain *dom, struct fid_fabric *fabric,
		   const struct fi_info *info, uint32_t api_version,
		   int prov_mr_mode, void *context);

/*
 * fi_domain2 (fi_domain(3), fi_peer(3) "PEER DOMAIN"): pl_domain_init,
 * with flags.
 *   0: exactly pl_domain_init.
 *   FI_PEER: context is a struct fi_peer_domain_context naming the
 *     owner's domain. An owner that is a pl_domain (any propel provider)
 *     lends its progress context: dom's sources are driven by whatever
 *     drives the owner's (its reads under manual progress, its one
 *     thread under auto), and dom takes the owner's threading and
 *     data_progress; info may leave them UNSPEC or ask for exactly
 *     those, anything else is -FI_EINVAL. The owner counts dom as a
 *     child (its fi_close is -FI_EBUSY) until pl_domain_fini(dom). A
 *     foreign owner is not touched after the call: dom opens its own
 *     context as pl_domain_init does (the owner then drives it, e.g.
 *     with fi_cq_read(peer_cq, NULL, 0)).
 * Returns what pl_domain_init does, -FI_EINVAL for an FI_PEER context
 * that is NULL, too small or names no domain, -FI_EBADFLAGS for any
 * other flag. The owner must not be closed during the call.
 */
int pl_domain_init2(struct pl_domain *dom, struct fid_fabric *fabric,
		    const struct fi_info *info, uint32_t api_version,
		    int prov_mr_mode, uint64_t flags, void *context);

/* -FI_EBUSY while children remain (nothing released then); otherwise
 * unrefs a bound EQ, closes the progress context (or, for a peer
 * domain, lets go of the owner's) and returns 0. */
int pl_domain_fini(struct pl_domain *dom);

/*
 * Is every call that may write a completion of dom one the application
 * serializes with all its other calls on the domain? FI_THREAD_DOMAIN,
 * manual progress and no thread of the provider's own
 * (own_writer_thread), here and in every owner whose context dom
 * shares (the owner's thread would run dom's sources). The engine's
 * CQs then take the serial queue (pl_cq.c). Read at object creation.
 */
bool pl_domain_serialized(const struct pl_domain *dom);

/*
 * mr_mode negotiation per fi_mr(3). app: what the application supports
 * (attr mr_mode); prov: the bits the provider requires. The old modes:
 * FI_MR_BASIC means VIRT_ADDR|ALLOCATED|PROV_KEY, FI_MR_SCALABLE means
 * none of them; FI_MR_UNSPEC (0) before API 1.5 is BASIC-or-SCALABLE, so
 * it accepts what the provider needs. Returns the negotiated bits
 * (>= 0) or -FI_ENODATA when the provider needs a bit the app lacks.
 */
int pl_domain_mr_mode(int app, int prov, uint32_t api_version);

/* The pl_domain behind d, or NULL when d is NULL, not FI_CLASS_DOMAIN or
 * not a live pl_domain (looked up in a registry of live domains, so a
 * provider's plain struct fid_domain is never read past its end). */
struct pl_domain *pl_domain_of(const struct fid_domain *d);

/* relaxed would do for counting alone; acq_rel so that close's acquire
 * load sees every child's teardown before it frees shared state. */
static inline void pl_domain_child_get(struct pl_domain *dom)
{
	pl_fetch_add_acq_rel(&dom->children, 1);
}

/* Does dom still have children (fi_close would be -FI_EBUSY)? For a
 * provider that must release what it added to the domain's progress
 * context before pl_domain_fini closes it. */
static inline bool pl_domain_busy(struct pl_domain *dom)
{
	/* acquire: pairs with the acq_rel decrement in pl_domain_child_put,
	 * as pl_domain_fini's load (a child's teardown is seen) */
	return pl_load_acquire(&dom->children) != 0;
}

static inline void pl_domain_child_put(struct pl_domain *dom)
{
	/* acq_rel: the child's teardown is released to fini's acquire load
	 * (see pl_domain_child_get) */
	pl_fetch_sub_acq_rel(&dom->children, 1);
}

/* fi_domain_bind: only an EQ (flags 0 or FI_REG_MR). -FI_EINVAL for a
 * wrong fid class or flag, -FI_EALREADY when one is already bound. */
int pl_domain_bind(struct fid *domain_fid, struct fid *bfid, uint64_t flags);

/* fi_close for a provider whose domain struct starts with struct pl_domain,
 * was malloc()ed and holds nothing else to release: fini + free. */
int pl_domain_close(struct fid *domain_fid);

#endif
