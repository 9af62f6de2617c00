/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_CNTR_H
#define PL_CNTR_H
/*
 * Completion counters (DESIGN.md section 4; docs/provider-contract.md,
 * "CQ, EQ, counters"). The endpoint checks
 * the binding flags and calls pl_cntr_inc / pl_cntr_inc_err. A
 * referenced counter (refs > 0) refuses fi_close with -FI_EBUSY.
 *
 * fi_cntr_read / readerr / wait drive the domain's progress context
 * (manual progress). A counter opened on a pl_domain is its child.
 * fi_cntr_wait: 0 at value >= threshold, -FI_EAVAIL while the error count
 * differs from what fi_cntr_readerr last returned, -FI_ETIMEDOUT, and
 * -FI_EINVAL on FI_WAIT_NONE / FI_WAIT_SET counters (fi_cntr(3)).
 *
 * Synchronization table (fields):
 *   field        writer                       reader            ordering
 *   value, err   add/set/adderr/seterr,       read, readerr,    release RMW/
 *                pl_cntr_inc*: any thread     wait, ready, poll store, then
 *                                                               signal; acquire
 *   value_seen,  read / readerr: any thread   ready, wait       relaxed (hints:
 *   err_seen                                                    a race gives one
 *                                                               spurious wake)
 *   refs         pl_cntr_ref/unref            fi_close          acq_rel/acquire
 *   dom, w.kind, open only                    any               immutable
 *   w.ctx
 * Operations: every fi_ops_cntr op, pl_cntr_inc*, ref/unref, fi_trywait
 * and fi_control may run concurrently with each other ("yes" for all
 * pairs); fi_close runs alone (the application's duty, fi_cntr(3)).
 * fi_cntr_set/seterr racing with updates leave an undefined value, as
 * fi_cntr(3) allows, but never a lost wake-up.
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
/* Value and error count without acknowledging either (poll sets); drives
 * progress like a read. -FI_EINVAL when c is not a pl_cntr. */
int pl_cntr_values(struct fid_cntr *c, uint64_t *value_p, uint64_t *err_p);

#endif
