/* SPDX-License-Identifier: BSD-2-Clause */
#include "pl_trywait.h"
#include "pl_waitable.h"
#include "pl_eq.h"
#include "pl_cntr.h"

/* overridden by the CQ implementation (helper cq) */
__attribute__((weak)) struct pl_waitable *pl_cq_waitable(struct fid_cq *cq)
{
	(void)cq;
	return NULL;
}

int pl_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	struct pl_waitable *w;
	int i, ret;

	(void)fabric;
	if (count < 0 || (count && !fids))
		return -FI_EINVAL;
	for (i = 0; i < count; i++) {
		if (!fids[i])
			return -FI_EINVAL;
		switch (fids[i]->fclass) {
		case FI_CLASS_CQ:
			w = pl_cq_waitable((struct fid_cq *)fids[i]);
			break;
		case FI_CLASS_EQ:
			w = pl_eq_waitable((struct fid_eq *)fids[i]);
			break;
		case FI_CLASS_CNTR:
			w = pl_cntr_waitable((struct fid_cntr *)fids[i]);
			break;
		default:
			/* wait sets (FI_CLASS_WAIT): not implemented yet */
			return -FI_EINVAL;
		}
		if (!w || pl_waitable_kind(w) == FI_WAIT_NONE)
			return -FI_EINVAL;
		ret = pl_waitable_trywait(w);
		if (ret)
			return ret;
	}
	return 0;
}
