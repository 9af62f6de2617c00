/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The generic fabric object a provider embeds: it counts what was opened
 * on it (domains, EQs, wait sets, passive endpoints), so that fi_close of
 * the fabric answers -FI_EBUSY while any remains (fi_fabric(3): a fabric
 * is closed after its children), as fi_close(domain) does for its own.
 *
 * A provider puts struct pl_fabric_obj in its fabric struct, points
 * fabric_fid at its ops, and calls pl_fabric_obj_init / _fini. The engine
 * objects opened from a fabric fid (pl_domain_init, pl_eq_open,
 * pl_wait_open) take a child reference through pl_fabric_obj_child_get
 * and drop it on close; a fabric that is not a pl_fabric_obj (a foreign
 * or older provider's) is simply not counted.
 *
 * Synchronization table
 *   field      writer                        readers             ordering
 *   children   child open/close (any thread) pl_fabric_obj_fini  acq_rel RMW;
 *                                                                acquire load
 *   live_next  init / fini                   child get / put     registry lock
 */
#ifndef PROPEL_PL_FABRIC_OBJ_H
#define PROPEL_PL_FABRIC_OBJ_H

#include <rdma/fabric.h>

#include "pl_atomic.h"

struct pl_fabric_obj {
	struct fid_fabric fabric_fid;	/* provider fills ops; engine reads */
	pl_atomic_int children;		/* any thread, see table */
	struct pl_fabric_obj *live_next; /* under the registry lock only */
};

/* Fill fabric_fid's class, context and api_version, and register f as
 * live. */
void pl_fabric_obj_init(struct pl_fabric_obj *f, uint32_t api_version,
			void *context);
/* -FI_EBUSY while children remain (f untouched); else unregisters f and
 * returns 0. The provider frees its struct after 0. */
int pl_fabric_obj_fini(struct pl_fabric_obj *f);

/* Count one child of fabric (NULL or not a pl_fabric_obj: nothing); the
 * child calls pl_fabric_obj_child_put with the same fid when it closes. */
void pl_fabric_obj_child_get(struct fid_fabric *fabric);
void pl_fabric_obj_child_put(struct fid_fabric *fabric);

#endif /* PROPEL_PL_FABRIC_OBJ_H */
