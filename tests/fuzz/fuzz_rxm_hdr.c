/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: rxm_proto_check and rxm_rndv_check (prov/rxm/rxm_proto.c),
 * the gates of every message an rxm peer sends over its connection.
 *
 * Input: a core message as it lands in a receive buffer (struct rxm_hdr
 * in wire order, then the payload); inputs longer than a receive buffer
 * are cut to its size, as the core would. The header is swapped as the
 * endpoint does and checked against our limits; what is accepted must
 * satisfy the rules rxm_proto.h states, the payload is then read as the
 * endpoint reads it (ASan catches a read past the message), and a
 * rendezvous request (or a CTS: the receiver's buffers) is copied and
 * checked the same way, as are the initiator's buffers of an RMA by the
 * core; other RMA and atomic messages name exactly the bytes their op
 * carries.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "rxm_proto.h"

#define FUZZ_REQUIRE(c) do { if (!(c)) abort(); } while (0)
#define FUZZ_BUF 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rxm_proto_limits lim = {
		.max_msg_size = 1ull << 30,
		.buf_size = FUZZ_BUF,
		.sar_limit = 1ull << 24,
	};
	struct rxm_rndv_req req;
	struct rxm_hdr h;
	uint8_t *msg, sum = 0;
	size_t len = size < FUZZ_BUF ? size : FUZZ_BUF, plen, i;
	int r;

	if (len < sizeof(h))
		return 0;
	/* the message on the heap at its exact length */
	msg = malloc(len);
	FUZZ_REQUIRE(msg);
	memcpy(msg, data, len);
	memcpy(&h, msg, sizeof(h));
	rxm_hdr_swap(&h);
	r = rxm_proto_check(&h, len, &lim);
	FUZZ_REQUIRE(r == 0 || r == -FI_EINVAL || r == -FI_ENOPROTOOPT);
	if (r)
		goto out;
	FUZZ_REQUIRE(h.version == RXM_PROTO_VERSION);
	FUZZ_REQUIRE(h.op >= RXM_OP_EAGER && h.op <= RXM_OP_MAX);
	FUZZ_REQUIRE(!(h.flags & ~RXM_F_ALL));
	FUZZ_REQUIRE(h.size <= lim.max_msg_size);
	plen = len - sizeof(h);
	switch (h.op) {
	case RXM_OP_EAGER:
		FUZZ_REQUIRE(plen == h.size);
		break;
	case RXM_OP_SAR:
		FUZZ_REQUIRE((uint64_t)h.seg * rxm_sar_seg_payload(&lim) +
			     plen <= h.size);
		break;
	case RXM_OP_RNDV_REQ:
		if (h.flags & RXM_F_RNDV_WRITE) {
			FUZZ_REQUIRE(plen == 0 && !h.seg);
			break;
		}
		/* fall through - the buffers are checked as a CTS's */
	case RXM_OP_RNDV_CTS:
		if (h.op == RXM_OP_RNDV_CTS)
			FUZZ_REQUIRE(!h.flags && !h.seg && h.size &&
				     plen <= FUZZ_BUF);
		memset(&req, 0, sizeof(req));
		memcpy(&req, msg + sizeof(h),
		       plen < sizeof(req) ? plen : sizeof(req));
		rxm_rndv_req_swap(&req, req.count);
		if (!rxm_rndv_check(&req, plen, h.size)) {
			uint64_t total = 0;

			FUZZ_REQUIRE(req.count >= 1 &&
				     req.count <= RXM_RNDV_IOV_MAX);
			for (i = 0; i < req.count; i++) {
				FUZZ_REQUIRE(req.iov[i].len);
				FUZZ_REQUIRE(req.iov[i].addr +
					     req.iov[i].len >
					     req.iov[i].addr);
				total += req.iov[i].len;
			}
			FUZZ_REQUIRE(total == h.size);
		}
		break;
	case RXM_OP_RNDV_DONE:
	case RXM_OP_RNDV_FIN:
		FUZZ_REQUIRE(plen == 0 && !h.flags &&
			     h.seg <= RXM_ACK_ERRNO_MAX);
		break;
	case RXM_OP_WRITE:
	case RXM_OP_READ_REQ:
		if (h.flags & RXM_F_CORE) {
			/* by the core: the initiator's buffers follow, and
			 * are checked as a rendezvous request's */
			FUZZ_REQUIRE(!h.seg && plen >=
				     sizeof(struct rxm_rma_hdr) +
				     offsetof(struct rxm_rndv_req, iov));
			FUZZ_REQUIRE(h.op == RXM_OP_READ_REQ ?
				     h.flags == RXM_F_CORE :
				     h.size == h.tag &&
				     (h.flags & RXM_F_LAST) &&
				     !(h.flags & RXM_F_TAGGED));
			plen -= sizeof(struct rxm_rma_hdr);
			memset(&req, 0, sizeof(req));
			memcpy(&req, msg + sizeof(h) +
			       sizeof(struct rxm_rma_hdr),
			       plen < sizeof(req) ? plen : sizeof(req));
			rxm_rndv_req_swap(&req, req.count);
			if (!rxm_rndv_check(&req, plen, h.size))
				FUZZ_REQUIRE(req.count >= 1 &&
					     req.count <= RXM_RNDV_IOV_MAX);
			plen += sizeof(struct rxm_rma_hdr);
			break;
		}
		if (h.op == RXM_OP_READ_REQ) {
			FUZZ_REQUIRE(plen == sizeof(struct rxm_rma_hdr) &&
				     !h.flags);
			break;
		}
		FUZZ_REQUIRE(plen == sizeof(struct rxm_rma_hdr) + h.size);
		FUZZ_REQUIRE(h.size <= h.tag && !(h.flags & RXM_F_TAGGED));
		break;
	case RXM_OP_READ_RESP:
		FUZZ_REQUIRE(plen == h.size && h.tag + h.size >= h.tag &&
			     !h.flags);
		break;
	case RXM_OP_ATOMIC:
		FUZZ_REQUIRE(plen == sizeof(struct rxm_rma_hdr) + h.size &&
			     h.size <= RXM_ATOMIC_REQ_MAX && !h.flags);
		break;
	default:	/* RXM_OP_RMA_ACK */
		FUZZ_REQUIRE(plen == h.size &&
			     h.size <= RXM_ATOMIC_MAX_BYTES &&
			     h.seg <= RXM_ACK_ERRNO_MAX && !h.flags);
	}
	if (h.flags & RXM_F_LAST)
		FUZZ_REQUIRE(h.op == RXM_OP_WRITE);
	if (h.flags & RXM_F_RNDV_WRITE)
		FUZZ_REQUIRE(h.op == RXM_OP_RNDV_REQ);
	if (h.flags & RXM_F_CORE)
		FUZZ_REQUIRE(h.op == RXM_OP_WRITE || h.op == RXM_OP_READ_REQ);
	/* what the endpoint does next: the payload bytes it was told of */
	for (i = 0; i < plen; i++)
		sum ^= msg[sizeof(h) + i];
	(void)sum;
out:
	free(msg);
	return 0;
}
