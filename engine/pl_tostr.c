/* SPDX-License-Identifier: BSD-2-Clause */
/* Placeholder until the fi_tostr work of [F2] lands. */
#include <string.h>
#include <rdma/fabric.h>

#include "pl_compiler.h"

PL_EXPORT char *fi_tostr_r(char *buf, size_t len, const void *data,
			   enum fi_type datatype)
{
	if (!buf || !len)
		return NULL;
	buf[0] = '\0';
	return buf;
}

PL_EXPORT char *fi_tostr(const void *data, enum fi_type datatype)
{
	static __thread char buf[8192];

	return fi_tostr_r(buf, sizeof(buf), data, datatype);
}
