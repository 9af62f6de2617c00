/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp provider's fi_getinfo answer: one entry per address of each
 * usable interface (up, IPv4 or IPv6), as the reference lists them:
 * the fabric is the address's network ("192.0.2.0/24"), the domain the
 * interface's name. FI_TCP_IFACE keeps one interface. The engine then
 * matches the entries against the hints.
 *
 * Addresses (fi_getinfo(3)): with FI_SOURCE, node/service name the
 * source (a node-less service binds the wildcard address of the entry's
 * family, so a listener answers on every interface); otherwise they name
 * the destination, entries of the destination's family only, and the
 * interface the kernel would route through to it comes first.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_info.h"
#include "pl_sockaddr.h"
#include "tcp_params.h"
#include "tcp_prov.h"
#include "tcp_proto.h"
#include "tcp_sock.h"

#define TCP_TX_CAPS (FI_MSG | FI_TAGGED | FI_RMA | FI_SEND | FI_READ | \
		     FI_WRITE)
#define TCP_RX_CAPS (FI_MSG | FI_TAGGED | FI_RMA | FI_RECV | \
		     FI_REMOTE_READ | FI_REMOTE_WRITE | FI_MULTI_RECV)
#define TCP_DOMAIN_CAPS (FI_LOCAL_COMM | FI_REMOTE_COMM)
#define TCP_MSG_ORDER (FI_ORDER_RAR | FI_ORDER_RAW | FI_ORDER_RAS | \
		       FI_ORDER_WAW | FI_ORDER_WAS | FI_ORDER_SAW | \
		       FI_ORDER_SAS)

static void tcp_info_attrs(struct fi_info *info)
{
	const struct tcp_params *p = tcp_params_get();

	info->caps = TCP_TX_CAPS | TCP_RX_CAPS | TCP_DOMAIN_CAPS;
	info->mode = 0;

	info->tx_attr->caps = TCP_TX_CAPS;
	info->tx_attr->op_flags = 0;
	info->tx_attr->msg_order = TCP_MSG_ORDER;
	/* a write completes on its acknowledgement, a send when it left:
	 * a later send can complete first */
	info->tx_attr->comp_order = FI_ORDER_NONE;
	info->tx_attr->inject_size = p->max_inject;
	info->tx_attr->size = p->tx_size;
	info->tx_attr->iov_limit = TCP_IOV_MAX;
	info->tx_attr->rma_iov_limit = TCP_RMA_IOV_MAX;

	info->rx_attr->caps = TCP_RX_CAPS;
	info->rx_attr->op_flags = 0;
	info->rx_attr->msg_order = TCP_MSG_ORDER;
	info->rx_attr->comp_order = FI_ORDER_STRICT;
	info->rx_attr->size = p->rx_size;
	info->rx_attr->iov_limit = TCP_IOV_MAX;

	info->ep_attr->type = FI_EP_MSG;
	info->ep_attr->protocol = FI_PROTO_SOCK_TCP;
	info->ep_attr->protocol_version = TCP_PROTO_VERSION;
	info->ep_attr->max_msg_size = SIZE_MAX;
	info->ep_attr->max_order_raw_size = SIZE_MAX;
	info->ep_attr->max_order_waw_size = SIZE_MAX;
	info->ep_attr->max_order_war_size = 0;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;

	info->domain_attr->caps = TCP_DOMAIN_CAPS;
	info->domain_attr->threading = FI_THREAD_SAFE;
	/* connection management runs on its own thread; data is driven by
	 * the application unless it asks for FI_PROGRESS_AUTO */
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->av_type = FI_AV_UNSPEC;
	info->domain_attr->mr_mode = 0;
	info->domain_attr->mr_key_size = sizeof(uint64_t);
	info->domain_attr->cq_data_size = sizeof(uint64_t);
	info->domain_attr->cq_cnt = 256;
	info->domain_attr->ep_cnt = 8192;
	info->domain_attr->tx_ctx_cnt = 8192;
	info->domain_attr->rx_ctx_cnt = 8192;
	info->domain_attr->max_ep_tx_ctx = 1;
	info->domain_attr->max_ep_rx_ctx = 1;
	info->domain_attr->max_ep_srx_ctx = 8192;
	info->domain_attr->mr_iov_limit = 1;
}

