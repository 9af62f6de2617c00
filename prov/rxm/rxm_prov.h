/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm (DESIGN.md section 7): reliable datagram endpoints over any
 * connection-oriented core (tcp, verbs), reached through the public fi_*
 * calls only. Built so far: the CM data format (rxm_cm_proto.h) and the
 * connection manager (rxm_conn.h). The endpoint over the RDM endpoint
 * layer (rdm/) and the provider's registration in lib/pl_builtin_provs.c
 * come next; prov/rxm/docs/provider.md says what is done and what is not.
 */
#ifndef PROPEL_RXM_PROV_H
#define PROPEL_RXM_PROV_H

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "pl_log.h"

#define RXM_PROV_NAME	"ofi_rxm"

/* The provider's identity, for its log lines (rxm_init.c). */
extern struct fi_provider rxm_prov;

#define RXM_LOG_WARN(subsys, ...) PL_LOG(&rxm_prov, FI_LOG_WARN, subsys, __VA_ARGS__)
#define RXM_LOG_INFO(subsys, ...) PL_LOG(&rxm_prov, FI_LOG_INFO, subsys, __VA_ARGS__)

#endif /* PROPEL_RXM_PROV_H */
