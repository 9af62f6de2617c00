/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_peer(3) on shm: the peer CQ (fi_cq_open with FI_PEER) and the peer
 * domain (fi_domain2 with FI_PEER), docs/peer.md. The "owner" another
 * provider would be is written here: a fid_peer_cq whose callbacks
 * record what they get, or the engine's own (pl_cq_peer). One process,
 * real shm endpoints; one scenario per run, named by argv[1]:
 *
 *   cq          completions of a tagged send with CQ data reach the
 *               owner's write with the right context, flags, len, buf,
 *               data, tag and source; the receive completes only when
 *               fi_cq_read(peer_cq, NULL, 0) drives progress; reads,
 *               waits and controls are -FI_ENOSYS; close refused while
 *               bound; a CONTEXT-format owner gets 0 for what it lacks
 *   cqerr       a cancelled and a truncated receive reach writeerr
 *   cqbad       FI_PEER contexts the owner could not be called through,
 *               wait objects, and a serial owner CQ: -FI_EINVAL
 *   domain      domain B joins domain A (fi_domain2 FI_PEER); B's
 *               endpoint completes into A's CQ through a peer CQ; reading
 *               A's CQ alone (manual progress) completes B's transfers;
 *               the owner CQ and A refuse to close first
 *   domainauto  the same under FI_PROGRESS_AUTO: A's one thread drives
 *               B's endpoint too (suite concurrency: run under TSan)
 *   domainbad   flags, contexts, threading and progress the owner does
 *               not have: refused; flags 0 and a foreign owner: a domain
 *               with a context of its own; a peer EQ: refused
 *   layered     tcp and ofi_rxm domains join an shm owner as well
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext.h>
#include <rdma/fi_tagged.h>

#include "pl_cq.h"
#include "pl_domain.h"
#include "shm_test.h"

#define PEER_CAPS (FI_MSG | FI_TAGGED | FI_SOURCE)
/* Long enough for a loaded machine; a missing progress path never
 * completes at all. */
#define PEER_DEADLINE_S 10

/* ---- the owner: records what the peer provider hands it ---- */

struct rec {
	void *context;
	uint64_t flags;
	size_t len;
	void *buf;
	uint64_t data, tag;
	fi_addr_t src;
};

#define OWNER_MAX 16

struct owner {
	struct fid_peer_cq peer;	/* what the peer CQ is handed */
	struct rec ok[OWNER_MAX];
	int nok;
	struct fi_cq_err_entry err[OWNER_MAX];
	int nerr;
};

static struct owner *owner_of(struct fid_peer_cq *cq)
{
	return (struct owner *)cq;	/* peer is the first member */
}

static ssize_t owner_write(struct fid_peer_cq *cq, void *context,
			   uint64_t flags, size_t len, void *buf,
			   uint64_t data, uint64_t tag, fi_addr_t src)
{
	struct owner *o = owner_of(cq);

	SHM_CHECK(o->nok < OWNER_MAX);
	o->ok[o->nok++] = (struct rec){ context, flags, len, buf, data, tag,
					src };
	shm_test_progress();
	return 0;
}

static ssize_t owner_writeerr(struct fid_peer_cq *cq,
			      const struct fi_cq_err_entry *e)
{
	struct owner *o = owner_of(cq);

	SHM_CHECK(o->nerr < OWNER_MAX);
	o->err[o->nerr] = *e;
	/* the provider's err_data lives only during the call */
	o->err[o->nerr].err_data = NULL;
	o->nerr++;
	shm_test_progress();
	return 0;
}

static struct fi_ops_cq_owner owner_ops = {
	.size = sizeof(struct fi_ops_cq_owner),
	.write = owner_write,
	.writeerr = owner_writeerr,
};

static void owner_init(struct owner *o)
{
	memset(o, 0, sizeof(*o));
	o->peer.fid.fclass = FI_CLASS_PEER_CQ;
	o->peer.owner_ops = &owner_ops;
}

