/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Peer shared receive contexts on shm (fi_peer(3) "PEER SRX"), one
 * process, real shm endpoints. One scenario per run, named by argv[1]:
 *
 *   import   shm as the PEER of an owner written here (standing in for
 *            another provider): fi_srx_context(FI_PEER) fills the
 *            owner's peer ops; every message arriving at the bound
 *            endpoint asks the owner for a receive (get_tag / get_msg,
 *            with the sender's FI_AV_USER_ID value as its address);
 *            one the owner has no receive for is queued there and
 *            completes when the owner starts it, or vanishes when it
 *            discards it; small and 1 MiB messages, truncation, the
 *            entries all given back, close rules and refusals
 *   export   both roles in propel: an shm endpoint's queue exported with
 *            fi_export_fid and imported by another shm endpoint; the
 *            owner's receives are taken in posting order by messages
 *            arriving at either endpoint; a message that reached the
 *            peer first waits in the owner's queue (FI_PEEK sees it,
 *            FI_DISCARD drops it) and completes on the peer's CQ when
 *            a receive is posted to the owner; closing in either order
 *   stack    the three fi_peer(3) objects together through the public
 *            API, as a provider stacking shm under itself would use
 *            them: the peer endpoint lives in a domain joined to the
 *            owner's (fi_domain2 FI_PEER), takes its receives from the
 *            owner's queue (fi_export_fid of the endpoint) and completes
 *            into the owner's CQ (fi_export_fid of the CQ, fi_cq_open
 *            FI_PEER); the application reads that one CQ only, which
 *            drives both endpoints, and FI_SOURCE names the sender by
 *            the same fi_addr_t whichever endpoint its message reached
 *   mt       the same pair under threads: a sender thread alternates
 *            between the two endpoints, a thread posts the owner's
 *            receives and reads its CQ, another reads the peer's; every
 *            message lands once, intact, in its own receive (the peer's
 *            arrivals call the owner under the peer's lock, the owner's
 *            posts hand matches back after releasing its own: the lock
 *            order ThreadSanitizer checks here)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <rdma/fi_ext.h>

#include "shm_conf_test.h"

/* ---- an owner, as another provider would write one ---- */

#define TOWN_MAX 16

struct tentry {
	struct fi_peer_rx_entry e;	/* first */
	struct iovec iov;
};

struct tpost {
	bool used, tagged;
	uint64_t tag;
	void *buf;
	size_t len;
	void *ctx;
};

struct towner {
	struct fid_peer_srx srx;
	struct fi_ops_srx_owner oops;
	struct fi_ops_srx_peer pops;
	struct tpost posted[TOWN_MAX];
	struct tentry *unexp[TOWN_MAX];
	bool unexp_tagged[TOWN_MAX];
	int gets, queues, frees;
	fi_addr_t last_addr;
};

static struct towner T;

static struct tentry *town_entry(fi_addr_t addr, size_t size, uint64_t tag)
{
	struct tentry *t = calloc(1, sizeof(*t));

	SHM_CHECK(t);
	t->e.srx = &T.srx;
	t->e.addr = addr;
	t->e.size = size;
	t->e.tag = tag;
	return t;
}

static void town_fill(struct tentry *t, const struct tpost *p)
{
	t->iov = (struct iovec){ p->buf, p->len };
	t->e.iov = &t->iov;
	t->e.count = 1;
	t->e.context = p->ctx;
	t->e.flags = FI_RECV | (p->tagged ? FI_TAGGED : FI_MSG);
}

static int town_get(bool tagged, fi_addr_t addr, size_t size, uint64_t tag,
		    struct fi_peer_rx_entry **entry)
{
	struct tentry *t = town_entry(addr, size, tag);
	int i;

	T.gets++;
	T.last_addr = addr;
	*entry = &t->e;
	for (i = 0; i < TOWN_MAX; i++) {
		struct tpost *p = &T.posted[i];

		if (!p->used || p->tagged != tagged ||
		    (tagged && p->tag != tag))
			continue;
		town_fill(t, p);
		p->used = false;
		return 0;
	}
	return -FI_ENOENT;
}

static int town_get_msg(struct fid_peer_srx *srx, fi_addr_t addr, size_t size,
			struct fi_peer_rx_entry **entry)
{
	SHM_CHECK(srx == &T.srx);
	return town_get(false, addr, size, 0, entry);
}

