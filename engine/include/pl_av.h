/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Address vectors (fi_av(3)) for providers: the engine builds the fid_av,
 * its ops and its tables; a provider supplies its address size and a few
 * hooks, and resolves fi_addr_t on its data path with pl_av_lookup_peer().
 *
 * Design (DESIGN.md section 5): FI_AV_TABLE and FI_AV_MAP share one
 * encoding of fi_addr_t (index, generation, rx bits: pl_av_table.h),
 * resolved inside an RCU read-side section (pl_rcu.h) with no lock and
 * no atomic read-modify-write. A reverse map (pl_av_rhash.h) serves
 * FI_SOURCE. A named AV lives in shared memory (pl_av_shared.h).
 *
 * Synchronization table for one AV (fi_av_* are the application's calls;
 * query and ep_addr are the peer AV's owner ops, fi_peer(3)):
 *
 *                 lookup_peer  reverse  insert*  remove  lookup   query
 *                                                       straddr  ep_addr
 *   lookup_peer   yes          yes      yes      yes     yes      yes
 *   reverse       yes          yes      yes      yes     yes      yes
 *   insert*       yes          yes      yes      yes     yes      yes
 *   remove        yes          yes      yes      yes     yes      yes
 *   bind          yes          yes      yes      yes     yes      yes
 *   query/ep_addr yes          yes      yes      yes     yes      yes
 *   ref/unref     yes          yes      yes      yes     yes      yes
 *   close         no           no       no       no      no       no
 *
 *   insert* is fi_av_insert, fi_av_insertsvc and fi_av_insertsym. Writers
 *   (insert*, remove, bind) and query serialize on the AV's mutex;
 *   readers (lookup_peer, reverse, fi_av_lookup, straddr, ep_addr) never
 *   wait for them. A peer removed while another thread resolves it is
 *   either returned whole (the lookup began first) or reported absent,
 *   never freed under the reader. close: the application has quiesced
 *   every other call on the AV (fi_close contract) and no endpoint holds a
 *   reference (else -FI_EBUSY); it waits for a grace period, so it must
 *   not be called inside a read-side section.
 *
 * Lock order: the AV mutex, then a named AV's view mutex, then its
 * cross-process writer lock. No lock is held across a call into another
 * object (the bound EQ is written after the AV mutex is released).
 */
#ifndef PROPEL_PL_AV_H
#define PROPEL_PL_AV_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_ext.h>

#include "pl_rcu.h"

/*
 * Provider hooks; the table and any hook may be absent (NULL). Hooks may
 * be called from any thread that uses the AV, never with an AV lock held
 * that the hook could need, never inside a read-side section.
 */
struct pl_av_addr_ops {
	/* 0 when addr (addrlen bytes) is a well-formed address of the
	 * provider, else a negative fi_errno (-FI_EINVAL): the insert of that
	 * address fails with it. NULL: every addrlen bytes are accepted. */
	int (*validate)(struct fid_av *av, const void *addr);
	/* fi_av_straddr: write a printable form of addr into buf, at most *len
	 * bytes including the NUL (nothing when *len is 0), and set *len to
	 * the size the whole string needs. NULL: "0x" and the bytes in hex. */
	void (*straddr)(struct fid_av *av, const void *addr, char *buf,
			size_t *len);
	/* fi_av_insertsvc / fi_av_insertsym: write the address of node and
	 * service (fi_getinfo(3) syntax; service may be NULL when node is an
	 * FI_ADDR_STR address) into addr (addrlen bytes). 0 or a negative
	 * fi_errno. NULL: those calls return -FI_ENOSYS. The AV expands
	 * insertsym's ranges itself and calls this once per address. */
	int (*resolve)(struct fid_av *av, const char *node,
		       const char *service, void *addr);
	/* Mirroring, for a provider that keeps another AV in step with
	 * this one (ofi_rxm's twin AV of its shm peer). inserted and
	 * removed: private AVs only (a named AV's addresses come and go in
	 * other processes too); closed: any AV. NULL: nothing.
	 *
	 * inserted: addr got a slot of its own, handle fi_addr (a
	 * duplicate insert of an address already in does not call it).
	 * Called with the AV mutex held, after the entry is published, so
	 * that the mirror is in place before fi_av_insert returns; it may
	 * take other AVs' locks (always after this one's), never call into
	 * this AV. It reports its own failures: the insert succeeds.
	 * removed: the last insert of addr (handle fi_addr) was removed;
	 * the AV mutex held, as above. Not called at close.
	 * closed: fi_close of the AV succeeds: release what the provider
	 * keeps for it (pl_av_prov). No lock held; the AV is going. */
	void (*inserted)(struct fid_av *av, const void *addr,
			 fi_addr_t fi_addr);
	void (*removed)(struct fid_av *av, const void *addr,
			fi_addr_t fi_addr);
	void (*closed)(struct fid_av *av);
};

/* A resolved peer, valid until pl_rcu_read_unlock(). */
struct pl_av_peer {
	const void *addr;	/* the provider address, addrlen bytes */
	fi_addr_t fi_addr;	/* the handle, receive-context bits cleared */
	fi_addr_t user_id;	/* FI_AV_USER_ID value, else fi_addr */
	uint32_t rx_index;	/* fi_rx_addr()'s receive context, else 0 */
};

/*
 * fi_eq_write() flag with which the AV reports a failed asynchronous insert
 * (FI_EVENT): buf is a struct fi_eq_err_entry, to be queued as an error
 * entry. The engine's EQ (pl_eq.h) must honour it; any other EQ treats it as
 * it treats unknown flags.
 */
#define PL_AV_EQ_WRITE_ERROR	(1ULL << 60)

/*
 * fi_av_open for a provider whose addresses are addrlen bytes. domain may
 * be NULL (tests). attr is in/out as in fi_av(3): FI_AV_UNSPEC becomes
 * FI_AV_TABLE (or a named AV's type), a named AV's map_addr 0 becomes the
 * table's. ops: may be NULL; must outlive the AV. Any thread.
 * Errors: -FI_EINVAL (NULL attr or av_p, addrlen 0, bad type, rx_ctx_bits
 * outside 0..16, FI_READ without a name, a name whose AV has another
 * address size), -FI_EBADFLAGS (attr->flags outside FI_EVENT | FI_READ |
 * FI_SYMMETRIC), -FI_ENOENT (FI_READ and no such AV is open on the node),
 * -FI_EACCES, -FI_ENOMEM, -FI_EIO.
 */
int pl_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
	       size_t addrlen, const struct pl_av_addr_ops *ops,
	       struct fid_av **av_p, void *context);