static int peer_cq_open(struct fid_domain *d, struct fid_peer_cq *owner,
			enum fi_cq_format format, struct fid_cq **cq_p)
{
	struct fi_cq_attr attr = { .format = format, .flags = FI_PEER,
				   .wait_obj = FI_WAIT_NONE };
	/* on the stack: only the fid_peer_cq must outlive the call */
	struct fi_peer_cq_context pc = { .size = sizeof(pc), .cq = owner };

	return fi_cq_open(d, &attr, cq_p, &pc);
}

/* ---- endpoints bound to whatever CQs a scenario gives ---- */

struct pep {
	struct fid_ep *ep;
	struct fid_av *av;
	char name[128];
	size_t namelen;
};

static void pep_open(struct fid_domain *d, struct fi_info *info,
		     struct fid_cq *txcq, struct fid_cq *rxcq, struct pep *e)
{
	struct fi_av_attr ava = { .type = FI_AV_TABLE };

	memset(e, 0, sizeof(*e));
	SHM_CHECK(fi_av_open(d, &ava, &e->av, NULL) == 0);
	SHM_CHECK(fi_endpoint(d, info, &e->ep, NULL) == 0);
	SHM_CHECK(fi_ep_bind(e->ep, &e->av->fid, 0) == 0);
	SHM_CHECK(fi_ep_bind(e->ep, &txcq->fid, FI_TRANSMIT) == 0);
	SHM_CHECK(fi_ep_bind(e->ep, &rxcq->fid, FI_RECV) == 0);
	SHM_CHECK(fi_enable(e->ep) == 0);
	e->namelen = sizeof(e->name);
	SHM_CHECK(fi_getname(&e->ep->fid, e->name, &e->namelen) == 0);
}

static fi_addr_t pep_insert(struct pep *e, const struct pep *who)
{
	fi_addr_t a = FI_ADDR_NOTAVAIL;

	SHM_CHECK(fi_av_insert(e->av, who->name, 1, &a, 0, NULL) == 1);
	return a;
}

