/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Key map: MR key -> (base address, length, access bits), used by a
 * provider's data path to validate a remote access (E1 item 6).
 *
 * Synchronization table (who may run at the same time as whom):
 *                 lookup  insert  remove  destroy
 *   lookup        yes     yes     yes     no
 *   insert        yes     yes*    yes*    no
 *   remove        yes     yes*    yes*    no
 * (*) writers serialize on the map's mutex. Lookups take an urcu-bp
 * read-side section (pl_av_rcu.h) and never block; a removed entry is
 * freed through pl_av_rcu_call after a grace period, so a concurrent
 * lookup never reads freed memory. Bucket heads and next pointers are
 * published with release stores and read with acquire loads.
 */
#ifndef PROPEL_PL_KEYMAP_H
#define PROPEL_PL_KEYMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl_atomic.h"

#define PL_KEYMAP_BUCKETS 256	/* power of two */

struct pl_keymap {
	pl_atomic_ptr bucket[PL_KEYMAP_BUCKETS]; /* writers under lock */
	pthread_mutex_t lock;	/* serializes insert/remove */
};

int pl_keymap_init(struct pl_keymap *map);
/* Frees every entry after a grace period; no other call may run. */
void pl_keymap_fini(struct pl_keymap *map);
/* -FI_ENOKEY when key is present, -FI_ENOMEM, -FI_EINVAL for len 0. */
int pl_keymap_insert(struct pl_keymap *map, uint64_t key, uint64_t base,
		     size_t len, uint64_t access);
/* -FI_ENOKEY when absent. */
int pl_keymap_remove(struct pl_keymap *map, uint64_t key);
/*
 * Validate a remote access: addr is absolute (FI_MR_VIRT_ADDR) or an
 * offset from base (virt_addr false). 0 when [addr, addr+len) lies in the
 * region and every bit of need (FI_REMOTE_READ/FI_REMOTE_WRITE) was
 * granted; -FI_EKEYREJECTED for an unknown key, -FI_EACCES otherwise.
 * *base_p (may be NULL) gets the region's base on success.
 */
int pl_keymap_check(struct pl_keymap *map, uint64_t key, uint64_t addr,
		    size_t len, uint64_t need, bool virt_addr,
		    uint64_t *base_p);

#endif
