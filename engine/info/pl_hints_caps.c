/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capabilities, modifiers and memory-registration modes.
 *
 * Capabilities (fi_getinfo(3)): with no caps in the hints the provider's
 * reported set is returned as is. Otherwise every requested bit must be
 * supported, and only requested bits come back: primary capabilities
 * "must be explicitly requested", and secondary ones are returned only
 * when requested too. The man page lets a provider add unrequested
 * secondary capabilities "if doing so would not compromise performance",
 * but whether it would is the provider's knowledge, not ours, and a
 * capability left in fi_info.caps is one the provider then enables when
 * the endpoint is opened (FI_SOURCE lookups, FI_RMA_EVENT tracking), so
 * the conservative reading is the one applied to every provider. (The
 * reference's tcp;ofi_rxm behaves the same way for FI_SOURCE.)
 *
 * Modifiers: "if no modifiers are specified for an applicable capability,
 * all relevant modifiers are assumed": FI_SEND|FI_RECV for message-like
 * capabilities, FI_READ|FI_WRITE|FI_REMOTE_READ|FI_REMOTE_WRITE for RMA
 * and atomics, each group on its own (FI_MSG|FI_READ gets FI_SEND|FI_RECV
 * added, as the reference does). A provider that lists no modifier at all
 * is taken to support every one.
 *
 * Registration modes that matter only to an RMA or atomic target are not
 * required of an application granted neither capability: it registers,
 * if at all, for local access (FI_MR_LOCAL), and how a peer would
 * address or name the memory never comes up. The reference applies the
 * same rule.
 */
#include <rdma/fi_errno.h>

#include "pl_hints_caps.h"

#define PL_CAPS_MSG_LIKE	(FI_MSG | FI_TAGGED | FI_MULTICAST)
#define PL_CAPS_MSG_MODS	(FI_SEND | FI_RECV)
#define PL_CAPS_RMA_LIKE	(FI_RMA | FI_ATOMIC)
#define PL_CAPS_RMA_MODS	(FI_READ | FI_WRITE | FI_REMOTE_READ | \
				 FI_REMOTE_WRITE)

/* What basic registration (fi_mr(3)) amounts to in mr_mode bits. */
#define PL_MR_BASIC_BITS	(FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | \
				 FI_MR_PROV_KEY)
#define PL_MR_LEGACY		(FI_MR_BASIC | FI_MR_SCALABLE)

int pl_hints_caps_select(uint64_t want, uint64_t have, bool strict,
			 uint64_t *caps_p)
{
	uint64_t have_mods, base, mods;

	if (!want) {
		*caps_p = have;
		return 0;
	}
	have_mods = have & PL_CAPS_MODIFIERS;
	if (!have_mods)
		have_mods = PL_CAPS_MODIFIERS;

	base = want & ~PL_CAPS_MODIFIERS;
	mods = want & PL_CAPS_MODIFIERS;
	if (strict && ((base & ~have) || (mods & ~have_mods)))
		return -FI_ENODATA;
	base &= have;

	if ((base & PL_CAPS_MSG_LIKE) && !(mods & PL_CAPS_MSG_MODS))
		mods |= PL_CAPS_MSG_MODS;
	if ((base & PL_CAPS_RMA_LIKE) && !(mods & PL_CAPS_RMA_MODS))
		mods |= PL_CAPS_RMA_MODS;
	*caps_p = base | (mods & have_mods);
	return 0;
}

int pl_hints_caps_mr_need(int prov_mr, uint64_t caps)
{
	int need = prov_mr;

	if (need == FI_MR_BASIC)
		need = PL_MR_BASIC_BITS;
	else if (need == FI_MR_SCALABLE)
		need = 0;
	if (caps && !(caps & (FI_RMA | FI_ATOMIC)))
		need &= ~PL_MR_RMA_TARGET_BITS;
	return need;
}

/* Legacy (API < 1.5) view of a requirement: FI_MR_BASIC or FI_MR_SCALABLE,
 * or -FI_ENODATA when the old interface cannot express it. */
static int pl_hints_caps_mr_legacy(int want, int need, bool local_ok,
				   int *mr_p)
{
	int rest = need & ~FI_MR_LOCAL;

	if ((need & FI_MR_LOCAL) && !local_ok)
		return -FI_ENODATA;
	switch (want) {
	case FI_MR_SCALABLE:
		if (rest)
			return -FI_ENODATA;
		*mr_p = FI_MR_SCALABLE;
		return 0;
	case FI_MR_UNSPEC:
		/* Either is acceptable to the caller; basic, as the
		 * reference answers, since it serves every provider that
		 * scalable does. */
	case FI_MR_BASIC:
		if (rest & ~PL_MR_BASIC_BITS)
			return -FI_ENODATA;
		*mr_p = FI_MR_BASIC;
		return 0;
	default:
		return -FI_ENODATA;
	}
}

int pl_hints_caps_mr_mode(uint32_t version, const struct fi_info *hints,
			  int prov_mr, int *mr_p, uint64_t *mode_p)
{
	bool old_api = version < FI_VERSION(1, 5);
	bool any = !hints || !hints->domain_attr;
	int want = any ? 0 : hints->domain_attr->mr_mode;
	uint64_t mode = *mode_p & ~FI_LOCAL_MR;
	int need = prov_mr, mr;

	/* One requirement in one spelling: bits, with local registration
	 * as FI_MR_LOCAL whichever way the provider said it. */
	if (need == FI_MR_BASIC)
		need = PL_MR_BASIC_BITS;
	else if (need == FI_MR_SCALABLE)
		need = 0;
	if (need & PL_MR_LEGACY)
		return -FI_ENODATA;
	if (*mode_p & FI_LOCAL_MR)
		need |= FI_MR_LOCAL;

	if (old_api || (!any && (want == FI_MR_BASIC ||
				 want == FI_MR_SCALABLE))) {
		bool local_ok = !hints || (hints->mode & FI_LOCAL_MR);

		if (pl_hints_caps_mr_legacy(want, need, local_ok, &mr))
			return -FI_ENODATA;
		if (need & FI_MR_LOCAL)
			mode |= FI_LOCAL_MR;
	} else {
		/* FI_MR_BASIC / FI_MR_SCALABLE must stand alone (fi_mr(3)). */
		if (!any && ((want & PL_MR_LEGACY) || (need & ~want)))
			return -FI_ENODATA;
		mr = need;
	}
	*mr_p = mr;
	*mode_p = mode;
	return 0;
}
