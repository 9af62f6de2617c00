/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm endpoints over tcp on 127.0.0.1, through the public API only
 * (fi_getinfo with prov_name "tcp;ofi_rxm"), two endpoints A and B in
 * this process, each with its own domain, CQ and AV, driven by reading
 * their CQs:
 *
 *   self     A sends to its own name (untagged, tagged, eager and
 *            segmented sizes): every message arrives, checked
 *   pair     A to B and back: sizes from 0 bytes to 3 segments, tagged
 *            with FI_DIRECTED_RECV, remote CQ data; a segmented message
 *            sent before its receive is posted (unexpected), and one
 *            larger than the receive (truncated: error completion with
 *            olen); FI_SOURCE names the sender
 *   unknown  B receives from A before A is in B's AV: FI_SOURCE reports
 *            FI_ADDR_NOTAVAIL; after the insert, the next one names A
 *
 * The reference is installed too: the test checks in /proc/self/maps that
 * the libfabric.so.1 it runs on is the build's (PROPEL_LIBDIR). A
 * watchdog fails a scenario after 30 s with no completion (a hang).
 */
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define CHECK(c)                                                        \
	do {                                                            \
		if (!(c)) {                                             \
			fprintf(stderr, "%s:%d: CHECK FAILED: %s\n",    \
				__FILE__, __LINE__, #c);                \
			exit(1);                                        \
		}                                                       \
	} while (0)
#define CHECK_EQ(a, b)                                                  \
	do {                                                            \
		long long a_ = (long long)(a), b_ = (long long)(b);     \
		if (a_ != b_) {                                         \
			fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);    \
			exit(1);                                        \
		}                                                       \
	} while (0)

#define WATCH_S 30
#define BIG (3 * 16384 + 100)	/* three segments of the default buffer */

static volatile unsigned long beat;
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
	fprintf(stderr, "WATCHDOG: no completion for %d s in '%s'\n",
		WATCH_S, phase);
	_exit(1);
}

struct ep {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_ep *ep;
	char name[64];
	size_t namelen;
};

static void ep_open(struct ep *e)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };

	CHECK(hints);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			    hints, &e->info), 0);
	fi_freeinfo(hints);
	CHECK(!strcmp(e->info->fabric_attr->prov_name, "tcp;ofi_rxm"));
	CHECK_EQ(fi_fabric(e->info->fabric_attr, &e->fabric, NULL), 0);
	CHECK_EQ(fi_domain(e->fabric, e->info, &e->domain, NULL), 0);
	CHECK_EQ(fi_cq_open(e->domain, &cq_attr, &e->cq, NULL), 0);
	CHECK_EQ(fi_av_open(e->domain, &av_attr, &e->av, NULL), 0);
	CHECK_EQ(fi_endpoint(e->domain, e->info, &e->ep, NULL), 0);
	CHECK_EQ(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV), 0);
	CHECK_EQ(fi_ep_bind(e->ep, &e->av->fid, 0), 0);
	CHECK_EQ(fi_enable(e->ep), 0);
	e->namelen = sizeof(e->name);
	CHECK_EQ(fi_getname(&e->ep->fid, e->name, &e->namelen), 0);
}

static void ep_close(struct ep *e)
{
	CHECK_EQ(fi_close(&e->ep->fid), 0);
	CHECK_EQ(fi_close(&e->av->fid), 0);
	CHECK_EQ(fi_close(&e->cq->fid), 0);
	CHECK_EQ(fi_close(&e->domain->fid), 0);
	CHECK_EQ(fi_close(&e->fabric->fid), 0);
	fi_freeinfo(e->info);
}

static fi_addr_t insert(struct ep *at, const struct ep *who)
{
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	CHECK_EQ(fi_av_insert(at->av, who->name, 1, &fa, 0, NULL), 1);
	return fa;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* Drive both endpoints until cq yields one entry (success or error). */
static int wait_one(struct ep **all, int n, struct fid_cq *cq,
		    struct fi_cq_tagged_entry *e, struct fi_cq_err_entry *err,
		    fi_addr_t *src)
{
	ssize_t r;
	int i;

	for (;;) {
		r = src ? fi_cq_readfrom(cq, e, 1, src) : fi_cq_read(cq, e, 1);
		if (r == 1) {
			beat++;
			return 1;
		}
		if (r == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			CHECK_EQ(fi_cq_readerr(cq, err, 0), 1);
			beat++;
			return -1;
		}
		CHECK_EQ(r, -FI_EAGAIN);
		for (i = 0; i < n; i++)
			(void)fi_cq_read(all[i]->cq, NULL, 0);
	}
}

/* A send from a to dest with its completion, while b drives too. */
static void send_one(struct ep **all, int n, struct ep *a, const void *buf,
		     size_t len, fi_addr_t dest, bool tagged, uint64_t tag)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	ssize_t r;
	int i;

	do {
		r = tagged ? fi_tsend(a->ep, buf, len, NULL, dest, tag,
				      (void *)buf) :
			     fi_send(a->ep, buf, len, NULL, dest, (void *)buf);
		if (r == -FI_EAGAIN)
			for (i = 0; i < n; i++)
				(void)fi_cq_read(all[i]->cq, NULL, 0);
	} while (r == -FI_EAGAIN);
	CHECK_EQ(r, 0);
	CHECK_EQ(wait_one(all, n, a->cq, &e, &err, NULL), 1);
	CHECK(e.op_context == buf);
	CHECK(e.flags & FI_SEND);
}

