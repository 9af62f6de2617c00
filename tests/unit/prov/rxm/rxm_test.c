/* SPDX-License-Identifier: BSD-2-Clause */
/* The rxm endpoint tests' shared pieces (rxm_test.h). */
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

const char *phase = "start";
enum fi_progress rxm_test_progress;
enum fi_wait_obj rxm_test_cq_wait;
static volatile unsigned long beat;
static unsigned long beat_seen;

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


const char *rxm_test_node = "127.0.0.1";

void ep_open_caps(struct ep *e, uint64_t caps, int mr_mode)
{
	ep_open_with(e, caps, mr_mode, NULL, NULL);
}

void ep_open_with(struct ep *e, uint64_t caps, int mr_mode,
		  void (*before_enable)(struct ep *e, void *arg), void *arg)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED,
				      .wait_obj = rxm_test_cq_wait };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };

	memset(e, 0, sizeof(*e));
	CHECK(hints);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV | caps;
	hints->domain_attr->mr_mode = mr_mode;
	hints->domain_attr->data_progress = rxm_test_progress;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), rxm_test_node, NULL, FI_SOURCE,
			    hints, &e->info), 0);
	fi_freeinfo(hints);
	CHECK(!strcmp(e->info->fabric_attr->prov_name, "tcp;ofi_rxm"));
	/* the modes asked for, in the fi_info the domain opens with */
	e->info->domain_attr->mr_mode |= mr_mode;
	CHECK_EQ(fi_fabric(e->info->fabric_attr, &e->fabric, NULL), 0);
	CHECK_EQ(fi_domain(e->fabric, e->info, &e->domain, NULL), 0);
	CHECK_EQ(fi_cq_open(e->domain, &cq_attr, &e->cq, NULL), 0);
	CHECK_EQ(fi_av_open(e->domain, &av_attr, &e->av, NULL), 0);
	CHECK_EQ(fi_endpoint(e->domain, e->info, &e->ep, NULL), 0);
	CHECK_EQ(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV), 0);
	CHECK_EQ(fi_ep_bind(e->ep, &e->av->fid, 0), 0);
	if (before_enable)
		before_enable(e, arg);
	CHECK_EQ(fi_enable(e->ep), 0);
	e->namelen = sizeof(e->name);
	CHECK_EQ(fi_getname(&e->ep->fid, e->name, &e->namelen), 0);
}

void ep_close(struct ep *e)
{
	CHECK_EQ(fi_close(&e->ep->fid), 0);
	for (int i = 0; i < e->nextra; i++)
		CHECK_EQ(fi_close(e->extra[i]), 0);
	CHECK_EQ(fi_close(&e->av->fid), 0);
	CHECK_EQ(fi_close(&e->cq->fid), 0);
	CHECK_EQ(fi_close(&e->domain->fid), 0);
	CHECK_EQ(fi_close(&e->fabric->fid), 0);
	fi_freeinfo(e->info);
}

fi_addr_t insert(struct ep *at, const struct ep *who)
{
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	CHECK_EQ(fi_av_insert(at->av, who->name, 1, &fa, 0, NULL), 1);
	return fa;
}

void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

int wait_one(struct ep **all, int n, struct fid_cq *cq,
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

void send_one(struct ep **all, int n, struct ep *a, const void *buf,
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

void rxm_test_beat(void)
{
	beat++;
}

void drive(struct ep **all, int n)
{
	int i;

	for (i = 0; i < n; i++)
		(void)fi_cq_read(all[i]->cq, NULL, 0);
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

void rxm_test_start(void)
{
	/* These tests are about rxm over its core, tcp: node-local peers
	 * would otherwise go through shm (FI_OFI_RXM_USE_SHM, on by
	 * default). A test about shm sets the variable itself first. */
	setenv("FI_OFI_RXM_USE_SHM", "0", 0);
	setvbuf(stdout, NULL, _IONBF, 0);
	check_propel();
	signal(SIGALRM, on_alarm);
	alarm(WATCH_S);
}

int rxm_test_tcp_conns(const struct ep *e)
{
	static const char *const tables[2] = { "/proc/net/tcp",
					       "/proc/net/tcp6" };
	const struct sockaddr_in *sa = (const void *)e->name;
	unsigned port = ntohs(sa->sin_port), lport, rport, st;
	char line[512], laddr[64], raddr[64];
	int n = 0, i;
	FILE *f;

	CHECK(sa->sin_family == AF_INET);
	for (i = 0; i < 2; i++) {
		f = fopen(tables[i], "r");
		if (!f)
			continue;	/* no IPv6 here */
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, " %*d: %63[0-9A-Fa-f]:%x "
				   "%63[0-9A-Fa-f]:%x %x", laddr, &lport,
				   raddr, &rport, &st) == 5 &&
			    st == 1 && (lport == port || rport == port))
				n++;
		fclose(f);
	}
	return n;
}
