/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_mrc: the memory registration cache (DESIGN.md section 6, docs/mr-cache.md).
 *
 * A provider whose registrations cost a system call (verbs) opens one cache
 * per domain and asks it for registrations instead of registering itself:
 *
 *	static int my_reg(void *ctx, struct pl_mrc_entry *e)
 *	{	struct ibv_mr **mr = pl_mrc_entry_data(e);
 *		*mr = ibv_reg_mr(pd, pl_mrc_entry_addr(e), pl_mrc_entry_len(e), ..);
 *		return *mr ? 0 : -FI_EFAULT; }
 *	static void my_dereg(void *ctx, struct pl_mrc_entry *e)
 *	{	ibv_dereg_mr(*(struct ibv_mr **)pl_mrc_entry_data(e)); }
 *
 *	attr = { .reg = my_reg, .dereg = my_dereg, .ctx = dom,
 *		 .data_size = sizeof(struct ibv_mr *), .name = "verbs",
 *		 .flags = PL_MRC_MERGE };
 *	pl_mrc_open(&attr, &cache);
 *	pl_mrc_get(cache, buf, len, FI_SEND | FI_RECV, &entry);  (a hit or a miss)
 *	... use pl_mrc_entry_data(entry) ...
 *	pl_mrc_put(cache, entry);   (the registration stays cached, unused)
 *
 * What the cache promises: an entry returned by pl_mrc_get covers
 * [addr, addr + len) with at least the access asked for, and was made on
 * the pages mapped there now: every unmap, madvise(DONTNEED/FREE/REMOVE),
 * mremap or brk shrink that returned before pl_mrc_get was called has been
 * applied (the monitor's invalidations are queued lock-free and drained
 * at the top of every pl_mrc_get/pl_mrc_put, see pl_mrc_inval.h).
 *
 * Callback contexts: reg and dereg run in the thread that called
 * pl_mrc_get, pl_mrc_put, pl_mrc_flush or pl_mrc_close, with no cache lock
 * held (they may block, allocate and call back into the cache for other
 * ranges); never in the monitor's thread. dereg runs once per successful
 * reg, at the first of those calls after the entry became unused and
 * invalid, evicted or uncached.
 *
 * Synchronization table: may X run at the same time as Y on one cache?
 *
 *               get    put    flush  stats  close  open(other cache)
 *   get         yes    yes    yes    yes    no     yes
 *   put         yes    yes    yes    yes    no     yes
 *   flush       yes    yes    yes    yes    no     yes
 *   stats       yes    yes    yes    yes    no     yes
 *   close       no     no     no     no     no     yes
 *
 * One mutex per cache protects the tree, the LRU and the counters; it is
 * never held across reg, dereg, the monitor's subscribe/unsubscribe or
 * free() (see pl_mrc.c: the cache lock is a leaf lock). The monitor's
 * event path takes no lock at all (pl_mrc_uffd.c).
 *
 * Limits (read at pl_mrc_open unless the attributes set them):
 *   FI_MR_CACHE_MAX_COUNT  entries cached (in use or not); 0 disables caching
 *   FI_MR_CACHE_MAX_SIZE   bytes cached; 0 disables caching
 *   FI_MR_CACHE_MONITOR    userfaultfd | memhooks | disabled (pl_mrc_monitor.h)
 * When a new registration would exceed a limit, unused entries are evicted
 * from the least recently used end; an entry in use is never evicted, and
 * if only entries in use remain the new registration is handed out
 * uncached (deregistered at its pl_mrc_put).
 */
#ifndef PROPEL_PL_MRC_H
#define PROPEL_PL_MRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>

struct pl_mrc;
struct pl_mrc_entry;

/* attr.flags */
/* Overlapping and adjacent registrations may be merged into one covering
 * their union (and the union of their access bits). */
#define PL_MRC_MERGE		(1ULL << 0)

/* Access bits a registration may ask for. */
#define PL_MRC_ACCESS_MASK \
	(FI_READ | FI_WRITE | FI_RECV | FI_SEND | FI_REMOTE_READ | \
	 FI_REMOTE_WRITE)

/* Use the environment's value (FI_MR_CACHE_MAX_*) for a limit. */
#define PL_MRC_LIMIT_ENV	SIZE_MAX

