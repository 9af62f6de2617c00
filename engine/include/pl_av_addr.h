/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fi_addr_t encoding every engine AV uses, for the providers whose
 * data path keys per-peer state by the slot of an address (a peer cache
 * indexed by slot must not decode fi_addr_t on its own).
 *
 * fi_addr_t layout (the values an AV hands out; DESIGN.md section 5):
 *
 *    63        48 47        32 31                       0
 *   +------------+------------+--------------------------+
 *   |  rx index  | generation |        slot index        |
 *   +------------+------------+--------------------------+
 *
 *   slot index   bits 0..31. For FI_AV_TABLE it is the insertion index
 *                fi_av(3) promises: 0 for the first address, then 1, 2...
 *                The lowest free slot is used, as fi_av(3) asks; index
 *                0xffffffff is never used.
 *   generation   bits 32..47: 0 the first time a slot is used, one more
 *                at each reuse after a removal. A handle from before the
 *                removal carries the old generation and no longer matches:
 *                stale values are detected, not aliased to the new peer.
 *                A slot whose generation would pass PL_AV_GEN_MAX is
 *                retired for good, so detection is exact, never
 *                probabilistic (one slot lost per 65535 reuses of it).
 *   rx index     bits 48..63: zero in what the AV returns; fi_rx_addr()
 *                puts a scalable endpoint's receive context in the top
 *                rx_ctx_bits (at most PL_AV_RX_CTX_BITS_MAX) bits.
 *
 * So a table AV that nobody removes from gives exactly 0, 1, 2..., values
 * are never pointers, and FI_ADDR_NOTAVAIL (all ones) is never valid,
 * whatever rx_ctx_bits is. Shared (named) AVs use the same layout with
 * generation 0: their slots are never reused (pl_av_shared.c).
 */
#ifndef PROPEL_PL_AV_ADDR_H
#define PROPEL_PL_AV_ADDR_H

#include <stdint.h>

#include <rdma/fabric.h>

#define PL_AV_IDX_BITS		32
#define PL_AV_GEN_SHIFT		32
#define PL_AV_GEN_BITS		16
#define PL_AV_IDX_MAX		0xfffffffeULL
#define PL_AV_GEN_MAX		0xfffeU
#define PL_AV_RX_CTX_BITS_MAX	16
/* Bits that must be zero in a handle once the rx index is stripped. */
#define PL_AV_HANDLE_MASK	((1ULL << (PL_AV_IDX_BITS + PL_AV_GEN_BITS)) - 1)

static inline fi_addr_t pl_av_table_handle(uint64_t idx, uint32_t gen)
{
	return (fi_addr_t)(idx | ((uint64_t)gen << PL_AV_GEN_SHIFT));
}

static inline uint64_t pl_av_table_handle_idx(fi_addr_t handle)
{
	return handle & 0xffffffffULL;
}

static inline uint32_t pl_av_table_handle_gen(fi_addr_t handle)
{
	return (uint32_t)(handle >> PL_AV_GEN_SHIFT) & 0xffffU;
}

#endif /* PROPEL_PL_AV_ADDR_H */
