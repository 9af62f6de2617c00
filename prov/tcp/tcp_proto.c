/* SPDX-License-Identifier: BSD-2-Clause */
/* Validation of everything read from a tcp socket (tcp_proto.h). */
#include <rdma/fi_errno.h>

#include "tcp_proto.h"

int tcp_proto_check_hdr(const struct tcp_hdr *h,
			const struct tcp_proto_limits *lim)
{
	if (h->op < TCP_OP_MSG || h->op > TCP_OP_MAX)
		return -FI_EIO;
	if (h->flags & ~TCP_F_ALL)
		return -FI_EIO;
	switch (h->op) {
	case TCP_OP_MSG:
	case TCP_OP_TAGGED:
		if (h->status || (h->flags & TCP_F_PART) ||
		    h->size > lim->max_msg_size)
			return -FI_EIO;
		return 0;
	case TCP_OP_WRITE:
		if (h->status || h->size > lim->max_msg_size ||
		    (h->flags & (TCP_F_PART | TCP_F_CQ_DATA)) ==
		    (TCP_F_PART | TCP_F_CQ_DATA))
			return -FI_EIO;
		return 0;
	case TCP_OP_READ_REQ:
		if (h->status || (h->flags & ~TCP_F_PART) ||
		    h->size > lim->max_read_size)
			return -FI_EIO;
		return 0;
	case TCP_OP_READ_RESP:
		/* the size is checked again against the read it answers */
		if (h->flags || h->size > lim->max_msg_size ||
		    (h->status && h->size))
			return -FI_EIO;
		return 0;
	case TCP_OP_ACK:
		if (h->flags || h->size)
			return -FI_EIO;
		return 0;
	}
	return -FI_EIO;
}

int tcp_proto_check_cm(const struct tcp_cm_msg *m, int expect_kind)
{
	if (m->magic != TCP_CM_MAGIC)
		return -FI_EIO;
	if (m->version != TCP_PROTO_VERSION)
		return -FI_ENOPROTOOPT;
	if (m->data_len > TCP_CM_DATA_MAX)
		return -FI_EIO;
	if (expect_kind)
		return m->kind == expect_kind ? 0 : -FI_EIO;
	if (m->kind != TCP_CM_ACCEPT && m->kind != TCP_CM_REJECT)
		return -FI_EIO;
	return 0;
}
