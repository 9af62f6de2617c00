/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An operation's buffers as the device sees them: scatter-gather entries
 * with local keys. A buffer with a verbs descriptor uses its MR's lkey.
 * One without (an application that did not take FI_MR_LOCAL, or rxm,
 * which sends from its own buffers) is registered through the domain's
 * registration cache, and the entry is held until the operation
 * completes (vrb_ep_cq.c), so the device never uses a registration the
 * cache dropped. The cache applies every unmap that returned before the
 * lookup, so a buffer freed and allocated again at the same address gets
 * a registration of its new pages (DESIGN.md section 6). A send the QP
 * can carry inline needs no key at all.
 */
#include <rdma/fi_errno.h>

#include "pl_mrc.h"
#include "vrb_prov.h"

void vrb_ep_sge_release(struct vrb_domain *dom, struct vrb_sgl *sgl)
{
	int i;

	for (i = 0; i < sgl->nmrc; i++)
		pl_mrc_put(dom->mrc, sgl->mrc[i]);
	sgl->nmrc = 0;
}

int vrb_ep_sge_fill(struct vrb_domain *dom, struct vrb_sgl *sgl, size_t max,
		    const struct iovec *iov, void **desc, size_t count,
		    size_t inline_max, uint64_t access)
{
	struct pl_mrc_entry *e;
	size_t i, len = 0;
	bool ok;
	int ret;

	sgl->n = 0;
	sgl->nmrc = 0;
	sgl->len = 0;
	if (count > max || count > VRB_IOV_MAX || (count && !iov))
		return -FI_EINVAL;
	for (i = 0; i < count; i++) {
		if (iov[i].iov_len > UINT32_MAX)
			return -FI_EMSGSIZE;
		len += iov[i].iov_len;
	}
	for (i = 0; i < count; i++) {
		struct ibv_sge *s = &sgl->sge[sgl->n];

		/* no entry for an empty buffer: some devices read a zero
		 * length in a scatter-gather entry as 2 GiB */
		if (!iov[i].iov_len)
			continue;
		/* a receive buffer at NULL without a descriptor holds
		 * nothing: only an empty message fits (a longer one
		 * completes in error). fabtests' fi_shared_ctx posts
		 * such receives for its empty messages. */
		if (!iov[i].iov_base) {
			if (access == FI_RECV && !(desc && desc[i])) {
				len -= iov[i].iov_len;
				continue;
			}
			/* nothing to send from (an inline copy would fault),
			 * nothing a descriptor can cover */
			ret = -FI_EINVAL;
			goto err;
		}
		s->addr = (uintptr_t)iov[i].iov_base;
		s->length = (uint32_t)iov[i].iov_len;
		s->lkey = 0;
		sgl->n++;
		if (desc && desc[i]) {
			s->lkey = vrb_mr_lkey(desc[i], &ok);
			if (!ok) {
				ret = -FI_EINVAL;	/* not a verbs MR */
				goto err;
			}
			continue;
		}
		if (len <= inline_max)
			continue;	/* the device copies it at the post */
		ret = pl_mrc_get(dom->mrc, iov[i].iov_base,
				 iov[i].iov_len, access, &e);
		if (ret)
			goto err;
		sgl->mrc[sgl->nmrc++] = e;
		s->lkey = vrb_mr_cache_mr(e)->lkey;
	}
	sgl->len = len;
	return 0;
err:
	vrb_ep_sge_release(dom, sgl);
	return ret;
}
