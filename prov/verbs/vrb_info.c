/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs provider's fi_getinfo answer: one entry per IP address that
 * rdma_cm binds to an RDMA device (an rdma_cm id bound to the address
 * names the device and port), as the reference lists them. The domain is
 * the device ("rxe0"), the fabric the subnet prefix of the port's GID
 * ("IB-0x..."), and addresses are sockaddrs for rdma_cm. FI_VERBS_IFACE
 * and FI_VERBS_DEVICE_NAME narrow the list; the engine then matches the
 * entries against the hints.
 *
 * Limits come from the device: queue sizes from max_qp_wr and, because
 * one CQ takes an endpoint's sends and receives, from max_cqe (rxe's is
 * 32767, so a large FI_VERBS_TX_SIZE cannot make CQ creation fail); iov
 * limits from max_sge; the message size from the port's max_msg_sz.
 */
#include <arpa/inet.h>
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
#include "vrb_cm_data.h"
#include "vrb_params.h"
#include "vrb_prov.h"

#define VRB_TX_CAPS (FI_MSG | FI_RMA | FI_SEND | FI_READ | FI_WRITE)
#define VRB_RX_CAPS (FI_MSG | FI_RMA | FI_RECV | FI_REMOTE_READ | \
		     FI_REMOTE_WRITE)
#define VRB_DOMAIN_CAPS (FI_LOCAL_COMM | FI_REMOTE_COMM)
/* RC delivers in order on one QP; an RDMA read may pass a later write
 * or send (war), so FI_ORDER_WAR / SAR are not promised */
#define VRB_MSG_ORDER (FI_ORDER_RAR | FI_ORDER_RAW | FI_ORDER_RAS | \
		       FI_ORDER_WAW | FI_ORDER_WAS | FI_ORDER_SAW | \
		       FI_ORDER_SAS)

