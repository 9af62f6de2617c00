/* SPDX-License-Identifier: BSD-2-Clause */
/* ofi_rxm's connections on demand (rxm_conn.h). */
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_info.h"
#include "pl_log.h"
#include "rxm_conn.h"
#include "rxm_prov.h"

#define RXM_CM_BUCKETS_MIN	64
/* an EQ entry with the largest CM data a core may carry */
#define RXM_CM_EVENT_MAX	(sizeof(struct fi_eq_cm_entry) + 256)

static uint64_t rxm_cm_new_incarnation(void)
{
	uint64_t v = 0;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
		/* no entropy yet: time and pid still differ between two
		 * lives of an endpoint at one address */
		clock_gettime(CLOCK_REALTIME, &ts);
		v = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)getpid() << 16);
	}
	return v ? v : 1;	/* 0 means "not known yet" */
}

static size_t rxm_cm_hash(const struct rxm_wire_addr *a, size_t nbuckets)
{
	const uint8_t *p = (const uint8_t *)a;
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < sizeof(*a); i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return (size_t)(h & (nbuckets - 1));
}

struct rxm_conn *rxm_cm_find(const struct rxm_cm *cm,
			     const struct rxm_wire_addr *peer)
{
	struct rxm_conn *c;

	for (c = cm->buckets[rxm_cm_hash(peer, cm->nbuckets)]; c;
	     c = c->hnext)
		if (!rxm_wire_addr_cmp(&c->peer, peer))
			return c;
	return NULL;
}

/* Twice the buckets when the chains grow past two on average. */
static void rxm_cm_grow(struct rxm_cm *cm)
{
	size_t n = cm->nbuckets * 2, i, h;
	struct rxm_conn **b = calloc(n, sizeof(*b)), *c, *next;

	if (!b)
		return;		/* longer chains, still correct */
	for (i = 0; i < cm->nbuckets; i++)
		for (c = cm->buckets[i]; c; c = next) {
			next = c->hnext;
			h = rxm_cm_hash(&c->peer, n);
			c->hnext = b[h];
			b[h] = c;
		}
	free(cm->buckets);
	cm->buckets = b;
	cm->nbuckets = n;
}

static struct rxm_conn *rxm_cm_add(struct rxm_cm *cm,
				   const struct rxm_wire_addr *peer)
{
	struct rxm_conn *c = calloc(1, sizeof(*c));
	size_t h;

	if (!c)
		return NULL;
	c->peer = *peer;
	c->peer_salen = rxm_wire_addr_to_sa(peer, &c->peer_sa);
	c->state = RXM_CONN_IDLE;
	if (cm->count >= 2 * cm->nbuckets)
		rxm_cm_grow(cm);
	h = rxm_cm_hash(peer, cm->nbuckets);
	c->hnext = cm->buckets[h];
	cm->buckets[h] = c;
	cm->count++;
	return c;
}

struct rxm_conn *rxm_cm_conn(struct rxm_cm *cm, const struct sockaddr *sa,
			     size_t len)
{
	struct rxm_wire_addr peer;
	struct rxm_conn *c;

	if (rxm_wire_addr_from_sa(&peer, sa, len))
		return NULL;
	c = rxm_cm_find(cm, &peer);
	return c ? c : rxm_cm_add(cm, &peer);
}

/* Close conn's endpoint (its queued EQ events go with it) and make it
 * IDLE; no callback. */
static void rxm_conn_drop_ep(struct rxm_conn *c)
{
	if (c->msg_ep)
		(void)fi_close(&c->msg_ep->fid);
	if (c->loop_ep)
		(void)fi_close(&c->loop_ep->fid);
	c->msg_ep = c->loop_ep = NULL;
	c->state = RXM_CONN_IDLE;
	c->draining = false;
}

