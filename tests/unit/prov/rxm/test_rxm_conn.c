/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's connection manager (prov/rxm/rxm_conn.h) over the real tcp
 * provider on 127.0.0.1: two or three managers in this process, each with
 * its own core fabric, domain and CQ, driven by their rxm_cm_progress.
 * Every connection that forms is proven by a message sent over it each
 * way and checked on arrival.
 *
 *   ondemand      A connects to B, which learns A from the request
 *   simultaneous  A and B connect to each other before either looks at
 *                 its EQ: one connection forms, the same on both sides;
 *                 the lower address's request is the one that stays
 *   bad           a plain tcp client sends CM data that is not rxm's:
 *                 it is rejected with RXM_REJ_BAD, nothing is created
 *   duplicate     a plain tcp client replays A's name and incarnation
 *                 while A is connected: rejected, A's connection stays
 *   restart       A closes and a new A opens at the same address: B
 *                 reports the old connection down before the new one
 *                 comes up, with the new incarnation
 *
 * The watchdog fails a scenario only after 30 s in which no manager
 * handled an event and no completion arrived (a hang, not a slow run).
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "rxm_conn.h"

#include "rxm_check.h"

#define WATCH_S 30
#define MSG_LEN 32

static volatile unsigned long beat;	/* progress, for the watchdog */
static unsigned long beat_seen;
static const char *phase = "start";

static void on_alarm(int sig)
{
	(void)sig;
	if (beat != beat_seen) {
		beat_seen = beat;
		alarm(WATCH_S);
		return;
	}
	fprintf(stderr, "WATCHDOG: no progress for %d s in '%s'\n", WATCH_S,
		phase);
	_exit(1);
}

/* One rxm endpoint's connection side, as rxm would hold it. */
struct side {
	const char *name;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	struct rxm_cm cm;
	int connected, downs, last_err;
	int order;		/* 1: a down came before the latest up */
	char rx[4][MSG_LEN];	/* a receive per connection slot */
	int nrx;
};

static int side_prepare(void *owner, struct rxm_conn *c, struct fid_ep *ep)
{
	struct side *s = owner;

	(void)c;
	return fi_ep_bind(ep, &s->cq->fid, FI_TRANSMIT | FI_RECV);
}

static void side_connected(void *owner, struct rxm_conn *c,
			   struct fid_ep *ep)
{
	struct side *s = owner;

	CHECK(s->nrx < 4);
	CHECK(ep == c->msg_ep);
	c->owner_data = s->rx[s->nrx];
	CHECK_EQ(fi_recv(c->msg_ep, s->rx[s->nrx], MSG_LEN, NULL, 0,
			 s->rx[s->nrx]), 0);
	s->nrx++;
	s->connected++;
}

static void side_down(void *owner, struct rxm_conn *c, int err)
{
	struct side *s = owner;

	(void)c;
	s->downs++;
	s->last_err = err;
	s->order = 1;
}

static const struct rxm_cm_ops side_ops = {
	.prepare = side_prepare,
	.connected = side_connected,
	.down = side_down,
};

static struct fi_info *core_info(const char *port)
{
	struct fi_info *hints = fi_allocinfo(), *info = NULL;

	CHECK(hints);
	hints->ep_attr->type = FI_EP_MSG;
	hints->caps = FI_MSG;
	hints->fabric_attr->prov_name = strdup("tcp");
	hints->addr_format = FI_SOCKADDR_IN;
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", port, FI_SOURCE,
			    hints, &info), 0);
	fi_freeinfo(hints);
	return info;
}

static void side_open(struct side *s, const char *name, const char *port)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_MSG };

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->info = core_info(port);
	CHECK_EQ(fi_fabric(s->info->fabric_attr, &s->fabric, NULL), 0);
	CHECK_EQ(fi_domain(s->fabric, s->info, &s->domain, NULL), 0);
	CHECK_EQ(fi_cq_open(s->domain, &cq_attr, &s->cq, NULL), 0);
	CHECK_EQ(rxm_cm_open(&s->cm, s->fabric, s->domain, s->info, NULL,
			     &side_ops, s), 0);
}

static void side_close(struct side *s)
{
	rxm_cm_close(&s->cm);
	CHECK_EQ(fi_close(&s->cq->fid), 0);
	CHECK_EQ(fi_close(&s->domain->fid), 0);
	CHECK_EQ(fi_close(&s->fabric->fid), 0);
	fi_freeinfo(s->info);
}

