/* SPDX-License-Identifier: BSD-2-Clause */
#include "pl_trywait.h"
#include "pl_waitable.h"
#include "pl_wait_set.h"
#include "pl_eq.h"
#include "pl_cntr.h"
#include "pl_cq.h"

/* The wait object of one fid, or NULL for a class without one. */
static struct pl_waitable *pl_trywait_waitable(struct fid *fid)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return pl_cq_waitable((struct fid_cq *)fid);
	case FI_CLASS_EQ:
		return pl_eq_waitable((struct fid_eq *)fid);
	case FI_CLASS_CNTR:
		return pl_cntr_waitable((struct fid_cntr *)fid);
	default:
		return NULL;
	}
}

/* The kind of native object behind fid; FI_WAIT_NONE when it has none
 * (wrong class, foreign object, FI_WAIT_NONE). */
static enum fi_wait_obj pl_trywait_kind(struct fid *fid)
{
	struct pl_waitable *w;

	if (fid->fclass == FI_CLASS_WAIT)
		return pl_wait_set_kind((struct fid_wait *)fid);
	w = pl_trywait_waitable(fid);
	return w ? pl_waitable_kind(w) : FI_WAIT_NONE;
}

/*
 * fi_poll(3): every fid must use the same kind of wait object, so all
 * are checked before any is tried (a bad list changes nothing).
 */
int pl_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	enum fi_wait_obj kind = FI_WAIT_NONE, k;
	int i, ret;

	(void)fabric;
	if (count < 0 || (count && !fids))
		return -FI_EINVAL;
	for (i = 0; i < count; i++) {
		if (!fids[i])
			return -FI_EINVAL;
		k = pl_trywait_kind(fids[i]);
		if (k == FI_WAIT_NONE || (i && k != kind))
			return -FI_EINVAL;
		kind = k;
	}
	for (i = 0; i < count; i++) {
		if (fids[i]->fclass == FI_CLASS_WAIT)
			ret = pl_wait_set_trywait((struct fid_wait *)fids[i]);
		else
			ret = pl_waitable_trywait(pl_trywait_waitable(fids[i]));
		if (ret)
			return ret;
	}
	return 0;
}
