/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_CNTR_H
#define PL_CNTR_H
/*
 * Completion counters (issue E2, contracts item 4). The endpoint checks
 * the binding flags and calls pl_cntr_inc / pl_cntr_inc_err. A
 * referenced counter (refs > 0) refuses fi_close with -FI_EBUSY.
 *
 * Synchronization table (implementation pending, see the E2 report):
 *   value, err    inc/add/set: any thread   read: any   atomic, release
 *                 then pl_waitable_signal; readers acquire
 *   refs          pl_cntr_ref/unref         fi_close    atomic acq_rel
 */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

int pl_cntr_open(struct fid_domain *d, struct fi_cntr_attr *attr,
		 struct fid_cntr **cntr_p, void *context);
void pl_cntr_inc(struct fid_cntr *c);
void pl_cntr_inc_err(struct fid_cntr *c);
void pl_cntr_ref(struct fid_cntr *c);
void pl_cntr_unref(struct fid_cntr *c);
struct pl_waitable;
/* the counter's wait object; NULL when c is not a pl_cntr */
struct pl_waitable *pl_cntr_waitable(struct fid_cntr *c);

#endif
