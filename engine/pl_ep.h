/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Endpoint plumbing a provider embeds (issue E1 item 3). This first cut
 * holds the pure decision helpers; the bind/enable/setopt object is
 * still to come (see the E1 report).
 *
 * Synchronization: stateless functions, callable from any thread.
 */
#ifndef PROPEL_PL_EP_H
#define PROPEL_PL_EP_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>

/*
 * Does an operation generate a completion entry, per fi_endpoint(3)?
 * bind_flags: flags the CQ was bound with for this direction
 * (FI_TRANSMIT or FI_RECV, optionally FI_SELECTIVE_COMPLETION).
 * op_flags: the operation's flags (FI_COMPLETION, FI_INJECT ...).
 * Without FI_SELECTIVE_COMPLETION every operation completes; with it,
 * only those carrying FI_COMPLETION. Errors are always reported, so the
 * caller passes is_error to get true regardless.
 */
static inline bool pl_ep_op_completes(uint64_t bind_flags, uint64_t op_flags,
				      bool is_error)
{
	if (is_error)
		return true;
	if (!(bind_flags & FI_SELECTIVE_COMPLETION))
		return true;
	return (op_flags & FI_COMPLETION) != 0;
}

/* Validate fi_ep_bind flags for a fid class: -FI_EINVAL for a flag that
 * class does not take (or a class an endpoint cannot bind), else 0. */
int pl_ep_bind_check(size_t fclass, uint64_t flags);

#endif
