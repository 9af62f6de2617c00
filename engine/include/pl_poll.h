/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_POLL_H
#define PL_POLL_H
/*
 * Poll sets (fi_poll(3): fi_poll_open, fi_poll_add, fi_poll_del,
 * fi_poll). A provider's fi_ops_domain.poll_open points at pl_poll_open.
 *
 * Members: CQs, counters and EQs of the engine (pl_cq, pl_cntr, pl_eq),
 * any wait object kind, FI_WAIT_NONE included. A member is referenced
 * while in the set (pl_cq_ref / pl_cntr_ref / pl_eq_ref), so closing it
 * first is -FI_EBUSY, and the set refuses fi_close (-FI_EBUSY) while it
 * has members. A set opened on a pl_domain is that domain's child.
 *
 * fi_poll drives the progress context of every member (and of the
 * set's domain) once, then returns the fid contexts of the CQs and EQs
 * that are not empty and of the counters whose value or error count
 * changed since the set last reported them (the snapshot starts at
 * fi_poll_add), at most `count`, in the order members were added; 0
 * when none. Like the reference, a reported CQ may turn out empty when
 * read (fi_poll(3) allows false positives).
 *
 * Errors: NULL arguments, attr->flags != 0, count < 0 or a NULL context
 * array with count > 0: -FI_EINVAL; fi_poll_add of a fid that is not an
 * engine CQ / counter / EQ: -FI_EINVAL; added twice: -FI_EALREADY;
 * fi_poll_del of a fid not in the set: -FI_ENOENT.
 *
 * Synchronization table: every field of the set (the member array and
 * the counter snapshots) is under the set's mutex; poll, poll_add and
 * poll_del may run concurrently with each other ("yes" for every pair),
 * close runs alone. Lock order: the set's mutex before the progress
 * token and a member's ready() (which does not block).
 */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

int pl_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		 struct fid_poll **pollset_p);

#endif
