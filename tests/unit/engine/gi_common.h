/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the fi_getinfo / registry tests, which run against the
 * real libfabric.so.1 with the test providers of testprov/ on
 * FI_PROVIDER_PATH.
 */
#ifndef PROPEL_GI_COMMON_H
#define PROPEL_GI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>

#include "testprov/testprov.h"

/* cmocka group setup: fails unless fi_getinfo resolves to the libfabric
 * in PROPEL_LIBDIR (so the test provably runs propel, not the
 * reference) and FI_PROVIDER_PATH is set; skips (exit 77) when
 * FI_PROVIDER is not what the test's GI_FI_PROVIDER expects (unset by
 * default); then loads the providers, so that probes can be read. */
int gi_setup(void **state);
/* The same checks, leaving the registry uninitialized. */
int gi_setup_lazy(void **state);

/* The probe struct the named test library exports ("testprov" or
 * "testutil"), from the copy the registry loaded; NULL if not loaded. */
struct testprov_probe *gi_testprov_probe(void);
struct testutil_probe *gi_testutil_probe(void);

/* Entries of list whose prov_name is name (case-sensitive). */
size_t gi_count(const struct fi_info *list, const char *name);
size_t gi_len(const struct fi_info *list);
/* First entry named name with that endpoint type (0: any). */
struct fi_info *gi_find(struct fi_info *list, const char *name,
			enum fi_ep_type type);

/* Hints as fi_info(1) builds them: every mode and mr_mode bit accepted,
 * selecting prov_name (NULL: any). */
struct fi_info *gi_hints(const char *prov_name);

/*
 * fi_getinfo, keeping only the test providers' answers: the built-in
 * providers (shm, ...) answer too, and these tests are about the registry
 * and the external providers, not about them. An answer that filtering
 * leaves empty is -FI_ENODATA with *info NULL, as the call would have
 * returned without built-ins.
 */
int gi_getinfo(uint32_t version, const char *node, const char *service,
	       uint64_t flags, const struct fi_info *hints,
	       struct fi_info **info);

/* fi_getinfo at API 1.17 with hints (test providers only, as above); returns the entry count (0 for
 * -FI_ENODATA, which it asserts sets *info to NULL), asserts on any
 * other error. */
size_t gi_get(const struct fi_info *hints, struct fi_info **info);

#endif /* PROPEL_GI_COMMON_H */
