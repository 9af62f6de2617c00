/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_tostr internals, shared by the pl_tostr_*.c printers and by whoever
 * creates struct fid_nic objects (their fi_ops.tostr is pl_tostr_nic_print).
 *
 * Output is compared byte for byte against libfabric 1.17 by scripts that
 * parse fi_info text, including when it is cut short by a small buffer.
 * So every printer appends through the primitives below, whose truncation
 * rules are those the reference exhibits (tests/unit/engine/tostr_oracle.c
 * checks them case by case):
 *
 *   pl_tostr_catf      leaves the last two bytes of the buffer unused:
 *                      text is kept to len - 2 characters;
 *   pl_tostr_addr_print  writes an address with plain snprintf semantics
 *                      into whatever follows the current text, so it alone
 *                      may reach len - 1 characters;
 *   a fid with a tostr op is handed the START of the buffer and the room
 *                      left after the current text (the reference's
 *                      contract; a well-behaved op appends).
 *
 * None of them writes past len bytes, and none needs a terminated buffer
 * beyond the first len bytes.
 */
#ifndef PROPEL_PL_TOSTR_H
#define PROPEL_PL_TOSTR_H

#include <stddef.h>
#include <stdint.h>
#include <rdma/fabric.h>

/* One nesting level of the YAML-like layout. */
#define PL_TOSTR_TAB "    "

/* fi_tostr's own buffer, per thread; output longer than this is cut. */
#define PL_TOSTR_BUF_LEN 8192

/* ---- pl_tostr.c: append primitives and dispatch ---- */

void pl_tostr_catf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Drop a trailing ", " left by a list printer. */
void pl_tostr_strip_comma(char *buf, size_t len);
/* A fid: its own tostr op when it has one, else label and pointer. */
void pl_tostr_fid(char *buf, size_t len, const char *label,
		  const struct fid *fid);
/* "(null)" for NULL, as printf would write it. */
static inline const char *pl_tostr_str(const char *s)
{
	return s ? s : "(null)";
}

/* ---- pl_tostr_enum.c: names of enumerated values ---- */

struct pl_tostr_enum {
	const char *const *names;	/* indexed by value; NULL = no name */
	size_t count;
	/* Values with FI_PROV_SPECIFIC set print as such, not "Unknown". */
	int prov_specific;
};

extern const struct pl_tostr_enum pl_tostr_enum_ep_type;
extern const struct pl_tostr_enum pl_tostr_enum_addr_format;
extern const struct pl_tostr_enum pl_tostr_enum_threading;
extern const struct pl_tostr_enum pl_tostr_enum_progress;
extern const struct pl_tostr_enum pl_tostr_enum_protocol;
extern const struct pl_tostr_enum pl_tostr_enum_av_type;
extern const struct pl_tostr_enum pl_tostr_enum_atomic_type;
extern const struct pl_tostr_enum pl_tostr_enum_atomic_op;
extern const struct pl_tostr_enum pl_tostr_enum_eq_event;
extern const struct pl_tostr_enum pl_tostr_enum_op_type;
extern const struct pl_tostr_enum pl_tostr_enum_collective_op;
extern const struct pl_tostr_enum pl_tostr_enum_hmem_iface;
extern const struct pl_tostr_enum pl_tostr_enum_cq_format;
extern const struct pl_tostr_enum pl_tostr_enum_log_level;
extern const struct pl_tostr_enum pl_tostr_enum_log_subsys;
extern const struct pl_tostr_enum pl_tostr_enum_resource_mgmt;
extern const struct pl_tostr_enum pl_tostr_enum_bus_type;
extern const struct pl_tostr_enum pl_tostr_enum_link_state;

/* Never NULL: "Unknown" or "Provider specific" for unnamed values. */
const char *pl_tostr_enum_name(const struct pl_tostr_enum *e, uint32_t v);

/* ---- pl_tostr_flags.c: bit sets ---- */

struct pl_tostr_flag {
	uint64_t bit;
	const char *name;
};

struct pl_tostr_flags {
	const struct pl_tostr_flag *flags;	/* in printing order */
	size_t count;
};

extern const struct pl_tostr_flags pl_tostr_flags_caps;
extern const struct pl_tostr_flags pl_tostr_flags_op;
extern const struct pl_tostr_flags pl_tostr_flags_order;
extern const struct pl_tostr_flags pl_tostr_flags_mode;
extern const struct pl_tostr_flags pl_tostr_flags_cq_event;
extern const struct pl_tostr_flags pl_tostr_flags_mr_mode;

/* "A, B, C": the names of the bits set in v (bits without one are skipped). */
void pl_tostr_flags_list(char *buf, size_t len,
			 const struct pl_tostr_flags *set, uint64_t v);
/* "[ A, B ]", the form used inside attribute blocks. */
void pl_tostr_flags_bracket(char *buf, size_t len,
			    const struct pl_tostr_flags *set, uint64_t v);
/* comp_order's own rendering: NONE for zero, STRICT only when whole. */
void pl_tostr_flags_comp_order(char *buf, size_t len, uint64_t v);
/* v as a log line wants it: the names of its bits in set, comma
 * separated, any bits without a name as one hex value, "none" for 0.
 * Overwrites buf; returns it. */
const char *pl_tostr_flags_names(char *buf, size_t len,
				 const struct pl_tostr_flags *set, uint64_t v);

/* ---- pl_tostr_addr.c ---- */

/* Address of the given format (fi_info's src_addr/dest_addr lines). */
void pl_tostr_addr_print(char *buf, size_t len, uint32_t format,
			 const void *addr);

/* ---- pl_tostr_attr.c: attribute blocks, each line led by prefix ---- */

void pl_tostr_attr_tx(char *buf, size_t len, const struct fi_tx_attr *attr,
		      const char *prefix);
void pl_tostr_attr_rx(char *buf, size_t len, const struct fi_rx_attr *attr,
		      const char *prefix);
void pl_tostr_attr_ep(char *buf, size_t len, const struct fi_ep_attr *attr,
		      const char *prefix);
void pl_tostr_attr_domain(char *buf, size_t len,
			  const struct fi_domain_attr *attr,
			  const char *prefix);
void pl_tostr_attr_fabric(char *buf, size_t len,
			  const struct fi_fabric_attr *attr,
			  const char *prefix);

/* ---- pl_tostr_info.c ---- */

void pl_tostr_info_print(char *buf, size_t len, const struct fi_info *info);

/* ---- pl_tostr_nic.c ---- */

/*
 * The fi_ops.tostr of every struct fid_nic propel creates (fi_getinfo,
 * fi_dupinfo): appends the "nic:" block, nested device, bus and link
 * attributes, to the text already in buf, keeping it within len bytes.
 * Returns 0, or -FI_EINVAL for a NULL fid or buffer.
 */
int pl_tostr_nic_print(const struct fid *fid, char *buf, size_t len);

#endif /* PROPEL_PL_TOSTR_H */
