/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rxm FI_EP_RDM endpoint: open, bind, enable, names, close. The RDM
 * endpoint core (rdm_ep.h) does fi_msg / fi_tagged, matching,
 * completions, aliases and options; fi_enable brings the transport up
 * (a core CQ, the listener of the connection manager) and registers the
 * endpoint as a progress source of the domain's context, sleeping on the
 * core CQ's wait fd, and the EQ's fd as a second source that wakes it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "pl_info.h"
#include "rdm_peer_srx.h"
#include "rdm_sep.h"
#include "rxm_ep.h"
#include "rxm_params.h"

#define RXM_EP_OF_FID(f) ((struct rxm_ep *)rdm_ep_of_fid(f))

static int rxm_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	return rdm_ep_bind(&RXM_EP_OF_FID(fid)->rdm, bfid, flags);
}

/* The connection thread's pass (rxm_fabric.cm_ctx), when a connection
 * event came: fi_getinfo says control progress is automatic, so a
 * connection forms, and what waited for it leaves, even while the
 * application makes no call (a process blocked elsewhere after an
 * fi_inject). A full pass of the transport under the endpoint's mutex,
 * then passes while they find work, so that what the core kept back
 * (tcp coalesces sends until its next pass) leaves too. An application
 * thread inside the endpoint does the same in its own call: busy, skip. */
static int rxm_ep_bg_poll(struct pl_progress_source *src, unsigned budget)
{
	struct rxm_ep *ep = pl_container_of(src, struct rxm_ep, bg_src);
	int work = 0, n, i = 0;

	if (!rdm_ep_lock_try(&ep->rdm))
		return 0;
	do {
		n = rdm_ep_poll(&ep->rdm, budget);
		if (n > 0)
			work += n;
	} while (n > 0 && ++i < 16);
	rdm_ep_lock_untry(&ep->rdm);
	return work;
}

/* The transport: a core CQ and the connection manager listening, each
 * in one of the domain's wait sets. */
static int rxm_ep_transport_open(struct rxm_ep *ep)
{
	struct fi_cq_attr cq_attr = {
		.format = FI_CQ_FORMAT_MSG,
		/* one descriptor wakes for every endpoint of the domain
		 * (rxm_domain_wake.h) */
		.wait_obj = FI_WAIT_SET,
		.wait_set = ep->dom->data_wake.set,
		/* every send and posted buffer of every connection */
		.size = 0,
	};
	int ret;

	struct fi_info *core;

	ret = fi_cq_open(ep->dom->core_domain, &cq_attr, &ep->core_cq, ep);
	if (ret)
		return ret;
	/* the listener binds the endpoint's own source address: each
	 * endpoint of a domain has its own name */
	core = fi_dupinfo_1_3(ep->dom->core_info);
	if (!core)
		return -FI_ENOMEM;
	if (ep->src_addr) {
		free(core->src_addr);
		core->src_addr = ep->src_addr;
		core->src_addrlen = ep->src_addrlen;
	}
	ret = rxm_cm_open(&ep->cm, ep->dom->fab->core_fabric,
			  ep->dom->core_domain, core, ep->dom->cm_wake.set,
			  &rxm_ep_cm_ops, ep);
	if (ep->src_addr)
		core->src_addr = NULL;	/* still ours */
	fi_freeinfo_1_3(core);
	if (ret)
		return ret;
	/* before any connection: they are made in the progress passes */
	ep->cm.msg_tx_size = rxm_params_get()->msg_tx_size;
	ep->cm_open = true;
	return 0;
}

/* Everything the transport holds, in an order that leaves no buffer
 * behind: the connections close (their core endpoints complete what
 * they held, in error, into the core CQ), the CQ is drained of those
 * completions, then closed. */
