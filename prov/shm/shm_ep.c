/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm FI_EP_RDM endpoint: open, bind, enable, names, options, close.
 * The generic parts (bind references, enable checks, options) are the
 * engine's struct pl_ep; the region and its protocols are opened at
 * fi_enable (shm_xfer_ep_open) and registered as a progress source of
 * the domain's context. Data calls: shm_ep_msg.c, shm_ep_tagged.c.
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
#include "shm_ep.h"
#include "shm_params.h"

/* The endpoint behind an endpoint fid (an alias: its parent). */
static struct shm_ep *shm_ep_of_fid(struct fid *fid)
{
	uint64_t txf, rxf;

	return shm_ep_of(pl_container_of(fid, struct fid_ep, fid), &txf, &rxf);
}

#define SHM_EP_OF_FID(f) shm_ep_of_fid(f)

/* Endpoint index in this process: part of the default name. relaxed:
 * only uniqueness matters. */
static pl_atomic_u32 shm_ep_next_idx;

static int shm_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	return pl_ep_bind(&SHM_EP_OF_FID(fid)->base, bfid, flags);
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

	ret = pl_ep_enable(&ep->base);
	if (ret)
		return ret;
	do
		ret = shm_xfer_ep_open(ep->name, &shm_ep_xfer_ops, ep,
				       &ep->xep);
	while (ret == -FI_EADDRINUSE && ++tries < SHM_EP_NAME_TRIES &&
	       !shm_ep_rename(ep));
	if (ret)
		goto err_enabled;
	pl_match_set_min_multi_recv(&ep->match, ep->base.min_multi_recv);
	ep->src = (struct pl_progress_source){
		.poll = shm_ep_progress_poll,
		.arm = shm_ep_progress_arm,
		.fd = shm_xfer_ep_fd(ep->xep),
		.name = "shm endpoint",
	};
	ret = pl_progress_source_add(ctx, &ep->src);
	if (ret)
		goto err_xep;
	ep->src_added = true;
	return 0;

err_xep:
	shm_xfer_ep_close(ep->xep);
	ep->xep = NULL;
err_enabled:
	ep->base.enabled = false;
	return ret;
}

/* ---- fi_ep_alias ---- */

static int shm_ep_alias_close(struct fid *fid)
{
	struct shm_ep_alias *a = pl_container_of(fid, struct shm_ep_alias,
						 ep_fid.fid);

	a->ep->naliases--;
	free(a);
	return 0;
}

/* FI_GETOPSFLAG / FI_SETOPSFLAG on a pair of default op flags. */
static int shm_ep_opsflag(uint64_t *tx, uint64_t *rx, int command,
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
		*which = *flags & ~(FI_TRANSMIT | FI_RECV | SHM_EP_F_NOCOMP);
	return 0;
}

static int shm_ep_alias_control(struct fid *fid, int command, void *arg)
{
	struct shm_ep_alias *a = pl_container_of(fid, struct shm_ep_alias,
						 ep_fid.fid);

	switch (command) {
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		return shm_ep_opsflag(&a->tx_op_flags, &a->rx_op_flags,
				      command, arg);
	default:
		return -FI_ENOSYS;
	}
}

static int shm_ep_alias_bind(struct fid *fid, struct fid *bfid,
			     uint64_t flags)
{
	(void)fid;
	(void)bfid;
	(void)flags;
	return -FI_EINVAL;	/* resources are bound to the endpoint */
}

struct fi_ops shm_ep_alias_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = shm_ep_alias_close,
	.bind = shm_ep_alias_bind,
	.control = shm_ep_alias_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/*
 * fi_ep_alias (fi_control FI_ALIAS): a second fid on the endpoint that
 * differs only in its default op flags. alias->flags names the direction
 * (FI_TRANSMIT or FI_RECV, one of them) and the op flags it gets; the
 * other direction keeps the endpoint's. Aliases are closed before the
 * endpoint (its close answers -FI_EBUSY until then).
 */
