/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs provider (DESIGN.md section 7): FI_EP_MSG endpoints over RC
 * queue pairs of an rdma-core device, connected with rdma_cm.
 *
 * Two kinds of progress, as in the tcp provider:
 *  - connection management runs on the fabric's CM context, an
 *    auto-progress context whose one source is the fabric's rdma_cm event
 *    channel (vrb_fabric.c). Every rdma_cm id of the fabric (listeners,
 *    requests, endpoints) reports there; its context pointer names a
 *    struct vrb_cm_handler;
 *  - data runs on the domain's context (manual or auto): each enabled
 *    endpoint registers one source whose fd is the endpoint's completion
 *    channel and whose arm() requests a notification, then polls once
 *    more (vrb_ep_cq.c), so a sleeper never misses a completion.
 *
 * Lock order: fab->cm_lock, then ep->lock. cm_lock is held while a CM
 * event is handled and while an object detaches its rdma_cm id (sets the
 * id's context to NULL), so a handler never runs on an object that is
 * being closed: the close detaches under the lock, then destroys the id
 * without it (rdma_destroy_id waits for the events it was handed to be
 * acknowledged, which the CM thread does after dropping the lock).
 */
#ifndef PROPEL_VRB_PROV_H
#define PROPEL_VRB_PROV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/providers/fi_prov.h>

#include "pl_atomic.h"
#include "pl_cm.h"
#include "pl_domain.h"
#include "pl_ep.h"
#include "pl_fabric_obj.h"
#include "pl_log.h"
#include "pl_progress.h"

extern struct fi_provider vrb_prov;

#define VRB_LOG_WARN(subsys, ...) PL_LOG(&vrb_prov, FI_LOG_WARN, subsys, __VA_ARGS__)
#define VRB_LOG_INFO(subsys, ...) PL_LOG(&vrb_prov, FI_LOG_INFO, subsys, __VA_ARGS__)

/* Scatter-gather entries one operation may carry, at most (iov_limit
 * is the device's max_sge within this). */
#define VRB_IOV_MAX 64

struct pl_mrc;
struct pl_mrc_entry;
struct vrb_srx;

/* mr_mode the provider needs: the device checks local keys (FI_MR_LOCAL),
 * remote addresses are virtual, memory must be allocated, and the device
 * picks the keys. */
#define VRB_MR_MODE (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | \
		     FI_MR_PROV_KEY)

/* What an rdma_cm id's context points at: the object its events are
 * for. Called on the CM context's thread under fab->cm_lock; returns
 * true when the event's id (ev->id) is to be destroyed once the event is
 * acknowledged (a request refused before any object took it). */
struct vrb_cm_handler {
	bool (*handle)(struct vrb_cm_handler *h, struct rdma_cm_event *ev);
};

struct vrb_fabric {
	/* first: the engine's fabric object counts its children */
	struct pl_fabric_obj base;
	/* held while a CM event is handled and while an id is detached
	 * from its object (the lock order is in the file comment) */
	pthread_mutex_t cm_lock;
	struct rdma_event_channel *ch;	/* open only; fd nonblocking */
	struct pl_progress_ctx *cm_ctx;	/* open only: auto progress */
	struct pl_progress_source cm_src;	/* fd = ch->fd */
};

struct vrb_domain {
	struct pl_domain base;		/* first: engine's domain */
	struct vrb_fabric *fab;		/* open only */
	/* rdma_cm's own device contexts (rdma_get_devices): an id's
	 * verbs context is one of them, so a QP created on our PD can be
	 * given to rdma_cm. Held until close. */
	struct ibv_context **devs;
	struct ibv_context *verbs;	/* open only: devs[i] */
	struct ibv_pd *pd;		/* open only */
	struct ibv_device_attr attr;	/* open only */
	uint32_t max_msg_size;		/* open only: port's max_msg_sz */
	/* registrations the provider makes itself (DESIGN.md section 6):
	 * buffers an operation names without a descriptor, and fi_mr_reg
	 * of local-only access; thread safe on its own */
	struct pl_mrc *mrc;		/* open only */
	/* FI_VERBS_USE_ODP and what the device pages on demand for RC
	 * (vrb_mr_odp): 0 without either; open only */
	bool odp;
	uint32_t odp_rc_caps;		/* IBV_ODP_SUPPORT_* */
};

/* One posted work request, found again by its wr_id (vrb_ep_cq.c). */
struct vrb_op {
	void *context;		/* the application's */
	uint64_t flags;		/* completion flags (FI_SEND | FI_MSG ...) */
	size_t len;
	void *buf;		/* receives: first buffer, for the entry */
	bool report;		/* false: inject or unselected completion */
	/* fi_cancel asked for it (receives only; vrb_ep_cancel.c) */
	bool canceled;
	/* cache registrations the operation holds until it completes
	 * (buffers given without a descriptor): the first nmrc of the
	 * slot's row in the ring's mrc array */
	uint8_t nmrc;
};

/* The buffers of one operation as the device sees them, built before the
 * post (vrb_ep_sge_fill) and released by vrb_ep_sge_release when the
 * post fails. */
