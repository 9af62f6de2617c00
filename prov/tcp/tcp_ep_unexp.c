/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tagged messages that arrived before a receive matched them (held by
 * tcp_ep_rx.c within FI_TCP_MAX_UNEXPECTED): a tagged post takes the
 * first it matches, in arrival order, and only then owes the sender its
 * delivery acknowledgement. Under ep->lock (tcp_ep.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "tcp_ep.h"

bool tcp_ep_rx_match_unexp(struct tcp_ep *ep, struct tcp_rx *rx)
{
	struct tcp_unexp *u, *prev = NULL;
	size_t len, off, i, c;
	uint64_t flags;

	for (u = ep->unexp_head; u; prev = u, u = u->next)
		if (!((rx->tag ^ u->hdr.tag_addr) & ~rx->ignore))
			break;
	if (!u)
		return false;
	if (prev)
		prev->next = u->next;
	else
		ep->unexp_head = u->next;
	if (ep->unexp_tail == u)
		ep->unexp_tail = prev;
	ep->unexp_bytes -= (size_t)u->hdr.size;
	len = u->hdr.size < rx->total ? (size_t)u->hdr.size : rx->total;
	for (i = 0, off = 0; i < rx->iov_cnt && off < len; i++) {
		c = rx->iov[i].iov_len < len - off ? rx->iov[i].iov_len :
						     len - off;
		memcpy(rx->iov[i].iov_base, u->data + off, c);
		off += c;
	}
	flags = FI_TAGGED | FI_RECV |
		((u->hdr.flags & TCP_F_CQ_DATA) ? FI_REMOTE_CQ_DATA : 0);
	tcp_ep_rx_complete(ep, rx, flags, len,
			   rx->iov_cnt ? rx->iov[0].iov_base : NULL,
			   u->hdr.data, u->hdr.tag_addr,
			   u->hdr.size > rx->total ? FI_ETRUNC : 0,
			   (size_t)u->hdr.size - len);
	if (u->hdr.flags & TCP_F_ACK_REQ)
		(void)tcp_ep_reply(ep, TCP_OP_ACK, u->hdr.id, 0, NULL, 0);
	free(u);
	return true;
}

void tcp_ep_unexp_free(struct tcp_ep *ep)
{
	struct tcp_unexp *u;

	while ((u = ep->unexp_head)) {
		ep->unexp_head = u->next;
		free(u);
	}
	ep->unexp_tail = NULL;
	ep->unexp_bytes = 0;
	free(ep->rs.unexp);	/* one being read */
	ep->rs.unexp = NULL;
}