static int town_get_tag(struct fid_peer_srx *srx, fi_addr_t addr,
			uint64_t tag, struct fi_peer_rx_entry **entry)
{
	SHM_CHECK(srx == &T.srx);
	return town_get(true, addr, 0, tag, entry);
}

static int town_queue(struct fi_peer_rx_entry *e, bool tagged)
{
	int i;

	SHM_CHECK(e->peer_context != NULL);
	for (i = 0; i < TOWN_MAX; i++)
		if (!T.unexp[i]) {
			T.unexp[i] = (struct tentry *)e;
			T.unexp_tagged[i] = tagged;
			T.queues++;
			return 0;
		}
	return -FI_ENOMEM;
}

static int town_queue_msg(struct fi_peer_rx_entry *e)
{
	return town_queue(e, false);
}

static int town_queue_tag(struct fi_peer_rx_entry *e)
{
	return town_queue(e, true);
}

static void town_free(struct fi_peer_rx_entry *e)
{
	T.frees++;
	free(e);
}

static void town_init(void)
{
	memset(&T, 0, sizeof(T));
	T.oops = (struct fi_ops_srx_owner){
		.size = sizeof(T.oops), .get_msg = town_get_msg,
		.get_tag = town_get_tag, .queue_msg = town_queue_msg,
		.queue_tag = town_queue_tag, .free_entry = town_free,
	};
	T.pops.size = sizeof(T.pops);
	T.srx.owner_ops = &T.oops;
	T.srx.peer_ops = &T.pops;
}

/* The application posts to the owner: a queued message is started,
 * else the receive waits. */
static void town_post(bool tagged, uint64_t tag, void *buf, size_t len,
		      void *ctx)
{
	struct tpost p = { true, tagged, tag, buf, len, ctx };
	int i;

	for (i = 0; i < TOWN_MAX; i++) {
		struct tentry *t = T.unexp[i];

		if (!t || T.unexp_tagged[i] != tagged ||
		    (tagged && t->e.tag != tag))
			continue;
		T.unexp[i] = NULL;
		town_fill(t, &p);
		SHM_CHECK((tagged ? T.pops.start_tag(&t->e) :
				    T.pops.start_msg(&t->e)) == 0);
		return;
	}
	for (i = 0; i < TOWN_MAX; i++)
		if (!T.posted[i].used) {
			T.posted[i] = p;
			return;
		}
	SHM_CHECK(0);
}

static void town_discard(uint64_t tag)
{
	int i;

	for (i = 0; i < TOWN_MAX; i++)
		if (T.unexp[i] && T.unexp_tagged[i] && T.unexp[i]->e.tag == tag) {
			struct tentry *t = T.unexp[i];

			T.unexp[i] = NULL;
			SHM_CHECK(T.pops.discard_tag(&t->e) == 0);
			return;
		}
	SHM_CHECK(0);
}

/* Drive cq's endpoint until the owner has had n queue calls. */
static void wait_queues(struct fid_cq *cq, int n)
{
	while (T.queues < n)
		(void)fi_cq_read(cq, NULL, 0);
}

/* ---- import ---- */

#define BIG (1u << 20)
#define USER_ID 0x777

