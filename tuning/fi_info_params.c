/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_info -e / -g: the parameters the library and its providers define,
 * in the order fi_getparams returns them, as the reference tool prints
 * them:
 *
 *   # NAME: TYPE
 *   # help text
 *   NAME=\0value\0          (only when the variable is set)
 *   (empty line)
 *
 * The value is framed by two NUL bytes. They look accidental, but they
 * are what the reference tool writes, and the output must be the same
 * bytes for whatever parses it.
 */
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>

#include "fi_info.h"

static const char *fi_info_params_type(enum fi_param_type type)
{
	switch (type) {
	case FI_PARAM_STRING:
		return "String";
	case FI_PARAM_INT:
		return "Integer";
	case FI_PARAM_BOOL:
		return "Boolean (0/1, on/off, true/false, yes/no)";
	case FI_PARAM_SIZE_T:
		return "size_t";
	default:
		return "Unknown";
	}
}

static const char *fi_info_params_str(const char *s)
{
	return s ? s : "(null)";
}

static void fi_info_params_print_one(const struct fi_param *param)
{
	const char *name = fi_info_params_str(param->name);

	printf("# %s: %s\n", name, fi_info_params_type(param->type));
	printf("# %s\n", fi_info_params_str(param->help_string));
	if (param->value) {
		fputs(name, stdout);
		putchar('=');
		putchar('\0');
		fputs(param->value, stdout);
		putchar('\0');
		putchar('\n');
	}
	putchar('\n');
}

int fi_info_params_print(const char *filter)
{
	struct fi_param *params = NULL;
	int count = 0, ret, i;

	ret = fi_getparams(&params, &count);
	if (ret)
		return ret;

	for (i = 0; i < count; i++) {
		/* A nameless entry matches no filter (the reference tool
		 * crashes on it). */
		if (filter && (!params[i].name ||
			       !strcasestr(params[i].name, filter)))
			continue;
		fi_info_params_print_one(&params[i]);
	}
	fi_freeparams(params);
	return 0;
}