static void pep_close(struct pep *e)
{
	SHM_CHECK(fi_close(&e->ep->fid) == 0);
	SHM_CHECK(fi_close(&e->av->fid) == 0);
	memset(e, 0, sizeof(*e));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* fi_cq_read(cq, NULL, 0) until *count reaches want; the only call that
 * drives the domain while it runs. */
static void drive_until(struct fid_cq *cq, const int *count, int want)
{
	double end = now_s() + PEER_DEADLINE_S;

	while (*count < want && now_s() < end)
		SHM_CHECK(fi_cq_read(cq, NULL, 0) == 0);
	SHM_CHECK(*count >= want);
}

/* The scenario's domain (owner A in the domain scenarios). */
static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;

static void top_open(enum fi_threading th, enum fi_progress progress)
{
	SHM_CHECK(shm_test_getinfo(PEER_CAPS, th, progress, &info) == 0);
	SHM_CHECK(fi_fabric(info->fabric_attr, &fabric, NULL) == 0);
	SHM_CHECK(fi_domain(fabric, info, &domain, NULL) == 0);
}

static void top_close(void)
{
	SHM_CHECK(fi_close(&domain->fid) == 0);
	SHM_CHECK(fi_close(&fabric->fid) == 0);
	fi_freeinfo(info);
}

/* ---- cq ---- */

static void t_cq(void)
{
	struct owner oa, ob, oc;
	struct fid_cq *pa, *pb, *pc;
	struct pep a, b;
	fi_addr_t to_a, b_in_a, to_b;
	char msg[40], rbuf[64], rctx, sctx, ictx;
	struct fi_cq_err_entry err = { 0 };
	size_t thresh = 1;
	struct fid *fids[1];
	int fd = -1;

	top_open(FI_THREAD_SAFE, FI_PROGRESS_MANUAL);
	owner_init(&oa);
	owner_init(&ob);
	owner_init(&oc);
	SHM_CHECK(peer_cq_open(domain, &oa.peer, FI_CQ_FORMAT_TAGGED,
			       &pa) == 0);
	SHM_CHECK(peer_cq_open(domain, &ob.peer, FI_CQ_FORMAT_TAGGED,
			       &pb) == 0);
	SHM_CHECK(peer_cq_open(domain, &oc.peer, FI_CQ_FORMAT_CONTEXT,
			       &pc) == 0);
	pep_open(domain, info, pa, pa, &a);
	pep_open(domain, info, pb, pc, &b);	/* b receives into pc */
	to_a = pep_insert(&b, &a);
	b_in_a = pep_insert(&a, &b);
	to_b = pep_insert(&b, &b);

	shm_test_fill(msg, sizeof(msg), 1);
	SHM_CHECK(fi_trecv(a.ep, rbuf, sizeof(rbuf), NULL, FI_ADDR_UNSPEC, 7,
			   0, &rctx) == 0);
	SHM_CHECK(fi_tsenddata(b.ep, msg, sizeof(msg), NULL, 0xd00d, to_a, 7,
			       &sctx) == 0);
	/* manual progress and no other CQ in the domain: the receive waits
	 * for the owner's zero-count read */
	SHM_CHECK(oa.nok == 0);
	drive_until(pa, &oa.nok, 1);
	SHM_CHECK(oa.nerr == 0);
	SHM_CHECK(oa.ok[0].context == &rctx);
	SHM_CHECK((oa.ok[0].flags & (FI_RECV | FI_TAGGED | FI_REMOTE_CQ_DATA))
		  == (FI_RECV | FI_TAGGED | FI_REMOTE_CQ_DATA));
	SHM_CHECK(oa.ok[0].len == sizeof(msg));
	SHM_CHECK(oa.ok[0].buf == rbuf);
	SHM_CHECK(oa.ok[0].data == 0xd00d);
	SHM_CHECK(oa.ok[0].tag == 7);
	SHM_CHECK(oa.ok[0].src == b_in_a);	/* relative to a's AV */
	SHM_CHECK(shm_test_verify(rbuf, sizeof(msg), 1) == 0);
	drive_until(pb, &ob.nok, 1);
	SHM_CHECK(ob.ok[0].context == &sctx);
	SHM_CHECK((ob.ok[0].flags & (FI_SEND | FI_TAGGED)) ==
		  (FI_SEND | FI_TAGGED));

	/* a CONTEXT-format owner: what its entries lack comes as 0 / NULL */
	SHM_CHECK(fi_recv(b.ep, rbuf, sizeof(rbuf), NULL, FI_ADDR_UNSPEC,
			  &ictx) == 0);
	SHM_CHECK(fi_send(b.ep, msg, 8, NULL, to_b, NULL) == 0);
	drive_until(pc, &oc.nok, 1);
	SHM_CHECK(oc.ok[0].context == &ictx);
	SHM_CHECK(oc.ok[0].flags == 0 && oc.ok[0].len == 0 &&
		  oc.ok[0].buf == NULL && oc.ok[0].data == 0 &&
		  oc.ok[0].tag == 0);

	/* fi_peer(3): everything that reads the peer CQ is -FI_ENOSYS */
	SHM_CHECK(fi_cq_read(pa, rbuf, 1) == -FI_ENOSYS);
	SHM_CHECK(fi_cq_readfrom(pa, rbuf, 1, &to_a) == -FI_ENOSYS);
	SHM_CHECK(fi_cq_readerr(pa, &err, 0) == -FI_ENOSYS);
	SHM_CHECK(fi_cq_sread(pa, rbuf, 1, NULL, 0) == -FI_ENOSYS);
	SHM_CHECK(fi_cq_sreadfrom(pa, rbuf, 1, &to_a, &thresh, 0) ==
		  -FI_ENOSYS);
	SHM_CHECK(fi_cq_signal(pa) == -FI_ENOSYS);
	SHM_CHECK(fi_control(&pa->fid, FI_GETWAIT, &fd) == -FI_ENOSYS);
	SHM_CHECK(fi_control(&pa->fid, FI_GETWAITOBJ, &fd) == -FI_ENOSYS);
	SHM_CHECK(fi_cq_strerror(pa, FI_ETRUNC, NULL, NULL, 0) != NULL);
	/* no wait object: nothing to block on */
	fids[0] = &pa->fid;
	SHM_CHECK(fi_trywait(fabric, fids, 1) == -FI_EINVAL);

	/* bound: the endpoints go first */
	SHM_CHECK(fi_close(&pa->fid) == -FI_EBUSY);
	pep_close(&a);
	pep_close(&b);
	SHM_CHECK(fi_close(&pa->fid) == 0);
	SHM_CHECK(fi_close(&pb->fid) == 0);
	SHM_CHECK(fi_close(&pc->fid) == 0);
	top_close();
}

/* ---- cqerr ---- */

static void t_cqerr(void)
{
	struct owner oa, ob;
	struct fid_cq *pa, *pb;
	struct pep a, b;
	fi_addr_t to_a;
	char msg[16], rbuf[64], cctx, tctx, sctx;

	top_open(FI_THREAD_SAFE, FI_PROGRESS_MANUAL);
	owner_init(&oa);
	owner_init(&ob);
	SHM_CHECK(peer_cq_open(domain, &oa.peer, FI_CQ_FORMAT_TAGGED,
			       &pa) == 0);
	SHM_CHECK(peer_cq_open(domain, &ob.peer, FI_CQ_FORMAT_TAGGED,
			       &pb) == 0);
	pep_open(domain, info, pa, pa, &a);
	pep_open(domain, info, pb, pb, &b);
	to_a = pep_insert(&b, &a);
	(void)pep_insert(&a, &b);

	/* fi_cancel: FI_ECANCELED for the receive's context */
	SHM_CHECK(fi_trecv(a.ep, rbuf, sizeof(rbuf), NULL, FI_ADDR_UNSPEC, 9,
			   0, &cctx) == 0);
	SHM_CHECK(fi_cancel(&a.ep->fid, &cctx) == 0);
	drive_until(pa, &oa.nerr, 1);
	SHM_CHECK(oa.err[0].err == FI_ECANCELED);
	SHM_CHECK(oa.err[0].op_context == &cctx);
	SHM_CHECK(oa.err[0].flags & FI_RECV);

	/* 16 bytes into 4: FI_ETRUNC, with what was cut off in olen */
	shm_test_fill(msg, sizeof(msg), 2);
	SHM_CHECK(fi_trecv(a.ep, rbuf, 4, NULL, FI_ADDR_UNSPEC, 5, 0,
			   &tctx) == 0);
	SHM_CHECK(fi_tsend(b.ep, msg, sizeof(msg), NULL, to_a, 5,
			   &sctx) == 0);
	drive_until(pa, &oa.nerr, 2);
	SHM_CHECK(oa.err[1].err == FI_ETRUNC);
	SHM_CHECK(oa.err[1].op_context == &tctx);
	SHM_CHECK(oa.err[1].len == 4 && oa.err[1].olen == 12);
	SHM_CHECK(oa.err[1].tag == 5);
	SHM_CHECK(oa.nok == 0);
	/* the sender's side succeeded */
	drive_until(pb, &ob.nok, 1);
	SHM_CHECK(ob.ok[0].context == &sctx && ob.nerr == 0);

	pep_close(&a);
	pep_close(&b);
	SHM_CHECK(fi_close(&pa->fid) == 0);
	SHM_CHECK(fi_close(&pb->fid) == 0);
	top_close();
}

/* ---- cqbad ---- */

static void t_cqbad(void)
{
	struct fi_ops_cq_owner nowrite = owner_ops, noerr = owner_ops,
			       small = owner_ops;
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_TAGGED,
				   .flags = FI_PEER };
	struct fi_peer_cq_context pc = { .size = sizeof(pc) };
	struct fi_info *dinfo;
	struct fid_domain *d2;
	struct fid_cq *cq = NULL, *serial, *ok;
	struct owner o, bad;

	top_open(FI_THREAD_SAFE, FI_PROGRESS_MANUAL);
	owner_init(&o);
	owner_init(&bad);
	pc.cq = &o.peer;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, NULL) == -FI_EINVAL);
	pc.size = sizeof(pc) - 1;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	pc.size = sizeof(pc);
	pc.cq = NULL;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	pc.cq = &bad.peer;
	bad.peer.owner_ops = NULL;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	nowrite.write = NULL;
	bad.peer.owner_ops = &nowrite;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	noerr.writeerr = NULL;
	bad.peer.owner_ops = &noerr;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	small.size = offsetof(struct fi_ops_cq_owner, writeerr);
	bad.peer.owner_ops = &small;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	/* nothing is queued on a peer CQ: no wait object to offer */
	pc.cq = &o.peer;
	attr.wait_obj = FI_WAIT_FD;
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	attr.wait_obj = FI_WAIT_UNSPEC;
	attr.flags = FI_PEER | (1ULL << 62);
	SHM_CHECK(fi_cq_open(domain, &attr, &cq, &pc) == -FI_EINVAL);
	SHM_CHECK(cq == NULL);
	attr.flags = FI_PEER;	/* UNSPEC: none */
	SHM_CHECK(fi_cq_open(domain, &attr, &ok, &pc) == 0);
	SHM_CHECK(fi_close(&ok->fid) == 0);

	/* An engine CQ of an FI_THREAD_DOMAIN manual domain takes the
	 * serial queue: a peer from a domain whose writers are not
	 * serialized with it (this FI_THREAD_SAFE one) is refused; one
	 * of its own kind is let in and holds the owner CQ open. */
	dinfo = fi_dupinfo(info);
	SHM_CHECK(dinfo);
	dinfo->domain_attr->threading = FI_THREAD_DOMAIN;
	SHM_CHECK(fi_domain(fabric, dinfo, &d2, NULL) == 0);
	attr.flags = 0;
	attr.wait_obj = FI_WAIT_NONE;
	SHM_CHECK(fi_cq_open(d2, &attr, &serial, NULL) == 0);
	SHM_CHECK(peer_cq_open(domain, pl_cq_peer(serial),
			       FI_CQ_FORMAT_TAGGED, &cq) == -FI_EINVAL);
	SHM_CHECK(peer_cq_open(d2, pl_cq_peer(serial), FI_CQ_FORMAT_TAGGED,
			       &ok) == 0);
	SHM_CHECK(fi_close(&serial->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&ok->fid) == 0);
	SHM_CHECK(fi_close(&serial->fid) == 0);
	SHM_CHECK(fi_close(&d2->fid) == 0);
	fi_freeinfo(dinfo);
	top_close();
}

