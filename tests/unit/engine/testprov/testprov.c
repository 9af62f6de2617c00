/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Core test provider "testprov" (see testprov.h). It answers the same
 * two fi_info whatever the hints say, so every filtering a test observes
 * was done by the engine.
 */
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "testprov.h"
#include "testprov_fabric.h"

#ifndef TESTPROV_VERSION
#define TESTPROV_VERSION 1
#endif

__attribute__((visibility("default"))) struct testprov_probe testprov_probe;
/* fi_getinfo may be called from many threads at once. */
static pthread_mutex_t testprov_probe_lock = PTHREAD_MUTEX_INITIALIZER;

static void testprov_copy(char *dst, size_t len, const char *src, int *null)
{
	*null = !src;
	snprintf(dst, len, "%s", src ? src : "");
}

static struct fid_nic *testprov_nic(void)
{
	struct fid_nic *nic = calloc(1, sizeof(*nic));

	if (!nic)
		return NULL;
	/* Built the way an application would: plain malloc, no ops. */
	nic->fid.fclass = FI_CLASS_NIC;
	nic->device_attr = calloc(1, sizeof(*nic->device_attr));
	nic->bus_attr = calloc(1, sizeof(*nic->bus_attr));
	nic->link_attr = calloc(1, sizeof(*nic->link_attr));
	if (nic->device_attr)
		nic->device_attr->name = strdup(TESTPROV_NIC);
	if (nic->bus_attr) {
		nic->bus_attr->bus_type = FI_BUS_PCI;
		nic->bus_attr->attr.pci.bus_id = 3;
	}
	if (nic->link_attr) {
		nic->link_attr->address = strdup("00:11:22:33:44:55");
		nic->link_attr->mtu = 1500;
		nic->link_attr->state = FI_LINK_UP;
	}
	return nic;
}

static struct fi_info *testprov_msg_info(void)
{
	struct fi_info *info = fi_allocinfo();
	struct sockaddr_in *sin;

	if (!info)
		return NULL;
	info->caps = TESTPROV_A_CAPS;
	info->mode = FI_CONTEXT;
	info->addr_format = FI_SOCKADDR_IN;
	sin = calloc(1, sizeof(*sin));
	if (sin) {
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		info->src_addr = sin;
		info->src_addrlen = sizeof(*sin);
	}
	info->tx_attr->caps = FI_MSG | FI_RMA | FI_SEND | FI_READ | FI_WRITE;
	info->tx_attr->msg_order = FI_ORDER_SAS;
	info->tx_attr->inject_size = 64;
	info->tx_attr->size = 1024;
	info->tx_attr->iov_limit = 4;
	info->tx_attr->rma_iov_limit = 4;
	info->rx_attr->caps = FI_MSG | FI_RMA | FI_RECV | FI_REMOTE_READ |
			      FI_REMOTE_WRITE | FI_MULTI_RECV | FI_SOURCE;
	info->rx_attr->msg_order = FI_ORDER_SAS;
	info->rx_attr->size = 1024;
	info->rx_attr->iov_limit = 4;
	info->ep_attr->type = FI_EP_MSG;
	info->ep_attr->protocol = FI_PROTO_SOCK_TCP;
	info->ep_attr->protocol_version = 1;
	info->ep_attr->max_msg_size = 1 << 20;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->name = strdup(TESTPROV_DOMAIN_A);
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->av_type = FI_AV_UNSPEC;
	info->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_PROV_KEY;
	info->domain_attr->mr_key_size = 8;
	info->domain_attr->cq_data_size = 8;
	info->domain_attr->cq_cnt = 16;
	info->domain_attr->ep_cnt = 128;
	info->domain_attr->tx_ctx_cnt = 1;
	info->domain_attr->rx_ctx_cnt = 1;
	info->domain_attr->max_ep_tx_ctx = 1;
	info->domain_attr->max_ep_rx_ctx = 1;
	info->domain_attr->mr_iov_limit = 1;
	info->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
	info->fabric_attr->name = strdup(TESTPROV_FABRIC);
	info->fabric_attr->prov_name = strdup("testprov");
	info->nic = testprov_nic();
	return info;
}

