/* SPDX-License-Identifier: BSD-2-Clause */
/* The FI_OFI_RXM_* table (rxm_params.h); help texts are what fi_info -e
 * shows. */
#include <pthread.h>
#include <stdint.h>

#include "pl_compiler.h"
#include "pl_param.h"
#include "rxm_cm_proto.h"
#include "rxm_params.h"
#include "rxm_prov.h"
#include "rxm_proto.h"

#define RXM_STR_(x) #x
#define RXM_STR(x) RXM_STR_(x)

static const struct pl_param_def rxm_param_table[] = {
	{ "buffer_size", FI_PARAM_SIZE_T, RXM_STR(RXM_BUFFER_SIZE_DEFAULT),
	  "bytes of each receive buffer posted on a connection, header "
	  "included: messages that fit one go eagerly in one buffer, larger "
	  "ones in segments of this size" },
	{ "sar_limit", FI_PARAM_SIZE_T, RXM_STR(RXM_SAR_LIMIT_DEFAULT),
	  "messages up to this size go in segments of buffer_size, copied "
	  "through buffers; larger ones by rendezvous: the receiver reads "
	  "them from the sender's memory through the core, no copy (a core "
	  "without remote reads: this is the largest message)" },
	{ "tx_size", FI_PARAM_SIZE_T, RXM_STR(RXM_TX_SIZE_DEFAULT),
	  "sends an endpoint may have outstanding (tx_attr->size)" },
	{ "rx_size", FI_PARAM_SIZE_T, RXM_STR(RXM_RX_SIZE_DEFAULT),
	  "receives an endpoint may have posted (rx_attr->size)" },
	{ "msg_rx_size", FI_PARAM_SIZE_T, RXM_STR(RXM_MSG_RX_SIZE_DEFAULT),
	  "receive buffers posted on each connection (its flow-control "
	  "window: a sender waits while all are full)" },
	{ "msg_tx_size", FI_PARAM_SIZE_T, "0",
	  "tx_attr->size of each core endpoint (0: the core's default)" },
	{ "unexp_limit", FI_PARAM_SIZE_T, RXM_STR(RXM_UNEXP_LIMIT_DEFAULT),
	  "bytes an endpoint holds for messages that arrived before their "
	  "receive (copies, and a record of each): past it, a connection "
	  "that brings one more keeps that receive buffer until the "
	  "application's receives bring the total back under it, so its "
	  "sender waits (flow control: nothing is dropped). The memory "
	  "held is at most this plus one receive window per connection "
	  "(msg_rx_size buffers, a segmented message staged whole)" },
	{ "use_srx", FI_PARAM_BOOL, "false",
	  "ours has no effect: each connection has its own receive buffers "
	  "(msg_rx_size of them); a shared receive context on the core is "
	  "not used" },
	{ "cm_progress_interval", FI_PARAM_INT, "0",
	  "ours has no effect: connection events are handled as they "
	  "arrive (the core EQ's fd wakes the progress), never on an "
	  "interval" },
	{ "cq_eq_fairness", FI_PARAM_INT, "0",
	  "ours has no effect: every progress pass reads the core's EQ and "
	  "then its CQ, so neither starves the other" },
	{ "use_rndv_write", FI_PARAM_BOOL, "false",
	  "write-based rendezvous: the sender asks the receiver for its "
	  "buffers and writes them (the core's fi_write), instead of the "
	  "receiver reading the sender's. Set on the sending side; "
	  "receivers take both" },
	{ "use_shm", FI_PARAM_BOOL, "true",
	  "send messages to node-local peers (same host and network "
	  "namespace) through the shm provider, opened as this domain's "
	  "peer (one progress, one receive queue and CQ); RMA and atomics "
	  "stay on the core, and so do local peers without shm. Sends up "
	  "to sar_limit are buffered and complete at once, as over the "
	  "core; a larger one completes once its receive took it" },
	{ "enable_direct_send", FI_PARAM_BOOL, "false",
	  "ours has no effect: sends up to sar_limit are copied into "
	  "buffers, larger ones are read from the application's buffers "
	  "(rendezvous)" },
};

static pthread_once_t rxm_params_define_once = PTHREAD_ONCE_INIT;
static pthread_once_t rxm_params_read_once = PTHREAD_ONCE_INIT;
static struct rxm_params rxm_params_cur;

static void rxm_params_define_cb(void)
{
	(void)pl_param_table_define(&rxm_prov, rxm_param_table,
				    PL_ARRAY_SIZE(rxm_param_table));
}

void rxm_params_define(void)
{
	pthread_once(&rxm_params_define_once, rxm_params_define_cb);
}

static void rxm_params_read(void)
{
	struct rxm_params *p = &rxm_params_cur;

	rxm_params_define();
	/* a buffer holds a header and at least one payload byte; its
	 * segment size must stay below 2^32 (rxm_proto.c) */
	p->buffer_size = pl_param_get_size(&rxm_prov, "buffer_size",
					   RXM_BUFFER_SIZE_DEFAULT,
					   sizeof(struct rxm_hdr) + 64,
					   1u << 24);
	p->sar_limit = pl_param_get_size(&rxm_prov, "sar_limit",
					 RXM_SAR_LIMIT_DEFAULT, 1,
					 (size_t)1 << 40);
	p->tx_size = pl_param_get_size(&rxm_prov, "tx_size",
				       RXM_TX_SIZE_DEFAULT, 1, 1u << 16);
	p->rx_size = pl_param_get_size(&rxm_prov, "rx_size",
				       RXM_RX_SIZE_DEFAULT, 1, 1u << 16);
	p->msg_rx_size = pl_param_get_size(&rxm_prov, "msg_rx_size",
					   RXM_MSG_RX_SIZE_DEFAULT, 1, 4096);
	p->msg_tx_size = pl_param_get_size(&rxm_prov, "msg_tx_size", 0, 0,
					   1u << 16);
	p->unexp_limit = pl_param_get_size(&rxm_prov, "unexp_limit",
					   RXM_UNEXP_LIMIT_DEFAULT, 0,
					   (size_t)1 << 48);
	/* read so that a setting is checked and shown (fi_info -e); they
	 * change nothing here, as their help says */
	(void)pl_param_get_bool(&rxm_prov, "use_srx", false);
	(void)pl_param_get_int(&rxm_prov, "cm_progress_interval", 0, 0,
			       INT32_MAX);
	(void)pl_param_get_int(&rxm_prov, "cq_eq_fairness", 0, 0, INT32_MAX);
	(void)pl_param_get_bool(&rxm_prov, "enable_direct_send", false);
	p->use_rndv_write = pl_param_get_bool(&rxm_prov, "use_rndv_write",
					      false);
	p->use_shm = pl_param_get_bool(&rxm_prov, "use_shm", true);
}

const struct rxm_params *rxm_params_get(void)
{
	pthread_once(&rxm_params_read_once, rxm_params_read);
	return &rxm_params_cur;
}
