/* SPDX-License-Identifier: BSD-2-Clause */
#include <rdma/fabric.h>

#include "pl_compiler.h"

/* The API version this library implements: the reference's 1.17, whose
 * headers and struct layouts we match (DESIGN.md section 1). */
PL_EXPORT uint32_t fi_version(void)
{
	return FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);
}
