/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Floating atomics (rdm_atomic.h): float, double, long double and their
 * complex types, one loop for the six. What an operation does apart from
 * arithmetic (which value to keep, compare outcomes, logical values) is
 * decided once, on values widened to long double complex; the widening
 * is exact for every one of the six types, so the decisions, and the
 * values they pick, are those of the element's own type. SUM and PROD
 * alone compute, and they do it in the element's own type (a wider
 * product would round twice). Elements move through memcpy: no buffer
 * need be aligned.
 */
#include <complex.h>
#include <stdbool.h>
#include <string.h>

#include "rdm_atomic_ops.h"

typedef long double complex rdm_wide;

/* What the operation makes of one element. */
enum rdm_atomic_pick {
	RDM_PICK_KEEP,		/* leave it (ATOMIC_READ, a failed compare) */
	RDM_PICK_OPERAND,	/* store the operand */
	RDM_PICK_OLD,		/* store the old value (MIN/MAX kept it) */
	RDM_PICK_FALSE,		/* store 0 (a logical operation) */
	RDM_PICK_TRUE,		/* store 1 */
	RDM_PICK_SUM,		/* old + operand, in the element's type */
	RDM_PICK_PROD,		/* old * operand, in the element's type */
};

static enum rdm_atomic_pick rdm_atomic_bool(bool v)
{
	return v ? RDM_PICK_TRUE : RDM_PICK_FALSE;
}

static enum rdm_atomic_pick rdm_atomic_if(bool v)
{
	return v ? RDM_PICK_OPERAND : RDM_PICK_KEEP;
}

/* The ordered comparisons, on the real parts (only real types get
 * here: rdm_atomic_query refuses them for complex ones). */
static enum rdm_atomic_pick rdm_atomic_ordered(enum fi_op op, long double d,
					       long double o, long double c)
{
	switch (op) {
	case FI_MIN:
		return o < d ? RDM_PICK_OPERAND : RDM_PICK_OLD;
	case FI_MAX:
		return o > d ? RDM_PICK_OPERAND : RDM_PICK_OLD;
	case FI_CSWAP_LE:
		return rdm_atomic_if(c <= d);
	case FI_CSWAP_LT:
		return rdm_atomic_if(c < d);
	case FI_CSWAP_GE:
		return rdm_atomic_if(c >= d);
	case FI_CSWAP_GT:
		return rdm_atomic_if(c > d);
	default:
		return RDM_PICK_KEEP;
	}
}

static enum rdm_atomic_pick rdm_atomic_pick(enum fi_op op, bool cplx,
					    rdm_wide d, rdm_wide o, rdm_wide c)
{
	switch (op) {
	case FI_SUM:
		return RDM_PICK_SUM;
	case FI_PROD:
		return RDM_PICK_PROD;
	case FI_LOR:
		return rdm_atomic_bool(d != 0 || o != 0);
	case FI_LAND:
		return rdm_atomic_bool(d != 0 && o != 0);
	case FI_LXOR:
		return rdm_atomic_bool((d != 0) != (o != 0));
	case FI_ATOMIC_WRITE:
		return RDM_PICK_OPERAND;
	case FI_CSWAP:
		return rdm_atomic_if(c == d);
	case FI_CSWAP_NE:
		return rdm_atomic_if(c != d);
	default:
		return cplx ? RDM_PICK_KEEP :
			      rdm_atomic_ordered(op, creall(d), creall(o),
						 creall(c));
	}
}

/* One element type: its size, widening, narrowing and arithmetic. The
 * functions below are the typed wrappers; the loop is one. */
struct rdm_atomic_ftype {
	size_t size;
	bool cplx;
	rdm_wide (*load)(const uint8_t *p);
	void (*store)(uint8_t *p, rdm_wide v);
	/* *nv = *d + *o or *d * *o, in the element's type */
	void (*sum)(uint8_t *nv, const uint8_t *d, const uint8_t *o);
	void (*prod)(uint8_t *nv, const uint8_t *d, const uint8_t *o);
};

