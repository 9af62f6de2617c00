/* SPDX-License-Identifier: BSD-2-Clause */
/* iovec arithmetic (pl_iov.h). */
#include "pl_iov.h"

uint64_t pl_iov_total(const struct iovec *iov, size_t cnt)
{
	uint64_t n = 0;

	for (size_t i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}

size_t pl_iov_slice(const struct iovec *iov, size_t cnt, uint64_t off,
		    uint64_t len, struct iovec *out)
{
	size_t i, k = 0;

	if (cnt == 1 && !off) {
		/* one buffer from its start: nearly every receive */
		out[0].iov_base = iov[0].iov_base;
		out[0].iov_len = len < iov[0].iov_len ? (size_t)len :
							iov[0].iov_len;
		return out[0].iov_len ? 1 : 0;
	}
	for (i = 0; i < cnt && off >= iov[i].iov_len; i++)
		off -= iov[i].iov_len;
	for (; i < cnt && len; i++, off = 0) {
		size_t n = iov[i].iov_len - (size_t)off;

		if (n > len)
			n = (size_t)len;
		out[k].iov_base = (char *)iov[i].iov_base + off;
		out[k].iov_len = n;
		if (n)
			k++;
		len -= n;
	}
	return k;
}

uint64_t pl_iov_to_buf(const struct iovec *iov, size_t cnt, size_t *cur,
		       size_t *off, void *buf, uint64_t len)
{
	uint64_t done = 0;

	while (done < len && *cur < cnt) {
		size_t avail = iov[*cur].iov_len - *off;
		size_t k = avail < len - done ? avail : (size_t)(len - done);

		memcpy((char *)buf + done, (char *)iov[*cur].iov_base + *off, k);
		done += k;
		*off += k;
		if (*off == iov[*cur].iov_len) {
			(*cur)++;
			*off = 0;
		}
	}
	return done;
}

uint64_t pl_iov_from_buf_walk(const struct iovec *iov, size_t cnt,
			      uint64_t at, const void *buf, uint64_t len)
{
	uint64_t done = 0;
	size_t i;

	for (i = 0; i < cnt && at >= iov[i].iov_len; i++)
		at -= iov[i].iov_len;
	for (; i < cnt && done < len; i++, at = 0) {
		size_t avail = iov[i].iov_len - (size_t)at;
		size_t k = avail < len - done ? avail : (size_t)(len - done);

		memcpy((char *)iov[i].iov_base + at, (const char *)buf + done, k);
		done += k;
	}
	return done;
}
