/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm as ofi_rxm's peer for node-local peers (FI_OFI_RXM_USE_SHM,
 * docs/peer.md, prov/rxm/docs/provider.md "Node-local peers over shm").
 *
 * What is here: the domain half. With use_shm the rxm domain opens an
 * shm fabric and domain with fi_domain2(FI_PEER), so that shm joins the
 * rxm domain's progress context (one progress for the whole stack), and
 * caches what decides locality and names:
 *
 * Locality. An rxm address is a sockaddr (the peer's listener). A peer
 * is node-local when its IP is one of this network namespace's interface
 * addresses (getifaddrs, read once at domain open: an interface added
 * later is not seen, and its peers simply stay on tcp).
 *
 * Naming (no second address exchange). Each rxm endpoint names its shm
 * endpoint from its own rxm address, and a sender derives the same name
 * from the destination's rxm address (rxm_shm_name): the network
 * namespace's inode is part of it, so two namespaces that use the same
 * IP and port never meet in one shm region, and so is the uid (shm
 * regions are per user, prov/shm/transport/shm_addr.h).
 *
 * All fields are set at domain open and read-only afterwards: any
 * thread reads them unlocked.
 */
#ifndef PROPEL_RXM_SHM_H
#define PROPEL_RXM_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

/* What locality and names are decided from. */
struct rxm_shm_host {
	uint64_t netns;		/* inode of /proc/self/ns/net, 0: unknown */
	uid_t uid;
	size_t count;		/* entries of addrs */
	/* this namespace's interface addresses, IPv4 and IPv6, port 0 */
	struct sockaddr_storage *addrs;
};

/* The shm side of an rxm domain: all NULL when shm is not used. */
struct rxm_shm_domain {
	struct fi_info *info;		/* template of every shm endpoint */
	struct fid_fabric *fabric;
	struct fid_domain *domain;	/* a peer domain of the rxm one */
	struct rxm_shm_host host;
};

/* Longest derived name, NUL included: below shm's SHM_NAME_MAX (112,
 * prov/shm/transport/shm_layout.h), checked in rxm_shm.c. */
#define RXM_SHM_NAME_MAX	96

/* Read the namespace, uid and interface addresses. 0 or -FI_E*. */
int rxm_shm_host_init(struct rxm_shm_host *host);
void rxm_shm_host_fini(struct rxm_shm_host *host);
/* Is sa (AF_INET or AF_INET6) one of host's addresses? A wildcard
 * address is not: it names no one interface, and the two ends would
 * not derive the same name from it. */
bool rxm_shm_host_local(const struct rxm_shm_host *host,
			const struct sockaddr *sa);
/* The shm endpoint name of the rxm endpoint whose address is sa:
 * "rxm://<netns>:<uid>:<ip in hex>:<port>". Returns the length without
 * the NUL, or -FI_EINVAL (not IPv4 / IPv6), -FI_ETOOSMALL. */
int rxm_shm_name(const struct rxm_shm_host *host, const struct sockaddr *sa,
		 char *buf, size_t len);

/* Domain open, after pl_domain_init2 of owner (shm must find it among
 * the live domains to join its progress context). Without shm (not
 * built, FI_PROVIDER leaves it out, any failure) sd stays empty and the
 * reason is logged at INFO: rxm goes on over its core alone. */
void rxm_shm_domain_open(struct rxm_shm_domain *sd,
			 struct fid_domain *owner, uint32_t version);
/* Domain close, before pl_domain_fini of the owner (the shm domain is
 * its child). -FI_EBUSY leaves everything open. */
int rxm_shm_domain_close(struct rxm_shm_domain *sd);

/* Register the memory of mr, an engine MR of the rxm domain just made,
 * with the shm domain under the same key, access and segments, as its
 * twin (pl_mr_set_twin: closed, bound and enabled with it): an RMA or
 * atomic a node-local peer sends through shm then meets the same
 * checks as over the core. 0 without shm; -FI_E* (the caller closes
 * mr and fails the registration: a key only one transport honours
 * would make the transport visible). Control path. */
struct fid_mr;
int rxm_shm_mr_twin(struct rxm_shm_domain *sd, struct fid_mr *mr);

#endif