/* The connection is gone: tell the owner. */
static void rxm_conn_down(struct rxm_cm *cm, struct rxm_conn *c, int err)
{
	rxm_conn_drop_ep(c);
	c->peer_incarnation = 0;
	cm->ops->down(cm->owner, c, err);
}

void rxm_cm_disconnect(struct rxm_cm *cm, struct rxm_conn *c, int err)
{
	if (c->msg_ep)
		rxm_conn_down(cm, c, err);
}

void rxm_cm_drained(struct rxm_cm *cm, struct rxm_conn *c)
{
	if (c->draining)
		rxm_conn_down(cm, c, -FI_ECONNRESET);
}

/* FI_SHUTDOWN: the peer closed. What it sent before may still be in the
 * core endpoint (its socket, past the receives posted so far): keep the
 * endpoint while the owner's receives take it (rxm_conn.draining). */
static void rxm_cm_on_shutdown(struct rxm_cm *cm, struct rxm_conn *c)
{
	if (c->state == RXM_CONN_CONNECTED && c->msg_ep && !c->loop_ep &&
	    cm->ops->can_drain && cm->ops->can_drain(cm->owner, c)) {
		c->draining = true;
		return;
	}
	rxm_conn_down(cm, c, -FI_ECONNRESET);
}

/* fi_endpoint with conn as its context, bound to the EQ, prepared by the
 * owner and enabled. */
static int rxm_cm_new_ep(struct rxm_cm *cm, struct rxm_conn *c,
			 struct fi_info *info, struct fid_ep **ep_p)
{
	struct fid_ep *ep;
	int ret;

	if (cm->msg_tx_size && info->tx_attr)
		info->tx_attr->size = cm->msg_tx_size;
	ret = fi_endpoint(cm->domain, info, &ep, c);
	if (ret)
		return ret;
	ret = fi_ep_bind(ep, &cm->eq->fid, 0);
	if (!ret)
		ret = cm->ops->prepare(cm->owner, c, ep);
	if (!ret)
		ret = fi_enable(ep);
	if (ret) {
		(void)fi_close(&ep->fid);
		return ret;
	}
	*ep_p = ep;
	return 0;
}

int rxm_cm_connect(struct rxm_cm *cm, struct rxm_conn *c)
{
	struct rxm_cm_data data;
	struct fid_ep *ep;
	int ret;

	if (c->state != RXM_CONN_IDLE)
		return 0;	/* forming or formed */
	cm->ep_info->dest_addr = &c->peer_sa;
	cm->ep_info->dest_addrlen = c->peer_salen;
	ret = rxm_cm_new_ep(cm, c, cm->ep_info, &ep);
	cm->ep_info->dest_addr = NULL;
	cm->ep_info->dest_addrlen = 0;
	if (ret)
		return ret;
	rxm_cm_build(&data, RXM_CM_REQ, RXM_REJ_NONE, cm->incarnation,
		     &cm->self);
	ret = fi_connect(ep, &c->peer_sa, &data, sizeof(data));
	if (ret) {
		(void)fi_close(&ep->fid);
		return ret;
	}
	c->msg_ep = ep;
	c->state = RXM_CONN_CONNECTING;
	cm->stats.connects++;
	return 0;
}

static void rxm_cm_reject(struct rxm_cm *cm, struct fi_info *info,
			  enum rxm_cm_reason reason)
{
	struct rxm_cm_data data;

	rxm_cm_build(&data, RXM_CM_REJECT, reason, cm->incarnation,
		     &cm->self);
	(void)fi_reject(cm->pep, info->handle, &data, sizeof(data));
	cm->stats.rejects++;
}

static void rxm_cm_accept(struct rxm_cm *cm, struct rxm_conn *c,
			  struct fi_info *info, uint64_t incarnation)
{
	struct rxm_cm_data data;
	struct fid_ep *ep;
	int ret;