static void rxm_ep_transport_close(struct rxm_ep *ep)
{
	struct fi_cq_msg_entry e[16];
	struct fi_cq_err_entry err;
	struct rxm_peer *p;
	ssize_t n, i;

	for (p = ep->peers; p; p = p->all_next) {
		rxm_ep_tx_fail_peer(ep, p, -FI_ECANCELED);
		rxm_ep_rx_fail_peer(ep, p, -FI_ECANCELED);
		rxm_ep_rma_fail_peer(ep, p, -FI_ECANCELED);
		rxm_ep_rndv_fail_peer(ep, p, -FI_ECANCELED);
	}
	if (ep->cm_open)
		rxm_cm_close(&ep->cm);
	ep->cm_open = false;
	while (ep->core_cq) {
		n = fi_cq_read(ep->core_cq, e, 16);
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_cq_readerr(ep->core_cq, &err, 0) != 1)
				break;
			if (err.flags & FI_RECV)
				rxm_ep_rxb_release(err.op_context);
			else if (err.flags & (FI_READ | FI_WRITE))
				rxm_ep_core_rma_done(ep, err.op_context,
						     err.flags, -FI_ECANCELED);
			else if (err.flags & FI_SEND)
				rxm_ep_tx_done(ep, err.op_context,
					       -FI_ECANCELED);
			continue;
		}
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			if (e[i].flags & FI_RECV)
				rxm_ep_rxb_release(e[i].op_context);
			else if (e[i].flags & (FI_READ | FI_WRITE))
				rxm_ep_core_rma_done(ep, e[i].op_context,
						     e[i].flags, 0);
			else if (e[i].flags & FI_SEND)
				rxm_ep_tx_done(ep, e[i].op_context, 0);
		}
	}
	if (ep->core_cq)
		(void)fi_close(&ep->core_cq->fid);
	ep->core_cq = NULL;
	/* buffers held back by the unexpected limit (closing: released) */
	rxm_ep_rx_unpark_all(ep);
	while ((p = ep->peers)) {
		ep->peers = p->all_next;
		free(p);
	}
}

static int rxm_ep_enable(struct rxm_ep *ep)
{
	struct pl_progress_ctx *ctx =
		pl_domain_progress(&ep->dom->base.domain_fid);
	int ret;

	ret = pl_ep_enable(&ep->rdm.base);
	if (ret)
		return ret;
	ret = rxm_ep_transport_open(ep);
	if (ret)
		goto err;
	/* a shared receive context keeps its own option */
	if (!ep->rdm.srx)
		pl_match_set_min_multi_recv(&ep->rdm.match,
					    ep->rdm.base.min_multi_recv);
	ep->rdm.ready = true;
	if (ep->rdm.sep)
		rdm_sep_ready(&ep->rdm);	/* its enabled contexts too */
	/* shm imports our receive queue, which needs us ready; before our
	 * progress source, whose passes read ep->shm (adding it publishes
	 * what was written here to the progress thread) */
	ret = rxm_ep_shm_open(ep);
	if (ret)
		goto err;
	ep->src = (struct rdm_ep_source){
		.src = {
			.poll = rdm_ep_progress_poll,
			.arm = rdm_ep_progress_arm,
			/* the domain's wait sets wake the pass that polls
			 * us (rxm_domain_wake.h) */
			.fd = -1,
			.name = "ofi_rxm endpoint",
		},
		.ep = &ep->rdm,
		.ctx = ctx,
	};
	ret = pl_progress_source_add(ctx, &ep->src.src);
	if (ret)
		goto err;
	ep->src_added = true;
	ep->bg_src = (struct pl_progress_source){
		.poll = rxm_ep_bg_poll,
		/* nothing of ours to arm: the domain's cm_wake arms every
		 * connection EQ and wakes the thread */
		.fd = -1,
		.name = "ofi_rxm connection thread",
	};
	ret = pl_progress_source_add(ep->dom->fab->cm_ctx, &ep->bg_src);
	if (ret)
		goto err_src;
	ep->bg_src_added = true;
	return 0;

err_src:
	pl_progress_source_remove(ctx, &ep->src.src);
	ep->src_added = false;
err:
	ep->rdm.ready = false;
	rxm_ep_shm_close(ep);
	rxm_ep_shm_fini(ep);
	rxm_ep_transport_close(ep);
	ep->rdm.base.enabled = false;
	return ret;
}

