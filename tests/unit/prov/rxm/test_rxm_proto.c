/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's wire checks (prov/rxm/rxm_proto.c, rxm_cm_proto.c): every
 * rule each check states, met and broken by one field at a time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "rxm_cm_proto.h"
#include "rxm_proto.h"

static const struct rxm_proto_limits lim = {
	.max_msg_size = 1ull << 40,
	.buf_size = 16384,
	.sar_limit = 1ull << 20,
};

static struct rxm_hdr hdr(uint8_t op, uint64_t size)
{
	struct rxm_hdr h = { .version = RXM_PROTO_VERSION, .op = op,
			     .size = size };

	return h;
}

static void test_eager(void **s)
{
	struct rxm_hdr h = hdr(RXM_OP_EAGER, 100);
	size_t len = sizeof(h) + 100;

	(void)s;
	assert_int_equal(rxm_proto_check(&h, len, &lim), 0);
	h.flags = RXM_F_TAGGED | RXM_F_CQ_DATA;
	assert_int_equal(rxm_proto_check(&h, len, &lim), 0);
	/* payload length must match the size exactly */
	assert_int_equal(rxm_proto_check(&h, len - 1, &lim), -FI_EINVAL);
	assert_int_equal(rxm_proto_check(&h, len + 1, &lim), -FI_EINVAL);
	assert_int_equal(rxm_proto_check(&h, sizeof(h) - 1, &lim),
			 -FI_EINVAL);
	h.flags = 1u << 5;	/* unknown flag */
	assert_int_equal(rxm_proto_check(&h, len, &lim), -FI_EINVAL);
	h.flags = 0;
	h.msg_id = 9;		/* eager names no message id */
	assert_int_equal(rxm_proto_check(&h, len, &lim), -FI_EINVAL);
	h.msg_id = 0;
	h.version = RXM_PROTO_VERSION + 1;
	assert_int_equal(rxm_proto_check(&h, len, &lim), -FI_ENOPROTOOPT);
	h.version = RXM_PROTO_VERSION;
	h.flags = RXM_F_LAST;	/* a write's flag */
	assert_int_equal(rxm_proto_check(&h, len, &lim), -FI_EINVAL);
	h = hdr(0, 0);
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
	h = hdr(RXM_OP_MAX + 1, 0);
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
	/* larger than the endpoint's max_msg_size */
	h = hdr(RXM_OP_EAGER, lim.max_msg_size + 1);
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
}

static void test_sar(void **s)
{
	size_t per = rxm_sar_seg_payload(&lim);
	uint64_t size = 2 * per + 10;	/* three segments */
	struct rxm_hdr h = hdr(RXM_OP_SAR, size);

	(void)s;
	h.msg_id = 77;
	h.seg = 0;
	assert_int_equal(rxm_proto_check(&h, lim.buf_size, &lim), 0);
	h.seg = 1;
	assert_int_equal(rxm_proto_check(&h, lim.buf_size, &lim), 0);
	h.seg = 2;		/* the last carries the rest */
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 10, &lim), 0);
	assert_int_equal(rxm_proto_check(&h, lim.buf_size, &lim),
			 -FI_EINVAL);
	h.seg = 3;		/* past the message */
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 10, &lim),
			 -FI_EINVAL);
	h.seg = 0xffffffffu;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 10, &lim),
			 -FI_EINVAL);
	h.seg = 0;		/* short of a full buffer */
	assert_int_equal(rxm_proto_check(&h, lim.buf_size - 1, &lim),
			 -FI_EINVAL);
	assert_int_equal(rxm_proto_check(&h, lim.buf_size + 1, &lim),
			 -FI_EINVAL);
	/* the SAR limit is the sender's: larger segmented messages are
	 * taken up to max_msg_size, not beyond */
	h.size = lim.sar_limit + 1;
	assert_int_equal(rxm_proto_check(&h, lim.buf_size, &lim), 0);
	h.size = lim.max_msg_size + 1;
	assert_int_equal(rxm_proto_check(&h, lim.buf_size, &lim),
			 -FI_EINVAL);
}

