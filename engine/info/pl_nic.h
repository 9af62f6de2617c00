/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NIC descriptions (fi_info.nic, fi_nic(3)) as fi_dupinfo/fi_freeinfo
 * handle them. A copy we make owns its strings and sub-structs and
 * carries our fid ops, so that fi_close() frees it and
 * fi_control(FI_DUP) copies it, as applications may do with the nic of a
 * returned fi_info. Providers describe their NICs with pl_nic_dup() of a
 * template.
 */
#ifndef PROPEL_PL_NIC_H
#define PROPEL_PL_NIC_H

#include <rdma/fabric.h>

/*
 * Deep copy of nic. A nic whose fid ops are someone else's is asked for
 * its own copy (FI_DUP) first, and copied field by field if it cannot
 * give one. prov_attr is provider-private and of unknown size, so our
 * copies leave it NULL. Errors: -FI_ENOMEM.
 */
int pl_nic_dup(const struct fid_nic *nic, struct fid_nic **nic_p);

/*
 * Release nic: through its own close op when it carries foreign ops,
 * else by free() of every part, which is also right for a nic an
 * application assembled with malloc/strdup and no ops.
 */
void pl_nic_free(struct fid_nic *nic);

#endif /* PROPEL_PL_NIC_H */