static int rxm_ep_control(struct fid *fid, int command, void *arg)
{
	struct rxm_ep *ep = RXM_EP_OF_FID(fid);

	if (command == FI_ENABLE)
		return rxm_ep_enable(ep);
	return rdm_ep_control(&ep->rdm, command, arg);
}

static int rxm_ep_close(struct fid *fid)
{
	struct rxm_ep *ep = RXM_EP_OF_FID(fid);

	if (ep->rdm.naliases)
		return -FI_EBUSY;	/* fi_endpoint(3): aliases first */
	/* a peer still uses receives it took from this queue (our own shm
	 * endpoint is such a peer: its close below gives them back) */
	if (!ep->shm && rdm_peer_owner_busy(&ep->rdm))
		return -FI_EBUSY;
	/* first: after it returns, the connection thread never touches
	 * the endpoint again (nor a progress pass ep->shm) */
	if (ep->bg_src_added)
		pl_progress_source_remove(ep->dom->fab->cm_ctx, &ep->bg_src);
	if (ep->src_added)
		pl_progress_source_remove(
			pl_domain_progress(&ep->dom->base.domain_fid),
			&ep->src.src);
	ep->bg_src_added = ep->src_added = false;
	/* then our shm endpoint: it imports our receive queue and
	 * completes into us. Another importer of the queue still busy
	 * makes the close -FI_EBUSY with shm gone: messages then go over
	 * the core, and the sources come back for the retry. */
	rxm_ep_shm_close(ep);
	if (rdm_peer_owner_busy(&ep->rdm)) {
		if (!pl_progress_source_add(
			    pl_domain_progress(&ep->dom->base.domain_fid),
			    &ep->src.src))
			ep->src_added = true;
		if (!pl_progress_source_add(ep->dom->fab->cm_ctx,
					    &ep->bg_src))
			ep->bg_src_added = true;
		return -FI_EBUSY;
	}
	rdm_ep_close_rx(&ep->rdm);
	rxm_ep_shm_fini(ep);
	rdm_ep_lock(&ep->rdm);
	rxm_ep_transport_close(ep);
	rdm_ep_unlock(&ep->rdm);
	rdm_ep_fini(&ep->rdm);
	free(ep->src_addr);
	free(ep);
	return 0;
}

static int rxm_ep_setopt(fid_t fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	return rdm_ep_setopt(&RXM_EP_OF_FID(fid)->rdm, level, optname,
			     optval, optlen);
}

static int rxm_ep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	return pl_ep_getopt(&RXM_EP_OF_FID(fid)->rdm.base, level, optname,
			    optval, optlen);
}

/* The listener's address: known once fi_enable made it. */
static int rxm_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct rxm_ep *ep = RXM_EP_OF_FID(fid);

	if (!addrlen)
		return -FI_EINVAL;
	if (!ep->cm_open)
		return -FI_EOPBADSTATE;
	return rxm_cm_getname(&ep->cm, addr, addrlen);
}

static struct fi_ops rxm_ep_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rxm_ep_close,
	.bind = rxm_ep_bind,
	.control = rxm_ep_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep rxm_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = rdm_ep_rx_cancel,
	.getopt = rxm_ep_getopt,
	.setopt = rxm_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = rdm_ep_rx_size_left,
	.tx_size_left = rdm_ep_tx_size_left,
};

static struct fi_ops_cm rxm_ep_cm_ops_tbl = {
	.size = sizeof(struct fi_ops_cm),
	.setname = pl_fid_nosys_cm_setname,
	.getname = rxm_ep_getname,
	.getpeer = pl_fid_nosys_cm_getpeer,
	.connect = pl_fid_nosys_cm_connect,
	.listen = pl_fid_nosys_cm_listen,
	.accept = pl_fid_nosys_cm_accept,
	.reject = pl_fid_nosys_cm_reject,
	.shutdown = pl_fid_nosys_cm_shutdown,
	.join = pl_fid_nosys_cm_join,
};

