/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal logging: the engine's own messages go through the same
 * fi_log()/fi_log_enabled() pair that providers use, under the "core"
 * provider identity.
 */
#ifndef PROPEL_PL_LOG_H
#define PROPEL_PL_LOG_H

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>
#include <rdma/providers/fi_log.h>

/* The identity the engine logs and defines its parameters under. */
extern struct fi_provider pl_core_prov;

#define PL_LOG(prov, level, subsys, ...)                                     \
	do {                                                                 \
		if (fi_log_enabled((prov), (level), (subsys)))               \
			fi_log((prov), (level), (subsys), __func__, __LINE__, \
			       __VA_ARGS__);                                 \
	} while (0)

#define PL_WARN(subsys, ...) PL_LOG(&pl_core_prov, FI_LOG_WARN, subsys, __VA_ARGS__)
#define PL_INFO(subsys, ...) PL_LOG(&pl_core_prov, FI_LOG_INFO, subsys, __VA_ARGS__)
#define PL_DBG(subsys, ...)  PL_LOG(&pl_core_prov, FI_LOG_DEBUG, subsys, __VA_ARGS__)

#endif /* PROPEL_PL_LOG_H */
