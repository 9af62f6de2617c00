/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the shm conformance tests (test_shm_ep_conf*.c): several
 * endpoints of one shm domain in one process, each with its own CQs,
 * counters and AV, opened with the options a scenario needs. Reading any
 * CQ or counter of the domain drives every endpoint (manual progress),
 * so one thread can play sender and receiver. Public API only.
 */
#ifndef PROPEL_TESTS_SHM_CONF_TEST_H
#define PROPEL_TESTS_SHM_CONF_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "shm_test.h"

#define CONF_CAPS (FI_MSG | FI_TAGGED | FI_SOURCE | FI_SOURCE_ERR | \
		   FI_DIRECTED_RECV | FI_MULTI_RECV)
/* Progress passes a test makes before it concludes "nothing came". */
#define CONF_IDLE_POLLS 2000

struct conf {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
};

/* How an endpoint is opened. */
struct cep_opts {
	enum fi_cq_format format;	/* 0: FI_CQ_FORMAT_TAGGED */
	enum fi_wait_obj wait_obj;	/* 0: FI_WAIT_NONE */
	uint64_t tx_bind, rx_bind;	/* | FI_SELECTIVE_COMPLETION ... */
	int counters;			/* bind send and recv counters */
	enum fi_wait_obj cntr_wait;	/* their wait object; 0: NONE */
	int no_enable;
};

struct cep {
	struct fid_ep *ep;
	struct fid_cq *rcq, *tcq;
	struct fid_cntr *scntr, *rcntr;
	struct fid_av *av;
	char name[128];
	size_t namelen;
};

static inline int conf_open(struct conf *c, uint64_t caps)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = shm_test_getinfo(caps, FI_THREAD_SAFE, FI_PROGRESS_UNSPEC,
			       &c->info);
	if (ret)
		return ret;
	if ((ret = fi_fabric(c->info->fabric_attr, &c->fabric, NULL)))
		return ret;
	return fi_domain(c->fabric, c->info, &c->domain, NULL);
}

static inline void conf_close(struct conf *c)
{
	if (c->domain)
		SHM_CHECK(fi_close(&c->domain->fid) == 0);
	if (c->fabric)
		SHM_CHECK(fi_close(&c->fabric->fid) == 0);
	fi_freeinfo(c->info);
	memset(c, 0, sizeof(*c));
}

static inline int cep_open(struct conf *c, struct cep *e,
			   const struct cep_opts *o)
{
	struct fi_cq_attr cqa = {
		.format = o->format ? o->format : FI_CQ_FORMAT_TAGGED,
		.wait_obj = o->wait_obj ? o->wait_obj : FI_WAIT_NONE,
		.size = 1024,
	};
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
		.wait_obj = o->cntr_wait ? o->cntr_wait : FI_WAIT_NONE };
	int ret;

	memset(e, 0, sizeof(*e));
	if ((ret = fi_cq_open(c->domain, &cqa, &e->rcq, NULL)) ||
	    (ret = fi_cq_open(c->domain, &cqa, &e->tcq, NULL)) ||
	    (ret = fi_av_open(c->domain, &ava, &e->av, NULL)) ||
	    (ret = fi_endpoint(c->domain, c->info, &e->ep, NULL)) ||
	    (ret = fi_ep_bind(e->ep, &e->av->fid, 0)) ||
	    (ret = fi_ep_bind(e->ep, &e->rcq->fid, FI_RECV | o->rx_bind)) ||
	    (ret = fi_ep_bind(e->ep, &e->tcq->fid, FI_TRANSMIT | o->tx_bind)))
		return ret;
	if (o->counters &&
	    ((ret = fi_cntr_open(c->domain, &ca, &e->scntr, NULL)) ||
	     (ret = fi_cntr_open(c->domain, &ca, &e->rcntr, NULL)) ||
	     (ret = fi_ep_bind(e->ep, &e->scntr->fid, FI_SEND)) ||
	     (ret = fi_ep_bind(e->ep, &e->rcntr->fid, FI_RECV))))
		return ret;
	if (o->no_enable)
		return 0;
	if ((ret = fi_enable(e->ep)))
		return ret;
	e->namelen = sizeof(e->name);
	return fi_getname(&e->ep->fid, e->name, &e->namelen);
}

