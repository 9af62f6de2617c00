/* SPDX-License-Identifier: BSD-2-Clause */
/* The FI_VERBS_* table (vrb_params.h); help texts are what fi_info -e
 * shows. */
#include <pthread.h>

#include "pl_compiler.h"
#include "pl_param.h"
#include "vrb_params.h"
#include "vrb_prov.h"

#define VRB_STR_(x) #x
#define VRB_STR(x) VRB_STR_(x)

static const struct pl_param_def vrb_param_table[] = {
	{ "iface", FI_PARAM_STRING, NULL,
	  "The prefix or the full name of the network interface whose "
	  "addresses fi_getinfo answers with (default: every interface "
	  "bound to an RDMA device)" },
	{ "device_name", FI_PARAM_STRING, NULL,
	  "The RDMA device to use, e.g. rxe0 or mlx5_0 (default: every "
	  "device)" },
	{ "gid_idx", FI_PARAM_INT, "-1",
	  "GID index of the port to report and use; -1 picks the first "
	  "RoCE v2 GID that maps an IPv4 address (not index 0, the "
	  "link-local one)" },
	{ "tx_size", FI_PARAM_SIZE_T, VRB_STR(VRB_TX_SIZE_DEFAULT),
	  "Default maximum tx context size: send work requests an endpoint "
	  "may have outstanding (clamped to the device's max_qp_wr and, "
	  "with rx_size, to its max_cqe)" },
	{ "rx_size", FI_PARAM_SIZE_T, VRB_STR(VRB_RX_SIZE_DEFAULT),
	  "Default maximum rx context size: receives an endpoint may have "
	  "posted (clamped as tx_size); also the depth of a shared receive "
	  "context (fi_srx_context, within max_srq_wr and half of max_cqe)" },
	{ "tx_iov_limit", FI_PARAM_SIZE_T, VRB_STR(VRB_IOV_LIMIT_DEFAULT),
	  "Default maximum tx iov_limit (clamped to the device's max_sge)" },
	{ "rx_iov_limit", FI_PARAM_SIZE_T, VRB_STR(VRB_IOV_LIMIT_DEFAULT),
	  "Default maximum rx iov_limit (clamped to the device's max_sge)" },
	{ "inline_size", FI_PARAM_SIZE_T, VRB_STR(VRB_INLINE_SIZE_DEFAULT),
	  "Maximum inline size for the verbs device: bytes a send carries "
	  "in its work request (fi_inject's limit); the QP may grant less" },
	{ "min_rnr_timer", FI_PARAM_INT, VRB_STR(VRB_MIN_RNR_TIMER_DEFAULT),
	  "Set min_rnr_timer QP attribute (0 - 31): how long a peer waits "
	  "before resending to a receiver with no receive posted" },
	{ "cqread_bunch_size", FI_PARAM_SIZE_T, VRB_STR(VRB_BUNCH_DEFAULT),
	  "The number of entries to be read from the verbs completion "
	  "queue at a time" },
	{ "use_odp", FI_PARAM_BOOL, "0",
	  "Register memory with on-demand paging (IBV_ACCESS_ON_DEMAND): "
	  "the device faults pages in instead of pinning them. Only where "
	  "the device offers it on RC for every access a registration "
	  "asks; otherwise memory is pinned, with one warning per domain" },
};

static pthread_once_t vrb_params_define_once = PTHREAD_ONCE_INIT;
static pthread_once_t vrb_params_read_once = PTHREAD_ONCE_INIT;
static struct vrb_params vrb_params_cur;

static void vrb_params_define_cb(void)
{
	(void)pl_param_table_define(&vrb_prov, vrb_param_table,
				    PL_ARRAY_SIZE(vrb_param_table));
}

void vrb_params_define(void)
{
	pthread_once(&vrb_params_define_once, vrb_params_define_cb);
}

static void vrb_params_read(void)
{
	struct vrb_params *p = &vrb_params_cur;
	const char *s;

	vrb_params_define();
	s = pl_param_get_str(&vrb_prov, "iface", NULL);
	p->iface = (s && *s) ? s : NULL;
	s = pl_param_get_str(&vrb_prov, "device_name", NULL);
	p->device = (s && *s) ? s : NULL;
	p->gid_idx = pl_param_get_int(&vrb_prov, "gid_idx", -1, -1, 65535);
	p->tx_size = pl_param_get_size(&vrb_prov, "tx_size",
				       VRB_TX_SIZE_DEFAULT, 1, 1u << 16);
	p->rx_size = pl_param_get_size(&vrb_prov, "rx_size",
				       VRB_RX_SIZE_DEFAULT, 1, 1u << 16);
	p->tx_iov_limit = pl_param_get_size(&vrb_prov, "tx_iov_limit",
					    VRB_IOV_LIMIT_DEFAULT, 1, 64);
	p->rx_iov_limit = pl_param_get_size(&vrb_prov, "rx_iov_limit",
					    VRB_IOV_LIMIT_DEFAULT, 1, 64);
	p->inline_size = pl_param_get_size(&vrb_prov, "inline_size",
					   VRB_INLINE_SIZE_DEFAULT, 0, 4096);
	p->min_rnr_timer = pl_param_get_int(&vrb_prov, "min_rnr_timer",
					    VRB_MIN_RNR_TIMER_DEFAULT, 0, 31);
	p->bunch = (unsigned)pl_param_get_size(&vrb_prov, "cqread_bunch_size",
					       VRB_BUNCH_DEFAULT, 1,
					       VRB_STASH_MAX);
	p->use_odp = pl_param_get_bool(&vrb_prov, "use_odp", false);
}

const struct vrb_params *vrb_params_get(void)
{
	pthread_once(&vrb_params_read_once, vrb_params_read);
	return &vrb_params_cur;
}
