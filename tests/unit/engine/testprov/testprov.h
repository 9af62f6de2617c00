/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test providers' observable state. Each library exports one probe
 * struct; a test reaches it with dlopen(RTLD_NOLOAD) + dlsym on the file
 * the registry loaded, to see what the engine passed to the provider.
 *
 *   libtestprov-fi.so   core "testprov": two fixed answers, ignoring the
 *                       hints, so that all matching is the engine's
 *       A: FI_EP_MSG, FI_SOCKADDR_IN, needs FI_CONTEXT and FI_MR_LOCAL,
 *          domain "testdom0", a NIC description
 *       B: FI_EP_RDM, FI_ADDR_STR, tagged, no modes, domain "testdom1"
 *   libtestutil-fi.so   utility "ofi_testutil": one FI_EP_RDM answer per
 *                       FI_EP_MSG core answer, needing no modes
 *   dup/libtestprov-fi.so  "testprov" again, version 2
 *
 * Environment: TESTPROV_FI_VERSION=MAJ.MIN sets testprov's fi_version
 * (default 1.18); TESTPROV_CLEANUP_FILE names a file to which cleanup()
 * appends "cleanup <name> <version>\n".
 */
#ifndef PROPEL_TESTPROV_H
#define PROPEL_TESTPROV_H

#include <stdint.h>

#define TESTPROV_VERSION_1	FI_VERSION(1, 0)	/* testprov */
#define TESTPROV_VERSION_2	FI_VERSION(2, 0)	/* dup/testprov */
#define TESTUTIL_VERSION	FI_VERSION(3, 0)	/* ofi_testutil */

#define TESTPROV_FABRIC		"testfab"
#define TESTPROV_DOMAIN_A	"testdom0"
#define TESTPROV_DOMAIN_B	"testdom1"
#define TESTPROV_NIC		"testnic0"
#define TESTPROV_TAG_FORMAT	0x0000ffffffffffffULL

#define TESTPROV_A_CAPS	(FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | \
			 FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | \
			 FI_MULTI_RECV | FI_SOURCE | FI_LOCAL_COMM | \
			 FI_REMOTE_COMM)
#define TESTPROV_B_CAPS	(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | \
			 FI_DIRECTED_RECV)
#define TESTUTIL_CAPS	(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | \
			 FI_DIRECTED_RECV)

struct testprov_probe {
	int		getinfo_calls;
	uint32_t	version;
	int		node_null, service_null, hints_null;
	char		node[64], service[64];
	uint64_t	flags;
	int		fabric_calls;
	void		*fabric_context;
	char		fabric_prov_name[64];
};

struct testutil_probe {
	int		getinfo_calls;
	int		saw_list;	/* a core info with next != NULL */
	char		core_prov_name[64];
	char		node[64];
	uint64_t	flags;
	int		fabric_calls;
	char		fabric_prov_name[64];
};

#endif /* PROPEL_TESTPROV_H */