static int shm_ep_alias_open(struct shm_ep *ep, struct fi_alias *alias)
{
	struct shm_ep_alias *a;
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
		a->tx_op_flags = f & ~(FI_TRANSMIT | SHM_EP_F_NOCOMP);
	else
		a->rx_op_flags = f & ~(FI_RECV | SHM_EP_F_NOCOMP);
	a->ep_fid = ep->base.ep_fid;	/* same data-path tables */
	a->ep_fid.fid.ops = &shm_ep_alias_fid_ops;
	/* fi_rma / fi_atomic resolve their endpoint with shm_ep_of */
	a->ep_fid.rma = (struct fi_ops_rma *)&shm_ep_rma_ops;
	a->ep_fid.atomic = (struct fi_ops_atomic *)&shm_ep_atomic_ops;
	ep->naliases++;
	*alias->fid = &a->ep_fid.fid;
	return 0;
}

/* fi_control: FI_ENABLE, FI_GETOPSFLAG / FI_SETOPSFLAG, FI_ALIAS. */
static int shm_ep_control(struct fid *fid, int command, void *arg)
{
	struct shm_ep *ep = SHM_EP_OF_FID(fid);

	switch (command) {
	case FI_ENABLE:
		return shm_ep_enable(ep);
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		return shm_ep_opsflag(&ep->tx_op_flags, &ep->rx_op_flags,
				      command, arg);
	case FI_ALIAS:
		return shm_ep_alias_open(ep, arg);
	default:
		return -FI_ENOSYS;
	}
}

static int shm_ep_close(struct fid *fid)
{
	struct shm_ep *ep = SHM_EP_OF_FID(fid);
	struct pl_match_unexp *ux;
	size_t i;
	int k;

	if (ep->naliases)
		return -FI_EBUSY;	/* fi_endpoint(3): aliases first */
	if (ep->src_added)
		pl_progress_source_remove(
			pl_domain_progress(&ep->dom->base.domain_fid),
			&ep->src);
	shm_ep_lock(ep);
	ep->closing = true;
	/* unexpected messages still held: their senders complete */
	for (k = 0; k < PL_MATCH_KINDS; k++)
		for (ux = pl_match_unexp_next(&ep->match, k, NULL); ux;
		     ux = pl_match_unexp_next(&ep->match, k, ux)) {
			if (ux->prov)
				shm_xfer_rx_discard(ux->prov);
			ux->prov = NULL;
		}
	shm_xfer_ep_close(ep->xep);
	shm_ep_rx_fini(ep);
	for (i = 0; i < ep->npeers; i++)
		shm_xfer_peer_close(ep->peers[i].xpeer);
	for (i = 0; i < ep->nretired; i++)
		shm_xfer_peer_close(ep->retired[i]);
	shm_ep_unlock(ep);

	pl_match_fini(&ep->match);
	pl_ep_fini(&ep->base);
	pthread_mutex_destroy(&ep->lock);
	free(ep->peers);
	free(ep->retired);
	free(ep->txe);
	free(ep);
	return 0;
}

/* fi_tx_size_left: free send entries (a send that needs none, inline,
 * takes none either); -FI_EOPBADSTATE before fi_enable. */
static ssize_t shm_ep_tx_size_left(struct fid_ep *e)
{
	struct shm_ep *ep = SHM_EP_OF_FID(&e->fid);
	struct shm_ep_txe *t;
	ssize_t n = 0;

	shm_ep_lock(ep);
	if (!ep->xep)
		n = -FI_EOPBADSTATE;
	else
		for (t = ep->txe_free; t; t = t->next)
			n++;
	shm_ep_unlock(ep);
	return n;
}

/* fi_rx_size_left: rx_attr->size less the receives posted (the matching
 * engine takes any number; the size is what we promised). */
static ssize_t shm_ep_rx_size_left(struct fid_ep *e)
{
	struct shm_ep *ep = SHM_EP_OF_FID(&e->fid);
	size_t size = shm_params_get()->rx_size, posted;
	ssize_t n;

	shm_ep_lock(ep);
	if (!ep->xep) {
		n = -FI_EOPBADSTATE;
	} else {
		posted = pl_match_posted_count(&ep->match, PL_MATCH_MSG) +
			 pl_match_posted_count(&ep->match, PL_MATCH_TAGGED);
		n = posted < size ? (ssize_t)(size - posted) : 0;
	}
	shm_ep_unlock(ep);
	return n;
}

