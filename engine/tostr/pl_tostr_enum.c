/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Names of enumerated values as fi_tostr prints them. Tables are indexed by
 * value; a hole (NULL) is a value the reference leaves unnamed
 * (FI_PROTO_MXM, FI_PROTO_MRAIL), so it prints "Unknown" here too.
 */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_trigger.h>
#include <rdma/providers/fi_log.h>

#include "pl_compiler.h"
#include "pl_tostr.h"

#define ENUM_TABLE(id, prov)						\
	const struct pl_tostr_enum pl_tostr_enum_##id = {		\
		.names = id##_names,					\
		.count = PL_ARRAY_SIZE(id##_names),			\
		.prov_specific = (prov),				\
	}

static const char *const ep_type_names[] = {
	[FI_EP_UNSPEC] = "FI_EP_UNSPEC",
	[FI_EP_MSG] = "FI_EP_MSG",
	[FI_EP_DGRAM] = "FI_EP_DGRAM",
	[FI_EP_RDM] = "FI_EP_RDM",
	[FI_EP_SOCK_STREAM] = "FI_EP_SOCK_STREAM",
	[FI_EP_SOCK_DGRAM] = "FI_EP_SOCK_DGRAM",
};
ENUM_TABLE(ep_type, 0);

static const char *const addr_format_names[] = {
	[FI_FORMAT_UNSPEC] = "FI_FORMAT_UNSPEC",
	[FI_SOCKADDR] = "FI_SOCKADDR",
	[FI_SOCKADDR_IN] = "FI_SOCKADDR_IN",
	[FI_SOCKADDR_IN6] = "FI_SOCKADDR_IN6",
	[FI_SOCKADDR_IB] = "FI_SOCKADDR_IB",
	[FI_ADDR_PSMX] = "FI_ADDR_PSMX",
	[FI_ADDR_GNI] = "FI_ADDR_GNI",
	[FI_ADDR_BGQ] = "FI_ADDR_BGQ",
	[FI_ADDR_MLX] = "FI_ADDR_MLX",
	[FI_ADDR_STR] = "FI_ADDR_STR",
	[FI_ADDR_PSMX2] = "FI_ADDR_PSMX2",
	[FI_ADDR_IB_UD] = "FI_ADDR_IB_UD",
	[FI_ADDR_EFA] = "FI_ADDR_EFA",
	[FI_ADDR_PSMX3] = "FI_ADDR_PSMX3",
	[FI_ADDR_OPX] = "FI_ADDR_OPX",
	[FI_ADDR_CXI] = "FI_ADDR_CXI",
};
ENUM_TABLE(addr_format, 1);

static const char *const threading_names[] = {
	[FI_THREAD_UNSPEC] = "FI_THREAD_UNSPEC",
	[FI_THREAD_SAFE] = "FI_THREAD_SAFE",
	[FI_THREAD_FID] = "FI_THREAD_FID",
	[FI_THREAD_DOMAIN] = "FI_THREAD_DOMAIN",
	[FI_THREAD_COMPLETION] = "FI_THREAD_COMPLETION",
	[FI_THREAD_ENDPOINT] = "FI_THREAD_ENDPOINT",
};
ENUM_TABLE(threading, 0);

static const char *const progress_names[] = {
	[FI_PROGRESS_UNSPEC] = "FI_PROGRESS_UNSPEC",
	[FI_PROGRESS_AUTO] = "FI_PROGRESS_AUTO",
	[FI_PROGRESS_MANUAL] = "FI_PROGRESS_MANUAL",
};
ENUM_TABLE(progress, 0);

static const char *const protocol_names[] = {
	[FI_PROTO_UNSPEC] = "FI_PROTO_UNSPEC",
	[FI_PROTO_RDMA_CM_IB_RC] = "FI_PROTO_RDMA_CM_IB_RC",
	[FI_PROTO_IWARP] = "FI_PROTO_IWARP",
	[FI_PROTO_IB_UD] = "FI_PROTO_IB_UD",
	[FI_PROTO_PSMX] = "FI_PROTO_PSMX",
	[FI_PROTO_UDP] = "FI_PROTO_UDP",
	[FI_PROTO_SOCK_TCP] = "FI_PROTO_SOCK_TCP",
	[FI_PROTO_MXM] = NULL,
	[FI_PROTO_IWARP_RDM] = "FI_PROTO_IWARP_RDM",
	[FI_PROTO_IB_RDM] = "FI_PROTO_IB_RDM",
	[FI_PROTO_GNI] = "FI_PROTO_GNI",
	[FI_PROTO_RXM] = "FI_PROTO_RXM",
	[FI_PROTO_RXD] = "FI_PROTO_RXD",
	[FI_PROTO_MLX] = "FI_PROTO_MLX",
	[FI_PROTO_NETWORKDIRECT] = "FI_PROTO_NETWORKDIRECT",
	[FI_PROTO_PSMX2] = "FI_PROTO_PSMX2",
	[FI_PROTO_SHM] = "FI_PROTO_SHM",
	[FI_PROTO_MRAIL] = NULL,
	[FI_PROTO_RSTREAM] = "FI_PROTO_RSTREAM",
	[FI_PROTO_RDMA_CM_IB_XRC] = "FI_PROTO_RDMA_CM_IB_XRC",
	[FI_PROTO_EFA] = "FI_PROTO_EFA",
	[FI_PROTO_PSMX3] = "FI_PROTO_PSMX3",
	[FI_PROTO_RXM_TCP] = "FI_PROTO_RXM_TCP",
	[FI_PROTO_OPX] = "FI_PROTO_OPX",
	[FI_PROTO_CXI] = "FI_PROTO_CXI",
	[FI_PROTO_XNET] = "FI_PROTO_XNET",
};
ENUM_TABLE(protocol, 1);

