/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Default operation flags (tx_attr->op_flags, rx_attr->op_flags) asked for
 * in the hints. fi_endpoint(3): they are the flags that calls without a
 * flags argument (fi_send, fi_recv, ...) use, so an application that asks
 * for FI_MULTI_RECV on receive or FI_INJECT on transmit relies on getting
 * exactly that. The engine applies one rule for every provider:
 *
 *  - hints with op_flags 0 leave the provider's defaults;
 *  - otherwise each requested flag must be one a default can carry and
 *    the provider can serve with what it reports (FI_MULTI_RECV needs the
 *    capability, FI_INJECT an inject size, FI_MULTICAST / FI_FENCE their
 *    capabilities, FI_COMMIT_COMPLETE persistent memory), and the hints'
 *    flags then come back as the endpoint's defaults; a flag it cannot
 *    serve refuses the provider (-FI_ENODATA), logged with its reason.
 *
 * Checked against the provider's capabilities as it reported them, before
 * they are narrowed to what the hints asked: the provider can serve the
 * flag whether or not the application also named the capability.
 */
#include <rdma/fi_errno.h>

#include "pl_hints_opflags.h"
#include "pl_log.h"
#include "pl_tostr.h"

/* Flags a transmit default may hold (fi_endpoint(3), "op_flags"). */
#define PL_OPFLAGS_TX	(FI_INJECT | FI_COMPLETION | FI_INJECT_COMPLETE | \
			 FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE |     \
			 FI_MATCH_COMPLETE | FI_COMMIT_COMPLETE |          \
			 FI_MULTICAST | FI_FENCE)
/* ... and a receive default. */
#define PL_OPFLAGS_RX	(FI_COMPLETION | FI_MULTI_RECV)

static const char *pl_hints_opflags_who(const struct fi_info *info)
{
	return info->fabric_attr && info->fabric_attr->prov_name ?
	       info->fabric_attr->prov_name : "provider";
}

#define PL_OPFLAGS_REFUSE(info, fmt, ...)				\
	do {								\
		PL_INFO(FI_LOG_CORE, "%s: " fmt,			\
			pl_hints_opflags_who(info), ##__VA_ARGS__);	\
		return -FI_ENODATA;					\
	} while (0)

static int pl_hints_opflags_tx(uint64_t want, const struct fi_info *info)
{
	uint64_t caps = info->caps | info->tx_attr->caps;
	char n[256];

	if (want & ~PL_OPFLAGS_TX)
		PL_OPFLAGS_REFUSE(info, "tx op_flags that are not transmit "
				  "defaults: %s\n",
				  pl_tostr_flags_names(n, sizeof(n),
						       &pl_tostr_flags_op,
						       want & ~PL_OPFLAGS_TX));
	if ((want & FI_INJECT) && !info->tx_attr->inject_size)
		PL_OPFLAGS_REFUSE(info, "tx op_flags FI_INJECT without an "
				  "inject size\n");
	if ((want & FI_MULTICAST) && !(caps & FI_MULTICAST))
		PL_OPFLAGS_REFUSE(info, "tx op_flags FI_MULTICAST without "
				  "the capability\n");
	if ((want & FI_FENCE) && !(caps & FI_FENCE))
		PL_OPFLAGS_REFUSE(info, "tx op_flags FI_FENCE without the "
				  "capability\n");
	if ((want & FI_COMMIT_COMPLETE) && !(caps & FI_RMA_PMEM))
		PL_OPFLAGS_REFUSE(info, "tx op_flags FI_COMMIT_COMPLETE "
				  "without FI_RMA_PMEM\n");
	return 0;
}

static int pl_hints_opflags_rx(uint64_t want, const struct fi_info *info)
{
	uint64_t caps = info->caps | info->rx_attr->caps;
	char n[256];

	if (want & ~PL_OPFLAGS_RX)
		PL_OPFLAGS_REFUSE(info, "rx op_flags that are not receive "
				  "defaults: %s\n",
				  pl_tostr_flags_names(n, sizeof(n),
						       &pl_tostr_flags_op,
						       want & ~PL_OPFLAGS_RX));
	if ((want & FI_MULTI_RECV) && !(caps & FI_MULTI_RECV))
		PL_OPFLAGS_REFUSE(info, "rx op_flags FI_MULTI_RECV without "
				  "the capability\n");
	return 0;
}

int pl_hints_opflags_match(const struct fi_info *hints, struct fi_info *info)
{
	uint64_t tx = hints->tx_attr ? hints->tx_attr->op_flags : 0;
	uint64_t rx = hints->rx_attr ? hints->rx_attr->op_flags : 0;

	if ((tx && pl_hints_opflags_tx(tx, info)) ||
	    (rx && pl_hints_opflags_rx(rx, info)))
		return -FI_ENODATA;
	if (tx)
		info->tx_attr->op_flags = tx;
	if (rx)
		info->rx_attr->op_flags = rx;
	return 0;
}
