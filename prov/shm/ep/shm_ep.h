/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm provider's objects over the engine: fabric, domain, AV wrapper
 * and the FI_EP_RDM endpoint.
 *
 * The endpoint is the RDM endpoint core's (rdm_ep.h: its synchronization
 * table, the locking strategy, completions, matching) over shm's
 * transport (shm_ep_transport.c implements struct rdm_transport_ops on
 * the protocol layer, shm_xfer.h). What struct shm_ep adds:
 *
 *   state                        touched by                   serialized by
 *   dom, name, named, auto_idx   open, setname (before        application
 *                                enable), getname             (control path)
 *   xep                          enable (set), close;         the rdm lock
 *                                the transport ops            (set before
 *                                                             rdm.ready)
 *   src, src_added               enable / close (add/remove)  the context
 */
#ifndef PROPEL_SHM_EP_H
#define PROPEL_SHM_EP_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "pl_av.h"
#include "pl_fabric_obj.h"
#include "pl_compiler.h"
#include "pl_domain.h"
#include "pl_ep.h"
#include "pl_keymap.h"
#include "pl_progress.h"
#include "rdm_ep.h"
#include "shm_layout.h"
#include "shm_xfer.h"

/* ---- fabric (shm_fabric.c) ---- */

struct shm_fabric {
	struct pl_fabric_obj base;	/* counts domains, EQs, wait sets */
	uint32_t api_version;
};

int shm_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context);

/* ---- domain (shm_domain.c) ---- */

/* The MR mode the provider reports when the application leaves the
 * choice open; it serves the others too (shm_mr_mode.c). */
#define SHM_MR_MODE	(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY)

/* shm_mr_mode.c: the mode fi_getinfo offers for these hints (NULL: none),
 * and the one a domain opened from info runs in. */
int shm_mr_mode_offer(uint32_t version, const struct fi_info *hints);
int shm_mr_mode_domain(const struct fi_info *info, uint32_t version);

struct shm_domain {
	struct pl_domain base;		/* FIRST: the engine casts to it */
	struct pl_keymap keymap;	/* MR keys (RMA validation, S2) */
};

int shm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context);
/* fi_domain2: flags 0 or FI_PEER (pl_domain_init2, docs/peer.md). */
int shm_domain_open2(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain_p, uint64_t flags,
		     void *context);

/* ---- address vector (shm_av.c) ---- */

/* Every AV entry is a NUL-padded name of SHM_NAME_MAX bytes; the
 * application hands names packed back to back (each strlen + 1 bytes,
 * as fi_getname returns them). */
int shm_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_p, void *context);

/* ---- endpoint (shm_ep*.c) ---- */

struct shm_ep {
	struct rdm_ep		rdm;	/* FIRST: the core casts to it */
	struct shm_domain	*dom;
	char			name[SHM_NAME_MAX];
	bool			named;	 /* setname chose it */
	bool			auto_idx; /* name ends in our ":<idx>": another
					   * index may replace it at enable */
	struct shm_xfer_ep	*xep;	 /* after enable */
	struct rdm_ep_source	src;
	bool			src_added;
};

/* The endpoint behind e (itself, or an alias's parent) and the default
 * op flags of the fid used. */
static inline struct shm_ep *shm_ep_of(struct fid_ep *e, uint64_t *tx_flags,
				       uint64_t *rx_flags)
{
	return (struct shm_ep *)rdm_ep_of(e, tx_flags, rx_flags);
}

int shm_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context);
/* fi_scalable_ep: an endpoint with contexts (rdm_sep.h). */
int shm_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_p, void *context);

/* shm_ep_transport.c: the transport contract (rdm_transport.h) on the
 * protocol layer, and the protocol layer's callbacks */
extern const struct rdm_transport_ops shm_ep_transport_ops;
extern const struct shm_xfer_ops shm_ep_transport_xfer_ops;

/* Under the lock: the protocol handle on dest, from the core's peer
 * cache (opened on first use; -FI_EAGAIN while the target does not
 * exist). */
static inline int shm_ep_peer_get(struct shm_ep *ep, fi_addr_t dest,
				  struct shm_xfer_peer **xp_p)
{
	void *tpeer;
	int ret;

	ret = rdm_ep_peer_get(&ep->rdm, dest, &tpeer);
	if (!ret)
		*xp_p = tpeer;
	return ret;
}

/* shm_ep_rma.c: RMA and atomic requests arriving at a target (xfer
 * ops rma_msg, rma_done); the initiator side is rdm's (rdm_rma.h). */
void shm_ep_rma_msg(struct shm_xfer_ep *xep, struct shm_xfer_rx *rx);
void shm_ep_rma_done(struct shm_xfer_ep *xep, struct shm_xfer_rx *rx,
		     int status, uint64_t len);

#endif /* PROPEL_SHM_EP_H */
