/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: vrb_cm_data_parse (prov/verbs/vrb_cm_data.h), the gate of
 * the private data rdma_cm hands a verbs endpoint (a connection
 * request's, an accept's, a reject's).
 *
 * Input: the private data area as it arrives. An accepted area must
 * satisfy the header's rules, and the application's bytes are then copied
 * into a buffer of VRB_CM_DATA_MAX bytes on the heap, as the EQ write
 * does (ASan catches a length that does not fit or points past the
 * input).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vrb_cm_data.h"

#define FUZZ_REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const void *app;
	size_t len;
	uint8_t *dst;
	int r;

	/* a heap copy of exactly size bytes: a read past it is caught */
	uint8_t *in = malloc(size ? size : 1);

	FUZZ_REQUIRE(in);
	memcpy(in, data, size);
	r = vrb_cm_data_parse(in, size, &app, &len);
	FUZZ_REQUIRE(r == 0 || r == -1);
	if (r) {
		FUZZ_REQUIRE(!app && !len);
		free(in);
		return 0;
	}
	FUZZ_REQUIRE(len <= VRB_CM_DATA_MAX);
	if (size) {
		FUZZ_REQUIRE(size >= sizeof(struct vrb_cm_hdr));
		FUZZ_REQUIRE((const uint8_t *)app ==
			     in + sizeof(struct vrb_cm_hdr));
		FUZZ_REQUIRE(sizeof(struct vrb_cm_hdr) + len <= size);
	} else {
		FUZZ_REQUIRE(!app && !len);
	}
	dst = malloc(VRB_CM_DATA_MAX);
	FUZZ_REQUIRE(dst);
	if (len)
		memcpy(dst, app, len);
	free(dst);
	free(in);
	return 0;
}