/* "a.b.c.d/len" of the network of addr under mask. */
static void tcp_info_net_name(const struct sockaddr *addr,
			      const struct sockaddr *mask, char *buf,
			      size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned bits = 0, i;

	if (addr->sa_family == AF_INET) {
		struct in_addr a = ((const struct sockaddr_in *)addr)->sin_addr;
		uint32_t m = mask ? ntohl(((const struct sockaddr_in *)mask)->
					  sin_addr.s_addr) : 0xffffffffu;

		a.s_addr &= htonl(m);
		bits = (unsigned)__builtin_popcount(m);
		inet_ntop(AF_INET, &a, host, sizeof(host));
	} else {
		struct in6_addr a = ((const struct sockaddr_in6 *)addr)->
				    sin6_addr;
		const uint8_t *m = mask ? ((const struct sockaddr_in6 *)mask)->
					  sin6_addr.s6_addr : NULL;

		for (i = 0; i < 16; i++) {
			uint8_t mb = m ? m[i] : 0xff;

			a.s6_addr[i] &= mb;
			bits += (unsigned)__builtin_popcount(mb);
		}
		inet_ntop(AF_INET6, &a, host, sizeof(host));
	}
	snprintf(buf, len, "%s/%u", host, bits);
}

static void tcp_info_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

struct tcp_info_req {
	uint32_t version;
	const struct fi_info *hints;
	bool has_src, src_wild;		/* source given / wildcard */
	struct sockaddr_storage src;
	bool has_dest;
	struct sockaddr_storage dest;
	bool has_route;
	struct sockaddr_storage route;	/* local address toward dest */
};

static struct fi_info *tcp_info_one(const struct tcp_info_req *r,
				    const struct ifaddrs *ifa)
{
	const struct fi_info *hints = r->hints;
	struct sockaddr_storage src;
	struct fi_info *info;
	char net[INET6_ADDRSTRLEN + 8];

	info = fi_dupinfo_1_3(NULL);
	if (!info)
		return NULL;
	tcp_info_attrs(info);
	if (hints && hints->domain_attr) {
		if (hints->domain_attr->data_progress == FI_PROGRESS_AUTO)
			info->domain_attr->data_progress = FI_PROGRESS_AUTO;
		/* default operation flags the application asks for
		 * (fi_getinfo(3)) and the endpoint honours */
		if (hints->rx_attr)
			info->rx_attr->op_flags = hints->rx_attr->op_flags &
				(FI_MULTI_RECV | FI_COMPLETION);
		if (hints->tx_attr)
			info->tx_attr->op_flags = hints->tx_attr->op_flags &
				(FI_INJECT | FI_COMPLETION |
				 FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE |
				 FI_DELIVERY_COMPLETE);
		/* connection management progresses on its own either way;
		 * an application that says it will drive it is told so */
		if (hints->domain_attr->control_progress ==
		    FI_PROGRESS_MANUAL)
			info->domain_attr->control_progress =
				FI_PROGRESS_MANUAL;
	}
	info->addr_format = ifa->ifa_addr->sa_family == AF_INET6 ?
			    FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	tcp_info_net_name(ifa->ifa_addr, ifa->ifa_netmask, net, sizeof(net));
	info->fabric_attr->name = strdup(net);
	info->fabric_attr->prov_name = strdup("tcp");
	info->fabric_attr->prov_version = tcp_prov.version;
	info->fabric_attr->api_version = r->version;
	info->domain_attr->name = strdup(ifa->ifa_name);
	if (!info->fabric_attr->name || !info->fabric_attr->prov_name ||
	    !info->domain_attr->name)
		goto err;
	memset(&src, 0, sizeof(src));
	if (r->has_src) {
		src = r->src;
		if (r->src_wild) {
			uint16_t port = ntohs(src.ss_family == AF_INET ?
				((struct sockaddr_in *)&src)->sin_port :
				((struct sockaddr_in6 *)&src)->sin6_port);

			memset(&src, 0, sizeof(src));
			src.ss_family = ifa->ifa_addr->sa_family;
			tcp_info_set_port(&src, port);
		}
	} else {
		memcpy(&src, ifa->ifa_addr, tcp_sock_addrlen(ifa->ifa_addr));
		tcp_info_set_port(&src, 0);
	}
	info->src_addr = tcp_sock_addr_dup((struct sockaddr *)&src,
					   &info->src_addrlen);
	if (!info->src_addr)
		goto err;
	if (r->has_dest) {
		info->dest_addr = tcp_sock_addr_dup((void *)&r->dest,
						    &info->dest_addrlen);
		if (!info->dest_addr)
			goto err;
	}
	return info;
err:
	fi_freeinfo_1_3(info);
	return NULL;
}

