/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bit sets as fi_tostr prints them: the names of the set bits, in the
 * order the reference lists them (which is not bit order), joined by ", ".
 * Bits without a name in a given set are left out silently, e.g. FI_PEEK
 * is an operation flag but not a capability.
 */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "pl_compiler.h"
#include "pl_tostr.h"

#define FLAG(f) { (uint64_t)(f), #f }
#define FLAG_SET(id)							\
	const struct pl_tostr_flags pl_tostr_flags_##id = {		\
		.flags = id##_flags,					\
		.count = PL_ARRAY_SIZE(id##_flags),			\
	}

/* Primary capabilities first, then secondary ones, FI_HMEM last. */
static const struct pl_tostr_flag caps_flags[] = {
	FLAG(FI_MSG), FLAG(FI_RMA), FLAG(FI_TAGGED), FLAG(FI_ATOMIC),
	FLAG(FI_MULTICAST), FLAG(FI_COLLECTIVE), FLAG(FI_READ),
	FLAG(FI_WRITE), FLAG(FI_RECV), FLAG(FI_SEND), FLAG(FI_REMOTE_READ),
	FLAG(FI_REMOTE_WRITE), FLAG(FI_MULTI_RECV), FLAG(FI_REMOTE_CQ_DATA),
	FLAG(FI_TRIGGER), FLAG(FI_FENCE), FLAG(FI_VARIABLE_MSG),
	FLAG(FI_RMA_PMEM), FLAG(FI_SOURCE_ERR), FLAG(FI_LOCAL_COMM),
	FLAG(FI_REMOTE_COMM), FLAG(FI_SHARED_AV), FLAG(FI_RMA_EVENT),
	FLAG(FI_SOURCE), FLAG(FI_NAMED_RX_CTX), FLAG(FI_DIRECTED_RECV),
	FLAG(FI_HMEM),
};
FLAG_SET(caps);

/* FI_COMMIT_COMPLETE has no entry: the reference never prints it. */
static const struct pl_tostr_flag op_flags[] = {
	FLAG(FI_MULTICAST), FLAG(FI_MULTI_RECV), FLAG(FI_REMOTE_CQ_DATA),
	FLAG(FI_MORE), FLAG(FI_PEEK), FLAG(FI_TRIGGER), FLAG(FI_FENCE),
	FLAG(FI_COMPLETION), FLAG(FI_INJECT), FLAG(FI_INJECT_COMPLETE),
	FLAG(FI_TRANSMIT_COMPLETE), FLAG(FI_DELIVERY_COMPLETE),
	FLAG(FI_MATCH_COMPLETE), FLAG(FI_AFFINITY), FLAG(FI_CLAIM),
	FLAG(FI_DISCARD),
};
FLAG_SET(op);

static const struct pl_tostr_flag order_flags[] = {
	FLAG(FI_ORDER_RAR), FLAG(FI_ORDER_RAW), FLAG(FI_ORDER_RAS),
	FLAG(FI_ORDER_WAR), FLAG(FI_ORDER_WAW), FLAG(FI_ORDER_WAS),
	FLAG(FI_ORDER_SAR), FLAG(FI_ORDER_SAW), FLAG(FI_ORDER_SAS),
	FLAG(FI_ORDER_RMA_RAR), FLAG(FI_ORDER_RMA_RAW),
	FLAG(FI_ORDER_RMA_WAR), FLAG(FI_ORDER_RMA_WAW),
	FLAG(FI_ORDER_ATOMIC_RAR), FLAG(FI_ORDER_ATOMIC_RAW),
	FLAG(FI_ORDER_ATOMIC_WAR), FLAG(FI_ORDER_ATOMIC_WAW),
};
FLAG_SET(order);

static const struct pl_tostr_flag mode_flags[] = {
	FLAG(FI_CONTEXT), FLAG(FI_MSG_PREFIX), FLAG(FI_ASYNC_IOV),
	FLAG(FI_RX_CQ_DATA), FLAG(FI_LOCAL_MR), FLAG(FI_NOTIFY_FLAGS_ONLY),
	FLAG(FI_RESTRICTED_COMP), FLAG(FI_CONTEXT2), FLAG(FI_BUFFERED_RECV),
};
FLAG_SET(mode);

