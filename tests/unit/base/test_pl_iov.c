/* SPDX-License-Identifier: BSD-2-Clause */
/* pl_iov: totals, slices (empty pieces left out, ranges cut at the end),
 * copies with a cursor and at an offset, checked byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pl_iov.h"

static char pl_test_a[5], pl_test_b[3], pl_test_c[7];

/* a 5-byte, an empty, a 3-byte and a 7-byte piece: 15 bytes */
static void pl_test_vec(struct iovec v[4])
{
	v[0] = (struct iovec){ pl_test_a, sizeof(pl_test_a) };
	v[1] = (struct iovec){ pl_test_c, 0 };
	v[2] = (struct iovec){ pl_test_b, sizeof(pl_test_b) };
	v[3] = (struct iovec){ pl_test_c, sizeof(pl_test_c) };
}

static void test_total_sums_the_lengths(void **state)
{
	struct iovec v[4];

	pl_test_vec(v);
	assert_int_equal(pl_iov_total(v, 4), 15);
	assert_int_equal(pl_iov_total(v, 0), 0);
}

static void test_slice_one_buffer_from_its_start(void **state)
{
	struct iovec v = { pl_test_a, sizeof(pl_test_a) }, out[1];

	assert_int_equal(pl_iov_slice(&v, 1, 0, 3, out), 1);
	assert_ptr_equal(out[0].iov_base, pl_test_a);
	assert_int_equal(out[0].iov_len, 3);
	/* cut at the end of the buffer */
	assert_int_equal(pl_iov_slice(&v, 1, 0, 99, out), 1);
	assert_int_equal(out[0].iov_len, 5);
	assert_int_equal(pl_iov_slice(&v, 1, 0, 0, out), 0);
}

static void test_slice_crosses_pieces_and_skips_empty_ones(void **state)
{
	struct iovec v[4], out[4];

	pl_test_vec(v);
	/* bytes 3..10: a[3..4], (empty left out), b[0..2], c[0..2] */
	assert_int_equal(pl_iov_slice(v, 4, 3, 8, out), 3);
	assert_ptr_equal(out[0].iov_base, pl_test_a + 3);
	assert_int_equal(out[0].iov_len, 2);
	assert_ptr_equal(out[1].iov_base, pl_test_b);
	assert_int_equal(out[1].iov_len, 3);
	assert_ptr_equal(out[2].iov_base, pl_test_c);
	assert_int_equal(out[2].iov_len, 3);
	/* from the start of the third piece exactly */
	assert_int_equal(pl_iov_slice(v, 4, 5, 3, out), 1);
	assert_ptr_equal(out[0].iov_base, pl_test_b);
	/* past the end, and running past it */
	assert_int_equal(pl_iov_slice(v, 4, 15, 1, out), 0);
	assert_int_equal(pl_iov_slice(v, 4, 12, 100, out), 1);
	assert_ptr_equal(out[0].iov_base, pl_test_c + 4);
	assert_int_equal(out[0].iov_len, 3);
}

static void test_to_buf_moves_the_cursor(void **state)
{
	struct iovec v[4];
	char flat[15];
	size_t cur = 0, off = 0;

	pl_test_vec(v);
	memcpy(pl_test_a, "abcde", 5);
	memcpy(pl_test_b, "fgh", 3);
	memcpy(pl_test_c, "ijklmno", 7);
	assert_int_equal(pl_iov_to_buf(v, 4, &cur, &off, flat, 4), 4);
	assert_int_equal(cur, 0);
	assert_int_equal(off, 4);
	assert_int_equal(pl_iov_to_buf(v, 4, &cur, &off, flat + 4, 3), 3);
	/* the empty piece was stepped over, not stopped at */
	assert_int_equal(cur, 2);
	assert_int_equal(off, 2);
	/* asks for more than is left: gets the rest */
	assert_int_equal(pl_iov_to_buf(v, 4, &cur, &off, flat + 7, 50), 8);
	assert_int_equal(cur, 4);
	assert_memory_equal(flat, "abcdefghijklmno", 15);
}

static void test_from_buf_at_an_offset(void **state)
{
	struct iovec v[4];

	pl_test_vec(v);
	memset(pl_test_a, '.', 5);
	memset(pl_test_b, '.', 3);
	memset(pl_test_c, '.', 7);
	/* bytes 4..9 of the vector */
	assert_int_equal(pl_iov_from_buf(v, 4, 4, "XYZUVW", 6), 6);
	assert_memory_equal(pl_test_a, "....X", 5);
	assert_memory_equal(pl_test_b, "YZU", 3);
	assert_memory_equal(pl_test_c, "VW.....", 7);
	/* as far as it fits */
	assert_int_equal(pl_iov_from_buf(v, 4, 13, "pqrs", 4), 2);
	assert_memory_equal(pl_test_c + 5, "pq", 2);
}

static void test_from_buf_one_buffer(void **state)
{
	char dst[4] = "....";
	struct iovec v = { dst, sizeof(dst) };

	assert_int_equal(pl_iov_from_buf(&v, 1, 0, "abcdef", 6), 4);
	assert_memory_equal(dst, "abcd", 4);
	assert_int_equal(pl_iov_from_buf(&v, 1, 0, "z", 1), 1);
	assert_memory_equal(dst, "zbcd", 4);
	/* the inline path and the walk agree */
	assert_int_equal(pl_iov_from_buf_walk(&v, 1, 0, "XY", 2), 2);
	assert_memory_equal(dst, "XYcd", 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_total_sums_the_lengths),
		cmocka_unit_test(test_slice_one_buffer_from_its_start),
		cmocka_unit_test(test_slice_crosses_pieces_and_skips_empty_ones),
		cmocka_unit_test(test_to_buf_moves_the_cursor),
		cmocka_unit_test(test_from_buf_at_an_offset),
		cmocka_unit_test(test_from_buf_one_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
