/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fi_info tool: internal interfaces between its files. The tool is a
 * plain client of the public API (it links libfabric.so.1 and nothing
 * else), so that it behaves the same on propel and on the reference
 * library, and its output can be compared byte for byte with the
 * reference tool's (scripts parse it).
 */
#ifndef PROPEL_TUNING_FI_INFO_H
#define PROPEL_TUNING_FI_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>

/*
 * What one command line asks for. The hints are allocated before the
 * options are read (so that the options can fill them in place) and are
 * handed to fi_getinfo only when an option that shapes them was given:
 * the reference tool passes NULL hints otherwise, and providers answer
 * NULL hints differently from all-default ones.
 */
struct fi_info_req {
	struct fi_info *hints;	/* owned; freed by the caller of the parser */
	const char *node;	/* -n or -s, whichever came last (argv storage) */
	const char *service;	/* -P (argv storage) */
	uint64_t flags;		/* FI_SOURCE for -s, FI_PROV_ATTR_ONLY for -l */
	const char *filter;	/* -g or -i substring, the last given; or NULL */
	bool use_hints;		/* -c -m -t -a -p -f -d seen */
	bool env;		/* -e or -g: print the parameters */
	bool list;		/* -l: print the providers */
	bool verbose;		/* -v or -i: print whole fi_info structures */
};

/* fi_info_args.c */

/*
 * Read the command line into req (whose hints are already allocated).
 * Returns true when the tool should go on and query the library; false
 * when it must stop now (help, version, a bad option or value) with the
 * exit status in *status_p, after having printed what the case calls for.
 */
bool fi_info_args_parse(struct fi_info_req *req, int argc, char **argv,
			int *status_p);

/* fi_info_names.c: the names the tool accepts for option values. */

/* A piece of a longer string (not terminated), to print with "%.*s". */
struct fi_info_slice {
	const char *str;
	int len;
};

/*
 * Parse a '|'-separated list of capability (or mode) names, matched
 * without regard to case; empty items are skipped. On success the bits
 * are stored in *bits_p; on an unknown name, *bad_p is set to that item
 * (a slice of list) and -FI_EINVAL is returned.
 */
int fi_info_names_caps(const char *list, uint64_t *bits_p,
		       struct fi_info_slice *bad_p);
int fi_info_names_modes(const char *list, uint64_t *bits_p,
			struct fi_info_slice *bad_p);

/* One endpoint type or address format name; -FI_EINVAL when unknown. */
int fi_info_names_ep_type(const char *name, enum fi_ep_type *type_p);
int fi_info_names_addr_format(const char *name, uint32_t *format_p);

/* fi_info_print.c: listings of what fi_getinfo returned. */

/* The short listing: six lines per fi_info. */
void fi_info_print_short(const struct fi_info *info);

/*
 * Each fi_info in full (fi_tostr_r), skipping those whose text does not
 * contain filter (any case) when filter is not NULL.
 */
void fi_info_print_verbose(const struct fi_info *info, const char *filter);

/* -l: one name and version per entry, in the order returned. */
void fi_info_print_provs(const struct fi_info *info);

/* fi_info_params.c */

/*
 * Print every parameter the library defines (fi_getparams), or those
 * whose name contains filter (any case). Returns 0, or the error from
 * fi_getparams (negative) after printing nothing.
 */
int fi_info_params_print(const char *filter);

#endif /* PROPEL_TUNING_FI_INFO_H */
