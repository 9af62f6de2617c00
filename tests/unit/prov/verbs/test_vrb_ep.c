/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs provider end to end, through the public API only, on a real
 * verbs device (soft-RoCE in the rxe VM: tests/unit/prov/verbs/rxe_wrap.sh
 * runs this program inside it). One process holds both sides: a passive
 * endpoint, the endpoint it accepts and an active endpoint, all in one
 * domain, with manual progress. One scenario per run (argv[1]):
 *   cm       connect with CM data both ways, fi_getpeer, shutdown seen by
 *            both sides
 *   reject   fi_reject with data: the connect fails with FI_ECONNREFUSED
 *            and the data
 *   msg      send / recv of sizes up to 1 MiB, iov, senddata, inject;
 *            bad arguments answer -FI_E* codes
 *   rma      write, read, writedata (a receive carries the immediate),
 *            a wrong key completes in error with FI_EACCES
 *   trywait  FI_WAIT_FD CQ: fi_trywait, poll() on the fd, wakes up
 *   atomic   8-byte fetch-add, compare-and-swap, atomic read and
 *            non-fetching add; what the device cannot do is refused
 *   auto     FI_PROGRESS_AUTO: completions arrive while the application
 *            sleeps in fi_cq_sread (the progress thread sleeps on the
 *            completion channel and wakes)
 *   nodesc   an application without FI_MR_LOCAL: buffers without
 *            descriptors are registered by the provider (its cache), and
 *            memory unmapped and mapped again at the same address is
 *            sent from its new pages, never from a stale registration
 *   odp      FI_VERBS_USE_ODP=1: a 1 MiB remote-access region is not
 *            pinned (the kernel's VmPin stays) where the device pages
 *            on demand on RC, asked of rdma-core directly, and pinned
 *            (VmPin grows by 1 MiB) where it does not (rxe); RMA into
 *            it lands either way
 * Exit 0: pass; 77: no verbs device here (skipped, says why); 1: fail.
 */
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include <infiniband/verbs.h>

#include "vrb_test.h"

struct side {
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_eq *eq;
};

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_pep *pep;
static struct fid_eq *srv_eq;
static struct side cli, srv;
static enum fi_wait_obj cq_wait_obj = FI_WAIT_NONE;
static enum fi_progress data_progress = FI_PROGRESS_MANUAL;
static bool want_atomic;

/* Next EQ event; an error entry comes back as its negative err with
 * *errp filled. Fails on timeout. */
static int eq_wait(struct fid_eq *eq, uint32_t *event, void *buf, size_t len,
		   struct fi_eq_err_entry *errp)
{
	/* manual progress: a read of either CQ drives the domain */
	struct vt t = { .drive = cli.cq ? cli.cq : srv.cq };

	return vt_eq_wait(&t, eq, event, buf, len, errp);
}

static void cq_expect(struct fid_cq *cq, void *ctx, uint64_t flags)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	int ret = vt_cq_wait(cq, &e, &err);

	if (ret)
		vt_fail("completion in error: %s (prov %d)", fi_strerror(-ret),
		     err.prov_errno);
	EXPECT(e.op_context == ctx);
	if ((e.flags & flags) != flags)
		vt_fail("flags %#llx lack %#llx", (unsigned long long)e.flags,
		     (unsigned long long)flags);
}

static void open_side(struct side *s, struct fid_eq *eq)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_DATA, .size = 128,
				 .wait_obj = cq_wait_obj };

	CHECK(fi_cq_open(domain, &ca, &s->cq, NULL));
	CHECK(fi_ep_bind(s->ep, &eq->fid, 0));
	CHECK(fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV));
	CHECK(fi_enable(s->ep));
	s->eq = eq;
}

