/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomic operations of the shm provider (fi_atomic(3)): which (op,
 * datatype) pairs it does, the request an initiator sends, and the
 * target-side application.
 *
 * Strategy: the TARGET applies every atomic, in its progress, under one
 * process-wide mutex (rdm_atomic_apply, rdm_atomic.h). Requests from any
 * number of processes, through any endpoint of the target process, on the same
 * words are therefore applied one at a time, each as a whole (all count
 * elements), and a fetch returns the values its own update replaced.
 * Hardware atomics on memory mapped in both processes are not used: the
 * application's memory is private to the target (FI_MR_VIRT_ADDR over
 * ordinary heap), and this keeps long double and complex types, and the
 * key/range/access check, on one path.
 *
 * Thread-safe (rdm_atomic_apply serializes itself; the rest is pure).
 * The functions below are shm's names for rdm's, over shm's request.
 */
#ifndef PROPEL_SHM_ATOMIC_H
#define PROPEL_SHM_ATOMIC_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "rdm_atomic.h"
#include "shm_layout.h"

/* The request an initiator sends (struct shm_atomic_req, its kinds and
 * SHM_ATOMIC_MAX_BYTES) crosses processes: shm_layout.h. */

/* The wire's kinds are rdm's (shm_layout.h carries them as bytes). */
static_assert(SHM_ATOMIC_WRITE == (int)RDM_ATOMIC_WRITE &&
	      SHM_ATOMIC_FETCH == (int)RDM_ATOMIC_FETCH &&
	      SHM_ATOMIC_COMPARE == (int)RDM_ATOMIC_COMPARE,
	      "shm atomic kinds are rdm's");

/* Bytes of one element of datatype, 0 for an unknown or unsupported one
 * (FI_INT128/FI_UINT128: not done). */
static inline size_t shm_atomic_dt_size(enum fi_datatype dt)
{
	return rdm_atomic_dt_size(dt);
}

/* fi_query_atomic's answer: 0 with *count_p (max elements, within
 * SHM_ATOMIC_MAX_BYTES) and *size_p, -FI_EOPNOTSUPP for a pair this kind
 * does not do, -FI_EINVAL for an out-of-range op or datatype. */
static inline int shm_atomic_query(enum fi_datatype dt, enum fi_op op,
				   enum shm_atomic_kind kind, size_t *count_p,
				   size_t *size_p)
{
	return rdm_atomic_query(dt, op, (enum rdm_atomic_kind)kind,
				SHM_ATOMIC_MAX_BYTES, count_p, size_p);
}

/* FI_REMOTE_READ / FI_REMOTE_WRITE the operation needs at the target. */
static inline uint64_t shm_atomic_access(enum fi_op op,
					 enum shm_atomic_kind kind)
{
	return rdm_atomic_access(op, (enum rdm_atomic_kind)kind);
}

/* Apply req (validated by shm_atomic_query and against the target's
 * registration: dst holds count elements) to dst; the old values go to
 * result (count elements) when result is not NULL. */
static inline void shm_atomic_apply(const struct shm_atomic_req *req,
				    void *dst, void *result)
{
	size_t sz = rdm_atomic_dt_size((enum fi_datatype)req->datatype);

	rdm_atomic_apply((enum fi_op)req->op, (enum fi_datatype)req->datatype,
			 req->count, dst, req->data,
			 req->kind == SHM_ATOMIC_COMPARE ?
				req->data + (size_t)req->count * sz : NULL,
			 result);
}

#endif /* PROPEL_SHM_ATOMIC_H */
