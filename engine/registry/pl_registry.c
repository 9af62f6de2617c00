/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider registry: one array of providers, filled once by
 * pl_registry_load() under pthread_once and only read afterwards.
 *
 * Start-up cost is the providers' ini functions plus one directory scan
 * per FI_PROVIDER_PATH entry: nothing here reads /proc or probes devices,
 * so that fi_getinfo's first call (and fi_info -l) stays cheap.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_builtin_provs.h"
#include "pl_compiler.h"
#include "pl_core_params.h"
#include "pl_log.h"
#include "pl_mrc_param.h"
#include "pl_param.h"
#include "pl_registry.h"
#include "pl_registry_dl.h"

static pthread_once_t pl_registry_once = PTHREAD_ONCE_INIT;
/* Set at the end of pl_registry_load(); the destructor reads it to know
 * whether there is anything to clean up (release pairs with its acquire
 * in pl_registry_fini). */
static atomic_bool pl_registry_loaded;

static struct pl_prov *pl_provs;
static size_t pl_nprovs;
static size_t pl_provs_cap;
static struct pl_prov_filter pl_filter;

bool pl_registry_is_util_name(const char *name)
{
	return !strncasecmp(name, PL_UTIL_PREFIX, strlen(PL_UTIL_PREFIX));
}

static const char *pl_registry_origin(const struct pl_prov *prov)
{
	return prov->dlhandle ? "external" : "built-in";
}

/* Undo what ini did for a provider we are not keeping. */
static void pl_registry_drop(struct fi_provider *prov, void *dlhandle)
{
	if (prov && prov->cleanup)
		prov->cleanup();
	if (dlhandle)
		dlclose(dlhandle);
}

static bool pl_registry_valid(const struct fi_provider *prov,
			      const char *origin)
{
	uint32_t v = prov->fi_version;

	if (!prov->name || !prov->name[0] ||
	    strpbrk(prov->name, ";,^ \t\n")) {
		PL_WARN(FI_LOG_CORE, "provider from %s has an unusable name; "
			"ignoring it\n", origin);
		return false;
	}
	if (!prov->getinfo || !prov->fabric) {
		PL_WARN(FI_LOG_CORE, "provider %s (%s) lacks getinfo or fabric; "
			"ignoring it\n", prov->name, origin);
		return false;
	}
	/* A provider built for a newer API may rely on struct fields we do
	 * not have; one of another major version speaks another ABI. */
	if (FI_MAJOR(v) != 1 || v > PL_API_VERSION_MAX) {
		PL_WARN(FI_LOG_CORE, "provider %s (%s) is built for API %u.%u, "
			"newer than %u.%u; ignoring it\n", prov->name, origin,
			FI_MAJOR(v), FI_MINOR(v), FI_MAJOR(PL_API_VERSION_MAX),
			FI_MINOR(PL_API_VERSION_MAX));
		return false;
	}
	return true;
}

static struct pl_prov *pl_registry_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < pl_nprovs; i++)
		if (!strcasecmp(pl_provs[i].fi->name, name))
			return &pl_provs[i];
	return NULL;
}

bool pl_registry_has_handle(const void *dlhandle)
{
	size_t i;

	for (i = 0; i < pl_nprovs; i++)
		if (pl_provs[i].dlhandle == dlhandle)
			return true;
	return false;
}

