/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_mrc_got: run-time patching of the GOT slots through which every
 * loaded object calls a function of another object (the memhooks
 * monitor's interception, pl_mrc_memhooks.c).
 *
 * A call from object A to munmap in libc goes through a slot of A's
 * global offset table (a JUMP_SLOT relocation for a PLT call, a GLOB_DAT
 * one for -fno-plt code or an address taken). Writing our hook's address
 * into every such slot of every loaded object diverts those calls without
 * defining (or exporting) a symbol named munmap. The hook calls *next,
 * the function the slots held before (another library's hook, a
 * sanitizer's interceptor, or libc): we chain, we never skip a hook that
 * was there first.
 *
 * Synchronization table: may X run at the same time as Y?
 *
 *                      a call through a slot   install / rescan / remove
 *   call through slot  yes                     yes (each slot store is one
 *                                                    aligned 8-byte atomic store)
 *   install/rescan/rm  yes                     no (pl_mrc_got_lock)
 *
 * A thread that loaded the old slot value calls the old function; one
 * that loaded the new value calls the hook, which calls *next: both are
 * valid at every moment, and *next is written (release, G1) before the
 * first slot store and never changes afterwards (threads inside a hook
 * while the hooks are removed still use it).
 *
 * Lock order: pl_mrc_got_lock, then the dynamic loader's lock (taken by
 * dl_iterate_phdr). The dlopen hook only try-locks (a constructor that
 * calls dlopen runs with the loader's lock held): when busy it leaves
 * the rescan to the next pl_mrc_got_rescan.
 */
#ifndef PROPEL_PL_MRC_GOT_H
#define PROPEL_PL_MRC_GOT_H

#include <stdbool.h>
#include <stddef.h>

#include "pl_atomic.h"

struct pl_mrc_got_fn {
	const char	*name;	/* the symbol whose slots are patched */
	void		*hook;	/* written into them */
	/* What the hook calls: chosen at the first install (the first
	 * resolved value found in a slot that is not ours, executable
	 * first, else what dlsym(RTLD_DEFAULT) finds); written once
	 * (release, G1), read by hooks (acquire, pairs with G1). */
	pl_atomic_ptr	next;
};

/*
 * Patch every slot of fns[0..n) in every loaded object (the sanitizer
 * runtimes and the dynamic loader excepted). fns must stay valid until
 * pl_mrc_got_remove returns. Returns 0, -FI_ENOSYS (not an ELF64 RELA
 * platform we know, or no object calls fns[0]: nothing to intercept), or
 * -FI_EBUSY (already installed).
 */
int pl_mrc_got_install(struct pl_mrc_got_fn *fns, size_t n);

/* Patch objects loaded since the last pass (after dlopen, before a range
 * is watched). try: give up when another thread holds the lock. */
void pl_mrc_got_rescan(bool try);

/* Write back what the slots held (only slots of objects still loaded
 * that still hold our hook). The hooks' code and *next stay valid. */
void pl_mrc_got_remove(void);

/* Counters for the stop log line: slots patched now, slots not patched
 * because the table was full. */
void pl_mrc_got_counts(size_t *patched_p, size_t *missed_p);

#endif /* PROPEL_PL_MRC_GOT_H */