/* Completion flags: the transfer kind first, then its qualifiers. */
static const struct pl_tostr_flag cq_event_flags[] = {
	FLAG(FI_SEND), FLAG(FI_RECV), FLAG(FI_RMA), FLAG(FI_ATOMIC),
	FLAG(FI_MSG), FLAG(FI_TAGGED), FLAG(FI_READ), FLAG(FI_WRITE),
	FLAG(FI_REMOTE_READ), FLAG(FI_REMOTE_WRITE), FLAG(FI_REMOTE_CQ_DATA),
	FLAG(FI_MULTI_RECV), FLAG(FI_MORE), FLAG(FI_CLAIM),
};
FLAG_SET(cq_event);

/* FI_MR_BASIC and FI_MR_SCALABLE are the old enum values, bits 0 and 1. */
static const struct pl_tostr_flag mr_mode_flags[] = {
	FLAG(FI_MR_BASIC), FLAG(FI_MR_SCALABLE), FLAG(FI_MR_LOCAL),
	FLAG(FI_MR_RAW), FLAG(FI_MR_VIRT_ADDR), FLAG(FI_MR_ALLOCATED),
	FLAG(FI_MR_PROV_KEY), FLAG(FI_MR_MMU_NOTIFY), FLAG(FI_MR_RMA_EVENT),
	FLAG(FI_MR_ENDPOINT), FLAG(FI_MR_HMEM), FLAG(FI_MR_COLLECTIVE),
};
FLAG_SET(mr_mode);

/*
 * Each name goes in with its separator and the last separator is dropped
 * afterwards, so a list cut short by the buffer keeps the same shape as
 * the reference's (a dangling "," but never a dangling ", ").
 */
void pl_tostr_flags_list(char *buf, size_t len,
			 const struct pl_tostr_flags *set, uint64_t v)
{
	for (size_t i = 0; i < set->count; i++)
		if (v & set->flags[i].bit)
			pl_tostr_catf(buf, len, "%s, ", set->flags[i].name);
	pl_tostr_strip_comma(buf, len);
}

void pl_tostr_flags_bracket(char *buf, size_t len,
			    const struct pl_tostr_flags *set, uint64_t v)
{
	pl_tostr_catf(buf, len, "[ ");
	pl_tostr_flags_list(buf, len, set, v);
	pl_tostr_catf(buf, len, " ]");
}

/*
 * The nine ordering bits name a level only as a whole: none of them is
 * FI_ORDER_NONE, all of them FI_ORDER_STRICT, a partial set prints
 * nothing. FI_ORDER_DATA is independent (so "NONE, DATA" is possible).
 */
void pl_tostr_flags_comp_order(char *buf, size_t len, uint64_t v)
{
	uint64_t level = v & FI_ORDER_STRICT;

	pl_tostr_catf(buf, len, "[ ");
	if (level == FI_ORDER_NONE)
		pl_tostr_catf(buf, len, "FI_ORDER_NONE, ");
	else if (level == FI_ORDER_STRICT)
		pl_tostr_catf(buf, len, "FI_ORDER_STRICT, ");
	if (v & FI_ORDER_DATA)
		pl_tostr_catf(buf, len, "FI_ORDER_DATA, ");
	pl_tostr_strip_comma(buf, len);
	pl_tostr_catf(buf, len, " ]");
}

const char *pl_tostr_flags_names(char *buf, size_t len,
				 const struct pl_tostr_flags *set, uint64_t v)
{
	uint64_t named = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < set->count; i++)
		if ((v & set->flags[i].bit) == set->flags[i].bit &&
		    set->flags[i].bit)
			named |= set->flags[i].bit;
	pl_tostr_flags_list(buf, len, set, v & named);
	if (v & ~named)
		pl_tostr_catf(buf, len, "%s%#llx", buf[0] ? ", " : "",
			      (unsigned long long)(v & ~named));
	if (!buf[0])
		pl_tostr_catf(buf, len, "none");
	return buf;
}