/* ---- domain, domainauto ---- */

static enum fi_threading env_threading(void)
{
	const char *th = getenv("SHM_TEST_THREADING");

	return th && !strcmp(th, "domain") ? FI_THREAD_DOMAIN :
					     FI_THREAD_SAFE;
}

/* One entry of cq with this context, read into e; every entry read on
 * the way is kept in seen[] (n of them). */
static void read_owner(struct fid_cq *cq, struct fi_cq_tagged_entry *seen,
		       int *n, int want)
{
	double end = now_s() + PEER_DEADLINE_S;
	ssize_t r;

	while (*n < want && now_s() < end) {
		r = fi_cq_read(cq, &seen[*n], 1);
		if (r == 1) {
			(*n)++;
			shm_test_progress();
			continue;
		}
		SHM_CHECK(r == -FI_EAGAIN);
	}
	SHM_CHECK(*n == want);
}

static const struct fi_cq_tagged_entry *
find_ctx(const struct fi_cq_tagged_entry *seen, int n, const void *ctx)
{
	for (int i = 0; i < n; i++)
		if (seen[i].op_context == ctx)
			return &seen[i];
	fprintf(stderr, "no completion for context %p\n", ctx);
	SHM_CHECK(0);
	return NULL;
}

static void domain_run(enum fi_progress progress, int rounds)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .wait_obj = FI_WAIT_NONE };
	struct fi_peer_domain_context pdc = { .size = sizeof(pdc) };
	struct fi_cq_tagged_entry seen[8];
	const struct fi_cq_tagged_entry *e;
	struct fid_domain *b;
	struct fid_cq *cq_a, *pb;
	struct pep ea, eb;
	fi_addr_t b_self, b_from_a;
	char m1[24], m2[3000], r1[64], r2[4096];
	char rc1, sc1, rc2, sc2;
	int n = 0;

	top_open(env_threading(), progress);
	pdc.domain = domain;
	SHM_CHECK(fi_domain2(fabric, info, &b, FI_PEER, &pdc) == 0);
	/* white box: one context for both */
	SHM_CHECK(pl_domain_progress(b) == pl_domain_progress(domain));
	SHM_CHECK(fi_cq_open(domain, &cqa, &cq_a, NULL) == 0);
	/* the engine's own owner ops: B's completions land in cq_a */
	SHM_CHECK(peer_cq_open(b, pl_cq_peer(cq_a), FI_CQ_FORMAT_TAGGED,
			       &pb) == 0);
	pep_open(domain, info, cq_a, cq_a, &ea);
	pep_open(b, info, pb, pb, &eb);
	b_self = pep_insert(&eb, &eb);
	(void)pep_insert(&eb, &ea);
	b_from_a = pep_insert(&ea, &eb);

	/* B to itself, then A to B (inline and bounce-buffer sizes) */
	for (int round = 0; round < rounds; round++) {
		n = 0;
		shm_test_fill(m1, sizeof(m1), 3 + round);
		shm_test_fill(m2, sizeof(m2), 4 + round);
		SHM_CHECK(fi_trecv(eb.ep, r1, sizeof(r1), NULL,
				   FI_ADDR_UNSPEC, 1, 0, &rc1) == 0);
		SHM_CHECK(fi_tsend(eb.ep, m1, sizeof(m1), NULL, b_self, 1,
				   &sc1) == 0);
		SHM_CHECK(fi_trecv(eb.ep, r2, sizeof(r2), NULL,
				   FI_ADDR_UNSPEC, 2, 0, &rc2) == 0);
		SHM_CHECK(fi_tsenddata(ea.ep, m2, sizeof(m2), NULL, 0xbeef,
				       b_from_a, 2, &sc2) == 0);
		/* auto: leave the passes to A's thread for a while, so that
		 * it, not this thread, runs B's endpoint */
		if (progress == FI_PROGRESS_AUTO)
			usleep(200);
		/* only A's CQ is read from here on */
		read_owner(cq_a, seen, &n, 4);
		e = find_ctx(seen, n, &rc1);
		SHM_CHECK((e->flags & (FI_RECV | FI_TAGGED)) ==
			  (FI_RECV | FI_TAGGED));
		SHM_CHECK(e->len == sizeof(m1) && e->tag == 1 &&
			  e->buf == r1);
		SHM_CHECK(shm_test_verify(r1, sizeof(m1), 3 + round) == 0);
		e = find_ctx(seen, n, &rc2);
		SHM_CHECK(e->len == sizeof(m2) && e->tag == 2 &&
			  e->data == 0xbeef);
		SHM_CHECK(e->flags & FI_REMOTE_CQ_DATA);
		SHM_CHECK(shm_test_verify(r2, sizeof(m2), 4 + round) == 0);
		SHM_CHECK(find_ctx(seen, n, &sc1)->flags & FI_SEND);
		SHM_CHECK(find_ctx(seen, n, &sc2)->flags & FI_SEND);
	}

	/* children first, the peer CQ before its owner CQ, B before A */
	SHM_CHECK(fi_close(&b->fid) == -FI_EBUSY);
	pep_close(&eb);
	pep_close(&ea);
	SHM_CHECK(fi_close(&cq_a->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&pb->fid) == 0);
	SHM_CHECK(fi_close(&cq_a->fid) == 0);
	SHM_CHECK(fi_close(&domain->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&b->fid) == 0);
	top_close();
}

