/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomic operations of the shm provider (fi_atomic(3)): which (op,
 * datatype) pairs it does, the request an initiator sends, and the
 * target-side application.
 *
 * Strategy: the TARGET applies every atomic, in its progress, under one
 * process-wide mutex (shm_atomic_apply). Requests from any number of
 * processes, through any endpoint of the target process, on the same
 * words are therefore applied one at a time, each as a whole (all count
 * elements), and a fetch returns the values its own update replaced.
 * Hardware atomics on memory mapped in both processes are not used: the
 * application's memory is private to the target (FI_MR_VIRT_ADDR over
 * ordinary heap), and this keeps long double and complex types, and the
 * key/range/access check, on one path.
 *
 * Thread-safe (shm_atomic_apply serializes itself; the rest is pure).
 */
#ifndef PROPEL_SHM_ATOMIC_H
#define PROPEL_SHM_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "shm_layout.h"

/* The request an initiator sends (struct shm_atomic_req, its kinds and
 * SHM_ATOMIC_MAX_BYTES) crosses processes: shm_layout.h. */

/* Bytes of one element of datatype, 0 for an unknown or unsupported one
 * (FI_INT128/FI_UINT128: not done). */
size_t shm_atomic_dt_size(enum fi_datatype dt);

/* fi_query_atomic's answer: 0 with *count_p (max elements) and *size_p,
 * -FI_EOPNOTSUPP for a pair this kind does not do, -FI_EINVAL for an
 * out-of-range op or datatype. */
int shm_atomic_query(enum fi_datatype dt, enum fi_op op,
		     enum shm_atomic_kind kind, size_t *count_p,
		     size_t *size_p);

/* FI_REMOTE_READ / FI_REMOTE_WRITE the operation needs at the target. */
uint64_t shm_atomic_access(enum fi_op op, enum shm_atomic_kind kind);

/* Apply req (validated by shm_atomic_query and against the target's
 * registration: dst holds count elements) to dst; the old values go to
 * result (count elements) when result is not NULL. */
void shm_atomic_apply(const struct shm_atomic_req *req, void *dst,
		      void *result);

#endif /* PROPEL_SHM_ATOMIC_H */