static void setup(bool mr_local)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_UNSPEC };
	int ret;

	hints->ep_attr->type = FI_EP_MSG;
	hints->caps = FI_MSG | FI_RMA | (want_atomic ? FI_ATOMIC : 0);
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
				      FI_MR_PROV_KEY |
				      (mr_local ? FI_MR_LOCAL : 0);
	hints->fabric_attr->prov_name = strdup("verbs");
	hints->addr_format = FI_SOCKADDR_IN;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (ret == -FI_ENODATA) {
		printf("SKIP: no verbs device with an IPv4 address here (run "
		       "inside the rxe VM: tests/unit/prov/verbs/rxe_wrap.sh)\n");
		exit(77);
	}
	CHECK(ret);
	/* the provider asks for FI_MR_LOCAL only of those that take it */
	EXPECT(!!(info->domain_attr->mr_mode & FI_MR_LOCAL) == mr_local);
	info->domain_attr->data_progress = data_progress;
	CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
	CHECK(fi_domain(fabric, info, &domain, NULL));
	CHECK(fi_eq_open(fabric, &ea, &srv_eq, NULL));
	CHECK(fi_eq_open(fabric, &ea, &cli.eq, NULL));
	CHECK(fi_passive_ep(fabric, info, &pep, NULL));
	CHECK(fi_pep_bind(pep, &srv_eq->fid, 0));
	CHECK(fi_listen(pep));
}

/* Connect cli to the listener, with data both ways; accept unless
 * reject. Returns the connect's outcome (0 or -err). */
static int connect_pair(bool reject)
{
	char buf[256], addr[64];
	size_t alen = sizeof(addr);
	struct fi_eq_cm_entry *cm = (void *)buf;
	struct fi_eq_err_entry err;
	struct fid_eq *ceq = cli.eq;
	uint32_t ev;
	int ret;

	CHECK(fi_getname(&pep->fid, addr, &alen));
	CHECK(fi_endpoint(domain, info, &cli.ep, NULL));
	open_side(&cli, ceq);
	/* CM data past what rdma_cm carries is refused */
	EXPECT(fi_connect(cli.ep, addr, buf, 200) == -FI_EINVAL);
	CHECK(fi_connect(cli.ep, addr, "hello", 6));
	ret = eq_wait(srv_eq, &ev, buf, sizeof(buf), &err);
	EXPECT(ret > 0 && ev == FI_CONNREQ);
	EXPECT((size_t)ret == sizeof(*cm) + 6 && !strcmp((char *)cm->data,
							 "hello"));
	if (reject) {
		CHECK(fi_reject(pep, cm->info->handle, "no", 3));
		fi_freeinfo(cm->info);
		ret = eq_wait(ceq, &ev, buf, sizeof(buf), &err);
		EXPECT(ret == -FI_ECONNREFUSED);
		EXPECT(err.err_data_size == 3 &&
		       !strcmp((const char *)err.err_data, "no"));
		return ret;
	}
	CHECK(fi_endpoint(domain, cm->info, &srv.ep, NULL));
	fi_freeinfo(cm->info);
	open_side(&srv, srv_eq);
	CHECK(fi_accept(srv.ep, "world", 6));
	ret = eq_wait(ceq, &ev, buf, sizeof(buf), &err);
	EXPECT(ret > 0 && ev == FI_CONNECTED && cm->fid == &cli.ep->fid);
	EXPECT((size_t)ret == sizeof(*cm) + 6 && !strcmp((char *)cm->data,
							 "world"));
	ret = eq_wait(srv_eq, &ev, buf, sizeof(buf), &err);
	EXPECT(ret > 0 && ev == FI_CONNECTED && cm->fid == &srv.ep->fid);
	return 0;
}

static void close_side(struct side *s)
{
	if (s->ep)
		CHECK(fi_close(&s->ep->fid));
	if (s->cq)
		CHECK(fi_close(&s->cq->fid));
	s->ep = NULL;
	s->cq = NULL;
}

static void teardown(void)
{
	close_side(&cli);
	close_side(&srv);
	CHECK(fi_close(&pep->fid));
	CHECK(fi_close(&cli.eq->fid));
	CHECK(fi_close(&srv_eq->fid));
	CHECK(fi_close(&domain->fid));
	CHECK(fi_close(&fabric->fid));
	fi_freeinfo(info);
}

static struct fid_mr *reg(void *buf, size_t len, uint64_t access)
{
	struct fid_mr *mr;