static bool tcp_info_usable(const struct tcp_info_req *r,
			    const struct ifaddrs *ifa)
{
	const char *only = tcp_params_get()->iface;
	int fam;

	if (!ifa->ifa_addr || !(ifa->ifa_flags & IFF_UP))
		return false;
	fam = ifa->ifa_addr->sa_family;
	if (fam != AF_INET && fam != AF_INET6)
		return false;
	if (only && strcmp(only, ifa->ifa_name))
		return false;
	if (r->has_dest && fam != r->dest.ss_family)
		return false;
	if (r->has_src && fam != r->src.ss_family && !r->src_wild)
		return false;
	if (r->has_src && !r->src_wild &&
	    !pl_sockaddr_same_ip(ifa->ifa_addr, (const void *)&r->src))
		return false;
	return true;
}

static int tcp_info_addrs(struct tcp_info_req *r, const char *node,
			  const char *service, uint64_t flags)
{
	const struct fi_info *hints = r->hints;
	int ret;

	if (flags & FI_SOURCE) {
		if (node || service) {
			ret = pl_sockaddr_resolve(node, service, true, &r->src);
			if (ret)
				return ret;
			r->has_src = true;
			r->src_wild = !node || pl_sockaddr_wild(&r->src);
		}
	} else if (node || service) {
		if (!node)
			node = "localhost";
		ret = pl_sockaddr_resolve(node, service, false, &r->dest);
		if (ret)
			return ret;
		r->has_dest = true;
	}
	if (hints && hints->src_addr && !r->has_src) {
		if (!tcp_sock_addr_ok(hints->src_addr, hints->src_addrlen))
			return -FI_ENODATA;
		memcpy(&r->src, hints->src_addr,
		       tcp_sock_addrlen(hints->src_addr));
		r->has_src = true;
		r->src_wild = pl_sockaddr_wild(&r->src);
	}
	if (hints && hints->dest_addr && !r->has_dest) {
		if (!tcp_sock_addr_ok(hints->dest_addr, hints->dest_addrlen))
			return -FI_ENODATA;
		memcpy(&r->dest, hints->dest_addr,
		       tcp_sock_addrlen(hints->dest_addr));
		r->has_dest = true;
	}
	if (r->has_dest)
		r->has_route = pl_sockaddr_route_src(&r->dest, &r->route);
	return 0;
}

int tcp_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info_p)
{
	struct tcp_info_req r = { .version = version, .hints = hints };
	struct fi_info *head = NULL, **tail = &head, *info;
	struct ifaddrs *ifs, *ifa;
	int ret, pass;

	if (hints && hints->addr_format && hints->addr_format != FI_SOCKADDR &&
	    hints->addr_format != FI_SOCKADDR_IN &&
	    hints->addr_format != FI_SOCKADDR_IN6)
		return -FI_ENODATA;
	ret = tcp_info_addrs(&r, node, service, flags);
	if (ret)
		return ret;
	if (getifaddrs(&ifs))
		return -FI_ENODATA;
	/* pass 0: the interface that routes to the destination; pass 1:
	 * the other interfaces; pass 2: loopback, last (as the reference
	 * lists them: a listener that takes the first entry is then
	 * reachable from other hosts) */
	for (pass = 0; pass < 3; pass++) {
		for (ifa = ifs; ifa; ifa = ifa->ifa_next) {
			bool route;

			if (!tcp_info_usable(&r, ifa))
				continue;
			route = r.has_route &&
				pl_sockaddr_same_ip(ifa->ifa_addr,
						 (void *)&r.route);
			if ((pass == 0) != route)
				continue;
			if (pass && (pass == 2) !=
			    !!(ifa->ifa_flags & IFF_LOOPBACK))
				continue;
			if (hints && hints->addr_format == FI_SOCKADDR_IN &&
			    ifa->ifa_addr->sa_family != AF_INET)
				continue;
			if (hints && hints->addr_format == FI_SOCKADDR_IN6 &&
			    ifa->ifa_addr->sa_family != AF_INET6)
				continue;
			info = tcp_info_one(&r, ifa);
			if (!info) {
				ret = -FI_ENOMEM;
				goto out;
			}
			*tail = info;
			tail = &info->next;
		}
	}
	ret = head ? 0 : -FI_ENODATA;
out:
	freeifaddrs(ifs);
	if (ret) {
		if (head)
			fi_freeinfo_1_3(head);
		return ret;
	}
	*info_p = head;
	return 0;
}
