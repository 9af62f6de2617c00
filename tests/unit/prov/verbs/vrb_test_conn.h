/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One connection of the verbs tests (vrb_test.h): an active endpoint
 * with its own EQ and CQ, connected to the listener of struct vt, and
 * the endpoint that accepted it with its own CQ (bound, before
 * fi_enable, to a shared receive context when one is given).
 */
#ifndef PROPEL_TEST_VRB_TEST_CONN_H
#define PROPEL_TEST_VRB_TEST_CONN_H

#include "vrb_test.h"

struct vt_conn {
	struct fid_ep *cli, *srv;
	struct fid_eq *ceq;
	struct fid_cq *ccq, *scq;
};

static void vt_connect(struct vt *t, struct vt_conn *c, struct fid_ep *srx)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_DATA, .size = 128 };
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_UNSPEC };
	char buf[256], addr[64];
	struct fi_eq_cm_entry *cm = (void *)buf;
	struct fi_eq_err_entry err;
	size_t alen = sizeof(addr);
	uint32_t ev;

	memset(c, 0, sizeof(*c));
	CHECK(fi_getname(&t->pep->fid, addr, &alen));
	CHECK(fi_eq_open(t->fabric, &ea, &c->ceq, NULL));
	CHECK(fi_cq_open(t->domain, &ca, &c->ccq, NULL));
	CHECK(fi_cq_open(t->domain, &ca, &c->scq, NULL));
	if (!t->drive)
		t->drive = c->ccq;
	CHECK(fi_endpoint(t->domain, t->info, &c->cli, NULL));
	CHECK(fi_ep_bind(c->cli, &c->ceq->fid, 0));
	CHECK(fi_ep_bind(c->cli, &c->ccq->fid, FI_TRANSMIT | FI_RECV));
	CHECK(fi_enable(c->cli));
	CHECK(fi_connect(c->cli, addr, NULL, 0));
	EXPECT(vt_eq_wait(t, t->eq, &ev, buf, sizeof(buf), &err) > 0 &&
	       ev == FI_CONNREQ);
	CHECK(fi_endpoint(t->domain, cm->info, &c->srv, NULL));
	fi_freeinfo(cm->info);
	CHECK(fi_ep_bind(c->srv, &t->eq->fid, 0));
	CHECK(fi_ep_bind(c->srv, &c->scq->fid, FI_TRANSMIT | FI_RECV));
	if (srx)
		CHECK(fi_ep_bind(c->srv, &srx->fid, 0));
	CHECK(fi_enable(c->srv));
	CHECK(fi_accept(c->srv, NULL, 0));
	EXPECT(vt_eq_wait(t, c->ceq, &ev, buf, sizeof(buf), &err) > 0 &&
	       ev == FI_CONNECTED);
	EXPECT(vt_eq_wait(t, t->eq, &ev, buf, sizeof(buf), &err) > 0 &&
	       ev == FI_CONNECTED && cm->fid == &c->srv->fid);
}

static void vt_conn_close(struct vt *t, struct vt_conn *c)
{
	if (t->drive == c->ccq)
		t->drive = NULL;
	if (c->cli)
		CHECK(fi_close(&c->cli->fid));
	if (c->srv)
		CHECK(fi_close(&c->srv->fid));
	CHECK(fi_close(&c->ccq->fid));
	CHECK(fi_close(&c->scq->fid));
	CHECK(fi_close(&c->ceq->fid));
	memset(c, 0, sizeof(*c));
}

#endif
