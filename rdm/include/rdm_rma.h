/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA and atomics on the RDM endpoint core: the application's fi_rma(3)
 * and fi_atomic(3) calls (rdm_ep_rma.c, rdm_ep_rma_multi.c,
 * rdm_ep_atomic.c) turned into requests for the transport's rma op
 * (rdm_transport.h), and the checks every target makes before a byte of
 * its memory moves (rdm_rma_target.c).
 *
 * Initiator. Each request names ONE remote buffer; fi_readmsg /
 * fi_writemsg naming up to RDM_RMA_IOV_MAX buffers become one request per
 * buffer and complete once. A request completes when the target answered
 * (a write placed, a read's bytes or a fetch's old values in our
 * buffers), or in error with the target's refusal. Completion flags:
 * FI_RMA | FI_WRITE / FI_READ, FI_ATOMIC | FI_WRITE (fi_atomic) or
 * FI_ATOMIC | FI_READ (fetch, compare); the read / write counters.
 *
 * Atomic request (struct rdm_atomic_req, host order): the operation, its
 * kind (rdm_atomic.h), count elements of operands, then for the compare
 * kind count compare values. A transport carries it as it is (shm: same
 * machine) or as bytes after its own header (rxm: the peer has the same
 * data representation, as fi_atomic(3) assumes of one job).
 *
 * Target. rdm_rma_check: the key exists and is enabled, the range lies in
 * the registration and the access was granted (pl_keymap_check), BEFORE
 * any byte is read or written. A refusal:
 *   -FI_EKEYREJECTED  unknown key, or a key not yet enabled
 *   -FI_EACCES        a known key, but outside its range or access
 *   -FI_EOPNOTSUPP    an atomic (op, datatype) nobody does
 *   -FI_EINVAL        a malformed atomic request
 * rdm_rma_event: FI_REMOTE_WRITE / FI_REMOTE_READ counters (the
 * endpoint's and one bound to the MR) and, for a write with remote CQ
 * data, FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA on the receive CQ.
 *
 * Everything here but the pure helpers runs under the endpoint lock
 * (rdm_ep.h); the front-end calls take it themselves.
 */
#ifndef PROPEL_RDM_RMA_H
#define PROPEL_RDM_RMA_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include "pl_keymap.h"
#include "rdm_atomic.h"
#include "rdm_ep.h"

/* Remote buffers one fi_readmsg / fi_writemsg may name (rma_iov_limit). */
#define RDM_RMA_IOV_MAX		4

/* Most local iovecs of one RMA request (rdm_ep_attr.rma_iov_local). */
#define RDM_RMA_LOCAL_IOV_MAX	8

/* Most operand bytes of one atomic request a transport may ask for
 * (rdm_ep_attr.atomic_max_bytes): the request is built on the stack. */
#define RDM_ATOMIC_MAX_BYTES	2048
/* Result buffers of one fetching atomic. */
#define RDM_ATOMIC_IOV_MAX	8

/* Internal operation flag: one request of a multi-buffer RMA (its
 * completion goes to the parent, rdm_ep_rma_multi.c). */
#define RDM_EP_F_SUBOP		RDM_EP_F_PROV

struct rdm_atomic_req {
	uint8_t op;		/* enum fi_op */
	uint8_t datatype;	/* enum fi_datatype */
	uint8_t kind;		/* enum rdm_atomic_kind */
	uint8_t zero;
	uint32_t count;		/* elements */
	uint8_t data[];		/* operands, then compare values */
};
static_assert(sizeof(struct rdm_atomic_req) == 8, "rdm_atomic_req: 8 B");

/* ---- target side (rdm_rma_target.c; under the lock) ---- */

/* The registration a request names: key, [addr, addr + len), the access
 * need (FI_REMOTE_READ / FI_REMOTE_WRITE); addr is absolute with
 * FI_MR_VIRT_ADDR in the domain's mode, else an offset. 0 with *ptr_p
 * the first byte, or the refusal (above). */
int rdm_rma_check(struct rdm_ep *ep, struct pl_keymap *map, uint64_t key,
		  uint64_t addr, uint64_t len, uint64_t need, void **ptr_p);

/* The target's events of a request that succeeded (above). */
void rdm_rma_event(struct rdm_ep *ep, struct pl_keymap *map, uint64_t key,
		   uint64_t access, bool cq_data, uint64_t data, uint64_t len);

/*
 * Validate the atomic request req (len bytes, from a peer: checked
 * against its own count and our max_bytes), check its target range and
 * apply it; the old values go to result (max_bytes) and their byte count
 * to *res_len_p (0 for the write kind). The events are written. 0 or a
 * refusal (above).
 */
int rdm_rma_atomic(struct rdm_ep *ep, struct pl_keymap *map, uint64_t key,
		   uint64_t addr, const void *req, size_t len,
		   size_t max_bytes, void *result, size_t *res_len_p);

/* fi_query_atomic for a transport carrying max_bytes of operands. */
int rdm_rma_query_atomic(size_t max_bytes, enum fi_datatype dt, enum fi_op op,
			 struct fi_atomic_attr *attr, uint64_t flags);

/* ---- initiator side ---- */

extern const struct fi_ops_rma rdm_ep_rma_ops;
extern const struct fi_ops_atomic rdm_ep_atomic_ops;

/* One request for the transport (rdm_ep_rma.c). */
struct rdm_ep_rma_req {
	enum rdm_rma_kind	kind;
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
	const struct rdm_atomic_req *amo;	/* atomic request */
	size_t			amo_len;
};

/* Submit r under the lock (taken here). */
ssize_t rdm_ep_rma_submit(struct rdm_ep *ep, const struct rdm_ep_rma_req *r);
/* The same with the lock held. */
ssize_t rdm_ep_rma_submit_locked(struct rdm_ep *ep,
				 const struct rdm_ep_rma_req *r);
/* fi_readmsg / fi_writemsg with 2..RDM_RMA_IOV_MAX remote buffers. */
ssize_t rdm_ep_rma_multi(struct rdm_ep *ep, enum rdm_rma_kind kind,
			 const struct fi_msg_rma *msg, uint64_t flags);
/* A request of a multi-buffer RMA completed (under the lock). */
void rdm_ep_rma_sub_done(struct rdm_ep *ep, void *parent, int status);

#endif /* PROPEL_RDM_RMA_H */
