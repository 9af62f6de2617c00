/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Many rxm endpoints on one domain, in one process: endpoint 0 sends a
 * tagged message to each of the others and each answers, so every one
 * of them accepts a connection and makes one. All share one CQ with an
 * FI_WAIT_FD, and the test sleeps on its descriptor between reads
 * (fi_trywait, then poll), so the wake-ups go through every level of
 * nesting an application can build: socket, core domain, the rxm
 * domain's wait set, the rxm domain, the CQ.
 *
 * Why: with one epoll set per endpoint's core CQ, the kernel refused the
 * sockets of new connections past about 40 endpoints per domain (its
 * bound on paths per nesting depth; fi_accept -FI_EINVAL, the sender's
 * completion -FI_ENOTCONN). ENDPOINTS is well past that.
 */
#include <poll.h>
#include <string.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

#define ENDPOINTS	160
#define ANSWER		(1ull << 32)

static struct fid_fabric *fabric;
static struct fid_cq *cq;
static int cq_fd = -1;

/* One completion from the shared CQ, sleeping on its descriptor when
 * there is none. */
static void next(struct fi_cq_tagged_entry *e)
{
	struct fi_cq_err_entry err;
	struct pollfd p;
	struct fid *f = &cq->fid;
	ssize_t r;

	for (;;) {
		r = fi_cq_read(cq, e, 1);
		if (r == 1) {
			rxm_test_beat();
			return;
		}
		if (r == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			CHECK_EQ(fi_cq_readerr(cq, &err, 0), 1);
			fprintf(stderr, "%s: completion error %d (%s)\n", phase,
				err.err, fi_strerror(err.err));
			exit(1);
		}
		CHECK_EQ(r, -FI_EAGAIN);
		if (fi_trywait(fabric, &f, 1))
			continue;
		p = (struct pollfd){ .fd = cq_fd, .events = POLLIN };
		CHECK(poll(&p, 1, 1000) >= 0);
	}
}

/* The 2 (ENDPOINTS - 1) completions of a round, sends and receptions
 * in any order: each reception once, with its tag and its value (i *
 * 1000003, or ~i for the answers). */
static void collect(const uint64_t *in, const uint64_t *out, uint64_t tag,
		    bool answers)
{
	bool got[ENDPOINTS] = { false };
	struct fi_cq_tagged_entry e;
	int i, n;

	for (n = 0; n < 2 * (ENDPOINTS - 1); n++) {
		next(&e);
		i = (int)(e.flags & FI_RECV ?
			  (const uint64_t *)e.op_context - in :
			  (const uint64_t *)e.op_context - out);
		CHECK(i > 0 && i < ENDPOINTS);
		if (!(e.flags & FI_RECV))
			continue;
		CHECK(!got[i]);
		got[i] = true;
		CHECK_EQ(e.tag, tag | (uint64_t)i);
		CHECK_EQ(in[i], answers ? ~(uint64_t)i :
					  (uint64_t)i * 1000003u);
	}
}

int main(void)
{
	static uint64_t in[ENDPOINTS], out[ENDPOINTS];
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED,
				      .wait_obj = FI_WAIT_FD };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints = fi_allocinfo(), *info;
	static struct fid_ep *ep[ENDPOINTS];
	static fi_addr_t addr[ENDPOINTS];
	struct fid_domain *domain;
	struct fid_av *av;
	char name[64];
	size_t len;
	int i, n;
	struct fi_cq_tagged_entry e;

	phase = "open";
	rxm_test_start();
	CHECK(hints);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_TAGGED | FI_DIRECTED_RECV;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			    hints, &info), 0);
	fi_freeinfo(hints);
	CHECK_EQ(fi_fabric(info->fabric_attr, &fabric, NULL), 0);
	CHECK_EQ(fi_domain(fabric, info, &domain, NULL), 0);
	CHECK_EQ(fi_cq_open(domain, &cq_attr, &cq, NULL), 0);
	CHECK_EQ(fi_control(&cq->fid, FI_GETWAIT, &cq_fd), 0);
	CHECK_EQ(fi_av_open(domain, &av_attr, &av, NULL), 0);
	for (i = 0; i < ENDPOINTS; i++) {
		CHECK_EQ(fi_endpoint(domain, info, &ep[i], NULL), 0);
		CHECK_EQ(fi_ep_bind(ep[i], &cq->fid, FI_TRANSMIT | FI_RECV), 0);
		CHECK_EQ(fi_ep_bind(ep[i], &av->fid, 0), 0);
		CHECK_EQ(fi_enable(ep[i]), 0);
		len = sizeof(name);
		CHECK_EQ(fi_getname(&ep[i]->fid, name, &len), 0);
		CHECK_EQ(fi_av_insert(av, name, 1, &addr[i], 0, NULL), 1);
	}

	/* 0 -> i: each of the others accepts a connection */
	phase = "first messages";
	for (i = 1; i < ENDPOINTS; i++)
		CHECK_EQ(fi_trecv(ep[i], &in[i], sizeof(in[i]), NULL,
				  addr[0], (uint64_t)i, 0, &in[i]), 0);
	for (i = 1; i < ENDPOINTS; i++) {
		out[i] = (uint64_t)i * 1000003u;
		while ((n = (int)fi_tsend(ep[0], &out[i], sizeof(out[i]), NULL,
					  addr[i], (uint64_t)i, &out[i])) ==
		       -FI_EAGAIN)
			next(&e);
		CHECK_EQ(n, 0);
	}
	/* every send and every reception, in any order */
	collect(in, out, 0, false);

	/* i -> 0: each of the others makes a connection of its own (the
	 * one it accepted serves too; either way a second socket per pair
	 * or the first one answers) */
	phase = "answers";
	for (i = 1; i < ENDPOINTS; i++) {
		CHECK_EQ(fi_trecv(ep[0], &in[i], sizeof(in[i]), NULL,
				  addr[i], ANSWER | (uint64_t)i, 0, &in[i]), 0);
		out[i] = ~(uint64_t)i;
		CHECK_EQ(fi_tsend(ep[i], &out[i], sizeof(out[i]), NULL,
				  addr[0], ANSWER | (uint64_t)i, &out[i]), 0);
	}
	collect(in, out, ANSWER, true);

	phase = "close";
	for (i = 0; i < ENDPOINTS; i++)
		CHECK_EQ(fi_close(&ep[i]->fid), 0);
	CHECK_EQ(fi_close(&av->fid), 0);
	CHECK_EQ(fi_close(&cq->fid), 0);
	CHECK_EQ(fi_close(&domain->fid), 0);
	CHECK_EQ(fi_close(&fabric->fid), 0);
	fi_freeinfo(info);
	printf("%d endpoints on one domain: %d messages each way\n",
	       ENDPOINTS, ENDPOINTS - 1);
	return 0;
}
