/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared receive contexts (tcp_srx.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "tcp_params.h"
#include "tcp_srx.h"

#define TCP_SRX_RECV_FLAGS (FI_COMPLETION | FI_MULTI_RECV | FI_MORE | \
	FI_TAGGED | FI_MSG | FI_RECV)

static struct fi_ops tcp_srx_fid_ops;

struct tcp_srx *tcp_srx_of(struct fid *fid)
{
	if (!fid || fid->fclass != FI_CLASS_SRX_CTX ||
	    fid->ops != &tcp_srx_fid_ops)
		return NULL;
	return pl_container_of(fid, struct tcp_srx, ep_fid.fid);
}

struct tcp_rx *tcp_srx_take(struct tcp_srx *srx, bool tagged, uint64_t tag,
			    struct tcp_ep *ep)
{
	struct tcp_rx *rx;

	pthread_mutex_lock(&srx->lock);
	rx = tcp_rxq_take(tagged ? &srx->trxq : &srx->rxq, tagged, tag);
	if (!rx && !ep->on_srx_list) {
		ep->srx_next = srx->stalled;
		srx->stalled = ep;
		ep->on_srx_list = true;
	}
	pthread_mutex_unlock(&srx->lock);
	return rx;
}

void tcp_srx_requeue(struct tcp_srx *srx, struct tcp_rx *rx)
{
	pthread_mutex_lock(&srx->lock);
	tcp_rxq_push_front(rx->tagged ? &srx->trxq : &srx->rxq, rx);
	pthread_mutex_unlock(&srx->lock);
}

void tcp_srx_rx_put(struct tcp_srx *srx, struct tcp_rx *rx)
{
	pthread_mutex_lock(&srx->lock);
	rx->next = srx->free;
	srx->free = rx;
	pthread_mutex_unlock(&srx->lock);
}

void tcp_srx_forget(struct tcp_srx *srx, struct tcp_ep *ep)
{
	struct tcp_ep **pp;

	pthread_mutex_lock(&srx->lock);
	if (ep->on_srx_list) {
		for (pp = &srx->stalled; *pp; pp = &(*pp)->srx_next)
			if (*pp == ep) {
				*pp = ep->srx_next;
				break;
			}
		ep->on_srx_list = false;
	}
	pthread_mutex_unlock(&srx->lock);
}

void tcp_srx_attach(struct tcp_srx *srx, struct tcp_ep *ep)
{
	struct tcp_ep **pp;

	/* acq_rel: pairs with close's acquire load */
	pl_fetch_add_acq_rel(&srx->refs, 1);
	pthread_mutex_lock(&srx->lock);
	for (pp = &srx->bound; *pp; pp = &(*pp)->srx_bound_next)
		;
	ep->srx_bound_next = NULL;
	ep->srx_enabled = false;
	*pp = ep;
	pthread_mutex_unlock(&srx->lock);
}

/*
 * Who reports a receive canceled here. fi_cancel(3) puts the report on
 * the CQ that would have taken the receive's completion, but the context
 * has no CQ: the receive completes on the CQ of whichever bound endpoint
 * the message that takes it arrives on, which is not known before it
 * does. The rule is the one the RDM core keeps for its own shared
 * contexts (rdm_srx.c): the oldest bound endpoint that is enabled; here
 * the oldest such that has a receive CQ, since only a CQ entry carries
 * the context, else the oldest with a receive counter (an error count is
 * all it can be told). Fixed by the order of fi_ep_bind, so the
 * application knows which CQ to read. NULL: no bound endpoint enabled.
 * Under srx->lock, which makes rx_cq and the counter safe to read:
 * fi_ep_bind set them before fi_enable, and tcp_srx_enable set
 * srx_enabled after, under this lock.
 */
static struct tcp_ep *tcp_srx_reporter(struct tcp_srx *srx)
{
	struct tcp_ep *ep, *cntr_only = NULL;

	for (ep = srx->bound; ep; ep = ep->srx_bound_next) {
		if (!ep->srx_enabled)
			continue;
		if (ep->base.rx_cq)
			return ep;
		if (!cntr_only && pl_ep_cntr(&ep->base, PL_EP_CNTR_RECV))
			cntr_only = ep;
	}
	return cntr_only;
}

/* Under srx->lock: rx's report goes to ep (tcp_srx_reporter), and the
 * entry back to the pool. */
static void tcp_srx_report(struct tcp_srx *srx, struct tcp_ep *ep,
			   struct tcp_rx *rx)
{
	tcp_ep_rx_report_canceled(ep, rx);
	rx->next = srx->free;
	srx->free = rx;
}

