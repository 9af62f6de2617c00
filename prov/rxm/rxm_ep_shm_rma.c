/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA and atomics to node-local peers through shm (rxm_ep_shm.h; the
 * list, the flush and the lock order are rxm_ep_shm.c's): the request
 * the RDM core hands the transport (struct rdm_rma_msg, one remote
 * buffer) is listed under our lock like a send, and the flush, with no
 * lock of ours held, makes it the shm endpoint's fi_writemsg,
 * fi_readmsg, fi_atomicmsg, fi_fetch_atomicmsg or fi_compare_atomicmsg.
 * Its completion comes back through the transmit peer CQ, as a send's
 * does (rxm_shm_tx_write), and completes the core's tx entry: the
 * completion flags, the initiator's counters and the error of a
 * refusal are the core's, whichever transport carried the operation.
 *
 * The target is the peer's shm endpoint: it checks key, range and
 * access against its shm domain's registrations, which are the twins
 * of the peer's rxm registrations (same key, segments, access, and the
 * domain in the same addressing, rxm_shm_mr_twin), so the key and
 * address the peer's application handed out work as over tcp, and a
 * refusal is the same -FI_EKEYREJECTED / -FI_EACCES (rdm_rma.h). Its
 * remote events land in the peer's rxm objects: remote CQ data on the
 * receive peer CQ, the endpoint's remote access counters (bound to its
 * shm endpoint, rxm_ep_shm_open) and an MR's counter (bound to the
 * twin, pl_mr_set_twin).
 *
 * What stays on the core (rxm_ep_shm_rma_fits): an atomic with more
 * operands than shm carries in one request (fi_query_atomic on the shm
 * domain says how many; rxm carries up to RXM_ATOMIC_MAX_BYTES). rxm
 * promises no order between RMA operations (msg_order FI_ORDER_SAS),
 * and the atomics of both transports apply under one lock per process
 * (rdm_atomic.h), so the two paths may interleave.
 *
 * The record keeps what the call must outlive: an inject write's bytes
 * (the application may reuse its buffer at once) and an atomic's
 * request (operands and compare values, built on the core's stack).
 * Other buffers are the application's until the completion, as
 * fi_rma(3) and fi_atomic(3) say.
 */
#include <string.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "pl_iov.h"
#include "rdm_atomic.h"
#include "rxm_ep_shm.h"

bool rxm_ep_shm_rma_fits(struct rxm_ep *ep, const struct rdm_rma_msg *m)
{
	struct rdm_atomic_req req;
	struct fi_atomic_attr attr;

	if (!ep->shm || m->iov_count > RXM_IOV_LIMIT ||
	    (m->iov_count && !m->iov))
		return false;
	if (m->kind != RDM_RMA_ATOMIC)
		return true;
	if (!m->amo || m->amo_len < sizeof(req) ||
	    m->amo_len > RXM_SHM_TX_SMALL)
		return false;
	memcpy(&req, m->amo, sizeof(req));
	/* what one shm request carries of this (op, datatype, kind): a
	 * pure query, no lock taken (rdm_rma_query_atomic) */
	if (fi_query_atomic(ep->dom->shm.domain, (enum fi_datatype)
			    req.datatype, (enum fi_op)req.op, &attr,
			    req.kind == RDM_ATOMIC_FETCH ? FI_FETCH_ATOMIC :
			    req.kind == RDM_ATOMIC_COMPARE ?
			    FI_COMPARE_ATOMIC : 0))
		return false;
	return req.count <= attr.count;
}

int rxm_ep_shm_rma(struct rxm_ep *ep, struct rxm_conn *c,
		   const struct rdm_rma_msg *m)
{
	struct rxm_ep_shm *sh = ep->shm;
	bool inject = m->kind == RDM_RMA_WRITE &&
		      (m->flags & RDM_TX_INJECT);
	size_t copy = 0, len = pl_iov_total(m->iov, m->iov_count);
	struct rxm_shm_tx *t;

	if (inject)
		copy = len;
	else if (m->kind == RDM_RMA_ATOMIC)
		copy = m->amo_len;
	t = rxm_shm_tx_get(sh, copy);
	if (!t)
		return -FI_ENOMEM;
	t->kind = RXM_SHM_TX_RMA;
	t->txe = m->context;
	t->conn = c;
	t->rdm_flags = m->flags;
	t->dest = ((struct rxm_peer *)c->owner_data)->shm_dest;
	t->tag = 0;
	t->tagged = false;
	t->data = m->cq_data;
	t->rma_kind = (uint8_t)m->kind;
	t->addr = m->addr;
	t->key = m->key;
	t->amo_len = m->kind == RDM_RMA_ATOMIC ? m->amo_len : 0;
	/* every operation completes (the core waits for rdm_ep_tx_done) */
	t->flags = FI_COMPLETION |
		   ((m->flags & RDM_TX_CQ_DATA) ? FI_REMOTE_CQ_DATA : 0);
	if (inject) {
		size_t cur = 0, off = 0;

		(void)pl_iov_to_buf(m->iov, m->iov_count, &cur, &off,
				    t->bytes, len);
		t->iov[0] = (struct iovec){ t->bytes, len };
		t->iov_count = 1;
	} else {
		if (t->amo_len)
			memcpy(t->bytes, m->amo, t->amo_len);
		memcpy(t->iov, m->iov, m->iov_count * sizeof(*t->iov));
		t->iov_count = m->iov_count;
	}
	rxm_shm_tx_list(sh, t);
	return 1;	/* rdm_ep_tx_done follows */
}

/* The atomic request of t as the shm endpoint's fi_*atomicmsg. */
static ssize_t rxm_shm_atomic_post(struct rxm_ep_shm *sh,
				   struct rxm_shm_tx *t)
{
	struct fi_ioc res[RXM_IOV_LIMIT], opnd, cmp;
	struct rdm_atomic_req req;
	struct fi_rma_ioc rioc;
	struct fi_msg_atomic am;
	size_t size, bytes, i;

	/* listed by rxm_ep_shm_rma after rxm_ep_shm_rma_fits: a known
	 * datatype, count within shm's limit, operands all there */
	memcpy(&req, t->bytes, sizeof(req));
	size = rdm_atomic_dt_size((enum fi_datatype)req.datatype);
	bytes = (size_t)req.count * size;
	if (!size || sizeof(req) + bytes > t->amo_len)
		return -FI_EINVAL;
	opnd = (struct fi_ioc){ t->bytes + sizeof(req), req.count };
	cmp = (struct fi_ioc){ t->bytes + sizeof(req) + bytes, req.count };
	for (i = 0; i < t->iov_count; i++)
		res[i] = (struct fi_ioc){ t->iov[i].iov_base,
					  t->iov[i].iov_len / size };
	rioc = (struct fi_rma_ioc){ t->addr, req.count, t->key };
	am = (struct fi_msg_atomic){
		.msg_iov = &opnd, .iov_count = 1, .addr = t->dest,
		.rma_iov = &rioc, .rma_iov_count = 1,
		.datatype = (enum fi_datatype)req.datatype,
		.op = (enum fi_op)req.op, .context = t,
	};
	switch (req.kind) {
	case RDM_ATOMIC_WRITE:
		return fi_atomicmsg(sh->sep, &am, t->flags);
	case RDM_ATOMIC_FETCH:
		return fi_fetch_atomicmsg(sh->sep, &am, res, NULL,
					  t->iov_count, t->flags);
	case RDM_ATOMIC_COMPARE:
		if (sizeof(req) + 2 * bytes > t->amo_len)
			return -FI_EINVAL;
		return fi_compare_atomicmsg(sh->sep, &am, &cmp, NULL, 1, res,
					    NULL, t->iov_count, t->flags);
	default:
		return -FI_EINVAL;
	}
}

ssize_t rxm_shm_rma_post(struct rxm_ep_shm *sh, struct rxm_shm_tx *t)
{
	struct fi_rma_iov rma = {
		.addr = t->addr,
		.len = pl_iov_total(t->iov, t->iov_count),
		.key = t->key,
	};
	struct fi_msg_rma msg = {
		.msg_iov = t->iov, .iov_count = t->iov_count,
		.addr = t->dest, .rma_iov = &rma, .rma_iov_count = 1,
		.context = t, .data = t->data,
	};

	switch (t->rma_kind) {
	case RDM_RMA_WRITE:
		return fi_writemsg(sh->sep, &msg, t->flags);
	case RDM_RMA_READ:
		return fi_readmsg(sh->sep, &msg, t->flags);
	default:
		return rxm_shm_atomic_post(sh, t);
	}
}

int rxm_shm_rma_core(struct rxm_ep *ep, struct rxm_shm_tx *t)
{
	struct rdm_rma_msg m = {
		.kind = (enum rdm_rma_kind)t->rma_kind,
		.iov = t->iov, .iov_count = t->iov_count,
		.addr = t->addr, .key = t->key, .cq_data = t->data,
		.flags = t->rdm_flags,
		.amo = t->amo_len ? t->bytes : NULL, .amo_len = t->amo_len,
		.context = t->txe,
	};

	/* the core copies what it keeps (an inject's bytes, an atomic's
	 * request) or refers to the application's buffers: t goes */
	return rxm_ep_rma_core_route(ep, t->conn, &m);
}
