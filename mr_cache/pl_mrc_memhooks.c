/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The memhooks monitor: the calls that change the pages behind an
 * address range are intercepted by patching the GOT slots of every
 * loaded object (pl_mrc_got.h), so no symbol named munmap is defined or
 * exported by us. Intercepted: munmap, mmap/mmap64 with MAP_FIXED,
 * mremap (the old range, and the target with MREMAP_FIXED), madvise
 * (DONTNEED, DONTNEED_LOCKED, FREE, REMOVE), brk, sbrk, shmat (with
 * SHM_REMAP), shmdt, free and realloc (see "malloc" below), and dlopen
 * (to patch the objects it loads).
 *
 * A hook. It publishes the range to the invalidation log (only when the
 * watch filter says a cache may hold part of it), calls the function the
 * slot held before (*next: another library's hook, a sanitizer's
 * interceptor, or libc), and, if that succeeded, publishes the range
 * again. No lock, no allocation, errno preserved: a hook may run inside
 * malloc holding the arena lock, or in a signal handler.
 *
 * Why twice. After the call returns, another thread may map new pages
 * at the same address and look them up before we publish: the first
 * publication makes sure no lookup that starts after the pages changed
 * finds the old entry. A registration made by another thread while the
 * call is in flight (a race in the application) would be cached over the
 * pages about to change; the second publication drops it, and a cache
 * miss registering at that moment re-reads the log before inserting.
 *
 * The watch filter (F1/F2). subscribe counts the range into a table of
 * 64 KiB granules (hashed by address), unsubscribe counts it out; a hook
 * publishes only ranges meeting a non-zero granule, so the log is not
 * flooded by every free() and munmap of the process. subscribe adds and
 * then issues a seq_cst fence (F1) before the cache registers the pages;
 * a hook issues a seq_cst fence (F2) after the call and before reading
 * the filter. Either the hook sees the count (and publishes), or its
 * fence precedes F1 and the registration reads the pages as the call
 * left them (a fresh registration): the store-buffering argument of
 * base's pl_evcount.h, with the filter's counters for its word. A
 * colliding granule only costs an extra publication.
 *
 * malloc. glibc's free() unmaps large chunks and trims the heap with
 * internal calls that never go through a GOT, so hooking munmap alone
 * misses them. But pages are only given back when every byte on them is
 * free, and every free() and realloc() of the application goes through
 * the GOT: publishing the block at each free makes every registration of
 * it invalid before its pages can go. What stays unseen is listed in
 * docs/mr-cache.md (raw system calls, libc-internal frees, static
 * executables).
 *
 * Fork. The GOT patches and the filter are inherited, so the child's
 * hooks work; but memory marked MADV_DONTFORK (what verbs does to every
 * registration) or MADV_WIPEONFORK changes in the child with no call at
 * all. So, as for userfaultfd, the child's monitor reports itself
 * broken: inherited caches drop their entries and stop caching; once the
 * child has closed them, a cache it opens starts a fresh monitor.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_log.h"
#include "pl_mrc_got.h"
#include "pl_mrc_inval.h"
#include "pl_mrc_monitor.h"

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif
#ifndef SHM_REMAP
#define SHM_REMAP 040000
#endif

#define PL_MRC_MH_GRANULE_SHIFT 16		/* 64 KiB */
#define PL_MRC_MH_FILTER_SLOTS 16384u		/* a power of two */
#define PL_MRC_MH_SHM_SLOTS 256

enum {
	PL_MRC_MH_MUNMAP,	/* first: install needs a slot of it */
	PL_MRC_MH_MMAP,
	PL_MRC_MH_MMAP64,
	PL_MRC_MH_MREMAP,
	PL_MRC_MH_MADVISE,
	PL_MRC_MH_BRK,
	PL_MRC_MH_SBRK,
	PL_MRC_MH_SHMAT,
	PL_MRC_MH_SHMDT,
	PL_MRC_MH_FREE,
	PL_MRC_MH_REALLOC,
	PL_MRC_MH_DLOPEN,
	PL_MRC_MH_NFNS
};

/* Counted in and out by subscribe/unsubscribe (any cache thread); read
 * by every hook (F1/F2 in the file comment). */
static pl_atomic_u32 pl_mrc_mh_filter[PL_MRC_MH_FILTER_SLOTS];

/* SysV segments attached through the hook: shmdt only names the
 * address. addr 0: free slot. Claimed by CAS (acquire), size written
 * (release) after; read by shmdt (acquire). */