static struct fi_info *testprov_rdm_info(void)
{
	struct fi_info *info = fi_allocinfo();

	if (!info)
		return NULL;
	info->caps = TESTPROV_B_CAPS;
	info->addr_format = FI_ADDR_STR;
	info->tx_attr->caps = FI_MSG | FI_TAGGED | FI_SEND;
	info->tx_attr->size = 256;
	info->tx_attr->iov_limit = 1;
	info->rx_attr->caps = FI_MSG | FI_TAGGED | FI_RECV | FI_DIRECTED_RECV;
	info->rx_attr->size = 256;
	info->rx_attr->iov_limit = 1;
	info->ep_attr->type = FI_EP_RDM;
	info->ep_attr->max_msg_size = 1 << 16;
	info->ep_attr->mem_tag_format = TESTPROV_TAG_FORMAT;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->name = strdup(TESTPROV_DOMAIN_B);
	info->domain_attr->threading = FI_THREAD_DOMAIN;
	info->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->resource_mgmt = FI_RM_DISABLED;
	info->domain_attr->av_type = FI_AV_TABLE;
	info->domain_attr->cq_cnt = 16;
	info->domain_attr->ep_cnt = 16;
	info->fabric_attr->name = strdup(TESTPROV_FABRIC);
	return info;
}

static int testprov_getinfo(uint32_t version, const char *node,
			    const char *service, uint64_t flags,
			    const struct fi_info *hints, struct fi_info **info)
{
	struct fi_info *a, *b;

	pthread_mutex_lock(&testprov_probe_lock);
	testprov_probe.getinfo_calls++;
	testprov_probe.version = version;
	testprov_probe.flags = flags;
	testprov_probe.hints_null = !hints;
	testprov_copy(testprov_probe.node, sizeof(testprov_probe.node), node,
		      &testprov_probe.node_null);
	testprov_copy(testprov_probe.service, sizeof(testprov_probe.service),
		      service, &testprov_probe.service_null);
	pthread_mutex_unlock(&testprov_probe_lock);

	a = testprov_msg_info();
	b = testprov_rdm_info();
	if (!a || !b) {
		fi_freeinfo(a);
		fi_freeinfo(b);
		return -FI_ENOMEM;
	}
	a->next = b;
	*info = a;
	return 0;
}

static int testprov_fabric(struct fi_fabric_attr *attr,
			   struct fid_fabric **fabric, void *context)
{
	int null;

	pthread_mutex_lock(&testprov_probe_lock);
	testprov_probe.fabric_calls++;
	testprov_probe.fabric_context = context;
	testprov_copy(testprov_probe.fabric_prov_name,
		      sizeof(testprov_probe.fabric_prov_name),
		      attr->prov_name, &null);
	pthread_mutex_unlock(&testprov_probe_lock);
	if (strcmp(attr->name, TESTPROV_FABRIC))
		return -FI_ENODATA;
	return testprov_fabric_open(attr, fabric, context);
}

static struct fi_provider testprov;

static void testprov_cleanup(void)
{
	const char *path = getenv("TESTPROV_CLEANUP_FILE");
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "cleanup %s %u\n", testprov.name,
		FI_MAJOR(testprov.version));
	fclose(f);
}

static struct fi_provider testprov = {
	.version = FI_VERSION(TESTPROV_VERSION, 0),
	.fi_version = FI_VERSION(1, 18),
	.name = "testprov",
	.getinfo = testprov_getinfo,
	.fabric = testprov_fabric,
	.cleanup = testprov_cleanup,
};

FI_EXT_INI
{
	const char *v = getenv("TESTPROV_FI_VERSION");
	unsigned major, minor;

	if (v && sscanf(v, "%u.%u", &major, &minor) == 2)
		testprov.fi_version = FI_VERSION(major, minor);
	return &testprov;
}
