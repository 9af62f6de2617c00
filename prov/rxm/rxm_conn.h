/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm's connection manager: one connected core endpoint (FI_EP_MSG,
 * tcp or verbs, reached through the public fi_* calls only) per peer,
 * made on demand (DESIGN.md section 7).
 *
 * Each rxm endpoint listens on a passive core endpoint; its address is the
 * rxm endpoint's name. A peer is known by that address (struct
 * rxm_wire_addr, rxm_cm_proto.h) and has one struct rxm_conn, created by
 * the first send to it (rxm_cm_conn + rxm_cm_connect) or by its first
 * request, whether or not it is in the AV yet. The CM data of every
 * request and accept carries the sender's address and incarnation.
 *
 * Simultaneous connects resolve to one connection, the same on both
 * sides, without a retry: when a request arrives for a peer we are
 * connecting to ourselves, the request of the side with the lower address
 * stays. The lower side rejects the other's request (RXM_REJ_LOST_RACE);
 * the higher side closes its own request's endpoint and accepts. A side
 * whose request was rejected as lost waits for the peer's (WAIT_PEER),
 * which is on its way whatever order the two events arrive in.
 *
 * A request from a peer we are connected to with another incarnation
 * means the peer restarted: the old connection is reported down first,
 * so nothing of the old incarnation is delivered after the new one's.
 * The same incarnation again is a duplicate and is rejected, unless it
 * is our own (an endpoint sending to its own name): that request is
 * accepted on the side, as conn->loop_ep, and msg_ep sends to it.
 *
 * Calling context: every function, and every callback it makes, runs
 * serialized by the owner (the rxm endpoint's progress serialization);
 * nothing here takes a lock. The core's EQ (FI_WAIT_FD) is read only by
 * rxm_cm_progress, and its fd is what a sleeper waits on for CM events.
 */
#ifndef PROPEL_RXM_CONN_H
#define PROPEL_RXM_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

#include "rxm_cm_proto.h"

enum rxm_conn_state {
	RXM_CONN_IDLE,		/* no connection and none being made */
	RXM_CONN_CONNECTING,	/* our fi_connect is in flight */
	RXM_CONN_ACCEPTING,	/* we accepted the peer's request */
	RXM_CONN_WAIT_PEER,	/* our request lost a race: the peer's
				 * request is coming */
	RXM_CONN_CONNECTED,
};

struct rxm_conn {
	struct rxm_conn *hnext;		/* hash chain */
	struct rxm_wire_addr peer;	/* the key */
	struct sockaddr_storage peer_sa; /* the same, for fi_connect */
	size_t peer_salen;
	enum rxm_conn_state state;
	struct fid_ep *msg_ep;		/* none when IDLE or WAIT_PEER */
	/* a connection to ourselves (an endpoint sending to its own name):
	 * the accepted side of msg_ep's connection, which receives what
	 * msg_ep sends; NULL for every other peer */
	struct fid_ep *loop_ep;
	uint64_t peer_incarnation;	/* 0 until its CM data came */
	/* The peer hung up (FI_SHUTDOWN) while the core endpoint still
	 * held its last messages: the endpoint stays, so that what the
	 * peer sent before it closed is delivered, until the owner's
	 * receive on it fails (the core read the end of the stream:
	 * rxm_cm_drained). A new life of the peer ends it at once. */
	bool draining;
	void *owner_data;		/* the owner's, never touched here */
};

struct rxm_cm_ops {
	/* A fresh core endpoint for conn, bound to the EQ, before it is
	 * enabled: bind the owner's CQs (and shared receive context).
	 * 0 or -FI_E* (the connection attempt is then dropped). */
	int (*prepare)(void *owner, struct rxm_conn *conn, struct fid_ep *ep);
	/* ep (conn->msg_ep, or conn->loop_ep for a connection to
	 * ourselves) carries data now: post its receive buffers. */
	void (*connected)(void *owner, struct rxm_conn *conn,
			  struct fid_ep *ep);
	/* The connection ended or could not form (err: -FI_E*); conn is
	 * IDLE again, its endpoint closed. A later rxm_cm_connect retries. */
	void (*down)(void *owner, struct rxm_conn *conn, int err);
	/* The peer hung up: true when the owner has receives posted on
	 * conn's endpoint, whose failure will say when the stream ends
	 * (then the connection drains, rxm_conn.draining); false to end
	 * it now. */
	bool (*can_drain)(void *owner, struct rxm_conn *conn);
};

struct rxm_cm_stats {
	uint64_t connects, accepts, rejects, races_won;
	/* a race lost: our request given up for the peer's when that
	 * arrived first, or rejected first (we then wait for the peer's) */
	uint64_t races_lost, races_waited;
	uint64_t restarts, bad_requests;
};

struct rxm_cm {
	struct fid_domain *domain;	/* the core's; not owned */
	size_t msg_tx_size;		/* core endpoints' tx size, 0: the
					 * core's (set by the owner before
					 * the first connection) */
	struct fi_info *ep_info;	/* core info for our requests */
	struct fid_eq *eq;
	struct fid_pep *pep;
	struct rxm_wire_addr self;
	struct sockaddr_storage self_sa;
	size_t self_salen;
	uint64_t incarnation;
	struct rxm_conn **buckets;
	size_t nbuckets, count;
	const struct rxm_cm_ops *ops;
	void *owner;
	struct rxm_cm_stats stats;
};

/*
 * Listen on core_info's source address (port 0: any) through fabric and
 * domain (the core's, kept open by the caller until rxm_cm_close). The
 * EQ joins wait (a wait set of fabric) when not NULL, else has its own
 * FI_WAIT_FD. 0 or -FI_E*.
 */
int rxm_cm_open(struct rxm_cm *cm, struct fid_fabric *fabric,
		struct fid_domain *domain, const struct fi_info *core_info,
		struct fid_wait *wait, const struct rxm_cm_ops *ops,
		void *owner);
/* Close every connection (no callbacks), the listener and the EQ. */
void rxm_cm_close(struct rxm_cm *cm);

/* Our address (fi_getname's rules: -FI_ETOOSMALL with *addrlen set). */
int rxm_cm_getname(const struct rxm_cm *cm, void *addr, size_t *addrlen);

/* The connection to the peer at sa, created IDLE when there is none.
 * NULL for an address that is not AF_INET/AF_INET6, or on ENOMEM. */
struct rxm_conn *rxm_cm_conn(struct rxm_cm *cm, const struct sockaddr *sa,
			     size_t len);
/* The connection to peer, or NULL. */
struct rxm_conn *rxm_cm_find(const struct rxm_cm *cm,
			     const struct rxm_wire_addr *peer);

/* Start a connection to conn's peer when none exists or is forming:
 * 0 (started, or already on its way), or -FI_E* from the core. */
int rxm_cm_connect(struct rxm_cm *cm, struct rxm_conn *conn);

/* End conn's connection from our side (a protocol error from the peer,
 * no memory): its endpoint closes and the owner's down callback runs,
 * as for a connection lost. Nothing when it has none. */
void rxm_cm_disconnect(struct rxm_cm *cm, struct rxm_conn *conn, int err);
/* A receive on a draining connection's endpoint failed: the stream
 * ended, the connection goes down (ops->down). No-op otherwise. */
void rxm_cm_drained(struct rxm_cm *cm, struct rxm_conn *conn);

/* Handle what the core's EQ holds; returns the events handled, or a
 * -FI_E* of the EQ itself. */
int rxm_cm_progress(struct rxm_cm *cm);

/* The EQ's wait fd (for a sleeper), or -FI_E*. */
int rxm_cm_wait_fd(const struct rxm_cm *cm);

#endif /* PROPEL_RXM_CONN_H */
