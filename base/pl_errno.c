/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_strerror: libfabric's own codes start at FI_ERRNO_OFFSET; below that
 * the values are errno numbers and libc describes them.
 */
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_compiler.h"

/* Indexed by code - FI_ERRNO_OFFSET; the texts are fi_errno(3)'s, so tools
 * that print or grep them see what they would see with the reference. */
static const char *const pl_fi_error_text[] = {
	[FI_EOTHER - FI_ERRNO_OFFSET] = "Unspecified error",
	[FI_ETOOSMALL - FI_ERRNO_OFFSET] = "Provided buffer is too small",
	[FI_EOPBADSTATE - FI_ERRNO_OFFSET] =
		"Operation not permitted in current state",
	[FI_EAVAIL - FI_ERRNO_OFFSET] = "Error available",
	[FI_EBADFLAGS - FI_ERRNO_OFFSET] = "Flags not supported",
	[FI_ENOEQ - FI_ERRNO_OFFSET] = "Missing or unavailable event queue",
	[FI_EDOMAIN - FI_ERRNO_OFFSET] = "Invalid resource domain",
	[FI_ENOCQ - FI_ERRNO_OFFSET] =
		"Missing or unavailable completion queue",
	[FI_ECRC - FI_ERRNO_OFFSET] = "CRC error",
	[FI_ETRUNC - FI_ERRNO_OFFSET] = "Truncation error",
	[FI_ENOKEY - FI_ERRNO_OFFSET] = "Required key not available",
	[FI_ENOAV - FI_ERRNO_OFFSET] = "Missing or unavailable address vector",
	[FI_EOVERRUN - FI_ERRNO_OFFSET] = "Queue has been overrun",
	[FI_ENORX - FI_ERRNO_OFFSET] =
		"Receiver not ready, no receive buffers available",
};

PL_EXPORT const char *fi_strerror(int errnum)
{
	unsigned int code = errnum < 0 ? -(unsigned int)errnum : (unsigned int)errnum;

	if (code < FI_ERRNO_OFFSET)
		return strerror((int)code);
	code -= FI_ERRNO_OFFSET;
	if (code < PL_ARRAY_SIZE(pl_fi_error_text) && pl_fi_error_text[code])
		return pl_fi_error_text[code];
	return pl_fi_error_text[0];
}