static ssize_t shm_ep_cancel_op(fid_t fid, void *context)
{
	return shm_ep_cancel(fid, context);
}

static int shm_ep_setopt(fid_t fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	struct shm_ep *ep = SHM_EP_OF_FID(fid);
	int ret;

	ret = pl_ep_setopt(&ep->base, level, optname, optval, optlen);
	if (!ret && optname == FI_OPT_MIN_MULTI_RECV) {
		shm_ep_lock(ep);
		pl_match_set_min_multi_recv(&ep->match,
					    ep->base.min_multi_recv);
		shm_ep_unlock(ep);
	}
	return ret;
}

static int shm_ep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	return pl_ep_getopt(&SHM_EP_OF_FID(fid)->base, level, optname, optval,
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
	if (ep->base.enabled)
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
	.cancel = shm_ep_cancel_op,
	.getopt = shm_ep_getopt,
	.setopt = shm_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = shm_ep_rx_size_left,
	.tx_size_left = shm_ep_tx_size_left,
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
	struct pl_match_attr mattr = { 0 };
	struct pl_domain *pd = pl_domain_of(domain);
	struct shm_ep *ep;
	size_t i;
	int ret;

	if (!pd || !info || !ep_p)
		return -FI_EINVAL;
	if (info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ret = pl_ep_init(&ep->base, domain, info, context);
	if (ret)
		goto err_free;
	ep->base.type = FI_EP_RDM;
	ep->dom = (struct shm_domain *)pd;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	/* the application serializes every call on the domain itself only
	 * under FI_THREAD_DOMAIN; a progress thread (FI_PROGRESS_AUTO)
	 * runs beside it anyway, unless the context excludes it (asym,
	 * which it chooses for FI_THREAD_DOMAIN auto only) */
	if (pl_progress_ctx_uses_asym(pl_domain_progress(domain)))
		ep->asym = pl_domain_progress(domain);
	ep->locking = !ep->asym &&
		      !(pd->threading == FI_THREAD_DOMAIN &&
			pd->data_progress != FI_PROGRESS_AUTO);
	ret = pthread_mutex_init(&ep->lock, NULL);
	if (ret) {
		ret = -ret;
		goto err_base;
	}
	ret = shm_ep_name_init(ep, info);
	if (ret)
		goto err_lock;
	ret = pl_match_init(&ep->match, &mattr);
	if (ret)
		goto err_lock;
	ep->ntxe = shm_params_get()->tx_size;
	ep->txe = calloc(ep->ntxe, sizeof(*ep->txe));
	if (!ep->txe) {
		ret = -FI_ENOMEM;
		goto err_match;
	}
	for (i = ep->ntxe; i-- > 0;)
		shm_ep_txe_put(ep, &ep->txe[i]);

	ep->base.ep_fid.fid.ops = &shm_ep_fid_ops;
	ep->base.ep_fid.ops = &shm_ep_ops;
	ep->base.ep_fid.cm = &shm_ep_cm_ops;
	ep->base.ep_fid.msg = (struct fi_ops_msg *)&shm_ep_msg_ops;
	ep->base.ep_fid.tagged = (struct fi_ops_tagged *)&shm_ep_tagged_ops;
	ep->base.ep_fid.rma = (struct fi_ops_rma *)&shm_ep_rma_ops;
	ep->base.ep_fid.atomic = (struct fi_ops_atomic *)&shm_ep_atomic_ops;
	ep->base.ep_fid.collective =
		(struct fi_ops_collective *)&pl_fid_nosys_collective_ops;
	*ep_p = &ep->base.ep_fid;
	return 0;

err_match:
	pl_match_fini(&ep->match);
err_lock:
	pthread_mutex_destroy(&ep->lock);
err_base:
	pl_ep_fini(&ep->base);
err_free:
	free(ep);
	return ret;
}
