/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: tcp_proto_check_hdr (prov/tcp/tcp_proto.c), the gate
 * every data header read from a tcp socket passes before any field is
 * used (DESIGN.md section 7a).
 *
 * Input: 40 bytes of struct tcp_hdr as they come off the wire (little
 * endian), optionally followed by 16 bytes of limits (max_msg_size,
 * max_read_size, little endian); shorter inputs are ignored (the
 * provider reads whole headers only). The header is swapped to host
 * order as the provider does, then checked; whatever the verdict is
 * "accepted" must satisfy every rule tcp_proto.h states, or the target
 * aborts (libFuzzer reports it as a crash).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "tcp_proto.h"

#define FUZZ_REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tcp_proto_limits lim = {
		.max_msg_size = (uint64_t)1 << 40,
		.max_read_size = (uint64_t)1 << 40,
	};
	struct tcp_hdr h, before;
	int r;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (size >= sizeof(h) + sizeof(lim)) {
		memcpy(&lim, data + sizeof(h), sizeof(lim));
		lim.max_msg_size = le64toh(lim.max_msg_size);
		lim.max_read_size = le64toh(lim.max_read_size);
	}
	tcp_proto_hdr_swap(&h);
	before = h;
	r = tcp_proto_check_hdr(&h, &lim);
	/* a check, not a transformation: same verdict twice, header kept */
	FUZZ_REQUIRE(!memcmp(&before, &h, sizeof(h)));
	FUZZ_REQUIRE(r == tcp_proto_check_hdr(&h, &lim));
	FUZZ_REQUIRE(r == 0 || r == -FI_EIO);
	if (r)
		return 0;
	FUZZ_REQUIRE(h.op >= TCP_OP_MSG && h.op <= TCP_OP_MAX);
	FUZZ_REQUIRE(!(h.flags & ~TCP_F_ALL));
	switch (h.op) {
	case TCP_OP_MSG:
	case TCP_OP_TAGGED:
		FUZZ_REQUIRE(!(h.flags & TCP_F_PART));
		/* fall through */
	case TCP_OP_WRITE:
		FUZZ_REQUIRE(h.status == 0);
		FUZZ_REQUIRE(h.size <= lim.max_msg_size);
		/* only the last part of an operation carries CQ data */
		FUZZ_REQUIRE(!(h.flags & TCP_F_PART) ||
			     !(h.flags & TCP_F_CQ_DATA));
		break;
	case TCP_OP_READ_REQ:
		FUZZ_REQUIRE(h.status == 0);
		FUZZ_REQUIRE(!(h.flags & ~TCP_F_PART));
		FUZZ_REQUIRE(h.size <= lim.max_read_size);
		break;
	case TCP_OP_READ_RESP:
		FUZZ_REQUIRE(h.size <= lim.max_msg_size);
		FUZZ_REQUIRE(!(h.status && h.size));
		break;
	case TCP_OP_ACK:
		FUZZ_REQUIRE(h.size == 0);
		break;
	default:
		abort();
	}
	return 0;
}