static const char *const av_type_names[] = {
	[FI_AV_UNSPEC] = "FI_AV_UNSPEC",
	[FI_AV_MAP] = "FI_AV_MAP",
	[FI_AV_TABLE] = "FI_AV_TABLE",
};
ENUM_TABLE(av_type, 0);

static const char *const atomic_type_names[] = {
	[FI_INT8] = "FI_INT8",
	[FI_UINT8] = "FI_UINT8",
	[FI_INT16] = "FI_INT16",
	[FI_UINT16] = "FI_UINT16",
	[FI_INT32] = "FI_INT32",
	[FI_UINT32] = "FI_UINT32",
	[FI_INT64] = "FI_INT64",
	[FI_UINT64] = "FI_UINT64",
	[FI_FLOAT] = "FI_FLOAT",
	[FI_DOUBLE] = "FI_DOUBLE",
	[FI_FLOAT_COMPLEX] = "FI_FLOAT_COMPLEX",
	[FI_DOUBLE_COMPLEX] = "FI_DOUBLE_COMPLEX",
	[FI_LONG_DOUBLE] = "FI_LONG_DOUBLE",
	[FI_LONG_DOUBLE_COMPLEX] = "FI_LONG_DOUBLE_COMPLEX",
	[FI_INT128] = "FI_INT128",
	[FI_UINT128] = "FI_UINT128",
};
ENUM_TABLE(atomic_type, 0);

static const char *const atomic_op_names[] = {
	[FI_MIN] = "FI_MIN",
	[FI_MAX] = "FI_MAX",
	[FI_SUM] = "FI_SUM",
	[FI_PROD] = "FI_PROD",
	[FI_LOR] = "FI_LOR",
	[FI_LAND] = "FI_LAND",
	[FI_BOR] = "FI_BOR",
	[FI_BAND] = "FI_BAND",
	[FI_LXOR] = "FI_LXOR",
	[FI_BXOR] = "FI_BXOR",
	[FI_ATOMIC_READ] = "FI_ATOMIC_READ",
	[FI_ATOMIC_WRITE] = "FI_ATOMIC_WRITE",
	[FI_CSWAP] = "FI_CSWAP",
	[FI_CSWAP_NE] = "FI_CSWAP_NE",
	[FI_CSWAP_LE] = "FI_CSWAP_LE",
	[FI_CSWAP_LT] = "FI_CSWAP_LT",
	[FI_CSWAP_GE] = "FI_CSWAP_GE",
	[FI_CSWAP_GT] = "FI_CSWAP_GT",
	[FI_MSWAP] = "FI_MSWAP",
};
ENUM_TABLE(atomic_op, 0);

static const char *const eq_event_names[] = {
	[FI_NOTIFY] = "FI_NOTIFY",
	[FI_CONNREQ] = "FI_CONNREQ",
	[FI_CONNECTED] = "FI_CONNECTED",
	[FI_SHUTDOWN] = "FI_SHUTDOWN",
	[FI_MR_COMPLETE] = "FI_MR_COMPLETE",
	[FI_AV_COMPLETE] = "FI_AV_COMPLETE",
	[FI_JOIN_COMPLETE] = "FI_JOIN_COMPLETE",
};
ENUM_TABLE(eq_event, 0);

