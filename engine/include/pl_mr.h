/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic memory region (docs/provider-contract.md, "Memory regions"):
 * fi_mr_reg / regv / regattr
 * into a provider's key map, and the MR's fid ops (fi_close, fi_mr_bind,
 * fi_mr_enable, fi_mr_refresh, fi_mr_raw_attr). A provider points its
 * domain's struct fi_ops_mr at thin wrappers that find its key map and
 * call pl_mr_reg / pl_mr_regv / pl_mr_regattr, and answers the domain
 * controls FI_MAP_RAW_MR / FI_UNMAP_KEY with pl_mr_domain_control.
 *
 * Keys: with FI_MR_PROV_KEY a process-unique counter (so unique in every
 * map), otherwise the requested key (-FI_ENOKEY when the map has it,
 * -FI_EKEYREJECTED for FI_KEY_NOTAVAIL). An MR registered in a domain
 * with FI_MR_ENDPOINT, or with the FI_RMA_EVENT flag in a domain with
 * FI_MR_RMA_EVENT, is created disabled: its key is reserved in the map
 * but pl_keymap_check rejects it until fi_mr_enable (after fi_mr_bind
 * to an endpoint under FI_MR_ENDPOINT). Any other MR is valid at once
 * and fi_mr_enable on it is a no-op success.
 *
 * Raw keys (FI_MR_RAW): the raw key is the 8 bytes of the 64-bit key
 * in host order; mapping a raw key copies them back, unmapping frees
 * nothing. Under FI_MR_RAW fi_mr_key() answers FI_KEY_NOTAVAIL, as
 * fi_mr(3) asks.
 *
 * Synchronization table (one MR):
 *   field                 writer                readers          ordering
 *   mr_fid, dom, map,
 *   key, base, len,
 *   access, needs_enable,
 *   iov[]                 registration only     any thread       happens
 *                                                                 before
 *                                                                 publication
 *   ep, cntr, enabled     bind / enable         bind, enable,    control
 *                         (control path)        close            path only
 *   twin                  pl_mr_set_twin,       bind, enable,    control
 *                         before the MR is      close            path only
 *                         handed out
 *   refs                  pl_mr_ref / unref     close            acq_rel RMW;
 *                         (any thread)                           acquire
 * bind, control and close are control-path calls: the application does
 * not run two of them at once on one MR (fi_mr(3): binding precedes
 * enabling precedes use). The data path sees an MR only through the key
 * map, whose enabled flag carries the release/acquire edge.
 */
#ifndef PROPEL_PL_MR_H
#define PROPEL_PL_MR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fi_domain.h>

#include "pl_atomic.h"
#include "pl_domain.h"
#include "pl_keymap.h"

struct pl_mr {
	struct fid_mr mr_fid;		/* registration only */
	struct pl_domain *dom;		/* registration only */
	struct pl_keymap *map;		/* registration only */
	uint64_t key;			/* registration only: key in map */
	uint64_t base, len, access;	/* base of iov[0], total length */
	bool needs_enable;		/* registration only */
	bool enabled;			/* control path */
	struct fid *ep;			/* control path: fi_mr_bind */
	struct fid_cntr *cntr;		/* control path: fi_mr_bind */
	bool cntr_ref;			/* a pl_cntr_ref is held on cntr */
	pl_atomic_int refs;		/* binders, any thread */
	/* the same memory registered in a peer provider's domain under
	 * the same key (pl_mr_set_twin), or NULL: control path only */
	struct fid_mr *twin;
	size_t iov_count;		/* registration only */
	struct iovec iov[];		/* registration only */
};

/* Access bits an MR may carry; others give -FI_EINVAL. */
#define PL_MR_ACCESS_BITS (FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
			   FI_REMOTE_READ | FI_REMOTE_WRITE)

/* The raw key size: the 64-bit key itself. */
#define PL_MR_RAW_KEY_SIZE sizeof(uint64_t)

/*
 * fi_mr_reg on a pl_domain. -FI_EINVAL for NULL dom/map/buf/mr_p, a
 * zero length or bad access bits; -FI_EBADFLAGS for flags other than
 * FI_RMA_EVENT (that one only in a domain with FI_MR_RMA_EVENT);
 * -FI_ENOKEY / -FI_EKEYREJECTED for a requested key in use / unusable;
 * -FI_ENOMEM. offset is reserved by fi_mr(3) and ignored. *mr_p is set
 * only on success. The MR counts as a child of dom.
 */
int pl_mr_reg(struct pl_domain *dom, struct pl_keymap *map, const void *buf,
	      size_t len, uint64_t access, uint64_t offset,
	      uint64_t requested_key, uint64_t flags, struct fid_mr **mr_p,
	      void *context);

