/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The attribute blocks of fi_info text. Each starts with "fi_<x>_attr:"
 * under the caller's prefix and indents its fields one level deeper; a
 * NULL block is one line, "fi_<x>_attr: (null)". Field order, spelling
 * and number formats are the reference's, which fi_info parsers key on.
 */
#include <inttypes.h>
#include <stdint.h>
#include <rdma/fabric.h>

#include "pl_tostr.h"

#define TAB PL_TOSTR_TAB

static int block_open(char *buf, size_t len, const char *prefix,
		      const char *name, const void *attr)
{
	if (!attr) {
		pl_tostr_catf(buf, len, "%s%s: (null)\n", prefix, name);
		return 0;
	}
	pl_tostr_catf(buf, len, "%s%s:\n", prefix, name);
	return 1;
}

static void bracket_line(char *buf, size_t len, const char *prefix,
			 const char *field, const struct pl_tostr_flags *set,
			 uint64_t v)
{
	pl_tostr_catf(buf, len, "%s" TAB "%s: ", prefix, field);
	pl_tostr_flags_bracket(buf, len, set, v);
	pl_tostr_catf(buf, len, "\n");
}

static void comp_order_line(char *buf, size_t len, const char *prefix,
			    uint64_t v)
{
	pl_tostr_catf(buf, len, "%s" TAB "comp_order: ", prefix);
	pl_tostr_flags_comp_order(buf, len, v);
	pl_tostr_catf(buf, len, "\n");
}

static void size_line(char *buf, size_t len, const char *prefix,
		      const char *field, size_t v)
{
	pl_tostr_catf(buf, len, "%s" TAB "%s: %zu\n", prefix, field, v);
}

static void name_line(char *buf, size_t len, const char *prefix,
		      const char *field, const struct pl_tostr_enum *e,
		      uint32_t v)
{
	pl_tostr_catf(buf, len, "%s" TAB "%s: %s\n", prefix, field,
		      pl_tostr_enum_name(e, v));
}

void pl_tostr_attr_tx(char *buf, size_t len, const struct fi_tx_attr *attr,
		      const char *prefix)
{
	if (!block_open(buf, len, prefix, "fi_tx_attr", attr))
		return;
	bracket_line(buf, len, prefix, "caps", &pl_tostr_flags_caps,
		     attr->caps);
	bracket_line(buf, len, prefix, "mode", &pl_tostr_flags_mode,
		     attr->mode);
	bracket_line(buf, len, prefix, "op_flags", &pl_tostr_flags_op,
		     attr->op_flags);
	bracket_line(buf, len, prefix, "msg_order", &pl_tostr_flags_order,
		     attr->msg_order);
	comp_order_line(buf, len, prefix, attr->comp_order);
	size_line(buf, len, prefix, "inject_size", attr->inject_size);
	size_line(buf, len, prefix, "size", attr->size);
	size_line(buf, len, prefix, "iov_limit", attr->iov_limit);
	size_line(buf, len, prefix, "rma_iov_limit", attr->rma_iov_limit);
	pl_tostr_catf(buf, len, "%s" TAB "tclass: 0x%" PRIx32 "\n", prefix,
		      attr->tclass);
}

void pl_tostr_attr_rx(char *buf, size_t len, const struct fi_rx_attr *attr,
		      const char *prefix)
{
	if (!block_open(buf, len, prefix, "fi_rx_attr", attr))
		return;
	bracket_line(buf, len, prefix, "caps", &pl_tostr_flags_caps,
		     attr->caps);
	bracket_line(buf, len, prefix, "mode", &pl_tostr_flags_mode,
		     attr->mode);
	bracket_line(buf, len, prefix, "op_flags", &pl_tostr_flags_op,
		     attr->op_flags);
	bracket_line(buf, len, prefix, "msg_order", &pl_tostr_flags_order,
		     attr->msg_order);
	comp_order_line(buf, len, prefix, attr->comp_order);
	size_line(buf, len, prefix, "total_buffered_recv",
		  attr->total_buffered_recv);
	size_line(buf, len, prefix, "size", attr->size);
	size_line(buf, len, prefix, "iov_limit", attr->iov_limit);
}

/* Context counts: FI_SHARED_CONTEXT by name, anything else as a number. */
static void ctx_line(char *buf, size_t len, const char *prefix,
		     const char *field, size_t v)
{
	if (v == FI_SHARED_CONTEXT)
		pl_tostr_catf(buf, len, "%s" TAB "%s: FI_SHARED_CONTEXT\n",
			      prefix, field);
	else
		size_line(buf, len, prefix, field, v);
}