static void test_rndv(void **s)
{
	struct rxm_hdr h = hdr(RXM_OP_RNDV_REQ, 3000);
	struct rxm_rndv_req r = { .count = 2 };
	size_t plen = offsetof(struct rxm_rndv_req, iov) + 2 * sizeof(r.iov[0]);

	(void)s;
	h.msg_id = 5;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim), 0);
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 4, &lim),
			 -FI_EINVAL);
	r.iov[0] = (struct rxm_rndv_iov){ .addr = 0x1000, .len = 1000 };
	r.iov[1] = (struct rxm_rndv_iov){ .addr = 0x9000, .len = 2000 };
	assert_int_equal(rxm_rndv_check(&r, plen, 3000), 0);
	assert_int_equal(rxm_rndv_check(&r, plen, 2999), -FI_EINVAL);
	assert_int_equal(rxm_rndv_check(&r, plen - 1, 3000), -FI_EINVAL);
	r.count = 0;
	assert_int_equal(rxm_rndv_check(&r, plen, 3000), -FI_EINVAL);
	r.count = RXM_RNDV_IOV_MAX + 1;
	assert_int_equal(rxm_rndv_check(&r, sizeof(r), 3000), -FI_EINVAL);
	r.count = 2;
	r.iov[1].len = 0;
	assert_int_equal(rxm_rndv_check(&r, plen, 1000), -FI_EINVAL);
	/* an address range that wraps */
	r.iov[1] = (struct rxm_rndv_iov){ .addr = UINT64_MAX - 10,
					  .len = 2000 };
	assert_int_equal(rxm_rndv_check(&r, plen, 3000), -FI_EINVAL);
	/* lengths whose sum wraps to the size */
	r.iov[0] = (struct rxm_rndv_iov){ .addr = 0, .len = UINT64_MAX };
	r.iov[1] = (struct rxm_rndv_iov){ .addr = 0, .len = 3001 };
	assert_int_equal(rxm_rndv_check(&r, plen, 3000), -FI_EINVAL);
	r.iov[0].len = 1000;
	r.iov[1].len = 2000;
	r.zero = 1;
	assert_int_equal(rxm_rndv_check(&r, plen, 3000), -FI_EINVAL);

	h = hdr(RXM_OP_RNDV_DONE, 3000);
	h.msg_id = 5;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), 0);
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 1, &lim),
			 -FI_EINVAL);
	h.seg = FI_EKEYREJECTED;	/* the receiver's read failed */
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), 0);
	h.seg = RXM_ACK_ERRNO_MAX + 1;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
	h.seg = 0;
	h.flags = RXM_F_TAGGED;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
}

