/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A reception (struct shm_xfer_rx): made from a command, placed by the
 * provider with shm_xfer_rx_deliver (inline, single copy, or SAR), or
 * discarded; freed into a small cache (shm_xfer.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_cma.h"
#include "shm_cmd.h"
#include "shm_params.h"
#include "shm_xfer_int.h"

void shm_xfer_rx_free(struct shm_xfer_rx *rx)
{
	struct shm_xfer_ep *ep = rx->ep;

	shm_xfer_rpeer_put(rx->rpeer);
	rx->rpeer = NULL;
	if (rx->cached && ep->rx_cache_len < SHM_XFER_RX_CACHE_MAX) {
		rx->next = ep->rx_cache;
		ep->rx_cache = rx;
		ep->rx_cache_len++;
		return;
	}
	free(rx);
}

void shm_xfer_rx_cache_drain(struct shm_xfer_ep *ep)
{
	struct shm_xfer_rx *rx;

	while ((rx = ep->rx_cache)) {
		ep->rx_cache = rx->next;
		free(rx);
	}
	ep->rx_cache_len = 0;
}

struct shm_xfer_rx *shm_xfer_rx_new(struct shm_xfer_ep *ep,
				    const struct shm_cmd *cmd,
				    struct shm_rpeer *rp, size_t extra)
{
	bool cached = extra <= SHM_XFER_RX_CACHED_DATA;
	struct shm_xfer_rx *rx;

	if (cached && ep->rx_cache) {
		rx = ep->rx_cache;
		ep->rx_cache = rx->next;
		ep->rx_cache_len--;
	} else {
		rx = malloc(sizeof(*rx) +
			    (cached ? SHM_XFER_RX_CACHED_DATA : extra));
		if (!rx)
			return NULL;
	}
	rx->cached = cached;
	/* field by field, not a memset of the whole record (a rep stos of
	 * ~250 bytes on every message) */
	rx->size = cmd->size;
	rx->tag = cmd->tag;
	rx->cq_data = cmd->cq_data;
	rx->flags = 0;
	rx->src_name = rp ? rp->name : NULL;
	rx->context = NULL;
	rx->key = 0;
	rx->ep = ep;
	rx->next = NULL;
	rx->rpeer = rp;
	shm_xfer_rpeer_get(rp);
	rx->proto = cmd->proto;
	rx->cmd_flags = cmd->flags;
	rx->xfer_id = cmd->xfer_id;
	rx->xfer_id_cont = 0;
	rx->iov_count = 0;
	rx->cap = 0;
	rx->next_chunk = 0;
	rx->nchunks = 0;
	rx->copied = 0;
	rx->seen_copied = 0;
	rx->still_since = 0;
	rx->split_job = 0;
	rx->split_status = 0;
	return rx;
}

void shm_xfer_rx_cma_refused(struct shm_xfer_rx *rx)
{
	struct shm_xfer_ep *ep = rx->ep;

	((struct shm_rpeer *)rx->rpeer)->cma_read_ok = false;
	rx->xfer_id_cont = ++ep->next_cookie;
	rx->next = ep->cont_rx;
	ep->cont_rx = rx;
	shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, 0, SHM_CF_RESEND,
		     rx->xfer_id_cont);
}