struct vrb_sgl {
	struct ibv_sge sge[VRB_IOV_MAX];
	struct pl_mrc_entry *mrc[VRB_IOV_MAX];	/* held registrations */
	int n;				/* sge entries */
	int nmrc;			/* mrc entries */
	size_t len;			/* bytes in all */
};

enum vrb_ep_state {
	VRB_EP_IDLE,		/* not connecting yet */
	VRB_EP_CONNECTING,	/* fi_connect / fi_accept in flight */
	VRB_EP_CONNECTED,
	VRB_EP_DOWN,		/* shut down, rejected or failed */
};

/* Completions arm() found after requesting a notification, kept for the
 * next poll (they were taken off the device's queue). */
#define VRB_STASH_MAX 16

struct vrb_ep {
	struct pl_ep base;		/* first: engine's endpoint */
	struct vrb_domain *dom;		/* open only */
	struct vrb_fabric *fab;		/* open only */
	struct vrb_cm_handler cm_h;	/* the id's context */
	/* the id: set at open (accepting side) or at enable; its
	 * context is detached under fab->cm_lock before close destroys it */
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cch;	/* enable only */
	struct ibv_cq *cq;		/* enable only: send and receive */
	struct ibv_qp *qp;		/* once created: id->qp */
	struct pl_progress_source src;	/* fd = cch->fd */
	/* bind only (before enable): receives come from this shared
	 * context's SRQ, the QP has no receive queue (vrb_srx.h) */
	struct vrb_srx *srx;
	bool src_added;			/* control path */
	/* guards the rings, state and the CM fields below; never held
	 * across a call into the engine (CQ and EQ writes) */
	pthread_mutex_t lock;
	enum vrb_ep_state state;
	bool eq_done;			/* FI_SHUTDOWN / error written */
	/* rings of posted operations: head counts posts, tail
	 * completions; slot = count % size */
	struct vrb_op *tx_ops, *rx_ops;
	/* per slot, iov_limit registrations (struct vrb_op's nmrc) */
	struct pl_mrc_entry **tx_mrc, **rx_mrc;
	uint32_t tx_size, rx_size;	/* open only */
	uint64_t tx_head, tx_tail, rx_head, rx_tail;
	size_t inline_size;		/* enable: what the QP granted */
	size_t tx_iov_limit, rx_iov_limit;	/* open only */
	uint64_t tx_op_flags, rx_op_flags;	/* open only */
	unsigned bunch;			/* FI_VERBS_CQREAD_BUNCH_SIZE */
	/* arm()'s leftovers, consumed by the next poll; both only under
	 * the context's token (poll and arm never run at once) */
	struct ibv_wc stash[VRB_STASH_MAX];
	int nstash;
	/* CM data of fi_connect, sent once the route is resolved */
	uint8_t conn_data[64];
	size_t conn_data_len;
	struct sockaddr_storage src_addr;
	bool has_src;
	/* where a non-fetching atomic's old value lands (discarded) */
	uint64_t atomic_scratch;
};

/* ---- fork (vrb_fork.c) ---- */
/* Before any use of rdma-core: sets fork safety up once per process
 * (before the first registration). -FI_EOPNOTSUPP in a child forked
 * from a process that used rdma-core (warned), else 0. Control path. */
int vrb_fork_check(void);

/* ---- fabric (vrb_fabric.c) ---- */
int vrb_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context);
/* Detach id from its object under cm_lock (its events are ignored from
 * now on), then destroy it. Control path. */
void vrb_fabric_id_destroy(struct vrb_fabric *fab, struct rdma_cm_id *id);
/* Point id at h (under cm_lock). */
void vrb_fabric_id_attach(struct vrb_fabric *fab, struct rdma_cm_id *id,
			  struct vrb_cm_handler *h);

/* ---- domain (vrb_domain.c) and MRs (vrb_mr.c) ---- */
int vrb_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context);
struct vrb_domain *vrb_domain_of(struct fid_domain *d);
extern struct fi_ops_mr vrb_mr_ops;
/* The lkey of a descriptor from fi_mr_desc, 0 with *ok false when desc
 * names no verbs MR. */
uint32_t vrb_mr_lkey(void *desc, bool *ok);
/* The domain's registration cache (vrb_mr.c): open at domain open,
 * closed at its close. 0 or -FI_E*. */
/* vrb_mr.c: FI_VERBS_USE_ODP against the device (before any
 * registration), and the registration cache */
void vrb_mr_odp_init(struct vrb_domain *d);
int vrb_mr_cache_open(struct vrb_domain *d);
/* The ibv_mr behind a cache entry. */
struct ibv_mr *vrb_mr_cache_mr(struct pl_mrc_entry *e);

/* ---- passive endpoint (vrb_pep.c) ---- */
int vrb_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		 struct fid_pep **pep_p, void *context);
/* fi_endpoint on a FI_CONNREQ's info: take the request's id. 0 or
 * -FI_EINVAL (not a verbs request, or spent). */