	ret = rxm_cm_new_ep(cm, c, info, &ep);
	if (ret) {
		/* the request still needs an answer */
		(void)fi_reject(cm->pep, info->handle, NULL, 0);
		RXM_LOG_WARN(FI_LOG_EP_CTRL, "cannot accept a connection "
			     "(%d)\n", ret);
		return;
	}
	rxm_cm_build(&data, RXM_CM_ACCEPT, RXM_REJ_NONE, cm->incarnation,
		     &cm->self);
	ret = fi_accept(ep, &data, sizeof(data));
	if (ret) {
		(void)fi_close(&ep->fid);
		RXM_LOG_WARN(FI_LOG_EP_CTRL, "fi_accept failed (%d)\n", ret);
		return;
	}
	c->msg_ep = ep;
	c->state = RXM_CONN_ACCEPTING;
	c->peer_incarnation = incarnation;
	cm->stats.accepts++;
}

static void rxm_cm_accept_loop(struct rxm_cm *cm, struct rxm_conn *c,
			       struct fi_info *info)
{
	struct rxm_cm_data data;
	struct fid_ep *ep;

	if (rxm_cm_new_ep(cm, c, info, &ep)) {
		(void)fi_reject(cm->pep, info->handle, NULL, 0);
		return;
	}
	rxm_cm_build(&data, RXM_CM_ACCEPT, RXM_REJ_NONE, cm->incarnation,
		     &cm->self);
	if (fi_accept(ep, &data, sizeof(data))) {
		(void)fi_close(&ep->fid);
		return;
	}
	c->loop_ep = ep;
	cm->stats.accepts++;
}

static void rxm_cm_on_connreq(struct rxm_cm *cm, struct fi_eq_cm_entry *e,
			      size_t datalen)
{
	struct fi_info *info = e->info;
	struct rxm_cm_msg m;
	struct rxm_conn *c;

	if (rxm_cm_parse(e->data, datalen, &m) || m.kind != RXM_CM_REQ) {
		cm->stats.bad_requests++;
		rxm_cm_reject(cm, info, RXM_REJ_BAD);
		goto out;
	}
	c = rxm_cm_find(cm, &m.addr);
	if (!c)
		c = rxm_cm_add(cm, &m.addr);
	if (!c) {
		(void)fi_reject(cm->pep, info->handle, NULL, 0);
		goto out;
	}
	if (!rxm_wire_addr_cmp(&m.addr, &cm->self) &&
	    m.incarnation == cm->incarnation && !c->loop_ep &&
	    c->state == RXM_CONN_CONNECTING) {
		/* our own request (rxm_conn.h): its receiving side */
		rxm_cm_accept_loop(cm, c, info);
		goto out;
	}
	switch (c->state) {
	case RXM_CONN_CONNECTING:
		if (rxm_wire_addr_cmp(&cm->self, &m.addr) < 0) {
			/* ours stays; the peer waits for it */
			cm->stats.races_won++;
			rxm_cm_reject(cm, info, RXM_REJ_LOST_RACE);
			goto out;
		}
		/* theirs stays: ours goes without a word to the owner, the
		 * connection is still forming */
		cm->stats.races_lost++;
		rxm_conn_drop_ep(c);
		break;
	case RXM_CONN_ACCEPTING:
	case RXM_CONN_CONNECTED:
		/* a draining connection's peer hung up already: whoever
		 * asks now is a new connection */
		if (c->peer_incarnation == m.incarnation && !c->draining) {
			rxm_cm_reject(cm, info, RXM_REJ_DUPLICATE);
			goto out;
		}
		/* a new life of the peer at the same address: the old
		 * connection is dead, and is reported so before the new
		 * one carries anything */
		cm->stats.restarts++;
		rxm_conn_down(cm, c, -FI_ECONNRESET);
		break;
	case RXM_CONN_IDLE:
	case RXM_CONN_WAIT_PEER:
		break;
	}
	rxm_cm_accept(cm, c, info, m.incarnation);
out:
	fi_freeinfo_1_3(info);
}