/* Drive every side's manager (and its CQ) once. */
static void pump(struct side **sides, int n)
{
	int i, r;

	for (i = 0; i < n; i++) {
		r = rxm_cm_progress(&sides[i]->cm);
		CHECK(r >= 0);
		if (r)
			beat++;
		/* a zero-count read drives the core's data progress */
		(void)fi_cq_read(sides[i]->cq, NULL, 0);
	}
}

static struct rxm_conn *conn_to(struct side *s, struct side *peer)
{
	return rxm_cm_find(&s->cm, &peer->cm.self);
}

static bool up(struct side *s, struct side *peer)
{
	struct rxm_conn *c = conn_to(s, peer);

	return c && c->state == RXM_CONN_CONNECTED;
}

static void wait_up(struct side *a, struct side *b, const char *what)
{
	struct side *both[2] = { a, b };

	phase = what;
	while (!up(a, b) || !up(b, a))
		pump(both, 2);
}

/* A message from a to b over their connection, checked at b. */
static void prove(struct side *a, struct side *b, const char *text)
{
	struct rxm_conn *ca = conn_to(a, b), *cb = conn_to(b, a);
	struct side *both[2] = { a, b };
	struct fi_cq_msg_entry e;
	char msg[MSG_LEN] = { 0 };
	ssize_t r;
	int sent = 0;

	phase = text;
	snprintf(msg, sizeof(msg), "%s", text);
	CHECK(ca && cb && ca->msg_ep && cb->msg_ep);
	while ((r = fi_send(ca->msg_ep, msg, MSG_LEN, NULL, 0, msg)) ==
	       -FI_EAGAIN)
		pump(both, 2);
	CHECK_EQ(r, 0);
	for (;;) {
		r = fi_cq_read(b->cq, &e, 1);
		if (r == 1) {
			beat++;
			CHECK(e.op_context == cb->owner_data);
			CHECK_EQ(e.len, MSG_LEN);
			CHECK(!strcmp(cb->owner_data, text));
			break;
		}
		if (r == -FI_EAVAIL) {
			/* only a receive of a connection that ended (its
			 * endpoint was closed) may end in error */
			struct fi_cq_err_entry err = { 0 };

			CHECK_EQ(fi_cq_readerr(b->cq, &err, 0), 1);
			CHECK(err.op_context != cb->owner_data);
			continue;
		}
		CHECK_EQ(r, -FI_EAGAIN);
		if (!sent && fi_cq_read(a->cq, &e, 1) == 1) {
			CHECK(e.op_context == msg);
			sent = 1;
		}
		pump(both, 2);
	}
	while (!sent) {
		r = fi_cq_read(a->cq, &e, 1);
		if (r == 1) {
			CHECK(e.op_context == msg);
			sent = 1;
		}
		pump(both, 2);
	}
	/* the next message to b on this connection lands here again */
	CHECK_EQ(fi_recv(cb->msg_ep, cb->owner_data, MSG_LEN, NULL, 0,
			 cb->owner_data), 0);
}

static int scn_ondemand(void)
{
	struct side a, b;
	struct sockaddr_storage bname;
	size_t len = sizeof(bname);
	struct rxm_conn *c;

	side_open(&a, "A", NULL);
	side_open(&b, "B", NULL);
	CHECK_EQ(rxm_cm_getname(&b.cm, &bname, &len), 0);
	c = rxm_cm_conn(&a.cm, (struct sockaddr *)&bname, len);
	CHECK(c && c->state == RXM_CONN_IDLE);
	CHECK_EQ(rxm_cm_connect(&a.cm, c), 0);
	CHECK_EQ(c->state, RXM_CONN_CONNECTING);
	/* a second call while it forms starts nothing */
	CHECK_EQ(rxm_cm_connect(&a.cm, c), 0);
	CHECK_EQ(a.cm.stats.connects, 1);
	CHECK(!conn_to(&b, &a));
	wait_up(&a, &b, "ondemand: connecting");
	CHECK_EQ(c->peer_incarnation, b.cm.incarnation);
	CHECK_EQ(conn_to(&b, &a)->peer_incarnation, a.cm.incarnation);
	CHECK_EQ(b.cm.count, 1);
	CHECK_EQ(b.cm.stats.accepts, 1);
	prove(&a, &b, "A to B");
	prove(&b, &a, "B to A");
	CHECK_EQ(a.downs + b.downs, 0);
	side_close(&a);
	side_close(&b);
	return 0;
}

