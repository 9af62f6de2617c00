/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The element loops behind rdm_atomic_apply (private to rdm/): one for
 * the integers, one for the floating types. Each takes the operation, the
 * datatype, the element count and the four unaligned buffers of
 * rdm_atomic_apply, and runs under its lock.
 */
#ifndef PROPEL_RDM_ATOMIC_OPS_H
#define PROPEL_RDM_ATOMIC_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/fi_domain.h>

/* FI_INT8 .. FI_UINT64 */
void rdm_atomic_apply_integer(enum fi_op op, enum fi_datatype dt, size_t n,
			      uint8_t *dst, const uint8_t *opnd,
			      const uint8_t *cmp, uint8_t *res);

/* FI_FLOAT, FI_DOUBLE, FI_LONG_DOUBLE and their complex types */
void rdm_atomic_apply_float(enum fi_op op, enum fi_datatype dt, size_t n,
			    uint8_t *dst, const uint8_t *opnd,
			    const uint8_t *cmp, uint8_t *res);

#endif /* PROPEL_RDM_ATOMIC_OPS_H */
