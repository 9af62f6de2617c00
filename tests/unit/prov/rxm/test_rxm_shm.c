/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm as ofi_rxm's peer, the domain half (prov/rxm/rxm_shm.h), one
 * scenario per run:
 *   name    the derived shm names, byte for byte, and their limits;
 *   local   locality from this namespace's interface addresses;
 *   on      FI_OFI_RXM_USE_SHM=1: the rxm domain holds an shm peer
 *           domain, which its close releases (and keeps while the
 *           application's children make the close -FI_EBUSY); an rxm
 *           AV's twin on it holds the derived names of the node-local
 *           addresses only, named by their rxm fi_addr_t
 *           (FI_AV_USER_ID), through duplicates and removals, and
 *           closes with it;
 *   off     FI_OFI_RXM_USE_SHM=0: no shm domain.
 * The variables are read once per process: hence one scenario a run.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "pl_rcu.h"
#include "rxm_check.h"
#include "rxm_prov.h"
#include "rxm_shm.h"

static struct sockaddr_in sin4(const char *ip, unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	CHECK_EQ(inet_pton(AF_INET, ip, &a.sin_addr), 1);
	return a;
}

static struct sockaddr_in6 sin6(const char *ip, unsigned port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons(port) };

	CHECK_EQ(inet_pton(AF_INET6, ip, &a.sin6_addr), 1);
	return a;
}

static void scenario_name(void)
{
	struct rxm_shm_host h = { .netns = 4026531840ull, .uid = 1000 };
	struct sockaddr_in a = sin4("127.0.0.1", 5000);
	struct sockaddr_in6 b = sin6("fe80::1", 7);
	struct sockaddr un = { .sa_family = AF_UNIX };
	char buf[RXM_SHM_NAME_MAX];
	const char *want = "rxm://4026531840:1000:7f000001:5000";

	CHECK_EQ(rxm_shm_name(&h, (struct sockaddr *)&a, buf, sizeof(buf)),
		 strlen(want));
	CHECK(!strcmp(buf, want));
	want = "rxm://4026531840:1000:fe800000000000000000000000000001:7";
	CHECK_EQ(rxm_shm_name(&h, (struct sockaddr *)&b, buf, sizeof(buf)),
		 strlen(want));
	CHECK(!strcmp(buf, want));
	CHECK_EQ(rxm_shm_name(&h, &un, buf, sizeof(buf)), -FI_EINVAL);
	CHECK_EQ(rxm_shm_name(&h, (struct sockaddr *)&a, buf, 10),
		 -FI_ETOOSMALL);
	/* another namespace, same address: another name */
	h.netns++;
	CHECK_EQ(rxm_shm_name(&h, (struct sockaddr *)&a, buf, sizeof(buf)),
		 strlen("rxm://4026531841:1000:7f000001:5000"));
	CHECK(!strcmp(buf, "rxm://4026531841:1000:7f000001:5000"));
	/* the longest there can be fits the bound */
	h.netns = UINT64_MAX;
	h.uid = (uid_t)-1;
	b = sin6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535);
	CHECK(rxm_shm_name(&h, (struct sockaddr *)&b, buf, sizeof(buf)) > 0);
}

static void scenario_local(void)
{
	struct rxm_shm_host h;
	struct sockaddr_in lo = sin4("127.0.0.1", 1), any = sin4("0.0.0.0", 1);
	struct sockaddr_in far = sin4("192.0.2.1", 1);	/* TEST-NET-1 */
	struct sockaddr_in6 any6 = sin6("::", 1);
	struct stat st;

	CHECK_EQ(rxm_shm_host_init(&h), 0);
	CHECK(h.count > 0);
	if (stat("/proc/self/ns/net", &st) == 0)
		CHECK_EQ(h.netns, st.st_ino);
	CHECK(rxm_shm_host_local(&h, (struct sockaddr *)&lo));
	CHECK(!rxm_shm_host_local(&h, (struct sockaddr *)&any));
	CHECK(!rxm_shm_host_local(&h, (struct sockaddr *)&any6));
	CHECK(!rxm_shm_host_local(&h, (struct sockaddr *)&far));
	/* every interface address is local, whatever its port */
	for (size_t i = 0; i < h.count; i++) {
		struct sockaddr_storage s = h.addrs[i];

		if (s.ss_family == AF_INET)
			((struct sockaddr_in *)&s)->sin_port = htons(99);
		CHECK(rxm_shm_host_local(&h, (struct sockaddr *)&s));
	}
	rxm_shm_host_fini(&h);
}

