/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "nic:" block of fi_info text, as fi_info(1) documents it:
 *
 *     nic:
 *         fi_device_attr:
 *             name: mlx5_0
 *             ...
 *         fi_bus_attr:
 *             bus_type: FI_BUS_PCI
 *             fi_pci_attr:
 *                 domain_id: 0
 *                 ...
 *         fi_link_attr:
 *             address: (null)
 *             ...
 *
 * It is a fid op (fi_ops.tostr), so pl_tostr_fid hands it the start of the
 * buffer and the room left after the text already there; it appends.
 * prov_attr is provider-defined and not printed. No reference nic can be
 * built in this environment (the installed providers report none and the
 * reference's fi_dupinfo cannot copy an application's nic), so this block
 * follows the documented layout rather than an oracle run.
 */
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_tostr.h"

#define TAB PL_TOSTR_TAB

static void device_block(char *buf, size_t len,
			 const struct fi_device_attr *attr)
{
	if (!attr) {
		pl_tostr_catf(buf, len, TAB TAB "fi_device_attr: (null)\n");
		return;
	}
	pl_tostr_catf(buf, len, TAB TAB "fi_device_attr:\n");
	pl_tostr_catf(buf, len, TAB TAB TAB "name: %s\n",
		      pl_tostr_str(attr->name));
	pl_tostr_catf(buf, len, TAB TAB TAB "device_id: %s\n",
		      pl_tostr_str(attr->device_id));
	pl_tostr_catf(buf, len, TAB TAB TAB "device_version: %s\n",
		      pl_tostr_str(attr->device_version));
	pl_tostr_catf(buf, len, TAB TAB TAB "vendor_id: %s\n",
		      pl_tostr_str(attr->vendor_id));
	pl_tostr_catf(buf, len, TAB TAB TAB "driver: %s\n",
		      pl_tostr_str(attr->driver));
	pl_tostr_catf(buf, len, TAB TAB TAB "firmware: %s\n",
		      pl_tostr_str(attr->firmware));
}

static void bus_block(char *buf, size_t len, const struct fi_bus_attr *attr)
{
	if (!attr) {
		pl_tostr_catf(buf, len, TAB TAB "fi_bus_attr: (null)\n");
		return;
	}
	pl_tostr_catf(buf, len, TAB TAB "fi_bus_attr:\n");
	pl_tostr_catf(buf, len, TAB TAB TAB "bus_type: %s\n",
		      pl_tostr_enum_name(&pl_tostr_enum_bus_type,
					 (uint32_t)attr->bus_type));
	/* The union only means something for the bus it describes. */
	if (attr->bus_type != FI_BUS_PCI)
		return;
	pl_tostr_catf(buf, len, TAB TAB TAB "fi_pci_attr:\n");
	pl_tostr_catf(buf, len, TAB TAB TAB TAB "domain_id: %u\n",
		      (unsigned int)attr->attr.pci.domain_id);
	pl_tostr_catf(buf, len, TAB TAB TAB TAB "bus_id: %u\n",
		      (unsigned int)attr->attr.pci.bus_id);
	pl_tostr_catf(buf, len, TAB TAB TAB TAB "device_id: %u\n",
		      (unsigned int)attr->attr.pci.device_id);
	pl_tostr_catf(buf, len, TAB TAB TAB TAB "function_id: %u\n",
		      (unsigned int)attr->attr.pci.function_id);
}

static void link_block(char *buf, size_t len,
		       const struct fi_link_attr *attr)
{
	if (!attr) {
		pl_tostr_catf(buf, len, TAB TAB "fi_link_attr: (null)\n");
		return;
	}
	pl_tostr_catf(buf, len, TAB TAB "fi_link_attr:\n");
	pl_tostr_catf(buf, len, TAB TAB TAB "address: %s\n",
		      pl_tostr_str(attr->address));
	pl_tostr_catf(buf, len, TAB TAB TAB "mtu: %zu\n", attr->mtu);
	pl_tostr_catf(buf, len, TAB TAB TAB "speed: %zu\n", attr->speed);
	pl_tostr_catf(buf, len, TAB TAB TAB "state: %s\n",
		      pl_tostr_enum_name(&pl_tostr_enum_link_state,
					 (uint32_t)attr->state));
	pl_tostr_catf(buf, len, TAB TAB TAB "network_type: %s\n",
		      pl_tostr_str(attr->network_type));
}

int pl_tostr_nic_print(const struct fid *fid, char *buf, size_t len)
{
	const struct fid_nic *nic;

	if (!fid || !buf || !len)
		return -FI_EINVAL;
	/* struct fid_nic begins with its fid. */
	nic = (const struct fid_nic *)(const void *)fid;
	pl_tostr_catf(buf, len, TAB "nic:\n");
	device_block(buf, len, nic->device_attr);
	bus_block(buf, len, nic->bus_attr);
	link_block(buf, len, nic->link_attr);
	return 0;
}
