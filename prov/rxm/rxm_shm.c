/* SPDX-License-Identifier: BSD-2-Clause */
/* shm as ofi_rxm's peer: the domain half, locality and names
 * (rxm_shm.h). */
#include <assert.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_ext.h>

#include "pl_compiler.h"
#include "pl_domain.h"
#include "pl_info.h"
#include "pl_mr.h"
#include "rxm_prov.h"
#include "rxm_shm.h"

/* "rxm://" 20 digits ":" 10 digits ":" 32 hex digits ":" 5 digits NUL */
static_assert(6 + 20 + 1 + 10 + 1 + 32 + 1 + 5 + 1 <= RXM_SHM_NAME_MAX,
	      "the longest derived name fits");
static_assert(RXM_SHM_NAME_MAX <= 112, "below shm's SHM_NAME_MAX");

int rxm_shm_host_init(struct rxm_shm_host *host)
{
	struct ifaddrs *ifs, *i;
	struct stat st;
	size_t n = 0;

	memset(host, 0, sizeof(*host));
	/* the namespace's identity: two containers with the same IP must
	 * not derive the same region name; unknown (no /proc) gives 0,
	 * which still works inside one namespace */
	if (stat("/proc/self/ns/net", &st) == 0)
		host->netns = (uint64_t)st.st_ino;
	host->uid = geteuid();
	if (getifaddrs(&ifs) != 0)
		return -FI_ENODATA;
	for (i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr && (i->ifa_addr->sa_family == AF_INET ||
				    i->ifa_addr->sa_family == AF_INET6))
			n++;
	host->addrs = n ? calloc(n, sizeof(*host->addrs)) : NULL;
	if (n && !host->addrs) {
		freeifaddrs(ifs);
		return -FI_ENOMEM;
	}
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			memcpy(&host->addrs[host->count++], i->ifa_addr,
			       sizeof(struct sockaddr_in));
		else if (i->ifa_addr->sa_family == AF_INET6)
			memcpy(&host->addrs[host->count++], i->ifa_addr,
			       sizeof(struct sockaddr_in6));
	}
	freeifaddrs(ifs);
	return 0;
}

void rxm_shm_host_fini(struct rxm_shm_host *host)
{
	free(host->addrs);
	host->addrs = NULL;
	host->count = 0;
}

/* The address bytes of sa (4 or 16), NULL for another family. */
static const uint8_t *rxm_shm_ip(const struct sockaddr *sa, size_t *len_p)
{
	if (sa->sa_family == AF_INET) {
		*len_p = 4;
		return (const uint8_t *)
			&((const struct sockaddr_in *)sa)->sin_addr;
	}
	if (sa->sa_family == AF_INET6) {
		*len_p = 16;
		return ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	}
	return NULL;
}

bool rxm_shm_host_local(const struct rxm_shm_host *host,
			const struct sockaddr *sa)
{
	static const uint8_t zero[16];
	const uint8_t *ip, *mine;
	size_t len, mlen, i;

	ip = rxm_shm_ip(sa, &len);
	if (!ip || !memcmp(ip, zero, len))
		return false;
	for (i = 0; i < host->count; i++) {
		mine = rxm_shm_ip((const struct sockaddr *)&host->addrs[i],
				  &mlen);
		if (mine && mlen == len && !memcmp(mine, ip, len))
			return true;
	}
	return false;
}

int rxm_shm_name(const struct rxm_shm_host *host, const struct sockaddr *sa,
		 char *buf, size_t len)
{
	char hex[33];
	const uint8_t *ip;
	size_t n, i;
	unsigned port;
	int w;

	ip = rxm_shm_ip(sa, &n);
	if (!ip)
		return -FI_EINVAL;
	for (i = 0; i < n; i++)
		(void)snprintf(&hex[2 * i], 3, "%02x", ip[i]);
	port = sa->sa_family == AF_INET ?
	       ntohs(((const struct sockaddr_in *)sa)->sin_port) :
	       ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	w = snprintf(buf, len, "rxm://%llu:%u:%s:%u",
		     (unsigned long long)host->netns, (unsigned)host->uid,
		     hex, port);
	if (w < 0 || (size_t)w >= len)
		return -FI_ETOOSMALL;
	return w;
}

/* The shm entry for a peer of owner: RDM, messages of both kinds with
 * FI_SOURCE and directed receives (rxm's receive queue needs the
 * sender for both), RMA and atomics both ways with their remote events
 * (node-local RMA goes by shm, rxm_ep_shm_rma.c), threading and
 * progress as the owner's (a peer domain must run under the owner's,
 * docs/peer.md). Registration mode: the owner's addressing (a peer
 * names our memory as the application's fi_info said, whichever
 * transport carries the access) with keys chosen by the caller, which
 * is rxm: each rxm MR is registered again with shm under its own key
 * (rxm_shm_mr_twin). */
