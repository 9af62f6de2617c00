/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * External providers: every lib*-fi.so in the FI_PROVIDER_PATH
 * directories, in directory order then name order (sorted, so the result
 * does not depend on the file system's readdir order).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

#include "pl_log.h"
#include "pl_registry.h"
#include "pl_registry_dl.h"

#define PL_REGISTRY_DL_SUFFIX	"-" FI_LIB_SUFFIX

static int pl_registry_dl_match(const struct dirent *ent)
{
	size_t len = strlen(ent->d_name);
	size_t sfx = strlen(PL_REGISTRY_DL_SUFFIX);

	/* "lib" + at least one character of name + "-fi.so" */
	return len > 3 + sfx && !strncmp(ent->d_name, "lib", 3) &&
	       !strcmp(ent->d_name + len - sfx, PL_REGISTRY_DL_SUFFIX);
}

static void pl_registry_dl_open(const char *path, bool by_order)
{
	struct fi_provider *(*ini)(void);
	void *handle;

	/* RTLD_NOW: a provider missing a symbol is refused here, with a
	 * message, rather than crashing at its first call. RTLD_LOCAL: two
	 * providers may define the same internal names. */
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		PL_WARN(FI_LOG_CORE, "cannot load provider %s: %s\n", path,
			dlerror());
		return;
	}
	/* The same file reached twice (a directory listed twice, a link):
	 * dlopen returned the library already loaded, whose ini has run. */
	if (pl_registry_has_handle(handle)) {
		dlclose(handle);
		return;
	}
	*(void **)&ini = dlsym(handle, "fi_prov_ini");
	if (!ini) {
		PL_WARN(FI_LOG_CORE, "%s has no fi_prov_ini; ignoring it\n",
			path);
		dlclose(handle);
		return;
	}
	pl_registry_add(ini(), handle, path, by_order);
}

static void pl_registry_dl_dir(const char *dir, bool by_order)
{
	struct dirent **ents;
	char *path;
	int n, i;

	n = scandir(dir, &ents, pl_registry_dl_match, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			PL_DBG(FI_LOG_CORE, "no provider directory %s\n", dir);
		else
			PL_INFO(FI_LOG_CORE, "cannot scan %s: %s\n", dir,
				strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (asprintf(&path, "%s/%s", dir, ents[i]->d_name) >= 0) {
			pl_registry_dl_open(path, by_order);
			free(path);
		}
		free(ents[i]);
	}
	free(ents);
}

/* "<directory of this library>/libfabric", the reference's default. */
static char *pl_registry_dl_default(void)
{
	const char *slash;
	char *dir;
	Dl_info dli;

	if (!dladdr((void *)pl_registry_dl_default, &dli) || !dli.dli_fname)
		return NULL;
	slash = strrchr(dli.dli_fname, '/');
	if (!slash)
		return NULL;
	if (asprintf(&dir, "%.*s/libfabric", (int)(slash - dli.dli_fname),
		     dli.dli_fname) < 0)
		return NULL;
	return dir;
}

bool pl_registry_dl_load(const char *path)
{
	bool by_order = false;
	char *copy, *dir, *save = NULL;

	copy = path ? strdup(path) : pl_registry_dl_default();
	if (!copy)
		return false;
	dir = copy;
	if (*dir == '@') {
		by_order = true;
		dir++;
	}
	for (dir = strtok_r(dir, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save))
		pl_registry_dl_dir(dir, by_order);
	free(copy);
	return by_order;
}
