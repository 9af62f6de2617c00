/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_av_shared: a named AV's table in POSIX shared memory (layout and
 * cross-process protocol: pl_av_shared_layout.h), and this process's
 * RCU-protected view of it: the current mapping of the slots, and a local
 * reverse map brought up to date lazily from the shared slots.
 *
 * Synchronization table (one shared AV in one process):
 *
 *                  lookup  reverse  insert  remove  close
 *   lookup         yes     yes      yes     yes     no
 *   reverse        yes     yes      yes     yes     no
 *   insert         yes     yes      yes     yes     no
 *   remove         yes     yes      yes     yes     no
 *
 *   lookup and reverse run inside pl_rcu_read_lock(), lock-free unless
 *   they need a newer view (an index past this process's mapping; an
 *   address not in the local reverse map yet): then they take the view
 *   mutex, which no holder ever keeps across a grace period. insert and
 *   remove take the view mutex and the cross-process writer lock. close
 *   runs alone. Across processes every operation may run at any time.
 *
 * Lock order: the AV's writer mutex, the view mutex, the writer lock
 * (OFD lock on the object).
 */
#ifndef PROPEL_PL_AV_SHARED_H
#define PROPEL_PL_AV_SHARED_H

#include <stdbool.h>
#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

struct pl_av_shared;

/*
 * Open the named table, creating it unless read_only (FI_READ), for
 * addresses of addrlen bytes. *type: FI_AV_UNSPEC is replaced by the
 * table's type. *map_addr: 0 is replaced by the address of the
 * fi_addr_t table in this process (pl_av_shared_layout.h), valid until
 * the close.
 * count sizes a new table (a hint). Errors: -FI_EINVAL (addrlen differs
 * from the table's, bad name), -FI_ENOENT (read_only and no such AV is
 * open anywhere), -FI_EACCES (the name is held by another user or has a
 * group/other mode), -FI_ENOMEM, -FI_EIO (a system call failed).
 */
int pl_av_shared_open(const char *name, size_t addrlen, bool read_only,
		      size_t count, enum fi_av_type *type, void **map_addr,
		      struct pl_av_shared **sh_p);

/* Close (AV close: nothing else runs). The caller waits for the callbacks
 * queued here with pl_rcu_barrier(). */
void pl_av_shared_close(struct pl_av_shared *sh);

/*
 * The address of handle (rx index stripped), or NULL: unknown, removed, not
 * generation 0. Call inside pl_rcu_read_lock(); the pointer stays valid
 * until the unlock. Fast path: an acquire load of the view, one of the
 * slot state (L1).
 */
const void *pl_av_shared_lookup(struct pl_av_shared *sh, fi_addr_t handle);

/* The handle of a published address, inside pl_rcu_read_lock(); 0 or
 * -FI_ENODATA. */
int pl_av_shared_reverse(struct pl_av_shared *sh, const void *addr,
			 fi_addr_t *fi_addr_p);

/* Append addr (or count one more insert of an address already there).
 * 0, -FI_ENOMEM, -FI_ENOSPC, -FI_EIO. */
int pl_av_shared_insert(struct pl_av_shared *sh, const void *addr,
			fi_addr_t *fi_addr_p);

/* Undo one insert of handle; the slot is marked removed by the last one.
 * 0 or -FI_EINVAL (unknown, already removed). */
int pl_av_shared_remove(struct pl_av_shared *sh, fi_addr_t handle);

/* Slots appended so far by every process (removed ones included): the
 * count fi_peer(3)'s query reports. Any thread. */
uint64_t pl_av_shared_count(struct pl_av_shared *sh);

/* Shared memory object name of an AV name for this user (tests). 0, or
 * -FI_EINVAL if name is empty or buf too small. */
int pl_av_shared_shm_name(const char *name, char *buf, size_t len);

#endif /* PROPEL_PL_AV_SHARED_H */
