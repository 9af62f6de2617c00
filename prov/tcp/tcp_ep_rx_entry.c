/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A tcp endpoint's receive entries (the pool posted receives come from,
 * and the staging buffer, made and freed with it), and how a receive's
 * end is reported: its completion or error entry and
 * its counter, for a message placed, a receive failed, or a receive
 * cancelled (on the endpoint or on its shared receive context). The
 * receive path itself is tcp_ep_rx.c. Under ep->lock (tcp_ep.h), but
 * tcp_ep_rx_report_canceled, which tcp_srx.c calls as it says.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_cntr.h"
#include "pl_cq.h"
#include "tcp_ep.h"
#include "tcp_params.h"
#include "tcp_srx.h"

int tcp_ep_rx_init(struct tcp_ep *ep)
{
	/* the entries themselves are made on first need (tcp_ep_rx_get) */
	ep->rx_chunks = calloc((ep->rx_size + TCP_POOL_CHUNK - 1) /
			       TCP_POOL_CHUNK, sizeof(*ep->rx_chunks));
	ep->stage = malloc(ep->stage_cap);
	if (!ep->rx_chunks || !ep->stage) {
		free(ep->rx_chunks);
		free(ep->stage);
		ep->rx_chunks = NULL;
		ep->stage = NULL;
		return -FI_ENOMEM;
	}
	ep->rx_free = NULL;
	ep->rx_made = 0;
	memset(&ep->rs, 0, sizeof(ep->rs));
	ep->rs.phase = TCP_RX_HDR;
	ep->unexp_max = tcp_params_get()->max_unexpected;
	return 0;
}

void tcp_ep_rx_fini(struct tcp_ep *ep)
{
	size_t c;

	tcp_ep_unexp_free(ep);
	if (ep->rx_chunks)
		for (c = 0; c * TCP_POOL_CHUNK < ep->rx_size; c++)
			free(ep->rx_chunks[c]);
	free(ep->rx_chunks);
	free(ep->stage);
	ep->rx_chunks = NULL;
	ep->stage = NULL;
}

/* The next chunk of receive entries onto the free list; false when all
 * rx_size are made or memory is short. */
static bool tcp_ep_rx_grow(struct tcp_ep *ep)
{
	size_t c = ep->rx_made / TCP_POOL_CHUNK, i, n;
	struct tcp_rx *chunk;

	if (ep->rx_made >= ep->rx_size)
		return false;
	n = ep->rx_size - ep->rx_made;
	if (n > TCP_POOL_CHUNK)
		n = TCP_POOL_CHUNK;
	chunk = calloc(n, sizeof(*chunk));
	if (!chunk)
		return false;
	ep->rx_chunks[c] = chunk;
	for (i = n; i-- > 0;) {
		chunk[i].next = ep->rx_free;
		ep->rx_free = &chunk[i];
	}
	ep->rx_made += n;
	return true;
}

struct tcp_rx *tcp_ep_rx_get(struct tcp_ep *ep)
{
	struct tcp_rx *rx = ep->rx_free;

	if (!rx && tcp_ep_rx_grow(ep))
		rx = ep->rx_free;
	if (rx) {
		ep->rx_free = rx->next;
		memset(rx, 0, sizeof(*rx));
	}
	return rx;
}

void tcp_ep_rx_put(struct tcp_ep *ep, struct tcp_rx *rx)
{
	if (rx->srx) {
		tcp_srx_rx_put(rx->srx, rx);
		return;
	}
	rx->next = ep->rx_free;
	ep->rx_free = rx;
}

/* A failed receive's report: an entry on the receive CQ and the receive
 * counter's error count. It reads only what fi_ep_bind set before
 * fi_enable, and the engine's writers take no provider lock, so a shared
 * receive context may call it without ep->lock (tcp_srx.c). */
static void tcp_ep_rx_report_err(struct tcp_ep *ep,
				 const struct fi_cq_err_entry *err)
{
	struct fid_cntr *cntr = pl_ep_cntr(&ep->base, PL_EP_CNTR_RECV);

	if (ep->base.rx_cq)
		pl_cq_write_err(ep->base.rx_cq, err, FI_ADDR_NOTAVAIL);
	if (cntr)
		pl_cntr_inc_err(cntr);
}

void tcp_ep_rx_complete(struct tcp_ep *ep, struct tcp_rx *rx, uint64_t flags,
			size_t len, void *buf, uint64_t data, uint64_t tag,
			int status, size_t olen)
{
	struct fid_cntr *cntr = pl_ep_cntr(&ep->base, PL_EP_CNTR_RECV);
	struct fi_cq_err_entry err;

	if (ep->closing)
		return;
	if (!status) {
		if (ep->base.rx_cq &&
		    pl_ep_op_completes(ep->base.rx_cq_flags, rx->flags, false))
			pl_cq_write(ep->base.rx_cq, rx->context, flags, len,
				    buf, data, tag, FI_ADDR_NOTAVAIL);
		if (cntr)
			pl_cntr_inc(cntr);
		return;
	}
	memset(&err, 0, sizeof(err));
	err.op_context = rx->context;
	err.flags = flags;
	err.len = len;
	err.buf = buf;
	err.data = data;
	err.tag = tag;
	err.olen = olen;
	err.err = status;
	err.prov_errno = -status;
	tcp_ep_rx_report_err(ep, &err);
}

void tcp_ep_rx_report_canceled(struct tcp_ep *ep, const struct tcp_rx *rx)
{
	struct fi_cq_err_entry err;

	memset(&err, 0, sizeof(err));
	err.op_context = rx->context;
	/* the buffer goes back to the application with this entry: for a
	 * FI_MULTI_RECV buffer it is the release (fi_msg(3)) */
	err.flags = (rx->tagged ? FI_TAGGED : FI_MSG) | FI_RECV |
		    (rx->flags & FI_MULTI_RECV);
	err.err = FI_ECANCELED;
	err.prov_errno = -FI_ECANCELED;
	tcp_ep_rx_report_err(ep, &err);
}
