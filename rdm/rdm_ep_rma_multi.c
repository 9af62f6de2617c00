/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_readmsg / fi_writemsg naming several remote buffers (rma_iov_count
 * up to RDM_RMA_IOV_MAX): the local iovecs are cut in order into one
 * segment per remote buffer, each sent as an ordinary one-buffer request
 * (rdm_ep_rma_submit_locked, RDM_EP_F_SUBOP), and the operation completes
 * once, when its last segment does, with the first error any segment
 * had. Remote CQ data travels with the last segment only, so the target
 * sees it once (its FI_REMOTE_WRITE counter counts segments).
 *
 * If a segment other than the first cannot be sent (-FI_EAGAIN: no
 * entry now), the operation is abandoned: the call returns the error,
 * the segments already sent complete silently, and the application's
 * retry sends all of them again. Writing or reading the same bytes twice
 * is harmless (atomics name one buffer).
 *
 * Threading: the whole submission runs under the endpoint lock, and
 * segment completions (rdm_ep_rma_sub_done, from rdm_ep_tx_done) too;
 * `left` holds one reference for the submission itself, so a segment
 * completing during it never frees the parent.
 */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_iov.h"
#include "rdm_rma.h"

struct rdm_ep_rma_multi {
	void		*context;
	uint64_t	cq_flags;
	uint64_t	op_flags;	/* without RDM_EP_F_SUBOP */
	size_t		len;
	unsigned	left;		/* segments in flight + submission */
	int		status;		/* first error */
	bool		abandoned;	/* the call failed: report nothing */
};

static void rdm_ep_rma_multi_put(struct rdm_ep *ep,
				 struct rdm_ep_rma_multi *p)
{
	if (--p->left)
		return;
	if (!p->abandoned)
		rdm_ep_cq_tx(ep, p->context, p->cq_flags, p->op_flags, p->len,
			     p->status);
	free(p);
}

void rdm_ep_rma_sub_done(struct rdm_ep *ep, void *parent, int status)
{
	struct rdm_ep_rma_multi *p = parent;

	if (status && !p->status)
		p->status = status;
	rdm_ep_rma_multi_put(ep, p);
}

/* The segment of the local iovecs that starts at byte `at` and is `len`
 * long, into out (at most count pieces). Returns the piece count. */
static size_t rdm_ep_iov_cut(const struct iovec *iov, size_t count,
			     size_t at, size_t len, struct iovec *out)
{
	size_t i, n = 0, skip = at;

	for (i = 0; i < count && len; i++) {
		size_t l = iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		out[n].iov_base = (char *)iov[i].iov_base + skip;
		out[n].iov_len = l - skip < len ? l - skip : len;
		len -= out[n].iov_len;
		skip = 0;
		n++;
	}
	return n;
}

ssize_t rdm_ep_rma_multi(struct rdm_ep *ep, enum rdm_rma_kind kind,
			 const struct fi_msg_rma *msg, uint64_t flags)
{
	struct iovec seg[RDM_RMA_LOCAL_IOV_MAX];
	struct rdm_ep_rma_multi *p;
	struct rdm_ep_rma_req r;
	size_t total, at = 0, i, n, last = 0;
	ssize_t ret = 0;

	/* the caller checked iov_count against rma_iov_local */
	if (msg->iov_count > sizeof(seg) / sizeof(seg[0]))
		return -FI_EINVAL;
	total = pl_iov_total(msg->msg_iov, msg->iov_count);
	/* the last remote buffer that receives bytes carries the CQ data */
	for (i = 0, n = 0; i < msg->rma_iov_count && n < total; i++) {
		n += msg->rma_iov[i].len;
		last = i;
	}
	if ((flags & FI_INJECT) && (kind != RDM_RMA_WRITE ||
				    total > ep->inject_size))
		return -FI_EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	p->context = msg->context;
	p->cq_flags = FI_RMA | (kind == RDM_RMA_READ ? FI_READ : FI_WRITE);
	p->op_flags = flags;
	p->len = total;
	p->left = 1;

	rdm_ep_lock(ep);
	for (i = 0; i <= last; i++) {
		size_t len = msg->rma_iov[i].len < total - at ?
			     (size_t)msg->rma_iov[i].len : total - at;

		if (!len && total)
			continue;
		r = (struct rdm_ep_rma_req){
			.kind = kind, .iov = seg,
			.count = rdm_ep_iov_cut(msg->msg_iov, msg->iov_count,
						at, len, seg),
			.dest = msg->addr, .addr = msg->rma_iov[i].addr,
			.key = msg->rma_iov[i].key, .data = msg->data,
			.context = p, .cq_flags = p->cq_flags, .len = len,
			.flags = (flags & ~(uint64_t)FI_REMOTE_CQ_DATA) |
				 (i == last ? (flags & FI_REMOTE_CQ_DATA) : 0) |
				 RDM_EP_F_SUBOP,
		};
		p->left++;
		ret = rdm_ep_rma_submit_locked(ep, &r);
		if (ret) {
			p->left--;
			break;
		}
		at += len;
	}
	if (ret)
		p->abandoned = true;
	rdm_ep_rma_multi_put(ep, p);	/* the submission's reference */
	rdm_ep_unlock(ep);
	/* what the transport listed for a peer provider goes now, with no
	 * lock of ours held (rdm_transport.h) */
	if (ep->tops->unlocked)
		ep->tops->unlocked(ep);
	return ret;
}