static int scn_simultaneous(void)
{
	struct side a, b, *lo, *hi;
	struct rxm_conn *ca, *cb;

	side_open(&a, "A", NULL);
	side_open(&b, "B", NULL);
	ca = rxm_cm_conn(&a.cm, (struct sockaddr *)&b.cm.self_sa,
			 b.cm.self_salen);
	cb = rxm_cm_conn(&b.cm, (struct sockaddr *)&a.cm.self_sa,
			 a.cm.self_salen);
	CHECK(ca && cb);
	CHECK_EQ(rxm_cm_connect(&a.cm, ca), 0);
	CHECK_EQ(rxm_cm_connect(&b.cm, cb), 0);
	wait_up(&a, &b, "simultaneous: connecting");
	lo = rxm_wire_addr_cmp(&a.cm.self, &b.cm.self) < 0 ? &a : &b;
	hi = lo == &a ? &b : &a;
	/* the lower side's request stayed: the higher side accepted it and
	 * gave its own up. The lower side rejected that one as lost, unless
	 * it was gone before it arrived (or arrived once the link was up:
	 * then a duplicate). */
	CHECK(lo->cm.stats.races_won <= 1);
	CHECK_EQ(lo->cm.stats.accepts, 0);
	/* the higher side gave its request up when the lower's arrived,
	 * or waited for it when the rejection came first */
	CHECK_EQ(hi->cm.stats.races_lost + hi->cm.stats.races_waited, 1);
	CHECK_EQ(hi->cm.stats.accepts, 1);
	CHECK_EQ(a.cm.count, 1);
	CHECK_EQ(b.cm.count, 1);
	CHECK_EQ(a.connected, 1);
	CHECK_EQ(b.connected, 1);
	prove(&a, &b, "A to B, one link");
	prove(&b, &a, "B to A, one link");
	/* the losing request's rejection reached nobody as a failure */
	CHECK_EQ(a.downs + b.downs, 0);
	side_close(&a);
	side_close(&b);
	return 0;
}

/* A plain tcp endpoint of side s connecting to target with data; returns
 * the reject's parsed data (the connect must be refused). */
static void raw_connect_refused(struct side *s, struct side *target,
				const void *data, size_t len,
				struct rxm_cm_msg *rej)
{
	struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_NONE };
	struct side *both[2] = { s, target };
	struct fi_eq_err_entry err = { 0 };
	struct fid_eq *eq;
	struct fid_ep *ep;
	uint8_t buf[512];
	uint32_t ev;
	ssize_t r;

	CHECK_EQ(fi_eq_open(s->fabric, &eq_attr, &eq, NULL), 0);
	CHECK_EQ(fi_endpoint(s->domain, s->info, &ep, NULL), 0);
	CHECK_EQ(fi_ep_bind(ep, &eq->fid, 0), 0);
	CHECK_EQ(fi_ep_bind(ep, &s->cq->fid, FI_TRANSMIT | FI_RECV), 0);
	CHECK_EQ(fi_enable(ep), 0);
	CHECK_EQ(fi_connect(ep, &target->cm.self_sa, data, len), 0);
	for (;;) {
		r = fi_eq_read(eq, &ev, buf, sizeof(buf), 0);
		if (r == -FI_EAVAIL)
			break;
		CHECK_EQ(r, -FI_EAGAIN);	/* never CONNECTED */
		pump(both, 2);
	}
	beat++;
	CHECK(fi_eq_readerr(eq, &err, 0) > 0);
	CHECK_EQ(err.err, FI_ECONNREFUSED);
	CHECK_EQ(rxm_cm_parse(err.err_data, err.err_data_size, rej), 0);
	CHECK_EQ(rej->kind, RXM_CM_REJECT);
	CHECK_EQ(fi_close(&ep->fid), 0);
	CHECK_EQ(fi_close(&eq->fid), 0);
}

