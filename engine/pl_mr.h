/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic memory region (E1 item 6), first cut: registration of one
 * contiguous buffer into a provider's key map, provider or requested
 * keys, access validation, busy close. regv/regattr/bind/enable/refresh
 * and raw keys are still to come.
 *
 * Synchronization: an MR is created and closed by one thread (fi_mr_reg /
 * fi_close); refs is touched by any thread (acq_rel RMW) and read by
 * close (acquire). The key map's own table covers lookups.
 */
#ifndef PROPEL_PL_MR_H
#define PROPEL_PL_MR_H

#include <stdint.h>

#include <rdma/fi_domain.h>

#include "pl_atomic.h"
#include "pl_domain.h"
#include "pl_keymap.h"

struct pl_mr {
	struct fid_mr mr_fid;		/* creation only */
	struct pl_domain *dom;		/* creation only */
	struct pl_keymap *map;		/* creation only */
	uint64_t base, len, access;	/* creation only */
	pl_atomic_int refs;		/* binders, any thread */
};

/* Access bits an MR may carry; others give -FI_EINVAL. */
#define PL_MR_ACCESS_BITS (FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
			   FI_REMOTE_READ | FI_REMOTE_WRITE)

/*
 * fi_mr_reg on a pl_domain. Key: the provider's own (a per-process
 * counter) when the domain negotiated FI_MR_PROV_KEY, else requested_key
 * (-FI_ENOKEY when already in map). -FI_EINVAL for NULL arguments,
 * a zero length or bad access bits; -FI_EBADFLAGS for flags != 0.
 */
int pl_mr_reg(struct pl_domain *dom, struct pl_keymap *map, const void *buf,
	      size_t len, uint64_t access, uint64_t offset,
	      uint64_t requested_key, uint64_t flags, struct fid_mr **mr_p,
	      void *context);

void pl_mr_ref(struct fid_mr *mr);	/* a bound MR refuses close */
void pl_mr_unref(struct fid_mr *mr);

#endif