	CHECK(fi_mr_reg(domain, buf, len, access, 0, 0, 0, &mr, NULL));
	return mr;
}

static void scenario_cm(void)
{
	struct sockaddr_in peer;
	size_t len = sizeof(peer);
	struct fi_eq_err_entry err;
	char buf[256];
	uint32_t ev;

	connect_pair(false);
	CHECK(fi_getpeer(cli.ep, &peer, &len));
	EXPECT(peer.sin_family == AF_INET);
	CHECK(fi_shutdown(cli.ep, 0));
	EXPECT(eq_wait(cli.eq, &ev, buf, sizeof(buf), &err) > 0 &&
	       ev == FI_SHUTDOWN);
	EXPECT(eq_wait(srv_eq, &ev, buf, sizeof(buf), &err) > 0 &&
	       ev == FI_SHUTDOWN);
}

static void scenario_reject(void)
{
	connect_pair(true);
}

static void scenario_msg(void)
{
	static const size_t sizes[] = { 0, 1, 63, 64, 65, 4096, 65536,
					1 << 20 };
	size_t max = 1 << 20, i, j;
	char *sbuf = malloc(max), *rbuf = malloc(max);
	struct fid_mr *smr = reg(sbuf, max, FI_SEND);
	struct fid_mr *rmr = reg(rbuf, max, FI_RECV);
	void *sd = fi_mr_desc(smr), *rd = fi_mr_desc(rmr);
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct iovec iov[2];
	void *descs[2] = { sd, sd };
	int ctx_s, ctx_r;
	/* not an MR: a descriptor the provider must refuse, not read past */
	struct { uint64_t pad[64]; } bogus = { { 0 } };

	connect_pair(false);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (j = 0; j < sizes[i]; j++)
			sbuf[j] = (char)(j * 7 + i);
		memset(rbuf, 0, max);
		CHECK(fi_recv(srv.ep, rbuf, max, rd, 0, &ctx_r));
		CHECK(fi_send(cli.ep, sbuf, sizes[i], sd, 0, &ctx_s));
		cq_expect(cli.cq, &ctx_s, FI_SEND | FI_MSG);
		EXPECT(!vt_cq_wait(srv.cq, &e, &err));
		EXPECT(e.op_context == &ctx_r && e.len == sizes[i]);
		EXPECT(!memcmp(sbuf, rbuf, sizes[i]));
	}
	/* two buffers each way */
	iov[0] = (struct iovec){ sbuf, 100 };
	iov[1] = (struct iovec){ sbuf + 1000, 200 };
	CHECK(fi_recv(srv.ep, rbuf, max, rd, 0, &ctx_r));
	CHECK(fi_sendv(cli.ep, iov, descs, 2, 0, &ctx_s));
	cq_expect(cli.cq, &ctx_s, FI_SEND);
	EXPECT(!vt_cq_wait(srv.cq, &e, &err) && e.len == 300);
	EXPECT(!memcmp(rbuf, sbuf, 100) && !memcmp(rbuf + 100, sbuf + 1000,
						   200));
	/* immediate data */
	CHECK(fi_recv(srv.ep, rbuf, max, rd, 0, &ctx_r));
	CHECK(fi_senddata(cli.ep, sbuf, 8, sd, 0xfeedbeef, 0, &ctx_s));
	cq_expect(cli.cq, &ctx_s, FI_SEND);
	EXPECT(!vt_cq_wait(srv.cq, &e, &err));
	EXPECT((e.flags & FI_REMOTE_CQ_DATA) && e.data == 0xfeedbeef);
	/* inject: no completion of its own, the buffer free at once */
	CHECK(fi_recv(srv.ep, rbuf, max, rd, 0, &ctx_r));
	strcpy(sbuf, "injected");
	CHECK(fi_inject(cli.ep, sbuf, 9, 0));
	memset(sbuf, 0, 9);
	EXPECT(!vt_cq_wait(srv.cq, &e, &err) && e.len == 9);
	EXPECT(!strcmp(rbuf, "injected"));
	EXPECT(fi_cq_read(cli.cq, &e, 1) == -FI_EAGAIN);
	/* bad arguments: no crash, an error code */
	EXPECT(fi_recv(srv.ep, rbuf, 64, &bogus, 0, NULL) == -FI_EINVAL);
	EXPECT(fi_send(cli.ep, sbuf, 4096, &bogus, 0, NULL) == -FI_EINVAL);
	EXPECT(fi_inject(cli.ep, sbuf, 4096, 0) == -FI_EMSGSIZE);
	EXPECT(fi_sendv(cli.ep, iov, descs, 1000, 0, NULL) == -FI_EINVAL);
	close_side(&cli);
	close_side(&srv);
	CHECK(fi_close(&smr->fid));
	CHECK(fi_close(&rmr->fid));
	free(sbuf);
	free(rbuf);
}

