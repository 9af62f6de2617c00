/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AV object shared by pl_av.c (fid, ops, data path), pl_av_insert.c
 * (the insert family and its completions) and pl_av_svc.c (insertsvc /
 * insertsym). Not for providers: they see pl_av.h.
 */
#ifndef PROPEL_PL_AV_INT_H
#define PROPEL_PL_AV_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_ext.h>

#include "pl_atomic.h"
#include "pl_av.h"
#include "pl_av_rhash.h"
#include "pl_av_shared.h"
#include "pl_av_table.h"
#include "pl_compiler.h"

struct pl_domain;

struct pl_av {
	struct fid_av av_fid;
	/* Fixed at open: */
	struct fid_domain *domain;
	struct pl_domain *dom;			/* counted parent, or NULL */
	const struct pl_av_addr_ops *ops;	/* may be NULL */
	enum fi_av_type type;			/* FI_AV_TABLE or FI_AV_MAP */
	uint64_t flags;				/* FI_EVENT, FI_READ, ... */
	size_t addrlen;
	int rx_ctx_bits;
	uint64_t handle_mask;			/* clears the rx bits */
	unsigned rx_shift;			/* 64 - rx_ctx_bits, or 0 */
	struct pl_av_shared *shared;		/* named AV, else NULL */
	char *name;				/* named AV's name, else NULL */
	void *map_addr;				/* named AV's map_addr */
	size_t ep_per_node;			/* as given at open */
	struct fid_peer_av peer_av;		/* fi_peer(3): pl_av_peer.c */
	void *prov;				/* pl_av_set_prov, then fixed */
	/* Private AVs (shared == NULL): */
	struct pl_av_table table;		/* RCU slots */
	struct pl_av_rhash *rhash;		/* reverse map */
	/* Writer side: */
	pthread_mutex_t lock;			/* insert*, remove, bind */
	struct fid_eq *eq;			/* bound EQ (set once under
						 * lock, then fixed) */
	pl_atomic_int ref;			/* endpoints (pl_av_ref) */
	/* Removals so far, plus one (pl_av_epoch): bumped under lock by
	 * remove, read relaxed by any data path. */
	pl_atomic_u64 epoch;
	/* Batches that inserted something, plus one (pl_av_insert_gen):
	 * bumped under lock, after the entries are published. */
	pl_atomic_u64 inserts;
	/* 1 once an insert named FI_AV_USER_ID values (pl_av_has_user_ids):
	 * set under lock, read relaxed by any data path */
	pl_atomic_u32 user_ids;
};

static inline struct pl_av *pl_av_of(const struct fid_av *av_fid)
{
	return pl_container_of(av_fid, struct pl_av, av_fid);
}

/*
 * The insert family's common core. addrs: count addresses of addrlen bytes
 * each, back to back. pre_err: NULL, or count values where a non-zero one
 * (a negative fi_errno) makes that address fail without being tried (an
 * unresolvable insertsvc name). Flags and arguments already checked by
 * pl_av_insert_check(). Returns what fi_av_insert returns.
 */
int pl_av_insert_batch(struct pl_av *av, const void *addrs, size_t count,
		       const int *pre_err, fi_addr_t *fi_addr, uint64_t flags,
		       void *context);

/* Argument and flag checks shared by the insert family. 0 or -FI_E*. */
int pl_av_insert_check(struct pl_av *av, size_t count, fi_addr_t *fi_addr,
		       uint64_t flags, void *context);

/* Fill av->peer_av (pl_av_open, before the AV is shared). */
void pl_av_peer_init(struct pl_av *av);

/* fi_ops_av.insert, .insertsvc, .insertsym. */
int pl_av_insert(struct fid_av *av_fid, const void *addr, size_t count,
		 fi_addr_t *fi_addr, uint64_t flags, void *context);
int pl_av_svc_insertsvc(struct fid_av *av_fid, const char *node,
			const char *service, fi_addr_t *fi_addr,
			uint64_t flags, void *context);
int pl_av_svc_insertsym(struct fid_av *av_fid, const char *node,
			size_t nodecnt, const char *service, size_t svccnt,
			fi_addr_t *fi_addr, uint64_t flags, void *context);

#endif /* PROPEL_PL_AV_INT_H */
