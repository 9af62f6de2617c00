/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared receive contexts over the RDM endpoint core (rdm_srx.h). */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_log.h"
#include "rdm_ep.h"
#include "rdm_ep_mrecv.h"
#include "rdm_peer_srx.h"
#include "rdm_srx.h"

static struct fi_ops rdm_srx_fid_ops;

static struct rdm_srx *rdm_srx_of(struct fid *fid)
{
	if (!fid || fid->fclass != FI_CLASS_SRX_CTX ||
	    fid->ops != &rdm_srx_fid_ops)
		return NULL;
	return pl_container_of(fid, struct rdm_srx, ep_fid.fid);
}

/* The bound endpoint a post goes through: the oldest enabled one.
 * Under ctl (a closing endpoint has left the list already; ready is
 * set by fi_enable, which the application orders before its posts). */
static struct rdm_ep *rdm_srx_poster(struct rdm_srx *srx)
{
	struct rdm_ep *ep;

	for (ep = srx->eps; ep; ep = ep->srx_next)
		if (ep->ready)
			return ep;
	return NULL;
}

static ssize_t rdm_srx_post(struct fid_ep *e, enum pl_match_kind kind,
			    struct pl_match_recv *r)
{
	struct rdm_srx *srx = (struct rdm_srx *)e;
	struct rdm_ep *ep;
	ssize_t ret;

	pthread_mutex_lock(&srx->ctl);
	ep = rdm_srx_poster(srx);
	/* no endpoint to take messages yet: nothing could ever match */
	ret = ep ? rdm_ep_rx_post(ep, kind, r) : -FI_EOPBADSTATE;
	pthread_mutex_unlock(&srx->ctl);
	return ret;
}

static ssize_t rdm_srx_recvv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     void *context)
{
	struct pl_match_recv r = rdm_ep_recv_of(iov, desc, count, src, 0, 0,
		context, ((struct rdm_srx *)e)->op_flags);

	return rdm_srx_post(e, PL_MATCH_MSG, &r);
}

static ssize_t rdm_srx_recv(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return rdm_srx_recvv(e, &iov, &desc, 1, src, context);
}

static ssize_t rdm_srx_recvmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	struct pl_match_recv r;

	if (!msg)
		return -FI_EINVAL;
	r = rdm_ep_recv_of_msg(msg, flags);
	return rdm_srx_post(e, PL_MATCH_MSG, &r);
}

static ssize_t rdm_srx_trecvv(struct fid_ep *e, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t src,
			      uint64_t tag, uint64_t ignore, void *context)
{
	/* FI_MULTI_RECV is for untagged receives only */
	struct pl_match_recv r = rdm_ep_recv_of(iov, desc, count, src, tag,
		ignore, context,
		((struct rdm_srx *)e)->op_flags & ~FI_MULTI_RECV);

	return rdm_srx_post(e, PL_MATCH_TAGGED, &r);
}

static ssize_t rdm_srx_trecv(struct fid_ep *e, void *buf, size_t len,
			     void *desc, fi_addr_t src, uint64_t tag,
			     uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return rdm_srx_trecvv(e, &iov, &desc, 1, src, tag, ignore, context);
}

static ssize_t rdm_srx_trecvmsg(struct fid_ep *e,
				const struct fi_msg_tagged *msg,
				uint64_t flags)
{
	struct pl_match_recv r;

	if (!msg)
		return -FI_EINVAL;
	r = rdm_ep_recv_of_tmsg(msg, flags);
	return rdm_srx_post(e, PL_MATCH_TAGGED, &r);
}

static ssize_t rdm_srx_cancel(fid_t fid, void *context)
{
	struct rdm_srx *srx = rdm_srx_of(fid);
	struct rdm_ep *ep;
	ssize_t ret;

	if (!srx)
		return -FI_EINVAL;
	pthread_mutex_lock(&srx->ctl);
	ep = rdm_srx_poster(srx);
	/* receives are posted through an enabled endpoint only, so
	 * without one nothing is posted */
	ret = ep ? rdm_ep_rx_cancel_on(ep, context) : -FI_ENOENT;
	pthread_mutex_unlock(&srx->ctl);
	return ret;
}

