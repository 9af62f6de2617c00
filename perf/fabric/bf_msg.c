/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Connected (FI_EP_MSG) sides for the two-process benchmarks: rank 0
 * listens on 127.0.0.1 through a passive endpoint and accepts, rank 1
 * connects to the address rank 0 sends over the socketpair. Public API
 * only, so the same binary runs on the reference and on propel.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "bf_common.h"

/* Wait for one CM event of kind want; dies on anything else. */
static struct fi_info *bf_msg_wait(struct bf_side *side, uint32_t want)
{
	struct {
		struct fi_eq_cm_entry e;
		char data[256];
	} ent;
	struct fi_eq_err_entry err = { 0 };
	uint32_t event;
	ssize_t n;

	n = fi_eq_sread(side->eq, &event, &ent, sizeof(ent), 30000, 0);
	if (n == -FI_EAVAIL) {
		fi_eq_readerr(side->eq, &err, 0);
		bf_die_msg(side, "connection error event", -err.err);
	}
	if (n < 0)
		bf_die_msg(side, "fi_eq_sread", n);
	if (event != want)
		bf_die_msg(side, "unexpected CM event", -FI_EOTHER);
	return ent.e.info;
}

static void bf_msg_resources(struct bf_side *side)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT,
				      .wait_obj = FI_WAIT_NONE,
				      .size = 4 * BF_WINDOW };
	long ret;

	if ((ret = fi_domain(side->fabric, side->info, &side->domain, NULL)))
		bf_die_msg(side, "fi_domain", ret);
	if ((ret = fi_cq_open(side->domain, &cq_attr, &side->tx_cq, NULL)))
		bf_die_msg(side, "fi_cq_open tx", ret);
	if ((ret = fi_cq_open(side->domain, &cq_attr, &side->rx_cq, NULL)))
		bf_die_msg(side, "fi_cq_open rx", ret);
	if ((ret = fi_endpoint(side->domain, side->info, &side->ep, NULL)))
		bf_die_msg(side, "fi_endpoint", ret);
	if ((ret = fi_ep_bind(side->ep, &side->tx_cq->fid, FI_TRANSMIT)) ||
	    (ret = fi_ep_bind(side->ep, &side->rx_cq->fid, FI_RECV)) ||
	    (ret = fi_ep_bind(side->ep, &side->eq->fid, 0)))
		bf_die_msg(side, "fi_ep_bind", ret);
	if ((ret = fi_enable(side->ep)))
		bf_die_msg(side, "fi_enable", ret);
}

void bf_msg_open_connect(struct bf_side *side)
{
	struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_UNSPEC };
	struct fi_info *hints = bf_hints(side->opts), *pinfo = NULL;
	char name[128];
	size_t len = sizeof(name);
	long ret;

	if (!hints)
		bf_die_msg(side, "fi_allocinfo", -FI_ENOMEM);
	hints->addr_format = FI_SOCKADDR_IN;
	if (side->rank == 0) {
		ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "0",
				 FI_SOURCE, hints, &pinfo);
		if (ret)
			bf_die_msg(side, "fi_getinfo (listener)", ret);
		if ((ret = fi_fabric(pinfo->fabric_attr, &side->fabric, NULL)))
			bf_die_msg(side, "fi_fabric", ret);
		if ((ret = fi_eq_open(side->fabric, &eq_attr, &side->eq, NULL)))
			bf_die_msg(side, "fi_eq_open", ret);
		if ((ret = fi_passive_ep(side->fabric, pinfo, &side->pep, NULL)) ||
		    (ret = fi_pep_bind(side->pep, &side->eq->fid, 0)) ||
		    (ret = fi_listen(side->pep)))
			bf_die_msg(side, "passive endpoint", ret);
		if ((ret = fi_getname(&side->pep->fid, name, &len)))
			bf_die_msg(side, "fi_getname", ret);
		bf_sock_write(side, &len, sizeof(len));
		bf_sock_write(side, name, len);
		side->info = bf_msg_wait(side, FI_CONNREQ);
		bf_msg_resources(side);
		if ((ret = fi_accept(side->ep, NULL, 0)))
			bf_die_msg(side, "fi_accept", ret);
		(void)bf_msg_wait(side, FI_CONNECTED);
		fi_freeinfo(pinfo);
	} else {
		bf_sock_read(side, &len, sizeof(len));
		if (len > sizeof(name))
			bf_die_msg(side, "peer name too long", -FI_EINVAL);
		bf_sock_read(side, name, len);
		hints->dest_addr = malloc(len);
		if (!hints->dest_addr)
			bf_die_msg(side, "malloc", -FI_ENOMEM);
		memcpy(hints->dest_addr, name, len);
		hints->dest_addrlen = len;
		ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints,
				 &side->info);
		if (ret)
			bf_die_msg(side, "fi_getinfo (client)", ret);
		if ((ret = fi_fabric(side->info->fabric_attr, &side->fabric,
				     NULL)))
			bf_die_msg(side, "fi_fabric", ret);
		if ((ret = fi_eq_open(side->fabric, &eq_attr, &side->eq, NULL)))
			bf_die_msg(side, "fi_eq_open", ret);
		bf_msg_resources(side);
		if ((ret = fi_connect(side->ep, name, NULL, 0)))
			bf_die_msg(side, "fi_connect", ret);
		(void)bf_msg_wait(side, FI_CONNECTED);
	}
	fi_freeinfo(hints);
}

void bf_msg_close(struct bf_side *side)
{
	fi_close(&side->ep->fid);
	fi_close(&side->tx_cq->fid);
	fi_close(&side->rx_cq->fid);
	if (side->pep)
		fi_close(&side->pep->fid);
	fi_close(&side->eq->fid);
	fi_close(&side->domain->fid);
	fi_close(&side->fabric->fid);
}
