/* SPDX-License-Identifier: BSD-2-Clause */
/* Endpoint bind-flag validation per fi_endpoint(3). The endpoint object
 * itself is pl_ep_obj.c. */
#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>

#include "pl_ep.h"

#define PL_EP_CQ_FLAGS (FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)
#define PL_EP_CNTR_FLAGS (FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
			  FI_REMOTE_READ | FI_REMOTE_WRITE)

int pl_ep_bind_check(size_t fclass, uint64_t flags)
{
	switch (fclass) {
	case FI_CLASS_CQ:
		/* a CQ must serve at least one direction */
		if (!(flags & (FI_TRANSMIT | FI_RECV)) ||
		    (flags & ~PL_EP_CQ_FLAGS))
			return -FI_EINVAL;
		return 0;
	case FI_CLASS_CNTR:
		if (!flags || (flags & ~PL_EP_CNTR_FLAGS))
			return -FI_EINVAL;
		return 0;
	case FI_CLASS_AV:
	case FI_CLASS_EQ:
	case FI_CLASS_SRX_CTX:
	case FI_CLASS_STX_CTX:
		return flags ? -FI_EINVAL : 0;
	default:
		return -FI_EINVAL;
	}
}