static void t_domain(void)
{
	domain_run(FI_PROGRESS_MANUAL, 3);
}

static void t_domainauto(void)
{
	domain_run(FI_PROGRESS_AUTO, 200);
}

/* ---- domainbad ---- */

static void t_domainbad(void)
{
	struct fi_peer_domain_context pdc = { .size = sizeof(pdc) };
	struct fid_domain foreign, *b = NULL;
	struct fi_eq_attr eqa = { .flags = FI_PEER };
	struct fi_peer_eq_context pec = { .size = sizeof(pec) };
	struct fid_eq *eq = NULL;
	struct fi_info *other;
	struct owner o;
	struct fid_cq *pb;
	struct pep eb;
	fi_addr_t self;
	char m[8] = "peer", r[8];

	top_open(FI_THREAD_SAFE, FI_PROGRESS_MANUAL);
	pdc.domain = domain;
	SHM_CHECK(fi_domain2(fabric, info, &b, FI_RECV, &pdc) ==
		  -FI_EBADFLAGS);
	SHM_CHECK(fi_domain2(fabric, info, &b, FI_PEER, NULL) == -FI_EINVAL);
	pdc.size = sizeof(pdc) - 1;
	SHM_CHECK(fi_domain2(fabric, info, &b, FI_PEER, &pdc) == -FI_EINVAL);
	pdc.size = sizeof(pdc);
	pdc.domain = NULL;
	SHM_CHECK(fi_domain2(fabric, info, &b, FI_PEER, &pdc) == -FI_EINVAL);
	pdc.domain = domain;
	/* the owner's context is fixed: its threading and progress only */
	other = fi_dupinfo(info);
	SHM_CHECK(other);
	other->domain_attr->threading = FI_THREAD_DOMAIN;
	SHM_CHECK(fi_domain2(fabric, other, &b, FI_PEER, &pdc) == -FI_EINVAL);
	other->domain_attr->threading = FI_THREAD_UNSPEC;
	other->domain_attr->data_progress = FI_PROGRESS_AUTO;
	SHM_CHECK(fi_domain2(fabric, other, &b, FI_PEER, &pdc) == -FI_EINVAL);
	SHM_CHECK(b == NULL);
	/* UNSPEC: the owner's */
	other->domain_attr->data_progress = FI_PROGRESS_UNSPEC;
	SHM_CHECK(fi_domain2(fabric, other, &b, FI_PEER, &pdc) == 0);
	SHM_CHECK(pl_domain_progress(b) == pl_domain_progress(domain));
	SHM_CHECK(pl_domain_threading(b) == FI_THREAD_SAFE);
	SHM_CHECK(fi_close(&b->fid) == 0);
	fi_freeinfo(other);

	/* peer EQs are not offered: refused, not opened as plain ones */
	SHM_CHECK(fi_eq_open(fabric, &eqa, &eq, &pec) == -FI_EINVAL);
	SHM_CHECK(eq == NULL);

	/* flags 0: fi_domain */
	SHM_CHECK(fi_domain2(fabric, info, &b, 0, NULL) == 0);
	SHM_CHECK(pl_domain_progress(b) &&
		  pl_domain_progress(b) != pl_domain_progress(domain));
	SHM_CHECK(fi_close(&b->fid) == 0);

	/* A foreign owner lends nothing: B keeps its own context, and the
	 * owner drives it through the peer CQ's zero-count read. */
	memset(&foreign, 0, sizeof(foreign));
	foreign.fid.fclass = FI_CLASS_DOMAIN;
	pdc.domain = &foreign;
	SHM_CHECK(fi_domain2(fabric, info, &b, FI_PEER, &pdc) == 0);
	SHM_CHECK(pl_domain_progress(b) &&
		  pl_domain_progress(b) != pl_domain_progress(domain));
	owner_init(&o);
	SHM_CHECK(peer_cq_open(b, &o.peer, FI_CQ_FORMAT_TAGGED, &pb) == 0);
	pep_open(b, info, pb, pb, &eb);
	self = pep_insert(&eb, &eb);
	SHM_CHECK(fi_recv(eb.ep, r, sizeof(r), NULL, FI_ADDR_UNSPEC, r) == 0);
	SHM_CHECK(fi_send(eb.ep, m, sizeof(m), NULL, self, m) == 0);
	drive_until(pb, &o.nok, 2);
	SHM_CHECK(!strcmp(r, "peer"));
	pep_close(&eb);
	SHM_CHECK(fi_close(&pb->fid) == 0);
	SHM_CHECK(fi_close(&b->fid) == 0);
	top_close();
}

