/* SPDX-License-Identifier: BSD-2-Clause */
/* ofi_rxm's data headers: byte order and validation (rxm_proto.h). */
#include <endian.h>

#include <rdma/fi_errno.h>

#include "rxm_proto.h"

void rxm_hdr_swap(struct rxm_hdr *h)
{
	h->flags = le16toh(h->flags);
	h->seg = le32toh(h->seg);
	h->size = le64toh(h->size);
	h->tag = le64toh(h->tag);
	h->cq_data = le64toh(h->cq_data);
	h->msg_id = le64toh(h->msg_id);
}

void rxm_rndv_req_swap(struct rxm_rndv_req *r, uint32_t count)
{
	uint32_t i;

	r->count = le32toh(r->count);
	r->zero = le32toh(r->zero);
	for (i = 0; i < count && i < RXM_RNDV_IOV_MAX; i++) {
		r->iov[i].addr = le64toh(r->iov[i].addr);
		r->iov[i].len = le64toh(r->iov[i].len);
		r->iov[i].key = le64toh(r->iov[i].key);
	}
}

void rxm_rma_hdr_swap(struct rxm_rma_hdr *r)
{
	r->addr = le64toh(r->addr);
	r->key = le64toh(r->key);
}

/* RMA and atomic messages (rxm_proto.h): the exact length each names. */
static int rxm_proto_check_rma(const struct rxm_hdr *h, size_t len,
			       const struct rxm_proto_limits *lim)
{
	const size_t rh = sizeof(*h) + sizeof(struct rxm_rma_hdr);
	/* by the core: the initiator's buffers follow (rxm_rndv_req) */
	const size_t core = rh + offsetof(struct rxm_rndv_req, iov);

	if (len > lim->buf_size)
		return -FI_EINVAL;
	if (h->op != RXM_OP_WRITE &&
	    (h->flags & ~(h->op == RXM_OP_READ_REQ ? RXM_F_CORE : 0u)))
		return -FI_EINVAL;
	switch (h->op) {
	case RXM_OP_WRITE:
		if (h->flags & RXM_F_TAGGED)
			return -FI_EINVAL;
		if (h->flags & RXM_F_CORE)
			return !h->seg && h->size == h->tag &&
			       (h->flags & RXM_F_LAST) && len >= core ?
			       0 : -FI_EINVAL;
		return len >= rh && len - rh == h->size && h->size <= h->tag &&
		       h->tag <= lim->max_msg_size ? 0 : -FI_EINVAL;
	case RXM_OP_READ_REQ:
		if (h->flags & RXM_F_CORE)
			return !h->seg && len >= core ? 0 : -FI_EINVAL;
		return len == rh && !h->seg ? 0 : -FI_EINVAL;
	case RXM_OP_READ_RESP:
		return !h->seg && len - sizeof(*h) == h->size &&
		       h->tag + h->size >= h->tag ? 0 : -FI_EINVAL;
	case RXM_OP_ATOMIC:
		return !h->seg && len >= rh && len - rh == h->size &&
		       h->size <= RXM_ATOMIC_REQ_MAX ? 0 : -FI_EINVAL;
	default:	/* RXM_OP_RMA_ACK */
		return len - sizeof(*h) == h->size &&
		       h->size <= RXM_ATOMIC_MAX_BYTES &&
		       h->seg <= RXM_ACK_ERRNO_MAX ? 0 : -FI_EINVAL;
	}
}

static int rxm_proto_check_sar(const struct rxm_hdr *h, size_t len,
			       const struct rxm_proto_limits *lim)
{
	uint64_t per = rxm_sar_seg_payload(lim), first, want;

	if (len > lim->buf_size || len < sizeof(*h))
		return -FI_EINVAL;
	/* the segment must start inside the message (no overflow: seg is
	 * 32 bits and per below 2^32 for any buffer we post) */
	first = (uint64_t)h->seg * per;
	if (per >= (1ull << 32) || first >= h->size)
		return -FI_EINVAL;
	want = h->size - first < per ? h->size - first : per;
	return len - sizeof(*h) == want ? 0 : -FI_EINVAL;
}

int rxm_proto_check(const struct rxm_hdr *h, size_t len,
		    const struct rxm_proto_limits *lim)
{
	if (h->version != RXM_PROTO_VERSION)
		return -FI_ENOPROTOOPT;
	if (len < sizeof(*h) || !lim->buf_size ||
	    lim->buf_size <= sizeof(*h))
		return -FI_EINVAL;
	if (h->op < RXM_OP_EAGER || h->op > RXM_OP_MAX ||
	    (h->flags & ~RXM_F_ALL) || h->size > lim->max_msg_size)
		return -FI_EINVAL;
	/* LAST belongs to RMA writes alone, RNDV_WRITE to requests, CORE to
	 * RMA writes and reads, a receive context to messages */
	if (((h->flags & RXM_F_RX_MASK) && h->op != RXM_OP_EAGER &&
	     h->op != RXM_OP_SAR && h->op != RXM_OP_RNDV_REQ) ||
	    ((h->flags & RXM_F_LAST) && h->op != RXM_OP_WRITE) ||
	    ((h->flags & RXM_F_RNDV_WRITE) && h->op != RXM_OP_RNDV_REQ) ||
	    ((h->flags & RXM_F_CORE) && h->op != RXM_OP_WRITE &&
	     h->op != RXM_OP_READ_REQ))
		return -FI_EINVAL;
	switch (h->op) {
	case RXM_OP_EAGER:
		if (h->seg || h->msg_id)
			return -FI_EINVAL;
		return len - sizeof(*h) == h->size && len <= lim->buf_size ?
		       0 : -FI_EINVAL;
	case RXM_OP_SAR:
		return rxm_proto_check_sar(h, len, lim);
	case RXM_OP_RNDV_REQ:
		if (h->flags & RXM_F_RNDV_WRITE)
			return h->seg || len != sizeof(*h) ? -FI_EINVAL : 0;
		if (h->seg ||
		    len < sizeof(*h) + offsetof(struct rxm_rndv_req, iov) ||
		    len > lim->buf_size)
			return -FI_EINVAL;
		return 0;
	case RXM_OP_RNDV_DONE:
	case RXM_OP_RNDV_FIN:
		return (h->flags || h->seg > RXM_ACK_ERRNO_MAX ||
			len != sizeof(*h)) ? -FI_EINVAL : 0;
	case RXM_OP_RNDV_CTS:
		return (h->flags || h->seg || !h->size ||
			len < sizeof(*h) + offsetof(struct rxm_rndv_req, iov) ||
			len > lim->buf_size) ? -FI_EINVAL : 0;
	default:
		return rxm_proto_check_rma(h, len, lim);
	}
}

int rxm_rndv_check(const struct rxm_rndv_req *r, size_t len, uint64_t size)
{
	uint64_t sum = 0;
	uint32_t i;

	if (len < offsetof(struct rxm_rndv_req, iov) || r->zero ||
	    r->count < 1 || r->count > RXM_RNDV_IOV_MAX ||
	    len < offsetof(struct rxm_rndv_req, iov) +
		  (size_t)r->count * sizeof(r->iov[0]))
		return -FI_EINVAL;
	for (i = 0; i < r->count; i++) {
		const struct rxm_rndv_iov *v = &r->iov[i];

		if (!v->len || v->addr + v->len < v->addr ||
		    sum + v->len < sum)
			return -FI_EINVAL;
		sum += v->len;
	}
	return sum == size ? 0 : -FI_EINVAL;
}