struct pl_mrc_mh_shm {
	pl_atomic_u64 addr;
	pl_atomic_u64 size;
};
static struct pl_mrc_mh_shm pl_mrc_mh_shm[PL_MRC_MH_SHM_SLOTS];

struct pl_mrc_mh {
	struct pl_mrc_monitor mon;
	/* True between start and stop (selection lock); read by the fork
	 * handler. */
	pl_atomic_int running;
	/* Publications made (relaxed: statistics, logged at stop). */
	pl_atomic_u64 events;
};

static struct pl_mrc_mh pl_mrc_mh_mon;
static pthread_once_t pl_mrc_mh_atfork_once = PTHREAD_ONCE_INIT;
static struct pl_mrc_got_fn pl_mrc_mh_fns[PL_MRC_MH_NFNS];

static void *pl_mrc_mh_next(int fn)
{
	/* acquire: pairs with G1 (pl_mrc_got.h), written before any slot
	 * led here. */
	return pl_load_acquire(&pl_mrc_mh_fns[fn].next);
}

static uintptr_t pl_mrc_mh_end(uintptr_t start, size_t len)
{
	return len > UINTPTR_MAX - start ? UINTPTR_MAX : start + len;
}

/* ---- the watch filter ---- */

static void pl_mrc_mh_filter_count(uintptr_t start, uintptr_t end, bool in)
{
	uintptr_t g = start >> PL_MRC_MH_GRANULE_SHIFT;
	uintptr_t last = (end - 1) >> PL_MRC_MH_GRANULE_SHIFT;
	size_t n;

	for (n = 0; g <= last && n < PL_MRC_MH_FILTER_SLOTS; g++, n++) {
		pl_atomic_u32 *c = &pl_mrc_mh_filter[g &
					(PL_MRC_MH_FILTER_SLOTS - 1)];

		/* relaxed: ordered by F1 (in) or harmless late (out: an
		 * extra publication). */
		if (in)
			pl_fetch_add_relaxed(c, 1);
		else
			atomic_fetch_sub_explicit(c, 1, memory_order_relaxed);
	}
	if (in)
		pl_fence_seq_cst();	/* F1: pairs with F2 */
}

static bool pl_mrc_mh_watched(uintptr_t start, uintptr_t end)
{
	uintptr_t g = start >> PL_MRC_MH_GRANULE_SHIFT;
	uintptr_t last = (end - 1) >> PL_MRC_MH_GRANULE_SHIFT;
	size_t n;

	pl_fence_seq_cst();		/* F2: pairs with F1 */
	for (n = 0; g <= last && n < PL_MRC_MH_FILTER_SLOTS; g++, n++)
		/* relaxed: ordered by F2. */
		if (pl_load_relaxed(&pl_mrc_mh_filter[g &
					(PL_MRC_MH_FILTER_SLOTS - 1)]))
			return true;
	return false;
}

/* Publish [start, end) if a cache may hold part of it. Any context. */
static void pl_mrc_mh_note(uintptr_t start, uintptr_t end)
{
	if (end <= start || !pl_mrc_mh_watched(start, end))
		return;
	pl_mrc_inval_publish(start, end);
	pl_fetch_add_relaxed(&pl_mrc_mh_mon.events, 1);
}

/* ---- hooks: mappings ---- */

static int pl_mrc_mh_munmap(void *addr, size_t len)
{
	int (*next)(void *, size_t) = pl_mrc_mh_next(PL_MRC_MH_MUNMAP);
	uintptr_t s = (uintptr_t)addr, e = pl_mrc_mh_end(s, len);
	int ret;

	pl_mrc_mh_note(s, e);
	ret = next(addr, len);
	if (!ret)
		pl_mrc_mh_note(s, e);
	return ret;
}

static void *pl_mrc_mh_mmap_common(int fn, void *addr, size_t len, int prot,
				   int flags, int fd, off_t off)
{
	void *(*next)(void *, size_t, int, int, int, off_t) =
		pl_mrc_mh_next(fn);
	uintptr_t s = (uintptr_t)addr, e = pl_mrc_mh_end(s, len);
	/* Only MAP_FIXED replaces pages (MAP_FIXED_NOREPLACE fails). */
	bool fixed = flags & MAP_FIXED;
	void *ret;

	if (fixed)
		pl_mrc_mh_note(s, e);
	ret = next(addr, len, prot, flags, fd, off);
	if (fixed && ret != MAP_FAILED)
		pl_mrc_mh_note(s, e);
	return ret;
}

