/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Integer atomics (rdm_atomic.h), one loop for the eight integer types.
 * Each element is widened to 64 bits (sign-extended for the signed
 * types), the operation runs on the wide values and the result is
 * narrowed back: sums, products and bit operations agree with the
 * narrow type's modulo-2^n arithmetic (no signed overflow is ever
 * evaluated), and comparisons of widened values order them as the
 * narrow type does. Elements move through memcpy: no buffer need be
 * aligned.
 */
#include <stdbool.h>
#include <string.h>

#include "rdm_atomic_ops.h"

static bool rdm_atomic_is_signed(enum fi_datatype dt)
{
	return dt == FI_INT8 || dt == FI_INT16 || dt == FI_INT32 ||
	       dt == FI_INT64;
}

static uint64_t rdm_atomic_int_load(const uint8_t *p, size_t size, bool sgn)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return sgn ? (uint64_t)(int64_t)(int8_t)v8 : v8;
	case 2:
		memcpy(&v16, p, 2);
		return sgn ? (uint64_t)(int64_t)(int16_t)v16 : v16;
	case 4:
		memcpy(&v32, p, 4);
		return sgn ? (uint64_t)(int64_t)(int32_t)v32 : v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

static void rdm_atomic_int_store(uint8_t *p, size_t size, uint64_t v)
{
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* -1, 0, 1 as a < b, a == b, a > b in the element's signedness. */
static int rdm_atomic_int_cmp(uint64_t a, uint64_t b, bool sgn)
{
	if (sgn)
		return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
	return a < b ? -1 : a > b;
}

/* The new value of one element in *nv_p; false leaves the element as it
 * is (ATOMIC_READ, a compare that fails, an operation not for integers). */
static bool rdm_atomic_int_op(enum fi_op op, bool sgn, uint64_t d,
			      uint64_t o, uint64_t c, uint64_t *nv_p)
{
	int cd = rdm_atomic_int_cmp(c, d, sgn);

	switch (op) {
	case FI_MIN:
		*nv_p = rdm_atomic_int_cmp(o, d, sgn) < 0 ? o : d;
		return true;
	case FI_MAX:
		*nv_p = rdm_atomic_int_cmp(o, d, sgn) > 0 ? o : d;
		return true;
	case FI_SUM:
		*nv_p = d + o;
		return true;
	case FI_PROD:
		*nv_p = d * o;
		return true;
	case FI_LOR:
		*nv_p = d != 0 || o != 0;
		return true;
	case FI_LAND:
		*nv_p = d != 0 && o != 0;
		return true;
	case FI_LXOR:
		*nv_p = (d != 0) != (o != 0);
		return true;
	case FI_BOR:
		*nv_p = d | o;
		return true;
	case FI_BAND:
		*nv_p = d & o;
		return true;
	case FI_BXOR:
		*nv_p = d ^ o;
		return true;
	case FI_ATOMIC_WRITE:
		*nv_p = o;
		return true;
	case FI_MSWAP:
		*nv_p = (o & c) | (d & ~c);
		return true;
	case FI_CSWAP:
		*nv_p = o;
		return cd == 0;
	case FI_CSWAP_NE:
		*nv_p = o;
		return cd != 0;
	case FI_CSWAP_LE:
		*nv_p = o;
		return cd <= 0;
	case FI_CSWAP_LT:
		*nv_p = o;
		return cd < 0;
	case FI_CSWAP_GE:
		*nv_p = o;
		return cd >= 0;
	case FI_CSWAP_GT:
		*nv_p = o;
		return cd > 0;
	default:	/* FI_ATOMIC_READ */
		return false;
	}
}

void rdm_atomic_apply_integer(enum fi_op op, enum fi_datatype dt, size_t n,
			      uint8_t *dst, const uint8_t *opnd,
			      const uint8_t *cmp, uint8_t *res)
{
	/* FI_INT8, FI_UINT8, FI_INT16 ... FI_UINT64 are 0 .. 7: a signed and
	 * an unsigned type per width */
	size_t size = (size_t)1 << ((dt - FI_INT8) / 2);
	bool sgn = rdm_atomic_is_signed(dt);

	for (size_t i = 0, at = 0; i < n; i++, at += size) {
		uint64_t d = rdm_atomic_int_load(dst + at, size, sgn);
		uint64_t o = rdm_atomic_int_load(opnd + at, size, sgn);
		uint64_t c = cmp ? rdm_atomic_int_load(cmp + at, size, sgn) : 0;
		uint64_t nv;

		if (res)
			rdm_atomic_int_store(res + at, size, d);
		if (rdm_atomic_int_op(op, sgn, d, o, c, &nv))
			rdm_atomic_int_store(dst + at, size, nv);
	}
}