static void t_import(void)
{
	static const struct cep_opts later = { .no_enable = 1 };
	static const struct cep_opts none;
	struct fi_rx_attr rxa = { .op_flags = FI_PEER };
	struct fi_peer_srx_context pc = { sizeof(pc), &T.srx };
	struct fi_peer_srx_context bad = { 0, &T.srx };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err = { 0 };
	char b1[16] = "", b2[16] = "", b3[16] = "", small[4];
	char *big_in = calloc(1, BIG), *big_out = malloc(BIG);
	struct fid_ep *psrx;
	struct cep p, s;
	fi_addr_t to_p, id = USER_ID, from;
	int c1, c2, c3, c4, c5, c6;
	unsigned i;

	SHM_CHECK(big_in && big_out);
	town_init();
	SHM_CHECK(fi_srx_context(C.domain, &rxa, &psrx, NULL) == -FI_EINVAL);
	SHM_CHECK(fi_srx_context(C.domain, &rxa, &psrx, &bad) == -FI_EINVAL);
	SHM_CHECK(fi_srx_context(C.domain, &rxa, &psrx, &pc) == 0);
	/* fi_peer(3): the peer fills the peer ops in before it returns */
	SHM_CHECK(T.pops.start_msg && T.pops.start_tag &&
		  T.pops.discard_msg && T.pops.discard_tag);
	SHM_CHECK(cep_open(&C, &p, &later) == 0);
	SHM_CHECK(fi_ep_bind(p.ep, &psrx->fid, 0) == 0);
	SHM_CHECK(fi_enable(p.ep) == 0);
	p.namelen = sizeof(p.name);
	SHM_CHECK(fi_getname(&p.ep->fid, p.name, &p.namelen) == 0);
	SHM_CHECK(cep_open(&C, &s, &none) == 0);
	to_p = cep_insert(&s, &p);
	/* the owner inserted the sender under its own address */
	SHM_CHECK(fi_av_insert(p.av, s.name, 1, &id, FI_AV_USER_ID, NULL) ==
		  1);
	/* receives go to the owner */
	SHM_CHECK(fi_recv(p.ep, b1, sizeof(b1), NULL, FI_ADDR_UNSPEC, NULL) ==
		  -FI_EOPNOTSUPP);
	SHM_CHECK(fi_recv(psrx, b1, sizeof(b1), NULL, FI_ADDR_UNSPEC, NULL) ==
		  -FI_ENOSYS);

	/* expected: the owner's receive takes it */
	town_post(true, 7, b1, sizeof(b1), &c1);
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "hello", 6, NULL, to_p, 7,
					     NULL)) == 0);
	SHM_CHECK(conf_read(p.rcq, &e, 1, NULL, &from) == 1);
	SHM_CHECK(e.op_context == &c1 && e.len == 6 && e.tag == 7);
	SHM_CHECK((e.flags & (FI_RECV | FI_TAGGED)) == (FI_RECV | FI_TAGGED));
	SHM_CHECK(!strcmp(b1, "hello"));
	SHM_CHECK(from == USER_ID && T.last_addr == USER_ID);
	SHM_CHECK(T.gets == 1 && T.queues == 0 && T.frees == 1);

	/* unexpected: queued at the owner, completed when it starts it */
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsenddata(s.ep, "world", 6, NULL, 5,
						 to_p, 9, NULL)) == 0);
	wait_queues(p.rcq, 1);
	conf_none(p.rcq);
	town_post(true, 9, b2, sizeof(b2), &c2);
	conf_wait(p.rcq, &e);
	SHM_CHECK(e.op_context == &c2 && e.len == 6 && e.data == 5 &&
		  (e.flags & FI_REMOTE_CQ_DATA));
	SHM_CHECK(!strcmp(b2, "world") && T.frees == 2);

	/* untagged, unexpected then expected */
	SHM_CHECK(CONF_RETRY(s.tcq, fi_send(s.ep, "m1", 3, NULL, to_p,
					    NULL)) == 0);
	wait_queues(p.rcq, 2);
	town_post(false, 0, b3, sizeof(b3), &c3);
	conf_wait(p.rcq, &e);
	SHM_CHECK(e.op_context == &c3 && (e.flags & FI_MSG) &&
		  !strcmp(b3, "m1"));

	/* 1 MiB, its data moved after the match (both ways) */
	for (i = 0; i < BIG; i++)
		big_out[i] = (char)(i * 7 + 1);
	town_post(true, 20, big_in, BIG, &c4);
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, big_out, BIG, NULL, to_p,
					     20, NULL)) == 0);
	conf_wait(p.rcq, &e);
	SHM_CHECK(e.op_context == &c4 && e.len == BIG &&
		  !memcmp(big_in, big_out, BIG));
	memset(big_in, 0, BIG);
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, big_out, BIG, NULL, to_p,
					     21, NULL)) == 0);
	wait_queues(p.rcq, 3);
	town_post(true, 21, big_in, BIG, &c5);
	conf_wait(p.rcq, &e);
	SHM_CHECK(e.op_context == &c5 && !memcmp(big_in, big_out, BIG));

	/* truncated into the owner's buffer */
	town_post(true, 22, small, sizeof(small), &c6);
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "0123456789", 10, NULL,
					     to_p, 22, NULL)) == 0);
	SHM_CHECK(conf_read(p.rcq, &e, 1, &err, NULL) == -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ETRUNC && err.op_context == &c6 &&
		  err.olen == 6);

	/* discarded by the owner: no completion, the entry comes back */
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "drop", 5, NULL, to_p, 11,
					     NULL)) == 0);
	wait_queues(p.rcq, 4);
	i = T.frees;
	town_discard(11);
	SHM_CHECK(T.frees == (int)i + 1);
	conf_none(p.rcq);

	/* close: not while bound; a message the owner still holds when
	 * the endpoint closes is dropped, its entry still comes back */
	SHM_CHECK(fi_close(&psrx->fid) == -FI_EBUSY);
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "gone", 5, NULL, to_p, 13,
					     NULL)) == 0);
	wait_queues(p.rcq, 5);
	cep_close(&p);
	SHM_CHECK(fi_close(&psrx->fid) == -FI_EBUSY);	/* the owner's */
	i = T.frees;
	town_post(true, 13, b1, sizeof(b1), &c1);
	SHM_CHECK(T.frees == (int)i + 1);
	SHM_CHECK(fi_close(&psrx->fid) == 0);
	/* every entry the owner made came back */
	SHM_CHECK(T.frees == T.gets);
	cep_close(&s);
	free(big_in);
	free(big_out);
}