static void scenario_rma(void)
{
	size_t len = 256 * 1024, i;
	char *loc = malloc(len), *rem = calloc(1, len), *back = calloc(1, len);
	char rbuf[16];
	struct fid_mr *lmr = reg(loc, len, FI_WRITE | FI_READ);
	struct fid_mr *bmr = reg(back, len, FI_READ);
	struct fid_mr *rmr = reg(rem, len, FI_REMOTE_READ | FI_REMOTE_WRITE);
	struct fid_mr *rbmr = reg(rbuf, sizeof(rbuf), FI_RECV);
	uint64_t raddr = (uintptr_t)rem, key = fi_mr_key(rmr);
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	int ctx, ctx_r;

	connect_pair(false);
	for (i = 0; i < len; i++)
		loc[i] = (char)(i * 13);
	CHECK(fi_write(cli.ep, loc, len, fi_mr_desc(lmr), 0, raddr, key,
		       &ctx));
	cq_expect(cli.cq, &ctx, FI_RMA | FI_WRITE);
	EXPECT(!memcmp(loc, rem, len));
	CHECK(fi_read(cli.ep, back, len, fi_mr_desc(bmr), 0, raddr, key,
		      &ctx));
	cq_expect(cli.cq, &ctx, FI_RMA | FI_READ);
	EXPECT(!memcmp(back, rem, len));
	/* writedata: the target's receive carries the immediate */
	CHECK(fi_recv(srv.ep, rbuf, sizeof(rbuf), fi_mr_desc(rbmr), 0,
		      &ctx_r));
	CHECK(fi_writedata(cli.ep, loc, 4096, fi_mr_desc(lmr), 0x1234, 0,
			   raddr + 4096, key, &ctx));
	cq_expect(cli.cq, &ctx, FI_RMA | FI_WRITE);
	EXPECT(!vt_cq_wait(srv.cq, &e, &err));
	EXPECT((e.flags & (FI_REMOTE_CQ_DATA | FI_REMOTE_WRITE)) ==
	       (FI_REMOTE_CQ_DATA | FI_REMOTE_WRITE) && e.data == 0x1234);
	/* a key the target never gave: the device refuses, the write
	 * completes in error (and the connection is then down) */
	CHECK(fi_write(cli.ep, loc, 64, fi_mr_desc(lmr), 0, raddr,
		       key ^ 0x5a5a00, &ctx));
	EXPECT(vt_cq_wait(cli.cq, &e, &err) == -FI_EACCES);
	EXPECT(err.op_context == &ctx);
	EXPECT(fi_write(cli.ep, loc, 64, fi_mr_desc(lmr), 0, raddr,
			1ULL << 40, &ctx) == -FI_EINVAL);
	close_side(&cli);
	close_side(&srv);
	CHECK(fi_close(&lmr->fid));
	CHECK(fi_close(&bmr->fid));
	CHECK(fi_close(&rmr->fid));
	CHECK(fi_close(&rbmr->fid));
	free(loc);
	free(rem);
	free(back);
}

