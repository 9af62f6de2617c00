/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The first check of a command read from our queue (layout:
 * shm_layout.h). Any process of the user can write a slot, so a command
 * is input (DESIGN.md section 7a): before any handler looks at it, its
 * op, protocol, size and the counts in its payload are checked here
 * against OUR inline size (the private geometry of our region, never a
 * header's): messages in shm_xfer_recv_msg (shm_cmd_check_msg on the
 * values it reads once), other ops in the poll pass (shm_cmd_check).
 * What needs the endpoint (the sender's peer entry, a
 * transfer id, a SAR channel of the sender's region) is checked by the
 * handler that uses it. Inline: every message passes here; the checks
 * are those the handlers made before, in one place, with a fuzz target
 * of its own (tests/fuzz/fuzz_shm_cmd.c).
 */
#ifndef PROPEL_SHM_CMD_H
#define PROPEL_SHM_CMD_H

#include <stdint.h>

#include <rdma/fi_errno.h>

#include "shm_layout.h"

/*
 * A field of a command in the slot, read once: the slot is another
 * process's to write, and a value checked must be the value used (a
 * compiler may otherwise load a plain field again). Not a
 * synchronization: the command was acquired by its READY word (R2).
 */
static inline uint64_t shm_cmd_once_u64(const uint64_t *p)
{
	return *(const volatile uint64_t *)p;
}

static inline uint32_t shm_cmd_once_u32(const uint32_t *p)
{
	return *(const volatile uint32_t *)p;
}

static inline uint8_t shm_cmd_once_u8(const uint8_t *p)
{
	return *(const volatile uint8_t *)p;
}

/*
 * The rules of a message or RMA write (op SHM_OP_MSG or SHM_OP_WRITE) on
 * its fields as read once (shm_xfer_recv_msg checks its own copies
 * with it); the iovec count of a CMA payload is the caller's to check on
 * its own copy. 0 or -FI_EINVAL.
 */
static inline int shm_cmd_check_msg(uint8_t op, uint8_t proto, uint32_t flags,
				    uint64_t size, uint32_t inline_max)
{
	if (proto == SHM_PROTO_INLINE) {
		if (size > inline_max)
			return -FI_EINVAL;
		/* bytes in the key word: messages only, 8 at most */
		if ((flags & SHM_CF_IN_HDR) &&
		    (size > SHM_CMD_HDR_PAYLOAD_MAX || op != SHM_OP_MSG))
			return -FI_EINVAL;
		return 0;
	}
	return (flags & SHM_CF_IN_HDR) ||
	       (proto != SHM_PROTO_SAR && proto != SHM_PROTO_CMA) ?
	       -FI_EINVAL : 0;
}

/*
 * cmd: the 64-byte command; payload: the inline_max bytes after it (in
 * the slot). Returns 0 (well formed: its handler may use it),
 * -FI_EINVAL (malformed: drop it) or -FI_ENOSYS (a NOP, or an op of a
 * newer peer: skip it). Reads each field it judges once.
 */
static inline int shm_cmd_check(const struct shm_cmd *cmd,
				const void *payload, uint32_t inline_max)
{
	const struct shm_cmd_cma *cma = payload;
	uint8_t op = cmd->op, proto = cmd->proto;
	uint64_t size = cmd->size;
	uint32_t flags = cmd->flags;

	switch (op) {
	case SHM_OP_MSG:
	case SHM_OP_WRITE:
		if (shm_cmd_check_msg(op, proto, flags, size, inline_max))
			return -FI_EINVAL;
		return proto == SHM_PROTO_CMA &&
		       cma->iov_cnt > SHM_CMA_IOV_MAX ? -FI_EINVAL : 0;
	case SHM_OP_READ:
		/* the initiator's result iovecs travel inline */
		return proto != SHM_PROTO_INLINE || (flags & SHM_CF_IN_HDR) ||
		       cma->iov_cnt > SHM_CMA_IOV_MAX ? -FI_EINVAL : 0;
	case SHM_OP_ATOMIC:
	case SHM_OP_DATA:
		return proto != SHM_PROTO_INLINE || (flags & SHM_CF_IN_HDR) ||
		       size > inline_max ? -FI_EINVAL : 0;
	case SHM_OP_ACK:
	case SHM_OP_SPLIT:
		return 0;	/* no size, no payload: ids checked by use */
	default:
		return -FI_ENOSYS;
	}
}

#endif /* PROPEL_SHM_CMD_H */
