/* SPDX-License-Identifier: BSD-2-Clause */
/* The shm provider's fi_getinfo answer (shm_info.h). */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_info.h"
#include "pl_log.h"
#include "rdm_sep.h"
#include "shm_addr.h"
#include "shm_ep.h"
#include "shm_info.h"
#include "shm_layout.h"
#include "shm_params.h"

static int shm_info_addr(const char *node, const char *service, void **addr_p,
			 size_t *len_p)
{
	char buf[SHM_NAME_MAX];
	int n;

	n = shm_addr_resolve(node, service, buf, sizeof(buf));
	if (n < 0)
		return n;
	*addr_p = strdup(buf);
	if (!*addr_p)
		return -FI_ENOMEM;
	*len_p = (size_t)n + 1;
	return 0;
}

/* An address the application put in the hints, if it is one of ours. */
static int shm_info_hint_addr(const void *addr, size_t len, uint32_t fmt,
			      void **addr_p, size_t *len_p)
{
	if (fmt != FI_ADDR_STR && fmt != FI_FORMAT_UNSPEC)
		return -FI_EINVAL;
	if (shm_addr_check(addr, len))
		return -FI_EINVAL;
	*addr_p = strdup(addr);
	if (!*addr_p)
		return -FI_ENOMEM;
	*len_p = strlen(addr) + 1;
	return 0;
}

static void shm_info_attrs(struct fi_info *info)
{
	const struct shm_params *p = shm_params_get();

	info->caps = SHM_TX_CAPS | SHM_RX_CAPS | SHM_DOMAIN_CAPS;
	info->mode = 0;
	info->addr_format = FI_ADDR_STR;

	info->tx_attr->caps = SHM_TX_CAPS;
	info->tx_attr->msg_order = FI_ORDER_SAS;
	info->tx_attr->comp_order = FI_ORDER_NONE;
	/* defaults: none, as the reference reports; fi_getinfo puts the
	 * ones the hints ask for here (engine/pl_hints_opflags.c) */
	info->tx_attr->op_flags = 0;
	info->rx_attr->op_flags = 0;
	info->tx_attr->inject_size = SHM_INJECT_SIZE;
	info->tx_attr->size = p->tx_size;
	info->tx_attr->iov_limit = SHM_IOV_LIMIT;
	/* remote buffers per fi_readmsg / fi_writemsg (rdm_ep_rma_multi.c);
	 * atomics name one */
	info->tx_attr->rma_iov_limit = 4;

	info->rx_attr->caps = SHM_RX_CAPS;
	info->rx_attr->msg_order = FI_ORDER_SAS;
	/* a bounce-buffer message can complete after a later inline one */
	info->rx_attr->comp_order = FI_ORDER_NONE;
	info->rx_attr->size = p->rx_size;
	info->rx_attr->iov_limit = SHM_IOV_LIMIT;

	info->ep_attr->type = FI_EP_RDM;
	info->ep_attr->protocol = FI_PROTO_SHM;
	info->ep_attr->protocol_version = SHM_LAYOUT_VERSION;
	info->ep_attr->max_msg_size = SIZE_MAX;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	/* tags match on all 64 bits (pl_match_tag): any layout fits */
	info->ep_attr->mem_tag_format = PL_TAG_FORMAT_GENERIC;

	info->domain_attr->caps = SHM_DOMAIN_CAPS;
	info->domain_attr->threading = FI_THREAD_SAFE;
	/* reported as the reference does when the hints leave it open;
	 * FI_PROGRESS_AUTO is accepted when asked for */
	info->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->av_type = FI_AV_UNSPEC;
	info->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
	info->domain_attr->mr_key_size = sizeof(uint64_t);
	info->domain_attr->cq_data_size = sizeof(uint64_t);
	info->domain_attr->cq_cnt = 1024;
	info->domain_attr->ep_cnt = p->max_peers;
	info->domain_attr->tx_ctx_cnt = 1024;
	info->domain_attr->rx_ctx_cnt = 1024;
	/* scalable endpoints: contexts each way (rdm_sep.h) */
	info->domain_attr->max_ep_tx_ctx = RDM_SEP_CTX_MAX;
	info->domain_attr->max_ep_rx_ctx = RDM_SEP_CTX_MAX;
	/* an endpoint binds at most one of each (rdm_srx.h, rdm_stx.h) */
	info->domain_attr->max_ep_stx_ctx = 1;
	info->domain_attr->max_ep_srx_ctx = 1;
	info->domain_attr->mr_iov_limit = 1;
	info->domain_attr->mr_cnt = SHM_MR_CNT;
}

int shm_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info_p)
{
	struct fi_info *info;
	int ret;

	info = fi_dupinfo_1_3(NULL);
	if (!info)
		return -FI_ENOMEM;
	shm_info_attrs(info);
	/* the registration mode shm requires (shm_mr_mode.c) */
	info->domain_attr->mr_mode = shm_mr_mode_offer(version, hints);
	/* S3: auto progress when asked for (the progress thread sleeps);
	 * control operations are synchronous, so either value holds */
	if (hints && hints->domain_attr) {
		if (hints->domain_attr->data_progress == FI_PROGRESS_AUTO)
			info->domain_attr->data_progress = FI_PROGRESS_AUTO;
		if (hints->domain_attr->control_progress == FI_PROGRESS_AUTO)
			info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	}
	info->fabric_attr->name = strdup(SHM_FABRIC_NAME);
	info->fabric_attr->prov_name = strdup("shm");
	info->fabric_attr->prov_version = shm_prov.version;
	info->fabric_attr->api_version = version;
	info->domain_attr->name = strdup(SHM_DOMAIN_NAME);
	if (!info->fabric_attr->name || !info->fabric_attr->prov_name ||
	    !info->domain_attr->name) {
		ret = -FI_ENOMEM;
		goto err;
	}

	/* fi_getinfo(3): with FI_SOURCE node/service name the source,
	 * otherwise the destination, and the source is the default. */
	if (flags & FI_SOURCE) {
		ret = shm_info_addr(node, service, &info->src_addr,
				    &info->src_addrlen);
	} else {
		ret = 0;
		if (node && !shm_addr_node_local(node)) {
			/* another host: shm cannot reach it */
			PL_INFO(FI_LOG_CORE, "shm: node %s is not this host; "
				"shm reaches local peers only\n", node);
			ret = -FI_ENODATA;
		} else if (node || service) {
			ret = shm_info_addr(node, service, &info->dest_addr,
					    &info->dest_addrlen);
		} else if (hints && hints->dest_addr) {
			ret = shm_info_hint_addr(hints->dest_addr,
						 hints->dest_addrlen,
						 hints->addr_format,
						 &info->dest_addr,
						 &info->dest_addrlen);
		}
		if (!ret && hints && hints->src_addr)
			ret = shm_info_hint_addr(hints->src_addr,
						 hints->src_addrlen,
						 hints->addr_format,
						 &info->src_addr,
						 &info->src_addrlen);
		else if (!ret)
			ret = shm_info_addr(NULL, NULL, &info->src_addr,
					    &info->src_addrlen);
	}
	if (ret)
		goto err;
	*info_p = info;
	return 0;

err:
	fi_freeinfo_1_3(info);
	return ret;
}
