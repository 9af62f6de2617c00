/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shared-memory layout of a named AV (fi_av_attr.name): one POSIX
 * shared memory object per user and name, mode 0600, mapped by every
 * process of that user that opens the AV, so the ranks of a node keep one
 * copy of the table (DESIGN.md section 5).
 *
 *   offset 0                   struct pl_av_shm_hdr, in a page of its own
 *   offset PL_AV_SHM_MAP_OFF   the fi_addr_t table: PL_AV_SHM_MAP_ENTRIES
 *                              words, entry i slot i's fi_addr_t while it
 *                              is VALID, FI_ADDR_NOTAVAIL otherwise; what
 *                              fi_av_attr.map_addr points to (version 2)
 *   offset PL_AV_SHM_SLOTS_OFF slot 0, slot 1, ... (hdr.slot_size bytes
 *                              each; hdr.capacity of them in the file)
 *
 * The fi_addr_t table is for applications that read a shared AV's
 * addresses straight from memory (fi_av(3): an FI_READ opener of a named
 * AV learns the fi_addr_t values another process inserted; fabtests'
 * fi_rdm_shared_av reads ((fi_addr_t *)map_addr)[0]). Its words are
 * written by writers only, under the writer lock; blocks are allocated
 * for the entries below the capacity only (the rest of the range is a
 * hole of the file), and those are FI_ADDR_NOTAVAIL until their slot is
 * appended. Slots past PL_AV_SHM_MAP_ENTRIES have no entry.
 *
 * The table is append-only: a slot is written once, published, and may
 * later be marked removed, but its bytes never change and it is never
 * reused. That is what lets a process read an address out of the mapping
 * without any lock shared with the others: RCU cannot reach across
 * processes (grace periods are per process), but memory that nobody ever
 * rewrites needs no grace period. Each process's RCU protects only its
 * own mapping (pl_av_shared.c). fi_addr_t values are the slot indices
 * (generation 0, pl_av_table.h), the same in every process.
 *
 * Locks, all open-file-description (OFD) record locks on the object, so a
 * process that dies releases them:
 *   byte PL_AV_SHM_LOCK_WRITER  write-locked by a writer (initialization,
 *                               append, removal, growth) in any process
 *   byte PL_AV_SHM_LOCK_OPEN    read-locked by every opener while its AV
 *                               is open. An opener that can write-lock it
 *                               is alone: at open, content left by a
 *                               crashed job is discarded; at close, the
 *                               last one unlinks the name.
 *
 * Publication (S = release store by a writer, L = acquire load):
 *   S0/L0  hdr.magic, stored last by the initializer; openers check it.
 *   S1/L1  slot.state = VALID after the slot's bytes; lookups acquire it
 *          before reading the address.
 *   S2/L2  hdr.count after S1; a process bringing its reverse map up to
 *          date scans the slots below it.
 *   S3/L3  hdr.capacity after ftruncate() grew the file; nobody maps or
 *          touches a slot at or beyond the capacity it loaded (a page past
 *          the end of the file would be SIGBUS).
 *   S4     slot.state = REMOVED; the bytes stay, so a lookup that loaded
 *          VALID just before reads a whole, correct address.
 *   S5     table entry i = i after S1 and before S2, FI_ADDR_NOTAVAIL
 *          after S4 (release: an application that acquires the entry
 *          finds the slot VALID; most order their reads through their
 *          own synchronization with the inserting process anyway).
 * Fields without a label are written under the writer lock before the
 * S that publishes them, or only under it (slot.refcnt).
 */
#ifndef PROPEL_PL_AV_SHARED_LAYOUT_H
#define PROPEL_PL_AV_SHARED_LAYOUT_H

#include <assert.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "pl_atomic.h"

/* Bump on any change to the structures below or to the protocol. */
#define PL_AV_SHM_VERSION	2	/* 2: the fi_addr_t table */
#define PL_AV_SHM_MAGIC		0x316d6873564170ULL	/* "pAVshm1" */

