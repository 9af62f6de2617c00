/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Attribute-by-attribute matching of one provider answer against the
 * application's hints. Where the man pages leave the rule open, the
 * choice and the reference behaviour it was checked against are noted at
 * the spot. Every refusal is logged at info level with its reason, which
 * is what a user debugging "why is my provider not listed" needs.
 */
#include <stdbool.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "pl_hints_caps.h"
#include "pl_hints_match.h"
#include "pl_hints_opflags.h"
#include "pl_info.h"
#include "pl_log.h"
#include "pl_tostr.h"

static const char *pl_hints_match_who(const struct fi_info *info)
{
	return info->fabric_attr->prov_name ? info->fabric_attr->prov_name :
	       "provider";
}

/* Log why info is refused (fmt is a literal) and refuse it. */
#define PL_REFUSE(info, fmt, ...)					\
	do {								\
		PL_INFO(FI_LOG_CORE, "%s: " fmt,			\
			pl_hints_match_who(info), ##__VA_ARGS__);	\
		return -FI_ENODATA;					\
	} while (0)

/* Bit sets in refusals are logged by name (pl_tostr_flags_names). */
#define PL_NAMES_LEN	512
#define PL_NAMES(buf, set, v) \
	pl_tostr_flags_names((buf), sizeof(buf), &pl_tostr_flags_##set, (v))

/* A requested size or count (0: any) above what the provider offers. */
#define PL_LIMIT(info, hint, prov, field)				\
	do {								\
		if ((hint)->field && (hint)->field > (prov)->field)	\
			PL_REFUSE(info, #field " %zu above its %zu\n",	\
				  (size_t)(hint)->field,		\
				  (size_t)(prov)->field);		\
	} while (0)

int pl_hints_match_check(const char *node, const char *service,
			 uint64_t flags, const struct fi_info *hints)
{
	bool dest_used = (!node && !service) || (flags & FI_SOURCE);

	if ((flags & FI_SOURCE) && !node && !service)
		return -FI_EINVAL;
	if (!hints)
		return 0;
	if (!(flags & FI_SOURCE) && hints->src_addr && !hints->src_addrlen)
		return -FI_EINVAL;
	if (dest_used && hints->dest_addr && !hints->dest_addrlen)
		return -FI_EINVAL;
	if (hints->ep_attr && hints->ep_attr->auth_key &&
	    !hints->ep_attr->auth_key_size)
		return -FI_EINVAL;
	if (hints->domain_attr && hints->domain_attr->auth_key &&
	    !hints->domain_attr->auth_key_size)
		return -FI_EINVAL;
	return 0;
}

/* FI_SOCKADDR asks for "some sockaddr", which the specific ones are. */
static bool pl_hints_match_addr(uint32_t want, uint32_t have)
{
	if (!want || want == have)
		return true;
	return want == FI_SOCKADDR &&
	       (have == FI_SOCKADDR_IN || have == FI_SOCKADDR_IN6 ||
		have == FI_SOCKADDR_IB);
}

static bool pl_hints_match_str(const char *want, const char *have)
{
	return !want || (have && !strcmp(want, have));
}

static int pl_hints_match_caps(const struct fi_info *hints,
			       struct fi_info *info)
{
	uint64_t want_tx = hints->caps, want_rx = hints->caps;
	bool strict_tx = false, strict_rx = false;
	uint64_t caps, tx_caps, rx_caps;
	char n1[PL_NAMES_LEN];

	if (hints->tx_attr && hints->tx_attr->caps) {
		want_tx = hints->tx_attr->caps;
		strict_tx = true;
	}
	if (hints->rx_attr && hints->rx_attr->caps) {
		want_rx = hints->rx_attr->caps;
		strict_rx = true;
	}
	if (pl_hints_caps_select(hints->caps, info->caps, true, &caps))
		PL_REFUSE(info, "caps not offered: %s\n",
			  PL_NAMES(n1, caps, hints->caps & ~info->caps));
	if (pl_hints_caps_select(want_tx, info->tx_attr->caps, strict_tx,
				 &tx_caps))
		PL_REFUSE(info, "tx caps not offered: %s\n",
			  PL_NAMES(n1, caps, want_tx & ~info->tx_attr->caps));
	if (pl_hints_caps_select(want_rx, info->rx_attr->caps, strict_rx,
				 &rx_caps))
		PL_REFUSE(info, "rx caps not offered: %s\n",
			  PL_NAMES(n1, caps, want_rx & ~info->rx_attr->caps));
	/* Domain capabilities are all secondary and describe the domain
	 * (fi_domain(3)): requested ones must be there, the rest stay. */
	if (hints->domain_attr &&
	    (hints->domain_attr->caps & ~info->domain_attr->caps))
		PL_REFUSE(info, "domain caps not offered: %s\n",
			  PL_NAMES(n1, caps, hints->domain_attr->caps &
				   ~info->domain_attr->caps));
	info->caps = caps;
	info->tx_attr->caps = tx_caps;
	info->rx_attr->caps = rx_caps;
	return 0;
}

/*
 * Modes are requirements on the application: a provider needing a bit the
 * application did not set is refused; bits it does not need it never
 * reported, so they come back cleared. A tx or rx mode of zero in the
 * hints stands for the fi_info mode; the domain's one mode bit
 * (FI_RESTRICTED_COMP) is also an fi_info mode bit, so setting it at
 * either level accepts it.
 */
static int pl_hints_match_mode_level(const struct fi_info *info,
				     uint64_t need, uint64_t ok,
				     const char *level)
{
	char n1[PL_NAMES_LEN];

	if (need & ~ok)
		PL_REFUSE(info, "needs %s mode bits the application does not "
			  "accept: %s\n", level, PL_NAMES(n1, mode, need & ~ok));
	return 0;
}

static int pl_hints_match_modes(uint32_t version, const struct fi_info *hints,
				struct fi_info *info)
{
	uint64_t tx_ok = hints->mode, rx_ok = hints->mode;
	uint64_t dom_ok = hints->mode;
	char n1[PL_NAMES_LEN], n2[PL_NAMES_LEN];
	int mr_mode;

	if (hints->tx_attr && hints->tx_attr->mode)
		tx_ok = hints->tx_attr->mode;
	if (hints->rx_attr && hints->rx_attr->mode)
		rx_ok = hints->rx_attr->mode;
	if (hints->domain_attr)
		dom_ok |= hints->domain_attr->mode;

	/* info->caps is already what the application is granted
	 * (pl_hints_match_caps runs first) */
	if (pl_hints_caps_mr_mode(version, hints,
				  pl_hints_caps_mr_need(info->domain_attr->mr_mode,
							info->caps),
				  &mr_mode, &info->mode))
		PL_REFUSE(info, "mr_mode [ %s ] cannot serve the requested "
			  "[ %s ]\n",
			  PL_NAMES(n1, mr_mode, (unsigned)
				   pl_hints_caps_mr_need(
					info->domain_attr->mr_mode,
					info->caps)),
			  PL_NAMES(n2, mr_mode, hints->domain_attr ?
				   (unsigned)hints->domain_attr->mr_mode : 0));
	if (pl_hints_match_mode_level(info, info->mode, hints->mode, "info") ||
	    pl_hints_match_mode_level(info, info->tx_attr->mode, tx_ok, "tx") ||
	    pl_hints_match_mode_level(info, info->rx_attr->mode, rx_ok, "rx") ||
	    pl_hints_match_mode_level(info, info->domain_attr->mode, dom_ok,
				      "domain"))
		return -FI_ENODATA;
	info->domain_attr->mr_mode = mr_mode;
	return 0;
}

/* want: the hints' count of contexts; have: the answer's (its default);
 * max_ep: contexts per endpoint the domain allows (scalable endpoints),
 * max_shared: shared contexts per endpoint. */
static int pl_hints_match_ctx_cnt(const struct fi_info *info, size_t want,
				  size_t *have, size_t max_ep,
				  size_t max_shared)
{
	if (want == FI_SHARED_CONTEXT) {
		if (!max_shared)
			PL_REFUSE(info, "no shared contexts\n");
		/* granted: the endpoint's count says so, as asked */
		*have = FI_SHARED_CONTEXT;
		return 0;
	}
	if (want > *have && want > max_ep)
		PL_REFUSE(info, "%zu contexts above its %zu\n", want,
			  max_ep > *have ? max_ep : *have);
	if (want > *have)
		*have = want;
	return 0;
}

static int pl_hints_match_ep(const struct fi_ep_attr *h, struct fi_info *info)
{
	struct fi_ep_attr *p = info->ep_attr;
	const struct fi_domain_attr *d = info->domain_attr;

	if (h->type && h->type != p->type)
		PL_REFUSE(info, "endpoint type %d, not %d\n", p->type, h->type);
	if (h->protocol && h->protocol != p->protocol)
		PL_REFUSE(info, "protocol %u, not %u\n", p->protocol,
			  h->protocol);
	PL_LIMIT(info, h, p, protocol_version);
	PL_LIMIT(info, h, p, max_msg_size);
	PL_LIMIT(info, h, p, max_order_raw_size);
	PL_LIMIT(info, h, p, max_order_war_size);
	PL_LIMIT(info, h, p, max_order_waw_size);
	if (pl_hints_match_ctx_cnt(info, h->tx_ctx_cnt, &p->tx_ctx_cnt,
				   d->max_ep_tx_ctx, d->max_ep_stx_ctx) ||
	    pl_hints_match_ctx_cnt(info, h->rx_ctx_cnt, &p->rx_ctx_cnt,
				   d->max_ep_rx_ctx, d->max_ep_srx_ctx))
		return -FI_ENODATA;
	/* The application's tag layout must fit in the provider's bits; it
	 * then comes back as the one in use. A provider giving no format,
	 * or the generic one (all 64 bits, no fields), takes any. */
	if (h->mem_tag_format) {
		if (p->mem_tag_format &&
		    p->mem_tag_format != PL_TAG_FORMAT_GENERIC &&
		    (h->mem_tag_format & ~p->mem_tag_format))
			PL_REFUSE(info, "tag format %#llx does not fit %#llx\n",
				  (unsigned long long)h->mem_tag_format,
				  (unsigned long long)p->mem_tag_format);
		p->mem_tag_format = h->mem_tag_format;
	}
	return 0;
}

/*
 * How much serialization each threading model promises (fi_domain(3)):
 * DOMAIN covers all objects of a domain, COMPLETION those sharing a CQ,
 * ENDPOINT one endpoint with its contexts, FID one object; SAFE promises
 * nothing. An application promising at least what the provider needs is
 * served. (The reference compares the enum values, which agrees except
 * that it lets FID serve an ENDPOINT provider; that would be unsafe.)
 */
static int pl_hints_thread_rank(enum fi_threading t)
{
	switch (t) {
	case FI_THREAD_UNSPEC:
	case FI_THREAD_SAFE:
		return 0;
	case FI_THREAD_FID:
		return 1;
	case FI_THREAD_ENDPOINT:
		return 2;
	case FI_THREAD_COMPLETION:
		return 3;
	case FI_THREAD_DOMAIN:
		return 4;
	default:
		return -1;
	}
}

static int pl_hints_match_enums(const struct fi_domain_attr *h,
				struct fi_info *info)
{
	struct fi_domain_attr *p = info->domain_attr;

	if (h->threading) {
		int want = pl_hints_thread_rank(h->threading);

		if (want < 0 || want < pl_hints_thread_rank(p->threading))
			PL_REFUSE(info, "threading %d cannot serve %d\n",
				  p->threading, h->threading);
		/* The provider may drop locks the application now makes
		 * unnecessary: it reads this when the domain is opened. */
		p->threading = h->threading;
	}
	/* Asking for manual progress only says the application will drive
	 * it; auto progress serves that too. */
	if ((h->control_progress > FI_PROGRESS_MANUAL) ||
	    (h->control_progress == FI_PROGRESS_AUTO &&
	     p->control_progress == FI_PROGRESS_MANUAL))
		PL_REFUSE(info, "control progress %d, not %d\n",
			  p->control_progress, h->control_progress);
	/* ...and the answer says what was asked (fi_getinfo(3): the
	 * attributes returned are what the application will get) */
	if (h->control_progress == FI_PROGRESS_MANUAL)
		p->control_progress = FI_PROGRESS_MANUAL;
	if ((h->data_progress > FI_PROGRESS_MANUAL) ||
	    (h->data_progress == FI_PROGRESS_AUTO &&
	     p->data_progress == FI_PROGRESS_MANUAL))
		PL_REFUSE(info, "data progress %d, not %d\n",
			  p->data_progress, h->data_progress);
	if ((h->resource_mgmt > FI_RM_ENABLED) ||
	    (h->resource_mgmt == FI_RM_ENABLED &&
	     p->resource_mgmt == FI_RM_DISABLED))
		PL_REFUSE(info, "resource management %d, not %d\n",
			  p->resource_mgmt, h->resource_mgmt);
	if (h->av_type) {
		if (h->av_type > FI_AV_TABLE ||
		    (p->av_type && p->av_type != h->av_type))
			PL_REFUSE(info, "av_type %d, not %d\n", p->av_type,
				  h->av_type);
		p->av_type = h->av_type;
	}
	return 0;
}

static int pl_hints_match_domain(const struct fi_domain_attr *h,
				 struct fi_info *info)
{
	const struct fi_domain_attr *p = info->domain_attr;

	if (!pl_hints_match_str(h->name, p->name))
		PL_REFUSE(info, "domain %s, not %s\n", p->name ? p->name : "-",
			  h->name);
	if (pl_hints_match_enums(h, info))
		return -FI_ENODATA;
	PL_LIMIT(info, h, p, mr_key_size);
	PL_LIMIT(info, h, p, cq_data_size);
	PL_LIMIT(info, h, p, cq_cnt);
	PL_LIMIT(info, h, p, ep_cnt);
	PL_LIMIT(info, h, p, tx_ctx_cnt);
	PL_LIMIT(info, h, p, rx_ctx_cnt);
	PL_LIMIT(info, h, p, max_ep_tx_ctx);
	PL_LIMIT(info, h, p, max_ep_rx_ctx);
	PL_LIMIT(info, h, p, max_ep_stx_ctx);
	PL_LIMIT(info, h, p, max_ep_srx_ctx);
	PL_LIMIT(info, h, p, cntr_cnt);
	PL_LIMIT(info, h, p, mr_iov_limit);
	PL_LIMIT(info, h, p, max_err_data);
	PL_LIMIT(info, h, p, mr_cnt);
	return 0;
}

/* Orderings the application relies on must all be provided. */
static int pl_hints_match_order(const struct fi_info *info, uint64_t want,
				uint64_t have, const char *what)
{
	char n1[PL_NAMES_LEN];

	if (want & ~have)
		PL_REFUSE(info, "%s not offered: %s\n", what,
			  PL_NAMES(n1, order, want & ~have));
	return 0;
}

static int pl_hints_match_tx(const struct fi_tx_attr *h, struct fi_info *info)
{
	const struct fi_tx_attr *p = info->tx_attr;

	if (pl_hints_match_order(info, h->msg_order, p->msg_order,
				 "tx msg_order") ||
	    pl_hints_match_order(info, h->comp_order, p->comp_order,
				 "tx comp_order"))
		return -FI_ENODATA;
	PL_LIMIT(info, h, p, inject_size);
	PL_LIMIT(info, h, p, size);
	PL_LIMIT(info, h, p, iov_limit);
	PL_LIMIT(info, h, p, rma_iov_limit);
	return 0;
}

static int pl_hints_match_rx(const struct fi_rx_attr *h, struct fi_info *info)
{
	const struct fi_rx_attr *p = info->rx_attr;

	if (pl_hints_match_order(info, h->msg_order, p->msg_order,
				 "rx msg_order") ||
	    pl_hints_match_order(info, h->comp_order, p->comp_order,
				 "rx comp_order"))
		return -FI_ENODATA;
	PL_LIMIT(info, h, p, size);
	PL_LIMIT(info, h, p, iov_limit);
	PL_LIMIT(info, h, p, total_buffered_recv);
	return 0;
}

int pl_hints_match(uint32_t version, const struct fi_info *hints,
		   struct fi_info *info)
{
	int mr_mode;

	if (!hints) {
		/* Nothing to match; only the registration mode may need the
		 * spelling of the caller's API version. */
		if (pl_hints_caps_mr_mode(version, NULL,
					  info->domain_attr->mr_mode, &mr_mode,
					  &info->mode))
			return -FI_ENODATA;
		info->domain_attr->mr_mode = mr_mode;
		return 0;
	}

	if (!pl_hints_match_addr(hints->addr_format, info->addr_format))
		PL_REFUSE(info, "address format %u, not %u\n",
			  info->addr_format, hints->addr_format);
	if (hints->fabric_attr &&
	    !pl_hints_match_str(hints->fabric_attr->name,
				info->fabric_attr->name))
		PL_REFUSE(info, "fabric %s, not %s\n",
			  info->fabric_attr->name ? info->fabric_attr->name :
			  "-", hints->fabric_attr->name);
	if ((hints->ep_attr && pl_hints_match_ep(hints->ep_attr, info)) ||
	    (hints->domain_attr &&
	     pl_hints_match_domain(hints->domain_attr, info)) ||
	    (hints->tx_attr && pl_hints_match_tx(hints->tx_attr, info)) ||
	    (hints->rx_attr && pl_hints_match_rx(hints->rx_attr, info)) ||
	    pl_hints_opflags_match(hints, info) ||
	    pl_hints_match_caps(hints, info) ||
	    pl_hints_match_modes(version, hints, info))
		return -FI_ENODATA;

	/* fi_getinfo(3): a passive endpoint given as hints->handle comes
	 * back in info->handle (connection set-up on that pep). */
	if (hints->handle && !info->handle &&
	    hints->handle->fclass == FI_CLASS_PEP)
		info->handle = hints->handle;
	return 0;
}
