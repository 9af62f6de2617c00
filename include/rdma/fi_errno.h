/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * propel: error numbers returned (negated) by every fabric call.
 */
#ifndef PROPEL_RDMA_FI_ERRNO_H
#define PROPEL_RDMA_FI_ERRNO_H

/* Some applications test for the upstream guard name; keep it defined. */
#ifndef FI_ERRNO_H
#define FI_ERRNO_H
#endif

#include <errno.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FI_SUCCESS		0

/*
 * Errors shared with the operating system are spelled with the host's
 * errno macros, not numbers, so that a fabric error and errno compare
 * equal on any platform and fi_strerror() can defer to strerror().
 * Only this subset is part of the API.
 */
#define FI_EPERM		EPERM
#define FI_ENOENT		ENOENT
#define FI_EINTR		EINTR
#define FI_EIO			EIO
#define FI_E2BIG		E2BIG
#define FI_EBADF		EBADF
#define FI_EAGAIN		EAGAIN
#define FI_ENOMEM		ENOMEM
#define FI_EACCES		EACCES
#define FI_EFAULT		EFAULT
#define FI_EBUSY		EBUSY
#define FI_ENODEV		ENODEV
#define FI_EINVAL		EINVAL
#define FI_EMFILE		EMFILE
#define FI_ENOSPC		ENOSPC
#define FI_ENOSYS		ENOSYS
#define FI_EWOULDBLOCK		EWOULDBLOCK
#define FI_ENOMSG		ENOMSG
#define FI_ENODATA		ENODATA
#define FI_EOVERFLOW		EOVERFLOW
#define FI_EMSGSIZE		EMSGSIZE
#define FI_ENOPROTOOPT		ENOPROTOOPT
#define FI_EOPNOTSUPP		EOPNOTSUPP
#define FI_EADDRINUSE		EADDRINUSE
#define FI_EADDRNOTAVAIL	EADDRNOTAVAIL
#define FI_ENETDOWN		ENETDOWN
#define FI_ENETUNREACH		ENETUNREACH
#define FI_ECONNABORTED		ECONNABORTED
#define FI_ECONNRESET		ECONNRESET
#define FI_ENOBUFS		ENOBUFS
#define FI_EISCONN		EISCONN
#define FI_ENOTCONN		ENOTCONN
#define FI_ESHUTDOWN		ESHUTDOWN
#define FI_ETIMEDOUT		ETIMEDOUT
#define FI_ECONNREFUSED		ECONNREFUSED
#define FI_EHOSTDOWN		EHOSTDOWN
#define FI_EHOSTUNREACH		EHOSTUNREACH
#define FI_EALREADY		EALREADY
#define FI_EINPROGRESS		EINPROGRESS
#define FI_EREMOTEIO		EREMOTEIO
#define FI_ECANCELED		ECANCELED
#define FI_EKEYREJECTED		EKEYREJECTED

/*
 * Fabric-only conditions start well above any errno a host is likely to
 * use, so the two ranges never collide.
 */
#define FI_ERRNO_OFFSET		256

enum {
	FI_EOTHER	= FI_ERRNO_OFFSET,	/* no more specific code fits */
	FI_ETOOSMALL	= FI_ERRNO_OFFSET + 1,
	FI_EOPBADSTATE	= FI_ERRNO_OFFSET + 2,
	FI_EAVAIL	= FI_ERRNO_OFFSET + 3,	/* details via a readerr call */
	FI_EBADFLAGS	= FI_ERRNO_OFFSET + 4,
	FI_ENOEQ	= FI_ERRNO_OFFSET + 5,
	FI_EDOMAIN	= FI_ERRNO_OFFSET + 6,
	FI_ENOCQ	= FI_ERRNO_OFFSET + 7,
	FI_ECRC		= FI_ERRNO_OFFSET + 8,
	FI_ETRUNC	= FI_ERRNO_OFFSET + 9,
	FI_ENOKEY	= FI_ERRNO_OFFSET + 10,
	FI_ENOAV	= FI_ERRNO_OFFSET + 11,
	FI_EOVERRUN	= FI_ERRNO_OFFSET + 12,
	FI_ENORX	= FI_ERRNO_OFFSET + 13,
	FI_ERRNO_MAX	/* one past the last fabric-only code */
};

/* Accepts either sign; the text for an unknown value is never NULL. */
const char *fi_strerror(int errnum);

#ifdef __cplusplus
}
#endif

#endif /* PROPEL_RDMA_FI_ERRNO_H */