/*
 * fi_mr_regv: the count buffers form one region (one key); its offsets
 * run through iov[0], iov[1], ... in order, and a remote access must
 * lie inside one of them (pl_keymap_check). -FI_EINVAL for NULL iov,
 * count 0, count above the domain's mr_iov_limit, a NULL base or zero
 * length in any entry; otherwise as pl_mr_reg.
 */
int pl_mr_regv(struct pl_domain *dom, struct pl_keymap *map,
	       const struct iovec *iov, size_t count, uint64_t access,
	       uint64_t offset, uint64_t requested_key, uint64_t flags,
	       struct fid_mr **mr_p, void *context);

/*
 * fi_mr_regattr with the 1.17 struct fi_mr_attr (it ends at the device
 * union: nothing past it is read). mr_iov/iov_count, access, offset,
 * requested_key, context as pl_mr_regv. auth_key must be NULL and
 * auth_key_size 0 (-FI_EINVAL). iface: FI_HMEM_SYSTEM (device ignored,
 * as fi_mr(3) says for it); a device interface (CUDA, ROCR, ZE, NEURON,
 * SYNAPSEAI) gives -FI_ENOSYS, as the generic MR has no device memory
 * support; an unknown iface value gives -FI_EINVAL.
 */
int pl_mr_regattr(struct pl_domain *dom, struct pl_keymap *map,
		  const struct fi_mr_attr *attr, uint64_t flags,
		  struct fid_mr **mr_p);

/*
 * The MR's fi_ops.bind (fi_mr_bind):
 *   an endpoint (FI_CLASS_EP / FI_CLASS_SEP), flags 0, only in a domain
 *     with FI_MR_ENDPOINT (else -FI_EINVAL); one endpoint per MR;
 *   a counter (FI_CLASS_CNTR), flags FI_REMOTE_WRITE; one counter per MR;
 *     an engine counter is referenced (its fi_close answers -FI_EBUSY)
 *     until the MR is closed.
 * -FI_EINVAL for NULL or another class or missing flags, -FI_EBADFLAGS
 * for other flags, -FI_EALREADY when that kind is bound, -FI_EOPBADSTATE
 * after fi_mr_enable.
 */
int pl_mr_bind(struct fid *fid, struct fid *bfid, uint64_t flags);

/*
 * The MR's fi_ops.control:
 *   FI_ENABLE (fi_mr_enable): makes a disabled MR's key valid in the key
 *     map; -FI_EOPBADSTATE under FI_MR_ENDPOINT with no endpoint bound;
 *     0 (no-op) for an MR that is already valid;
 *   FI_REFRESH (struct fi_mr_modify *, fi_mr_refresh): flags must be 0
 *     (-FI_EBADFLAGS); each iov entry must lie inside the region
 *     (-FI_EINVAL); count 0 means the whole region. System memory needs
 *     no re-pinning: 0 after the checks;
 *   FI_GET_RAW_MR (struct fi_mr_raw_attr *, fi_mr_raw_attr): flags 0
 *     (-FI_EBADFLAGS); *key_size below PL_MR_RAW_KEY_SIZE gives
 *     -FI_ETOOSMALL with *key_size set to it; base_addr (may be NULL)
 *     gets the region base under FI_MR_VIRT_ADDR, else 0;
 *   anything else: -FI_ENOSYS. NULL arguments: -FI_EINVAL.
 */
int pl_mr_control(struct fid *fid, int command, void *arg);

/*
 * For the provider's domain fi_ops.control: FI_MAP_RAW_MR (struct
 * fi_mr_map_raw *: key_size must be PL_MR_RAW_KEY_SIZE, flags 0) and
 * FI_UNMAP_KEY (uint64_t *: nothing to release, 0). -FI_ENOSYS for any
 * other command (the provider handles its own first).
 */
int pl_mr_domain_control(struct pl_domain *dom, int command, void *arg);

/*
 * A twin: the same memory, registered by the provider in a peer
 * provider's domain under the same key, so that a peer that carries
 * remote accesses for it (ofi_rxm's shm for node-local initiators,
 * prov/rxm/docs/provider.md) checks them against the same key, range
 * and access. From then on the MR's fi_mr_bind of a counter binds it
 * to the twin too (remote accesses through either count), fi_mr_enable
 * enables the twin too, and fi_close closes the twin first (its error,
 * -FI_EBUSY for one, leaves both open). Called by the provider right
 * after registering mr, before the application has it. -FI_EINVAL for
 * NULL arguments or a second twin.
 */
int pl_mr_set_twin(struct fid_mr *mr, struct fid_mr *twin);

void pl_mr_ref(struct fid_mr *mr);	/* a bound MR refuses close */
void pl_mr_unref(struct fid_mr *mr);

#endif
