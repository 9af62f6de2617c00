/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fi_info command line, with the reference tool's options, help text,
 * messages and exit statuses.
 *
 * Options act in the order given, each as it is read: "--version -t bad"
 * prints the version and succeeds, "-t bad --version" fails on the type.
 * Repeated options: -c adds capabilities, -m replaces the mode set, the
 * others keep the last value; -n and -s share the node (the last wins,
 * and any -s asks for FI_SOURCE), -g and -i share the filter.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "fi_info.h"

/* --version has no short letter; a value outside the char range keeps it
 * apart from every short option. */
#define FI_INFO_OPT_VERSION 256

static const char fi_info_args_short[] = "s:n:P:c:m:t:d:f:a:p:eg:i:lvh";

/*
 * The order matters beyond lookup: getopt_long lists the candidates of an
 * ambiguous abbreviation ("--ver", "--e", "--p") in table order, and that
 * message is compared with the reference tool's.
 */
static const struct option fi_info_args_long[] = {
	{ "help",        no_argument,       NULL, 'h' },
	{ "src_addr",    required_argument, NULL, 's' },
	{ "node",        required_argument, NULL, 'n' },
	{ "port",        required_argument, NULL, 'P' },
	{ "caps",        required_argument, NULL, 'c' },
	{ "mode",        required_argument, NULL, 'm' },
	{ "ep_type",     required_argument, NULL, 't' },
	{ "domain",      required_argument, NULL, 'd' },
	{ "fabric",      required_argument, NULL, 'f' },
	{ "addr_format", required_argument, NULL, 'a' },
	{ "provider",    required_argument, NULL, 'p' },
	{ "env",         no_argument,       NULL, 'e' },
	{ "getenv",      required_argument, NULL, 'g' },
	{ "info",        required_argument, NULL, 'i' },
	{ "list",        no_argument,       NULL, 'l' },
	{ "verbose",     no_argument,       NULL, 'v' },
	{ "version",     no_argument,       NULL, FI_INFO_OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void fi_info_args_usage(const char *argv0)
{
	printf("Usage: %s\n", argv0);
	fputs("  -h, --help\t\t\tdisplay this help and exit\n"
	      "  -s, --src_addr=ADDR\t\tsource name or address\n"
	      "  -n, --node=NAME\t\tdest node name or address\n"
	      "  -P, --port=PNUM\t\tport number\n"
	      "  -c, --caps=CAP1|CAP2..\tone or more capabilities: FI_MSG|FI_RMA...\n"
	      "  -m, --mode=MOD1|MOD2..\tone or more modes, default all modes\n"
	      "  -t, --ep_type=EPTYPE\t\tspecify single endpoint type: FI_EP_MSG, FI_EP_DGRAM...\n"
	      "  -d, --domain=DOMAIN\t\tspecify the domain name\n"
	      "  -f, --fabric=FABRIC\t\tspecify the fabric name\n"
	      "  -a, --addr_format=FMT\t\tspecify accepted address format: FI_FORMAT_UNSPEC, FI_SOCKADDR...\n"
	      "  -p, --provider=PROV\t\tspecify provider explicitly\n"
	      "  -e, --env\t\t\tprint libfabric environment variables\n"
	      "  -g, --getenv=SUBSTR\t\tprint libfabric environment variables with substr\n"
	      "  -i, --info=\t\tprint fi_info structures containing substr\n"
	      "  -l, --list\t\t\tlist available libfabric providers\n"
	      "  -v, --verbose\t\t\tverbose output\n"
	      "  --version\t\t\tprint version info and exit\n",
	      stdout);
}

/*
 * The tool and the API it was built for share one version: the release of
 * the interface propel implements (the library's own soname version).
 */
static void fi_info_args_version(const char *argv0)
{
	printf("%s: %d.%d.%d\n", argv0, FI_MAJOR_VERSION, FI_MINOR_VERSION,
	       FI_REVISION_VERSION);
	printf("libfabric: %d.%d.%d\n", FI_MAJOR_VERSION, FI_MINOR_VERSION,
	       FI_REVISION_VERSION);
	printf("libfabric api: %d.%d\n", FI_MAJOR_VERSION, FI_MINOR_VERSION);
}

/* Replace an owned string of the hints; a failed copy leaves it unset,
 * which widens the query rather than failing the tool. */
static void fi_info_args_set_str(char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
}

/*
 * Apply one option that shapes the hints. Returns 0, or -FI_EINVAL after
 * printing which value was not understood.
 */
static int fi_info_args_hint(struct fi_info *hints, int opt, const char *arg)
{
	struct fi_info_slice bad;
	enum fi_ep_type type;
	uint32_t format;
	uint64_t bits;

	switch (opt) {
	case 'c':
		if (fi_info_names_caps(arg, &bits, &bad)) {
			fprintf(stderr, "error: Unrecognized capability: %.*s\n",
				bad.len, bad.str);
			return -FI_EINVAL;
		}
		hints->caps |= bits;
		return 0;
	case 'm':
		if (fi_info_names_modes(arg, &bits, &bad)) {
			fprintf(stderr, "error: Unrecognized mode: %.*s\n",
				bad.len, bad.str);
			return -FI_EINVAL;
		}
		hints->mode = bits;
		return 0;
	case 't':
		if (fi_info_names_ep_type(arg, &type)) {
			fprintf(stderr, "error: Unrecognized endpoint type: %s\n", arg);
			return -FI_EINVAL;
		}
		if (hints->ep_attr)
			hints->ep_attr->type = type;
		return 0;
	case 'a':
		if (fi_info_names_addr_format(arg, &format)) {
			fprintf(stderr, "error: Unrecognized address format: %s\n", arg);
			return -FI_EINVAL;
		}
		hints->addr_format = format;
		return 0;
	case 'p':
		if (hints->fabric_attr)
			fi_info_args_set_str(&hints->fabric_attr->prov_name, arg);
		return 0;
	case 'f':
		if (hints->fabric_attr)
			fi_info_args_set_str(&hints->fabric_attr->name, arg);
		return 0;
	case 'd':
		if (hints->domain_attr)
			fi_info_args_set_str(&hints->domain_attr->name, arg);
		return 0;
	default:
		return -FI_EINVAL;
	}
}

bool fi_info_args_parse(struct fi_info_req *req, int argc, char **argv,
			int *status_p)
{
	int opt, ret;

	while ((opt = getopt_long(argc, argv, fi_info_args_short,
				  fi_info_args_long, NULL)) != -1) {
		switch (opt) {
		case 'c':
		case 'm':
		case 't':
		case 'a':
		case 'p':
		case 'f':
		case 'd':
			ret = fi_info_args_hint(req->hints, opt, optarg);
			if (ret) {
				*status_p = -ret;
				return false;
			}
			req->use_hints = true;
			break;
		case 'n':
			req->node = optarg;
			break;
		case 's':
			req->node = optarg;
			req->flags |= FI_SOURCE;
			break;
		case 'P':
			req->service = optarg;
			break;
		case 'e':
			req->env = true;
			break;
		case 'g':
			req->filter = optarg;
			req->env = true;
			break;
		case 'i':
			req->filter = optarg;
			req->verbose = true;
			break;
		case 'l':
			req->list = true;
			req->flags |= FI_PROV_ATTR_ONLY;
			break;
		case 'v':
			req->verbose = true;
			break;
		case FI_INFO_OPT_VERSION:
			fi_info_args_version(argv[0]);
			*status_p = EXIT_SUCCESS;
			return false;
		case 'h':
		default:
			/* getopt_long has already named a bad option on stderr. */
			fi_info_args_usage(argv[0]);
			*status_p = EXIT_FAILURE;
			return false;
		}
	}
	return true;
}
