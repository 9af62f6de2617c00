/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's fi_getinfo, a utility's (pl_layering.c): one FI_EP_RDM entry
 * over each FI_EP_MSG entry of a core that carries messages at a socket
 * address. What it offers is what the endpoint does today (rxm_prov.h):
 * messages and tagged messages with the RDM core's matching, FI_SOURCE,
 * FI_DIRECTED_RECV, FI_MULTI_RECV and remote CQ data; RMA and atomics
 * emulated over messages (rxm_ep_rma.c), with FI_RMA_EVENT.
 */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_info.h"
#include "rdm_sep.h"
#include "rxm_ep.h"
#include "rxm_params.h"
#include "rxm_prov.h"

/* FI_NAMED_RX_CTX: scalable endpoints (rdm_sep.h), a transmit
 * capability as fi_getinfo(3) classes it */
#define RXM_TX_CAPS	(FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_SEND | \
			 FI_READ | FI_WRITE | FI_NAMED_RX_CTX)
#define RXM_RX_CAPS	(FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_RECV | \
			 FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT | \
			 FI_DIRECTED_RECV | FI_SOURCE | FI_MULTI_RECV)
#define RXM_DOM_CAPS	(FI_LOCAL_COMM | FI_REMOTE_COMM)

static bool rxm_info_core_ok(const struct fi_info *core)
{
	return core && core->ep_attr && core->ep_attr->type == FI_EP_MSG &&
	       (core->caps & FI_MSG) && core->tx_attr && core->rx_attr &&
	       core->domain_attr && core->fabric_attr &&
	       (core->addr_format == FI_SOCKADDR_IN ||
		core->addr_format == FI_SOCKADDR_IN6);
}

uint64_t rxm_max_msg_size(const struct fi_info *core)
{
	const struct rxm_params *p = rxm_params_get();
	uint64_t core_max = core->ep_attr ? core->ep_attr->max_msg_size : 0;

	if (!rxm_core_rndv(core) || !core_max)
		return p->sar_limit;
	return core_max > p->sar_limit ? core_max : p->sar_limit;
}

int rxm_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *core,
		 struct fi_info **info_p)
{
	const struct rxm_params *p = rxm_params_get();
	struct fi_info *i;

	(void)version;
	(void)node;
	(void)service;
	(void)flags;
	if (!rxm_info_core_ok(core))
		return -FI_ENODATA;
	i = fi_dupinfo_1_3(core);
	if (!i)
		return -FI_ENOMEM;
	/* dest_addr stays: an rxm endpoint's name is its listener's socket
	 * address, so the core's answer for node/service names the peer's
	 * endpoint there (fabtests insert it in their AV) */
	i->caps = RXM_TX_CAPS | RXM_RX_CAPS | RXM_DOM_CAPS;
	i->mode = 0;
	i->handle = NULL;

	i->tx_attr->caps = RXM_TX_CAPS;
	i->tx_attr->mode = 0;
	i->tx_attr->op_flags = 0;
	/* one connection per peer, a byte stream: sends to one peer are
	 * received in the order they were posted */
	i->tx_attr->msg_order = FI_ORDER_SAS;
	i->tx_attr->comp_order = FI_ORDER_NONE;
	i->tx_attr->inject_size = RXM_INJECT_SIZE;
	i->tx_attr->size = p->tx_size;
	i->tx_attr->iov_limit = RXM_IOV_LIMIT;
	i->tx_attr->rma_iov_limit = RDM_RMA_IOV_MAX;

	i->rx_attr->caps = RXM_RX_CAPS;
	i->rx_attr->mode = 0;
	i->rx_attr->op_flags = 0;
	i->rx_attr->msg_order = FI_ORDER_SAS;
	i->rx_attr->comp_order = FI_ORDER_NONE;
	i->rx_attr->total_buffered_recv = 0;
	i->rx_attr->size = p->rx_size;
	i->rx_attr->iov_limit = RXM_IOV_LIMIT;

	i->ep_attr->type = FI_EP_RDM;
	i->ep_attr->protocol = FI_PROTO_RXM;
	i->ep_attr->protocol_version = 1;
	i->ep_attr->max_msg_size = rxm_max_msg_size(core);
	i->ep_attr->msg_prefix_size = 0;
	i->ep_attr->max_order_raw_size = 0;
	i->ep_attr->max_order_war_size = 0;
	i->ep_attr->max_order_waw_size = 0;
	i->ep_attr->mem_tag_format = PL_TAG_FORMAT_GENERIC;
	i->ep_attr->tx_ctx_cnt = 1;
	i->ep_attr->rx_ctx_cnt = 1;

	i->domain_attr->threading = FI_THREAD_SAFE;
	i->domain_attr->control_progress = FI_PROGRESS_AUTO;
	/* the core's answer carries the data progress the application
	 * asked for (pl_layering.c): the RDM core serves both, manual
	 * through the application's calls, auto through the domain's
	 * progress thread */
	if (i->domain_attr->data_progress != FI_PROGRESS_AUTO)
		i->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	i->domain_attr->resource_mgmt = FI_RM_ENABLED;
	i->domain_attr->av_type = FI_AV_UNSPEC;
	/* messages need no registration; MRs are the engine's, and an
	 * application asked nothing gets offsets and its own keys (the
	 * domain runs in the mode its fi_info names, rxm_domain.c) */
	i->domain_attr->mr_mode = 0;
	i->domain_attr->mr_key_size = 8;
	i->domain_attr->cq_data_size = 8;
	/* contexts of a scalable endpoint, each way (rdm_sep.h) */
	i->domain_attr->max_ep_tx_ctx = RDM_SEP_CTX_MAX;
	i->domain_attr->max_ep_rx_ctx = RDM_SEP_CTX_MAX;
	/* the RDM core's shared contexts (rdm_srx.h, rdm_stx.h) */
	i->domain_attr->max_ep_stx_ctx = 1;
	i->domain_attr->max_ep_srx_ctx = 1;
	i->domain_attr->caps = RXM_DOM_CAPS;
	i->domain_attr->mode = 0;
	*info_p = i;
	return 0;
}