size_t vrb_addrlen(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

int vrb_name_out(const struct sockaddr *sa, void *addr, size_t *addrlen)
{
	size_t len = vrb_addrlen(sa);

	if (!addrlen)
		return -FI_EINVAL;
	if (!len)
		return -FI_EADDRNOTAVAIL;
	if (!addr || *addrlen < len) {
		*addrlen = len;
		return -FI_ETOOSMALL;
	}
	memcpy(addr, sa, len);
	*addrlen = len;
	return 0;
}

static void *vrb_addr_dup(const struct sockaddr *sa, size_t *len_p)
{
	size_t len = vrb_addrlen(sa);
	void *p;

	if (!len)
		return NULL;
	p = malloc(len);
	if (p) {
		memcpy(p, sa, len);
		*len_p = len;
	}
	return p;
}

static bool vrb_gid_v4_mapped(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

int vrb_info_gid_idx(struct ibv_context *verbs, uint8_t port)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int want = vrb_params_get()->gid_idx, idx, any_v2 = -1;

	if (want >= 0)
		return want;
	if (ibv_query_port(verbs, port, &pa))
		return 0;
	for (idx = 0; idx < pa.gid_tbl_len; idx++) {
		if (ibv_query_gid_ex(verbs, port, (uint32_t)idx, &e, 0))
			continue;	/* an empty slot */
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (vrb_gid_v4_mapped(&e.gid))
			return idx;
		if (any_v2 < 0)
			any_v2 = idx;
	}
	return any_v2 >= 0 ? any_v2 : 0;
}

/* One address bound to a device: what rdma_cm says about it. */
struct vrb_info_dev {
	struct ibv_context *verbs;
	uint8_t port;
};

static bool vrb_info_bind(const struct sockaddr *sa, struct vrb_info_dev *d)
{
	struct rdma_cm_id *id;
	bool ok = false;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return false;
	if (!rdma_bind_addr(id, (struct sockaddr *)sa) && id->verbs) {
		d->verbs = id->verbs;
		d->port = id->port_num;
		ok = true;
	}
	rdma_destroy_id(id);
	return ok;
}

static size_t vrb_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

static void vrb_info_attrs(struct fi_info *info, const struct ibv_device_attr *a,
			   const struct ibv_port_attr *pa)
{
	const struct vrb_params *p = vrb_params_get();
	size_t cqe = a->max_cqe > 2 ? (size_t)a->max_cqe : 2;
	size_t tx = vrb_min(p->tx_size, (size_t)a->max_qp_wr);
	size_t rx = vrb_min(p->rx_size, (size_t)a->max_qp_wr);

	/* one CQ holds both directions: keep tx + rx within max_cqe */
	if (tx + rx > cqe) {
		tx = vrb_min(tx, cqe / 2);
		rx = vrb_min(rx, cqe - tx);
	}
	info->caps = VRB_TX_CAPS | VRB_RX_CAPS | VRB_DOMAIN_CAPS;
	info->mode = 0;
	info->tx_attr->caps = VRB_TX_CAPS;
	info->rx_attr->caps = VRB_RX_CAPS;
	/* the device's own 8-byte atomics (vrb_ep_atomic.c) */
	if (a->atomic_cap != IBV_ATOMIC_NONE) {
		info->caps |= FI_ATOMIC;
		info->tx_attr->caps |= FI_ATOMIC;
		info->rx_attr->caps |= FI_ATOMIC;
	}

	info->tx_attr->msg_order = VRB_MSG_ORDER;
	/* a send queue completes in the order it was posted (RC) */
	info->tx_attr->comp_order = FI_ORDER_STRICT;
	info->tx_attr->inject_size = p->inline_size;
	info->tx_attr->size = tx;
	info->tx_attr->iov_limit = vrb_min(p->tx_iov_limit,
					   (size_t)a->max_sge);
	info->tx_attr->rma_iov_limit = 1;

	info->rx_attr->msg_order = VRB_MSG_ORDER;
	info->rx_attr->comp_order = FI_ORDER_STRICT;
	info->rx_attr->size = rx;
	info->rx_attr->iov_limit = vrb_min(p->rx_iov_limit,
					   (size_t)a->max_sge);

	info->ep_attr->type = FI_EP_MSG;
	info->ep_attr->protocol = FI_PROTO_RDMA_CM_IB_RC;
	info->ep_attr->protocol_version = VRB_CM_DATA_VERSION;
	info->ep_attr->max_msg_size = pa->max_msg_sz;
	info->ep_attr->msg_prefix_size = 0;
	info->ep_attr->max_order_raw_size = pa->max_msg_sz;
	info->ep_attr->max_order_waw_size = pa->max_msg_sz;
	info->ep_attr->max_order_war_size = 0;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;

	info->domain_attr->caps = VRB_DOMAIN_CAPS;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->av_type = FI_AV_UNSPEC;
	info->domain_attr->mr_mode = VRB_MR_MODE;
	info->domain_attr->mr_key_size = sizeof(uint32_t);
	/* immediate data is 32 bits on the wire */
	info->domain_attr->cq_data_size = sizeof(uint32_t);
	info->domain_attr->cq_cnt = (size_t)a->max_cq;
	info->domain_attr->ep_cnt = (size_t)a->max_qp;
	info->domain_attr->tx_ctx_cnt = (size_t)a->max_qp;
	info->domain_attr->rx_ctx_cnt = (size_t)a->max_qp;
	info->domain_attr->max_ep_tx_ctx = 1;
	info->domain_attr->max_ep_rx_ctx = 1;
	/* fi_srx_context is an SRQ: as many as the device makes (an
	 * endpoint binds one, rx_ctx_cnt FI_SHARED_CONTEXT) */
	info->domain_attr->max_ep_srx_ctx = a->max_srq > 0 && a->max_srq_wr > 0 ?
					    (size_t)a->max_srq : 0;
	info->domain_attr->mr_iov_limit = 1;
	info->domain_attr->mr_cnt = (size_t)a->max_mr;
}

struct vrb_info_req {
	uint32_t version;
	const struct fi_info *hints;
	bool has_src, has_dest, has_route;
	struct sockaddr_storage src, dest, route;
};

static struct fi_info *vrb_info_one(const struct vrb_info_req *r,
				    const struct ifaddrs *ifa,
				    const struct vrb_info_dev *d)
{
	const struct fi_info *hints = r->hints;
	struct ibv_device_attr a;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct sockaddr_storage src;
	struct fi_info *info;
	char fab[32];
	int gidx;

	if (ibv_query_device(d->verbs, &a) || ibv_query_port(d->verbs,
							     d->port, &pa))
		return NULL;
	info = fi_dupinfo_1_3(NULL);
	if (!info)
		return NULL;
	vrb_info_attrs(info, &a, &pa);
	if (hints && hints->domain_attr &&
	    hints->domain_attr->data_progress == FI_PROGRESS_AUTO)
		info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	if (hints && hints->tx_attr)
		info->tx_attr->op_flags = hints->tx_attr->op_flags &
			(FI_INJECT | FI_COMPLETION | FI_INJECT_COMPLETE |
			 FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE);
	if (hints && hints->rx_attr)
		info->rx_attr->op_flags = hints->rx_attr->op_flags &
					  FI_COMPLETION;
	/* immediate data consumes a posted receive on any verbs device:
	 * an application that says it can post them for it is told so
	 * (and then posts them); others get the same behaviour without
	 * the bit (prov/verbs/docs/provider.md) */
	if (hints && ((hints->mode | (hints->rx_attr ? hints->rx_attr->mode :
				      0)) & FI_RX_CQ_DATA)) {
		info->mode |= FI_RX_CQ_DATA;
		info->rx_attr->mode |= FI_RX_CQ_DATA;
	}
	/* an application that says it does not register local buffers
	 * (modern mr_mode without FI_MR_LOCAL) is not asked to: the
	 * provider registers them through its cache (vrb_ep_sge.c) */
	if (hints && hints->domain_attr &&
	    r->version >= FI_VERSION(1, 5) &&
	    !(hints->domain_attr->mr_mode & (FI_MR_LOCAL | FI_MR_BASIC |
					      FI_MR_SCALABLE)))
		info->domain_attr->mr_mode &= ~FI_MR_LOCAL;
	gidx = vrb_info_gid_idx(d->verbs, d->port);
	memset(&gid, 0, sizeof(gid));
	(void)ibv_query_gid(d->verbs, d->port, gidx, &gid);
	snprintf(fab, sizeof(fab), "IB-0x%016llx",
		 (unsigned long long)be64toh(gid.global.subnet_prefix));
	info->addr_format = ifa->ifa_addr->sa_family == AF_INET6 ?
			    FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	info->fabric_attr->name = strdup(fab);
	info->fabric_attr->prov_name = strdup("verbs");
	info->fabric_attr->prov_version = vrb_prov.version;
	info->fabric_attr->api_version = r->version;
	info->domain_attr->name = strdup(ibv_get_device_name(d->verbs->device));
	if (!info->fabric_attr->name || !info->fabric_attr->prov_name ||
	    !info->domain_attr->name)
		goto err;
	if (r->has_src) {
		src = r->src;
	} else {
		memset(&src, 0, sizeof(src));
		memcpy(&src, ifa->ifa_addr, vrb_addrlen(ifa->ifa_addr));
		if (src.ss_family == AF_INET)
			((struct sockaddr_in *)&src)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&src)->sin6_port = 0;
	}
	info->src_addr = vrb_addr_dup((struct sockaddr *)&src,
				      &info->src_addrlen);
	if (!info->src_addr)
		goto err;
	if (r->has_dest) {
		info->dest_addr = vrb_addr_dup((struct sockaddr *)&r->dest,
					       &info->dest_addrlen);
		if (!info->dest_addr)
			goto err;
	}
	return info;
err:
	fi_freeinfo_1_3(info);
	return NULL;
}

