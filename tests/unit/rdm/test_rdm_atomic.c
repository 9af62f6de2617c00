/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdm_atomic: the (op, datatype) table, and each family of operations on
 * integers (signed and unsigned, wrap-around), reals and complex values,
 * through unaligned buffers, several elements at a time, with the old
 * values returned. Expected values are written out by hand.
 */
#include <complex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "rdm_atomic.h"

static void test_query_table(void **state)
{
	size_t count = 0, size = 0;

	assert_int_equal(rdm_atomic_query(FI_INT32, FI_SUM, RDM_ATOMIC_WRITE,
					  64, &count, &size), 0);
	assert_int_equal(count, 16);
	assert_int_equal(size, 4);
	assert_int_equal(rdm_atomic_query(FI_LONG_DOUBLE_COMPLEX, FI_PROD,
					  RDM_ATOMIC_FETCH, 64, &count, &size),
			 0);
	assert_int_equal(size, sizeof(long double complex));
	assert_int_equal(count, 64 / sizeof(long double complex));
	/* bit operations are for integers, ordered ones not for complex */
	assert_int_equal(rdm_atomic_query(FI_DOUBLE, FI_BOR, RDM_ATOMIC_WRITE,
					  64, NULL, NULL), -FI_EOPNOTSUPP);
	assert_int_equal(rdm_atomic_query(FI_FLOAT_COMPLEX, FI_MIN,
					  RDM_ATOMIC_WRITE, 64, NULL, NULL),
			 -FI_EOPNOTSUPP);
	/* each kind its operations */
	assert_int_equal(rdm_atomic_query(FI_INT8, FI_CSWAP, RDM_ATOMIC_WRITE,
					  64, NULL, NULL), -FI_EOPNOTSUPP);
	assert_int_equal(rdm_atomic_query(FI_INT8, FI_SUM, RDM_ATOMIC_COMPARE,
					  64, NULL, NULL), -FI_EOPNOTSUPP);
	assert_int_equal(rdm_atomic_query(FI_INT8, FI_ATOMIC_READ,
					  RDM_ATOMIC_WRITE, 64, NULL, NULL),
			 -FI_EOPNOTSUPP);
	assert_int_equal(rdm_atomic_query(FI_INT8, FI_ATOMIC_READ,
					  RDM_ATOMIC_FETCH, 64, NULL, NULL), 0);
	/* 128-bit integers exist but are not done; nonsense is EINVAL */
	assert_int_equal(rdm_atomic_query(FI_INT128, FI_SUM, RDM_ATOMIC_WRITE,
					  64, NULL, NULL), -FI_EOPNOTSUPP);
	assert_int_equal(rdm_atomic_query(FI_INT8, FI_ATOMIC_OP_LAST,
					  RDM_ATOMIC_WRITE, 64, NULL, NULL),
			 -FI_EINVAL);
	assert_int_equal(rdm_atomic_query(FI_INT8, FI_SUM, 7, 64, NULL, NULL),
			 -FI_EINVAL);
	assert_int_equal(rdm_atomic_access(FI_ATOMIC_READ, RDM_ATOMIC_FETCH),
			 FI_REMOTE_READ);
	assert_int_equal(rdm_atomic_access(FI_SUM, RDM_ATOMIC_WRITE),
			 FI_REMOTE_WRITE);
	assert_int_equal(rdm_atomic_access(FI_CSWAP, RDM_ATOMIC_COMPARE),
			 FI_REMOTE_READ | FI_REMOTE_WRITE);
}

/* Apply to one element held at an odd address, return the new value;
 * *old_p gets the value returned as the result. */
#define RDM_TEST_ONE(T, dt, op, init, opnd, cmpv, old_p)		\
	({								\
		uint8_t buf[4 * sizeof(T) + 1], res[sizeof(T) + 1];	\
		T _v = (init), _o = (opnd), _c = (cmpv), _r;		\
		memcpy(buf + 1, &_v, sizeof(T));			\
		memcpy(buf + 1 + sizeof(T), &_o, sizeof(T));		\
		memcpy(buf + 1 + 2 * sizeof(T), &_c, sizeof(T));	\
		rdm_atomic_apply(op, dt, 1, buf + 1, buf + 1 + sizeof(T),\
				 buf + 1 + 2 * sizeof(T), res + 1);	\
		memcpy(old_p, res + 1, sizeof(T));			\
		memcpy(&_r, buf + 1, sizeof(T));			\
		_r;							\
	})

