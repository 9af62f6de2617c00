/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_EQ_H
#define PL_EQ_H
/*
 * Event queues (issue E2, contracts item 4). Provider side:
 * pl_eq_write_event / pl_eq_write_error; application side through
 * struct fi_ops_eq. A referenced EQ (bound to an endpoint, refs > 0)
 * refuses fi_close with -FI_EBUSY.
 *
 * Synchronization table (implementation pending, see the E2 report):
 *   queue         writers: any thread     readers: any    under eq lock
 *   refs          pl_eq_ref/unref         fi_close        atomic acq_rel
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

int pl_eq_open(struct fid_fabric *f, struct fi_eq_attr *attr,
	       struct fid_eq **eq_p, void *context);
ssize_t pl_eq_write_event(struct fid_eq *eq, uint32_t event,
			  const void *buf, size_t len, uint64_t flags);
ssize_t pl_eq_write_error(struct fid_eq *eq, fid_t fid, void *context,
			  uint64_t data, int err, int prov_errno,
			  void *err_data, size_t err_data_size);
void pl_eq_ref(struct fid_eq *eq);
void pl_eq_unref(struct fid_eq *eq);
struct pl_waitable;
/* the EQ's wait object; NULL when eq is not a pl_eq */
struct pl_waitable *pl_eq_waitable(struct fid_eq *eq);

#endif