static int rxm_shm_getinfo(const struct pl_domain *owner, uint32_t version,
			   struct fi_info **info_p)
{
	struct fi_info *hints = fi_allocinfo(), *info = NULL;
	int ret;

	if (!hints)
		return -FI_ENOMEM;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV |
		      FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE |
		      FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT;
	hints->domain_attr->mr_mode = owner->mr_mode & FI_MR_VIRT_ADDR;
	hints->fabric_attr->prov_name = strdup("shm");
	hints->domain_attr->threading = owner->threading;
	hints->domain_attr->data_progress = owner->data_progress;
	hints->mode = ~0ULL;
	/* CORE_ONLY: shm alone, never a layering over it */
	/* our peer: FI_PROVIDER=tcp;ofi_rxm does not hide it */
	ret = fi_getinfo_1_3(version, NULL, NULL,
			     PL_GETINFO_CORE_ONLY | PL_GETINFO_PEER, hints,
			     &info);
	fi_freeinfo_1_3(hints);
	if (ret)
		return ret;
	fi_freeinfo_1_3(info->next);
	info->next = NULL;
	/* exactly the owner's: what fi_domain2(FI_PEER) accepts */
	info->domain_attr->threading = owner->threading;
	info->domain_attr->data_progress = owner->data_progress;
	/* offsets are FI_MR_SCALABLE, not 0: under an API before 1.5, 0
	 * would mean the provider's choice (provider keys) */
	info->domain_attr->mr_mode = (owner->mr_mode & FI_MR_VIRT_ADDR) ?
				     FI_MR_VIRT_ADDR : FI_MR_SCALABLE;
	/* every registration rxm accepts has its twin */
	if (info->domain_attr->mr_iov_limit < owner->mr_iov_limit)
		info->domain_attr->mr_iov_limit = owner->mr_iov_limit;
	*info_p = info;
	return 0;
}

void rxm_shm_domain_open(struct rxm_shm_domain *sd,
			 struct fid_domain *owner, uint32_t version)
{
	struct fi_peer_domain_context peer = {
		.size = sizeof(peer),
		.domain = owner,
	};
	struct pl_domain *od = pl_domain_of(owner);
	const char *what;
	int ret;

	memset(sd, 0, sizeof(*sd));
	what = "the host's addresses";
	ret = rxm_shm_host_init(&sd->host);
	if (ret)
		goto err;
	what = "fi_getinfo";
	ret = od ? rxm_shm_getinfo(od, version, &sd->info) : -FI_EINVAL;
	if (ret)
		goto err_host;
	what = "fi_fabric";
	ret = fi_fabric_1_1(sd->info->fabric_attr, &sd->fabric, NULL);
	if (ret)
		goto err_info;
	what = "fi_domain2";
	ret = fi_domain2(sd->fabric, sd->info, &sd->domain, FI_PEER, &peer);
	if (ret)
		goto err_fabric;
	RXM_LOG_INFO(FI_LOG_DOMAIN, "node-local peers over shm (%zu local "
		     "addresses)\n", sd->host.count);
	return;

err_fabric:
	(void)fi_close(&sd->fabric->fid);
err_info:
	fi_freeinfo_1_3(sd->info);
err_host:
	rxm_shm_host_fini(&sd->host);
err:
	RXM_LOG_INFO(FI_LOG_DOMAIN, "no shm for node-local peers (%s: %s): "
		     "tcp for all\n", what, fi_strerror(-ret));
	memset(sd, 0, sizeof(*sd));
}

int rxm_shm_domain_close(struct rxm_shm_domain *sd)
{
	int ret;

	if (!sd->domain)
		return 0;
	ret = fi_close(&sd->domain->fid);
	if (ret)
		return ret;
	(void)fi_close(&sd->fabric->fid);
	fi_freeinfo_1_3(sd->info);
	rxm_shm_host_fini(&sd->host);
	memset(sd, 0, sizeof(*sd));
	return 0;
}

int rxm_shm_mr_twin(struct rxm_shm_domain *sd, struct fid_mr *mr)
{
	const struct pl_mr *m = pl_container_of(mr, struct pl_mr, mr_fid);
	struct fi_mr_attr attr = {
		.mr_iov = m->iov,
		.iov_count = m->iov_count,
		.access = m->access,
		.requested_key = m->key,
		.iface = FI_HMEM_SYSTEM,
	};
	struct fid_mr *twin;
	int ret;

	if (!sd->domain)
		return 0;
	ret = fi_mr_regattr(sd->domain, &attr, 0, &twin);
	if (ret)
		return ret;
	ret = pl_mr_set_twin(mr, twin);
	if (ret)
		(void)fi_close(&twin->fid);
	return ret;
}
