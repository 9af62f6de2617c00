/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The initiator side of fi_rma and fi_atomic on the shm endpoint: one
 * submission path (shm_ep_rma.c) for writes, reads and atomics. Private
 * to shm_ep_rma.c and shm_ep_atomic.c. Called WITHOUT the endpoint lock.
 */
#ifndef PROPEL_SHM_EP_RMA_H
#define PROPEL_SHM_EP_RMA_H

#include "shm_ep.h"

enum shm_ep_rma_kind {
	SHM_EP_RMA_WRITE,
	SHM_EP_RMA_READ,
	SHM_EP_RMA_ATOMIC,
};

struct shm_ep_rma_req {
	enum shm_ep_rma_kind	kind;
	const struct iovec	*iov;	/* write: source; read/atomic: result */
	size_t			count;
	fi_addr_t		dest;
	uint64_t		addr, key;	/* target address and MR key */
	uint64_t		data;		/* FI_REMOTE_CQ_DATA */
	void			*context;
	uint64_t		flags;		/* operation flags, |
						 * RDM_EP_F_NOCOMP for inject */
	uint64_t		cq_flags;	/* FI_RMA|FI_WRITE ... */
	size_t			len;		/* completion's len */
	const void		*amo;		/* atomic request */
	size_t			amo_len;
};

ssize_t shm_ep_rma_submit(struct shm_ep *ep, const struct shm_ep_rma_req *r);
/* The same with the endpoint lock held (no -FI_EINVAL argument check). */
ssize_t shm_ep_rma_submit_locked(struct shm_ep *ep,
				 const struct shm_ep_rma_req *r);

/* Remote buffers one fi_readmsg / fi_writemsg may name (rma_iov_limit). */
#define SHM_EP_RMA_IOV_MAX	4

/* fi_readmsg / fi_writemsg with 2..SHM_EP_RMA_IOV_MAX remote buffers
 * (checked by the caller): one segment per remote buffer, one
 * completion for the whole (shm_ep_rma_multi.c). */
ssize_t shm_ep_rma_multi(struct fid_ep *e, enum shm_ep_rma_kind kind,
			 const struct fi_msg_rma *msg, uint64_t flags);

#endif /* PROPEL_SHM_EP_RMA_H */