static void scenario_trywait(void)
{
	char *sbuf = calloc(1, 65536), *rbuf = calloc(1, 65536);
	struct fid_mr *smr = reg(sbuf, 65536, FI_SEND);
	struct fid_mr *rmr = reg(rbuf, 65536, FI_RECV);
	struct fi_cq_data_entry e;
	struct fid *fids[1];
	struct pollfd pfd;
	int ctx_s, ctx_r, fd, round, got, ret;

	cq_wait_obj = FI_WAIT_FD;
	connect_pair(false);
	CHECK(fi_control(&srv.cq->fid, FI_GETWAIT, &fd));
	fids[0] = &srv.cq->fid;
	for (round = 0; round < 20; round++) {
		CHECK(fi_recv(srv.ep, rbuf, 65536, fi_mr_desc(rmr), 0,
			      &ctx_r));
		CHECK(fi_send(cli.ep, sbuf, 65536, fi_mr_desc(smr), 0,
			      &ctx_s));
		got = 0;
		while (!got) {
			ret = fi_trywait(fabric, fids, 1);
			if (ret == 0) {
				pfd = (struct pollfd){ .fd = fd,
						       .events = POLLIN };
				if (poll(&pfd, 1, VT_TIMEOUT_S * 1000) != 1)
					vt_fail("no wake-up in round %d", round);
			} else if (ret != -FI_EAGAIN) {
				vt_fail("fi_trywait: %d", ret);
			}
			ret = (int)fi_cq_read(srv.cq, &e, 1);
			if (ret == 1)
				got = 1;
			else if (ret != -FI_EAGAIN)
				vt_fail("fi_cq_read: %d", ret);
		}
		EXPECT(e.op_context == &ctx_r && e.len == 65536);
		cq_expect(cli.cq, &ctx_s, FI_SEND);
	}
	close_side(&cli);
	close_side(&srv);
	CHECK(fi_close(&smr->fid));
	CHECK(fi_close(&rmr->fid));
	free(sbuf);
	free(rbuf);
}

static void scenario_atomic(void)
{
	uint64_t *target = calloc(1, 64), *res = calloc(1, 64);
	uint64_t operand, cmp;
	struct fid_mr *tmr = reg(target, 64, FI_REMOTE_READ |
				 FI_REMOTE_WRITE);
	struct fid_mr *rmr = reg(res, 64, FI_READ);
	uint64_t raddr = (uintptr_t)target, key = fi_mr_key(tmr);
	struct fi_atomic_attr aa;
	size_t cnt;
	int ctx;

	CHECK(fi_query_atomic(domain, FI_UINT64, FI_SUM, &aa,
			      FI_FETCH_ATOMIC));
	EXPECT(aa.size == 8 && aa.count == 1);
	EXPECT(fi_query_atomic(domain, FI_DOUBLE, FI_SUM, &aa, 0) ==
	       -FI_EOPNOTSUPP);
	connect_pair(false);
	CHECK(fi_fetch_atomicvalid(cli.ep, FI_UINT64, FI_SUM, &cnt));
	EXPECT(fi_atomicvalid(cli.ep, FI_UINT64, FI_PROD, &cnt) ==
	       -FI_EOPNOTSUPP);
	target[0] = 40;
	operand = 2;
	CHECK(fi_fetch_atomic(cli.ep, &operand, 1, NULL, res, fi_mr_desc(rmr),
			      0, raddr, key, FI_UINT64, FI_SUM, &ctx));
	cq_expect(cli.cq, &ctx, FI_ATOMIC | FI_READ);
	EXPECT(res[0] == 40 && target[0] == 42);
	cmp = 42;
	operand = 7;
	CHECK(fi_compare_atomic(cli.ep, &operand, 1, NULL, &cmp, NULL, res,
				NULL, 0, raddr, key, FI_UINT64, FI_CSWAP,
				&ctx));
	cq_expect(cli.cq, &ctx, FI_ATOMIC);
	EXPECT(res[0] == 42 && target[0] == 7);
	CHECK(fi_fetch_atomic(cli.ep, NULL, 1, NULL, res + 1, NULL, 0, raddr,
			      key, FI_INT64, FI_ATOMIC_READ, &ctx));
	cq_expect(cli.cq, &ctx, FI_ATOMIC | FI_READ);
	EXPECT(res[1] == 7 && target[0] == 7);
	operand = 100;
	CHECK(fi_atomic(cli.ep, &operand, 1, NULL, 0, raddr, key, FI_UINT64,
			FI_SUM, &ctx));
	cq_expect(cli.cq, &ctx, FI_ATOMIC | FI_WRITE);
	EXPECT(target[0] == 107);
	/* refused before anything moves */
	EXPECT(fi_atomic(cli.ep, &operand, 1, NULL, 0, raddr + 4, key,
			 FI_UINT64, FI_SUM, &ctx) == -FI_EINVAL);
	EXPECT(fi_atomic(cli.ep, &operand, 2, NULL, 0, raddr, key,
			 FI_UINT64, FI_SUM, &ctx) == -FI_EINVAL);
	EXPECT(fi_atomic(cli.ep, &operand, 1, NULL, 0, raddr, key,
			 FI_UINT32, FI_SUM, &ctx) == -FI_EOPNOTSUPP);
	close_side(&cli);
	close_side(&srv);
	CHECK(fi_close(&tmr->fid));
	CHECK(fi_close(&rmr->fid));
	free(target);
	free(res);
}

