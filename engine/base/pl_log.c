/* SPDX-License-Identifier: BSD-2-Clause */
/* Placeholder until the logging work of [F2] lands. */
#include <stdarg.h>
#include <stdio.h>

#include "pl_compiler.h"
#include "pl_log.h"

struct fi_provider pl_core_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.name = "core",
};

PL_EXPORT int fi_log_enabled(const struct fi_provider *prov,
			     enum fi_log_level level,
			     enum fi_log_subsys subsys)
{
	return level <= FI_LOG_WARN;
}

PL_EXPORT int fi_log_ready(const struct fi_provider *prov,
			   enum fi_log_level level, enum fi_log_subsys subsys,
			   uint64_t *showtime)
{
	return fi_log_enabled(prov, level, subsys);
}

PL_EXPORT void fi_log(const struct fi_provider *prov, enum fi_log_level level,
		      enum fi_log_subsys subsys, const char *func, int line,
		      const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "libfabric:%s:%s():%d ", prov ? prov->name : "core",
		func, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
