/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider selection an application writes into
 * hints->fabric_attr->prov_name: ';'-separated names, each either wanted
 * or, with a leading '^', refused ("tcp", "tcp;ofi_rxm", "ofi_rxm;^net").
 * Built per fi_getinfo call and owned by that call's thread.
 */
#ifndef PROPEL_PL_PROV_SEL_H
#define PROPEL_PL_PROV_SEL_H

#include <stdbool.h>
#include <stddef.h>

struct pl_prov_sel {
	char		*buf;	/* the tokens, NUL-separated */
	size_t		nwant;
	size_t		nrefuse;
	const char	**want;
	const char	**refuse;
};

/*
 * Parse prov_name (NULL or empty: select everything). On success
 * release with pl_prov_sel_fini(). Errors: -FI_ENOMEM.
 */
int pl_prov_sel_parse(const char *prov_name, struct pl_prov_sel *sel_p);
void pl_prov_sel_fini(struct pl_prov_sel *sel);

/* Does the selection admit core alone (util NULL) or util over core? */
bool pl_prov_sel_allows(const struct pl_prov_sel *sel, const char *core,
			const char *util);

#endif /* PROPEL_PL_PROV_SEL_H */
