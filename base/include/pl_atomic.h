/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one place memory ordering is spelled (STYLE.md habit 2): thin typed
 * wrappers over C11 <stdatomic.h>. Callers name the ordering in the wrapper
 * they pick and, at the call site, say what the access pairs with.
 *
 * No volatile and no __sync builtins anywhere else in propel.
 */
#ifndef PROPEL_PL_ATOMIC_H
#define PROPEL_PL_ATOMIC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef _Atomic uint64_t pl_atomic_u64;
typedef _Atomic uint32_t pl_atomic_u32;
typedef _Atomic int pl_atomic_int;
typedef _Atomic(void *) pl_atomic_ptr;

/* Loads */
#define pl_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define pl_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)

/* Stores */
#define pl_store_relaxed(p, v) \
	atomic_store_explicit((p), (v), memory_order_relaxed)
#define pl_store_release(p, v) \
	atomic_store_explicit((p), (v), memory_order_release)

/* Read-modify-write */
#define pl_fetch_add_relaxed(p, v) \
	atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define pl_fetch_add_acq_rel(p, v) \
	atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define pl_fetch_sub_acq_rel(p, v) \
	atomic_fetch_sub_explicit((p), (v), memory_order_acq_rel)
#define pl_exchange_acq_rel(p, v) \
	atomic_exchange_explicit((p), (v), memory_order_acq_rel)

/* Compare-and-swap; on failure *expected is refreshed (relaxed is enough
 * there: the caller re-reads through the next successful CAS). */
#define pl_cas_acq_rel(p, expected, desired) \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired), \
		memory_order_acq_rel, memory_order_acquire)
#define pl_cas_weak_acq_rel(p, expected, desired) \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired), \
		memory_order_acq_rel, memory_order_acquire)
/* One-sided CAS (rings, buffer pool depot): relaxed claims a position
 * whose data another edge orders; release publishes, acquire consumes. */
#define pl_cas_weak_relaxed(p, expected, desired) \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired), \
		memory_order_relaxed, memory_order_relaxed)
#define pl_cas_weak_release(p, expected, desired) \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired), \
		memory_order_release, memory_order_relaxed)
#define pl_cas_weak_acquire(p, expected, desired) \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired), \
		memory_order_acquire, memory_order_acquire)
#define pl_cas_acquire(p, expected, desired) \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired), \
		memory_order_acquire, memory_order_relaxed)
#define pl_fetch_sub_release(p, v) \
	atomic_fetch_sub_explicit((p), (v), memory_order_release)

/* Fences */
#define pl_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
#define pl_fence_acquire() atomic_thread_fence(memory_order_acquire)
#define pl_fence_release() atomic_thread_fence(memory_order_release)

static inline void pl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif /* PROPEL_PL_ATOMIC_H */
