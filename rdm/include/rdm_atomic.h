/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Software atomics (fi_atomic(3)) for an RDM provider whose target
 * applies remote atomics itself, in its progress: which (op, datatype)
 * pairs exist, the access they need, and their application to memory.
 * Semantics per fi_atomic(3), for element i with old = target[i], buf =
 * the operand and cmp = the compare value:
 *   MIN/MAX       target = buf if buf < old (MIN) / buf > old (MAX)
 *   SUM/PROD      target = old + buf / old * buf (integers wrap)
 *   LOR/LAND/LXOR target = old || buf, &&, logical xor
 *   BOR/BAND/BXOR target = old | buf, &, ^
 *   ATOMIC_READ   unchanged; ATOMIC_WRITE target = buf
 *   CSWAP[_NE/_LE/_LT/_GE/_GT] target = buf if cmp ==, !=, <=, <, >=, >
 *                 old
 *   MSWAP         target = (buf & cmp) | (old & ~cmp)
 * Bit operations and MSWAP are for integers only; ordered comparisons
 * (MIN, MAX, CSWAP_LE..GT) are not for complex types; 128-bit integers
 * are not done.
 *
 * Thread safety: rdm_atomic_apply serializes every application in the
 * process on one mutex, whichever endpoint or provider received the
 * request, so requests on the same words from any number of initiators
 * are applied one at a time, each as a whole, and a fetch returns the
 * values its own update replaced. The rest is pure.
 */
#ifndef PROPEL_RDM_ATOMIC_H
#define PROPEL_RDM_ATOMIC_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

/* Which call: the set of operations each takes differs (fi_atomic(3)). */
enum rdm_atomic_kind {
	RDM_ATOMIC_WRITE = 0,	/* fi_atomic: no result */
	RDM_ATOMIC_FETCH = 1,	/* fi_fetch_atomic */
	RDM_ATOMIC_COMPARE = 2,	/* fi_compare_atomic */
};

/* Bytes of one element of dt; 0 for an unknown or unsupported one. */
size_t rdm_atomic_dt_size(enum fi_datatype dt);

/*
 * fi_query_atomic's answer for a provider that carries at most max_bytes
 * of operands per request: 0 with *count_p (max elements) and *size_p
 * (either may be NULL), -FI_EOPNOTSUPP for a pair this kind does not do,
 * -FI_EINVAL for an out-of-range op, datatype or kind.
 */
int rdm_atomic_query(enum fi_datatype dt, enum fi_op op,
		     enum rdm_atomic_kind kind, size_t max_bytes,
		     size_t *count_p, size_t *size_p);

/* FI_REMOTE_READ / FI_REMOTE_WRITE the operation needs at the target. */
uint64_t rdm_atomic_access(enum fi_op op, enum rdm_atomic_kind kind);

/*
 * Apply op to count elements of dt at target (validated before: the pair
 * by rdm_atomic_query, the memory against a registration), with
 * `operand` (count elements) and, for the compare kind, `compare` (count
 * elements, else NULL); the old values go to `result` (count elements)
 * when it is not NULL. No alignment is assumed of any of the four.
 */
void rdm_atomic_apply(enum fi_op op, enum fi_datatype dt, size_t count,
		      void *target, const void *operand, const void *compare,
		      void *result);

#endif /* PROPEL_RDM_ATOMIC_H */