static void test_integers(void **state)
{
	int8_t o8;
	uint8_t u8;
	int16_t o16;
	uint32_t u32;
	int64_t o64;
	uint64_t u64;

	/* wrap-around, no signed overflow */
	assert_int_equal(RDM_TEST_ONE(int8_t, FI_INT8, FI_SUM, 127, 1, 0, &o8),
			 -128);
	assert_int_equal(o8, 127);
	assert_int_equal(RDM_TEST_ONE(uint8_t, FI_UINT8, FI_PROD, 16, 17, 0,
				      &u8), (uint8_t)(16 * 17));
	assert_int_equal(RDM_TEST_ONE(int64_t, FI_INT64, FI_PROD, INT64_MAX,
				      2, 0, &o64), -2);
	/* signedness of comparisons */
	assert_int_equal(RDM_TEST_ONE(int16_t, FI_INT16, FI_MIN, 3, -5, 0,
				      &o16), -5);
	assert_int_equal(RDM_TEST_ONE(uint32_t, FI_UINT32, FI_MAX, 1,
				      0xffffffffu, 0, &u32), 0xffffffffu);
	assert_int_equal(RDM_TEST_ONE(int16_t, FI_INT16, FI_CSWAP_LT, 3, 9, -1,
				      &o16), 9);
	assert_int_equal(RDM_TEST_ONE(uint32_t, FI_UINT32, FI_CSWAP_LT, 3, 9,
				      0xffffffffu, &u32), 3);
	/* compares that fail leave the target; the result is the old value */
	assert_int_equal(RDM_TEST_ONE(int64_t, FI_INT64, FI_CSWAP, 5, 6, 4,
				      &o64), 5);
	assert_int_equal(o64, 5);
	assert_int_equal(RDM_TEST_ONE(int64_t, FI_INT64, FI_CSWAP_NE, 5, 6, 4,
				      &o64), 6);
	assert_int_equal(RDM_TEST_ONE(uint64_t, FI_UINT64, FI_CSWAP_GE, 5, 6,
				      5, &u64), 6);
	assert_int_equal(RDM_TEST_ONE(uint64_t, FI_UINT64, FI_CSWAP_GT, 5, 6,
				      5, &u64), 5);
	assert_int_equal(RDM_TEST_ONE(uint64_t, FI_UINT64, FI_CSWAP_LE, 5, 6,
				      5, &u64), 6);
	/* bits, logic, masked swap, read, write */
	assert_int_equal(RDM_TEST_ONE(uint8_t, FI_UINT8, FI_BOR, 0x0f, 0xf0, 0,
				      &u8), 0xff);
	assert_int_equal(RDM_TEST_ONE(uint8_t, FI_UINT8, FI_BAND, 0x3c, 0xf0,
				      0, &u8), 0x30);
	assert_int_equal(RDM_TEST_ONE(uint8_t, FI_UINT8, FI_BXOR, 0x3c, 0xff,
				      0, &u8), 0xc3);
	assert_int_equal(RDM_TEST_ONE(uint8_t, FI_UINT8, FI_MSWAP, 0xaa, 0x55,
				      0x0f, &u8), 0xa5);
	assert_int_equal(RDM_TEST_ONE(int8_t, FI_INT8, FI_LOR, 0, -3, 0, &o8),
			 1);
	assert_int_equal(RDM_TEST_ONE(int8_t, FI_INT8, FI_LAND, 2, 0, 0, &o8),
			 0);
	assert_int_equal(RDM_TEST_ONE(int8_t, FI_INT8, FI_LXOR, 2, 7, 0, &o8),
			 0);
	assert_int_equal(RDM_TEST_ONE(int16_t, FI_INT16, FI_ATOMIC_READ, -7,
				      1, 0, &o16), -7);
	assert_int_equal(o16, -7);
	assert_int_equal(RDM_TEST_ONE(int16_t, FI_INT16, FI_ATOMIC_WRITE, -7,
				      1, 0, &o16), 1);
}

