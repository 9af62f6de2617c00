/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The listings of what fi_getinfo returned, byte for byte as the reference
 * tool prints them. Absent strings print as "(null)", as glibc's printf
 * shows them; an absent attribute structure (which the reference tool
 * would crash on) prints its fields the same way instead of crashing.
 */
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>

#include "fi_info.h"

/*
 * fi_tostr_r writes into a buffer of this size: the reference tool's, so
 * that an fi_info whose text is longer is cut at the same byte.
 */
#define FI_INFO_TEXT_MAX 8192

static const char *fi_info_print_str(const char *s)
{
	return s ? s : "(null)";
}

/* prov_version is (major << 16 | minor), as FI_VERSION builds it. */
static void fi_info_print_version(const char *indent, uint32_t version)
{
	printf("%sversion: %u.%u\n", indent, FI_MAJOR(version), FI_MINOR(version));
}

void fi_info_print_short(const struct fi_info *info)
{
	const struct fi_fabric_attr *fab;
	const struct fi_domain_attr *dom;
	const struct fi_ep_attr *ep;

	for (; info; info = info->next) {
		fab = info->fabric_attr;
		dom = info->domain_attr;
		ep = info->ep_attr;

		printf("provider: %s\n",
		       fi_info_print_str(fab ? fab->prov_name : NULL));
		printf("    fabric: %s\n",
		       fi_info_print_str(fab ? fab->name : NULL));
		printf("    domain: %s\n",
		       fi_info_print_str(dom ? dom->name : NULL));
		fi_info_print_version("    ", fab ? fab->prov_version : 0);
		/* fi_tostr returns one static buffer: one call per printf. */
		printf("    type: %s\n", fi_info_print_str(ep ?
		       fi_tostr(&ep->type, FI_TYPE_EP_TYPE) : NULL));
		printf("    protocol: %s\n", fi_info_print_str(ep ?
		       fi_tostr(&ep->protocol, FI_TYPE_PROTOCOL) : NULL));
	}
}

/*
 * What is printed is the buffer, not fi_tostr_r's return value, and the
 * buffer is not cleared between entries: if the library leaves it
 * untouched, the previous entry's text is printed again. This is the
 * reference tool's behaviour, kept so that both tools print the same
 * bytes on a library that misbehaves here.
 */
void fi_info_print_verbose(const struct fi_info *info, const char *filter)
{
	static char text[FI_INFO_TEXT_MAX];

	text[0] = '\0';
	for (; info; info = info->next) {
		fi_tostr_r(text, sizeof(text), info, FI_TYPE_INFO);
		if (filter && !strcasestr(text, filter))
			continue;
		printf("---\n%s", text);
	}
}

void fi_info_print_provs(const struct fi_info *info)
{
	const struct fi_fabric_attr *fab;

	/* One line per entry, duplicates included: the library decides what
	 * FI_PROV_ATTR_ONLY returns, the tool does not second-guess it. */
	for (; info; info = info->next) {
		fab = info->fabric_attr;
		printf("%s:\n", fi_info_print_str(fab ? fab->prov_name : NULL));
		fi_info_print_version("    ", fab ? fab->prov_version : 0);
	}
}
