/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_ep_alias (fi_control FI_ALIAS): a second fid on an RDM endpoint that
 * differs only in its default op flags. Its data calls run the
 * endpoint's own tables, which resolve the endpoint with rdm_ep_of().
 * Aliases are opened and closed on the control path, which the
 * application serializes with the endpoint's other control calls
 * (fi_endpoint(3)); the endpoint's close answers -FI_EBUSY while any is
 * open.
 */
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_fid_nosys.h"
#include "rdm_ep.h"

static int rdm_ep_alias_close(struct fid *fid)
{
	struct rdm_ep_alias *a = pl_container_of(fid, struct rdm_ep_alias,
						 ep_fid.fid);

	a->ep->naliases--;
	free(a);
	return 0;
}

int rdm_ep_alias_opsflag(uint64_t *tx, uint64_t *rx, int command,
			 uint64_t *flags)
{
	uint64_t *which;

	if (!flags || ((*flags & FI_TRANSMIT) && (*flags & FI_RECV)))
		return -FI_EINVAL;
	if (*flags & FI_TRANSMIT)
		which = tx;
	else if (*flags & FI_RECV)
		which = rx;
	else
		return -FI_EINVAL;
	if (command == FI_GETOPSFLAG)
		*flags = *which;
	else
		*which = RDM_EP_APP_FLAGS(*flags & ~(FI_TRANSMIT | FI_RECV));
	return 0;
}

static int rdm_ep_alias_control(struct fid *fid, int command, void *arg)
{
	struct rdm_ep_alias *a = pl_container_of(fid, struct rdm_ep_alias,
						 ep_fid.fid);

	switch (command) {
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		return rdm_ep_alias_opsflag(&a->tx_op_flags, &a->rx_op_flags,
					    command, arg);
	default:
		return -FI_ENOSYS;
	}
}

static int rdm_ep_alias_bind(struct fid *fid, struct fid *bfid,
			     uint64_t flags)
{
	(void)fid;
	(void)bfid;
	(void)flags;
	return -FI_EINVAL;	/* resources are bound to the endpoint */
}

struct fi_ops rdm_ep_alias_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = rdm_ep_alias_close,
	.bind = rdm_ep_alias_bind,
	.control = rdm_ep_alias_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/* alias->flags names the direction (FI_TRANSMIT or FI_RECV, one of them)
 * and the op flags it gets; the other direction keeps the endpoint's. */
int rdm_ep_alias_open(struct rdm_ep *ep, struct fi_alias *alias)
{
	struct rdm_ep_alias *a;
	uint64_t f;

	if (!alias || !alias->fid)
		return -FI_EINVAL;
	f = alias->flags;
	if (!(f & FI_TRANSMIT) == !(f & FI_RECV))
		return -FI_EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -FI_ENOMEM;
	a->ep = ep;
	a->tx_op_flags = ep->tx_op_flags;
	a->rx_op_flags = ep->rx_op_flags;
	if (f & FI_TRANSMIT)
		a->tx_op_flags = RDM_EP_APP_FLAGS(f & ~FI_TRANSMIT);
	else
		a->rx_op_flags = RDM_EP_APP_FLAGS(f & ~FI_RECV);
	/* the same data-path tables (msg, tagged, rma, atomic ...): each
	 * resolves its endpoint with rdm_ep_of */
	a->ep_fid = ep->base.ep_fid;
	a->ep_fid.fid.ops = &rdm_ep_alias_fid_ops;
	ep->naliases++;
	*alias->fid = &a->ep_fid.fid;
	return 0;
}
