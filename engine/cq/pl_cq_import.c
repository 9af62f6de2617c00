/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The peer side of fi_peer(3)'s peer CQ: what fi_cq_open returns when
 * the owner passes FI_PEER and a struct fi_peer_cq_context. It holds no
 * entries: every completion the provider writes (pl_cq_write /
 * pl_cq_write_err, which fall through to here for a CQ that is not a
 * ring) is handed to the owner's write / writeerr callbacks at once.
 * What the owner receives, and the lifetime rules: docs/peer.md.
 *
 * Why a separate object rather than a flag on struct pl_cq: an ordinary
 * CQ's pl_cq_write already branches (unlikely) on a fid that is not a
 * ring CQ; the peer path hangs off that branch, so the ring path costs
 * exactly what it did.
 *
 * Synchronization table (who touches each field):
 *   field                         writer             readers      ordering
 *   cq_fid, owner, owner_cq, dom,
 *   ctx, format                   open only          any thread   open happens before the
 *                                                                 fid is handed out
 *   refs                          ref/unref (R1)     close (R2)   acq_rel RMW / acquire load
 * Writes may run on any thread at the same time (the domain's progress
 * thread, application threads completing inline): the owner does its
 * own locking (fi_peer(3): "The owner is responsible for locking").
 * fi_cq_read(cq, NULL, 0) drives the domain's progress context, whose
 * own rules (pl_progress.h) make concurrent calls safe. Close runs
 * alone (no write can follow: the references of bound endpoints keep
 * it from happening while one could write).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cq.h"
#include "pl_cq_int.h"
#include "pl_domain.h"
#include "pl_fid_nosys.h"
#include "pl_progress.h"

struct pl_cq_import {
	struct fid_cq cq_fid;		/* first: the fid is the object */
	/* The owner's object, valid until our close (fi_peer(3)). */
	struct fid_peer_cq *owner;
	/* The engine CQ behind owner when it is one (pl_cq_peer), kept
	 * referenced so it cannot close first; NULL for a foreign owner. */
	struct fid_cq *owner_cq;
	struct pl_domain *dom;
	struct pl_progress_ctx *ctx;	/* the domain's, for read(NULL, 0) */
	/* What the owner asked for; FI_CQ_FORMAT_UNSPEC passes every
	 * field the provider has. */
	enum fi_cq_format format;
	pl_atomic_int refs;
};

static struct fi_ops pl_cq_import_fid_ops;

static struct pl_cq_import *pl_cq_import_checked(struct fid_cq *cq)
{
	if (!cq || cq->fid.fclass != FI_CLASS_CQ ||
	    cq->fid.ops != &pl_cq_import_fid_ops)
		return NULL;
	return (struct pl_cq_import *)cq;
}

/* ---- the provider side: completions go straight to the owner ---- */

int pl_cq_import_write(struct fid_cq *fcq, void *op_context, uint64_t flags,
		       size_t len, void *buf, uint64_t data, uint64_t tag,
		       fi_addr_t src_addr)
{
	struct pl_cq_import *cq = pl_cq_import_checked(fcq);
	ssize_t ret;

	if (!cq)
		return -FI_EINVAL;
	/* fi_peer(3): what the owner's format does not report is passed as
	 * 0 / NULL. Each format adds fields to the one before it. */
	switch (cq->format) {
	case FI_CQ_FORMAT_CONTEXT:
		flags = 0;
		len = 0;
		/* fall through */
	case FI_CQ_FORMAT_MSG:
		buf = NULL;
		data = 0;
		/* fall through */
	case FI_CQ_FORMAT_DATA:
		tag = 0;
		break;
	default:
		break;
	}
	ret = cq->owner->owner_ops->write(cq->owner, op_context, flags, len,
					  buf, data, tag, src_addr);
	return ret < 0 ? (int)ret : 0;
}

int pl_cq_import_write_err(struct fid_cq *fcq,
			   const struct fi_cq_err_entry *err,
			   fi_addr_t src_addr)
{
	struct pl_cq_import *cq = pl_cq_import_checked(fcq);
	struct fi_cq_err_entry e;
	ssize_t ret;

	if (!cq || !err || !err->err || (err->err_data_size && !err->err_data))
		return -FI_EINVAL;
	/* fi_cq_err_entry has no source address, so src_addr stays here
	 * (a propel CQ never reports one for an error either; FI_SOURCE_ERR
	 * carries the sender's name in err_data). err_data is the
	 * provider's and valid only during the call: the owner copies what
	 * it keeps, as pl_cq_write_err does. */
	(void)src_addr;
	e = *err;
	e.err = err->err < 0 ? -err->err : err->err;
	ret = cq->owner->owner_ops->writeerr(cq->owner, &e);
	return ret < 0 ? (int)ret : 0;
}

bool pl_cq_import_ref(struct fid_cq *fcq, int delta)
{
	struct pl_cq_import *cq = pl_cq_import_checked(fcq);

	if (!cq)
		return false;
	/* R1: acq_rel, pairs with R2 in close (a binding's last use of
	 * the CQ happens before the close that sees it gone) */
	pl_fetch_add_acq_rel(&cq->refs, delta);
	return true;
}

/* ---- the application side: fi_peer(3) leaves only read(NULL, 0) ---- */