/*
 * The data path: resolve fi_addr (as the application passes it, with
 * fi_rx_addr()'s bits if any). Call inside pl_rcu_read_lock(), any
 * thread; peer_p's pointers stay valid until the unlock. No lock, no
 * atomic read-modify-write, no allocation: two acquire loads on a private
 * AV. Returns 0, or -FI_EADDRNOTAVAIL when fi_addr is unknown, removed or
 * stale (an older generation of a reused slot); peer_p set on success only.
 */
int pl_av_lookup_peer(struct fid_av *av, fi_addr_t fi_addr,
		      struct pl_av_peer *peer_p);

/*
 * For a provider that caches what an fi_addr_t resolved to: what it
 * learned while pl_av_epoch() returned e (not 0) is still right while it
 * returns e; a removal changes it. 0: do not cache (a named AV, which
 * other processes change). Any thread, no lock, one relaxed load.
 */
uint64_t pl_av_epoch(struct fid_av *av);

/*
 * For a provider holding messages whose sender was not in the AV
 * (FI_ADDR_NOTAVAIL): an address may have been inserted since
 * pl_av_insert_gen() returned g (not 0) only if it no longer returns g;
 * a reverse lookup after reading a new value finds what that insert
 * added. 0: cannot tell (a named AV, which other processes fill): look
 * again each time. Any thread, no lock, one acquire load.
 */
uint64_t pl_av_insert_gen(struct fid_av *av);

/* Has any insert named FI_AV_USER_ID values? (FI_SOURCE then reports
 * them: pl_av_peer.user_id.) Any thread, no lock, one relaxed load. */
bool pl_av_has_user_ids(struct fid_av *av);

/*
 * FI_SOURCE: the fi_addr_t of a source address (addrlen bytes) and, if
 * user_id_p is not NULL, its FI_AV_USER_ID value (else the fi_addr_t).
 * Call inside pl_rcu_read_lock(). Lock-free on a private AV; a named AV
 * takes its view mutex when addr is not yet in this process's map.
 * 0 or -FI_ENODATA (not in the AV: report FI_ADDR_NOTAVAIL).
 */
int pl_av_reverse_lookup(struct fid_av *av, const void *addr,
			 fi_addr_t *fi_addr_p, fi_addr_t *user_id_p);

/* The provider's own pointer for av, for its hooks (pl_av_addr_ops):
 * set once, after pl_av_open and before the AV is handed out; read by
 * any thread afterwards (the hand-out orders the two). NULL until set. */
void pl_av_set_prov(struct fid_av *av, void *prov);
void *pl_av_prov(const struct fid_av *av);

/* The provider address size and the domain given at open. Any thread. */
size_t pl_av_addrlen(const struct fid_av *av);
struct fid_domain *pl_av_domain(const struct fid_av *av);

/*
 * An endpoint bound to the AV holds a reference; fi_close on the AV fails
 * with -FI_EBUSY while any is held. Any thread (an atomic counter).
 */
void pl_av_ref(struct fid_av *av);
void pl_av_unref(struct fid_av *av);

/*
 * fi_peer(3), owner side (pl_av_peer.c): the fid_peer_av embedded in av,
 * to hand to a peer provider's fi_av_open() in a struct
 * fi_peer_av_context with FI_PEER. Valid while av is open; the peer never
 * closes it. Its owner_ops: query (attributes, count = addresses now in
 * the AV) and ep_addr (the fi_addr_t of a local endpoint's own address,
 * else FI_ADDR_NOTAVAIL); its fid.context is av. Any thread.
 */
struct fid_peer_av *pl_av_peer_export(struct fid_av *av);

/*
 * The peer side, for peers inside the engine: the AV behind a
 * fid_peer_av from pl_av_peer_export(), to resolve with
 * pl_av_lookup_peer(); NULL for any other (another library's) peer AV.
 * Any thread.
 */
struct fid_av *pl_av_peer_owner(struct fid_peer_av *peer);

#endif /* PROPEL_PL_AV_H */
