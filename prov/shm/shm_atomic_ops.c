/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The (op, datatype) table of the shm provider's atomics and their
 * application at the target (shm_atomic.h). Semantics per fi_atomic(3):
 * for element i, with old = target[i], buf = the operand and cmp = the
 * compare value:
 *   MIN/MAX      target = buf if buf < old (MIN) / buf > old (MAX)
 *   SUM/PROD     target = old + buf / old * buf (integers wrap)
 *   LOR/LAND/LXOR target = old || buf, && , logical xor
 *   BOR/BAND/BXOR target = old | buf, &, ^
 *   ATOMIC_READ  unchanged; ATOMIC_WRITE target = buf
 *   CSWAP[_NE/_LE/_LT/_GE/_GT] target = buf if cmp ==, !=, <=, <, >=, >
 *                old
 *   MSWAP        target = (buf & cmp) | (old & ~cmp)
 * Bit operations and MSWAP are for integers only; ordered comparisons
 * (MIN, MAX, CSWAP_LE..GT) are not for complex types.
 */
#include <complex.h>
#include <pthread.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "shm_atomic.h"

static const size_t shm_atomic_sizes[FI_DATATYPE_LAST] = {
	[FI_INT8] = 1, [FI_UINT8] = 1, [FI_INT16] = 2, [FI_UINT16] = 2,
	[FI_INT32] = 4, [FI_UINT32] = 4, [FI_INT64] = 8, [FI_UINT64] = 8,
	[FI_FLOAT] = sizeof(float), [FI_DOUBLE] = sizeof(double),
	[FI_FLOAT_COMPLEX] = sizeof(float complex),
	[FI_DOUBLE_COMPLEX] = sizeof(double complex),
	[FI_LONG_DOUBLE] = sizeof(long double),
	[FI_LONG_DOUBLE_COMPLEX] = sizeof(long double complex),
};

size_t shm_atomic_dt_size(enum fi_datatype dt)
{
	if ((unsigned)dt >= FI_DATATYPE_LAST)
		return 0;
	return shm_atomic_sizes[dt];
}

static bool shm_atomic_is_int(enum fi_datatype dt)
{
	return dt <= FI_UINT64;
}

static bool shm_atomic_is_complex(enum fi_datatype dt)
{
	return dt == FI_FLOAT_COMPLEX || dt == FI_DOUBLE_COMPLEX ||
	       dt == FI_LONG_DOUBLE_COMPLEX;
}

int shm_atomic_query(enum fi_datatype dt, enum fi_op op,
		     enum shm_atomic_kind kind, size_t *count_p,
		     size_t *size_p)
{
	size_t size;
	bool ok;

	if ((unsigned)op >= FI_ATOMIC_OP_LAST)
		return -FI_EINVAL;
	if ((unsigned)dt >= FI_DATATYPE_LAST)
		/* 128-bit integers are real datatypes we do not do */
		return dt == FI_INT128 || dt == FI_UINT128 ? -FI_EOPNOTSUPP :
							    -FI_EINVAL;
	size = shm_atomic_dt_size(dt);
	/* which operations each kind of call takes (fi_atomic(3)) */
	switch (kind) {
	case SHM_ATOMIC_WRITE:
		ok = op <= FI_BXOR || op == FI_ATOMIC_WRITE;
		break;
	case SHM_ATOMIC_FETCH:
		ok = op <= FI_ATOMIC_WRITE;
		break;
	case SHM_ATOMIC_COMPARE:
		ok = op >= FI_CSWAP && op <= FI_MSWAP;
		break;
	default:
		return -FI_EINVAL;
	}
	if (!ok)
		return -FI_EOPNOTSUPP;
	/* which operations each datatype takes */
	switch (op) {
	case FI_BOR: case FI_BAND: case FI_BXOR: case FI_MSWAP:
		ok = shm_atomic_is_int(dt);
		break;
	case FI_MIN: case FI_MAX: case FI_CSWAP_LE: case FI_CSWAP_LT:
	case FI_CSWAP_GE: case FI_CSWAP_GT:
		ok = !shm_atomic_is_complex(dt);
		break;
	default:
		ok = true;
		break;
	}
	if (!ok)
		return -FI_EOPNOTSUPP;
	if (count_p)
		*count_p = SHM_ATOMIC_MAX_BYTES / size;
	if (size_p)
		*size_p = size;
	return 0;
}

uint64_t shm_atomic_access(enum fi_op op, enum shm_atomic_kind kind)
{
	if (op == FI_ATOMIC_READ)
		return FI_REMOTE_READ;
	return kind == SHM_ATOMIC_WRITE ? FI_REMOTE_WRITE :
					  FI_REMOTE_READ | FI_REMOTE_WRITE;
}

/*
 * One loop per datatype: element by element through memcpy (neither the
 * target address nor the request's operands need be aligned for T), the
 * old value to the result, the new one stored only when it changes
 * (ATOMIC_READ and a failed compare leave the target untouched).
 * `nv` is the new value, `w` whether to store it.
 */