static int shm_xfer_rx_deliver_cma(struct shm_xfer_rx *rx,
				   const struct iovec *iov, size_t cnt,
				   uint64_t cap, uint64_t *len_p)
{
	struct iovec local[SHM_XFER_IOV_MAX], remote[SHM_CMA_IOV_MAX],
		     rfull[SHM_CMA_IOV_MAX];
	uint64_t n = rx->size < cap ? rx->size : cap;
	size_t lc, rc, i;
	ssize_t got = 0;
	int status;

	for (i = 0; i < rx->u.cma.iov_cnt; i++) {
		rfull[i].iov_base = (void *)(uintptr_t)rx->u.cma.iov[i].base;
		rfull[i].iov_len = (size_t)rx->u.cma.iov[i].len;
	}
	lc = pl_iov_slice(iov, cnt, 0, n, local);
	rc = pl_iov_slice(rfull, rx->u.cma.iov_cnt, 0, n, remote);
	/* large enough to share with the sender (shm_xfer_split.c) */
	if (shm_xfer_split_start(rx, local, lc, n, cap))
		return 1;
	if (n)
		got = shm_cma_read(rx->u.cma.pid, local, lc, remote, rc);
	if (got == -FI_EPERM || got == -FI_ENOSYS) {
		memcpy(rx->iov, iov, cnt * sizeof(*iov));
		rx->iov_count = cnt;
		rx->cap = cap;
		shm_xfer_rx_cma_refused(rx);
		return 1;
	}
	if (got > 0)
		/* this sender may be read: its next large messages may be
		 * split (a refusal there would come late, see
		 * shm_xfer_split.c) */
		((struct shm_rpeer *)rx->rpeer)->cma_read_ok = true;
	status = got < 0 ? (int)got : (rx->size > cap ? -FI_ETRUNC : 0);
	*len_p = got < 0 ? 0 : (uint64_t)got;
	/* an RMA write's events before the initiator learns of it */
	if (rx->flags & SHM_XF_RMA_WRITE)
		shm_xfer_rx_done_cb(rx->ep, rx, status, *len_p);
	/* the sender's status: its buffer was read, or the copy failed */
	shm_xfer_ack(rx->ep, rx->rpeer, rx->xfer_id, got < 0 ? (int)got : 0,
		     0, 0);
	return status;
}

int shm_xfer_rx_deliver(struct shm_xfer_rx *rx, const struct iovec *iov,
			size_t iov_count, uint64_t *len_p)
{
	struct shm_xfer_ep *ep = rx->ep;
	uint64_t cap, n, len = 0;
	int ret;

	if (iov_count > SHM_XFER_IOV_MAX || (iov_count && !iov)) {
		shm_xfer_rx_discard(rx);
		return -FI_EINVAL;
	}
	cap = pl_iov_total(iov, iov_count);
	switch (rx->proto) {
	case SHM_PROTO_INLINE:
		n = rx->size < cap ? rx->size : cap;
		len = pl_iov_from_buf(iov, iov_count, 0, rx->data, n);
		ret = rx->size > cap ? -FI_ETRUNC : 0;
		/* an RMA write's events before the initiator learns of it */
		if (rx->flags & SHM_XF_RMA_WRITE)
			shm_xfer_rx_done_cb(ep, rx, ret, len);
		if (rx->cmd_flags & SHM_CF_ACK)
			shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, 0, 0, 0);
		break;
	case SHM_PROTO_CMA:
		ret = shm_xfer_rx_deliver_cma(rx, iov, iov_count, cap, &len);
		if (ret == 1)
			return 1;	/* continues by SAR */
		break;
	case SHM_PROTO_SAR:
		ret = shm_xfer_rpeer_map(ep, rx->rpeer);
		if (!ret && !shm_xfer_sar_valid(rx))
			ret = -FI_EIO;
		if (ret) {
			shm_xfer_rx_free(rx);
			return ret;
		}
		memcpy(rx->iov, iov, iov_count * sizeof(*iov));
		rx->iov_count = iov_count;
		rx->cap = cap;
		rx->nchunks = (rx->size + ((struct shm_rpeer *)rx->rpeer)->
			       region->geo.sar_buf_size - 1) /
			      ((struct shm_rpeer *)rx->rpeer)->region->geo.
			      sar_buf_size;
		rx->next = ep->sar_rx;
		ep->sar_rx = rx;
		/* the chunks already waiting signal nobody again: a progress
		 * source asleep since they came must drain them */
		shm_xfer_ep_self_poke(ep);
		return 1;
	default:
		ret = -FI_EINVAL;
		break;
	}
	*len_p = len;
	shm_xfer_rx_free(rx);
	return ret;
}

void shm_xfer_rx_discard(struct shm_xfer_rx *rx)
{
	struct shm_xfer_ep *ep = rx->ep;

	switch (rx->proto) {
	case SHM_PROTO_SAR:
		if (shm_xfer_rpeer_map(ep, rx->rpeer) ||
		    !shm_xfer_sar_valid(rx)) {
			shm_xfer_rx_free(rx);
			return;
		}
		/* nchunks 0: finish without an rx_done callback */
		rx->nchunks = 0;
		shm_xfer_sar_rx_finish(rx, -FI_ECANCELED);
		return;
	default:
		if (rx->cmd_flags & SHM_CF_ACK)
			shm_xfer_ack(ep, rx->rpeer, rx->xfer_id, 0, 0, 0);
		shm_xfer_rx_free(rx);
		return;
	}
}
