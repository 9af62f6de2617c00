/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Provider logging.  Providers normally go through the FI_WARN / FI_INFO
 * / FI_DBG ... macros rather than the functions, because the macros test
 * whether the message would be shown before evaluating its arguments.
 */
#ifndef PROPEL_RDMA_PROVIDERS_FI_LOG_H
#define PROPEL_RDMA_PROVIDERS_FI_LOG_H

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which part of the stack a message comes from (FI_LOG_SUBSYS filter). */
enum fi_log_subsys {
	FI_LOG_CORE,		/* 0 */
	FI_LOG_FABRIC,
	FI_LOG_DOMAIN,
	FI_LOG_EP_CTRL,
	FI_LOG_EP_DATA,
	FI_LOG_AV,
	FI_LOG_CQ,
	FI_LOG_EQ,
	FI_LOG_MR,
	FI_LOG_CNTR,
	FI_LOG_SUBSYS_MAX	/* count, not a subsystem */
};

/*
 * Severity, most to least important.  The numeric order matters: a
 * message is shown when its level is <= the configured FI_LOG_LEVEL.
 */
enum fi_log_level {
	FI_LOG_WARN,		/* 0 */
	FI_LOG_TRACE,
	FI_LOG_INFO,
	FI_LOG_DEBUG,
	FI_LOG_MAX		/* count, not a level */
};

/* Non-zero when a message of this level/subsystem would be emitted. */
int fi_log_enabled(const struct fi_provider *prov, enum fi_log_level level,
		   enum fi_log_subsys subsys);

/*
 * Rate-limited variant of fi_log_enabled(): *showtime is per-call-site
 * state holding the earliest time the next message may be printed.
 */
int fi_log_ready(const struct fi_provider *prov, enum fi_log_level level,
		 enum fi_log_subsys subsys, uint64_t *showtime);

void fi_log(const struct fi_provider *prov, enum fi_log_level level,
	    enum fi_log_subsys subsys, const char *func, int line,
	    const char *fmt, ...) FI_FORMAT_PRINTF(6, 7);

/*
 * Every emitting macro preserves errno across the fi_log() call so that
 * logging an error never clobbers the errno the caller is about to
 * inspect or return.
 */
#define FI_LOG(prov, level, subsystem, ...)				\
	do {								\
		if (fi_log_enabled(prov, level, subsystem)) {		\
			int saved_errno = errno;			\
			fi_log(prov, level, subsystem, __func__,	\
			       __LINE__, __VA_ARGS__);			\
			errno = saved_errno;				\
		}							\
	} while (0)

/* One 'showtime' per expansion site, so rate limiting is per call site. */
#define FI_LOG_SPARSE(prov, level, subsystem, ...)			\
	do {								\
		static uint64_t showtime;				\
		if (fi_log_ready(prov, level, subsystem, &showtime)) {	\
			int saved_errno = errno;			\
			fi_log(prov, level, subsystem, __func__,	\
			       __LINE__, __VA_ARGS__);			\
			errno = saved_errno;				\
		}							\
	} while (0)

#define FI_WARN(prov, subsystem, ...)					\
	FI_LOG(prov, FI_LOG_WARN, subsystem, __VA_ARGS__)
#define FI_WARN_SPARSE(prov, subsystem, ...)				\
	FI_LOG_SPARSE(prov, FI_LOG_WARN, subsystem, __VA_ARGS__)
#define FI_TRACE(prov, subsystem, ...)					\
	FI_LOG(prov, FI_LOG_TRACE, subsystem, __VA_ARGS__)
#define FI_INFO(prov, subsystem, ...)					\
	FI_LOG(prov, FI_LOG_INFO, subsystem, __VA_ARGS__)

/*
 * Debug-only messages compile to nothing (arguments are not evaluated)
 * unless the including code is built with ENABLE_DEBUG set non-zero.
 */
#if defined(ENABLE_DEBUG) && ENABLE_DEBUG
#define FI_DBG(prov, subsystem, ...)					\
	FI_LOG(prov, FI_LOG_DEBUG, subsystem, __VA_ARGS__)
#define FI_DBG_TRACE(prov, subsystem, ...)				\
	FI_LOG(prov, FI_LOG_TRACE, subsystem, __VA_ARGS__)
#else
#define FI_DBG(prov, subsystem, ...)		do { } while (0)
#define FI_DBG_TRACE(prov, subsystem, ...)	do { } while (0)
#endif

/*
 * Warn at most once per call site.  The site is only marked as done
 * once a message has actually been emitted, so a warning suppressed by
 * the log filter does not use up the single shot.
 */
#define FI_WARN_ONCE(prov, subsystem, ...)				\
	do {								\
		static int warned = 0;					\
		if (!warned &&						\
		    fi_log_enabled(prov, FI_LOG_WARN, subsystem)) {	\
			int saved_errno = errno;			\
			fi_log(prov, FI_LOG_WARN, subsystem, __func__,	\
			       __LINE__, __VA_ARGS__);			\
			warned = 1;					\
			errno = saved_errno;				\
		}							\
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* PROPEL_RDMA_PROVIDERS_FI_LOG_H */