static int vrb_info_addrs(struct vrb_info_req *r, const char *node,
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
		}
	} else if (node || service) {
		ret = pl_sockaddr_resolve(node ? node : "localhost", service,
					  false, &r->dest);
		if (ret)
			return ret;
		r->has_dest = true;
	}
	if (hints && hints->src_addr && !r->has_src) {
		if (!vrb_addrlen(hints->src_addr) ||
		    hints->src_addrlen < vrb_addrlen(hints->src_addr))
			return -FI_ENODATA;
		memcpy(&r->src, hints->src_addr, vrb_addrlen(hints->src_addr));
		r->has_src = true;
	}
	if (hints && hints->dest_addr && !r->has_dest) {
		if (!vrb_addrlen(hints->dest_addr) ||
		    hints->dest_addrlen < vrb_addrlen(hints->dest_addr))
			return -FI_ENODATA;
		memcpy(&r->dest, hints->dest_addr,
		       vrb_addrlen(hints->dest_addr));
		r->has_dest = true;
	}
	if (r->has_dest)
		r->has_route = pl_sockaddr_route_src(&r->dest, &r->route);
	return 0;
}

static bool vrb_info_usable(const struct vrb_info_req *r,
			    const struct ifaddrs *ifa)
{
	const char *only = vrb_params_get()->iface;
	int fam;

	if (!ifa->ifa_addr || !(ifa->ifa_flags & IFF_UP))
		return false;
	fam = ifa->ifa_addr->sa_family;
	if (fam != AF_INET && fam != AF_INET6)
		return false;
	/* the reference takes a prefix ("eth" matches eth0) */
	if (only && strncmp(only, ifa->ifa_name, strlen(only)))
		return false;
	if (r->has_dest && fam != r->dest.ss_family)
		return false;
	if (r->has_src && fam != r->src.ss_family)
		return false;
	if (r->has_src && !pl_sockaddr_wild(&r->src) &&
	    !pl_sockaddr_same_ip(ifa->ifa_addr, (const void *)&r->src))
		return false;
	if (r->hints && r->hints->addr_format == FI_SOCKADDR_IN &&
	    fam != AF_INET)
		return false;
	if (r->hints && r->hints->addr_format == FI_SOCKADDR_IN6 &&
	    fam != AF_INET6)
		return false;
	return true;
}