void pl_registry_add(struct fi_provider *prov, void *dlhandle,
		     const char *origin, bool by_order)
{
	struct pl_prov *old, *grown;

	if (!prov) {
		PL_INFO(FI_LOG_CORE, "%s declined to register\n", origin);
		pl_registry_drop(NULL, dlhandle);
		return;
	}
	if (!pl_registry_valid(prov, origin)) {
		pl_registry_drop(prov, dlhandle);
		return;
	}

	old = pl_registry_lookup(prov->name);
	if (old && old->fi == prov) {
		/* The same library reached twice through the path: dlopen
		 * handed back the one already loaded, so only drop the
		 * extra reference, never its state. */
		if (dlhandle)
			dlclose(dlhandle);
		return;
	}
	if (old) {
		/* Same name twice: by default the newer version wins (ties go
		 * to the first found); a leading '@' in FI_PROVIDER_PATH asks
		 * for discovery order instead, as with the reference. */
		if (by_order || prov->version <= old->fi->version) {
			PL_INFO(FI_LOG_CORE, "provider %s %u.%u from %s loses "
				"to the %s one, %u.%u, found first; ignoring "
				"it\n", prov->name, FI_MAJOR(prov->version),
				FI_MINOR(prov->version), origin,
				pl_registry_origin(old),
				FI_MAJOR(old->fi->version),
				FI_MINOR(old->fi->version));
			pl_registry_drop(prov, dlhandle);
			return;
		}
		PL_INFO(FI_LOG_CORE, "provider %s from %s is newer than the "
			"%s one; using it instead\n", prov->name, origin,
			pl_registry_origin(old));
		pl_registry_drop(old->fi, old->dlhandle);
		old->fi = prov;
		old->dlhandle = dlhandle;
		return;
	}

	if (pl_nprovs == pl_provs_cap) {
		size_t cap = pl_provs_cap ? 2 * pl_provs_cap : 8;

		grown = realloc(pl_provs, cap * sizeof(*grown));
		if (!grown) {
			PL_WARN(FI_LOG_CORE, "out of memory registering %s\n",
				prov->name);
			pl_registry_drop(prov, dlhandle);
			return;
		}
		pl_provs = grown;
		pl_provs_cap = cap;
	}
	pl_provs[pl_nprovs++] = (struct pl_prov){
		.fi = prov,
		.dlhandle = dlhandle,
		.util = pl_registry_is_util_name(prov->name),
	};
	PL_INFO(FI_LOG_CORE, "registered %s provider %s (%s)\n",
		pl_provs[pl_nprovs - 1].util ? "utility" : "core", prov->name,
		origin);
}

static void pl_registry_load(void)
{
	const struct pl_builtin_prov *b;
	const char *raw;
	bool by_order;

	pl_core_params_init();
	/* The cache's variables exist before any domain opens a cache, so
	 * that fi_info -e (fi_getparams) lists them like every other. */
	pl_mrc_param_init();

	raw = pl_param_get_str(&pl_core_prov, "provider", NULL);
	if (pl_prov_filter_parse(raw, &pl_filter))
		PL_WARN(FI_LOG_CORE, "out of memory reading FI_PROVIDER; "
			"not filtering providers\n");

	/* External providers first, as the reference discovers them: under
	 * a '@' path they then win over a built-in of the same name, which
	 * is what a user pointing FI_PROVIDER_PATH at a replacement wants. */
	by_order = pl_registry_dl_load(pl_param_get_str(&pl_core_prov,
							"provider_path", NULL));
	for (b = pl_builtin_provs; b->ini; b++)
		pl_registry_add(b->ini(), NULL, b->name, by_order);

	/* Pairs with the acquire load in pl_registry_fini(). */
	pl_store_release(&pl_registry_loaded, true);
}

void pl_registry_init(void)
{
	pthread_once(&pl_registry_once, pl_registry_load);
}

size_t pl_registry_count(void)
{
	pl_registry_init();
	return pl_nprovs;
}

const struct pl_prov *pl_registry_at(size_t idx)
{
	pl_registry_init();
	return idx < pl_nprovs ? &pl_provs[idx] : NULL;
}

const struct pl_prov *pl_registry_find(const char *name)
{
	pl_registry_init();
	return name ? pl_registry_lookup(name) : NULL;
}

const struct pl_prov_filter *pl_registry_filter(void)
{
	pl_registry_init();
	return &pl_filter;
}

/*
 * Only a function pointer is stored here, so loading the library stays
 * free: fi_getparams (fi_info -e) calls the hook to make every provider
 * define its parameters, which is what initializing the registry does.
 */
__attribute__((constructor)) static void pl_registry_ctor(void)
{
	pl_param_discover_hook_set(pl_registry_init);
}

/*
 * Give every provider its cleanup() call, newest first. The libraries
 * stay mapped: a provider may still have a thread running at exit, and
 * unmapping its code under it would crash the process for nothing, as
 * the kernel reclaims everything a moment later.
 */
__attribute__((destructor)) static void pl_registry_fini(void)
{
	size_t i;

	pl_param_discover_hook_set(NULL);
	/* Pairs with the release store at the end of pl_registry_load(). */
	if (pl_load_acquire(&pl_registry_loaded)) {
		for (i = pl_nprovs; i-- > 0;)
			if (pl_provs[i].fi->cleanup)
				pl_provs[i].fi->cleanup();
		/* Calls that still arrive (from other destructors) find
		 * nothing; the table goes, so that dlclose() of the
		 * library leaks nothing. */
		pl_nprovs = 0;
		pl_provs_cap = 0;
		free(pl_provs);
		pl_provs = NULL;
		pl_prov_filter_fini(&pl_filter);
	}
	pl_param_release_all();
}