static void test_cm(void **s)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(4242),
				  .sin_addr.s_addr = htonl(0x7f000001) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(7),
				    .sin6_scope_id = 3 };
	struct sockaddr_storage back;
	struct rxm_wire_addr a, b;
	struct rxm_cm_data d;
	struct rxm_cm_msg m;
	uint8_t raw[sizeof(d)];

	(void)s;
	assert_int_equal(rxm_wire_addr_from_sa(&a, (void *)&in, sizeof(in)),
			 0);
	assert_int_equal(rxm_wire_addr_to_sa(&a, &back), sizeof(in));
	assert_memory_equal(&back, &in, sizeof(in));
	in6.sin6_addr.s6_addr[15] = 1;
	assert_int_equal(rxm_wire_addr_from_sa(&b, (void *)&in6,
					       sizeof(in6)), 0);
	assert_int_equal(rxm_wire_addr_to_sa(&b, &back), sizeof(in6));
	assert_memory_equal(&back, &in6, sizeof(in6));
	assert_int_equal(rxm_wire_addr_from_sa(&b, (void *)&in6, 16),
			 -FI_EINVAL);
	assert_true(rxm_wire_addr_cmp(&a, &a) == 0);
	/* a wildcard listener answers for any address on its port */
	{
		struct rxm_wire_addr any = a, other = a;

		memset(any.ip, 0, sizeof(any.ip));
		assert_true(rxm_wire_addr_answers(&a, &a));
		assert_true(rxm_wire_addr_answers(&any, &a));
		assert_false(rxm_wire_addr_answers(&a, &any));
		other.port ^= 1;
		assert_false(rxm_wire_addr_answers(&any, &other));
		other = a;
		other.ip[3] ^= 1;
		assert_false(rxm_wire_addr_answers(&other, &a));
	}

	rxm_cm_build(&d, RXM_CM_REQ, RXM_REJ_LOST_RACE, 0x1234, &a);
	assert_int_equal(rxm_cm_parse(&d, sizeof(d), &m), 0);
	assert_int_equal(m.kind, RXM_CM_REQ);
	assert_int_equal(m.reason, RXM_REJ_NONE);	/* REJECT only */
	assert_true(m.incarnation == 0x1234);
	assert_int_equal(rxm_wire_addr_cmp(&m.addr, &a), 0);
	assert_int_equal(rxm_cm_parse(&d, sizeof(d) - 1, &m), -FI_EINVAL);
	assert_int_equal(rxm_cm_parse(NULL, sizeof(d), &m), -FI_EINVAL);
	rxm_cm_build(&d, RXM_CM_REJECT, RXM_REJ_DUPLICATE, 1, &a);
	assert_int_equal(rxm_cm_parse(&d, sizeof(d), &m), 0);
	assert_int_equal(m.reason, RXM_REJ_DUPLICATE);

	/* one broken field at a time */
	memcpy(raw, &d, sizeof(d));
	raw[0] ^= 1;			/* magic */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_ENOPROTOOPT);
	memcpy(raw, &d, sizeof(d));
	raw[4] = 9;			/* version */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_ENOPROTOOPT);
	memcpy(raw, &d, sizeof(d));
	raw[5] = 4;			/* kind */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_EINVAL);
	memcpy(raw, &d, sizeof(d));
	raw[6] = RXM_REJ_MAX + 1;	/* reason */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_EINVAL);
	memcpy(raw, &d, sizeof(d));
	raw[7] = 1;			/* reserved */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_EINVAL);
	memcpy(raw, &d, sizeof(d));
	raw[16] = 5;			/* address family */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_EINVAL);
	memcpy(raw, &d, sizeof(d));
	raw[16 + 8 + 4] = 1;		/* IPv4 bytes past the fourth */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_EINVAL);
	rxm_cm_build(&d, RXM_CM_ACCEPT, RXM_REJ_NONE, 1, &a);
	memcpy(raw, &d, sizeof(d));
	raw[6] = RXM_REJ_BAD;		/* a reason outside a reject */
	assert_int_equal(rxm_cm_parse(raw, sizeof(raw), &m), -FI_EINVAL);
}

/* RMA and atomic messages: the exact lengths rxm_proto.h states. */
/* The write-based rendezvous: a request with RXM_F_RNDV_WRITE is the
 * header alone; CTS names buffers for at least one byte; FIN is the
 * header alone with a bounded status; the flag belongs to requests. */
static void test_rndv_write(void **s)
{
	size_t plen = offsetof(struct rxm_rndv_req, iov) +
		      2 * sizeof(struct rxm_rndv_iov);
	struct rxm_hdr h = hdr(RXM_OP_RNDV_REQ, 1 << 20);

	(void)s;
	h.msg_id = 7;
	h.flags = RXM_F_RNDV_WRITE | RXM_F_TAGGED;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), 0);
	/* no buffers follow a write-based request */
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim),
			 -FI_EINVAL);
	h.seg = 1;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);

	h = hdr(RXM_OP_RNDV_CTS, 3000);
	h.msg_id = 7;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim), 0);
	/* shorter than its count, a flag, a segment, no bytes, too big */
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 4, &lim),
			 -FI_EINVAL);
	assert_int_equal(rxm_proto_check(&h, lim.buf_size + 1, &lim),
			 -FI_EINVAL);
	h.flags = RXM_F_RNDV_WRITE;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim),
			 -FI_EINVAL);
	h.flags = 0;
	h.seg = 2;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim),
			 -FI_EINVAL);
	h.seg = 0;
	h.size = 0;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim),
			 -FI_EINVAL);
	h.size = lim.max_msg_size + 1;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim),
			 -FI_EINVAL);

	h = hdr(RXM_OP_RNDV_FIN, 3000);
	h.msg_id = 7;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), 0);
	h.seg = FI_EIO;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), 0);
	h.seg = RXM_ACK_ERRNO_MAX + 1;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
	h.seg = 0;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 1, &lim),
			 -FI_EINVAL);
	h.flags = RXM_F_TAGGED;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);

	/* the flag on anything but a request */
	h = hdr(RXM_OP_EAGER, 10);
	h.flags = RXM_F_RNDV_WRITE;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 10, &lim),
			 -FI_EINVAL);
	h = hdr(RXM_OP_RNDV_DONE, 0);
	h.flags = RXM_F_RNDV_WRITE;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
}