static ssize_t rdm_srx_rx_size_left(struct fid_ep *e)
{
	struct rdm_srx *srx = rdm_srx_of(&e->fid);
	struct rdm_ep *ep;
	size_t posted;
	ssize_t n;

	if (!srx)
		return -FI_EINVAL;
	pthread_mutex_lock(&srx->ctl);
	ep = rdm_srx_poster(srx);
	if (!ep) {
		n = -FI_EOPBADSTATE;
	} else {
		rdm_ep_lock(ep);
		posted = pl_match_posted_count(&srx->match, PL_MATCH_MSG) +
			 pl_match_posted_count(&srx->match, PL_MATCH_TAGGED);
		rdm_ep_unlock(ep);
		n = posted < srx->size ? (ssize_t)(srx->size - posted) : 0;
	}
	pthread_mutex_unlock(&srx->ctl);
	return n;
}

/* FI_OPT_MIN_MULTI_RECV is the context's (its queue carves the
 * buffers); set it before any endpoint is enabled. */
static int rdm_srx_setopt(fid_t fid, int level, int optname,
			  const void *optval, size_t optlen)
{
	struct rdm_srx *srx = rdm_srx_of(fid);
	int ret = 0;

	if (!srx || level != FI_OPT_ENDPOINT)
		return -FI_EINVAL;
	if (optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (!optval || optlen != sizeof(size_t) || !*(const size_t *)optval)
		return -FI_EINVAL;
	pthread_mutex_lock(&srx->ctl);
	if (rdm_srx_poster(srx))
		ret = -FI_EOPBADSTATE;
	else
		pl_match_set_min_multi_recv(&srx->match,
					    *(const size_t *)optval);
	pthread_mutex_unlock(&srx->ctl);
	return ret;
}

static int rdm_srx_getopt(fid_t fid, int level, int optname, void *optval,
			  size_t *optlen)
{
	struct rdm_srx *srx = rdm_srx_of(fid);

	if (!srx || level != FI_OPT_ENDPOINT || !optval || !optlen)
		return -FI_EINVAL;
	if (optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (*optlen < sizeof(size_t))
		return -FI_ETOOSMALL;
	*(size_t *)optval = pl_match_get_min_multi_recv(&srx->match);
	*optlen = sizeof(size_t);
	return 0;
}

static int rdm_srx_close(struct fid *fid)
{
	struct rdm_srx *srx = rdm_srx_of(fid);

	if (!srx)
		return -FI_EINVAL;
	/* nbound, not the list: a closing endpoint leaves the list first
	 * and still takes the context's lock until its close ends */
	pthread_mutex_lock(&srx->ctl);
	if (srx->nbound) {
		pthread_mutex_unlock(&srx->ctl);
		return -FI_EBUSY;
	}
	pthread_mutex_unlock(&srx->ctl);
	/* receives still posted go with it: no endpoint is left whose CQ
	 * could report them */
	rdm_ep_mrecv_free_list(&srx->mrecv);
	pl_match_fini(&srx->match);
	pthread_mutex_destroy(&srx->ctl);
	pthread_mutex_destroy(&srx->lock);
	pl_domain_child_put(srx->dom);
	free(srx);
	return 0;
}

static struct fi_ops rdm_srx_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rdm_srx_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep rdm_srx_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = rdm_srx_cancel,
	.getopt = rdm_srx_getopt,
	.setopt = rdm_srx_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = rdm_srx_rx_size_left,
	.tx_size_left = pl_fid_nosys_ep_tx_size_left,
};

static struct fi_ops_msg rdm_srx_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = rdm_srx_recv,
	.recvv = rdm_srx_recvv,
	.recvmsg = rdm_srx_recvmsg,
	.send = pl_fid_nosys_msg_send,
	.sendv = pl_fid_nosys_msg_sendv,
	.sendmsg = pl_fid_nosys_msg_sendmsg,
	.inject = pl_fid_nosys_msg_inject,
	.senddata = pl_fid_nosys_msg_senddata,
	.injectdata = pl_fid_nosys_msg_injectdata,
};

static struct fi_ops_tagged rdm_srx_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = rdm_srx_trecv,
	.recvv = rdm_srx_trecvv,
	.recvmsg = rdm_srx_trecvmsg,
	.send = pl_fid_nosys_tagged_send,
	.sendv = pl_fid_nosys_tagged_sendv,
	.sendmsg = pl_fid_nosys_tagged_sendmsg,
	.inject = pl_fid_nosys_tagged_inject,
	.senddata = pl_fid_nosys_tagged_senddata,
	.injectdata = pl_fid_nosys_tagged_injectdata,
};

