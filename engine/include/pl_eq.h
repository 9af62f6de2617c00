/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_EQ_H
#define PL_EQ_H
/*
 * Event queues (DESIGN.md section 4; docs/provider-contract.md, "CQ,
 * EQ, counters"). Provider side:
 * pl_eq_write_event / pl_eq_write_error; application side through
 * struct fi_ops_eq. A referenced EQ (bound to an endpoint, refs > 0)
 * refuses fi_close with -FI_EBUSY.
 *
 * Behaviour (fi_eq(3)): events and errors queue separately; fi_eq_read
 * answers -FI_EAVAIL while an error is queued; FI_PEEK on read and
 * readerr; CM events (FI_CONNREQ, FI_CONNECTED, FI_SHUTDOWN) carry a
 * struct fi_eq_cm_entry plus connection data, cut to the reader's buffer;
 * FI_MR_COMPLETE, FI_AV_COMPLETE and FI_JOIN_COMPLETE a struct
 * fi_eq_entry; FI_NOTIFY is free-form; a shorter entry or an unknown
 * event is -FI_EINVAL at write. fi_eq_write needs FI_WRITE in
 * attr->flags. fi_eq_sread: -FI_EAGAIN on timeout or interruption,
 * -FI_EINVAL on FI_WAIT_NONE / FI_WAIT_SET EQs.
 *
 * Overrun: an EQ holds at most attr->size entries, events and errors
 * together (PL_EQ_DEFAULT_SIZE when 0); beyond that fi_eq_write,
 * pl_eq_write_event and pl_eq_write_error answer -FI_EAGAIN and queue
 * nothing, so a producer nobody reads cannot grow it without bound.
 * Owed entries are the exception: an endpoint's FI_CONNECTED, its
 * FI_SHUTDOWN and the error that ends its connect (pl_cm.h writes them
 * with PL_EQ_OWED / pl_eq_write_error_owed) are queued even past the
 * size, because dropping one would leave the application waiting for an
 * event that never comes, and a producer cannot wait for room (it runs
 * in a progress pass). They stay bounded: each endpoint bound to the EQ
 * owes at most one of each per connection.
 * A provider's FI_CONNREQ hands its fi_info to the reader; one still
 * queued when the EQ closes is freed with it (fi_eq_write's stays the
 * writer's).
 *
 * Synchronization table (fields):
 *   field            writer                   reader           protection
 *   ev, err lists,   write_event/error: any;  read, readerr:   eq lock
 *   last_err_data    read, readerr: any       any
 *   count            under the eq lock        ready() (trywait, acq_rel RMW;
 *                                             wait sets)       acquire load
 *   refs             pl_eq_ref/unref          fi_close         acq_rel/acquire
 *   flags, w.kind    open only                any              immutable
 * Operations: write_event/write_error/fi_eq_write, read, readerr, sread,
 * fi_trywait and fi_control may all run concurrently ("yes" for every
 * pair); fi_close runs alone. A provider-owned err_data pointer handed
 * out by readerr stays valid until the next readerr (fi_eq(3): readers
 * serialize error processing).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#define PL_EQ_DEFAULT_SIZE	1024

int pl_eq_open(struct fid_fabric *f, struct fi_eq_attr *attr,
	       struct fid_eq **eq_p, void *context);
/* flags: 0 or PL_EQ_OWED (-FI_EINVAL for any other bit). */
#define PL_EQ_OWED	(1ULL << 0)
ssize_t pl_eq_write_event(struct fid_eq *eq, uint32_t event,
			  const void *buf, size_t len, uint64_t flags);
ssize_t pl_eq_write_error(struct fid_eq *eq, fid_t fid, void *context,
			  uint64_t data, int err, int prov_errno,
			  void *err_data, size_t err_data_size);
/* The same for an error an endpoint owes (overrun, above). */
ssize_t pl_eq_write_error_owed(struct fid_eq *eq, fid_t fid, void *context,
			       uint64_t data, int err, int prov_errno,
			       void *err_data, size_t err_data_size);
/* An object is being closed: drop every queued event and error entry
 * that names fid (fi_eq(3) readers must never see a closed fid; a
 * CONNREQ's fi_info goes with its entry). Returns how many. Any thread. */
size_t pl_eq_purge_fid(struct fid_eq *eq, fid_t fid);
void pl_eq_ref(struct fid_eq *eq);
void pl_eq_unref(struct fid_eq *eq);
/* A lock-free hint for a layered provider's poll: may eq hold an entry
 * (event or error)? Acquire, pairing with the count's update under the
 * EQ's lock, so an entry pushed before a wake-up is seen after it; a
 * "no" may lag a concurrent push (the next call sees it). True for an
 * EQ that is not a pl_eq (nothing to look at without reading it). */
bool pl_eq_pending(struct fid_eq *eq);
struct pl_waitable;
/* the EQ's wait object; NULL when eq is not a pl_eq */
struct pl_waitable *pl_eq_waitable(struct fid_eq *eq);

#endif