/* ---- export ---- */

/* Post an FI_PEEK on the owner until it finds tag; its completion comes
 * to the owner's CQ. */
static void peek_until(struct cep *o, uint64_t tag, uint64_t flags,
		       struct fi_context *ctx)
{
	struct fi_msg_tagged m = { .tag = tag, .context = ctx,
				   .addr = FI_ADDR_UNSPEC };
	struct fi_cq_err_entry err = { 0 };
	struct fi_cq_tagged_entry e;
	int r;

	for (;;) {
		SHM_CHECK(fi_trecvmsg(o->ep, &m, FI_PEEK | flags) == 0);
		r = conf_read(o->rcq, &e, 1, &err, NULL);
		if (r == 1) {
			SHM_CHECK(e.op_context == ctx && e.tag == tag);
			return;
		}
		SHM_CHECK(err.err == FI_ENOMSG);
	}
}

static void t_export(void)
{
	static const struct cep_opts later = { .no_enable = 1 };
	static const struct cep_opts none;
	struct fi_rx_attr rxa = { .op_flags = FI_PEER };
	struct fi_peer_srx_context pc = { sizeof(pc), NULL };
	struct fi_cq_err_entry err = { 0 };
	struct fi_cq_tagged_entry e;
	char b1[16] = "", b2[16] = "", b3[16] = "", b4[16] = "";
	struct fi_context c1, c2, c3, c4, pk;
	struct fid *xfid, *again;
	struct fid_ep *psrx;
	struct cep o, p, s;
	fi_addr_t to_o, to_p;

	SHM_CHECK(cep_open(&C, &o, &later) == 0);
	SHM_CHECK(fi_export_fid(&o.ep->fid, 0, &xfid, NULL) ==
		  -FI_EOPBADSTATE);
	SHM_CHECK(fi_enable(o.ep) == 0);
	o.namelen = sizeof(o.name);
	SHM_CHECK(fi_getname(&o.ep->fid, o.name, &o.namelen) == 0);
	SHM_CHECK(fi_export_fid(&o.ep->fid, 0, &xfid, NULL) == 0);
	SHM_CHECK(xfid->fclass == FI_CLASS_PEER_SRX);
	SHM_CHECK(fi_export_fid(&o.ep->fid, 0, &again, NULL) == 0 &&
		  again == xfid);
	pc.srx = (struct fid_peer_srx *)xfid;
	SHM_CHECK(fi_srx_context(C.domain, &rxa, &psrx, &pc) == 0);
	SHM_CHECK(cep_open(&C, &p, &later) == 0);
	SHM_CHECK(fi_ep_bind(p.ep, &psrx->fid, 0) == 0);
	SHM_CHECK(fi_enable(p.ep) == 0);
	p.namelen = sizeof(p.name);
	SHM_CHECK(fi_getname(&p.ep->fid, p.name, &p.namelen) == 0);
	SHM_CHECK(cep_open(&C, &s, &none) == 0);
	to_o = cep_insert(&s, &o);
	to_p = cep_insert(&s, &p);
	(void)cep_insert(&o, &s);
	(void)cep_insert(&p, &s);

	/* the owner's receives, in posting order, whichever endpoint the
	 * message reaches */
	SHM_CHECK(fi_trecv(o.ep, b1, sizeof(b1), NULL, FI_ADDR_UNSPEC, 1, 0,
			   &c1) == 0);
	SHM_CHECK(fi_trecv(o.ep, b2, sizeof(b2), NULL, FI_ADDR_UNSPEC, 1, 0,
			   &c2) == 0);
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "via-p", 6, NULL, to_p, 1,
					     NULL)) == 0);
	conf_wait(p.rcq, &e);
	SHM_CHECK(e.op_context == &c1 && !strcmp(b1, "via-p"));
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "via-o", 6, NULL, to_o, 1,
					     NULL)) == 0);
	conf_wait(o.rcq, &e);
	SHM_CHECK(e.op_context == &c2 && !strcmp(b2, "via-o"));
	conf_none(p.rcq);

	/* reached the peer first: waits in the owner's queue (a peek
	 * there finds it), completes on the peer's CQ once posted */
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "late", 5, NULL, to_p, 2,
					     NULL)) == 0);
	(void)fi_cq_read(p.rcq, NULL, 0);
	peek_until(&o, 2, 0, &pk);
	SHM_CHECK(fi_trecv(o.ep, b3, sizeof(b3), NULL, FI_ADDR_UNSPEC, 2, 0,
			   &c3) == 0);
	conf_wait(p.rcq, &e);
	SHM_CHECK(e.op_context == &c3 && e.len == 5 && !strcmp(b3, "late"));
	conf_none(o.rcq);

	/* FI_PEEK | FI_DISCARD on the owner drops the peer's message */
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "junk", 5, NULL, to_p, 3,
					     NULL)) == 0);
	(void)fi_cq_read(p.rcq, NULL, 0);
	peek_until(&o, 3, FI_DISCARD, &pk);
	SHM_CHECK(fi_trecv(o.ep, b4, sizeof(b4), NULL, FI_ADDR_UNSPEC, 3, 0,
			   &c4) == 0);
	conf_none(p.rcq);
	SHM_CHECK(fi_cancel(&o.ep->fid, &c4) == 0);
	SHM_CHECK(conf_read(o.rcq, &e, 1, &err, NULL) == -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ECANCELED && err.op_context == &c4);

	/* close the peer with a message still in the owner's queue, then
	 * the owner: the import closes last */
	SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, "left", 5, NULL, to_p, 4,
					     NULL)) == 0);
	(void)fi_cq_read(p.rcq, NULL, 0);
	peek_until(&o, 4, 0, &pk);
	cep_close(&p);
	SHM_CHECK(fi_close(&psrx->fid) == -FI_EBUSY);
	cep_close(&o);
	SHM_CHECK(fi_close(&psrx->fid) == 0);
	cep_close(&s);
}