size_t rxm_ep_atomic_max(size_t buf_size)
{
	/* a compare request (header, rma header, 8-byte request, operands
	 * and compare values) and its answer fit one buffer */
	size_t room = buf_size - sizeof(struct rxm_hdr) -
		      sizeof(struct rxm_rma_hdr) - sizeof(struct rdm_atomic_req);

	if (buf_size < sizeof(struct rxm_hdr) + sizeof(struct rxm_rma_hdr) +
		       sizeof(struct rdm_atomic_req))
		return 0;
	return room / 2 < RXM_ATOMIC_MAX_BYTES ? room / 2 :
						 RXM_ATOMIC_MAX_BYTES;
}

int rxm_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context)
{
	const struct rxm_params *p = rxm_params_get();
	struct rdm_ep_attr attr = {
		.tops = &rxm_ep_transport_ops,
		.tx_size = p->tx_size,
		.rx_size = p->rx_size,
		.iov_limit = RXM_IOV_LIMIT,
		.inject_size = RXM_INJECT_SIZE,
		.always_lock = true,	/* the connection thread */
		.atomic_max_bytes = rxm_ep_atomic_max(p->buffer_size),
		.rma_iov_local = RXM_IOV_LIMIT,
	};
	struct pl_domain *pd = pl_domain_of(domain);
	struct rxm_ep *ep;
	int ret;

	if (!pd || !info || !ep_p)
		return -FI_EINVAL;
	if (info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->dom = (struct rxm_domain *)pd;
	ep->msg_rx_size = p->msg_rx_size;
	ep->lim.buf_size = p->buffer_size;
	ep->atomic_max = attr.atomic_max_bytes;
	ep->lim.sar_limit = p->sar_limit;
	ep->ux_limit = p->unexp_limit;
	ep->rndv = rxm_domain_rndv(ep->dom);
	ep->rndv_write = ep->rndv && p->use_rndv_write;
	ep->core_inject = ep->dom->core_info->tx_attr ?
			  ep->dom->core_info->tx_attr->inject_size : 0;
	if (ep->core_inject > RXM_TX_FLAT_MAX)
		ep->core_inject = RXM_TX_FLAT_MAX;
	ep->lim.max_msg_size = rxm_max_msg_size(ep->dom->core_info);
	if (info->ep_attr && info->ep_attr->max_msg_size &&
	    info->ep_attr->max_msg_size < ep->lim.max_msg_size)
		ep->lim.max_msg_size = info->ep_attr->max_msg_size;
	if (info->src_addr && info->src_addrlen == ep->dom->addrlen) {
		ep->src_addr = malloc(info->src_addrlen);
		if (!ep->src_addr) {
			free(ep);
			return -FI_ENOMEM;
		}
		memcpy(ep->src_addr, info->src_addr, info->src_addrlen);
		ep->src_addrlen = info->src_addrlen;
	}
	ret = rdm_ep_init(&ep->rdm, domain, info, &attr, context);
	if (ret) {
		free(ep->src_addr);
		free(ep);
		return ret;
	}
	ep->rdm.base.ep_fid.fid.ops = &rxm_ep_fid_ops;
	ep->rdm.base.ep_fid.ops = &rxm_ep_ops;
	ep->rdm.base.ep_fid.cm = &rxm_ep_cm_ops_tbl;
	/* emulated over messages (rxm_ep_rma.c) */
	ep->rdm.base.ep_fid.rma = (struct fi_ops_rma *)&rdm_ep_rma_ops;
	ep->rdm.base.ep_fid.atomic =
		(struct fi_ops_atomic *)&rdm_ep_atomic_ops;
	*ep_p = &ep->rdm.base.ep_fid;
	return 0;
}

int rxm_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_p, void *context)
{
	return rdm_sep_open(domain, info, sep_p, context, rxm_ep_open);
}
