/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: shm_cmd_check (prov/shm/transport/shm_cmd.h), the first check of
 * every command an shm endpoint reads from its queue, which any process
 * of the user can write (DESIGN.md section 7a).
 *
 * Input: 2 bytes choosing our inline size (the receiver's own geometry:
 * a multiple of 64, at least a CMA payload, as shm_layout_compute makes
 * it), then the 64-byte command, then its payload (zero-filled up to the
 * inline size: the rest of a slot). Whatever is accepted must obey the
 * rules shm_layout.h states for its op and protocol, or the target
 * aborts. The slot is a heap buffer of exactly the slot's size, so that
 * ASan sees any read past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shm_cmd.h"

#define FUZZ_REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t inline_max;
	struct shm_cmd *cmd;
	const struct shm_cmd_cma *cma;
	size_t slot;
	int r;

	if (size < 2 + sizeof(*cmd))
		return 0;
	inline_max = (uint32_t)(data[0] | data[1] << 8) % 1025 *
		     SHM_CACHELINE;
	if (inline_max < sizeof(struct shm_cmd_cma))
		inline_max = 2 * SHM_CACHELINE;
	data += 2, size -= 2;
	slot = sizeof(*cmd) + inline_max;
	cmd = calloc(1, slot);
	if (!cmd)
		return 0;
	memcpy(cmd, data, size < slot ? size : slot);
	cma = (const void *)(cmd + 1);

	r = shm_cmd_check(cmd, cmd + 1, inline_max);
	FUZZ_REQUIRE(r == shm_cmd_check(cmd, cmd + 1, inline_max));
	FUZZ_REQUIRE(r == 0 || r == -FI_EINVAL || r == -FI_ENOSYS);
	if (r == -FI_ENOSYS)
		FUZZ_REQUIRE(cmd->op == SHM_OP_NOP || cmd->op < SHM_OP_MSG ||
			     cmd->op > SHM_OP_SPLIT);
	if (r) {
		free(cmd);
		return 0;
	}
	FUZZ_REQUIRE(cmd->op >= SHM_OP_MSG && cmd->op <= SHM_OP_SPLIT &&
		     cmd->op != SHM_OP_NOP);
	switch (cmd->op) {
	case SHM_OP_MSG:
	case SHM_OP_WRITE:
		FUZZ_REQUIRE(cmd->proto <= SHM_PROTO_CMA);
		if (cmd->proto == SHM_PROTO_INLINE)
			FUZZ_REQUIRE(cmd->size <= inline_max);
		if (cmd->flags & SHM_CF_IN_HDR)
			FUZZ_REQUIRE(cmd->op == SHM_OP_MSG &&
				     cmd->proto == SHM_PROTO_INLINE &&
				     cmd->size <= SHM_CMD_HDR_PAYLOAD_MAX);
		if (cmd->proto == SHM_PROTO_CMA)
			FUZZ_REQUIRE(cma->iov_cnt <= SHM_CMA_IOV_MAX);
		break;
	case SHM_OP_READ:
		FUZZ_REQUIRE(cmd->proto == SHM_PROTO_INLINE &&
			     cma->iov_cnt <= SHM_CMA_IOV_MAX);
		break;
	case SHM_OP_ATOMIC:
	case SHM_OP_DATA:
		FUZZ_REQUIRE(cmd->proto == SHM_PROTO_INLINE &&
			     cmd->size <= inline_max);
		break;
	default:
		break;
	}
	free(cmd);
	return 0;
}