/* ---- stack ---- */

static void t_stack(void)
{
	static const struct cep_opts none;
	struct fi_rx_attr rxa = { .op_flags = FI_PEER };
	struct fi_peer_srx_context sc = { sizeof(sc), NULL };
	struct fi_peer_cq_context qc = { sizeof(qc), NULL };
	struct fi_peer_domain_context dc = { sizeof(dc), C.domain };
	struct fi_cq_attr pqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .flags = FI_PEER };
	struct fi_cq_attr tqa = { .format = FI_CQ_FORMAT_TAGGED };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cq_tagged_entry e;
	struct fid_domain *b;
	struct fid_cq *pcq, *ptcq;
	struct fid_av *pav;
	struct fid_ep *psrx, *pep;
	struct fid *xsrx, *xcq;
	struct cep o, s;
	char name[128], in[4][8];
	size_t namelen = sizeof(name);
	fi_addr_t s_at_o, s_at_p, to_o, to_p, from;
	int i;

	SHM_CHECK(cep_open(&C, &o, &none) == 0);
	SHM_CHECK(cep_open(&C, &s, &none) == 0);
	s_at_o = cep_insert(&o, &s);
	SHM_CHECK(fi_domain2(C.fabric, C.info, &b, FI_PEER, &dc) == 0);
	SHM_CHECK(fi_export_fid(&o.ep->fid, 0, &xsrx, NULL) == 0);
	SHM_CHECK(fi_export_fid(&o.rcq->fid, 0, &xcq, NULL) == 0);
	SHM_CHECK(xcq->fclass == FI_CLASS_PEER_CQ);
	sc.srx = (struct fid_peer_srx *)xsrx;
	qc.cq = (struct fid_peer_cq *)xcq;
	SHM_CHECK(fi_srx_context(b, &rxa, &psrx, &sc) == 0);
	SHM_CHECK(fi_cq_open(b, &pqa, &pcq, &qc) == 0);
	SHM_CHECK(fi_cq_open(b, &tqa, &ptcq, NULL) == 0);
	SHM_CHECK(fi_av_open(b, &ava, &pav, NULL) == 0);
	SHM_CHECK(fi_endpoint(b, C.info, &pep, NULL) == 0);
	SHM_CHECK(fi_ep_bind(pep, &pav->fid, 0) == 0);
	SHM_CHECK(fi_ep_bind(pep, &pcq->fid, FI_RECV) == 0);
	SHM_CHECK(fi_ep_bind(pep, &ptcq->fid, FI_TRANSMIT) == 0);
	SHM_CHECK(fi_ep_bind(pep, &psrx->fid, 0) == 0);
	SHM_CHECK(fi_enable(pep) == 0);
	SHM_CHECK(fi_getname(&pep->fid, name, &namelen) == 0);
	/* the peer knows the sender under the owner's fi_addr_t */
	s_at_p = s_at_o;
	SHM_CHECK(fi_av_insert(pav, s.name, 1, &s_at_p, FI_AV_USER_ID,
			       NULL) == 1);
	to_o = cep_insert(&s, &o);
	SHM_CHECK(fi_av_insert(s.av, name, 1, &to_p, 0, NULL) == 1);

	/* two receives posted first, two messages that wait for theirs;
	 * the even ones reach the owner's endpoint, the odd the peer's */
	for (i = 0; i < 2; i++)
		SHM_CHECK(fi_trecv(o.ep, in[i], sizeof(in[i]), NULL,
				   FI_ADDR_UNSPEC, (uint64_t)i, 0, in[i]) == 0);
	for (i = 0; i < 4; i++) {
		char msg[8];

		snprintf(msg, sizeof(msg), "m%d", i);
		SHM_CHECK(CONF_RETRY(s.tcq, fi_tsend(s.ep, msg, 3, NULL,
			(i & 1) ? to_p : to_o, (uint64_t)i, NULL)) == 0);
	}
	/* the owner's CQ alone: it drives the peer domain too */
	for (i = 0; i < 2; i++) {
		SHM_CHECK(conf_read(o.rcq, &e, 1, NULL, &from) == 1);
		SHM_CHECK(e.op_context == in[e.tag] && from == s_at_o);
	}
	for (i = 2; i < 4; i++)
		SHM_CHECK(fi_trecv(o.ep, in[i], sizeof(in[i]), NULL,
				   FI_ADDR_UNSPEC, (uint64_t)i, 0, in[i]) == 0);
	for (i = 2; i < 4; i++) {
		SHM_CHECK(conf_read(o.rcq, &e, 1, NULL, &from) == 1);
		SHM_CHECK(e.op_context == in[e.tag] && from == s_at_o);
	}
	for (i = 0; i < 4; i++) {
		char want[8];

		snprintf(want, sizeof(want), "m%d", i);
		SHM_CHECK(!strcmp(in[i], want));
	}
	for (i = 0; i < 4; i++)
		conf_wait(s.tcq, &e);
	conf_none(ptcq);

	/* the owner's domain and CQ outlive what joined them */
	SHM_CHECK(fi_close(&o.rcq->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&pep->fid) == 0);
	SHM_CHECK(fi_close(&psrx->fid) == 0);
	SHM_CHECK(fi_close(&pcq->fid) == 0);
	SHM_CHECK(fi_close(&ptcq->fid) == 0);
	SHM_CHECK(fi_close(&pav->fid) == 0);
	SHM_CHECK(fi_close(&C.domain->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&b->fid) == 0);
	cep_close(&s);
	cep_close(&o);
}