static void *pl_mrc_mh_mmap(void *addr, size_t len, int prot, int flags,
			    int fd, off_t off)
{
	return pl_mrc_mh_mmap_common(PL_MRC_MH_MMAP, addr, len, prot, flags,
				     fd, off);
}

static void *pl_mrc_mh_mmap64(void *addr, size_t len, int prot, int flags,
			      int fd, off_t off)
{
	return pl_mrc_mh_mmap_common(PL_MRC_MH_MMAP64, addr, len, prot, flags,
				     fd, off);
}

static void *pl_mrc_mh_mremap(void *old, size_t old_len, size_t new_len,
			      int flags, ...)
{
	void *(*next)(void *, size_t, size_t, int, ...) =
		pl_mrc_mh_next(PL_MRC_MH_MREMAP);
	uintptr_t s = (uintptr_t)old, e = pl_mrc_mh_end(s, old_len);
	uintptr_t ts = 0, te = 0;
	void *target = NULL, *ret;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		target = va_arg(ap, void *);
		va_end(ap);
		/* MREMAP_FIXED replaces whatever was at the target. */
		ts = (uintptr_t)target;
		te = pl_mrc_mh_end(ts, new_len);
	}
	pl_mrc_mh_note(s, e);
	pl_mrc_mh_note(ts, te);
	ret = next(old, old_len, new_len, flags, target);
	if (ret != MAP_FAILED) {
		pl_mrc_mh_note(s, e);
		pl_mrc_mh_note(ts, te);
	}
	return ret;
}

static int pl_mrc_mh_madvise(void *addr, size_t len, int advice)
{
	int (*next)(void *, size_t, int) = pl_mrc_mh_next(PL_MRC_MH_MADVISE);
	uintptr_t s = (uintptr_t)addr, e = pl_mrc_mh_end(s, len);
	bool discards = advice == MADV_DONTNEED || advice == MADV_FREE ||
			advice == MADV_REMOVE ||
			advice == MADV_DONTNEED_LOCKED;
	int ret;

	if (discards)
		pl_mrc_mh_note(s, e);
	ret = next(addr, len, advice);
	if (discards && !ret)
		pl_mrc_mh_note(s, e);
	return ret;
}

/* ---- hooks: the break ---- */

static void *pl_mrc_mh_break_now(void)
{
	void *(*sbrk_next)(intptr_t) = pl_mrc_mh_next(PL_MRC_MH_SBRK);

	return sbrk_next ? sbrk_next(0) : (void *)-1;
}

/* Publish the pages between two break values. */
static void pl_mrc_mh_note_break(void *a, void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	if (a == (void *)-1 || b == (void *)-1)
		return;
	pl_mrc_mh_note(PL_MIN(x, y), PL_MAX(x, y));
}

static int pl_mrc_mh_brk(void *addr)
{
	int (*next)(void *) = pl_mrc_mh_next(PL_MRC_MH_BRK);
	void *b0 = pl_mrc_mh_break_now();
	int ret, err;

	pl_mrc_mh_note_break(b0, addr);
	ret = next(addr);
	err = errno;
	if (!ret)
		pl_mrc_mh_note_break(b0, pl_mrc_mh_break_now());
	errno = err;
	return ret;
}

static void *pl_mrc_mh_sbrk(intptr_t incr)
{
	void *(*next)(intptr_t) = pl_mrc_mh_next(PL_MRC_MH_SBRK);
	void *b0, *ret;
	int err;

	if (!incr)
		return next(0);
	b0 = next(0);
	if (b0 != (void *)-1)
		pl_mrc_mh_note_break(b0, (char *)b0 + incr);
	ret = next(incr);
	err = errno;
	if (ret != (void *)-1)
		pl_mrc_mh_note_break(ret, next(0));
	errno = err;
	return ret;
}

/* ---- hooks: SysV shared memory ---- */

static size_t pl_mrc_mh_shm_size(int id)
{
	struct shmid_ds ds;
	size_t mask = (size_t)sysconf(_SC_PAGESIZE) - 1;
	int err = errno;

	if (shmctl(id, IPC_STAT, &ds)) {
		errno = err;
		return 0;		/* unknown: shmdt is conservative */
	}
	return (ds.shm_segsz + mask) & ~mask;
}

static void pl_mrc_mh_shm_remember(uintptr_t addr, size_t size)
{
	size_t i;

	for (i = 0; i < PL_MRC_MH_SHM_SLOTS; i++) {
		uint64_t zero = 0;

		/* acquire on success: the slot is ours from here. */
		if (pl_cas_acquire(&pl_mrc_mh_shm[i].addr, &zero, addr)) {
			/* release: pairs with the acquire in lookup. */
			pl_store_release(&pl_mrc_mh_shm[i].size, size);
			return;
		}
	}
	/* Table full: shmdt of this segment will be conservative. */
}

