/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared contexts on shm (fi_srx_context, fi_stx_context; fi_endpoint(3)
 * "SHARED CONTEXTS"), one process, endpoints of one domain. One scenario
 * per run, named by argv[1]:
 *
 *   srx        two endpoints share a receive context: receives posted
 *              once are taken in posting order by whichever endpoint's
 *              message comes first; each completion goes to the CQ of
 *              the endpoint the message arrived at, with the sender's
 *              address (FI_SOURCE) and its data
 *   srxunexp   messages that arrived at either endpoint before any
 *              receive wait in the context's one queue: a later post
 *              takes the oldest (untagged), or the one its tag names
 *              (tagged), and PEEK finds them
 *   srxclose   an endpoint's close drops its queued messages from the
 *              shared queue (the other's stay and still match); fi_close
 *              of the context is -FI_EBUSY while an endpoint is bound;
 *              a second context, a bind after fi_enable and a post with
 *              no enabled endpoint are refused; fi_cancel on the context
 *              reports FI_ECANCELED
 *   stx        an endpoint bound to a shared transmit context sends and
 *              completes to its own CQ; the context cannot close under
 *              it; fi_getinfo grants FI_SHARED_CONTEXT when asked
 */
#include <stdlib.h>
#include <unistd.h>

#include "shm_conf_test.h"

/* An endpoint of the test's domain on the shared AV, its own CQs, bound
 * to srx and stx where given. */
static void sep_open(struct cep *e, struct fid_av *av, struct fid_ep *srx,
		     struct fid_stx *stx, int enable)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .wait_obj = FI_WAIT_NONE, .size = 256 };

	memset(e, 0, sizeof(*e));
	SHM_CHECK(fi_cq_open(C.domain, &cqa, &e->rcq, NULL) == 0);
	SHM_CHECK(fi_cq_open(C.domain, &cqa, &e->tcq, NULL) == 0);
	SHM_CHECK(fi_endpoint(C.domain, C.info, &e->ep, NULL) == 0);
	SHM_CHECK(fi_ep_bind(e->ep, &av->fid, 0) == 0);
	SHM_CHECK(fi_ep_bind(e->ep, &e->rcq->fid, FI_RECV) == 0);
	SHM_CHECK(fi_ep_bind(e->ep, &e->tcq->fid, FI_TRANSMIT) == 0);
	if (srx)
		SHM_CHECK(fi_ep_bind(e->ep, &srx->fid, 0) == 0);
	if (stx)
		SHM_CHECK(fi_ep_bind(e->ep, &stx->fid, 0) == 0);
	if (!enable)
		return;
	SHM_CHECK(fi_enable(e->ep) == 0);
	e->namelen = sizeof(e->name);
	SHM_CHECK(fi_getname(&e->ep->fid, e->name, &e->namelen) == 0);
}

/* Close what sep_open opened (the AV is the test's). */
static void sep_close(struct cep *e)
{
	e->av = NULL;
	cep_close(e);
}

static fi_addr_t av_add(struct fid_av *av, const struct cep *who)
{
	fi_addr_t a = FI_ADDR_NOTAVAIL;

	SHM_CHECK(fi_av_insert(av, who->name, 1, &a, 0, NULL) == 1);
	return a;
}

/* The shared receive context of the test, and its AV. */
struct rig {
	struct fid_av *av;
	struct fid_ep *srx;
	struct cep r1, r2, s;	/* two receivers on srx, one sender */
	fi_addr_t r1_at_s, r2_at_s, s_at_r;
};