/* The twin's user id of the rxm address a, FI_ADDR_NOTAVAIL if absent. */
static fi_addr_t twin_user_id(struct rxm_domain *d, struct fid_av *av,
			      const struct sockaddr_in *a)
{
	struct fid_av *twin = pl_av_prov(av);
	char name[RXM_AV_SHM_ADDRLEN_MAX] = { 0 };
	fi_addr_t fa = rxm_av_shm_addr(av, a), uid = FI_ADDR_NOTAVAIL;

	if (fa == FI_ADDR_NOTAVAIL)
		return FI_ADDR_NOTAVAIL;
	CHECK(rxm_shm_name(&d->shm.host, (const struct sockaddr *)a, name,
			   sizeof(name)) > 0);
	pl_rcu_read_lock();
	CHECK_EQ(pl_av_reverse_lookup(twin, name, &fa, &uid), 0);
	pl_rcu_read_unlock();
	return uid;
}

static void twin_check(struct rxm_domain *d, struct fid_av *av)
{
	struct sockaddr_in lo = sin4("127.0.0.1", 4242);
	struct sockaddr_in far = sin4("192.0.2.1", 4242);	/* TEST-NET-1 */
	struct sockaddr_in lo2 = sin4("127.0.0.1", 4243);
	fi_addr_t a_lo, a_far, a_lo2, again;

	CHECK(pl_av_prov(av));
	CHECK_EQ(fi_av_insert(av, &lo, 1, &a_lo, 0, NULL), 1);
	CHECK_EQ(fi_av_insert(av, &far, 1, &a_far, 0, NULL), 1);
	CHECK_EQ(fi_av_insert(av, &lo2, 1, &a_lo2, 0, NULL), 1);
	CHECK_EQ(twin_user_id(d, av, &lo), a_lo);
	CHECK_EQ(twin_user_id(d, av, &lo2), a_lo2);
	CHECK_EQ(rxm_av_shm_addr(av, &far), FI_ADDR_NOTAVAIL);
	/* a duplicate counts: the name stays until the last removal */
	CHECK_EQ(fi_av_insert(av, &lo, 1, &again, 0, NULL), 1);
	CHECK_EQ(again, a_lo);
	CHECK_EQ(fi_av_remove(av, &a_lo, 1, 0), 0);
	CHECK_EQ(twin_user_id(d, av, &lo), a_lo);
	CHECK_EQ(fi_av_remove(av, &a_lo, 1, 0), 0);
	CHECK_EQ(rxm_av_shm_addr(av, &lo), FI_ADDR_NOTAVAIL);
	CHECK_EQ(twin_user_id(d, av, &lo2), a_lo2);
	/* back in, under a new handle: the twin names the new one */
	CHECK_EQ(fi_av_insert(av, &lo, 1, &a_lo, 0, NULL), 1);
	CHECK_EQ(twin_user_id(d, av, &lo), a_lo);
	CHECK_EQ(fi_av_remove(av, &a_far, 1, 0), 0);
}

/* Open an rxm domain over tcp on 127.0.0.1 through the public API; the
 * rxm domain's own structure is then looked at (this test links the
 * library's objects). */
static void scenario_domain(bool on)
{
	struct fi_info *hints = fi_allocinfo(), *info = NULL;
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct rxm_domain *d;
	struct fid_av *av;

	CHECK(hints);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			    hints, &info), 0);
	fi_freeinfo(hints);
	CHECK_EQ(fi_fabric(info->fabric_attr, &fabric, NULL), 0);
	CHECK_EQ(fi_domain(fabric, info, &domain, NULL), 0);
	d = (struct rxm_domain *)domain;	/* base.domain_fid first */
	if (!on) {
		CHECK(!d->shm.domain);
		/* no twin either */
		CHECK_EQ(fi_av_open(domain, &av_attr, &av, NULL), 0);
		CHECK(!pl_av_prov(av));
		CHECK_EQ(fi_close(&av->fid), 0);
		goto out;
	}
	CHECK(d->shm.domain && d->shm.fabric && d->shm.info);
	CHECK(!strcmp(d->shm.info->fabric_attr->prov_name, "shm"));
	CHECK(d->shm.host.count > 0);
	/* an application's child keeps the close -FI_EBUSY, and shm open */
	CHECK_EQ(fi_av_open(domain, &av_attr, &av, NULL), 0);
	CHECK_EQ(fi_close(&domain->fid), -FI_EBUSY);
	CHECK(d->shm.domain);
	twin_check(d, av);
	/* the twin closes with the AV: else the shm domain, and so the
	 * rxm domain, would not close below */
	CHECK_EQ(fi_close(&av->fid), 0);
out:
	CHECK_EQ(fi_close(&domain->fid), 0);
	CHECK_EQ(fi_close(&fabric->fid), 0);
	fi_freeinfo(info);
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	if (!strcmp(s, "name"))
		scenario_name();
	else if (!strcmp(s, "local"))
		scenario_local();
	else if (!strcmp(s, "on") || !strcmp(s, "off")) {
		/* before the first fi_* call: variables are read once */
		CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", s[1] == 'n' ? "1" : "0",
				1), 0);
		scenario_domain(s[1] == 'n');
	} else {
		fprintf(stderr, "usage: %s name|local|on|off\n", argv[0]);
		return 2;
	}
	return 0;
}
