/* SPDX-License-Identifier: BSD-2-Clause */
/* The FI_SHM_* table (shm_params.h); help texts are what fi_info -e shows. */
#include <pthread.h>
#include <stdint.h>

#include "pl_compiler.h"
#include "pl_param.h"
#include "shm_params.h"

#define SHM_STR_(x) #x
#define SHM_STR(x) SHM_STR_(x)

static const struct pl_param_def shm_param_table[] = {
	{ "tx_size", FI_PARAM_SIZE_T, SHM_STR(SHM_TX_SIZE_DEFAULT),
	  "Max number of outstanding tx operations (sends waiting for an "
	  "acknowledgement or a free bounce buffer) per endpoint" },
	{ "rx_size", FI_PARAM_SIZE_T, SHM_STR(SHM_RX_SIZE_DEFAULT),
	  "Max number of outstanding rx operations: the depth of the "
	  "endpoint's command queue (rounded up to a power of two)" },
	{ "disable_cma", FI_PARAM_BOOL, "false",
	  "Disable use of CMA (Cross Memory Attach, process_vm_readv/"
	  "writev) for copying data directly between processes; large "
	  "messages then go through bounce buffers" },
	{ "sar_threshold", FI_PARAM_SIZE_T, SHM_STR(SHM_SAR_THRESHOLD_DEFAULT),
	  "Max size to use for the segmentation (SAR) protocol through "
	  "bounce buffers; larger messages use CMA when both processes "
	  "allow it, SAR otherwise" },
	{ "inline_size", FI_PARAM_SIZE_T, SHM_STR(SHM_INLINE_SIZE_DEFAULT),
	  "Largest message carried inside a command queue slot (rounded up "
	  "to 64 bytes; each slot is 64 bytes more)" },
	{ "sar_buf_size", FI_PARAM_SIZE_T, SHM_STR(SHM_SAR_BUF_SIZE_DEFAULT),
	  "Bytes per SAR bounce buffer" },
	{ "sar_buf_count", FI_PARAM_SIZE_T, SHM_STR(SHM_SAR_BUF_COUNT_DEFAULT),
	  "SAR bounce buffers per endpoint, in groups of 4: each group "
	  "carries one message at a time" },
	{ "max_peers", FI_PARAM_SIZE_T, SHM_STR(SHM_MAX_PEERS_DEFAULT),
	  "Most distinct endpoints that may send to one endpoint" },
	{ "cma_split_min", FI_PARAM_SIZE_T, SHM_STR(SHM_CMA_SPLIT_MIN_DEFAULT),
	  "Smallest CMA message whose copy the receiver shares with the "
	  "sender: the receiver reads chunks from the front while the "
	  "sender, when it polls, writes chunks from the back; 0 never "
	  "shares (the receiver copies alone)" },
	{ "peer_timeout_ms", FI_PARAM_SIZE_T,
	  SHM_STR(SHM_PEER_TIMEOUT_MS_DEFAULT),
	  "Milliseconds a live peer may leave commands unread in its queue "
	  "(or a transfer from it unfed) before the operations waiting for "
	  "it complete with FI_ETIMEDOUT and it is treated as lost (later "
	  "sends: FI_ECONNREFUSED); 0 waits forever, as the reference does" },
};

static pthread_once_t shm_params_define_once = PTHREAD_ONCE_INIT;
static pthread_once_t shm_params_read_once = PTHREAD_ONCE_INIT;
static struct shm_params shm_params_cur;

static void shm_params_define_cb(void)
{
	(void)pl_param_table_define(&shm_prov, shm_param_table,
				    PL_ARRAY_SIZE(shm_param_table));
}

void shm_params_define(void)
{
	pthread_once(&shm_params_define_once, shm_params_define_cb);
}

static void shm_params_read(void)
{
	struct shm_params *p = &shm_params_cur;

	shm_params_define();
	p->tx_size = pl_param_get_size(&shm_prov, "tx_size",
				       SHM_TX_SIZE_DEFAULT, 1, 1u << 20);
	p->rx_size = pl_param_get_size(&shm_prov, "rx_size",
				       SHM_RX_SIZE_DEFAULT, 2, 1u << 20);
	p->disable_cma = pl_param_get_bool(&shm_prov, "disable_cma", false);
	p->sar_threshold = pl_param_get_size(&shm_prov, "sar_threshold",
					     SHM_SAR_THRESHOLD_DEFAULT, 0,
					     SIZE_MAX);
	p->inline_size = pl_param_get_size(&shm_prov, "inline_size",
					   SHM_INLINE_SIZE_DEFAULT, 0, 65536);
	p->sar_buf_size = pl_param_get_size(&shm_prov, "sar_buf_size",
					    SHM_SAR_BUF_SIZE_DEFAULT, 4096,
					    16u << 20);
	p->sar_buf_count = pl_param_get_size(&shm_prov, "sar_buf_count",
					     SHM_SAR_BUF_COUNT_DEFAULT, 4, 16384);
	p->max_peers = pl_param_get_size(&shm_prov, "max_peers",
					 SHM_MAX_PEERS_DEFAULT, 2, 65535);
	p->cma_split_min = pl_param_get_size(&shm_prov, "cma_split_min",
					     SHM_CMA_SPLIT_MIN_DEFAULT, 0,
					     SIZE_MAX);
	p->peer_timeout_ms = pl_param_get_size(&shm_prov, "peer_timeout_ms",
					       SHM_PEER_TIMEOUT_MS_DEFAULT, 0,
					       (size_t)1 << 40);
}

const struct shm_params *shm_params_get(void)
{
	pthread_once(&shm_params_read_once, shm_params_read);
	return &shm_params_cur;
}

void shm_params_reload_for_test(void)
{
	shm_params_read();
}