/* The size attached at addr (0: unknown); forgets it when drop. */
static size_t pl_mrc_mh_shm_lookup(uintptr_t addr, bool drop)
{
	size_t i, size;

	for (i = 0; i < PL_MRC_MH_SHM_SLOTS; i++) {
		/* acquire: pairs with the CAS of remember. */
		if (pl_load_acquire(&pl_mrc_mh_shm[i].addr) != addr)
			continue;
		/* acquire: pairs with the release in remember. */
		size = pl_load_acquire(&pl_mrc_mh_shm[i].size);
		if (drop) {
			pl_store_relaxed(&pl_mrc_mh_shm[i].size, 0);
			/* release: the slot's size is cleared before it can
			 * be claimed again. */
			pl_store_release(&pl_mrc_mh_shm[i].addr, 0);
		}
		return size;
	}
	return 0;
}

static void *pl_mrc_mh_shmat(int id, const void *addr, int flags)
{
	void *(*next)(int, const void *, int) = pl_mrc_mh_next(PL_MRC_MH_SHMAT);
	size_t size = pl_mrc_mh_shm_size(id);
	uintptr_t s = (uintptr_t)addr;
	bool remap = addr && (flags & SHM_REMAP);
	void *ret;

	if (remap)
		pl_mrc_mh_note(s, size ? pl_mrc_mh_end(s, size) : UINTPTR_MAX);
	ret = next(id, addr, flags);
	if (ret == (void *)-1)
		return ret;
	s = (uintptr_t)ret;
	if (remap)
		pl_mrc_mh_note(s, size ? pl_mrc_mh_end(s, size) : UINTPTR_MAX);
	if (size)
		pl_mrc_mh_shm_remember(s, size);
	return ret;
}

static int pl_mrc_mh_shmdt(const void *addr)
{
	int (*next)(const void *) = pl_mrc_mh_next(PL_MRC_MH_SHMDT);
	uintptr_t s = (uintptr_t)addr, e;
	size_t size = pl_mrc_mh_shm_lookup(s, false);
	int ret;

	/* Attached before the monitor started (or the table was full):
	 * everything above addr, which is rare and always correct. */
	e = size ? pl_mrc_mh_end(s, size) : UINTPTR_MAX;
	pl_mrc_mh_note(s, e);
	ret = next(addr);
	if (!ret) {
		pl_mrc_mh_note(s, e);
		(void)pl_mrc_mh_shm_lookup(s, true);
	}
	return ret;
}

/* ---- hooks: malloc (see the file comment) ---- */

static void pl_mrc_mh_free(void *p)
{
	void (*next)(void *) = pl_mrc_mh_next(PL_MRC_MH_FREE);
	uintptr_t s = (uintptr_t)p, e;

	if (!p) {
		next(p);
		return;
	}
	e = pl_mrc_mh_end(s, malloc_usable_size(p));
	pl_mrc_mh_note(s, e);
	next(p);
	pl_mrc_mh_note(s, e);
}

static void *pl_mrc_mh_realloc(void *p, size_t len)
{
	void *(*next)(void *, size_t) = pl_mrc_mh_next(PL_MRC_MH_REALLOC);
	uintptr_t s = (uintptr_t)p, e;
	void *ret;

	if (!p)
		return next(p, len);
	e = pl_mrc_mh_end(s, malloc_usable_size(p));
	pl_mrc_mh_note(s, e);
	ret = next(p, len);
	pl_mrc_mh_note(s, e);
	return ret;
}

/* ---- hooks: objects loaded later ---- */

static void *pl_mrc_mh_dlopen(const char *file, int mode)
{
	void *(*next)(const char *, int) = pl_mrc_mh_next(PL_MRC_MH_DLOPEN);
	void *ret = next(file, mode);

	if (ret)
		pl_mrc_got_rescan(true);
	return ret;
}

