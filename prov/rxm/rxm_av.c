/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rxm AV: the engine's (pl_av.h: RCU lookups, the FI_SOURCE reverse
 * map) over socket addresses of the domain's format, an rxm endpoint's
 * name (the address of its listener, rxm_conn.h).
 *
 * With shm as the domain's peer (rxm_shm.h), a private rxm AV has a twin
 * AV on the shm domain, kept in step by the engine's mirroring hooks:
 * each node-local address inserted here puts its derived shm name there
 * with FI_AV_USER_ID = its fi_addr_t here, so that shm's FI_SOURCE and
 * directed matching (through rxm's exported receive queue) speak rxm's
 * fi_addr_t; its removal removes the name. A named rxm AV has no twin
 * (other processes fill it): its peers go over the core.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "pl_compiler.h"
#include "pl_rcu.h"
#include "rxm_prov.h"

static int rxm_av_validate(struct fid_av *av, const void *addr)
{
	const struct sockaddr *sa = addr;
	size_t len = pl_av_addrlen(av);

	if (len == sizeof(struct sockaddr_in) && sa->sa_family == AF_INET)
		return 0;
	if (len == sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6)
		return 0;
	return -FI_EINVAL;
}

static void rxm_av_straddr(struct fid_av *av, const void *addr, char *buf,
			   size_t *len)
{
	const struct sockaddr *sa = addr;
	char ip[INET6_ADDRSTRLEN] = "?", out[INET6_ADDRSTRLEN + 40];
	int n;

	(void)av;
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = addr;

		(void)inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		n = snprintf(out, sizeof(out), "fi_sockaddr_in6://[%s]:%u",
			     ip, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in = addr;

		(void)inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		n = snprintf(out, sizeof(out), "fi_sockaddr_in://%s:%u", ip,
			     ntohs(in->sin_port));
	}
	if (*len) {
		size_t k = (size_t)n < *len - 1 ? (size_t)n : *len - 1;

		memcpy(buf, out, k);
		buf[k] = '\0';
	}
	*len = (size_t)n + 1;
}

static struct rxm_domain *rxm_av_dom(struct fid_av *av)
{
	return pl_container_of(pl_av_domain(av), struct rxm_domain,
			       base.domain_fid);
}

/* The twin's fi_addr_t of the rxm address addr, FI_ADDR_NOTAVAIL when
 * the twin does not hold it. The shm AV keeps each name NUL-padded to
 * its address size (prov/shm/ep/shm_ep.h), which is what its reverse
 * map is keyed by. Inside or outside pl_rcu_read_lock. */
fi_addr_t rxm_av_shm_addr(struct fid_av *av, const void *addr)
{
	struct fid_av *twin = pl_av_prov(av);
	struct rxm_domain *d = rxm_av_dom(av);
	char name[RXM_AV_SHM_ADDRLEN_MAX] = { 0 };
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	if (!twin || pl_av_addrlen(twin) > sizeof(name) ||
	    !rxm_shm_host_local(&d->shm.host, addr) ||
	    rxm_shm_name(&d->shm.host, addr, name, sizeof(name)) < 0)
		return FI_ADDR_NOTAVAIL;
	pl_rcu_read_lock();
	if (pl_av_reverse_lookup(twin, name, &fa, NULL))
		fa = FI_ADDR_NOTAVAIL;
	pl_rcu_read_unlock();
	return fa;
}

/* pl_av_addr_ops.inserted: a node-local address's shm name goes into the
 * twin, named by fi_addr. A failure leaves that peer on the core. */
static void rxm_av_inserted(struct fid_av *av, const void *addr,
			    fi_addr_t fi_addr)
{
	struct fid_av *twin = pl_av_prov(av);
	struct rxm_domain *d = rxm_av_dom(av);
	char name[RXM_SHM_NAME_MAX];
	fi_addr_t id = fi_addr;
	int ret;

	if (!twin || !rxm_shm_host_local(&d->shm.host, addr))
		return;
	ret = rxm_shm_name(&d->shm.host, addr, name, sizeof(name));
	if (ret >= 0)
		ret = fi_av_insert(twin, name, 1, &id, FI_AV_USER_ID, NULL);
	if (ret != 1)
		RXM_LOG_WARN(FI_LOG_AV, "node-local peer %llu stays on the "
			     "core: its shm name was not inserted (%d)\n",
			     (unsigned long long)fi_addr, ret);
}

/* pl_av_addr_ops.removed: the twin follows. */
static void rxm_av_removed(struct fid_av *av, const void *addr,
			   fi_addr_t fi_addr)
{
	fi_addr_t fa = rxm_av_shm_addr(av, addr);

	(void)fi_addr;
	if (fa != FI_ADDR_NOTAVAIL)
		(void)fi_av_remove(pl_av_prov(av), &fa, 1, 0);
}

/* pl_av_addr_ops.closed: the twin goes with it. Its endpoints (the rxm
 * endpoints' shm endpoints) closed first: the rxm endpoints held this
 * AV, so its close would have been -FI_EBUSY. */
static void rxm_av_closed(struct fid_av *av)
{
	struct fid_av *twin = pl_av_prov(av);

	if (twin && fi_close(&twin->fid))
		RXM_LOG_WARN(FI_LOG_AV, "the shm twin AV did not close\n");
}

static const struct pl_av_addr_ops rxm_av_addr_ops = {
	.validate = rxm_av_validate,
	.straddr = rxm_av_straddr,
	.inserted = rxm_av_inserted,
	.removed = rxm_av_removed,
	.closed = rxm_av_closed,
};

int rxm_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_p, void *context)
{
	struct rxm_domain *d = pl_container_of(domain, struct rxm_domain,
					       base.domain_fid);
	struct fi_av_attr tattr = { .type = FI_AV_TABLE };
	struct fid_av *av, *twin;
	int ret;

	ret = pl_av_open(domain, attr, d->addrlen, &rxm_av_addr_ops, &av,
			 context);
	if (ret || !d->shm.domain || attr->name)
		goto out;
	tattr.count = attr->count;
	/* before the AV is handed out: no insert can run yet */
	if (!fi_av_open(d->shm.domain, &tattr, &twin, NULL))
		pl_av_set_prov(av, twin);
	else
		RXM_LOG_INFO(FI_LOG_AV, "no shm twin AV: this AV's peers "
			     "go over the core\n");
out:
	if (!ret)
		*av_p = av;
	return ret;
}