static void rig_open(struct rig *g)
{
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_rx_attr rxa = { .size = 64 };
	static const struct cep_opts none;

	memset(g, 0, sizeof(*g));
	SHM_CHECK(fi_av_open(C.domain, &ava, &g->av, NULL) == 0);
	SHM_CHECK(fi_srx_context(C.domain, &rxa, &g->srx, NULL) == 0);
	SHM_CHECK(g->srx->fid.fclass == FI_CLASS_SRX_CTX);
	sep_open(&g->r1, g->av, g->srx, NULL, 1);
	sep_open(&g->r2, g->av, g->srx, NULL, 1);
	SHM_CHECK(cep_open(&C, &g->s, &none) == 0);
	g->r1_at_s = cep_insert(&g->s, &g->r1);
	g->r2_at_s = cep_insert(&g->s, &g->r2);
	g->s_at_r = av_add(g->av, &g->s);
}

static void rig_close(struct rig *g)
{
	cep_close(&g->s);
	if (g->r1.ep)
		sep_close(&g->r1);
	if (g->r2.ep)
		sep_close(&g->r2);
	SHM_CHECK(fi_close(&g->srx->fid) == 0);
	SHM_CHECK(fi_close(&g->av->fid) == 0);
}

/* ---- srx ---- */

static void t_srx(void)
{
	struct fi_cq_tagged_entry e;
	char b1[16] = "", b2[16] = "";
	int c1, c2;
	fi_addr_t from;
	struct rig g;

	rig_open(&g);
	SHM_CHECK(fi_recv(g.srx, b1, sizeof(b1), NULL, FI_ADDR_UNSPEC, &c1) ==
		  0);
	SHM_CHECK(fi_recv(g.srx, b2, sizeof(b2), NULL, FI_ADDR_UNSPEC, &c2) ==
		  0);
	/* the first message, to r2, takes the first receive */
	SHM_CHECK(CONF_RETRY(g.s.tcq, fi_senddata(g.s.ep, "to-r2", 6, NULL,
						  42, g.r2_at_s, NULL)) == 0);
	SHM_CHECK(conf_read(g.r2.rcq, &e, 1, NULL, &from) == 1);
	SHM_CHECK(e.op_context == &c1 && e.len == 6 && e.data == 42);
	SHM_CHECK((e.flags & (FI_RECV | FI_MSG | FI_REMOTE_CQ_DATA)) ==
		  (FI_RECV | FI_MSG | FI_REMOTE_CQ_DATA));
	SHM_CHECK(from == g.s_at_r);
	SHM_CHECK(!strcmp(b1, "to-r2"));
	conf_none(g.r1.rcq);
	SHM_CHECK(fi_send(g.s.ep, "to-r1", 6, NULL, g.r1_at_s, NULL) == 0);
	SHM_CHECK(conf_read(g.r1.rcq, &e, 1, NULL, &from) == 1);
	SHM_CHECK(e.op_context == &c2 && from == g.s_at_r);
	SHM_CHECK(!strcmp(b2, "to-r1"));
	conf_none(g.r2.rcq);
	conf_wait(g.s.tcq, &e);
	conf_wait(g.s.tcq, &e);
	/* nothing posted any more: both receivers' data stays queued */
	SHM_CHECK(g.srx->ops->rx_size_left(g.srx) == 64);
	rig_close(&g);
}

/* ---- srxunexp ---- */

