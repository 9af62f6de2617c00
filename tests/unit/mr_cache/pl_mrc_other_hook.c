/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test helper library: another hook on munmap, the way an interposing
 * library (a profiler, a leak checker, another MPI layer) installs one.
 * Linked into test_pl_mrc_memhooks_got before libc, so every GOT slot
 * for munmap leads here first; it counts the call and chains to the
 * next definition.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include <sys/mman.h>

__attribute__((visibility("default")))
_Atomic unsigned long pl_mrc_other_hook_calls;

__attribute__((visibility("default")))
int munmap(void *addr, size_t len)
{
	static int (*_Atomic next)(void *, size_t);
	int (*fn)(void *, size_t) = atomic_load(&next);

	if (!fn) {
		fn = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
		atomic_store(&next, fn);
	}
	atomic_fetch_add(&pl_mrc_other_hook_calls, 1);
	return fn(addr, len);
}
