/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's data protocol: what one rxm endpoint sends another over their
 * core connection (rxm_conn.h). Every rxm message is one or more core
 * messages, each starting with a struct rxm_hdr; the bytes come from
 * another machine and are input (DESIGN.md section 7a): rxm_proto_check
 * validates a header against our own limits, and a connection that sends
 * a header that fails is closed.
 *
 * The protocols, by the size of the application's message:
 *   eager      (size + header <= the receive buffer size): one core
 *              message, RXM_OP_EAGER, with the whole payload;
 *   segmented  (up to FI_OFI_RXM_SAR_LIMIT): RXM_OP_SAR messages, each a
 *              full receive buffer but the last, numbered by seg from 0,
 *              all with the same msg_id and the total size;
 *   rendezvous (larger): RXM_OP_RNDV_REQ carries the sender's buffers as
 *              struct rxm_rndv_iov entries (address, length, key of a
 *              core registration); the receiver reads them with fi_read
 *              and answers RXM_OP_RNDV_DONE with the same msg_id (size:
 *              the bytes read; seg: 0 or a positive errno), which
 *              completes the send.
 *              Write-based (the sender's FI_OFI_RXM_USE_RNDV_WRITE):
 *              the request carries RXM_F_RNDV_WRITE and no buffers;
 *              once a receive takes it, the receiver registers its own
 *              buffers for remote writes and answers RXM_OP_RNDV_CTS
 *              naming them (size: the bytes it takes, at least 1; the
 *              payload a struct rxm_rndv_req as above); the sender
 *              writes them with fi_write on the connection the CTS came
 *              on and, once the write completed, sends RXM_OP_RNDV_FIN
 *              (size: the bytes written; seg: 0 or a positive errno),
 *              which completes the reception: the connection delivers
 *              in order, so the bytes are in place before the FIN. A
 *              receiver that takes nothing (truncation to 0, discard) or
 *              cannot register answers RNDV_DONE as in the read mode.
 * The SAR limit is the sender's choice: a receiver takes segmented
 * messages up to its max_msg_size.
 *
 * RMA and atomics (rdm_rma.h), emulated over messages: the request names
 * the target's buffer in a struct rxm_rma_hdr after the header, and the
 * target checks it against its own registrations (rdm_rma_check) before
 * a byte moves. Every request is answered, in the order it came, by
 * RXM_OP_RMA_ACK with its msg_id and a status (0 or a positive errno);
 * the initiator's requests to one peer wait in that order (rxm_ep.h).
 *   write      RXM_OP_WRITE chunks of at most a buffer each, in order:
 *              size = the chunk's bytes, tag = the whole write's bytes,
 *              seg = the chunk's number; RXM_F_LAST on the last (the
 *              target's events), RXM_F_CQ_DATA with it; one ack a chunk.
 *   read       RXM_OP_READ_REQ (size = bytes wanted); the target answers
 *              RXM_OP_READ_RESP chunks (tag = offset, size = bytes), in
 *              order, then the ack.
 *   atomic     RXM_OP_ATOMIC carries struct rdm_atomic_req (size bytes);
 *              the ack carries the old values (size bytes) of a fetch.
 * A write or read larger than one buffer's payload moves by the core's
 * own RMA instead (RXM_F_CORE, when the core reads and writes remote
 * memory): the initiator registers its buffers with the core (random
 * keys, as a rendezvous does) and the request carries, after the rma
 * header, a struct rxm_rndv_req naming them (size: the whole transfer).
 * The target checks the request against its own registrations as
 * above, then moves the bytes itself on the connection the request came
 * on: a write with the core's fi_read from the initiator's buffers into
 * its memory, a read with the core's fi_write from its memory into the
 * initiator's buffers; once that completed it answers one ack (its
 * events first). A write by the core is one message: seg 0, size = tag
 * = the bytes, RXM_F_LAST, and RXM_F_CQ_DATA as any last chunk.
 * Answers may then come in another order than the requests: the
 * initiator finds a request by its msg_id (rxm_ep_rma.c).
 * Byte order: little endian (an atomic's operands: the job's own
 * representation, fi_atomic(3)).
 */