/* The receive attributes a context takes: what its domain's endpoints
 * offer. */
#define RDM_SRX_OP_FLAGS (FI_COMPLETION | FI_MULTI_RECV)
#define RDM_SRX_SIZE_DEFAULT 1024

int rdm_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep, void *context)
{
	struct pl_domain *dom = pl_domain_of(domain);
	struct pl_match_attr mattr = { 0 };
	struct rdm_srx *srx;
	int ret;

	if (!dom || !rx_ep)
		return -FI_EINVAL;
	/* fi_peer(3): an owner provider hands us its queue */
	if (attr && (attr->op_flags & FI_PEER))
		return rdm_peer_srx_open(domain, attr, rx_ep, context);
	if (attr && (attr->op_flags & ~RDM_SRX_OP_FLAGS)) {
		PL_WARN(FI_LOG_EP_CTRL, "fi_srx_context: op_flags 0x%llx "
			"not all offered\n", (unsigned long long)attr->op_flags);
		return -FI_EINVAL;
	}
	srx = calloc(1, sizeof(*srx));
	if (!srx)
		return -FI_ENOMEM;
	ret = pl_match_init(&srx->match, &mattr);
	if (ret) {
		free(srx);
		return ret;
	}
	pthread_mutex_init(&srx->lock, NULL);
	pthread_mutex_init(&srx->ctl, NULL);
	srx->dom = dom;
	srx->op_flags = attr ? attr->op_flags : 0;
	srx->size = attr && attr->size ? attr->size : RDM_SRX_SIZE_DEFAULT;
	if (attr)
		attr->size = srx->size;
	srx->ep_fid.fid.fclass = FI_CLASS_SRX_CTX;
	srx->ep_fid.fid.context = context;
	srx->ep_fid.fid.ops = &rdm_srx_fid_ops;
	srx->ep_fid.ops = &rdm_srx_ep_ops;
	srx->ep_fid.msg = &rdm_srx_msg_ops;
	srx->ep_fid.tagged = &rdm_srx_tagged_ops;
	srx->ep_fid.cm = (struct fi_ops_cm *)&pl_fid_nosys_cm_ops;
	srx->ep_fid.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops;
	srx->ep_fid.atomic = (struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	srx->ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	pl_domain_child_get(dom);
	*rx_ep = &srx->ep_fid;
	return 0;
}

int rdm_srx_bind_ep(struct fid *srx_fid, struct rdm_ep *ep, uint64_t flags)
{
	struct rdm_srx *srx = rdm_srx_of(srx_fid);
	struct rdm_ep **pp;

	if (!srx || flags)
		return -FI_EINVAL;
	if (ep->base.enabled)
		return -FI_EOPBADSTATE;
	/* one context per endpoint; a context of another domain (another
	 * provider's queue and threading model) is refused */
	if (ep->srx || srx->dom != ep->base.dom)
		return -FI_EINVAL;
	pthread_mutex_lock(&srx->ctl);
	for (pp = &srx->eps; *pp; pp = &(*pp)->srx_next)
		;
	ep->srx_next = NULL;
	*pp = ep;
	srx->nbound++;
	pthread_mutex_unlock(&srx->ctl);
	/* no data call reaches ep before fi_enable: switching its queue
	 * and lock needs no lock */
	ep->srx = srx;
	ep->matchp = &srx->match;
	ep->mrecvp = &srx->mrecv;
	if (ep->locking)
		ep->lockp = &srx->lock;
	return 0;
}

void rdm_srx_unlink_ep(struct rdm_srx *srx, struct rdm_ep *ep)
{
	struct rdm_ep **pp;

	pthread_mutex_lock(&srx->ctl);
	for (pp = &srx->eps; *pp; pp = &(*pp)->srx_next)
		if (*pp == ep) {
			*pp = ep->srx_next;
			break;
		}
	pthread_mutex_unlock(&srx->ctl);
}

void rdm_srx_put(struct rdm_srx *srx)
{
	pthread_mutex_lock(&srx->ctl);
	srx->nbound--;
	pthread_mutex_unlock(&srx->ctl);
}
