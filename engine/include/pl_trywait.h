/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_TRYWAIT_H
#define PL_TRYWAIT_H
/*
 * fi_trywait (fi_ops_fabric.trywait). 0 when blocking on every fid's
 * native wait object is safe, -FI_EAGAIN when anything is queued,
 * -FI_EINVAL for a fid of a class that has no wait object, one opened
 * with FI_WAIT_NONE, or a list mixing kinds of wait object (fi_poll(3)).
 * A wait set (FI_CLASS_WAIT) is tried as a whole (pl_wait_set.h).
 * CQs: pl_cq_waitable() (engine/cq/pl_cq.c); a CQ fid that is not a
 * pl_cq is -FI_EINVAL.
 */
#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

struct pl_waitable;
struct pl_waitable *pl_cq_waitable(struct fid_cq *cq);
int pl_trywait(struct fid_fabric *fabric, struct fid **fids, int count);

#endif
