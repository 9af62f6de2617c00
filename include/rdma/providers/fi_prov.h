/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Provider-facing interface: what an out-of-tree (dynamically loaded)
 * provider needs in order to register itself with the propel core and
 * to consume its configuration-parameter service.
 *
 * The layout of struct fi_provider and the fi_prov_ini() entry point are
 * a binary contract with every provider plug-in ever built against
 * libfabric, so they must never change shape.
 */
#ifndef PROPEL_RDMA_PROVIDERS_FI_PROV_H
#define PROPEL_RDMA_PROVIDERS_FI_PROV_H

#include <rdma/fabric.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Plug-in naming.  The core only dlopen()s files in its provider
 * directories whose names end in "-" FI_LIB_SUFFIX, so a provider "foo"
 * ships as libfoo-fi.so.  Spelled as string literals so that callers
 * can paste them into larger literals.
 */
#define FI_LIB_EXTENSION	"fi"
#define FI_LIB_SUFFIX		FI_LIB_EXTENSION ".so"

/*
 * Entry point every loadable provider must export.  Use it as the head
 * of the definition:
 *
 *	FI_EXT_INI { return &my_provider; }
 *
 * The symbol must survive -fvisibility=hidden and (with GCC) whole
 * program optimisation, hence the attributes.
 */
#define FI_EXT_INI							\
	__attribute__((visibility("default"), EXTERNALLY_VISIBLE))	\
	struct fi_provider *fi_prov_ini(void)

/*
 * Handed to the core by fi_prov_ini().  'context' is scratch space the
 * core owns while the provider is registered.
 */
struct fi_provider {
	uint32_t		version;	/* provider's own version */
	uint32_t		fi_version;	/* API version it was built for */
	struct fi_context	context;
	const char		*name;
	int	(*getinfo)(uint32_t version, const char *node,
			   const char *service, uint64_t flags,
			   const struct fi_info *hints,
			   struct fi_info **info);
	int	(*fabric)(struct fi_fabric_attr *attr,
			  struct fid_fabric **fabric, void *context);
	void	(*cleanup)(void);
};

/*
 * Configuration parameters.  A provider declares each tunable once with
 * fi_param_define(); the value is then looked up (today: from the
 * FI_<PROV>_<NAME> environment variable) with fi_param_get().  The typed
 * wrappers below exist only so that callers get a compile-time check on
 * the destination pointer.
 */
int fi_param_define(const struct fi_provider *provider, const char *param_name,
		    enum fi_param_type type, const char *help_string_fmt, ...);

int fi_param_get(struct fi_provider *provider, const char *param_name,
		 void *value);

static inline int
fi_param_get_str(struct fi_provider *provider, const char *param_name,
		 char **value)
{
	return fi_param_get(provider, param_name, value);
}

static inline int
fi_param_get_int(struct fi_provider *provider, const char *param_name,
		 int *value)
{
	return fi_param_get(provider, param_name, value);
}

/* Booleans are reported through an int, not a bool. */
static inline int
fi_param_get_bool(struct fi_provider *provider, const char *param_name,
		  int *value)
{
	return fi_param_get(provider, param_name, value);
}

static inline int
fi_param_get_size_t(struct fi_provider *provider, const char *param_name,
		    size_t *value)
{
	return fi_param_get(provider, param_name, value);
}

#ifdef __cplusplus
}
#endif

#endif /* PROPEL_RDMA_PROVIDERS_FI_PROV_H */
