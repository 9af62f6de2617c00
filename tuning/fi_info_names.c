/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The value names fi_info accepts on its command line.
 *
 * These are exactly the names the reference tool accepts (found by
 * offering it every FI_* name of the 1.17 headers), no more: a script
 * that works with one tool must work with the other, and a name only one
 * of them knew would make the other fail where it succeeded. That is why,
 * for instance, FI_RMA_PMEM, FI_VARIABLE_MSG and FI_BUFFERED_RECV are not
 * here although the library knows them. Matching ignores case and needs
 * the whole name.
 */
#include <string.h>
#include <strings.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "fi_info.h"

#define FI_INFO_NAME(n) { #n, n }

struct fi_info_name {
	const char *name;
	uint64_t value;
};

static const struct fi_info_name fi_info_names_cap_tab[] = {
	FI_INFO_NAME(FI_MSG),
	FI_INFO_NAME(FI_RMA),
	FI_INFO_NAME(FI_TAGGED),
	FI_INFO_NAME(FI_ATOMIC),
	FI_INFO_NAME(FI_MULTICAST),
	FI_INFO_NAME(FI_COLLECTIVE),
	FI_INFO_NAME(FI_READ),
	FI_INFO_NAME(FI_WRITE),
	FI_INFO_NAME(FI_RECV),
	FI_INFO_NAME(FI_SEND),
	FI_INFO_NAME(FI_REMOTE_READ),
	FI_INFO_NAME(FI_REMOTE_WRITE),
	FI_INFO_NAME(FI_MULTI_RECV),
	FI_INFO_NAME(FI_REMOTE_CQ_DATA),
	FI_INFO_NAME(FI_MORE),
	FI_INFO_NAME(FI_PEEK),
	FI_INFO_NAME(FI_TRIGGER),
	FI_INFO_NAME(FI_FENCE),
	FI_INFO_NAME(FI_HMEM),
	FI_INFO_NAME(FI_SOURCE_ERR),
	FI_INFO_NAME(FI_LOCAL_COMM),
	FI_INFO_NAME(FI_REMOTE_COMM),
	FI_INFO_NAME(FI_SHARED_AV),
	FI_INFO_NAME(FI_RMA_EVENT),
	FI_INFO_NAME(FI_SOURCE),
	FI_INFO_NAME(FI_NAMED_RX_CTX),
	FI_INFO_NAME(FI_DIRECTED_RECV),
	{ NULL, 0 },
};

static const struct fi_info_name fi_info_names_mode_tab[] = {
	FI_INFO_NAME(FI_CONTEXT),
	FI_INFO_NAME(FI_MSG_PREFIX),
	FI_INFO_NAME(FI_ASYNC_IOV),
	FI_INFO_NAME(FI_RX_CQ_DATA),
	FI_INFO_NAME(FI_LOCAL_MR),
	FI_INFO_NAME(FI_NOTIFY_FLAGS_ONLY),
	FI_INFO_NAME(FI_RESTRICTED_COMP),
	FI_INFO_NAME(FI_CONTEXT2),
	{ NULL, 0 },
};

static const struct fi_info_name fi_info_names_ep_type_tab[] = {
	FI_INFO_NAME(FI_EP_UNSPEC),
	FI_INFO_NAME(FI_EP_MSG),
	FI_INFO_NAME(FI_EP_DGRAM),
	FI_INFO_NAME(FI_EP_RDM),
	FI_INFO_NAME(FI_EP_SOCK_STREAM),
	FI_INFO_NAME(FI_EP_SOCK_DGRAM),
	{ NULL, 0 },
};

static const struct fi_info_name fi_info_names_addr_format_tab[] = {
	FI_INFO_NAME(FI_FORMAT_UNSPEC),
	FI_INFO_NAME(FI_SOCKADDR),
	FI_INFO_NAME(FI_SOCKADDR_IN),
	FI_INFO_NAME(FI_SOCKADDR_IN6),
	FI_INFO_NAME(FI_SOCKADDR_IB),
	FI_INFO_NAME(FI_ADDR_PSMX),
	FI_INFO_NAME(FI_ADDR_GNI),
	FI_INFO_NAME(FI_ADDR_BGQ),
	FI_INFO_NAME(FI_ADDR_MLX),
	FI_INFO_NAME(FI_ADDR_STR),
	FI_INFO_NAME(FI_ADDR_PSMX2),
	FI_INFO_NAME(FI_ADDR_EFA),
	{ NULL, 0 },
};

static int fi_info_names_find(const struct fi_info_name *tab,
			      const char *name, size_t len, uint64_t *value_p)
{
	for (; tab->name; tab++) {
		if (strlen(tab->name) == len &&
		    !strncasecmp(tab->name, name, len)) {
			*value_p = tab->value;
			return 0;
		}
	}
	return -FI_EINVAL;
}

/*
 * Items are cut out of the argument in place, without copying it, so an
 * unknown one can be reported as a (pointer, length) slice of argv.
 */
static int fi_info_names_list(const struct fi_info_name *tab, const char *list,
			      uint64_t *bits_p, struct fi_info_slice *bad_p)
{
	uint64_t bits = 0, value;
	const char *item = list;
	size_t len;

	for (;;) {
		/* Runs of separators, and separators at either end, yield no
		 * item: "FI_MSG||FI_RMA|" is FI_MSG and FI_RMA. */
		item += strspn(item, "|");
		if (!*item)
			break;
		len = strcspn(item, "|");
		if (fi_info_names_find(tab, item, len, &value)) {
			bad_p->str = item;
			bad_p->len = (int)len;
			return -FI_EINVAL;
		}
		bits |= value;
		item += len;
	}
	*bits_p = bits;
	return 0;
}

int fi_info_names_caps(const char *list, uint64_t *bits_p,
		       struct fi_info_slice *bad_p)
{
	return fi_info_names_list(fi_info_names_cap_tab, list, bits_p, bad_p);
}

int fi_info_names_modes(const char *list, uint64_t *bits_p,
			struct fi_info_slice *bad_p)
{
	return fi_info_names_list(fi_info_names_mode_tab, list, bits_p, bad_p);
}

int fi_info_names_ep_type(const char *name, enum fi_ep_type *type_p)
{
	uint64_t value;

	if (fi_info_names_find(fi_info_names_ep_type_tab, name, strlen(name),
			       &value))
		return -FI_EINVAL;
	*type_p = (enum fi_ep_type)value;
	return 0;
}

int fi_info_names_addr_format(const char *name, uint32_t *format_p)
{
	uint64_t value;

	if (fi_info_names_find(fi_info_names_addr_format_tab, name,
			       strlen(name), &value))
		return -FI_EINVAL;
	*format_p = (uint32_t)value;
	return 0;
}