void pl_tostr_attr_ep(char *buf, size_t len, const struct fi_ep_attr *attr,
		      const char *prefix)
{
	if (!block_open(buf, len, prefix, "fi_ep_attr", attr))
		return;
	name_line(buf, len, prefix, "type", &pl_tostr_enum_ep_type,
		  (uint32_t)attr->type);
	name_line(buf, len, prefix, "protocol", &pl_tostr_enum_protocol,
		  attr->protocol);
	/* Signed, as the reference prints it (so 0xffffffff reads -1). */
	pl_tostr_catf(buf, len, "%s" TAB "protocol_version: %d\n", prefix,
		      (int)attr->protocol_version);
	size_line(buf, len, prefix, "max_msg_size", attr->max_msg_size);
	size_line(buf, len, prefix, "msg_prefix_size", attr->msg_prefix_size);
	size_line(buf, len, prefix, "max_order_raw_size",
		  attr->max_order_raw_size);
	size_line(buf, len, prefix, "max_order_war_size",
		  attr->max_order_war_size);
	size_line(buf, len, prefix, "max_order_waw_size",
		  attr->max_order_waw_size);
	pl_tostr_catf(buf, len, "%s" TAB "mem_tag_format: 0x%016" PRIx64 "\n",
		      prefix, attr->mem_tag_format);
	ctx_line(buf, len, prefix, "tx_ctx_cnt", attr->tx_ctx_cnt);
	ctx_line(buf, len, prefix, "rx_ctx_cnt", attr->rx_ctx_cnt);
	size_line(buf, len, prefix, "auth_key_size", attr->auth_key_size);
}

void pl_tostr_attr_domain(char *buf, size_t len,
			  const struct fi_domain_attr *attr,
			  const char *prefix)
{
	if (!block_open(buf, len, prefix, "fi_domain_attr", attr))
		return;
	/*
	 * Only the low 32 bits of the pointer, in hex: the reference's
	 * rendering ("0x0" for none), kept because tools compare it.
	 */
	pl_tostr_catf(buf, len, "%s" TAB "domain: 0x%x\n", prefix,
		      (unsigned int)(uintptr_t)attr->domain);
	pl_tostr_catf(buf, len, "%s" TAB "name: %s\n", prefix,
		      pl_tostr_str(attr->name));
	name_line(buf, len, prefix, "threading", &pl_tostr_enum_threading,
		  (uint32_t)attr->threading);
	name_line(buf, len, prefix, "control_progress",
		  &pl_tostr_enum_progress, (uint32_t)attr->control_progress);
	name_line(buf, len, prefix, "data_progress", &pl_tostr_enum_progress,
		  (uint32_t)attr->data_progress);
	name_line(buf, len, prefix, "resource_mgmt",
		  &pl_tostr_enum_resource_mgmt,
		  (uint32_t)attr->resource_mgmt);
	name_line(buf, len, prefix, "av_type", &pl_tostr_enum_av_type,
		  (uint32_t)attr->av_type);
	bracket_line(buf, len, prefix, "mr_mode", &pl_tostr_flags_mr_mode,
		     (uint32_t)attr->mr_mode);
	size_line(buf, len, prefix, "mr_key_size", attr->mr_key_size);
	size_line(buf, len, prefix, "cq_data_size", attr->cq_data_size);
	size_line(buf, len, prefix, "cq_cnt", attr->cq_cnt);
	size_line(buf, len, prefix, "ep_cnt", attr->ep_cnt);
	size_line(buf, len, prefix, "tx_ctx_cnt", attr->tx_ctx_cnt);
	size_line(buf, len, prefix, "rx_ctx_cnt", attr->rx_ctx_cnt);
	size_line(buf, len, prefix, "max_ep_tx_ctx", attr->max_ep_tx_ctx);
	size_line(buf, len, prefix, "max_ep_rx_ctx", attr->max_ep_rx_ctx);
	size_line(buf, len, prefix, "max_ep_stx_ctx", attr->max_ep_stx_ctx);
	size_line(buf, len, prefix, "max_ep_srx_ctx", attr->max_ep_srx_ctx);
	size_line(buf, len, prefix, "cntr_cnt", attr->cntr_cnt);
	size_line(buf, len, prefix, "mr_iov_limit", attr->mr_iov_limit);
	bracket_line(buf, len, prefix, "caps", &pl_tostr_flags_caps,
		     attr->caps);
	bracket_line(buf, len, prefix, "mode", &pl_tostr_flags_mode,
		     attr->mode);
	size_line(buf, len, prefix, "auth_key_size", attr->auth_key_size);
	size_line(buf, len, prefix, "max_err_data", attr->max_err_data);
	size_line(buf, len, prefix, "mr_cnt", attr->mr_cnt);
	pl_tostr_catf(buf, len, "%s" TAB "tclass: 0x%" PRIx32 "\n", prefix,
		      attr->tclass);
}

void pl_tostr_attr_fabric(char *buf, size_t len,
			  const struct fi_fabric_attr *attr,
			  const char *prefix)
{
	if (!block_open(buf, len, prefix, "fi_fabric_attr", attr))
		return;
	pl_tostr_catf(buf, len, "%s" TAB "name: %s\n", prefix,
		      pl_tostr_str(attr->name));
	pl_tostr_catf(buf, len, "%s" TAB "prov_name: %s\n", prefix,
		      pl_tostr_str(attr->prov_name));
	pl_tostr_catf(buf, len, "%s" TAB "prov_version: %u.%u\n", prefix,
		      FI_MAJOR(attr->prov_version),
		      FI_MINOR(attr->prov_version));
	pl_tostr_catf(buf, len, "%s" TAB "api_version: %u.%u\n", prefix,
		      FI_MAJOR(attr->api_version), FI_MINOR(attr->api_version));
}