#define SHM_AMO_LOOP(T, SWITCH)						\
	do {								\
		for (i = 0; i < n; i++) {				\
			T d, o, c = 0, nv;				\
			bool w = true;					\
			memcpy(&d, dst + i * sizeof(T), sizeof(T));	\
			memcpy(&o, opnd + i * sizeof(T), sizeof(T));	\
			if (cmp)					\
				memcpy(&c, cmp + i * sizeof(T),		\
				       sizeof(T));			\
			nv = d;						\
			SWITCH						\
			if (res)					\
				memcpy(res + i * sizeof(T), &d,		\
				       sizeof(T));			\
			if (w)						\
				memcpy(dst + i * sizeof(T), &nv,	\
				       sizeof(T));			\
		}							\
	} while (0)

/* Operations every datatype has. */
#define SHM_AMO_COMMON(T)						\
	case FI_LOR: nv = (T)((d != 0) || (o != 0)); break;		\
	case FI_LAND: nv = (T)((d != 0) && (o != 0)); break;		\
	case FI_LXOR: nv = (T)((d != 0) != (o != 0)); break;		\
	case FI_ATOMIC_READ: w = false; break;				\
	case FI_ATOMIC_WRITE: nv = o; break;				\
	case FI_CSWAP: if (c == d) nv = o; else w = false; break;	\
	case FI_CSWAP_NE: if (c != d) nv = o; else w = false; break;

/* Ordered comparisons (not for complex types). */
#define SHM_AMO_ORDERED							\
	case FI_MIN: nv = o < d ? o : d; break;				\
	case FI_MAX: nv = o > d ? o : d; break;				\
	case FI_CSWAP_LE: if (c <= d) nv = o; else w = false; break;	\
	case FI_CSWAP_LT: if (c < d) nv = o; else w = false; break;	\
	case FI_CSWAP_GE: if (c >= d) nv = o; else w = false; break;	\
	case FI_CSWAP_GT: if (c > d) nv = o; else w = false; break;

/* Integers: arithmetic in uint64_t so that signed overflow wraps. */
#define SHM_AMO_INT(T)							\
	SHM_AMO_LOOP(T, switch (op) {					\
	SHM_AMO_COMMON(T)						\
	SHM_AMO_ORDERED							\
	case FI_SUM: nv = (T)((uint64_t)d + (uint64_t)o); break;	\
	case FI_PROD: nv = (T)((uint64_t)d * (uint64_t)o); break;	\
	case FI_BOR: nv = (T)(d | o); break;				\
	case FI_BAND: nv = (T)(d & o); break;				\
	case FI_BXOR: nv = (T)(d ^ o); break;				\
	case FI_MSWAP: nv = (T)((o & c) | (d & ~c)); break;		\
	default: w = false; break;					\
	})

#define SHM_AMO_REAL(T)							\
	SHM_AMO_LOOP(T, switch (op) {					\
	SHM_AMO_COMMON(T)						\
	SHM_AMO_ORDERED							\
	case FI_SUM: nv = d + o; break;					\
	case FI_PROD: nv = d * o; break;				\
	default: w = false; break;					\
	})

#define SHM_AMO_CPLX(T)							\
	SHM_AMO_LOOP(T, switch (op) {					\
	SHM_AMO_COMMON(T)						\
	case FI_SUM: nv = d + o; break;					\
	case FI_PROD: nv = d * o; break;				\
	default: w = false; break;					\
	})

/* Serializes every atomic this process applies, whichever endpoint
 * received it (see shm_atomic.h, Strategy). */
static pthread_mutex_t shm_atomic_lock = PTHREAD_MUTEX_INITIALIZER;

void shm_atomic_apply(const struct shm_atomic_req *req, void *target,
		      void *result)
{
	size_t n = req->count, i, sz = shm_atomic_dt_size(req->datatype);
	uint8_t *dst = target, *res = result;
	const uint8_t *opnd = req->data;
	const uint8_t *cmp = req->kind == SHM_ATOMIC_COMPARE ?
			     req->data + n * sz : NULL;
	enum fi_op op = req->op;

	pthread_mutex_lock(&shm_atomic_lock);
	switch (req->datatype) {
	case FI_INT8: SHM_AMO_INT(int8_t); break;
	case FI_UINT8: SHM_AMO_INT(uint8_t); break;
	case FI_INT16: SHM_AMO_INT(int16_t); break;
	case FI_UINT16: SHM_AMO_INT(uint16_t); break;
	case FI_INT32: SHM_AMO_INT(int32_t); break;
	case FI_UINT32: SHM_AMO_INT(uint32_t); break;
	case FI_INT64: SHM_AMO_INT(int64_t); break;
	case FI_UINT64: SHM_AMO_INT(uint64_t); break;
	case FI_FLOAT: SHM_AMO_REAL(float); break;
	case FI_DOUBLE: SHM_AMO_REAL(double); break;
	case FI_LONG_DOUBLE: SHM_AMO_REAL(long double); break;
	case FI_FLOAT_COMPLEX: SHM_AMO_CPLX(float complex); break;
	case FI_DOUBLE_COMPLEX: SHM_AMO_CPLX(double complex); break;
	case FI_LONG_DOUBLE_COMPLEX: SHM_AMO_CPLX(long double complex); break;
	default: break;
	}
	pthread_mutex_unlock(&shm_atomic_lock);
}
