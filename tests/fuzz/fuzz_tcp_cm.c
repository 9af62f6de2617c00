/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: tcp_proto_check_cm (prov/tcp/tcp_proto.c), the gate of
 * the connection exchange (struct tcp_cm_msg and its CM data).
 *
 * Input: 16 bytes of struct tcp_cm_msg as they come off the wire, then
 * one byte choosing the kind the reader expects (value % 4: 0 = ACCEPT
 * or REJECT, as the active side asks, else that kind), then the bytes
 * that follow on the stream. The message is swapped to host order as
 * the provider does and checked. An accepted message must satisfy the
 * rules tcp_proto.h states, and its data_len bytes are then copied into
 * a buffer of TCP_CM_DATA_MAX bytes on the heap as a reader would (ASan
 * catches a length that does not fit).
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
	struct tcp_cm_msg m, before;
	int expect = 0, r;
	static uint8_t stream[UINT16_MAX + 1];
	uint8_t *dst;
	size_t rest;

	if (size < sizeof(m))
		return 0;
	memcpy(&m, data, sizeof(m));
	if (size > sizeof(m))
		expect = data[sizeof(m)] % 4;
	tcp_proto_cm_swap(&m);
	before = m;
	r = tcp_proto_check_cm(&m, expect);
	FUZZ_REQUIRE(!memcmp(&before, &m, sizeof(m)));
	FUZZ_REQUIRE(r == tcp_proto_check_cm(&m, expect));
	FUZZ_REQUIRE(r == 0 || r == -FI_EIO || r == -FI_ENOPROTOOPT);
	if (r == -FI_ENOPROTOOPT)
		FUZZ_REQUIRE(m.magic == TCP_CM_MAGIC &&
			     m.version != TCP_PROTO_VERSION);
	if (r)
		return 0;
	FUZZ_REQUIRE(m.magic == TCP_CM_MAGIC);
	FUZZ_REQUIRE(m.version == TCP_PROTO_VERSION);
	FUZZ_REQUIRE(m.data_len <= TCP_CM_DATA_MAX);
	if (expect)
		FUZZ_REQUIRE(m.kind == expect);
	else
		FUZZ_REQUIRE(m.kind == TCP_CM_ACCEPT ||
			     m.kind == TCP_CM_REJECT);
	/* what a reader does next: data_len bytes of the stream into its
	 * buffer */
	dst = malloc(TCP_CM_DATA_MAX);
	FUZZ_REQUIRE(dst);
	rest = size > sizeof(m) + 1 ? size - sizeof(m) - 1 : 0;
	if (rest > sizeof(stream))
		rest = sizeof(stream);
	memset(stream, 0, sizeof(stream));
	memcpy(stream, data + size - rest, rest);
	memcpy(dst, stream, m.data_len);
	free(dst);
	return 0;
}
