/* SPDX-License-Identifier: BSD-2-Clause */
/* ofi_rxm's CM data: building and checking it (rxm_cm_proto.h). */
#include <endian.h>
#include <netinet/in.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "rxm_cm_proto.h"

void rxm_cm_build(struct rxm_cm_data *out, enum rxm_cm_kind kind,
		  enum rxm_cm_reason reason, uint64_t incarnation,
		  const struct rxm_wire_addr *addr)
{
	memset(out, 0, sizeof(*out));
	out->magic = htole32(RXM_CM_MAGIC);
	out->version = RXM_CM_VERSION;
	out->kind = (uint8_t)kind;
	out->reason = kind == RXM_CM_REJECT ? (uint8_t)reason : 0;
	out->incarnation = htole64(incarnation);
	out->addr = *addr;
}

static bool rxm_wire_addr_ok(const struct rxm_wire_addr *a)
{
	size_t i;

	if (a->zero)
		return false;
	if (a->family == 4) {
		for (i = 4; i < sizeof(a->ip); i++)
			if (a->ip[i])
				return false;
		return a->scope_id == 0;
	}
	return a->family == 6;
}

int rxm_cm_parse(const void *data, size_t len, struct rxm_cm_msg *out)
{
	struct rxm_cm_data d;

	if (!data || len < sizeof(d))
		return -FI_EINVAL;
	/* a copy: the caller's bytes may be unaligned, and nothing is read
	 * twice */
	memcpy(&d, data, sizeof(d));
	if (le32toh(d.magic) != RXM_CM_MAGIC || d.version != RXM_CM_VERSION)
		return -FI_ENOPROTOOPT;
	if (d.kind < RXM_CM_REQ || d.kind > RXM_CM_REJECT || d.zero)
		return -FI_EINVAL;
	if (d.kind == RXM_CM_REJECT ? d.reason > RXM_REJ_MAX : d.reason != 0)
		return -FI_EINVAL;
	if (!rxm_wire_addr_ok(&d.addr))
		return -FI_EINVAL;
	out->kind = (enum rxm_cm_kind)d.kind;
	out->reason = (enum rxm_cm_reason)d.reason;
	out->incarnation = le64toh(d.incarnation);
	out->addr = d.addr;
	return 0;
}

int rxm_wire_addr_from_sa(struct rxm_wire_addr *out,
			  const struct sockaddr *sa, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (!sa)
		return -FI_EINVAL;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;

		out->family = 4;
		out->port = in->sin_port;
		memcpy(out->ip, &in->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		out->family = 6;
		out->port = in6->sin6_port;
		out->scope_id = htole32(in6->sin6_scope_id);
		memcpy(out->ip, &in6->sin6_addr, 16);
		return 0;
	}
	return -FI_EINVAL;
}

size_t rxm_wire_addr_to_sa(const struct rxm_wire_addr *a,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == 4) {
		struct sockaddr_in *in = (void *)ss;

		in->sin_family = AF_INET;
		in->sin_port = a->port;
		memcpy(&in->sin_addr, a->ip, 4);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (void *)ss;

	in6->sin6_family = AF_INET6;
	in6->sin6_port = a->port;
	in6->sin6_scope_id = le32toh(a->scope_id);
	memcpy(&in6->sin6_addr, a->ip, 16);
	return sizeof(*in6);
}

int rxm_wire_addr_cmp(const struct rxm_wire_addr *a,
		      const struct rxm_wire_addr *b)
{
	return memcmp(a, b, sizeof(*a));
}

bool rxm_wire_addr_answers(const struct rxm_wire_addr *acceptor,
			   const struct rxm_wire_addr *dialed)
{
	static const uint8_t any[sizeof(acceptor->ip)];

	if (!rxm_wire_addr_cmp(acceptor, dialed))
		return true;
	return !memcmp(acceptor->ip, any, sizeof(any)) &&
	       acceptor->family == dialed->family &&
	       acceptor->port == dialed->port;
}
