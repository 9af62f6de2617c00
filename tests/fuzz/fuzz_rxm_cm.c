/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: rxm_cm_parse (prov/rxm/rxm_cm_proto.c), the gate of the
 * CM data an rxm peer sends with fi_connect / fi_accept / fi_reject.
 *
 * Input: the CM data as it comes from the core (any length). Whatever
 * the parser accepts must satisfy the rules rxm_cm_proto.h states, and
 * the peer's address must survive the trip to a sockaddr and back (the
 * form connections are keyed and dialled by); otherwise the target
 * aborts (libFuzzer reports it as a crash).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "rxm_cm_proto.h"

#define FUZZ_REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage ss;
	struct rxm_wire_addr back;
	struct rxm_cm_msg m;
	size_t salen;
	int r;

	memset(&m, 0x5a, sizeof(m));
	r = rxm_cm_parse(data, size, &m);
	FUZZ_REQUIRE(r == 0 || r == -FI_EINVAL || r == -FI_ENOPROTOOPT);
	FUZZ_REQUIRE(r == rxm_cm_parse(data, size, &m));
	if (r)
		return 0;
	FUZZ_REQUIRE(size >= sizeof(struct rxm_cm_data));
	FUZZ_REQUIRE(m.kind >= RXM_CM_REQ && m.kind <= RXM_CM_REJECT);
	FUZZ_REQUIRE(m.kind == RXM_CM_REJECT ? m.reason <= RXM_REJ_MAX :
		     m.reason == RXM_REJ_NONE);
	FUZZ_REQUIRE(m.addr.family == 4 || m.addr.family == 6);
	FUZZ_REQUIRE(m.addr.zero == 0);
	salen = rxm_wire_addr_to_sa(&m.addr, &ss);
	FUZZ_REQUIRE(salen <= sizeof(ss));
	FUZZ_REQUIRE(rxm_wire_addr_from_sa(&back, (struct sockaddr *)&ss,
					   salen) == 0);
	FUZZ_REQUIRE(!rxm_wire_addr_cmp(&back, &m.addr));
	return 0;
}
