/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Compiler helpers shared by every layer: export and symbol-version
 * attributes, branch hints, cache-line alignment, container_of.
 */
#ifndef PROPEL_PL_COMPILER_H
#define PROPEL_PL_COMPILER_H

#include <stddef.h>

/*
 * The library is built with -fvisibility=hidden and a version script with
 * "local: *"; an entry point must be both marked here and listed in
 * lib/libfabric.map to be visible to applications.
 */
#define PL_EXPORT __attribute__((visibility("default")))

/*
 * Bind an implementation to a versioned name. DEFAULT is what newly linked
 * programs get (name@@NODE); COMPAT serves binaries linked against an older
 * node (name@NODE) and must convert the older struct layouts itself.
 */
#define PL_SYMVER_DEFAULT(api, node) \
	__attribute__((symver(#api "@@" #node))) PL_EXPORT
#define PL_SYMVER_COMPAT(api, node) \
	__attribute__((symver(#api "@" #node))) PL_EXPORT

#define PL_LIKELY(x)   __builtin_expect(!!(x), 1)
#define PL_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Keep a slow path out of line, so that its caller's fast path stays
 * small (no frame for registers only the slow path needs). */
#define PL_NOINLINE __attribute__((noinline))

/* Ask for the line at p ahead of a write. An exclusive prefetch
 * (prefetchw) where the target has one (-mprfchw, implied by most
 * -march values), a plain one otherwise: either way a hint, never a
 * fault. */
#define PL_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 3)

#define PL_CACHELINE 64
#define PL_CACHE_ALIGNED __attribute__((aligned(PL_CACHELINE)))

#define PL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define pl_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#define PL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PL_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif /* PROPEL_PL_COMPILER_H */
