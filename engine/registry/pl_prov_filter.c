/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_PROVIDER parsing and matching.
 *
 * What the reference (Debian libfabric 1.17, tcp/udp cores with the
 * ofi_rxm/ofi_rxd utilities) does, and so what this file does:
 *   - the value is a ','-separated list; empty elements are skipped
 *     (",tcp" == "tcp"); names compare without regard to case;
 *   - a leading '^' turns the whole list into exclusions ("^tcp,udp"
 *     excludes both; "tcp,^udp" includes tcp and a provider literally
 *     named "^udp"); "^" alone excludes nothing; "" includes nothing;
 *   - include: a core is listed on its own only if named; a core;util
 *     pair is listed if the core is named or the pair is ("udp" lists udp
 *     and udp;ofi_rxd, "tcp;ofi_rxm" lists tcp;ofi_rxm but not tcp, and
 *     "ofi_rxm" alone lists nothing: a utility needs a core);
 *   - exclude: naming a core hides it and every pair over it, naming a
 *     utility hides its pairs, naming a pair hides just that pair.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdma/fi_errno.h>

#include "pl_prov_filter.h"

static void pl_prov_filter_free_names(char **names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

int pl_prov_filter_parse(const char *raw, struct pl_prov_filter *filter_p)
{
	struct pl_prov_filter f = { 0 };
	const char *p, *end;
	size_t slots = 1;

	if (!raw) {
		*filter_p = f;
		return 0;
	}
	f.active = true;
	if (*raw == '^') {
		f.negated = true;
		raw++;
	}
	for (p = raw; *p; p++)
		slots += (*p == ',');
	f.names = calloc(slots, sizeof(*f.names));
	if (!f.names)
		return -FI_ENOMEM;

	for (p = raw; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (end == p)
			continue;
		f.names[f.count] = strndup(p, (size_t)(end - p));
		if (!f.names[f.count])
			goto err_names;
		f.count++;
	}
	*filter_p = f;
	return 0;

err_names:
	pl_prov_filter_free_names(f.names, f.count);
	return -FI_ENOMEM;
}

void pl_prov_filter_fini(struct pl_prov_filter *filter)
{
	pl_prov_filter_free_names(filter->names, filter->count);
	memset(filter, 0, sizeof(*filter));
}

/* name == "core;util", case-insensitively, without building the string. */
static bool pl_prov_filter_is_pair(const char *name, const char *core,
				   const char *util)
{
	size_t len = strlen(core);

	return !strncasecmp(name, core, len) && name[len] == ';' &&
	       !strcasecmp(name + len + 1, util);
}

static bool pl_prov_filter_names(const struct pl_prov_filter *filter,
				 const char *name)
{
	size_t i;

	for (i = 0; i < filter->count; i++)
		if (!strcasecmp(filter->names[i], name))
			return true;
	return false;
}

static bool pl_prov_filter_names_pair(const struct pl_prov_filter *filter,
				      const char *core, const char *util)
{
	size_t i;

	for (i = 0; i < filter->count; i++)
		if (pl_prov_filter_is_pair(filter->names[i], core, util))
			return true;
	return false;
}

bool pl_prov_filter_allows(const struct pl_prov_filter *filter,
			   const char *core, const char *util)
{
	if (!filter->active)
		return true;
	if (filter->negated) {
		if (pl_prov_filter_names(filter, core))
			return false;
		return !util || (!pl_prov_filter_names(filter, util) &&
				 !pl_prov_filter_names_pair(filter, core, util));
	}
	if (pl_prov_filter_names(filter, core))
		return true;
	return util && pl_prov_filter_names_pair(filter, core, util);
}

bool pl_prov_filter_allows_base(const struct pl_prov_filter *filter,
				const char *core)
{
	size_t len = strlen(core), i;

	if (!filter->active)
		return true;
	if (filter->negated)
		return !pl_prov_filter_names(filter, core);
	for (i = 0; i < filter->count; i++) {
		const char *name = filter->names[i];

		if (!strncasecmp(name, core, len) &&
		    (name[len] == '\0' || name[len] == ';'))
			return true;
	}
	return false;
}

bool pl_prov_filter_allows_peer(const struct pl_prov_filter *filter,
				const char *core)
{
	if (!filter->active || !filter->negated)
		return true;
	return !pl_prov_filter_names(filter, core);
}
