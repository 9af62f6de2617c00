/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hints->fabric_attr->prov_name matching. Checked against the reference
 * (fi_info -p NAME on Debian's libfabric 1.17):
 *   "tcp"          tcp, and every utility over tcp
 *   "ofi_rxm"      ofi_rxm over any core, never a core on its own
 *   "tcp;ofi_rxm"  just that pair, in either order
 *   "tcp;^ofi_rxm" tcp and its pairs, except with ofi_rxm
 *   "tcp,udp"      nothing (',' is not a separator here)
 * Names compare without regard to case; empty tokens are skipped. We
 * accept a refusal anywhere in the list (the reference wants them last)
 * and treat more than one core and one utility as matching nothing,
 * where the reference's answers for such strings follow no rule.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdma/fi_errno.h>

#include "pl_prov_sel.h"

int pl_prov_sel_parse(const char *prov_name, struct pl_prov_sel *sel_p)
{
	struct pl_prov_sel sel = { 0 };
	size_t slots = 1, len;
	char *tok, *next;

	if (!prov_name || !*prov_name) {
		*sel_p = sel;
		return 0;
	}
	len = strlen(prov_name);
	for (tok = (char *)prov_name; *tok; tok++)
		slots += (*tok == ';');

	sel.buf = malloc(len + 1);
	sel.want = calloc(slots, sizeof(*sel.want));
	sel.refuse = calloc(slots, sizeof(*sel.refuse));
	if (!sel.buf || !sel.want || !sel.refuse) {
		pl_prov_sel_fini(&sel);
		return -FI_ENOMEM;
	}
	memcpy(sel.buf, prov_name, len + 1);

	for (tok = sel.buf; tok; tok = next) {
		next = strchr(tok, ';');
		if (next)
			*next++ = '\0';
		if (tok[0] == '^') {
			if (tok[1])
				sel.refuse[sel.nrefuse++] = tok + 1;
		} else if (tok[0]) {
			sel.want[sel.nwant++] = tok;
		}
	}
	*sel_p = sel;
	return 0;
}

void pl_prov_sel_fini(struct pl_prov_sel *sel)
{
	free(sel->buf);
	free(sel->want);
	free(sel->refuse);
	memset(sel, 0, sizeof(*sel));
}

bool pl_prov_sel_allows(const struct pl_prov_sel *sel, const char *core,
			const char *util)
{
	size_t i;

	for (i = 0; i < sel->nrefuse; i++) {
		if (!strcasecmp(sel->refuse[i], core) ||
		    (util && !strcasecmp(sel->refuse[i], util)))
			return false;
	}
	/* Every wanted name must be one of the pair: a core named alone
	 * brings its pairs along, a utility named alone brings no core, and
	 * a third name can never match. */
	for (i = 0; i < sel->nwant; i++) {
		if (strcasecmp(sel->want[i], core) &&
		    (!util || strcasecmp(sel->want[i], util)))
			return false;
	}
	return true;
}