/* The connection of an event's fid, or NULL for an endpoint that is not
 * a connection's current one. */
static struct rxm_conn *rxm_cm_conn_of(fid_t fid)
{
	struct rxm_conn *c = fid ? fid->context : NULL;

	if (!c || !((c->msg_ep && &c->msg_ep->fid == fid) ||
		    (c->loop_ep && &c->loop_ep->fid == fid)))
		return NULL;
	return c;
}

static void rxm_cm_on_connected(struct rxm_cm *cm, struct fi_eq_cm_entry *e,
				size_t datalen)
{
	struct rxm_conn *c = rxm_cm_conn_of(e->fid);
	struct rxm_cm_msg m;

	if (!c)
		return;
	if (c->loop_ep && &c->loop_ep->fid == e->fid) {
		/* the receiving side of a connection to ourselves */
		cm->ops->connected(cm->owner, c, c->loop_ep);
		return;
	}
	if (c->state == RXM_CONN_CONNECTING) {
		/* the acceptor's data names its incarnation */
		if (rxm_cm_parse(e->data, datalen, &m) ||
		    m.kind != RXM_CM_ACCEPT ||
		    !rxm_wire_addr_answers(&m.addr, &c->peer)) {
			cm->stats.bad_requests++;
			rxm_conn_down(cm, c, -FI_ECONNABORTED);
			return;
		}
		c->peer_incarnation = m.incarnation;
	}
	c->state = RXM_CONN_CONNECTED;
	cm->ops->connected(cm->owner, c, c->msg_ep);
}

static void rxm_cm_on_error(struct rxm_cm *cm)
{
	struct fi_eq_err_entry err = { 0 };
	struct rxm_conn *c;
	struct rxm_cm_msg m;

	if (fi_eq_readerr(cm->eq, &err, 0) < 0)
		return;
	c = rxm_cm_conn_of(err.fid);
	if (!c)
		return;
	if (err.err == FI_ECONNREFUSED && c->state == RXM_CONN_CONNECTING &&
	    !rxm_cm_parse(err.err_data, err.err_data_size, &m) &&
	    m.kind == RXM_CM_REJECT && m.reason == RXM_REJ_LOST_RACE &&
	    rxm_wire_addr_answers(&m.addr, &c->peer)) {
		/* the peer's own request is coming (rxm_conn.h) */
		rxm_conn_drop_ep(c);
		c->state = RXM_CONN_WAIT_PEER;
		cm->stats.races_waited++;
		return;
	}
	rxm_conn_down(cm, c, -(err.err ? err.err : FI_ECONNABORTED));
}

int rxm_cm_progress(struct rxm_cm *cm)
{
	union {
		struct fi_eq_cm_entry cm;
		uint8_t raw[RXM_CM_EVENT_MAX];
	} buf;
	uint32_t event;
	ssize_t n;
	size_t datalen;
	int handled = 0;

	for (;;) {
		n = fi_eq_read(cm->eq, &event, &buf, sizeof(buf), 0);
		if (n == -FI_EAGAIN)
			return handled;
		if (n == -FI_EAVAIL) {
			rxm_cm_on_error(cm);
			handled++;
			continue;
		}
		if (n < 0)
			return (int)n;
		handled++;
		datalen = (size_t)n >= sizeof(buf.cm) ?
			  (size_t)n - sizeof(buf.cm) : 0;
		switch (event) {
		case FI_CONNREQ:
			rxm_cm_on_connreq(cm, &buf.cm, datalen);
			break;
		case FI_CONNECTED:
			rxm_cm_on_connected(cm, &buf.cm, datalen);
			break;
		case FI_SHUTDOWN: {
			struct rxm_conn *c = rxm_cm_conn_of(buf.cm.fid);

			if (c && !c->draining)
				rxm_cm_on_shutdown(cm, c);
			break;
		}
		default:
			break;
		}
	}
}

/* Our requests leave from the listener's IP but any port: the listener
 * holds its own. */