struct pl_mrc_attr {
	/* Register [pl_mrc_entry_addr(e), + pl_mrc_entry_len(e)) with
	 * pl_mrc_entry_access(e) and fill pl_mrc_entry_data(e). 0 or a
	 * negative -FI_E* which pl_mrc_get returns. */
	int		(*reg)(void *ctx, struct pl_mrc_entry *e);
	/* Undo one successful reg. */
	void		(*dereg)(void *ctx, struct pl_mrc_entry *e);
	void		*ctx;
	size_t		data_size;	/* bytes of pl_mrc_entry_data */
	const char	*name;		/* in log lines; may be NULL */
	uint64_t	flags;		/* PL_MRC_* */
	size_t		max_count;	/* PL_MRC_LIMIT_ENV or a value */
	size_t		max_size;	/* PL_MRC_LIMIT_ENV or a value */
};

/* Counters since pl_mrc_open (a snapshot). */
struct pl_mrc_stats {
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	evictions;	/* unused entries dropped for a limit */
	uint64_t	invalidations;	/* entries dropped because memory changed */
	uint64_t	uncached;	/* registrations handed out uncached */
	size_t		count;		/* entries cached now */
	size_t		bytes;		/* bytes cached now */
};

/*
 * Open a cache. Starts (or shares) the process's memory monitor; with no
 * monitor available (FI_MR_CACHE_MONITOR=disabled, userfaultfd refused)
 * or a limit of 0 the cache is a pass-through: every pl_mrc_get registers
 * and every pl_mrc_put deregisters. Errors: -FI_EINVAL (attr, reg, dereg
 * or cache_p NULL), -FI_ENOMEM.
 */
int pl_mrc_open(const struct pl_mrc_attr *attr, struct pl_mrc **cache_p);

/*
 * Deregister every cached entry, log the statistics (FI_LOG_LEVEL=info)
 * and free the cache. -FI_EBUSY (and nothing closed) while an entry is
 * still held.
 */
int pl_mrc_close(struct pl_mrc *cache);

/*
 * A registration covering [addr, addr + len) with at least access (a
 * subset of PL_MRC_ACCESS_MASK). Errors: -FI_EINVAL (NULL addr or entry_p,
 * len 0, a range that wraps, access 0 or outside the mask), -FI_ENOMEM,
 * or the reg callback's error.
 */
int pl_mrc_get(struct pl_mrc *cache, const void *addr, size_t len,
	       uint64_t access, struct pl_mrc_entry **entry_p);

/* Release an entry from pl_mrc_get. */
void pl_mrc_put(struct pl_mrc *cache, struct pl_mrc_entry *entry);

/* Deregister every unused cached entry (entries in use stay). */
void pl_mrc_flush(struct pl_mrc *cache);

/* Apply the queued invalidations now, then snapshot the counters. */
void pl_mrc_stats_get(struct pl_mrc *cache, struct pl_mrc_stats *stats_p);

/* True when the cache actually caches (a monitor and non-zero limits). */
bool pl_mrc_enabled(const struct pl_mrc *cache);

/* The registered range and access of an entry, and the provider's area
 * (data_size bytes, aligned for any type). Valid while the entry is held. */
void *pl_mrc_entry_addr(const struct pl_mrc_entry *e);
size_t pl_mrc_entry_len(const struct pl_mrc_entry *e);
uint64_t pl_mrc_entry_access(const struct pl_mrc_entry *e);
void *pl_mrc_entry_data(struct pl_mrc_entry *e);
/* False for a registration handed out uncached (limits, no monitor,
 * memory the monitor cannot watch). */
bool pl_mrc_entry_cached(const struct pl_mrc_entry *e);

/*
 * fi_open(version, "mr_cache", attr, attr_len, flags, fid_p, context):
 * a FI_CLASS_MR_CACHE fid whose bind op (fi_import_fid) takes an
 * application's struct fid_mem_monitor (FI_CLASS_MEM_MONITOR, fi_ext.h).
 * See pl_mrc_import.c. Errors: -FI_EINVAL (fid_p NULL, attr given),
 * -FI_EBADFLAGS, -FI_ENOMEM.
 */
int pl_mrc_import_open(uint32_t version, void *attr, size_t attr_len,
		       uint64_t flags, struct fid **fid_p, void *context);

#endif /* PROPEL_PL_MRC_H */