static int scn_self(void)
{
	static const size_t sizes[] = { 0, 1, 64, 4000, 16000, BIG };
	uint8_t *out = malloc(BIG), *in = malloc(BIG);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep a, *all[1] = { &a };
	fi_addr_t me;
	size_t i;

	CHECK(out && in);
	ep_open(&a);
	me = insert(&a, &a);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		phase = "self: a message to our own name";
		fill(out, sizes[i], (unsigned)i);
		memset(in, 0, BIG);
		CHECK_EQ(fi_trecv(a.ep, in, BIG, NULL, me, 100 + i, 0, in), 0);
		send_one(all, 1, &a, out, sizes[i], me, true, 100 + i);
		CHECK_EQ(wait_one(all, 1, a.cq, &e, &err, NULL), 1);
		CHECK(e.op_context == in);
		CHECK_EQ(e.len, sizes[i]);
		CHECK_EQ(e.tag, 100 + i);
		CHECK(!memcmp(in, out, sizes[i]));
	}
	ep_close(&a);
	free(out);
	free(in);
	return 0;
}

static int scn_pair(void)
{
	static const size_t sizes[] = { 0, 8, 1000, 16343, 16344, 16345,
					BIG };
	uint8_t *out = malloc(BIG), *in = malloc(BIG);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep a, b, *all[2] = { &a, &b };
	fi_addr_t b_at_a, a_at_b, src;
	size_t i;

	CHECK(out && in);
	ep_open(&a);
	ep_open(&b);
	b_at_a = insert(&a, &b);
	a_at_b = insert(&b, &a);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		phase = "pair: expected messages, each size";
		fill(out, sizes[i], (unsigned)i + 10);
		memset(in, 0, BIG);
		CHECK_EQ(fi_recv(b.ep, in, BIG, NULL, FI_ADDR_UNSPEC, in), 0);
		send_one(all, 2, &a, out, sizes[i], b_at_a, false, 0);
		CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, &src), 1);
		CHECK(e.op_context == in);
		CHECK_EQ(e.len, sizes[i]);
		CHECK_EQ(src, a_at_b);
		CHECK(!memcmp(in, out, sizes[i]));
	}

	phase = "pair: a segmented message before its receive";
	fill(out, BIG, 77);
	memset(in, 0, BIG);
	send_one(all, 2, &a, out, BIG, b_at_a, true, 0x77);
	/* the message is held by B now; the receive takes it */
	CHECK_EQ(fi_trecv(b.ep, in, BIG, NULL, a_at_b, 0x77, 0, in), 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, NULL), 1);
	CHECK_EQ(e.len, BIG);
	CHECK(!memcmp(in, out, BIG));

	phase = "pair: truncated";
	CHECK_EQ(fi_recv(b.ep, in, 5000, NULL, FI_ADDR_UNSPEC, in), 0);
	send_one(all, 2, &a, out, BIG, b_at_a, false, 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, NULL), -1);
	CHECK_EQ(err.err, FI_ETRUNC);
	CHECK(err.op_context == in);
	CHECK_EQ(err.olen, BIG - 5000);
	CHECK(!memcmp(in, out, 5000));

	phase = "pair: B answers A";
	fill(out, 100, 5);
	CHECK_EQ(fi_recv(a.ep, in, BIG, NULL, b_at_a, in), 0);
	send_one(all, 2, &b, out, 100, a_at_b, false, 0);
	CHECK_EQ(wait_one(all, 2, a.cq, &e, &err, &src), 1);
	CHECK_EQ(src, b_at_a);
	CHECK(!memcmp(in, out, 100));
	ep_close(&a);
	ep_close(&b);
	free(out);
	free(in);
	return 0;
}

static int scn_unknown(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep a, b, *all[2] = { &a, &b };
	fi_addr_t b_at_a, a_at_b, src;
	char in[64], out[64] = "from a stranger";

	ep_open(&a);
	ep_open(&b);
	b_at_a = insert(&a, &b);
	phase = "unknown: a sender not in the AV";
	CHECK_EQ(fi_recv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, in), 0);
	send_one(all, 2, &a, out, sizeof(out), b_at_a, false, 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, &src), 1);
	CHECK_EQ(src, FI_ADDR_NOTAVAIL);
	CHECK(!strcmp(in, out));
	a_at_b = insert(&b, &a);
	phase = "unknown: the same sender once inserted";
	CHECK_EQ(fi_recv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, in), 0);
	send_one(all, 2, &a, out, sizeof(out), b_at_a, false, 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, &src), 1);
	CHECK_EQ(src, a_at_b);
	ep_close(&a);
	ep_close(&b);
	return 0;
}

static void check_propel(void)
{
	const char *dir = getenv("PROPEL_LIBDIR");
	char want[4096], line[4096 + 256];
	int found = 0;
	FILE *f;

	CHECK(dir && realpath(dir, want));
	f = fopen("/proc/self/maps", "r");
	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "libfabric.so")) {
			CHECK(strstr(line, want));
			found = 1;
		}
	fclose(f);
	CHECK(found);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} scn[] = {
		{ "self", scn_self },
		{ "pair", scn_pair },
		{ "unknown", scn_unknown },
	};
	size_t i;

	setvbuf(stdout, NULL, _IONBF, 0);
	check_propel();
	signal(SIGALRM, on_alarm);
	alarm(WATCH_S);
	for (i = 0; argc == 2 && i < sizeof(scn) / sizeof(scn[0]); i++)
		if (!strcmp(argv[1], scn[i].name))
			return scn[i].fn();
	fprintf(stderr, "usage: %s self|pair|unknown\n", argv[0]);
	return 2;
}
