/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA writes, reads and atomics arriving at a shm endpoint (the target
 * side; xfer ops rma_msg / rma_done, under the endpoint lock from the
 * progress source).
 *
 * Security (DESIGN.md section 7): every request is checked against the
 * domain's key map (rdm_rma_check: the key exists and is enabled, the
 * whole range lies in the registration, the registration grants
 * FI_REMOTE_WRITE / FI_REMOTE_READ) BEFORE any byte of our memory is read
 * or written, on every path (inline, bounce buffers, process_vm_readv by
 * us, process_vm_writev by us). A refused request changes nothing here;
 * its initiator completes in error with:
 *   -FI_EKEYREJECTED  unknown key (never registered, or its MR closed:
 *                     fi_close removes the key from the map at once), or
 *                     a key not yet enabled (FI_MR_ENDPOINT / RMA_EVENT)
 *   -FI_EACCES        a known key, but the range leaves the registration
 *                     or the access was not granted
 *   -FI_EOPNOTSUPP    an atomic (op, datatype) we do not do
 *   -FI_EINVAL        a malformed atomic request
 *
 * Remote events (FI_RMA_EVENT), each made before the initiator can
 * learn that its operation completed (its completion implies them, as
 * ofi_rxm's target over tcp does): a placed write increments the
 * FI_REMOTE_WRITE counter, a served read the FI_REMOTE_READ counter, an
 * atomic the one of its access (ATOMIC_READ: read, others: write); a
 * write with remote CQ data writes FI_RMA | FI_REMOTE_WRITE |
 * FI_REMOTE_CQ_DATA to the receive CQ (len = bytes written, data).
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "rdm_rma.h"
#include "shm_atomic.h"
#include "shm_ep.h"

static void shm_ep_rma_write_in(struct shm_ep *ep, struct shm_xfer_rx *rx)
{
	uint64_t size = rx->size, len = 0;
	struct iovec iov;
	void *dst;
	int ret;

	ret = rdm_rma_check(&ep->rdm, &ep->dom->keymap, rx->key, rx->tag,
			    size, FI_REMOTE_WRITE, &dst);
	if (ret) {
		shm_xfer_rma_rx_fail(rx, ret);
		return;
	}
	iov.iov_base = dst;
	iov.iov_len = (size_t)size;
	/* rx is freed (0, error) or kept until it finishes (1); either
	 * way its events come through rma_done, before the initiator is
	 * told (shm_xfer.h) */
	(void)shm_xfer_rx_deliver(rx, &iov, 1, &len);
}

static void shm_ep_rma_read_in(struct shm_ep *ep, struct shm_xfer_rx *rx)
{
	uint64_t key = rx->key;	/* rx may be freed by the reply */
	void *src;
	int ret;

	ret = rdm_rma_check(&ep->rdm, &ep->dom->keymap, rx->key, rx->tag,
			    rx->size, FI_REMOTE_READ, &src);
	if (ret) {
		shm_xfer_rma_rx_reply(rx, NULL, 0, ret, false);
		return;
	}
	/* counted before the initiator can learn of it (the reply may
	 * complete it at once) */
	rdm_rma_event(&ep->rdm, &ep->dom->keymap, key, FI_REMOTE_READ, false,
		      0, 0);
	shm_xfer_rma_rx_reply(rx, src, rx->size, 0, false);
}

static void shm_ep_atomic_in(struct shm_ep *ep, struct shm_xfer_rx *rx)
{
	uint8_t result[SHM_ATOMIC_MAX_BYTES];
	size_t res_len;
	int ret;

	ret = rdm_rma_atomic(&ep->rdm, &ep->dom->keymap, rx->key, rx->tag,
			     rx->data, (size_t)rx->size, SHM_ATOMIC_MAX_BYTES,
			     result, &res_len);
	if (ret || !res_len)
		shm_xfer_rma_rx_reply(rx, NULL, 0, ret, false);
	else
		shm_xfer_rma_rx_reply(rx, result, res_len, 0, true);
}

void shm_ep_rma_msg(struct shm_xfer_ep *xep, struct shm_xfer_rx *rx)
{
	struct shm_ep *ep = shm_xfer_ep_user(xep);

	if (rx->flags & SHM_XF_RMA_WRITE)
		shm_ep_rma_write_in(ep, rx);
	else if (rx->flags & SHM_XF_RMA_READ)
		shm_ep_rma_read_in(ep, rx);
	else
		shm_ep_atomic_in(ep, rx);
}

void shm_ep_rma_done(struct shm_xfer_ep *xep, struct shm_xfer_rx *rx,
		     int status, uint64_t len)
{
	struct shm_ep *ep = shm_xfer_ep_user(xep);

	if (status || !(rx->flags & SHM_XF_RMA_WRITE))
		return;	/* the initiator learns a failure; nothing here */
	rdm_rma_event(&ep->rdm, &ep->dom->keymap, rx->key, FI_REMOTE_WRITE,
		      rx->flags & SHM_XF_CQ_DATA, rx->cq_data, len);
}