/* ---- mt ---- */

#define MT_N 2000
#define MT_LEN 64

struct mt {
	struct cep o, p, s;
	fi_addr_t to_o, to_p;
	char in[MT_N][MT_LEN];
	int got_o, got_p;
};

static void mt_fill(char *b, unsigned i)
{
	for (unsigned k = 0; k < MT_LEN; k++)
		b[k] = (char)(i * 31 + k);
}

static void *mt_send(void *arg)
{
	struct mt *m = arg;
	struct fi_cq_tagged_entry e;
	char out[MT_LEN];
	unsigned i, done = 0;

	for (i = 0; i < MT_N; i++) {
		mt_fill(out, i);
		SHM_CHECK(CONF_RETRY(m->s.tcq, fi_tsend(m->s.ep, out, MT_LEN,
				NULL, (i & 1) ? m->to_p : m->to_o, i,
				NULL)) == 0);
		while (fi_cq_read(m->s.tcq, &e, 1) == 1)
			done++;
	}
	while (done < MT_N)
		if (fi_cq_read(m->s.tcq, &e, 1) == 1)
			done++;
	return NULL;
}

/* Reads the peer's CQ: the odd messages. */
static void *mt_peer(void *arg)
{
	struct mt *m = arg;
	struct fi_cq_tagged_entry e;

	while (m->got_p < MT_N / 2) {
		conf_wait(m->p.rcq, &e);
		SHM_CHECK((e.tag & 1) && e.len == MT_LEN &&
			  e.op_context == m->in[e.tag]);
		m->got_p++;
	}
	return NULL;
}

