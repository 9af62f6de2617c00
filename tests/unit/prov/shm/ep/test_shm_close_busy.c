/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_close of a parent object while a child still uses it answers
 * -FI_EBUSY and leaves the parent usable; once the child is closed the
 * parent closes (fi_fabric(3), fi_domain(3), fi_eq(3), fi_cq(3),
 * fi_cntr(3), fi_av(3)). One process, public API, suite unit. One
 * scenario per run, named by argv[1]:
 *
 *   fabric   a fabric with an open domain, EQ or wait set
 *   domain   a domain with an open CQ, counter, AV, endpoint or MR
 *   eq       an EQ bound to a domain, to an AV
 *   waitset  a wait set a CQ, an EQ or a counter waits on
 *   ep       an AV, CQ or counter bound to an endpoint
 *   mr       a counter bound to an MR
 */
#include <stdlib.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

#include "shm_test.h"

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;

static void open_fabric(void)
{
	SHM_CHECK(shm_test_getinfo(FI_MSG | FI_RMA | FI_RMA_EVENT,
				   FI_THREAD_SAFE, FI_PROGRESS_UNSPEC,
				   &info) == 0);
	SHM_CHECK(fi_fabric(info->fabric_attr, &fabric, NULL) == 0);
}

static void open_domain(void)
{
	open_fabric();
	SHM_CHECK(fi_domain(fabric, info, &domain, NULL) == 0);
}

static void close_all(void)
{
	if (domain)
		SHM_CHECK(fi_close(&domain->fid) == 0);
	SHM_CHECK(fi_close(&fabric->fid) == 0);
	fi_freeinfo(info);
}

/* parent is busy while child is open, then closes once child is. */
static void busy_until(struct fid *parent, struct fid *child)
{
	int ret = fi_close(parent);

	if (ret != -FI_EBUSY)
		fprintf(stderr, "class %d closed (%d) with a child of class "
			"%d open\n", (int)parent->fclass, ret,
			(int)child->fclass);
	SHM_CHECK(ret == -FI_EBUSY);
	SHM_CHECK(fi_close(child) == 0);
}

static void t_fabric(void)
{
	struct fi_eq_attr eqa = { .wait_obj = FI_WAIT_NONE };
	struct fi_wait_attr wa = { .wait_obj = FI_WAIT_FD };
	struct fid_wait *ws;
	struct fid_eq *eq;

	open_domain();
	busy_until(&fabric->fid, &domain->fid);
	domain = NULL;
	SHM_CHECK(fi_eq_open(fabric, &eqa, &eq, NULL) == 0);
	busy_until(&fabric->fid, &eq->fid);
	SHM_CHECK(fi_wait_open(fabric, &wa, &ws) == 0);
	busy_until(&fabric->fid, &ws->fid);
	/* the fabric still opens children after a refused close */
	SHM_CHECK(fi_domain(fabric, info, &domain, NULL) == 0);
	close_all();
}

static void t_domain(void)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	static char buf[64];
	struct fid_cntr *cntr;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;

	open_domain();
	SHM_CHECK(fi_cq_open(domain, &cqa, &cq, NULL) == 0);
	busy_until(&domain->fid, &cq->fid);
	SHM_CHECK(fi_cntr_open(domain, &ca, &cntr, NULL) == 0);
	busy_until(&domain->fid, &cntr->fid);
	SHM_CHECK(fi_av_open(domain, &ava, &av, NULL) == 0);
	busy_until(&domain->fid, &av->fid);
	SHM_CHECK(fi_endpoint(domain, info, &ep, NULL) == 0);
	busy_until(&domain->fid, &ep->fid);
	SHM_CHECK(fi_mr_reg(domain, buf, sizeof(buf), FI_REMOTE_WRITE, 0, 0,
			    0, &mr, NULL) == 0);
	busy_until(&domain->fid, &mr->fid);
	close_all();
}

