/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm (DESIGN.md section 7): FI_EP_RDM endpoints over a
 * connection-oriented core (tcp now), reached through the public fi_*
 * calls only. The engine layers it over each core (pl_layering.c:
 * "tcp;ofi_rxm"); its endpoint is an RDM endpoint core (rdm/) over the
 * transport in rxm_ep_transport.c. prov/rxm/docs/provider.md says what is
 * done and what is not.
 */
#ifndef PROPEL_RXM_PROV_H
#define PROPEL_RXM_PROV_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/providers/fi_prov.h>

#include "pl_domain.h"
#include "pl_fabric_obj.h"
#include "pl_keymap.h"
#include "pl_log.h"
#include "pl_progress.h"
#include "rxm_domain_wake.h"
#include "rxm_shm.h"

#define RXM_PROV_NAME	"ofi_rxm"

extern struct fi_provider rxm_prov;

#define RXM_LOG_WARN(subsys, ...) PL_LOG(&rxm_prov, FI_LOG_WARN, subsys, __VA_ARGS__)
#define RXM_LOG_INFO(subsys, ...) PL_LOG(&rxm_prov, FI_LOG_INFO, subsys, __VA_ARGS__)
#define RXM_LOG_DBG(subsys, ...) PL_LOG(&rxm_prov, FI_LOG_DEBUG, subsys, __VA_ARGS__)

/* The rxm fabric: the core's fabric underneath (open only). */
struct rxm_fabric {
	struct pl_fabric_obj base;	/* first */
	struct fid_fabric *core_fabric;
	char core_name[64];		/* "tcp": before the ';' */
	/* the connection thread: an auto context whose sources are the
	 * endpoints' connection EQs (rxm_ep.c), so that connections form,
	 * and what waited for them leaves, without an application call */
	struct pl_progress_ctx *cm_ctx;
};

/* The rxm domain: the core's domain, and its fi_info, the template of
 * every core endpoint (all fields open only). */
struct rxm_domain {
	struct pl_domain base;		/* first */
	struct pl_keymap keymap;
	struct rxm_fabric *fab;
	struct fid_domain *core_domain;
	struct fi_info *core_info;
	size_t addrlen;			/* AV entries: the sockaddr size */
	/* what wakes a sleeper for the endpoints' core CQs and for their
	 * connection EQs (rxm_domain_wake.h) */
	struct rxm_domain_wake data_wake, cm_wake;
	/* shm as the peer for node-local peers (rxm_shm.h), empty without
	 * FI_OFI_RXM_USE_SHM or shm */
	struct rxm_shm_domain shm;
};

/* Rendezvous needs a core that reads remote memory without local
 * registrations (rxm_ep_rndv.c); without it, the SAR limit is the
 * largest message. */
static inline bool rxm_core_rndv(const struct fi_info *core)
{
	return (core->caps & FI_RMA) && core->domain_attr &&
	       !(core->domain_attr->mr_mode & FI_MR_LOCAL);
}

static inline bool rxm_domain_rndv(const struct rxm_domain *d)
{
	return rxm_core_rndv(d->core_info);
}

/* max_msg_size over core: the core's (rendezvous reads at most that),
 * else the SAR limit. */
uint64_t rxm_max_msg_size(const struct fi_info *core);

int rxm_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *core,
		 struct fi_info **info_p);
int rxm_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context);
int rxm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context);
/* fi_domain2: flags 0 or FI_PEER (pl_domain_init2, docs/peer.md). */
int rxm_domain_open2(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain_p, uint64_t flags,
		     void *context);
int rxm_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_p, void *context);
/* An shm AV address (a NUL-padded name) is at most this long. */
#define RXM_AV_SHM_ADDRLEN_MAX	256
/* With shm as the peer (rxm_shm.h): the fi_addr_t in av's shm twin of
 * the rxm address addr, FI_ADDR_NOTAVAIL when it has none (not
 * node-local, no twin, no shm). Any thread. */
fi_addr_t rxm_av_shm_addr(struct fid_av *av, const void *addr);
/* fi_scalable_ep: an endpoint with contexts (rdm_sep.h). */
int rxm_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_p, void *context);
int rxm_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context);

#endif /* PROPEL_RXM_PROV_H */