static void t_mt(void)
{
	static const struct cep_opts later = { .no_enable = 1 };
	static const struct cep_opts none;
	struct fi_rx_attr rxa = { .op_flags = FI_PEER };
	struct fi_peer_srx_context pc = { sizeof(pc), NULL };
	struct fi_cq_tagged_entry e;
	struct mt *m = calloc(1, sizeof(*m));
	pthread_t ts, tp;
	struct fid *xfid;
	struct fid_ep *psrx;
	char want[MT_LEN];
	unsigned i;

	SHM_CHECK(m);
	SHM_CHECK(cep_open(&C, &m->o, &none) == 0);
	SHM_CHECK(fi_export_fid(&m->o.ep->fid, 0, &xfid, NULL) == 0);
	pc.srx = (struct fid_peer_srx *)xfid;
	SHM_CHECK(fi_srx_context(C.domain, &rxa, &psrx, &pc) == 0);
	SHM_CHECK(cep_open(&C, &m->p, &later) == 0);
	SHM_CHECK(fi_ep_bind(m->p.ep, &psrx->fid, 0) == 0);
	SHM_CHECK(fi_enable(m->p.ep) == 0);
	m->p.namelen = sizeof(m->p.name);
	SHM_CHECK(fi_getname(&m->p.ep->fid, m->p.name, &m->p.namelen) == 0);
	SHM_CHECK(cep_open(&C, &m->s, &none) == 0);
	m->to_o = cep_insert(&m->s, &m->o);
	m->to_p = cep_insert(&m->s, &m->p);
	(void)cep_insert(&m->o, &m->s);
	(void)cep_insert(&m->p, &m->s);
	SHM_CHECK(pthread_create(&tp, NULL, mt_peer, m) == 0);
	SHM_CHECK(pthread_create(&ts, NULL, mt_send, m) == 0);
	/* this thread posts every receive on the owner, in order, a few at
	 * a time, and takes the even messages' completions */
	for (i = 0; i < MT_N; i++) {
		SHM_CHECK(fi_trecv(m->o.ep, m->in[i], MT_LEN, NULL,
				   FI_ADDR_UNSPEC, i, 0, m->in[i]) == 0);
		while (fi_cq_read(m->o.rcq, &e, 1) == 1) {
			SHM_CHECK(!(e.tag & 1) && e.op_context == m->in[e.tag]);
			m->got_o++;
		}
	}
	while (m->got_o < MT_N / 2) {
		conf_wait(m->o.rcq, &e);
		SHM_CHECK(!(e.tag & 1) && e.op_context == m->in[e.tag]);
		m->got_o++;
	}
	SHM_CHECK(pthread_join(ts, NULL) == 0);
	SHM_CHECK(pthread_join(tp, NULL) == 0);
	for (i = 0; i < MT_N; i++) {
		mt_fill(want, i);
		SHM_CHECK(!memcmp(m->in[i], want, MT_LEN));
	}
	cep_close(&m->p);
	cep_close(&m->o);
	SHM_CHECK(fi_close(&psrx->fid) == 0);
	cep_close(&m->s);
	free(m);
}

static const struct conf_scenario scenarios[] = {
	{ "import", t_import }, { "export", t_export }, { "stack", t_stack },
	{ "mt", t_mt },
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, scenarios,
			 sizeof(scenarios) / sizeof(scenarios[0]));
}