int vrb_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info_p)
{
	struct vrb_info_req r = { .version = version, .hints = hints };
	struct fi_info *head = NULL, **tail = &head, *info;
	const char *devname = vrb_params_get()->device;
	struct ibv_context **devs;
	struct ifaddrs *ifs, *ifa;
	struct vrb_info_dev d;
	int ret, pass, ndev = 0;

	if (hints && hints->addr_format && hints->addr_format != FI_SOCKADDR &&
	    hints->addr_format != FI_SOCKADDR_IN &&
	    hints->addr_format != FI_SOCKADDR_IN6)
		return -FI_ENODATA;
	if (vrb_fork_check())
		return -FI_ENODATA;	/* a forked child: warned */
	ret = vrb_info_addrs(&r, node, service, flags);
	if (ret)
		return ret;
	/* rdma_cm's device list: without a device there is nothing to
	 * bind, and the per-address look below would only fail */
	devs = rdma_get_devices(&ndev);
	if (!devs || !ndev) {
		if (devs)
			rdma_free_devices(devs);
		return -FI_ENODATA;
	}
	if (getifaddrs(&ifs)) {
		rdma_free_devices(devs);
		return -FI_ENODATA;
	}
	/* pass 0: the address routing toward the destination; pass 1:
	 * the others */
	for (pass = 0; pass < 2; pass++) {
		for (ifa = ifs; ifa; ifa = ifa->ifa_next) {
			bool route;

			if (!vrb_info_usable(&r, ifa))
				continue;
			route = r.has_route &&
				pl_sockaddr_same_ip(ifa->ifa_addr, (void *)&r.route);
			if ((pass == 0) != route)
				continue;
			if (!vrb_info_bind(ifa->ifa_addr, &d))
				continue;
			if (devname && strcmp(devname, ibv_get_device_name(
						       d.verbs->device)))
				continue;
			info = vrb_info_one(&r, ifa, &d);
			if (!info)
				continue;
			*tail = info;
			tail = &info->next;
		}
	}
	freeifaddrs(ifs);
	rdma_free_devices(devs);
	if (!head)
		return -FI_ENODATA;
	*info_p = head;
	return 0;
}