static void scenario_auto(void)
{
	char *sbuf = calloc(1, 4096), *rbuf = calloc(1, 4096);
	struct fid_mr *smr = reg(sbuf, 4096, FI_SEND);
	struct fid_mr *rmr = reg(rbuf, 4096, FI_RECV);
	struct fi_cq_data_entry e;
	int ctx_s, ctx_r, round;
	ssize_t ret;

	connect_pair(false);
	for (round = 0; round < 50; round++) {
		CHECK(fi_recv(srv.ep, rbuf, 4096, fi_mr_desc(rmr), 0,
			      &ctx_r));
		snprintf(sbuf, 4096, "round %d", round);
		CHECK(fi_send(cli.ep, sbuf, 4096, fi_mr_desc(smr), 0,
			      &ctx_s));
		/* the application only sleeps: the thread must make both
		 * completions happen */
		ret = fi_cq_sread(srv.cq, &e, 1, NULL, VT_TIMEOUT_S * 1000);
		if (ret != 1)
			vt_fail("round %d: fi_cq_sread (receive) = %zd", round,
			     ret);
		EXPECT(e.op_context == &ctx_r && !strcmp(rbuf, sbuf));
		ret = fi_cq_sread(cli.cq, &e, 1, NULL, VT_TIMEOUT_S * 1000);
		if (ret != 1)
			vt_fail("round %d: fi_cq_sread (send) = %zd", round, ret);
		EXPECT(e.op_context == &ctx_s);
	}
	close_side(&cli);
	close_side(&srv);
	CHECK(fi_close(&smr->fid));
	CHECK(fi_close(&rmr->fid));
	free(sbuf);
	free(rbuf);
}

static void scenario_nodesc(void)
{
	size_t len = 1 << 20, i;
	char *rbuf = calloc(1, len), *sbuf;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	int ctx_s, ctx_r, round;

	connect_pair(false);
	sbuf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT(sbuf != MAP_FAILED);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < len; i++)
			sbuf[i] = (char)(i + round * 31);
		memset(rbuf, 0, len);
		CHECK(fi_recv(srv.ep, rbuf, len, NULL, 0, &ctx_r));
		CHECK(fi_send(cli.ep, sbuf, len, NULL, 0, &ctx_s));
		cq_expect(cli.cq, &ctx_s, FI_SEND);
		EXPECT(!vt_cq_wait(srv.cq, &e, &err) && e.len == len);
		if (memcmp(sbuf, rbuf, len))
			vt_fail("round %d: the data on the wire is not the "
			     "buffer's (a stale registration?)", round);
		/* new pages at the same address: the cache must drop the
		 * registration of the old ones */
		CHECK(munmap(sbuf, len));
		EXPECT(mmap(sbuf, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		       sbuf);
	}
	close_side(&cli);
	close_side(&srv);
	CHECK(munmap(sbuf, len));
	free(rbuf);
}

