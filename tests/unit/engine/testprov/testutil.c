/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Utility test provider "ofi_testutil" (see testprov.h): it turns each
 * FI_EP_MSG core answer it is shown into one FI_EP_RDM answer, the way a
 * reliable-datagram utility over a connection-oriented core would, and
 * absorbs the core's modes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "testprov.h"
#include "testprov_fabric.h"

__attribute__((visibility("default"))) struct testutil_probe testutil_probe;
/* fi_getinfo may be called from many threads at once. */
static pthread_mutex_t testutil_probe_lock = PTHREAD_MUTEX_INITIALIZER;

static int testutil_getinfo(uint32_t version, const char *node,
			    const char *service, uint64_t flags,
			    const struct fi_info *core, struct fi_info **info)
{
	struct fi_info *rdm;

	if (!core || !core->ep_attr || !core->fabric_attr)
		return -FI_ENODATA;
	pthread_mutex_lock(&testutil_probe_lock);
	testutil_probe.getinfo_calls++;
	testutil_probe.flags = flags;
	snprintf(testutil_probe.node, sizeof(testutil_probe.node), "%s",
		 node ? node : "");
	testutil_probe.saw_list |= core->next != NULL;
	snprintf(testutil_probe.core_prov_name,
		 sizeof(testutil_probe.core_prov_name), "%s",
		 core->fabric_attr->prov_name ? core->fabric_attr->prov_name :
		 "");
	pthread_mutex_unlock(&testutil_probe_lock);
	if (core->ep_attr->type != FI_EP_MSG)
		return -FI_ENODATA;

	rdm = fi_dupinfo(core);
	if (!rdm)
		return -FI_ENOMEM;
	rdm->caps = TESTUTIL_CAPS;
	rdm->mode = 0;
	rdm->tx_attr->caps = FI_MSG | FI_TAGGED | FI_SEND;
	rdm->tx_attr->mode = 0;
	rdm->rx_attr->caps = FI_MSG | FI_TAGGED | FI_RECV | FI_DIRECTED_RECV;
	rdm->rx_attr->mode = 0;
	rdm->ep_attr->type = FI_EP_RDM;
	rdm->ep_attr->protocol = FI_PROTO_RXM;
	rdm->ep_attr->mem_tag_format = TESTPROV_TAG_FORMAT;
	rdm->domain_attr->mr_mode = 0;
	rdm->domain_attr->threading = FI_THREAD_SAFE;
	*info = rdm;
	return 0;
}

static int testutil_fabric(struct fi_fabric_attr *attr,
			   struct fid_fabric **fabric, void *context)
{
	pthread_mutex_lock(&testutil_probe_lock);
	testutil_probe.fabric_calls++;
	snprintf(testutil_probe.fabric_prov_name,
		 sizeof(testutil_probe.fabric_prov_name), "%s",
		 attr->prov_name);
	pthread_mutex_unlock(&testutil_probe_lock);
	return testprov_fabric_open(attr, fabric, context);
}

static struct fi_provider testutil = {
	.version = TESTUTIL_VERSION,
	.fi_version = FI_VERSION(1, 18),
	.name = "ofi_testutil",
	.getinfo = testutil_getinfo,
	.fabric = testutil_fabric,
};

FI_EXT_INI
{
	return &testutil;
}