int vrb_pep_adopt(struct fi_info *info, struct rdma_cm_id **id_p);
/* fi_endpoint with a passive endpoint as info->handle (fi_endpoint(3)):
 * the endpoint takes the passive endpoint's bound id, and so its
 * address; the passive endpoint gets a fresh one. -FI_EINVAL (not a
 * verbs pep), -FI_EOPBADSTATE (listening), or the bind's error. */
int vrb_pep_give_id(fid_t handle, struct rdma_cm_id **id_p);

/* ---- endpoint ---- */
int vrb_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context);
struct vrb_ep *vrb_ep_of(struct fid_ep *ep);
/* vrb_ep_cm.c: the CM side */
bool vrb_ep_cm_handle(struct vrb_cm_handler *h, struct rdma_cm_event *ev);
int vrb_ep_connect(struct fid_ep *ep, const void *addr, const void *param,
		   size_t paramlen);
int vrb_ep_accept(struct fid_ep *ep, const void *param, size_t paramlen);
int vrb_ep_shutdown(struct fid_ep *ep, uint64_t flags);
/* Create the CQ, its channel and the QP on ep->id (whose verbs context
 * must be the domain's), and register the progress source. Under
 * ep->lock. 0 or -FI_E*. */
int vrb_ep_qp_create(struct vrb_ep *ep);
/* Register the CQ's source with the domain's context once the QP is
 * there. Control path, under no ep lock (the add waits for the
 * domain context's token, whose sources never wait for cm_lock). */
int vrb_ep_src_add(struct vrb_ep *ep);
/* vrb_ep_cq.c: the progress source */
int vrb_ep_cq_poll(struct pl_progress_source *src, unsigned budget);
int vrb_ep_cq_arm(struct pl_progress_source *src);
/* fi_close, once no pass runs the source and before the QP goes: the
 * completions still in the CQ are reported as they are (a receive of a
 * shared context holds its message); what the device has not completed
 * yet is left to vrb_ep_cancel_flush. */
void vrb_ep_cq_drain(struct vrb_ep *ep);
/* vrb_ep_cancel.c: fi_cancel of a posted receive, and at fi_close the
 * FI_ECANCELED completions of every operation that never completed
 * (and their registrations go back) */
ssize_t vrb_ep_cancel(fid_t fid, void *context);
void vrb_ep_cancel_flush(struct vrb_ep *ep);
/* vrb_ep_msg.c, vrb_ep_rma.c */
extern struct fi_ops_msg vrb_ep_msg_ops;
extern struct fi_ops_rma vrb_ep_rma_ops;
/* vrb_ep_atomic.c: what the device's atomics do (8-byte add, swap) */
extern struct fi_ops_atomic vrb_ep_atomic_ops;
bool vrb_domain_atomics(const struct vrb_domain *d);
int vrb_domain_query_atomic(struct fid_domain *domain,
			    enum fi_datatype datatype, enum fi_op op,
			    struct fi_atomic_attr *attr, uint64_t flags);
/* Post one send-queue work request for an operation (vrb_ep_msg.c):
 * takes a tx slot (which keeps sgl's registrations until the
 * completion), fills wr->wr_id, posts. Takes ep->lock. 0, -FI_EAGAIN
 * (ring full), -FI_EOPBADSTATE (no QP), -FI_ENOTCONN, -FI_E* of the
 * post; on failure sgl's registrations are released. */
ssize_t vrb_ep_post_send(struct vrb_ep *ep, struct ibv_send_wr *wr,
			 struct vrb_sgl *sgl, void *context, uint64_t flags,
			 bool report);
/*
 * Fill sgl from an iov and descriptors (vrb_ep_sge.c). A buffer without
 * a descriptor (an application that did not ask for FI_MR_LOCAL, or
 * rxm) is registered through the domain's cache and held in sgl, unless
 * inline_max >= the total (the device copies it at the post). access:
 * FI_SEND, FI_RECV or FI_READ. 0, -FI_EINVAL (too many entries, a desc
 * that is not a verbs MR), -FI_EMSGSIZE (an entry past 4 GiB), or the
 * registration's error.
 */
int vrb_ep_sge_fill(struct vrb_domain *dom, struct vrb_sgl *sgl, size_t max,
		    const struct iovec *iov, void **desc, size_t count,
		    size_t inline_max, uint64_t access);
void vrb_ep_sge_release(struct vrb_domain *dom, struct vrb_sgl *sgl);

/* The rdma_cm data header, the wire's one structure (vrb_cm_data.h). */

/* ---- fi_getinfo (vrb_info.c) ---- */
int vrb_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info_p);
/* Default GID index of a port: the first RoCE v2 GID that maps an IPv4
 * address, else the first RoCE v2, else 0; FI_VERBS_GID_IDX overrides. */
int vrb_info_gid_idx(struct ibv_context *verbs, uint8_t port);

/* sockaddr helpers (vrb_info.c) */
size_t vrb_addrlen(const struct sockaddr *sa);
int vrb_name_out(const struct sockaddr *sa, void *addr, size_t *addrlen);

#endif /* PROPEL_VRB_PROV_H */
