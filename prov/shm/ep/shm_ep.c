/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm FI_EP_RDM endpoint: open, bind, enable, names, close. The
 * RDM endpoint core (rdm_ep.h) does the rest: fi_msg / fi_tagged,
 * matching, completions, aliases, options, the locking strategy; the
 * region and its protocols are opened at fi_enable (shm_xfer_ep_open),
 * handed to the core as its transport (shm_ep_transport.c) and
 * registered as a progress source of the domain's context.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_fid_nosys.h"
#include "shm_addr.h"
#include "rdm_rma.h"
#include "rdm_peer_srx.h"
#include "rdm_sep.h"
#include "shm_atomic.h"
#include "shm_ep.h"
#include "shm_info.h"
#include "shm_params.h"

#define SHM_EP_OF_FID(f) ((struct shm_ep *)rdm_ep_of_fid(f))

/* Endpoint index in this process: part of the default name. relaxed:
 * only uniqueness matters. */
static pl_atomic_u32 shm_ep_next_idx;

static int shm_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	return rdm_ep_bind(&SHM_EP_OF_FID(fid)->rdm, bfid, flags);
}

/* Tries at fresh names when ours is taken (shm_ep_rename). */
#define SHM_EP_NAME_TRIES	64

/* A name we made ("fi_shm://...:<uid>:<idx>") is taken: another process
 * created its region first (a stale file, or a squatter: DESIGN.md 7a).
 * Take the next index; the name changes before anyone learned it
 * (fi_getname answers after fi_enable). */
static int shm_ep_rename(struct shm_ep *ep)
{
	/* relaxed: uniqueness only, as in shm_ep_name_init */
	unsigned idx = pl_fetch_add_relaxed(&shm_ep_next_idx, 1);
	char *colon = strrchr(ep->name, ':');
	size_t room;
	int n;

	if (!ep->auto_idx || ep->named || !colon)
		return -FI_EADDRINUSE;
	room = sizeof(ep->name) - (size_t)(colon + 1 - ep->name);
	n = snprintf(colon + 1, room, "%u", idx);
	return n < 0 || (size_t)n >= room ? -FI_EADDRINUSE : 0;
}

static int shm_ep_enable(struct shm_ep *ep)
{
	struct pl_progress_ctx *ctx = pl_domain_progress(&ep->dom->base.domain_fid);
	int ret, tries = 0;

	ret = rdm_ep_enable(&ep->rdm);
	if (ret)
		return ret;
	do
		ret = shm_xfer_ep_open(ep->name, &shm_ep_transport_xfer_ops, ep,
				       &ep->xep);
	while (ret == -FI_EADDRINUSE && ++tries < SHM_EP_NAME_TRIES &&
	       !shm_ep_rename(ep));
	if (ret)
		goto err_enabled;
	ep->rdm.ready = true;
	if (ep->rdm.sep)
		rdm_sep_ready(&ep->rdm);	/* its enabled contexts too */
	ep->src = (struct rdm_ep_source){
		.src = {
			.poll = rdm_ep_progress_poll,
			.arm = rdm_ep_progress_arm,
			.fd = shm_xfer_ep_fd(ep->xep),
			.name = "shm endpoint",
		},
		.ep = &ep->rdm,
		.ctx = ctx,
	};
	ret = pl_progress_source_add(ctx, &ep->src.src);
	if (ret)
		goto err_xep;
	ep->src_added = true;
	return 0;

err_xep:
	ep->rdm.ready = false;
	shm_xfer_ep_close(ep->xep);
	ep->xep = NULL;
err_enabled:
	ep->rdm.base.enabled = false;
	return ret;
}

/* fi_control: FI_ENABLE, FI_GETOPSFLAG / FI_SETOPSFLAG, FI_ALIAS. */
static int shm_ep_control(struct fid *fid, int command, void *arg)
{
	struct shm_ep *ep = SHM_EP_OF_FID(fid);

	switch (command) {
	case FI_ENABLE:
		return shm_ep_enable(ep);
	default:
		return rdm_ep_control(&ep->rdm, command, arg);
	}
}

static int shm_ep_close(struct fid *fid)
{
	struct shm_ep *ep = SHM_EP_OF_FID(fid);

	if (ep->rdm.naliases)
		return -FI_EBUSY;	/* fi_endpoint(3): aliases first */
	/* a peer still uses receives it took from this queue */
	if (rdm_peer_owner_busy(&ep->rdm))
		return -FI_EBUSY;
	if (ep->src_added)
		pl_progress_source_remove(
			pl_domain_progress(&ep->dom->base.domain_fid),
			&ep->src.src);
	/* the held messages go back to the layer before it closes
	 * (shm_xfer.h); sends still in flight then complete unreported */
	rdm_ep_close_rx(&ep->rdm);
	rdm_ep_lock(&ep->rdm);
	shm_xfer_ep_close(ep->xep);
	rdm_ep_unlock(&ep->rdm);
	/* the peer handles close after the endpoint's region (as
	 * shm_xfer_peer_close asks: no send in flight) */
	rdm_ep_fini(&ep->rdm);
	free(ep);
	return 0;
}

