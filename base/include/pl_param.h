/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Configuration parameters: the registry behind fi_param_define(),
 * fi_param_get() and fi_getparams(), and the table mechanism every
 * component uses to declare its FI_* variables in one place.
 *
 * Naming: a parameter "spin_us" of provider "ofi_rxm" is the environment
 * variable FI_OFI_RXM_SPIN_US (upper case, anything not alphanumeric
 * becomes '_'); the core provider (NULL or &pl_core_prov) has no provider
 * part, so "log_level" is FI_LOG_LEVEL.
 *
 * Values: the environment first, else the tuning profile named by
 * FI_TUNING_PROFILE (pl_tuning_profile.h), else unset.
 *
 * Concurrency: every function here may be called from any thread at any
 * time. Definitions are kept until the library is unloaded and never
 * change once made, so what a lookup returns stays valid. Nothing here
 * logs while holding the registry lock, so a log call may itself read
 * parameters.
 */
#ifndef PROPEL_PL_PARAM_H
#define PROPEL_PL_PARAM_H

#include <stdbool.h>
#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

/*
 * One row of a component's parameter table. def is the default as text,
 * for documentation: fi_info -e shows it as "(default: <def>)" after the
 * help; NULL when there is no meaningful default to show. The typed
 * getters below still take the default as a typed value.
 */
struct pl_param_def {
	const char		*name;
	enum fi_param_type	type;
	const char		*def;
	const char		*help;
};

/*
 * Define every row of table for prov (NULL means the core). Redefining a
 * name the provider already has is harmless (see fi_param_define). Returns
 * 0, or the first error met; the remaining rows are still defined.
 */
int pl_param_table_define(const struct fi_provider *prov,
			  const struct pl_param_def *table, size_t count);

/*
 * Typed getters for internal use. Each returns the parameter's value when
 * it is set and valid, else def. A value that does not parse or lies
 * outside [min, max] gets one warning naming the variable, the accepted
 * form and range, and the default kept. Reading a name that prov never
 * defined is a coding error: it is warned about and def returned.
 * pl_param_get_str returns the environment's (or profile's) string, which
 * the caller must not free.
 */
int pl_param_get_int(const struct fi_provider *prov, const char *name,
		     int def, int min, int max);
size_t pl_param_get_size(const struct fi_provider *prov, const char *name,
			 size_t def, size_t min, size_t max);
bool pl_param_get_bool(const struct fi_provider *prov, const char *name,
		       bool def);
const char *pl_param_get_str(const struct fi_provider *prov, const char *name,
			     const char *def);

/* Where a value came from. */
enum pl_param_src {
	PL_PARAM_SRC_NONE,
	PL_PARAM_SRC_ENV,
	PL_PARAM_SRC_PROFILE,
};

/*
 * The raw text of FI_<PROV>_<NAME>: environment, else tuning profile, else
 * NULL (*src_p says which; src_p may be NULL). Needs no definition and
 * never logs, which is what the logging set-up itself relies on.
 */
const char *pl_param_lookup(const struct fi_provider *prov, const char *name,
			    enum pl_param_src *src_p);

/*
 * Write the variable name for (prov, name) into buf. Returns its length,
 * or -FI_ETOOSMALL / -FI_EINVAL.
 */
int pl_param_env_name(const struct fi_provider *prov, const char *name,
		      char *buf, size_t len);

/* A defined parameter as enumeration shows it. */
struct pl_param_info {
	const char		*prov_name;	/* "core" for the core */
	const char		*name;		/* as defined */
	const char		*env_name;	/* FI_... */
	enum fi_param_type	type;
	const char		*help;		/* as fi_info -e prints it */
	const char		*def;		/* table default text, or NULL */
};

/*
 * Call fn for every defined parameter, in definition order, after making
 * sure the core parameters and (through the discovery hook) the providers'
 * are defined. fn runs without any lock held. Stops at the first non-zero
 * return of fn and returns it; 0 otherwise.
 */
int pl_param_foreach(int (*fn)(const struct pl_param_info *info, void *arg),
		     void *arg);

/*
 * The engine (a layer above) installs a function that makes every
 * provider define its parameters; fi_getparams and pl_param_foreach call
 * it first, so fi_info -e lists all of them. Idempotence is the hook's
 * business. NULL removes it.
 */
void pl_param_discover_hook_set(void (*hook)(void));

/*
 * Frees every definition; called once from the library's destructor, after
 * the providers' cleanup(), so that dlclose() of libfabric.so.1 leaks
 * nothing. Later lookups find no parameter (-FI_ENOENT).
 */
void pl_param_release_all(void);

#endif /* PROPEL_PL_PARAM_H */