static void t_srxunexp(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_msg_tagged tm;
	struct iovec iov;
	char b[16];
	int c1, c2, c3, c4;
	struct rig g;

	rig_open(&g);
	SHM_CHECK(fi_send(g.s.ep, "m-r1", 5, NULL, g.r1_at_s, NULL) == 0);
	conf_wait(g.s.tcq, &e);
	SHM_CHECK(fi_send(g.s.ep, "m-r2", 5, NULL, g.r2_at_s, NULL) == 0);
	conf_wait(g.s.tcq, &e);
	SHM_CHECK(fi_tsend(g.s.ep, "t7-r1", 6, NULL, g.r1_at_s, 7, NULL) ==
		  0);
	conf_wait(g.s.tcq, &e);
	SHM_CHECK(fi_tsend(g.s.ep, "t9-r2", 6, NULL, g.r2_at_s, 9, NULL) ==
		  0);
	conf_wait(g.s.tcq, &e);
	/* every message is queued unexpected by now (both endpoints were
	 * progressed by the reads above) */
	conf_none(g.r1.rcq);
	conf_none(g.r2.rcq);

	/* a tagged peek finds r2's tag-9 message, and reports it at r2 */
	iov = (struct iovec){ .iov_base = b, .iov_len = sizeof(b) };
	tm = (struct fi_msg_tagged){ .msg_iov = &iov, .iov_count = 1,
		.addr = FI_ADDR_UNSPEC, .tag = 9, .context = &c3 };
	SHM_CHECK(fi_trecvmsg(g.srx, &tm, FI_PEEK) == 0);
	conf_wait(g.r2.rcq, &e);
	SHM_CHECK(e.op_context == &c3 && e.tag == 9 && e.len == 6);
	/* tagged: the tag names the message, r2's, whatever the order */
	memset(b, 0, sizeof(b));
	SHM_CHECK(fi_trecv(g.srx, b, sizeof(b), NULL, FI_ADDR_UNSPEC, 9, 0,
			   &c3) == 0);
	conf_wait(g.r2.rcq, &e);
	SHM_CHECK(e.op_context == &c3 && e.tag == 9 && !strcmp(b, "t9-r2"));
	/* untagged: the oldest, r1's, then r2's */
	SHM_CHECK(fi_recv(g.srx, b, sizeof(b), NULL, FI_ADDR_UNSPEC, &c1) ==
		  0);
	conf_wait(g.r1.rcq, &e);
	SHM_CHECK(e.op_context == &c1 && !strcmp(b, "m-r1"));
	SHM_CHECK(fi_recv(g.srx, b, sizeof(b), NULL, FI_ADDR_UNSPEC, &c2) ==
		  0);
	conf_wait(g.r2.rcq, &e);
	SHM_CHECK(e.op_context == &c2 && !strcmp(b, "m-r2"));
	/* a directed tagged receive of the sender's address */
	SHM_CHECK(fi_trecv(g.srx, b, sizeof(b), NULL, g.s_at_r, 7, 0, &c4) ==
		  0);
	conf_wait(g.r1.rcq, &e);
	SHM_CHECK(e.op_context == &c4 && !strcmp(b, "t7-r1"));
	conf_none(g.r1.rcq);
	conf_none(g.r2.rcq);
	rig_close(&g);
}

/* ---- srxclose ---- */

static void t_srxclose(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err = { 0 };
	struct fid_ep *srx2;
	struct cep late;
	char b[16];
	int c1, c2;
	struct rig g;

	rig_open(&g);
	/* a second context on a bound endpoint, a bind after enable */
	SHM_CHECK(fi_srx_context(C.domain, NULL, &srx2, NULL) == 0);
	SHM_CHECK(fi_ep_bind(g.r1.ep, &srx2->fid, 0) == -FI_EOPBADSTATE);
	sep_open(&late, g.av, g.srx, NULL, 0);
	SHM_CHECK(fi_ep_bind(late.ep, &srx2->fid, 0) == -FI_EINVAL);
	sep_close(&late);
	/* no endpoint bound and enabled: nothing could take a message */
	SHM_CHECK(fi_recv(srx2, b, sizeof(b), NULL, FI_ADDR_UNSPEC, NULL) ==
		  -FI_EOPBADSTATE);
	SHM_CHECK(fi_close(&srx2->fid) == 0);

	/* r1 and r2 each hold one unexpected message */
	SHM_CHECK(fi_send(g.s.ep, "gone", 5, NULL, g.r1_at_s, NULL) == 0);
	conf_wait(g.s.tcq, &e);
	SHM_CHECK(fi_send(g.s.ep, "kept", 5, NULL, g.r2_at_s, NULL) == 0);
	conf_wait(g.s.tcq, &e);
	conf_none(g.r2.rcq);
	SHM_CHECK(fi_close(&g.srx->fid) == -FI_EBUSY);
	sep_close(&g.r1);
	SHM_CHECK(fi_close(&g.srx->fid) == -FI_EBUSY);
	/* r1's message left with it: the post takes r2's */
	memset(b, 0, sizeof(b));
	SHM_CHECK(fi_recv(g.srx, b, sizeof(b), NULL, FI_ADDR_UNSPEC, &c1) ==
		  0);
	conf_wait(g.r2.rcq, &e);
	SHM_CHECK(e.op_context == &c1 && !strcmp(b, "kept"));
	/* a cancelled receive completes in error, to the poster's CQ */
	SHM_CHECK(fi_recv(g.srx, b, sizeof(b), NULL, FI_ADDR_UNSPEC, &c2) ==
		  0);
	SHM_CHECK(g.srx->ops->rx_size_left(g.srx) == 63);
	SHM_CHECK(fi_cancel(&g.srx->fid, &c2) == 0);
	SHM_CHECK(conf_read(g.r2.rcq, &e, 1, &err, NULL) == -FI_EAVAIL);
	SHM_CHECK(err.err == FI_ECANCELED && err.op_context == &c2);
	SHM_CHECK(fi_cancel(&g.srx->fid, &c2) == -FI_ENOENT);
	rig_close(&g);
}