static int shm_ep_setopt(fid_t fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	return rdm_ep_setopt(&SHM_EP_OF_FID(fid)->rdm, level, optname,
			     optval, optlen);
}

static int shm_ep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	return pl_ep_getopt(&SHM_EP_OF_FID(fid)->rdm.base, level, optname, optval,
			    optlen);
}

static int shm_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct shm_ep *ep = SHM_EP_OF_FID(fid);
	size_t n;

	if (!addrlen)
		return -FI_EINVAL;
	n = strlen(ep->name) + 1;
	if (*addrlen < n || !addr) {
		*addrlen = n;
		return -FI_ETOOSMALL;
	}
	memcpy(addr, ep->name, n);
	*addrlen = n;
	return 0;
}

/* Before fi_enable only: the region is created under this name then. */
static int shm_ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct shm_ep *ep = SHM_EP_OF_FID(fid);

	if (shm_addr_check(addr, addrlen))
		return -FI_EINVAL;
	if (ep->rdm.base.enabled)
		return -FI_EOPBADSTATE;
	memset(ep->name, 0, sizeof(ep->name));
	memcpy(ep->name, addr, strlen(addr));
	ep->named = true;
	return 0;
}

static struct fi_ops shm_ep_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = shm_ep_close,
	.bind = shm_ep_bind,
	.control = shm_ep_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_ep shm_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = rdm_ep_rx_cancel,
	.getopt = shm_ep_getopt,
	.setopt = shm_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = rdm_ep_rx_size_left,
	.tx_size_left = rdm_ep_tx_size_left,
};

static struct fi_ops_cm shm_ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = shm_ep_setname,
	.getname = shm_ep_getname,
	.getpeer = pl_fid_nosys_cm_getpeer,
	.connect = pl_fid_nosys_cm_connect,
	.listen = pl_fid_nosys_cm_listen,
	.accept = pl_fid_nosys_cm_accept,
	.reject = pl_fid_nosys_cm_reject,
	.shutdown = pl_fid_nosys_cm_shutdown,
	.join = pl_fid_nosys_cm_join,
};

/* "fi_shm://<digits>": fi_getinfo's default source, the pid of the
 * process that asked. A child forked after fi_getinfo names its
 * endpoints after its own pid, or parent and child would collide. */
static bool shm_ep_is_pid_src(const char *s)
{
	size_t n = strlen(SHM_ADDR_PREFIX);

	if (strncmp(s, SHM_ADDR_PREFIX, n) || !s[n])
		return false;
	for (s += n; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int shm_ep_name_init(struct shm_ep *ep, const struct fi_info *info)
{
	char src[SHM_NAME_MAX];
	/* relaxed: uniqueness only */
	unsigned idx = pl_fetch_add_relaxed(&shm_ep_next_idx, 1);
	int n;

	if (info->src_addr && info->src_addrlen &&
	    !shm_addr_check(info->src_addr, info->src_addrlen) &&
	    !shm_ep_is_pid_src(info->src_addr))
		n = snprintf(src, sizeof(src), "%s", (char *)info->src_addr);
	else
		n = shm_addr_resolve(NULL, NULL, src, sizeof(src));
	if (n < 0)
		return n;
	n = shm_addr_ep_name(src, getuid(), idx, ep->name, sizeof(ep->name));
	if (n < 0)
		return n;
	ep->auto_idx = !strncmp(src, SHM_ADDR_PREFIX, strlen(SHM_ADDR_PREFIX));
	return 0;
}

int shm_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context)
{
	struct pl_domain *pd = pl_domain_of(domain);
	struct rdm_ep_attr attr = {
		.tops = &shm_ep_transport_ops,
		.tx_size = shm_params_get()->tx_size,
		.rx_size = shm_params_get()->rx_size,
		.iov_limit = SHM_IOV_LIMIT,
		.inject_size = SHM_INJECT_SIZE,
		.atomic_max_bytes = SHM_ATOMIC_MAX_BYTES,
		.rma_iov_local = SHM_XFER_IOV_MAX,
	};
	struct shm_ep *ep;
	int ret;

	if (!pd || !info || !ep_p)
		return -FI_EINVAL;
	if (info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->dom = (struct shm_domain *)pd;
	ret = shm_ep_name_init(ep, info);
	if (ret)
		goto err_free;
	ret = rdm_ep_init(&ep->rdm, domain, info, &attr, context);
	if (ret)
		goto err_free;

	ep->rdm.base.ep_fid.fid.ops = &shm_ep_fid_ops;
	ep->rdm.base.ep_fid.ops = &shm_ep_ops;
	ep->rdm.base.ep_fid.cm = &shm_ep_cm_ops;
	ep->rdm.base.ep_fid.rma = (struct fi_ops_rma *)&rdm_ep_rma_ops;
	ep->rdm.base.ep_fid.atomic =
		(struct fi_ops_atomic *)&rdm_ep_atomic_ops;
	*ep_p = &ep->rdm.base.ep_fid;
	return 0;

err_free:
	free(ep);
	return ret;
}

int shm_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_p, void *context)
{
	return rdm_sep_open(domain, info, sep_p, context, shm_ep_open);
}
