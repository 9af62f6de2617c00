/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * iovec arithmetic every transport needs: the length of a vector, a byte
 * range of it as another vector, and copies between a vector and a flat
 * buffer. Plain functions over caller memory: no locks, no atomics; any
 * thread, as long as the caller owns the vectors and buffers it passes.
 */
#ifndef PROPEL_PL_IOV_H
#define PROPEL_PL_IOV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

/* Sum of the lengths of iov[cnt]. */
uint64_t pl_iov_total(const struct iovec *iov, size_t cnt);

/*
 * The bytes [off, off + len) of iov[cnt] as iovecs in out, empty pieces
 * left out (so at most cnt of them); returns their count, 0 when the range
 * is empty or lies past the end. A range that runs past the end is cut
 * there.
 */
size_t pl_iov_slice(const struct iovec *iov, size_t cnt, uint64_t off,
		    uint64_t len, struct iovec *out);

/*
 * Copy up to len bytes out of iov[cnt] into buf, from the cursor
 * (iov[*cur], byte *off of it), which moves past what was copied; returns
 * the bytes copied (less than len when the vector ends first).
 */
uint64_t pl_iov_to_buf(const struct iovec *iov, size_t cnt, size_t *cur,
		       size_t *off, void *buf, uint64_t len);

/* pl_iov_from_buf for any vector and offset. */
uint64_t pl_iov_from_buf_walk(const struct iovec *iov, size_t cnt,
			      uint64_t at, const void *buf, uint64_t len);

/*
 * Copy len bytes of buf into iov[cnt] from byte `at` of it, as far as
 * they fit; returns the bytes copied. Inline for one buffer from its
 * start, nearly every receive: the walk's frame costs more than the copy
 * of a small message.
 */
static inline uint64_t pl_iov_from_buf(const struct iovec *iov, size_t cnt,
				       uint64_t at, const void *buf,
				       uint64_t len)
{
	uint64_t n;

	if (cnt != 1 || at)
		return pl_iov_from_buf_walk(iov, cnt, at, buf, len);
	n = len < iov[0].iov_len ? len : iov[0].iov_len;
	if (n)
		memcpy(iov[0].iov_base, buf, n);
	return n;
}

#endif /* PROPEL_PL_IOV_H */