static struct pl_mrc_got_fn pl_mrc_mh_fns[PL_MRC_MH_NFNS] = {
	[PL_MRC_MH_MUNMAP] = { "munmap", (void *)pl_mrc_mh_munmap },
	[PL_MRC_MH_MMAP] = { "mmap", (void *)pl_mrc_mh_mmap },
	[PL_MRC_MH_MMAP64] = { "mmap64", (void *)pl_mrc_mh_mmap64 },
	[PL_MRC_MH_MREMAP] = { "mremap", (void *)pl_mrc_mh_mremap },
	[PL_MRC_MH_MADVISE] = { "madvise", (void *)pl_mrc_mh_madvise },
	[PL_MRC_MH_BRK] = { "brk", (void *)pl_mrc_mh_brk },
	[PL_MRC_MH_SBRK] = { "sbrk", (void *)pl_mrc_mh_sbrk },
	[PL_MRC_MH_SHMAT] = { "shmat", (void *)pl_mrc_mh_shmat },
	[PL_MRC_MH_SHMDT] = { "shmdt", (void *)pl_mrc_mh_shmdt },
	[PL_MRC_MH_FREE] = { "free", (void *)pl_mrc_mh_free },
	[PL_MRC_MH_REALLOC] = { "realloc", (void *)pl_mrc_mh_realloc },
	[PL_MRC_MH_DLOPEN] = { "dlopen", (void *)pl_mrc_mh_dlopen },
};

/* ---- the monitor ---- */

static int pl_mrc_mh_subscribe(struct pl_mrc_monitor *m, uintptr_t start,
			       uintptr_t end)
{
	(void)m;
	if (end <= start)
		return -FI_EINVAL;
	/* Objects loaded without our dlopen hook (libc's own dlopen of
	 * NSS modules, say) are patched before a range is watched. */
	pl_mrc_got_rescan(false);
	pl_mrc_mh_filter_count(start, end, true);
	return 0;
}

static void pl_mrc_mh_unsubscribe(struct pl_mrc_monitor *m, uintptr_t start,
				  uintptr_t end)
{
	(void)m;
	if (end > start)
		pl_mrc_mh_filter_count(start, end, false);
}

static void pl_mrc_mh_stop(struct pl_mrc_monitor *m)
{
	struct pl_mrc_mh *h = pl_container_of(m, struct pl_mrc_mh, mon);
	size_t patched, missed;

	pl_store_relaxed(&h->running, 0);
	pl_mrc_got_counts(&patched, &missed);
	pl_mrc_got_remove();
	if (missed)
		PL_WARN(FI_LOG_MR, "memhooks monitor: %zu call sites were not "
			"patched (table full)\n", missed);
	PL_INFO(FI_LOG_MR, "memhooks monitor stopped: %llu ranges published, "
		"%zu call sites were patched\n",
		(unsigned long long)pl_load_relaxed(&h->events), patched);
}

static void pl_mrc_mh_atfork_child(void)
{
	struct pl_mrc_mh *h = &pl_mrc_mh_mon;

	/* See "Fork" in the file comment. */
	if (pl_load_relaxed(&h->running))
		pl_store_release(&h->mon.broken, 1);
}

static void pl_mrc_mh_atfork_register(void)
{
	(void)pthread_atfork(NULL, NULL, pl_mrc_mh_atfork_child);
}

static const struct pl_mrc_monitor_ops pl_mrc_mh_ops = {
	.subscribe = pl_mrc_mh_subscribe,
	.unsubscribe = pl_mrc_mh_unsubscribe,
	.valid = NULL,
	.sync = NULL,	/* hooks publish before their call returns */
	.stop = pl_mrc_mh_stop,
};

int pl_mrc_memhooks_start(struct pl_mrc_monitor **mon_p, const char **why_p)
{
	struct pl_mrc_mh *h = &pl_mrc_mh_mon;
	size_t i;
	int ret;

	h->mon.name = "memhooks";
	h->mon.ops = &pl_mrc_mh_ops;
	pl_store_relaxed(&h->mon.broken, 0);
	pl_store_relaxed(&h->events, 0);
	/* No cache holds a range: whatever a broken child left counted. */
	for (i = 0; i < PL_MRC_MH_FILTER_SLOTS; i++)
		pl_store_relaxed(&pl_mrc_mh_filter[i], 0);
	(void)pthread_once(&pl_mrc_mh_atfork_once, pl_mrc_mh_atfork_register);
	ret = pl_mrc_got_install(pl_mrc_mh_fns, PL_MRC_MH_NFNS);
	if (ret) {
		*why_p = ret == -FI_EBUSY ? "the hooks are installed already" :
			 "no loaded object calls munmap through a GOT slot "
			 "(a static executable, or not an ELF64 x86-64 or "
			 "AArch64 process)";
		return ret;
	}
	pl_store_relaxed(&h->running, 1);
	*mon_p = &h->mon;
	return 0;
}