/* ---- layered ---- */

/* A tcp or ofi_rxm domain joins the shm owner, and flags 0 opens a
 * plain one. */
static void layered_one(const char *prov, enum fi_ep_type type,
			const char *service)
{
	struct fi_peer_domain_context pdc = { .size = sizeof(pdc),
					      .domain = domain };
	struct fi_info *hints = fi_allocinfo(), *li = NULL;
	struct fid_fabric *lf;
	struct fid_domain *ld;

	SHM_CHECK(hints);
	hints->ep_attr->type = type;
	hints->caps = FI_MSG;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY |
				      FI_MR_ALLOCATED;
	hints->fabric_attr->prov_name = strdup(prov);
	SHM_CHECK(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", service,
			     FI_SOURCE, hints, &li) == 0);
	fi_freeinfo(hints);
	/* leave both to the owner */
	li->domain_attr->threading = FI_THREAD_UNSPEC;
	li->domain_attr->data_progress = FI_PROGRESS_UNSPEC;
	SHM_CHECK(fi_fabric(li->fabric_attr, &lf, NULL) == 0);
	SHM_CHECK(fi_domain2(lf, li, &ld, FI_PEER, &pdc) == 0);
	SHM_CHECK(pl_domain_progress(ld) == pl_domain_progress(domain));
	SHM_CHECK(fi_close(&domain->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&ld->fid) == 0);
	SHM_CHECK(fi_domain2(lf, li, &ld, 0, NULL) == 0);
	SHM_CHECK(pl_domain_progress(ld) != pl_domain_progress(domain));
	SHM_CHECK(fi_close(&ld->fid) == 0);
	SHM_CHECK(fi_close(&lf->fid) == 0);
	fi_freeinfo(li);
}

static void t_layered(void)
{
	top_open(FI_THREAD_SAFE, FI_PROGRESS_MANUAL);
	layered_one("tcp", FI_EP_MSG, "0");
	layered_one("tcp;ofi_rxm", FI_EP_RDM, NULL);
	top_close();
}

static const struct {
	const char *name;
	void (*fn)(void);
} scenarios[] = {
	{ "cq", t_cq }, { "cqerr", t_cqerr }, { "cqbad", t_cqbad },
	{ "domain", t_domain }, { "domainauto", t_domainauto },
	{ "domainbad", t_domainbad }, { "layered", t_layered },
};

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (strcmp(s, scenarios[i].name))
			continue;
		shm_test_watchdog_start();
		scenarios[i].fn();
		return 0;
	}
	fprintf(stderr, "usage: %s <scenario>\n", argv[0]);
	return 2;
}
