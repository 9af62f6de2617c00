/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One struct fi_info as text: the "fi_info:" block fi_info -v prints
 * (the next entries of a list are not followed; the tool prints each
 * itself). handle and nic go through pl_tostr_fid, so a nic created by a
 * provider prints its nested attributes through its own tostr op.
 */
#include <rdma/fabric.h>

#include "pl_tostr.h"

#define TAB PL_TOSTR_TAB

static void addr_line(char *buf, size_t len, const char *field,
		      uint32_t format, const void *addr)
{
	pl_tostr_catf(buf, len, TAB "%s: ", field);
	pl_tostr_addr_print(buf, len, format, addr);
	pl_tostr_catf(buf, len, "\n");
}

void pl_tostr_info_print(char *buf, size_t len, const struct fi_info *info)
{
	pl_tostr_catf(buf, len, "fi_info:\n");
	pl_tostr_catf(buf, len, TAB "caps: ");
	pl_tostr_flags_bracket(buf, len, &pl_tostr_flags_caps, info->caps);
	pl_tostr_catf(buf, len, "\n" TAB "mode: ");
	pl_tostr_flags_bracket(buf, len, &pl_tostr_flags_mode, info->mode);
	pl_tostr_catf(buf, len, "\n" TAB "addr_format: %s\n",
		      pl_tostr_enum_name(&pl_tostr_enum_addr_format,
					 info->addr_format));
	pl_tostr_catf(buf, len, TAB "src_addrlen: %zu\n", info->src_addrlen);
	pl_tostr_catf(buf, len, TAB "dest_addrlen: %zu\n", info->dest_addrlen);
	addr_line(buf, len, "src_addr", info->addr_format, info->src_addr);
	addr_line(buf, len, "dest_addr", info->addr_format, info->dest_addr);
	pl_tostr_fid(buf, len, TAB "handle: ", info->handle);
	pl_tostr_attr_tx(buf, len, info->tx_attr, TAB);
	pl_tostr_attr_rx(buf, len, info->rx_attr, TAB);
	pl_tostr_attr_ep(buf, len, info->ep_attr, TAB);
	pl_tostr_attr_domain(buf, len, info->domain_attr, TAB);
	pl_tostr_attr_fabric(buf, len, info->fabric_attr, TAB);
	/* fid_nic begins with its fid, so a NULL nic is a NULL fid. */
	pl_tostr_fid(buf, len, TAB "nic: ",
		     info->nic ? &info->nic->fid : NULL);
}