static void test_rma(void **s)
{
	const size_t rh = sizeof(struct rxm_hdr) + sizeof(struct rxm_rma_hdr);
	struct rxm_hdr h = hdr(RXM_OP_WRITE, 100);

	(void)s;
	h.tag = 1000;		/* the whole write */
	assert_int_equal(rxm_proto_check(&h, rh + 100, &lim), 0);
	h.flags = RXM_F_LAST | RXM_F_CQ_DATA;
	assert_int_equal(rxm_proto_check(&h, rh + 100, &lim), 0);
	h.flags = RXM_F_TAGGED;	/* no tag on a write */
	assert_int_equal(rxm_proto_check(&h, rh + 100, &lim), -FI_EINVAL);
	h.flags = 0;
	assert_int_equal(rxm_proto_check(&h, rh + 99, &lim), -FI_EINVAL);
	assert_int_equal(rxm_proto_check(&h, rh + 101, &lim), -FI_EINVAL);
	h.tag = 99;		/* a chunk larger than its write */
	assert_int_equal(rxm_proto_check(&h, rh + 100, &lim), -FI_EINVAL);
	h = hdr(RXM_OP_WRITE, lim.buf_size);	/* past one buffer */
	h.tag = lim.buf_size;
	assert_int_equal(rxm_proto_check(&h, rh + lim.buf_size, &lim),
			 -FI_EINVAL);

	h = hdr(RXM_OP_READ_REQ, 1ull << 30);	/* any size to max_msg */
	assert_int_equal(rxm_proto_check(&h, rh, &lim), 0);
	assert_int_equal(rxm_proto_check(&h, rh + 1, &lim), -FI_EINVAL);
	h.flags = RXM_F_CQ_DATA;
	assert_int_equal(rxm_proto_check(&h, rh, &lim), -FI_EINVAL);

	h = hdr(RXM_OP_READ_RESP, 10);
	h.tag = 5000;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 10, &lim), 0);
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 9, &lim),
			 -FI_EINVAL);
	h.tag = UINT64_MAX - 3;	/* offset + size wraps */
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 10, &lim),
			 -FI_EINVAL);

	h = hdr(RXM_OP_ATOMIC, 8 + 16);
	assert_int_equal(rxm_proto_check(&h, rh + 24, &lim), 0);
	h = hdr(RXM_OP_ATOMIC, RXM_ATOMIC_REQ_MAX + 1);
	assert_int_equal(rxm_proto_check(&h, rh + RXM_ATOMIC_REQ_MAX + 1,
					 &lim), -FI_EINVAL);

	h = hdr(RXM_OP_RMA_ACK, 8);
	h.seg = FI_EACCES;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 8, &lim), 0);
	h.seg = RXM_ACK_ERRNO_MAX + 1;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 8, &lim),
			 -FI_EINVAL);
	h = hdr(RXM_OP_RMA_ACK, RXM_ATOMIC_MAX_BYTES + 1);
	assert_int_equal(rxm_proto_check(&h, sizeof(h) +
					 RXM_ATOMIC_MAX_BYTES + 1, &lim),
			 -FI_EINVAL);
}

/* RMA moved by the core (RXM_F_CORE): the request carries the
 * initiator's buffers, a rendezvous request's count and entries. */
