/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers of the S3 tests (test_shm_auto.c, test_shm_peer_death.c): the
 * stack of shm_ep_test.h opened with a chosen data_progress, and sleeps.
 */
#ifndef PROPEL_TESTS_SHM_AUTO_TEST_H
#define PROPEL_TESTS_SHM_AUTO_TEST_H

#include <time.h>

#include "shm_ep_test.h"

#define CAPS (FI_MSG | FI_TAGGED)

/* Open the stack like tep_open, with data_progress `prog` and caps. */
static inline int auto_open_caps(struct tep *t, enum fi_progress prog,
				 uint64_t caps)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .wait_obj = FI_WAIT_NONE, .size = 4096 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_info *hints = fi_allocinfo();
	int ret;

	memset(t, 0, sizeof(*t));
	if (!hints)
		return -FI_ENOMEM;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = caps;
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY |
				      FI_MR_ALLOCATED;
	hints->domain_attr->data_progress = prog;
	hints->fabric_attr->prov_name = strdup("shm");
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &t->info);
	fi_freeinfo(hints);
	if (ret)
		return ret;
	if ((ret = fi_fabric(t->info->fabric_attr, &t->fabric, NULL)) ||
	    (ret = fi_domain(t->fabric, t->info, &t->domain, NULL)) ||
	    (ret = fi_cq_open(t->domain, &cqa, &t->cq, NULL)) ||
	    (ret = fi_cq_open(t->domain, &cqa, &t->txcq, NULL)) ||
	    (ret = fi_av_open(t->domain, &ava, &t->av, NULL)) ||
	    (ret = fi_endpoint(t->domain, t->info, &t->ep, NULL)) ||
	    (ret = fi_ep_bind(t->ep, &t->av->fid, 0)) ||
	    (ret = fi_ep_bind(t->ep, &t->cq->fid, FI_RECV)) ||
	    (ret = fi_ep_bind(t->ep, &t->txcq->fid, FI_TRANSMIT)) ||
	    (ret = fi_enable(t->ep)))
		return ret;
	t->namelen = sizeof(t->name);
	return fi_getname(&t->ep->fid, t->name, &t->namelen);
}

static inline int auto_open(struct tep *t, enum fi_progress prog)
{
	return auto_open_caps(t, prog, CAPS);
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* PROPEL_TESTS_SHM_AUTO_TEST_H */
