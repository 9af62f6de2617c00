/* SPDX-License-Identifier: BSD-2-Clause */
/* Software atomics: the (op, datatype) table and the serialized
 * application (rdm_atomic.h). */
#include <complex.h>
#include <pthread.h>
#include <stdbool.h>

#include <rdma/fi_errno.h>

#include "rdm_atomic.h"
#include "rdm_atomic_ops.h"

static const size_t rdm_atomic_sizes[FI_DATATYPE_LAST] = {
	[FI_INT8] = 1, [FI_UINT8] = 1, [FI_INT16] = 2, [FI_UINT16] = 2,
	[FI_INT32] = 4, [FI_UINT32] = 4, [FI_INT64] = 8, [FI_UINT64] = 8,
	[FI_FLOAT] = sizeof(float), [FI_DOUBLE] = sizeof(double),
	[FI_FLOAT_COMPLEX] = sizeof(float complex),
	[FI_DOUBLE_COMPLEX] = sizeof(double complex),
	[FI_LONG_DOUBLE] = sizeof(long double),
	[FI_LONG_DOUBLE_COMPLEX] = sizeof(long double complex),
};

size_t rdm_atomic_dt_size(enum fi_datatype dt)
{
	if ((unsigned)dt >= FI_DATATYPE_LAST)
		return 0;
	return rdm_atomic_sizes[dt];
}

static bool rdm_atomic_is_int(enum fi_datatype dt)
{
	return dt <= FI_UINT64;
}

static bool rdm_atomic_is_complex(enum fi_datatype dt)
{
	return dt == FI_FLOAT_COMPLEX || dt == FI_DOUBLE_COMPLEX ||
	       dt == FI_LONG_DOUBLE_COMPLEX;
}

/* Which operations each kind of call takes (fi_atomic(3)). */
static int rdm_atomic_kind_takes(enum rdm_atomic_kind kind, enum fi_op op)
{
	switch (kind) {
	case RDM_ATOMIC_WRITE:
		return op <= FI_BXOR || op == FI_ATOMIC_WRITE;
	case RDM_ATOMIC_FETCH:
		return op <= FI_ATOMIC_WRITE;
	case RDM_ATOMIC_COMPARE:
		return op >= FI_CSWAP && op <= FI_MSWAP;
	default:
		return -FI_EINVAL;
	}
}

/* Which operations each datatype takes. */
static bool rdm_atomic_type_takes(enum fi_datatype dt, enum fi_op op)
{
	switch (op) {
	case FI_BOR: case FI_BAND: case FI_BXOR: case FI_MSWAP:
		return rdm_atomic_is_int(dt);
	case FI_MIN: case FI_MAX: case FI_CSWAP_LE: case FI_CSWAP_LT:
	case FI_CSWAP_GE: case FI_CSWAP_GT:
		return !rdm_atomic_is_complex(dt);
	default:
		return true;
	}
}

int rdm_atomic_query(enum fi_datatype dt, enum fi_op op,
		     enum rdm_atomic_kind kind, size_t max_bytes,
		     size_t *count_p, size_t *size_p)
{
	size_t size;
	int takes;

	if ((unsigned)op >= FI_ATOMIC_OP_LAST)
		return -FI_EINVAL;
	if ((unsigned)dt >= FI_DATATYPE_LAST)
		/* 128-bit integers are real datatypes we do not do */
		return dt == FI_INT128 || dt == FI_UINT128 ? -FI_EOPNOTSUPP :
							    -FI_EINVAL;
	size = rdm_atomic_dt_size(dt);
	takes = rdm_atomic_kind_takes(kind, op);
	if (takes < 0)
		return takes;
	if (!takes || !rdm_atomic_type_takes(dt, op))
		return -FI_EOPNOTSUPP;
	if (count_p)
		*count_p = max_bytes / size;
	if (size_p)
		*size_p = size;
	return 0;
}

uint64_t rdm_atomic_access(enum fi_op op, enum rdm_atomic_kind kind)
{
	if (op == FI_ATOMIC_READ)
		return FI_REMOTE_READ;
	return kind == RDM_ATOMIC_WRITE ? FI_REMOTE_WRITE :
					  FI_REMOTE_READ | FI_REMOTE_WRITE;
}

/* Serializes every atomic this process applies (rdm_atomic.h). */
static pthread_mutex_t rdm_atomic_lock = PTHREAD_MUTEX_INITIALIZER;

void rdm_atomic_apply(enum fi_op op, enum fi_datatype dt, size_t count,
		      void *target, const void *operand, const void *compare,
		      void *result)
{
	if ((unsigned)dt >= FI_DATATYPE_LAST)
		return;
	pthread_mutex_lock(&rdm_atomic_lock);
	if (rdm_atomic_is_int(dt))
		rdm_atomic_apply_integer(op, dt, count, target, operand,
					 compare, result);
	else
		rdm_atomic_apply_float(op, dt, count, target, operand,
				       compare, result);
	pthread_mutex_unlock(&rdm_atomic_lock);
}
