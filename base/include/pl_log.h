/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal logging: the engine's own messages go through the same
 * fi_log()/fi_log_enabled() pair that providers use, under the "core"
 * provider identity.
 *
 * Configuration (read once, on the first log call, from the environment
 * or the tuning profile):
 *   FI_LOG_LEVEL     warn | trace | info | debug | none (default warn)
 *   FI_LOG_PROV      provider names, comma-separated; a leading ^ turns the
 *                    list into an exclusion list. The core is never
 *                    filtered out by it (as with the reference).
 *   FI_LOG_SUBSYS    subsystem names (core, fabric, domain, ep_ctrl,
 *                    ep_data, av, cq, eq, mr, cntr), same list syntax
 *   FI_LOG_INTERVAL  milliseconds between two messages of one
 *                    rate-limited call site (fi_log_ready)
 *
 * Any function here may be called from any thread, including from code
 * that runs while the logging configuration is being read: such messages
 * are held and shown once the configuration is known.
 */
#ifndef PROPEL_PL_LOG_H
#define PROPEL_PL_LOG_H

#include <errno.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>
#include <rdma/providers/fi_log.h>

/* The identity the engine logs and defines its parameters under. */
extern struct fi_provider pl_core_prov;

/* errno is kept across the call, as fi_log.h's macros do, so that a
 * message never clobbers the errno its caller is about to report. */
#define PL_LOG(prov, level, subsys, ...)                                     \
	do {                                                                 \
		if (fi_log_enabled((prov), (level), (subsys))) {             \
			int pl_log_errno_ = errno;                           \
			fi_log((prov), (level), (subsys), __func__, __LINE__, \
			       __VA_ARGS__);                                 \
			errno = pl_log_errno_;                               \
		}                                                            \
	} while (0)

#define PL_WARN(subsys, ...) PL_LOG(&pl_core_prov, FI_LOG_WARN, subsys, __VA_ARGS__)
#define PL_INFO(subsys, ...) PL_LOG(&pl_core_prov, FI_LOG_INFO, subsys, __VA_ARGS__)
#define PL_DBG(subsys, ...)  PL_LOG(&pl_core_prov, FI_LOG_DEBUG, subsys, __VA_ARGS__)

/*
 * fi_open(version, "logging", ...): a FI_CLASS_LOG fid whose bind op
 * (fi_import_fid) takes a caller's struct fid_logging. From then on every
 * fi_log_enabled/fi_log_ready/fi_log call of the process goes to the
 * caller's ops (fi_log formats the message first and passes the text).
 * Only one import is accepted: later ones get -FI_EALREADY. The imported
 * struct and its ops must outlive the library. Closing the returned fid
 * does not undo the import.
 * Errors: -FI_EINVAL (fid_p NULL), -FI_EBADFLAGS (flags), -FI_ENOMEM.
 */
int pl_log_open(uint32_t version, uint64_t flags, struct fid **fid_p,
		void *context);

#endif /* PROPEL_PL_LOG_H */