void tcp_srx_enable(struct tcp_srx *srx, struct tcp_ep *ep)
{
	struct tcp_ep *rep;
	struct tcp_rx *rx;

	pthread_mutex_lock(&srx->lock);
	ep->srx_enabled = true;
	rep = tcp_srx_reporter(srx);
	while (rep && (rx = srx->canceled.head)) {
		srx->canceled.head = rx->next;
		tcp_srx_report(srx, rep, rx);
	}
	if (!srx->canceled.head)
		srx->canceled.tail = NULL;
	pthread_mutex_unlock(&srx->lock);
}

void tcp_srx_detach(struct tcp_srx *srx, struct tcp_ep *ep)
{
	struct tcp_ep **pp;

	pthread_mutex_lock(&srx->lock);
	for (pp = &srx->bound; *pp; pp = &(*pp)->srx_bound_next)
		if (*pp == ep) {
			*pp = ep->srx_bound_next;
			break;
		}
	ep->srx_bound_next = NULL;
	ep->srx_enabled = false;
	pthread_mutex_unlock(&srx->lock);
}

void tcp_srx_unref(struct tcp_srx *srx)
{
	/* acq_rel: the endpoint's last use of the context is released to
	 * close's acquire load */
	pl_fetch_sub_acq_rel(&srx->refs, 1);
}

/* Under srx->lock: every stalled endpoint gets its socket re-armed; its
 * next data pass retries the message it holds. The endpoint is still on
 * the list, so its socket is open (close takes it off under this lock
 * before the fd goes). */
static void tcp_srx_wake_stalled(struct tcp_srx *srx)
{
	struct tcp_ep *ep;

	while ((ep = srx->stalled)) {
		srx->stalled = ep->srx_next;
		ep->on_srx_list = false;
		/* release: the flag is seen by the handler's acq_rel
		 * exchange, which then trusts the kernel's interest set */
		pl_exchange_acq_rel(&ep->srx_woken, 1);
		(void)tcp_sockset_mod(&ep->dom->data_set, ep->fd,
				      &ep->data_ev, EPOLLIN | EPOLLOUT);
	}
	pl_progress_ctx_kick(srx->dom->base.ctx);
}

static ssize_t tcp_srx_post(struct tcp_srx *srx, bool tagged,
			    const struct iovec *iov, size_t count,
			    uint64_t tag, uint64_t ignore, void *context,
			    uint64_t flags)
{
	struct tcp_rx *rx;

	if (count > TCP_IOV_MAX || (count && !iov))
		return -FI_EINVAL;
	if (flags & ~TCP_SRX_RECV_FLAGS)
		return -FI_EBADFLAGS;
	pthread_mutex_lock(&srx->lock);
	rx = srx->free;
	if (!rx) {
		pthread_mutex_unlock(&srx->lock);
		return -FI_EAGAIN;
	}
	srx->free = rx->next;
	memset(rx, 0, sizeof(*rx));
	tcp_rx_fill(rx, tagged, iov, count, tag, ignore, context, flags);
	rx->srx = srx;
	tcp_rxq_push(tagged ? &srx->trxq : &srx->rxq, rx);
	if (srx->stalled)
		tcp_srx_wake_stalled(srx);
	pthread_mutex_unlock(&srx->lock);
	return 0;
}

static struct tcp_srx *tcp_srx_ep(struct fid_ep *e)
{
	return pl_container_of(e, struct tcp_srx, ep_fid);
}

static ssize_t tcp_srx_recv(struct fid_ep *e, void *buf, size_t len,
			    void *desc, fi_addr_t src, void *context)
{
	struct tcp_srx *srx = tcp_srx_ep(e);
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	(void)src;
	return tcp_srx_post(srx, false, &iov, 1, 0, 0, context,
			    srx->op_flags & TCP_SRX_RECV_FLAGS);
}

static ssize_t tcp_srx_recvv(struct fid_ep *e, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     void *context)
{
	struct tcp_srx *srx = tcp_srx_ep(e);

	(void)desc;
	(void)src;
	return tcp_srx_post(srx, false, iov, count, 0, 0, context,
			    srx->op_flags & TCP_SRX_RECV_FLAGS);
}

static ssize_t tcp_srx_recvmsg(struct fid_ep *e, const struct fi_msg *msg,
			       uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	return tcp_srx_post(tcp_srx_ep(e), false, msg->msg_iov,
			    msg->iov_count, 0, 0, msg->context, flags);
}

static ssize_t tcp_srx_trecv(struct fid_ep *e, void *buf, size_t len,
			     void *desc, fi_addr_t src, uint64_t tag,
			     uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	(void)src;
	return tcp_srx_post(tcp_srx_ep(e), true, &iov, 1, tag, ignore,
			    context, 0);
}

static ssize_t tcp_srx_trecvv(struct fid_ep *e, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t src,
			      uint64_t tag, uint64_t ignore, void *context)
{
	(void)desc;
	(void)src;
	return tcp_srx_post(tcp_srx_ep(e), true, iov, count, tag, ignore,
			    context, 0);
}