static int scn_bad(void)
{
	struct side b, x;
	struct rxm_cm_msg rej;
	uint8_t junk[40];
	struct rxm_cm_data other;

	side_open(&b, "B", NULL);
	side_open(&x, "X", NULL);
	phase = "bad: junk";
	memset(junk, 0x5a, sizeof(junk));
	raw_connect_refused(&x, &b, junk, sizeof(junk), &rej);
	CHECK_EQ(rej.reason, RXM_REJ_BAD);
	phase = "bad: short";
	raw_connect_refused(&x, &b, junk, 3, &rej);
	CHECK_EQ(rej.reason, RXM_REJ_BAD);
	phase = "bad: an accept where a request belongs";
	rxm_cm_build(&other, RXM_CM_ACCEPT, RXM_REJ_NONE, 7, &x.cm.self);
	raw_connect_refused(&x, &b, &other, sizeof(other), &rej);
	CHECK_EQ(rej.reason, RXM_REJ_BAD);
	CHECK_EQ(b.cm.stats.bad_requests, 3);
	CHECK_EQ(b.cm.count, 0);
	CHECK_EQ(b.connected + b.downs, 0);
	side_close(&x);
	side_close(&b);
	return 0;
}

static int scn_duplicate(void)
{
	struct side a, b, x;
	struct rxm_cm_data fake;
	struct rxm_cm_msg rej;
	struct rxm_conn *c;

	side_open(&a, "A", NULL);
	side_open(&b, "B", NULL);
	side_open(&x, "X", NULL);
	c = rxm_cm_conn(&a.cm, (struct sockaddr *)&b.cm.self_sa,
			b.cm.self_salen);
	CHECK(c);
	CHECK_EQ(rxm_cm_connect(&a.cm, c), 0);
	wait_up(&a, &b, "duplicate: connecting");
	phase = "duplicate: replaying A's request";
	rxm_cm_build(&fake, RXM_CM_REQ, RXM_REJ_NONE, a.cm.incarnation,
		     &a.cm.self);
	raw_connect_refused(&x, &b, &fake, sizeof(fake), &rej);
	CHECK_EQ(rej.reason, RXM_REJ_DUPLICATE);
	CHECK(up(&b, &a));
	CHECK_EQ(b.downs, 0);
	prove(&a, &b, "A to B after the replay");
	side_close(&x);
	side_close(&a);
	side_close(&b);
	return 0;
}

static int scn_restart(void)
{
	struct side a, b, *both[2];
	struct rxm_conn *c, *cb;
	char port[16];
	uint64_t old;

	side_open(&a, "A", NULL);
	side_open(&b, "B", NULL);
	c = rxm_cm_conn(&a.cm, (struct sockaddr *)&b.cm.self_sa,
			b.cm.self_salen);
	CHECK(c);
	CHECK_EQ(rxm_cm_connect(&a.cm, c), 0);
	wait_up(&a, &b, "restart: first life");
	prove(&a, &b, "first life");
	old = a.cm.incarnation;
	snprintf(port, sizeof(port), "%u",
		 ntohs(((struct sockaddr_in *)&a.cm.self_sa)->sin_port));
	side_close(&a);
	/* the new life, at the same address */
	side_open(&a, "A2", port);
	CHECK(a.cm.incarnation != old);
	b.order = 0;
	c = rxm_cm_conn(&a.cm, (struct sockaddr *)&b.cm.self_sa,
			b.cm.self_salen);
	CHECK(c);
	CHECK_EQ(rxm_cm_connect(&a.cm, c), 0);
	both[0] = &a;
	both[1] = &b;
	phase = "restart: second life";
	cb = conn_to(&b, &a);
	while (!up(&a, &b) || !up(&b, &a) ||
	       cb->peer_incarnation != a.cm.incarnation)
		pump(both, 2);
	/* the old connection was reported down before the new one came */
	CHECK_EQ(b.downs, 1);
	CHECK_EQ(b.order, 1);
	CHECK_EQ(b.connected, 2);
	CHECK_EQ(b.cm.count, 1);
	prove(&a, &b, "second life");
	side_close(&a);
	side_close(&b);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} scn[] = {
		{ "ondemand", scn_ondemand },
		{ "simultaneous", scn_simultaneous },
		{ "bad", scn_bad },
		{ "duplicate", scn_duplicate },
		{ "restart", scn_restart },
	};
	size_t i;

	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(WATCH_S);
	for (i = 0; argc == 2 && i < sizeof(scn) / sizeof(scn[0]); i++)
		if (!strcmp(argv[1], scn[i].name))
			return scn[i].fn();
	fprintf(stderr, "usage: %s ondemand|simultaneous|bad|duplicate|"
		"restart\n", argv[0]);
	return 2;
}