#define RDM_ATOMIC_FTYPE(name, T, is_cplx)				\
static rdm_wide rdm_atomic_load_##name(const uint8_t *p)		\
{									\
	T v;								\
	memcpy(&v, p, sizeof(v));					\
	return v;							\
}									\
static void rdm_atomic_store_##name(uint8_t *p, rdm_wide v)		\
{									\
	T t = (T)v;							\
	memcpy(p, &t, sizeof(t));					\
}									\
static void rdm_atomic_sum_##name(uint8_t *nv, const uint8_t *d,	\
				  const uint8_t *o)			\
{									\
	T a, b, r;							\
	memcpy(&a, d, sizeof(a));					\
	memcpy(&b, o, sizeof(b));					\
	r = a + b;							\
	memcpy(nv, &r, sizeof(r));					\
}									\
static void rdm_atomic_prod_##name(uint8_t *nv, const uint8_t *d,	\
				   const uint8_t *o)			\
{									\
	T a, b, r;							\
	memcpy(&a, d, sizeof(a));					\
	memcpy(&b, o, sizeof(b));					\
	r = a * b;							\
	memcpy(nv, &r, sizeof(r));					\
}									\
static const struct rdm_atomic_ftype rdm_atomic_ftype_##name = {	\
	.size = sizeof(T), .cplx = is_cplx,				\
	.load = rdm_atomic_load_##name,					\
	.store = rdm_atomic_store_##name,				\
	.sum = rdm_atomic_sum_##name,					\
	.prod = rdm_atomic_prod_##name,					\
};

RDM_ATOMIC_FTYPE(float, float, false)
RDM_ATOMIC_FTYPE(double, double, false)
RDM_ATOMIC_FTYPE(ldouble, long double, false)
RDM_ATOMIC_FTYPE(fcomplex, float complex, true)
RDM_ATOMIC_FTYPE(dcomplex, double complex, true)
RDM_ATOMIC_FTYPE(ldcomplex, long double complex, true)

static const struct rdm_atomic_ftype *rdm_atomic_ftype_of(enum fi_datatype dt)
{
	switch (dt) {
	case FI_FLOAT:
		return &rdm_atomic_ftype_float;
	case FI_DOUBLE:
		return &rdm_atomic_ftype_double;
	case FI_LONG_DOUBLE:
		return &rdm_atomic_ftype_ldouble;
	case FI_FLOAT_COMPLEX:
		return &rdm_atomic_ftype_fcomplex;
	case FI_DOUBLE_COMPLEX:
		return &rdm_atomic_ftype_dcomplex;
	case FI_LONG_DOUBLE_COMPLEX:
		return &rdm_atomic_ftype_ldcomplex;
	default:
		return NULL;
	}
}

void rdm_atomic_apply_float(enum fi_op op, enum fi_datatype dt, size_t n,
			    uint8_t *dst, const uint8_t *opnd,
			    const uint8_t *cmp, uint8_t *res)
{
	const struct rdm_atomic_ftype *t = rdm_atomic_ftype_of(dt);
	uint8_t old[sizeof(long double complex)];

	if (!t)
		return;
	for (size_t i = 0, at = 0; i < n; i++, at += t->size) {
		rdm_wide d = t->load(dst + at), o = t->load(opnd + at);
		rdm_wide c = cmp ? t->load(cmp + at) : 0;
		enum rdm_atomic_pick pick = rdm_atomic_pick(op, t->cplx, d, o, c);

		/* the old bytes as they were: the result, and the left
		 * operand of SUM and PROD */
		memcpy(old, dst + at, t->size);
		if (res)
			memcpy(res + at, old, t->size);
		switch (pick) {
		case RDM_PICK_KEEP:
		case RDM_PICK_OLD:
			break;
		case RDM_PICK_OPERAND:
			memcpy(dst + at, opnd + at, t->size);
			break;
		case RDM_PICK_FALSE:
		case RDM_PICK_TRUE:
			t->store(dst + at, pick == RDM_PICK_TRUE);
			break;
		case RDM_PICK_SUM:
			t->sum(dst + at, old, opnd + at);
			break;
		case RDM_PICK_PROD:
			t->prod(dst + at, old, opnd + at);
			break;
		}
	}
}