static ssize_t tcp_srx_trecvmsg(struct fid_ep *e,
				const struct fi_msg_tagged *msg,
				uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	if (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD | FI_MULTI_RECV))
		return -FI_EOPNOTSUPP;
	return tcp_srx_post(tcp_srx_ep(e), true, msg->msg_iov, msg->iov_count,
			    msg->tag, msg->ignore, msg->context, flags);
}

static int tcp_srx_close(struct fid *fid)
{
	struct tcp_srx *srx = pl_container_of(fid, struct tcp_srx, ep_fid.fid);

	/* acquire: pairs with the unrefs of closed endpoints */
	if (pl_load_acquire(&srx->refs))
		return -FI_EBUSY;
	pl_domain_child_put(&srx->dom->base);
	pthread_mutex_destroy(&srx->lock);
	free(srx->pool);
	free(srx);
	return 0;
}

static ssize_t tcp_srx_cancel(fid_t fid, void *context)
{
	struct tcp_srx *srx = pl_container_of(fid, struct tcp_srx, ep_fid.fid);
	struct tcp_rx *rx;
	struct tcp_ep *ep;

	pthread_mutex_lock(&srx->lock);
	rx = tcp_rxq_take_ctx(&srx->rxq, context);
	if (!rx)
		rx = tcp_rxq_take_ctx(&srx->trxq, context);
	if (rx) {
		ep = tcp_srx_reporter(srx);
		if (ep)
			tcp_srx_report(srx, ep, rx);
		else
			/* receives are taken before any endpoint is bound
			 * (the first messages must find them), so one may be
			 * canceled then: its report is kept for the first
			 * endpoint enabled, the first that could have taken
			 * it, rather than lost */
			tcp_rxq_push(&srx->canceled, rx);
	}
	pthread_mutex_unlock(&srx->lock);
	return rx ? 0 : -FI_ENOENT;
}

static struct fi_ops tcp_srx_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = tcp_srx_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep tcp_srx_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = tcp_srx_cancel,
	.getopt = pl_fid_nosys_ep_getopt,
	.setopt = pl_fid_nosys_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = pl_fid_nosys_ep_rx_size_left,
	.tx_size_left = pl_fid_nosys_ep_tx_size_left,
};

static struct fi_ops_msg tcp_srx_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = tcp_srx_recv,
	.recvv = tcp_srx_recvv,
	.recvmsg = tcp_srx_recvmsg,
	.send = pl_fid_nosys_msg_send,
	.sendv = pl_fid_nosys_msg_sendv,
	.sendmsg = pl_fid_nosys_msg_sendmsg,
	.inject = pl_fid_nosys_msg_inject,
	.senddata = pl_fid_nosys_msg_senddata,
	.injectdata = pl_fid_nosys_msg_injectdata,
};

static struct fi_ops_tagged tcp_srx_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = tcp_srx_trecv,
	.recvv = tcp_srx_trecvv,
	.recvmsg = tcp_srx_trecvmsg,
	.send = pl_fid_nosys_tagged_send,
	.sendv = pl_fid_nosys_tagged_sendv,
	.sendmsg = pl_fid_nosys_tagged_sendmsg,
	.inject = pl_fid_nosys_tagged_inject,
	.senddata = pl_fid_nosys_tagged_senddata,
	.injectdata = pl_fid_nosys_tagged_injectdata,
};

int tcp_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep_p, void *context)
{
	struct tcp_domain *dom = tcp_domain_of(domain);
	struct tcp_srx *srx;
	size_t i;

	if (!dom || !rx_ep_p)
		return -FI_EINVAL;
	srx = calloc(1, sizeof(*srx));
	if (!srx)
		return -FI_ENOMEM;
	srx->size = (attr && attr->size) ? attr->size :
		    tcp_params_get()->rx_size;
	srx->pool = calloc(srx->size, sizeof(*srx->pool));
	if (!srx->pool) {
		free(srx);
		return -FI_ENOMEM;
	}
	for (i = srx->size; i-- > 0;) {
		srx->pool[i].next = srx->free;
		srx->free = &srx->pool[i];
	}
	pthread_mutex_init(&srx->lock, NULL);
	srx->dom = dom;
	srx->op_flags = attr ? attr->op_flags : 0;
	srx->ep_fid.fid.fclass = FI_CLASS_SRX_CTX;
	srx->ep_fid.fid.context = context;
	srx->ep_fid.fid.ops = &tcp_srx_fid_ops;
	srx->ep_fid.ops = &tcp_srx_ops;
	srx->ep_fid.cm = (struct fi_ops_cm *)&pl_fid_nosys_cm_ops;
	srx->ep_fid.msg = &tcp_srx_msg_ops;
	srx->ep_fid.tagged = &tcp_srx_tagged_ops;
	srx->ep_fid.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops;
	srx->ep_fid.atomic = (struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops;
	srx->ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	pl_domain_child_get(&dom->base);
	*rx_ep_p = &srx->ep_fid;
	return 0;
}
