/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_tostr / fi_tostr_r: entry points, dispatch on enum fi_type, and the
 * append primitives every printer goes through (pl_tostr.h explains the
 * truncation rules they reproduce).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <rdma/fabric.h>

#include "pl_compiler.h"
#include "pl_tostr.h"

void pl_tostr_catf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	/*
	 * Text stops at len - 2 characters, one byte short of what the buffer
	 * could hold: the reference does so, and cut-short output must match
	 * it byte for byte. Nothing is appended once the text has reached
	 * len - 1 (possible after an address, see pl_tostr_addr_print).
	 */
	if (len < 2 || used >= len - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - 1 - used, fmt, ap);
	va_end(ap);
}

void pl_tostr_strip_comma(char *buf, size_t len)
{
	size_t used = strnlen(buf, len);

	if (used >= 2 && used < len && buf[used - 2] == ',' &&
	    buf[used - 1] == ' ')
		buf[used - 2] = '\0';
}

void pl_tostr_fid(char *buf, size_t len, const char *label,
		  const struct fid *fid)
{
	size_t used;

	if (!fid || !FI_CHECK_OP(fid->ops, struct fi_ops, tostr)) {
		pl_tostr_catf(buf, len, "%s%p\n", label, (const void *)fid);
		return;
	}
	/*
	 * The op gets the start of the buffer and only the room left after
	 * the current text: the reference's calling convention, which a
	 * provider's or application's op written against it relies on (it
	 * appends with its own strlen). The label is the op's business.
	 */
	used = strnlen(buf, len);
	if (used >= len)
		return;
	(void)fid->ops->tostr(fid, buf, len - used);
}

static int read_int(const void *data)
{
	int v;

	memcpy(&v, data, sizeof(v));
	return v;
}

static uint64_t read_u64(const void *data)
{
	uint64_t v;

	memcpy(&v, data, sizeof(v));
	return v;
}

static void enum_name(char *buf, size_t len, const struct pl_tostr_enum *e,
		      const void *data)
{
	pl_tostr_catf(buf, len, "%s",
		      pl_tostr_enum_name(e, (uint32_t)read_int(data)));
}

/* The types whose datum is an enumeration (read as an int). */
static const struct pl_tostr_enum *enum_of(enum fi_type type)
{
	switch (type) {
	case FI_TYPE_EP_TYPE:		return &pl_tostr_enum_ep_type;
	case FI_TYPE_ADDR_FORMAT:	return &pl_tostr_enum_addr_format;
	case FI_TYPE_THREADING:		return &pl_tostr_enum_threading;
	case FI_TYPE_PROGRESS:		return &pl_tostr_enum_progress;
	case FI_TYPE_PROTOCOL:		return &pl_tostr_enum_protocol;
	case FI_TYPE_AV_TYPE:		return &pl_tostr_enum_av_type;
	case FI_TYPE_ATOMIC_TYPE:	return &pl_tostr_enum_atomic_type;
	case FI_TYPE_ATOMIC_OP:		return &pl_tostr_enum_atomic_op;
	case FI_TYPE_EQ_EVENT:		return &pl_tostr_enum_eq_event;
	case FI_TYPE_OP_TYPE:		return &pl_tostr_enum_op_type;
	case FI_TYPE_COLLECTIVE_OP:	return &pl_tostr_enum_collective_op;
	case FI_TYPE_HMEM_IFACE:	return &pl_tostr_enum_hmem_iface;
	case FI_TYPE_CQ_FORMAT:		return &pl_tostr_enum_cq_format;
	case FI_TYPE_LOG_LEVEL:		return &pl_tostr_enum_log_level;
	case FI_TYPE_LOG_SUBSYS:	return &pl_tostr_enum_log_subsys;
	default:			return NULL;
	}
}

/* The types whose datum is a 64-bit flag word. */
static const struct pl_tostr_flags *flags_of(enum fi_type type)
{
	switch (type) {
	case FI_TYPE_CAPS:		return &pl_tostr_flags_caps;
	case FI_TYPE_OP_FLAGS:		return &pl_tostr_flags_op;
	case FI_TYPE_MSG_ORDER:		return &pl_tostr_flags_order;
	case FI_TYPE_MODE:		return &pl_tostr_flags_mode;
	case FI_TYPE_CQ_EVENT_FLAGS:	return &pl_tostr_flags_cq_event;
	default:			return NULL;
	}
}

static void dispatch(char *buf, size_t len, const void *data,
		     enum fi_type type)
{
	const struct pl_tostr_enum *e = enum_of(type);
	const struct pl_tostr_flags *f = flags_of(type);

	if (e) {
		enum_name(buf, len, e, data);
		return;
	}
	if (f) {
		pl_tostr_flags_list(buf, len, f, read_u64(data));
		return;
	}
	switch (type) {
	case FI_TYPE_INFO:
		pl_tostr_info_print(buf, len, data);
		break;
	case FI_TYPE_TX_ATTR:
		pl_tostr_attr_tx(buf, len, data, "");
		break;
	case FI_TYPE_RX_ATTR:
		pl_tostr_attr_rx(buf, len, data, "");
		break;
	case FI_TYPE_EP_ATTR:
		pl_tostr_attr_ep(buf, len, data, "");
		break;
	case FI_TYPE_DOMAIN_ATTR:
		pl_tostr_attr_domain(buf, len, data, "");
		break;
	case FI_TYPE_FABRIC_ATTR:
		pl_tostr_attr_fabric(buf, len, data, "");
		break;
	case FI_TYPE_MR_MODE:
		/* An int, like fi_domain_attr.mr_mode. */
		pl_tostr_flags_list(buf, len, &pl_tostr_flags_mr_mode,
				    (uint32_t)read_int(data));
		break;
	case FI_TYPE_VERSION:
		/*
		 * The library's own major.minor.revision, whatever the datum
		 * holds: the reference ignores the datum for this type too,
		 * and its text is what scripts compare against.
		 */
		pl_tostr_catf(buf, len, "%d.%d.%d", FI_MAJOR_VERSION,
			      FI_MINOR_VERSION, FI_REVISION_VERSION);
		break;
	case FI_TYPE_FID:
		pl_tostr_fid(buf, len, "fid: ", data);
		break;
	default:
		pl_tostr_catf(buf, len, "Unknown type");
		break;
	}
}

/*
 * Thread safe: everything is written into the caller's buffer. Returns
 * buf, or NULL (buffer untouched) for NULL data, a NULL buffer or a zero
 * length.
 */
PL_EXPORT char *fi_tostr_r(char *buf, size_t len, const void *data,
			   enum fi_type datatype)
{
	if (!data || !buf || !len)
		return NULL;
	buf[0] = '\0';
	dispatch(buf, len, data, datatype);
	return buf;
}

/*
 * The documented contract is a static buffer that the next call reuses;
 * one per thread keeps that for single-threaded callers while two threads
 * no longer scribble over each other's text.
 */
PL_EXPORT char *fi_tostr(const void *data, enum fi_type datatype)
{
	static __thread char buf[PL_TOSTR_BUF_LEN];

	return fi_tostr_r(buf, sizeof(buf), data, datatype);
}
