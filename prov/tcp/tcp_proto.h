/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp provider's wire protocol: everything that crosses a socket.
 * Every byte described here comes from another machine and is input
 * (DESIGN.md section 7a): tcp_proto_check_* validate a header against
 * our own limits before any field is used, and a header that fails them
 * closes the connection.
 *
 * A connection starts with a CM exchange on the fresh socket:
 *   active  -> passive: struct tcp_cm_msg (TCP_CM_REQ) + data_len bytes
 *   passive -> active:  struct tcp_cm_msg (TCP_CM_ACCEPT or TCP_CM_REJECT)
 *                       + data_len bytes
 * Each side reads exactly these bytes, so whatever follows an ACCEPT on
 * the stream is data. After it, the stream is a sequence of messages,
 * each a struct tcp_hdr followed by hdr.size payload bytes for the ops
 * that carry a payload (TCP_OP_MSG, TCP_OP_TAGGED, TCP_OP_WRITE,
 * TCP_OP_READ_RESP); TCP_OP_READ_REQ and TCP_OP_ACK carry none.
 *
 * Byte order: little endian on the wire; tcp_proto_le* convert (no-ops on
 * the little-endian hosts this runs on, real swaps elsewhere).
 */
#ifndef PROPEL_TCP_PROTO_H
#define PROPEL_TCP_PROTO_H

#include <assert.h>
#include <endian.h>
#include <stddef.h>
#include <stdint.h>

#define TCP_PROTO_VERSION	1
#define TCP_CM_MAGIC		0x6c707270u	/* "prpl" */
/* The largest CM data either side sends (FI_OPT_CM_DATA_SIZE), the
 * reference's figure. */
#define TCP_CM_DATA_MAX		256

enum tcp_cm_kind {
	TCP_CM_REQ = 1,
	TCP_CM_ACCEPT = 2,
	TCP_CM_REJECT = 3,
};

struct tcp_cm_msg {
	uint32_t magic;		/* TCP_CM_MAGIC */
	uint8_t version;	/* TCP_PROTO_VERSION */
	uint8_t kind;		/* enum tcp_cm_kind */
	uint16_t data_len;	/* CM data that follows, <= TCP_CM_DATA_MAX */
	uint64_t reserved;	/* zero; ignored by readers of version 1 */
};
static_assert(sizeof(struct tcp_cm_msg) == 16, "tcp_cm_msg is 16 bytes");

enum tcp_op {
	TCP_OP_MSG = 1,		/* fi_send family */
	TCP_OP_TAGGED = 2,	/* fi_tsend family: tag in tag_addr */
	TCP_OP_WRITE = 3,	/* fi_write: remote addr in tag_addr, key */
	TCP_OP_READ_REQ = 4,	/* fi_read: addr, key, size wanted */
	TCP_OP_READ_RESP = 5,	/* answer to READ_REQ: id, status, payload */
	TCP_OP_ACK = 6,		/* answer to TCP_F_ACK_REQ: id, status */
	TCP_OP_MAX = TCP_OP_ACK,
};

/* hdr.flags */
#define TCP_F_CQ_DATA	0x01	/* data carries remote CQ data */
#define TCP_F_ACK_REQ	0x02	/* answer with TCP_OP_ACK once placed */
/* WRITE / READ_REQ only: one remote buffer of an operation that names
 * several (rma_iov_count > 1), not its last. The target counts the
 * operation once, at its last part, which alone may carry CQ data. */
#define TCP_F_PART	0x04
#define TCP_F_ALL	(TCP_F_CQ_DATA | TCP_F_ACK_REQ | TCP_F_PART)

struct tcp_hdr {
	uint8_t op;		/* enum tcp_op */
	uint8_t flags;		/* TCP_F_* */
	uint16_t status;	/* ACK / READ_RESP: positive FI_E*, 0 = ok */
	uint32_t id;		/* initiator's operation id, echoed back */
	uint64_t size;		/* payload bytes (READ_REQ: bytes wanted) */
	uint64_t tag_addr;	/* TAGGED: tag; WRITE / READ_REQ: address */
	uint64_t key;		/* WRITE / READ_REQ: MR key */
	uint64_t data;		/* remote CQ data (TCP_F_CQ_DATA) */
};
static_assert(sizeof(struct tcp_hdr) == 40, "tcp_hdr is 40 bytes");
static_assert(offsetof(struct tcp_hdr, size) == 8, "tcp_hdr layout");
static_assert(offsetof(struct tcp_hdr, data) == 32, "tcp_hdr layout");

/* Our own limits a header is checked against (not the peer's word). */
struct tcp_proto_limits {
	uint64_t max_msg_size;	/* largest payload we accept */
	uint64_t max_read_size;	/* largest READ_REQ we serve */
};

/* Convert a header between wire and host order, in place. */
static inline void tcp_proto_hdr_swap(struct tcp_hdr *h)
{
	h->status = le16toh(h->status);
	h->id = le32toh(h->id);
	h->size = le64toh(h->size);
	h->tag_addr = le64toh(h->tag_addr);
	h->key = le64toh(h->key);
	h->data = le64toh(h->data);
}

static inline void tcp_proto_cm_swap(struct tcp_cm_msg *m)
{
	m->magic = le32toh(m->magic);
	m->data_len = le16toh(m->data_len);
	m->reserved = le64toh(m->reserved);
}

/*
 * Validate a received data header (host order). 0 when every field is
 * usable as the op defines it; -FI_EIO otherwise (unknown op or flag,
 * a status on a request, a size past our limits, a payload where the op
 * has none).
 */
int tcp_proto_check_hdr(const struct tcp_hdr *h,
			const struct tcp_proto_limits *lim);

/*
 * Validate a received CM header (host order) of the kind expected
 * (TCP_CM_REQ at the passive side; ACCEPT or REJECT at the active side,
 * pass 0 to accept either). 0, -FI_EIO (magic, kind, data_len past
 * TCP_CM_DATA_MAX) or -FI_ENOPROTOOPT (another protocol version).
 */
int tcp_proto_check_cm(const struct tcp_cm_msg *m, int expect_kind);

#endif /* PROPEL_TCP_PROTO_H */