#define PL_AV_SHM_HDR_SIZE	4096	/* slots start page-aligned */
#define PL_AV_SHM_LOCK_WRITER	0	/* byte offsets of the OFD locks */
#define PL_AV_SHM_LOCK_OPEN	1
#define PL_AV_SHM_ADDRLEN_MAX	1024	/* largest provider address */
#define PL_AV_SHM_MAP_OFF	PL_AV_SHM_HDR_SIZE
#define PL_AV_SHM_MAP_ENTRIES	65536u	/* 512 KiB of address space */
#define PL_AV_SHM_SLOTS_OFF	(PL_AV_SHM_MAP_OFF + \
				 PL_AV_SHM_MAP_ENTRIES * sizeof(uint64_t))

enum pl_av_shm_state {
	PL_AV_SHM_FREE = 0,	/* never published (the file's zero fill) */
	PL_AV_SHM_VALID = 1,	/* holds an address (S1) */
	PL_AV_SHM_REMOVED = 2,	/* removed; never reused (S4) */
};

struct pl_av_shm_hdr {
	pl_atomic_u64 magic;	/* PL_AV_SHM_MAGIC once initialized (S0) */
	uint32_t version;	/* PL_AV_SHM_VERSION */
	uint32_t hdr_size;	/* PL_AV_SHM_HDR_SIZE */
	uint32_t addrlen;	/* provider address bytes in each slot */
	uint32_t slot_size;	/* bytes per slot: 8 + addrlen rounded to 8 */
	uint32_t av_type;	/* the initializer's enum fi_av_type */
	uint32_t reserved0;
	uint64_t map_addr;	/* the creator's fi_av_attr.map_addr, for
				 * the record; openers are given the
				 * fi_addr_t table's address */
	pl_atomic_u64 capacity;	/* slots the file holds (S3) */
	pl_atomic_u64 count;	/* slots appended so far (S2) */
	uint64_t reserved[9];
};

struct pl_av_shm_slot {
	pl_atomic_u32 state;	/* enum pl_av_shm_state (S1, S4) */
	uint32_t refcnt;	/* inserts of this address (writer lock) */
	unsigned char addr[];	/* addrlen bytes, zero padding to slot_size */
};

/* Cross-process atomics must be address-free, which lock-free ones are. */
static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics not lock-free");
static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics not lock-free");
static_assert(sizeof(pl_atomic_u64) == 8 && alignof(pl_atomic_u64) == 8,
	      "pl_atomic_u64 layout");
static_assert(sizeof(pl_atomic_u32) == 4 && alignof(pl_atomic_u32) == 4,
	      "pl_atomic_u32 layout");
static_assert(sizeof(struct pl_av_shm_hdr) == 128, "header size");
static_assert(alignof(struct pl_av_shm_hdr) == 8, "header alignment");
static_assert(offsetof(struct pl_av_shm_hdr, version) == 8, "header.version");
static_assert(offsetof(struct pl_av_shm_hdr, map_addr) == 32,
	      "header.map_addr");
static_assert(offsetof(struct pl_av_shm_hdr, capacity) == 40,
	      "header.capacity");
static_assert(offsetof(struct pl_av_shm_hdr, count) == 48, "header.count");
static_assert(sizeof(struct pl_av_shm_hdr) <= PL_AV_SHM_HDR_SIZE,
	      "header fits its page");
static_assert(sizeof(struct pl_av_shm_slot) == 8, "slot header size");
static_assert(PL_AV_SHM_SLOTS_OFF % PL_AV_SHM_HDR_SIZE == 0,
	      "slots start page-aligned (mmap offsets)");
static_assert(offsetof(struct pl_av_shm_slot, addr) == 8, "slot.addr");

/* Bytes per slot for an address of addrlen bytes. */
static inline uint32_t pl_av_shm_slot_size(size_t addrlen)
{
	return (uint32_t)(sizeof(struct pl_av_shm_slot) + ((addrlen + 7) & ~(size_t)7));
}

#endif /* PROPEL_PL_AV_SHARED_LAYOUT_H */
