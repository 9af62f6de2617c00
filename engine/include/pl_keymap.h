/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Key map: MR key -> (segments, access bits, enabled), used by a
 * provider's data path to validate a remote access (docs/provider-contract.md, "Key map"). A key
 * has one segment per iovec it was registered with (fi_mr_regv); an
 * access must lie inside one segment. A key inserted disabled is
 * reserved (a second insert gets -FI_ENOKEY) but rejected by check until
 * pl_keymap_enable (FI_MR_ENDPOINT / FI_RMA_EVENT regions, fi_mr(3)).
 *
 * Synchronization table (who may run at the same time as whom):
 *                 lookup  insert  remove  destroy
 *   lookup        yes     yes     yes     no
 *   insert        yes     yes*    yes*    no
 *   remove        yes     yes*    yes*    no
 * (*) writers serialize on the map's mutex. Lookups take an urcu-bp
 * read-side section (pl_rcu.h) and never block; a removed entry is
 * freed through pl_rcu_call after a grace period, so a concurrent
 * lookup never reads freed memory. Bucket heads and next pointers are
 * published with release stores and read with acquire loads. An entry's
 * enabled flag is the one field written after publication: a release
 * store in pl_keymap_enable, read with an acquire load in check.
 */
#ifndef PROPEL_PL_KEYMAP_H
#define PROPEL_PL_KEYMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "pl_atomic.h"

#define PL_KEYMAP_BUCKETS 256	/* power of two */

struct pl_keymap {
	pl_atomic_ptr bucket[PL_KEYMAP_BUCKETS]; /* writers under lock */
	pthread_mutex_t lock;	/* serializes insert/remove */
};

int pl_keymap_init(struct pl_keymap *map);
/* Frees every entry after a grace period; no other call may run. */
void pl_keymap_fini(struct pl_keymap *map);
/* -FI_ENOKEY when key is present, -FI_ENOMEM, -FI_EINVAL for len 0.
 * The key is enabled at once. */
int pl_keymap_insert(struct pl_keymap *map, uint64_t key, uint64_t base,
		     size_t len, uint64_t access);
/*
 * Insert key with count segments (iov[i].iov_base, iov[i].iov_len); the
 * region's offsets run through the segments in order. enabled false
 * reserves the key without making it valid. -FI_EINVAL for NULL map or
 * iov, count 0, a NULL base, a zero or overflowing length; -FI_ENOKEY
 * when key is present; -FI_ENOMEM.
 */
int pl_keymap_insertv(struct pl_keymap *map, uint64_t key,
		      const struct iovec *iov, size_t count, uint64_t access,
		      bool enabled);
/* Make a reserved key valid for check; 0 if it already was. -FI_ENOKEY
 * when absent. Writers' context (serializes on the map's mutex). */
int pl_keymap_enable(struct pl_keymap *map, uint64_t key);
/* -FI_ENOKEY when absent. */
int pl_keymap_remove(struct pl_keymap *map, uint64_t key);

struct fid_cntr;
/*
 * fi_mr_bind of a counter: remote accesses to key whose kind is in events
 * (FI_REMOTE_WRITE, FI_REMOTE_READ) increment cntr (an engine counter).
 * Once per key: -FI_EALREADY after that, -FI_ENOKEY for an unknown key.
 * The caller keeps cntr alive until the key is removed and a grace period
 * has passed (pl_rcu_barrier after pl_keymap_remove). Control path,
 * under the map lock.
 */
int pl_keymap_bind_cntr(struct pl_keymap *map, uint64_t key,
			struct fid_cntr *cntr, uint64_t events);
/*
 * The data path, after a remote access of kind event (FI_REMOTE_WRITE or
 * FI_REMOTE_READ) to key was carried out: increments the counter bound
 * to key for that kind, if any. Any thread; lock-free (RCU read side).
 */
void pl_keymap_count(struct pl_keymap *map, uint64_t key, uint64_t event);
/*
 * Validate a remote access: addr is absolute (FI_MR_VIRT_ADDR) or an
 * offset into the region (virt_addr false). 0 when [addr, addr+len) lies
 * in one segment of the region and every bit of need
 * (FI_REMOTE_READ/FI_REMOTE_WRITE) was granted; -FI_EKEYREJECTED for an
 * unknown or not yet enabled key, -FI_EACCES otherwise. On success
 * *base_p (may be NULL) gets the segment's base under virt_addr, and
 * otherwise the value that, added to the offset addr, gives the local
 * address (segment base minus the segment's offset in the region; for
 * a one-segment region, simply its base). Calling context: any thread,
 * no lock (urcu-bp read side inside).
 */
int pl_keymap_check(struct pl_keymap *map, uint64_t key, uint64_t addr,
		    size_t len, uint64_t need, bool virt_addr,
		    uint64_t *base_p);

#endif