static inline void cep_close(struct cep *e)
{
	if (e->ep)
		SHM_CHECK(fi_close(&e->ep->fid) == 0);
	if (e->av)
		SHM_CHECK(fi_close(&e->av->fid) == 0);
	if (e->rcq)
		SHM_CHECK(fi_close(&e->rcq->fid) == 0);
	if (e->tcq)
		SHM_CHECK(fi_close(&e->tcq->fid) == 0);
	if (e->scntr)
		SHM_CHECK(fi_close(&e->scntr->fid) == 0);
	if (e->rcntr)
		SHM_CHECK(fi_close(&e->rcntr->fid) == 0);
	memset(e, 0, sizeof(*e));
}

/* Put `who`'s name into e's AV. */
static inline fi_addr_t cep_insert(struct cep *e, const struct cep *who)
{
	fi_addr_t a = FI_ADDR_NOTAVAIL;

	SHM_CHECK(fi_av_insert(e->av, who->name, 1, &a, 0, NULL) == 1);
	return a;
}

/*
 * Read one entry from cq into buf (an entry of the CQ's format): 1, 0
 * when none came within CONF_IDLE_POLLS passes (wait=0) or -FI_EAVAIL
 * with *err filled. wait=1: wait until something comes (the alarm
 * bounds it). src: fi_cq_readfrom's address when not NULL.
 */
static inline int conf_read(struct fid_cq *cq, void *buf, int wait,
			    struct fi_cq_err_entry *err, fi_addr_t *src)
{
	struct fi_cq_err_entry tmp;
	ssize_t n;

	for (long i = 0; wait || i < CONF_IDLE_POLLS; i++) {
		n = src ? fi_cq_readfrom(cq, buf, 1, src) :
			  fi_cq_read(cq, buf, 1);
		if (n == 1)
			return 1;
		if (n == -FI_EAVAIL) {
			memset(&tmp, 0, sizeof(tmp));
			SHM_CHECK(fi_cq_readerr(cq, err ? err : &tmp, 0) == 1);
			return -FI_EAVAIL;
		}
		SHM_CHECK(n == -FI_EAGAIN);
	}
	return 0;
}

/* Wait for one successful tagged-format entry. */
static inline void conf_wait(struct fid_cq *cq, struct fi_cq_tagged_entry *e)
{
	/* zeroed: err_data_size 0 asks for no error data to be copied */
	struct fi_cq_err_entry err = { 0 };
	int r = conf_read(cq, e, 1, &err, NULL);

	if (r != 1)
		fprintf(stderr, "error completion: %d (%s) ctx %p\n", err.err,
			fi_strerror(err.err), err.op_context);
	SHM_CHECK(r == 1);
}

/* Nothing arrives on cq within CONF_IDLE_POLLS passes. */
static inline void conf_none(struct fid_cq *cq)
{
	struct fi_cq_tagged_entry e;

	SHM_CHECK(conf_read(cq, &e, 0, NULL, NULL) == 0);
}

/* Send-side retry on -FI_EAGAIN: a zero-count read of cq drives
 * progress without taking any entry (engine/cq/pl_cq_read.c). */
#define CONF_RETRY(cq, call)                                                 \
	({                                                                   \
		ssize_t r_;                                                  \
		while ((r_ = (call)) == -FI_EAGAIN)                          \
			(void)fi_cq_read((cq), NULL, 0);                     \
		r_;                                                          \
	})

/* The domain of the running scenario. */
static struct conf C;

/* Two endpoints that know each other (FI_SOURCE_ERR would flag a
 * sender missing from the receiver's AV). */
static inline void open2(struct cep *a, struct cep *b,
			 const struct cep_opts *oa, const struct cep_opts *ob,
			 fi_addr_t *a_to_b, fi_addr_t *b_to_a)
{
	static const struct cep_opts none;
	fi_addr_t ab, ba;

	SHM_CHECK(cep_open(&C, a, oa ? oa : &none) == 0);
	SHM_CHECK(cep_open(&C, b, ob ? ob : &none) == 0);
	ab = cep_insert(a, b);
	ba = cep_insert(b, a);
	if (a_to_b)
		*a_to_b = ab;
	if (b_to_a)
		*b_to_a = ba;
}

struct conf_scenario {
	const char *name;
	void (*fn)(void);
};

/* Run the scenario argv[1] names, under the test alarm. */
static inline int conf_main(int argc, char **argv,
			    const struct conf_scenario *sc, size_t n)
{
	const char *s = argc > 1 ? argv[1] : "";

	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, sc[i].name))
			continue;
		shm_test_watchdog_start();
		SHM_CHECK(conf_open(&C, CONF_CAPS) == 0);
		sc[i].fn();
		conf_close(&C);
		return 0;
	}
	fprintf(stderr, "usage: %s <scenario>\n", argv[0]);
	return 2;
}

#endif /* PROPEL_TESTS_SHM_CONF_TEST_H */
