/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A queue of posted receives (struct tcp_rxq, tcp_ep.h), in posting
 * order: an endpoint's own two and a shared receive context's two. The
 * caller holds the lock of the queue's owner (ep->lock or srx->lock).
 */
#include <stddef.h>

#include "tcp_ep.h"

void tcp_rxq_push(struct tcp_rxq *q, struct tcp_rx *rx)
{
	rx->next = NULL;
	if (q->tail)
		q->tail->next = rx;
	else
		q->head = rx;
	q->tail = rx;
}

void tcp_rxq_push_front(struct tcp_rxq *q, struct tcp_rx *rx)
{
	rx->next = q->head;
	q->head = rx;
	if (!q->tail)
		q->tail = rx;
}

/* Unlink rx, whose predecessor is prev (NULL: the head). */
static void tcp_rxq_unlink(struct tcp_rxq *q, struct tcp_rx *prev,
			   struct tcp_rx *rx)
{
	if (prev)
		prev->next = rx->next;
	else
		q->head = rx->next;
	if (q->tail == rx)
		q->tail = prev;
	rx->next = NULL;
}

struct tcp_rx *tcp_rxq_take(struct tcp_rxq *q, bool tagged, uint64_t tag)
{
	struct tcp_rx *rx, *prev = NULL;

	for (rx = q->head; rx; prev = rx, rx = rx->next) {
		if (tagged && ((rx->tag ^ tag) & ~rx->ignore))
			continue;
		tcp_rxq_unlink(q, prev, rx);
		return rx;
	}
	return NULL;
}

struct tcp_rx *tcp_rxq_take_ctx(struct tcp_rxq *q, void *context)
{
	struct tcp_rx *rx, *prev = NULL;

	for (rx = q->head; rx; prev = rx, rx = rx->next) {
		if (rx->context != context)
			continue;
		tcp_rxq_unlink(q, prev, rx);
		return rx;
	}
	return NULL;
}

void tcp_rx_fill(struct tcp_rx *rx, bool tagged, const struct iovec *iov,
		 size_t count, uint64_t tag, uint64_t ignore, void *context,
		 uint64_t flags)
{
	size_t i;

	for (i = 0; i < count; i++)
		rx->iov[i] = iov[i];
	rx->iov_cnt = count;
	rx->total = tcp_iov_total(iov, count);
	rx->context = context;
	rx->flags = flags;
	rx->tag = tag;
	rx->ignore = ignore;
	rx->tagged = tagged;
}
