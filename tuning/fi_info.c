/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_info: what the library offers, as the reference tool shows it.
 *
 * Options, output bytes and exit statuses follow the reference tool
 * (observed by running it), because job scripts parse them:
 *   - a failed fi_getinfo prints "fi_getinfo: <ret>" on stderr and exits
 *     with -ret (modulo 256, as the shell sees it);
 *   - the one query is made even for -e (so that providers are loaded and
 *     their parameters defined) and for -l (with FI_PROV_ATTR_ONLY);
 *   - if the library cannot even allocate the hints, the tool exits 1
 *     before reading its options and without a word.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rdma/fabric.h>

#include "fi_info.h"

/*
 * Defaults the hints carry when an option makes the tool pass them: every
 * mode bit (the application "supports all modes", so no provider is
 * filtered out on mode), and every memory-registration mode bit except the
 * two legacy ones, which would select the old FI_MR_BASIC/SCALABLE
 * semantics instead of the bit mask.
 */
static void fi_info_hints_defaults(struct fi_info *hints)
{
	hints->mode = ~0ULL;
	if (hints->domain_attr)
		hints->domain_attr->mr_mode = ~(FI_MR_BASIC | FI_MR_SCALABLE);
}

int main(int argc, char **argv)
{
	struct fi_info_req req = { 0 };
	struct fi_info *info = NULL;
	int status = EXIT_SUCCESS;
	int ret;

	req.hints = fi_allocinfo();
	if (!req.hints)
		return EXIT_FAILURE;
	fi_info_hints_defaults(req.hints);

	if (!fi_info_args_parse(&req, argc, argv, &status))
		goto out_hints;

	ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
			 req.node, req.service, req.flags,
			 req.use_hints ? req.hints : NULL, &info);
	if (ret) {
		fprintf(stderr, "fi_getinfo: %d\n", ret);
		status = -ret;
		goto out_hints;
	}

	/* -e wins over -l, which wins over the fi_info listings. */
	if (req.env) {
		status = -fi_info_params_print(req.filter);
	} else if (req.list) {
		if (req.verbose)
			fi_info_print_verbose(info, req.filter);
		else
			fi_info_print_provs(info);
	} else if (req.verbose) {
		fi_info_print_verbose(info, req.filter);
	} else {
		fi_info_print_short(info);
	}

	fi_freeinfo(info);
out_hints:
	fi_freeinfo(req.hints);
	return status;
}