/* ---- stx ---- */

static void t_stx(void)
{
	struct fi_info *hints, *info;
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cq_tagged_entry e;
	struct fi_tx_attr txa = { .size = 0 };
	struct fid_stx *stx;
	struct fid_av *av;
	struct cep a, b;
	char buf[8] = "";
	int ctx;

	hints = fi_allocinfo();
	SHM_CHECK(hints != NULL);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG;
	hints->ep_attr->tx_ctx_cnt = FI_SHARED_CONTEXT;
	hints->ep_attr->rx_ctx_cnt = FI_SHARED_CONTEXT;
	hints->fabric_attr->prov_name = strdup("shm");
	SHM_CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints,
			     &info) == 0);
	SHM_CHECK(info->ep_attr->tx_ctx_cnt == FI_SHARED_CONTEXT);
	SHM_CHECK(info->ep_attr->rx_ctx_cnt == FI_SHARED_CONTEXT);
	SHM_CHECK(info->domain_attr->max_ep_stx_ctx >= 1);
	SHM_CHECK(info->domain_attr->max_ep_srx_ctx >= 1);
	fi_freeinfo(info);
	fi_freeinfo(hints);

	SHM_CHECK(fi_av_open(C.domain, &ava, &av, NULL) == 0);
	SHM_CHECK(fi_stx_context(C.domain, &txa, &stx, NULL) == 0);
	SHM_CHECK(stx->fid.fclass == FI_CLASS_STX_CTX && txa.size > 0);
	sep_open(&a, av, NULL, stx, 1);
	sep_open(&b, av, NULL, stx, 1);
	SHM_CHECK(fi_recv(b.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	(void)av_add(av, &a);	/* a known sender (FI_SOURCE_ERR) */
	SHM_CHECK(fi_send(a.ep, "via", 4, NULL, av_add(av, &b), &ctx) == 0);
	conf_wait(b.rcq, &e);
	SHM_CHECK(!strcmp(buf, "via"));
	conf_wait(a.tcq, &e);
	SHM_CHECK(e.op_context == &ctx);
	conf_none(b.tcq);
	SHM_CHECK(fi_close(&stx->fid) == -FI_EBUSY);
	sep_close(&a);
	SHM_CHECK(fi_close(&stx->fid) == -FI_EBUSY);
	sep_close(&b);
	SHM_CHECK(fi_close(&stx->fid) == 0);
	SHM_CHECK(fi_close(&av->fid) == 0);
}

static const struct conf_scenario scenarios[] = {
	{ "srx", t_srx }, { "srxunexp", t_srxunexp },
	{ "srxclose", t_srxclose }, { "stx", t_stx },
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, scenarios,
			 sizeof(scenarios) / sizeof(scenarios[0]));
}