#ifndef PROPEL_RXM_PROTO_H
#define PROPEL_RXM_PROTO_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fi_errno.h>

#define RXM_PROTO_VERSION	5	/* 2: RMA and atomics; 3: write-based
					 * rendezvous; 4: RMA by the core;
					 * 5: RXM_F_RX_MASK */
#define RXM_RNDV_IOV_MAX	4	/* buffers one rendezvous names */

enum rxm_op {
	RXM_OP_EAGER = 1,
	RXM_OP_SAR = 2,
	RXM_OP_RNDV_REQ = 3,
	RXM_OP_RNDV_DONE = 4,
	RXM_OP_WRITE = 5,
	RXM_OP_READ_REQ = 6,
	RXM_OP_READ_RESP = 7,
	RXM_OP_ATOMIC = 8,
	RXM_OP_RMA_ACK = 9,
	RXM_OP_RNDV_CTS = 10,
	RXM_OP_RNDV_FIN = 11,
	RXM_OP_MAX = RXM_OP_RNDV_FIN,
};

/* rxm_hdr.flags */
#define RXM_F_TAGGED	(1u << 0)	/* tag is the message's tag */
#define RXM_F_CQ_DATA	(1u << 1)	/* cq_data goes to the completion */
#define RXM_F_LAST	(1u << 2)	/* WRITE: the write's last chunk */
#define RXM_F_RNDV_WRITE (1u << 3)	/* RNDV_REQ: the sender writes */
#define RXM_F_CORE	(1u << 4)	/* WRITE, READ_REQ: by the core's RMA,
					 * a struct rxm_rndv_req follows */
/* Bits 8..15 of EAGER, SAR and RNDV_REQ: the receive context of a
 * scalable endpoint the message is for (fi_rx_addr, rdm_sep.h), 0
 * otherwise; checked by the receiver against its own count. */
#define RXM_F_RX_SHIFT	8
#define RXM_F_RX_MASK	(0xffu << RXM_F_RX_SHIFT)
#define RXM_F_ALL	(RXM_F_TAGGED | RXM_F_CQ_DATA | RXM_F_LAST | \
			 RXM_F_RNDV_WRITE | RXM_F_CORE | RXM_F_RX_MASK)

/* Operand bytes of one atomic request (fi_atomicvalid's count follows);
 * a request is the 8-byte rdm_atomic_req header and up to twice this. */
#define RXM_ATOMIC_MAX_BYTES	1024
#define RXM_ATOMIC_REQ_MAX	(8 + 2 * RXM_ATOMIC_MAX_BYTES)
/* Largest errno an ack carries. */
#define RXM_ACK_ERRNO_MAX	4096

struct rxm_hdr {
	uint8_t version;	/* RXM_PROTO_VERSION */
	uint8_t op;		/* enum rxm_op */
	uint16_t flags;		/* RXM_F_*; 0 for RNDV_DONE */
	uint32_t seg;		/* SAR: segment number; else 0 */
	uint64_t size;		/* the application message's bytes; for
				 * RNDV_DONE the bytes the target read */
	uint64_t tag;
	uint64_t cq_data;
	uint64_t msg_id;	/* the sender's id of the message (SAR,
				 * rendezvous); 0 for eager */
};
static_assert(sizeof(struct rxm_hdr) == 40, "rxm_hdr is 40 bytes");

/* The target's buffer an RMA or atomic request names (after the
 * header of WRITE, READ_REQ and ATOMIC). */
struct rxm_rma_hdr {
	uint64_t addr;		/* virtual address or offset, per the
				 * target domain's mr_mode */
	uint64_t key;
};
static_assert(sizeof(struct rxm_rma_hdr) == 16, "rxm_rma_hdr: 16 B");

