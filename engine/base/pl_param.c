/* SPDX-License-Identifier: BSD-2-Clause */
/* Placeholder until the parameter work of [F2] lands. */
#include <stdlib.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "pl_compiler.h"

PL_EXPORT int fi_param_define(const struct fi_provider *provider,
			      const char *param_name, enum fi_param_type type,
			      const char *help_string_fmt, ...)
{
	return -FI_ENOSYS;
}

PL_EXPORT int fi_param_get(struct fi_provider *provider,
			   const char *param_name, void *value)
{
	return -FI_ENOENT;
}

PL_EXPORT int fi_getparams(struct fi_param **params, int *count)
{
	if (!params || !count)
		return -FI_EINVAL;
	*params = NULL;
	*count = 0;
	return 0;
}

PL_EXPORT void fi_freeparams(struct fi_param *params)
{
	free(params);
}