static void t_eq(void)
{
	struct fi_eq_attr eqa = { .wait_obj = FI_WAIT_NONE };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fid_eq *eq;
	struct fid_av *av;
	int ret;

	open_domain();
	SHM_CHECK(fi_eq_open(fabric, &eqa, &eq, NULL) == 0);
	SHM_CHECK(fi_domain_bind(domain, &eq->fid, 0) == 0);
	busy_until(&eq->fid, &domain->fid);
	SHM_CHECK(fi_domain(fabric, info, &domain, NULL) == 0);
	SHM_CHECK(fi_av_open(domain, &ava, &av, NULL) == 0);
	ret = fi_av_bind(av, &eq->fid, 0);
	/* binding an EQ to an AV is optional (asynchronous inserts) */
	SHM_CHECK(ret == 0 || ret == -FI_ENOSYS || ret == -FI_EINVAL);
	if (ret == 0)
		busy_until(&eq->fid, &av->fid);
	else
		SHM_CHECK(fi_close(&av->fid) == 0);
	SHM_CHECK(fi_close(&eq->fid) == 0);
	close_all();
}

static void t_waitset(void)
{
	struct fi_wait_attr wa = { .wait_obj = FI_WAIT_FD };
	struct fid_wait *ws;
	struct fid_cntr *cntr;
	struct fid_eq *eq;
	struct fid_cq *cq;

	open_domain();
	SHM_CHECK(fi_wait_open(fabric, &wa, &ws) == 0);
	{
		struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT,
					  .wait_obj = FI_WAIT_SET,
					  .wait_set = ws };
		struct fi_eq_attr eqa = { .wait_obj = FI_WAIT_SET,
					  .wait_set = ws };
		struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
					   .wait_obj = FI_WAIT_SET,
					   .wait_set = ws };

		SHM_CHECK(fi_cq_open(domain, &cqa, &cq, NULL) == 0);
		busy_until(&ws->fid, &cq->fid);
		SHM_CHECK(fi_eq_open(fabric, &eqa, &eq, NULL) == 0);
		busy_until(&ws->fid, &eq->fid);
		SHM_CHECK(fi_cntr_open(domain, &ca, &cntr, NULL) == 0);
		busy_until(&ws->fid, &cntr->fid);
	}
	SHM_CHECK(fi_close(&ws->fid) == 0);
	close_all();
}

static void t_ep(void)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *cntr;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;

	open_domain();
	SHM_CHECK(fi_cq_open(domain, &cqa, &cq, NULL) == 0);
	SHM_CHECK(fi_cntr_open(domain, &ca, &cntr, NULL) == 0);
	SHM_CHECK(fi_av_open(domain, &ava, &av, NULL) == 0);
	SHM_CHECK(fi_endpoint(domain, info, &ep, NULL) == 0);
	SHM_CHECK(fi_ep_bind(ep, &av->fid, 0) == 0);
	SHM_CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV) == 0);
	SHM_CHECK(fi_ep_bind(ep, &cntr->fid, FI_SEND) == 0);
	SHM_CHECK(fi_enable(ep) == 0);
	SHM_CHECK(fi_close(&av->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&cq->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&cntr->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&ep->fid) == 0);
	SHM_CHECK(fi_close(&av->fid) == 0);
	SHM_CHECK(fi_close(&cq->fid) == 0);
	SHM_CHECK(fi_close(&cntr->fid) == 0);
	close_all();
}

static void t_mr(void)
{
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	static char buf[64];
	struct fid_cntr *cntr;
	struct fid_mr *mr;

	open_domain();
	SHM_CHECK(fi_cntr_open(domain, &ca, &cntr, NULL) == 0);
	SHM_CHECK(fi_mr_reg(domain, buf, sizeof(buf), FI_REMOTE_WRITE, 0, 0,
			    0, &mr, NULL) == 0);
	SHM_CHECK(fi_mr_bind(mr, &cntr->fid, FI_REMOTE_WRITE) == 0);
	SHM_CHECK(fi_close(&cntr->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&mr->fid) == 0);
	SHM_CHECK(fi_close(&cntr->fid) == 0);
	close_all();
}

static const struct {
	const char *name;
	void (*fn)(void);
} scenarios[] = {
	{ "fabric", t_fabric },
	{ "domain", t_domain },
	{ "eq", t_eq },
	{ "waitset", t_waitset },
	{ "ep", t_ep },
	{ "mr", t_mr },
};

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]);
	     i++) {
		if (strcmp(s, scenarios[i].name))
			continue;
		shm_test_watchdog_start();
		scenarios[i].fn();
		return 0;
	}
	fprintf(stderr, "usage: %s <scenario>\n", argv[0]);
	return 2;
}