/* One sender buffer of a rendezvous request. */
struct rxm_rndv_iov {
	uint64_t addr;		/* as the core's MR mode addresses it */
	uint64_t len;
	uint64_t key;
};
static_assert(sizeof(struct rxm_rndv_iov) == 24, "rxm_rndv_iov: 24 B");

/* RXM_OP_RNDV_REQ's payload: count, then count entries. */
struct rxm_rndv_req {
	uint32_t count;		/* 1..RXM_RNDV_IOV_MAX */
	uint32_t zero;
	struct rxm_rndv_iov iov[RXM_RNDV_IOV_MAX];
};

/* Our own limits, never the peer's. */
struct rxm_proto_limits {
	uint64_t max_msg_size;	/* the endpoint's max_msg_size */
	size_t buf_size;	/* bytes of a receive buffer, header included */
	uint64_t sar_limit;	/* largest message we segment (the
				 * sender's choice; larger: rendezvous) */
};

/* Swap a header (or a rendezvous request) between wire and host order
 * in place. */
void rxm_hdr_swap(struct rxm_hdr *h);
void rxm_rndv_req_swap(struct rxm_rndv_req *r, uint32_t count);
void rxm_rma_hdr_swap(struct rxm_rma_hdr *r);

/*
 * Check a host-order header whose core message carried len bytes in all
 * (header included): 0, -FI_ENOPROTOOPT (another version) or -FI_EINVAL.
 * The rules: a known op and only its flags; size within max_msg_size;
 * eager: len == header + size; SAR: len <= buf_size, a segment that is
 * not past the message (seg * payload-per-segment < size), and exactly
 * the bytes that segment must carry; RNDV_REQ: len covers the count and
 * its entries, or (RXM_F_RNDV_WRITE) is the header alone; RNDV_DONE and
 * RNDV_FIN: header alone, no flags, seg <= RXM_ACK_ERRNO_MAX; RNDV_CTS:
 * no flags, seg 0, size at least 1, len covers the count and its entries
 * within a buffer (rxm_rndv_check does the rest); WRITE: header, rma header and
 * size bytes within a buffer, size <= tag (the whole write), or with
 * RXM_F_CORE: seg 0, size == tag, RXM_F_LAST, and after the rma header
 * at least a rendezvous request's count (rxm_rndv_check at the target
 * does the rest); READ_REQ: header and rma header, or with RXM_F_CORE
 * as a write by the core (its only flag); READ_RESP: header and size bytes within a
 * buffer, tag + size not wrapping; ATOMIC: header, rma header and size
 * bytes, size <= RXM_ATOMIC_REQ_MAX; RMA_ACK: header and size bytes,
 * size <= RXM_ATOMIC_MAX_BYTES, seg <= RXM_ACK_ERRNO_MAX. Only WRITE
 * takes flags (CQ_DATA, LAST, CORE) and READ_REQ CORE; the others none
 * but the messages'.
 */
int rxm_proto_check(const struct rxm_hdr *h, size_t len,
		    const struct rxm_proto_limits *lim);

/*
 * Check a host-order rendezvous request of payload len bytes for a
 * message of size bytes: 1 <= count <= RXM_RNDV_IOV_MAX, the entries fit
 * len, every length nonzero, their sum exactly size and no addr + len
 * wrapping. 0 or -FI_EINVAL.
 */
int rxm_rndv_check(const struct rxm_rndv_req *r, size_t len, uint64_t size);

/* A status (0 or -FI_E*) as an ack or RNDV_DONE carries it: 0, or a
 * positive errno up to RXM_ACK_ERRNO_MAX (FI_EIO for anything else). */
static inline uint32_t rxm_wire_errno(int status)
{
	if (!status)
		return 0;
	return status < 0 && status >= -RXM_ACK_ERRNO_MAX ?
	       (uint32_t)-status : FI_EIO;
}

/* Payload bytes one SAR segment carries (the last carries the rest). */
static inline size_t rxm_sar_seg_payload(const struct rxm_proto_limits *lim)
{
	return lim->buf_size - sizeof(struct rxm_hdr);
}

#endif /* PROPEL_RXM_PROTO_H */
