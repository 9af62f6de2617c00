/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the shm provider answers to fi_getinfo (its part: the engine then
 * applies the hint-matching rules of engine/info/pl_hints_match.h to it).
 * Capabilities are the provider's target set (DESIGN.md section 7);
 * sizes come from the FI_SHM_* parameters. Thread-safe.
 */
#ifndef PROPEL_SHM_INFO_H
#define PROPEL_SHM_INFO_H

#include <rdma/fabric.h>

#define SHM_FABRIC_NAME		"shm"
#define SHM_DOMAIN_NAME		"shm"
/* fi_inject: what one SAR ring can take synchronously is far more; the
 * reference's value is what applications are tuned for. */
#define SHM_INJECT_SIZE		4096
/* iov_limit of both directions: what one CMA command carries
 * (SHM_CMA_IOV_MAX) and what a posted receive holds (PL_MATCH_IOV_MAX). */
#define SHM_IOV_LIMIT		4

/* FI_NAMED_RX_CTX: the initiator names a receive context (rdm_sep.h),
 * a transmit capability as fi_getinfo(3) classes it */
#define SHM_TX_CAPS (FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_SEND | \
		     FI_READ | FI_WRITE | FI_NAMED_RX_CTX)
#define SHM_RX_CAPS (FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_RECV | \
		     FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SOURCE |          \
		     FI_SOURCE_ERR | FI_DIRECTED_RECV | FI_MULTI_RECV |      \
		     FI_RMA_EVENT)
/* node-local only: never FI_REMOTE_COMM (DESIGN.md section 10).
 * FI_SHARED_AV: named AVs (fi_av_attr.name) are one table in shared
 * memory for every process of the node (the engine's pl_av_shared.c),
 * and an FI_READ opener finds the fi_addr_t of each entry at
 * fi_av_attr.map_addr (docs/fabtests.md, fi_rdm_shared_av). */
#define SHM_DOMAIN_CAPS	(FI_LOCAL_COMM | FI_SHARED_AV)

/*
 * One fi_info for (node, service, flags) as fi_getinfo(3) passes them:
 * src_addr / dest_addr resolved the reference's way (shm_addr_resolve).
 * hints are not matched here (the engine does), only used for an address
 * the application gave in them. Returns 0, -FI_ENOMEM, -FI_EINVAL.
 */
int shm_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info_p);

#endif /* PROPEL_SHM_INFO_H */
