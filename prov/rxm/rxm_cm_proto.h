/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's connection-management data: what one rxm endpoint tells
 * another inside the core's CM data (fi_connect, fi_accept, fi_reject)
 * when a connection forms on demand (rxm_conn.h). It comes from another
 * machine and is input (DESIGN.md section 7a): rxm_cm_parse validates
 * every field against our own limits before anything is used, and a
 * request that fails is rejected.
 *
 * Each side names itself by its rxm address (the address of its passive
 * endpoint, which is what fi_getname on the rxm endpoint returns and what
 * peers insert in their AVs) and by an incarnation, a random number drawn
 * when the endpoint opens: a peer that restarts at the same address has a
 * new incarnation, so its old connection is known dead.
 *
 * Byte order: little endian, except the port and IP bytes of an address,
 * which keep the network order of the sockaddr they come from.
 */
#ifndef PROPEL_RXM_CM_PROTO_H
#define PROPEL_RXM_CM_PROTO_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define RXM_CM_MAGIC	0x314d5852u	/* "RXM1" */
#define RXM_CM_VERSION	1

enum rxm_cm_kind {
	RXM_CM_REQ = 1,		/* fi_connect's data */
	RXM_CM_ACCEPT = 2,	/* fi_accept's data */
	RXM_CM_REJECT = 3,	/* fi_reject's data */
};

/* Why a request was rejected (RXM_CM_REJECT). */
enum rxm_cm_reason {
	RXM_REJ_NONE = 0,
	/* both sides connected at once and the rejecting side's own
	 * request is the one that stays: the rejected side waits for it */
	RXM_REJ_LOST_RACE = 1,
	/* a connection with this incarnation exists already */
	RXM_REJ_DUPLICATE = 2,
	/* the request was malformed or of another version */
	RXM_REJ_BAD = 3,
	RXM_REJ_MAX = RXM_REJ_BAD,
};

/* An IPv4 or IPv6 socket address in a host-independent form. */
struct rxm_wire_addr {
	uint8_t family;		/* 4 or 6 */
	uint8_t zero;
	uint16_t port;		/* network order, as in the sockaddr */
	uint32_t scope_id;	/* IPv6 scope, little endian; 0 for IPv4 */
	uint8_t ip[16];		/* IPv4: the first 4 bytes, the rest 0 */
};
static_assert(sizeof(struct rxm_wire_addr) == 24, "rxm_wire_addr: 24 B");

struct rxm_cm_data {
	uint32_t magic;		/* RXM_CM_MAGIC */
	uint8_t version;	/* RXM_CM_VERSION */
	uint8_t kind;		/* enum rxm_cm_kind */
	uint8_t reason;		/* enum rxm_cm_reason; REJECT only, else 0 */
	uint8_t zero;
	uint64_t incarnation;	/* the sender's, little endian */
	struct rxm_wire_addr addr; /* the sender's rxm address */
};
static_assert(sizeof(struct rxm_cm_data) == 40, "rxm_cm_data: 40 B");

/* The checked, host-order view of a struct rxm_cm_data. */
struct rxm_cm_msg {
	enum rxm_cm_kind kind;
	enum rxm_cm_reason reason;
	uint64_t incarnation;
	struct rxm_wire_addr addr;	/* checked, kept in wire form (it
					 * is compared and hashed as is) */
};

/* Fill out (the wire form) from the fields. */
void rxm_cm_build(struct rxm_cm_data *out, enum rxm_cm_kind kind,
		  enum rxm_cm_reason reason, uint64_t incarnation,
		  const struct rxm_wire_addr *addr);

/*
 * Check len bytes of CM data received from a peer and convert them:
 * 0, -FI_ENOPROTOOPT (another magic or version: not an rxm peer of ours),
 * or -FI_EINVAL (short, an unknown kind or reason, a bad address, a
 * nonzero reserved byte). Reads only data[0, len).
 */
int rxm_cm_parse(const void *data, size_t len, struct rxm_cm_msg *out);

/* A sockaddr (AF_INET or AF_INET6) in wire form: 0 or -FI_EINVAL. */
int rxm_wire_addr_from_sa(struct rxm_wire_addr *out,
			  const struct sockaddr *sa, size_t len);
/* Back to a sockaddr in ss; returns its length (never fails for an
 * address that passed rxm_cm_parse or came from the function above). */
size_t rxm_wire_addr_to_sa(const struct rxm_wire_addr *a,
			   struct sockaddr_storage *ss);
/* Total order of addresses (simultaneous connects: the lower one's
 * request stays): <0, 0, >0. */
int rxm_wire_addr_cmp(const struct rxm_wire_addr *a,
		      const struct rxm_wire_addr *b);
/* Is acceptor (the address an accepting side names itself by) the one
 * a connection was made to (dialed)? The same address, or a wildcard
 * listener (IP all zero: it names no interface) on the dialed port of
 * the same family, which is what answers a connect to any of the
 * host's addresses on that port. */
bool rxm_wire_addr_answers(const struct rxm_wire_addr *acceptor,
			   const struct rxm_wire_addr *dialed);

#endif /* PROPEL_RXM_CM_PROTO_H */