static const char *const op_type_names[] = {
	[FI_OP_RECV] = "FI_OP_RECV",
	[FI_OP_SEND] = "FI_OP_SEND",
	[FI_OP_TRECV] = "FI_OP_TRECV",
	[FI_OP_TSEND] = "FI_OP_TSEND",
	[FI_OP_READ] = "FI_OP_READ",
	[FI_OP_WRITE] = "FI_OP_WRITE",
	[FI_OP_ATOMIC] = "FI_OP_ATOMIC",
	[FI_OP_FETCH_ATOMIC] = "FI_OP_FETCH_ATOMIC",
	[FI_OP_COMPARE_ATOMIC] = "FI_OP_COMPARE_ATOMIC",
	[FI_OP_CNTR_SET] = "FI_OP_CNTR_SET",
	[FI_OP_CNTR_ADD] = "FI_OP_CNTR_ADD",
};
ENUM_TABLE(op_type, 0);

static const char *const collective_op_names[] = {
	[FI_BARRIER] = "FI_BARRIER",
	[FI_BROADCAST] = "FI_BROADCAST",
	[FI_ALLTOALL] = "FI_ALLTOALL",
	[FI_ALLREDUCE] = "FI_ALLREDUCE",
	[FI_ALLGATHER] = "FI_ALLGATHER",
	[FI_REDUCE_SCATTER] = "FI_REDUCE_SCATTER",
	[FI_REDUCE] = "FI_REDUCE",
	[FI_SCATTER] = "FI_SCATTER",
	[FI_GATHER] = "FI_GATHER",
};
ENUM_TABLE(collective_op, 0);

static const char *const hmem_iface_names[] = {
	[FI_HMEM_SYSTEM] = "FI_HMEM_SYSTEM",
	[FI_HMEM_CUDA] = "FI_HMEM_CUDA",
	[FI_HMEM_ROCR] = "FI_HMEM_ROCR",
	[FI_HMEM_ZE] = "FI_HMEM_ZE",
	[FI_HMEM_NEURON] = "FI_HMEM_NEURON",
	[FI_HMEM_SYNAPSEAI] = "FI_HMEM_SYNAPSEAI",
};
ENUM_TABLE(hmem_iface, 0);

static const char *const cq_format_names[] = {
	[FI_CQ_FORMAT_UNSPEC] = "FI_CQ_FORMAT_UNSPEC",
	[FI_CQ_FORMAT_CONTEXT] = "FI_CQ_FORMAT_CONTEXT",
	[FI_CQ_FORMAT_MSG] = "FI_CQ_FORMAT_MSG",
	[FI_CQ_FORMAT_DATA] = "FI_CQ_FORMAT_DATA",
	[FI_CQ_FORMAT_TAGGED] = "FI_CQ_FORMAT_TAGGED",
};
ENUM_TABLE(cq_format, 0);

/* The spellings FI_LOG_LEVEL and FI_LOG_SUBSYS accept. */
static const char *const log_level_names[] = {
	[FI_LOG_WARN] = "warn",
	[FI_LOG_TRACE] = "trace",
	[FI_LOG_INFO] = "info",
	[FI_LOG_DEBUG] = "debug",
};
ENUM_TABLE(log_level, 0);

static const char *const log_subsys_names[] = {
	[FI_LOG_CORE] = "core",
	[FI_LOG_FABRIC] = "fabric",
	[FI_LOG_DOMAIN] = "domain",
	[FI_LOG_EP_CTRL] = "ep_ctrl",
	[FI_LOG_EP_DATA] = "ep_data",
	[FI_LOG_AV] = "av",
	[FI_LOG_CQ] = "cq",
	[FI_LOG_EQ] = "eq",
	[FI_LOG_MR] = "mr",
	[FI_LOG_CNTR] = "cntr",
};
ENUM_TABLE(log_subsys, 0);

static const char *const resource_mgmt_names[] = {
	[FI_RM_UNSPEC] = "FI_RM_UNSPEC",
	[FI_RM_DISABLED] = "FI_RM_DISABLED",
	[FI_RM_ENABLED] = "FI_RM_ENABLED",
};
ENUM_TABLE(resource_mgmt, 0);

/* FI_BUS_UNSPEC is FI_BUS_UNKNOWN; fi_info shows the latter. */
static const char *const bus_type_names[] = {
	[FI_BUS_UNKNOWN] = "FI_BUS_UNKNOWN",
	[FI_BUS_PCI] = "FI_BUS_PCI",
};
ENUM_TABLE(bus_type, 0);

static const char *const link_state_names[] = {
	[FI_LINK_UNKNOWN] = "FI_LINK_UNKNOWN",
	[FI_LINK_DOWN] = "FI_LINK_DOWN",
	[FI_LINK_UP] = "FI_LINK_UP",
};
ENUM_TABLE(link_state, 0);

const char *pl_tostr_enum_name(const struct pl_tostr_enum *e, uint32_t v)
{
	if (e->prov_specific && (v & FI_PROV_SPECIFIC))
		return "Provider specific";
	if (v < e->count && e->names[v])
		return e->names[v];
	return "Unknown";
}