static void test_rma_core(void **s)
{
	const size_t rh = sizeof(struct rxm_hdr) + sizeof(struct rxm_rma_hdr);
	const size_t one = rh + offsetof(struct rxm_rndv_req, iov) +
			   sizeof(struct rxm_rndv_iov);
	struct rxm_hdr h = hdr(RXM_OP_WRITE, 1ull << 20);

	(void)s;
	h.tag = h.size;
	h.flags = RXM_F_CORE | RXM_F_LAST;
	assert_int_equal(rxm_proto_check(&h, one, &lim), 0);
	h.flags |= RXM_F_CQ_DATA;
	assert_int_equal(rxm_proto_check(&h, one, &lim), 0);
	/* shorter than a count */
	assert_int_equal(rxm_proto_check(&h, rh + 7, &lim), -FI_EINVAL);
	h.flags = RXM_F_CORE;	/* one message: always the last */
	assert_int_equal(rxm_proto_check(&h, one, &lim), -FI_EINVAL);
	h.flags = RXM_F_CORE | RXM_F_LAST;
	h.seg = 1;
	assert_int_equal(rxm_proto_check(&h, one, &lim), -FI_EINVAL);
	h.seg = 0;
	h.tag = h.size + 1;	/* the whole write in one */
	assert_int_equal(rxm_proto_check(&h, one, &lim), -FI_EINVAL);
	h.tag = h.size;
	h.size = lim.max_msg_size + 1;
	h.tag = h.size;
	assert_int_equal(rxm_proto_check(&h, one, &lim), -FI_EINVAL);

	h = hdr(RXM_OP_READ_REQ, 1ull << 20);
	h.flags = RXM_F_CORE;
	assert_int_equal(rxm_proto_check(&h, one, &lim), 0);
	assert_int_equal(rxm_proto_check(&h, rh, &lim), -FI_EINVAL);
	h.flags = RXM_F_CORE | RXM_F_LAST;	/* CORE is its only flag */
	assert_int_equal(rxm_proto_check(&h, one, &lim), -FI_EINVAL);
	h.flags = RXM_F_CORE | RXM_F_CQ_DATA;
	assert_int_equal(rxm_proto_check(&h, one, &lim), -FI_EINVAL);

	/* nowhere else */
	h = hdr(RXM_OP_ATOMIC, 24);
	h.flags = RXM_F_CORE;
	assert_int_equal(rxm_proto_check(&h, rh + 24, &lim), -FI_EINVAL);
	h = hdr(RXM_OP_EAGER, 8);
	h.flags = RXM_F_CORE;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 8, &lim),
			 -FI_EINVAL);
	h = hdr(RXM_OP_RMA_ACK, 0);
	h.flags = RXM_F_CORE;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
}

/* A receive context of a scalable endpoint (RXM_F_RX_MASK): on messages
 * only; its range is the receiver's to check (rdm_ep_rx_arrive). */
static void test_rx_ctx(void **s)
{
	struct rxm_hdr h = hdr(RXM_OP_EAGER, 10);
	struct rxm_rndv_req r = { .count = 1 };
	size_t plen = offsetof(struct rxm_rndv_req, iov) + sizeof(r.iov[0]);

	(void)s;
	h.flags = RXM_F_TAGGED | (255u << RXM_F_RX_SHIFT);
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 10, &lim), 0);
	h = hdr(RXM_OP_SAR, 2 * lim.buf_size);
	h.msg_id = 3;
	h.flags = 1u << RXM_F_RX_SHIFT;
	assert_int_equal(rxm_proto_check(&h, lim.buf_size, &lim), 0);
	h = hdr(RXM_OP_RNDV_REQ, 3000);
	h.msg_id = 5;
	h.flags = 7u << RXM_F_RX_SHIFT;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + plen, &lim), 0);
	/* not on anything else */
	h = hdr(RXM_OP_RNDV_DONE, 3000);
	h.msg_id = 5;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), 0);
	h.flags = 1u << RXM_F_RX_SHIFT;
	assert_int_equal(rxm_proto_check(&h, sizeof(h), &lim), -FI_EINVAL);
	h = hdr(RXM_OP_WRITE, 8);
	h.tag = 8;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 16 + 8, &lim), 0);
	h.flags = 1u << RXM_F_RX_SHIFT;
	assert_int_equal(rxm_proto_check(&h, sizeof(h) + 16 + 8, &lim),
			 -FI_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_ctx),
		cmocka_unit_test(test_eager),
		cmocka_unit_test(test_sar),
		cmocka_unit_test(test_rndv),
		cmocka_unit_test(test_rndv_write),
		cmocka_unit_test(test_rma),
		cmocka_unit_test(test_rma_core),
		cmocka_unit_test(test_cm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