static void rxm_cm_active_src(struct fi_info *info)
{
	struct sockaddr *sa = info->src_addr;

	if (!sa)
		return;
	if (sa->sa_family == AF_INET &&
	    info->src_addrlen >= sizeof(struct sockaddr_in))
		((struct sockaddr_in *)sa)->sin_port = 0;
	else if (sa->sa_family == AF_INET6 &&
		 info->src_addrlen >= sizeof(struct sockaddr_in6))
		((struct sockaddr_in6 *)sa)->sin6_port = 0;
}

int rxm_cm_open(struct rxm_cm *cm, struct fid_fabric *fabric,
		struct fid_domain *domain, const struct fi_info *core_info,
		struct fid_wait *wait, const struct rxm_cm_ops *ops,
		void *owner)
{
	struct fi_eq_attr eq_attr = {
		.wait_obj = wait ? FI_WAIT_SET : FI_WAIT_FD,
		.wait_set = wait,
	};
	size_t len = sizeof(cm->self_sa);
	int ret;

	memset(cm, 0, sizeof(*cm));
	cm->domain = domain;
	cm->ops = ops;
	cm->owner = owner;
	cm->incarnation = rxm_cm_new_incarnation();
	cm->nbuckets = RXM_CM_BUCKETS_MIN;
	cm->buckets = calloc(cm->nbuckets, sizeof(*cm->buckets));
	cm->ep_info = fi_dupinfo_1_3(core_info);
	if (!cm->buckets || !cm->ep_info) {
		ret = -FI_ENOMEM;
		goto err;
	}
	ret = fi_eq_open(fabric, &eq_attr, &cm->eq, cm);
	if (ret)
		goto err;
	ret = fi_passive_ep(fabric, (struct fi_info *)core_info, &cm->pep, cm);
	if (!ret)
		ret = fi_pep_bind(cm->pep, &cm->eq->fid, 0);
	if (!ret)
		ret = fi_listen(cm->pep);
	if (!ret)
		ret = fi_getname(&cm->pep->fid, &cm->self_sa, &len);
	if (!ret && rxm_wire_addr_from_sa(&cm->self,
					  (struct sockaddr *)&cm->self_sa,
					  len))
		ret = -FI_EADDRNOTAVAIL;
	if (ret)
		goto err;
	cm->self_salen = len;
	rxm_cm_active_src(cm->ep_info);
	return 0;
err:
	rxm_cm_close(cm);
	return ret;
}

void rxm_cm_close(struct rxm_cm *cm)
{
	struct rxm_conn *c, *next;
	size_t i;

	for (i = 0; cm->buckets && i < cm->nbuckets; i++)
		for (c = cm->buckets[i]; c; c = next) {
			next = c->hnext;
			if (c->msg_ep)
				(void)fi_close(&c->msg_ep->fid);
			if (c->loop_ep)
				(void)fi_close(&c->loop_ep->fid);
			free(c);
		}
	free(cm->buckets);
	if (cm->pep)
		(void)fi_close(&cm->pep->fid);
	if (cm->eq)
		(void)fi_close(&cm->eq->fid);
	if (cm->ep_info)
		fi_freeinfo_1_3(cm->ep_info);
	memset(cm, 0, sizeof(*cm));
}

int rxm_cm_getname(const struct rxm_cm *cm, void *addr, size_t *addrlen)
{
	size_t have;

	if (!addrlen)
		return -FI_EINVAL;
	have = *addrlen;
	*addrlen = cm->self_salen;
	if (!addr || have < cm->self_salen)
		return -FI_ETOOSMALL;
	memcpy(addr, &cm->self_sa, cm->self_salen);
	return 0;
}

int rxm_cm_wait_fd(const struct rxm_cm *cm)
{
	int fd = -1, ret;

	ret = fi_control(&cm->eq->fid, FI_GETWAIT, &fd);
	return ret ? ret : fd;
}