static void test_reals(void **state)
{
	float of;
	double od;
	long double ol;

	assert_true(RDM_TEST_ONE(double, FI_DOUBLE, FI_SUM, 1.5, 2.25, 0,
				 &od) == 3.75);
	assert_true(od == 1.5);
	assert_true(RDM_TEST_ONE(float, FI_FLOAT, FI_PROD, 1.5f, -4.0f, 0,
				 &of) == -6.0f);
	assert_true(RDM_TEST_ONE(long double, FI_LONG_DOUBLE, FI_MIN, 2.0L,
				 -1.0L, 0, &ol) == -1.0L);
	assert_true(RDM_TEST_ONE(long double, FI_LONG_DOUBLE, FI_MAX, 2.0L,
				 -1.0L, 0, &ol) == 2.0L);
	assert_true(RDM_TEST_ONE(double, FI_DOUBLE, FI_CSWAP_GE, 2.0, 8.0,
				 2.0, &od) == 8.0);
	assert_true(RDM_TEST_ONE(double, FI_DOUBLE, FI_CSWAP_GT, 2.0, 8.0,
				 2.0, &od) == 2.0);
	assert_true(RDM_TEST_ONE(float, FI_FLOAT, FI_LAND, 0.5f, 3.0f, 0,
				 &of) == 1.0f);
	assert_true(RDM_TEST_ONE(float, FI_FLOAT, FI_LXOR, 0.5f, 3.0f, 0,
				 &of) == 0.0f);
	/* a product of two doubles rounds once, in double */
	assert_true(RDM_TEST_ONE(double, FI_DOUBLE, FI_PROD, 1.0 + 0x1p-30,
				 1.0 + 0x1p-30, 0, &od) ==
		    (1.0 + 0x1p-30) * (1.0 + 0x1p-30));
}

static void test_complex(void **state)
{
	double complex od;
	float complex of;
	long double complex ol;

	assert_true(RDM_TEST_ONE(double complex, FI_DOUBLE_COMPLEX, FI_SUM,
				 1.0 + 2.0 * I, 3.0 - 1.0 * I, 0, &od) ==
		    4.0 + 1.0 * I);
	assert_true(od == 1.0 + 2.0 * I);
	assert_true(RDM_TEST_ONE(float complex, FI_FLOAT_COMPLEX, FI_PROD,
				 1.0f * I, 1.0f * I, 0, &of) == -1.0f);
	assert_true(RDM_TEST_ONE(long double complex, FI_LONG_DOUBLE_COMPLEX,
				 FI_CSWAP, 1.0L + 1.0L * I, 5.0L,
				 1.0L + 1.0L * I, &ol) == 5.0L);
	assert_true(RDM_TEST_ONE(long double complex, FI_LONG_DOUBLE_COMPLEX,
				 FI_CSWAP, 1.0L + 1.0L * I, 5.0L, 1.0L, &ol) ==
		    1.0L + 1.0L * I);
	/* only the imaginary part is nonzero: still true */
	assert_true(RDM_TEST_ONE(double complex, FI_DOUBLE_COMPLEX, FI_LAND,
				 1.0 * I, 2.0, 0, &od) == 1.0);
}

static void test_many_elements_and_results(void **state)
{
	int32_t dst[5] = { 1, 2, 3, 4, 5 }, add[5] = { 10, 20, 30, 40, 50 };
	int32_t res[5];

	rdm_atomic_apply(FI_SUM, FI_INT32, 5, dst, add, NULL, res);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(res[i], i + 1);
		assert_int_equal(dst[i], (i + 1) * 11);
	}
	/* no result buffer: the write-only kind */
	rdm_atomic_apply(FI_ATOMIC_WRITE, FI_INT32, 2, dst, add, NULL, NULL);
	assert_int_equal(dst[0], 10);
	assert_int_equal(dst[1], 20);
	assert_int_equal(dst[2], 33);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_table),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_reals),
		cmocka_unit_test(test_complex),
		cmocka_unit_test(test_many_elements_and_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