/* Count 0 (buf NULL or not) drives the domain's progress, as on any
 * propel CQ, and returns 0: no entry was read. Anything that would read
 * entries is -FI_ENOSYS: they went to the owner. */
static ssize_t pl_cq_import_read(struct fid_cq *fcq, void *buf, size_t count)
{
	struct pl_cq_import *cq = pl_cq_import_checked(fcq);

	(void)buf;
	if (!cq)
		return -FI_EINVAL;
	if (count)
		return -FI_ENOSYS;
	if (cq->ctx)
		(void)pl_progress_ctx_poll(cq->ctx);
	return 0;
}

static ssize_t pl_cq_import_readfrom(struct fid_cq *cq, void *buf,
				     size_t count, fi_addr_t *src_addr)
{
	(void)cq; (void)buf; (void)count; (void)src_addr;
	return -FI_ENOSYS;
}

static ssize_t pl_cq_import_readerr(struct fid_cq *cq,
				    struct fi_cq_err_entry *buf,
				    uint64_t flags)
{
	(void)cq; (void)buf; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t pl_cq_import_sread(struct fid_cq *cq, void *buf, size_t count,
				  const void *cond, int timeout)
{
	(void)cq; (void)buf; (void)count; (void)cond; (void)timeout;
	return -FI_ENOSYS;
}

static ssize_t pl_cq_import_sreadfrom(struct fid_cq *cq, void *buf,
				      size_t count, fi_addr_t *src_addr,
				      const void *cond, int timeout)
{
	(void)cq; (void)buf; (void)count; (void)src_addr; (void)cond;
	(void)timeout;
	return -FI_ENOSYS;
}

static int pl_cq_import_signal(struct fid_cq *cq)
{
	(void)cq;
	return -FI_ENOSYS;	/* no wait object: FI_WAIT_NONE only */
}

static struct fi_ops_cq pl_cq_import_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = pl_cq_import_read,
	.readfrom = pl_cq_import_readfrom,
	.readerr = pl_cq_import_readerr,
	.sread = pl_cq_import_sread,
	.sreadfrom = pl_cq_import_sreadfrom,
	.signal = pl_cq_import_signal,
	.strerror = pl_cq_strerror,	/* reads nothing of the CQ */
};

/* ---- fid ops ---- */

static int pl_cq_import_close(struct fid *fid)
{
	struct pl_cq_import *cq = pl_cq_import_checked((struct fid_cq *)fid);
	struct pl_domain *dom;

	if (!cq)
		return -FI_EINVAL;
	/* R2: acquire, pairs with R1 */
	if (pl_load_acquire(&cq->refs) > 0)
		return -FI_EBUSY;
	if (cq->owner_cq)
		pl_cq_unref(cq->owner_cq);
	dom = cq->dom;
	free(cq);
	pl_domain_child_put(dom);
	return 0;
}

/* FI_GETWAIT, FI_GETWAITOBJ and the rest: no wait object, nothing to
 * control. */
static int pl_cq_import_control(struct fid *fid, int command, void *arg)
{
	(void)fid; (void)command; (void)arg;
	return -FI_ENOSYS;
}

static struct fi_ops pl_cq_import_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_cq_import_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_cq_import_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/* ---- open ---- */

/* The owner's callbacks, checked before anything is taken: a context
 * that could not be called through is refused, never crashed on. */
static struct fid_peer_cq *pl_cq_import_owner(const void *context)
{
	const struct fi_peer_cq_context *pc = context;
	struct fid_peer_cq *owner;

	if (!pc || pc->size < sizeof(*pc))
		return NULL;
	owner = pc->cq;
	if (!owner || !owner->owner_ops ||
	    owner->owner_ops->size < sizeof(struct fi_ops_cq_owner) ||
	    !owner->owner_ops->write || !owner->owner_ops->writeerr)
		return NULL;
	return owner;
}

int pl_cq_import_open(struct pl_domain *dom, const struct fi_cq_attr *attr,
		      struct fid_cq **cq_p, void *context)
{
	struct fid_peer_cq *owner = pl_cq_import_owner(context);
	struct pl_cq_import *cq;
	struct pl_cq *oc;

	if (!owner)
		return -FI_EINVAL;
	/* nothing is ever queued here, so nothing to wait on */
	if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC)
		return -FI_EINVAL;
	/* An engine CQ that takes the serial queue (pl_domain_serialized)
	 * relies on every writer being serialized with its reader by the
	 * application; a peer whose domain has a thread of its own would
	 * write it from there, so it is refused. */
	oc = pl_cq_of_owner(owner);
	if (oc && oc->serial && !pl_domain_serialized(dom))
		return -FI_EINVAL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->owner = owner;
	cq->owner_cq = oc ? &oc->cq_fid : NULL;
	cq->dom = dom;
	cq->ctx = dom->ctx;
	cq->format = attr->format;
	atomic_init(&cq->refs, 0);
	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	/* the caller's pointer as given: for FI_PEER it is the context
	 * block, which need not outlive this call */
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = &pl_cq_import_fid_ops;
	cq->cq_fid.ops = &pl_cq_import_ops;
	if (cq->owner_cq)
		pl_cq_ref(cq->owner_cq);
	pl_domain_child_get(dom);
	*cq_p = &cq->cq_fid;
	return 0;
}
