/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider's FI_SHM_* variables (table in shm_params.c) and the
 * provider identity they and the provider's log lines hang off.
 *
 * Names shared with the reference keep its meaning where the mechanism is
 * the same: FI_SHM_TX_SIZE / FI_SHM_RX_SIZE (queue depths),
 * FI_SHM_DISABLE_CMA. FI_SHM_SAR_THRESHOLD is the largest message moved
 * by segmentation through bounce buffers; above it single copy (CMA) is
 * used when both sides allow it. propel has no third ("mmap") protocol,
 * so without CMA every message above the inline size goes by SAR, and the
 * default is 16 KiB rather than the reference's SIZE_MAX (there, the
 * threshold only applies when CMA is off).
 */
#ifndef PROPEL_SHM_PARAMS_H
#define PROPEL_SHM_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "pl_log.h"

extern struct fi_provider shm_prov;

/* The entry point for lib/pl_builtin_provs.c (shm_prov.c). */
struct fi_provider *shm_prov_ini(void);

#define SHM_LOG(level, subsys, ...) PL_LOG(&shm_prov, level, subsys, __VA_ARGS__)
#define SHM_WARN(subsys, ...) SHM_LOG(FI_LOG_WARN, subsys, __VA_ARGS__)
#define SHM_INFO(subsys, ...) SHM_LOG(FI_LOG_INFO, subsys, __VA_ARGS__)
#define SHM_DBG(subsys, ...)  SHM_LOG(FI_LOG_DEBUG, subsys, __VA_ARGS__)

#define SHM_TX_SIZE_DEFAULT		1024
#define SHM_RX_SIZE_DEFAULT		1024
/* S3: bounce buffers up to 8 KiB, single copy (CMA) above. Once the
 * receiver and the sender share a CMA copy (SHM_CMA_SPLIT_MIN_DEFAULT),
 * CMA moves 64-512 KiB at 1.2-2x the speed of SAR and halves the
 * one-way latency there (a 16 KiB message through bounce buffers took
 * 1.7x the reference's time, through CMA 0.86x); measured on this 2-vCPU
 * VM and on a 16-core machine, prov/shm/docs/transport.md "Choosing the
 * defaults". (An earlier VM state had SAR ahead up to 512 KiB against
 * a receiver-only CMA copy; that default stood until split copies.) CMA
 * also costs half SAR's memory traffic, and the receiver pulls the data
 * without the sender's progress. */
#define SHM_SAR_THRESHOLD_DEFAULT	8192
/* S3: 1024, not 192: a 256 B-1 KiB ping-pong goes inline (~0.85 us)
 * instead of through a bounce buffer (~1.5 us); 1.1 MiB of queue */
#define SHM_INLINE_SIZE_DEFAULT		1024
/* S3: CMA messages from 64 KiB on are copied by both sides, in two
 * chunks of at least 32 KiB (shm_xfer_split.c); 0 turns it off. Measured
 * in prov/shm/docs/transport.md, "Split copies". */
#define SHM_CMA_SPLIT_MIN_DEFAULT	65536
#define SHM_SAR_BUF_SIZE_DEFAULT	32768
#define SHM_SAR_BUF_COUNT_DEFAULT	32
#define SHM_MAX_PEERS_DEFAULT		256
/* DESIGN.md 7a (liveness): a live peer whose command queue holds
 * commands and whose consumer has not moved for this long is treated as
 * lost. Five minutes: longer than any pause an honest process takes
 * between two progress calls in a job that still expects an answer, and
 * short enough that a stopped peer does not hang its partners forever.
 * 0 waits forever, as the reference does. */
#define SHM_PEER_TIMEOUT_MS_DEFAULT	300000
/* domain_attr->mr_cnt: the registrations a domain advertises. Its key
 * map has no fixed size; 1024 is what FI_SHM_MR_TABLE's default gave
 * before the layout dropped that table (version 6). */
#define SHM_MR_CNT			1024

/* The values in effect; read once per process (first call). */
struct shm_params {
	size_t	tx_size;	/* FI_SHM_TX_SIZE: sends in flight per ep */
	size_t	rx_size;	/* FI_SHM_RX_SIZE: command queue slots */
	bool	disable_cma;	/* FI_SHM_DISABLE_CMA */
	size_t	sar_threshold;	/* FI_SHM_SAR_THRESHOLD */
	size_t	inline_size;	/* FI_SHM_INLINE_SIZE: bytes in a slot */
	size_t	sar_buf_size;	/* FI_SHM_SAR_BUF_SIZE */
	size_t	sar_buf_count;	/* FI_SHM_SAR_BUF_COUNT (per endpoint) */
	size_t	max_peers;	/* FI_SHM_MAX_PEERS: peer table entries */
	size_t	cma_split_min;	/* FI_SHM_CMA_SPLIT_MIN, 0: never split */
	size_t	peer_timeout_ms; /* FI_SHM_PEER_TIMEOUT_MS, 0: forever */
};

/* Define the table (idempotent, thread-safe). The provider's ini and
 * fi_getparams' discovery hook call it. */
void shm_params_define(void);

/* Defines if needed, reads once, returns the cached values. */
const struct shm_params *shm_params_get(void);

/* Tests only: read the environment again on the next get. Not
 * thread-safe. */
void shm_params_reload_for_test(void);

#endif /* PROPEL_SHM_PARAMS_H */
