/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_PROVIDER: which providers, and which core;utility pairs, fi_getinfo
 * may report. The grammar and its meaning are the reference's, checked
 * against Debian's libfabric 1.17 (see pl_prov_filter.c for the cases).
 *
 * A filter is built once, when the registry initializes, and only read
 * afterwards, so any thread may query it without synchronization.
 */
#ifndef PROPEL_PL_PROV_FILTER_H
#define PROPEL_PL_PROV_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct pl_prov_filter {
	bool	active;		/* FI_PROVIDER was set (even to "") */
	bool	negated;	/* leading '^': the list names exclusions */
	size_t	count;
	char	**names;	/* "core", "util" or "core;util" */
};

/*
 * Parse raw (NULL: no filter). On success *filter_p owns its strings and
 * must be released with pl_prov_filter_fini(). Errors: -FI_ENOMEM.
 */
int pl_prov_filter_parse(const char *raw, struct pl_prov_filter *filter_p);
void pl_prov_filter_fini(struct pl_prov_filter *filter);

/*
 * May fi_getinfo report core on its own (util NULL) or layered under util?
 * Names compare without regard to case.
 */
bool pl_prov_filter_allows(const struct pl_prov_filter *filter,
			   const char *core, const char *util);

/*
 * May a utility use core as its base? An include list admits a core that
 * it names alone or as the first half of a layered name, so that
 * FI_PROVIDER=tcp;ofi_rxm hides tcp from applications yet leaves it to rxm.
 */
bool pl_prov_filter_allows_base(const struct pl_prov_filter *filter,
				const char *core);

/*
 * May a provider open core as its peer (fi_peer(3): rxm opens shm for
 * node-local peers)? The peer is part of the stack the user chose, so an
 * include list does not hide it (FI_PROVIDER=tcp;ofi_rxm still lets rxm
 * use shm; the provider has its own variable to turn that off); an
 * exclude list that names it does.
 */
bool pl_prov_filter_allows_peer(const struct pl_prov_filter *filter,
				const char *core);

#endif /* PROPEL_PL_PROV_FILTER_H */