/* This process's pinned memory (VmPin, kB), as the kernel accounts a
 * long-term pin of a registration; -1 when unreadable. */
static long vm_pin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Does the device named dev page RC sends, receives, writes and reads
 * on demand? Asked of rdma-core, not of the provider. */
static bool device_rc_odp(const char *dev)
{
	const uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			      IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr_ex ex;
	struct ibv_context *c;
	bool odp = false;

	for (int i = 0; list && list[i]; i++) {
		if (strcmp(ibv_get_device_name(list[i]), dev))
			continue;
		c = ibv_open_device(list[i]);
		memset(&ex, 0, sizeof(ex));
		if (c && !ibv_query_device_ex(c, NULL, &ex))
			odp = (ex.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
			      (ex.odp_caps.per_transport_caps.rc_odp_caps &
			       need) == need;
		if (c)
			ibv_close_device(c);
	}
	if (list)
		ibv_free_device_list(list);
	return odp;
}

static void scenario_odp(void)
{
	size_t len = 1 << 20, i;
	char *loc = malloc(len);
	char *rem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool odp = device_rc_odp(info->domain_attr->name);
	struct fid_mr *lmr = reg(loc, len, FI_WRITE);
	struct fid_mr *rmr;
	long before, grew;
	int ctx;

	CHECK(rem == MAP_FAILED);
	before = vm_pin_kb();
	CHECK(before < 0);
	rmr = reg(rem, len, FI_REMOTE_READ | FI_REMOTE_WRITE);
	grew = vm_pin_kb() - before;
	printf("odp: device %s pages RC on demand: %s; VmPin grew %ld kB\n",
	       info->domain_attr->name, odp ? "yes" : "no", grew);
	if (odp)
		EXPECT(grew < (long)(len / 1024));
	else
		EXPECT(grew >= (long)(len / 1024));
	connect_pair(false);
	for (i = 0; i < len; i++)
		loc[i] = (char)(i * 7);
	CHECK(fi_write(cli.ep, loc, len, fi_mr_desc(lmr), 0,
		       (uintptr_t)rem, fi_mr_key(rmr), &ctx));
	cq_expect(cli.cq, &ctx, FI_RMA | FI_WRITE);
	EXPECT(!memcmp(loc, rem, len));
	close_side(&cli);
	close_side(&srv);
	CHECK(fi_close(&lmr->fid));
	CHECK(fi_close(&rmr->fid));
	/* unpinned again once the region is gone */
	EXPECT(vm_pin_kb() - before < (long)(len / 1024));
	munmap(rem, len);
	free(loc);
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "cm";

	if (strcmp(s, "cm") && strcmp(s, "reject") && strcmp(s, "msg") &&
	    strcmp(s, "rma") && strcmp(s, "trywait") && strcmp(s, "nodesc") &&
	    strcmp(s, "auto") && strcmp(s, "atomic") && strcmp(s, "odp")) {
		fprintf(stderr, "unknown scenario %s\n", s);
		return 2;
	}
	if (!strcmp(s, "auto")) {
		data_progress = FI_PROGRESS_AUTO;
		cq_wait_obj = FI_WAIT_UNSPEC;
	}
	want_atomic = !strcmp(s, "atomic");
	/* before the provider reads its variables (at fi_getinfo) */
	if (!strcmp(s, "odp"))
		setenv("FI_VERBS_USE_ODP", "1", 1);
	setup(strcmp(s, "nodesc") != 0);
	if (!strcmp(s, "cm"))
		scenario_cm();
	else if (!strcmp(s, "reject"))
		scenario_reject();
	else if (!strcmp(s, "msg"))
		scenario_msg();
	else if (!strcmp(s, "rma"))
		scenario_rma();
	else if (!strcmp(s, "trywait"))
		scenario_trywait();
	else if (!strcmp(s, "auto"))
		scenario_auto();
	else if (!strcmp(s, "atomic"))
		scenario_atomic();
	else if (!strcmp(s, "odp"))
		scenario_odp();
	else
		scenario_nodesc();
	teardown();
	printf("PASS: verbs %s\n", s);
	return 0;
}
