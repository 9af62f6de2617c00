/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_OFI_RXM_* variables (fi_info -e, docs/params.md). Read once; the
 * values are immutable afterwards, so any thread reads them unlocked.
 */
#ifndef PROPEL_RXM_PARAMS_H
#define PROPEL_RXM_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RXM_BUFFER_SIZE_DEFAULT	16384
/* measured by tuning/sweep_rxm.py (prov/rxm/docs/provider.md, "The SAR
 * limit, measured"): from 32 KiB on the rendezvous read moves more than
 * twice the segments' bandwidth for half again their latency; at 16 KiB
 * the two are even */
#define RXM_SAR_LIMIT_DEFAULT	16384
#define RXM_TX_SIZE_DEFAULT	1024
#define RXM_RX_SIZE_DEFAULT	1024
#define RXM_MSG_RX_SIZE_DEFAULT	32
/* bytes an endpoint holds for messages no receive took yet: enough for
 * any MPI job's unexpected traffic on this class of machine, small
 * beside its memory (prov/rxm/docs/provider.md, "Unexpected messages") */
#define RXM_UNEXP_LIMIT_DEFAULT	268435456	/* 256 MiB */

struct rxm_params {
	size_t buffer_size;	/* FI_OFI_RXM_BUFFER_SIZE */
	uint64_t sar_limit;	/* FI_OFI_RXM_SAR_LIMIT */
	size_t tx_size, rx_size;	/* FI_OFI_RXM_TX_SIZE / RX_SIZE */
	size_t msg_rx_size;	/* FI_OFI_RXM_MSG_RX_SIZE */
	size_t msg_tx_size;	/* FI_OFI_RXM_MSG_TX_SIZE, 0: the core's */
	bool use_rndv_write;	/* FI_OFI_RXM_USE_RNDV_WRITE */
	size_t unexp_limit;	/* FI_OFI_RXM_UNEXP_LIMIT */
	bool use_shm;		/* FI_OFI_RXM_USE_SHM */
};

void rxm_params_define(void);
const struct rxm_params *rxm_params_get(void);

#endif
