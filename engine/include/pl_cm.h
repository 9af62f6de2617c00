/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Connection management shared by connection-oriented (FI_EP_MSG)
 * providers, per fi_cm(3) and fi_eq(3):
 *
 *  - the EQ events of a connection's life, written with the layout
 *    fi_eq(3) gives them (struct fi_eq_cm_entry followed by the CM data):
 *    FI_CONNREQ carrying an fi_info whose ownership passes to the reader,
 *    FI_CONNECTED, FI_SHUTDOWN, and error events that carry the peer's
 *    reject data as err_data;
 *  - the connection-request handle (FI_CLASS_CONNREQ) that the CONNREQ's
 *    info->handle names until fi_endpoint adopts it or fi_reject ends it;
 *  - the generic passive endpoint, struct pl_pep, which a provider embeds
 *    first in its own: EQ binding with a reference (so the EQ refuses
 *    fi_close while bound), its own copy of the fi_info it was opened
 *    with, and the provider-independent fi_setopt/fi_getopt options.
 *
 * Calling context: the event writers may run on any thread (the EQ is
 * thread safe). pl_pep_* are control-path calls: the application does not
 * run two of them at once on one passive endpoint.
 */
#ifndef PROPEL_PL_CM_H
#define PROPEL_PL_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

/*
 * FI_CONNREQ on eq for the passive endpoint pep: info (owned by the event
 * from now on, whatever the return) goes to the reader, data (len bytes,
 * may be NULL when len is 0) follows the entry. 0 or -FI_E*; -FI_EAGAIN
 * when the EQ is full: the provider then ends the request, so that the
 * peer's connect fails at once instead of waiting.
 */
int pl_cm_write_connreq(struct fid_eq *eq, fid_t pep, struct fi_info *info,
			const void *data, size_t len);

/* FI_CONNECTED (with the peer's accept data) or FI_SHUTDOWN on eq for
 * endpoint ep; owed events (pl_eq.h, overrun): a full EQ still takes
 * them. Write each at most once per connection. 0 or -FI_E*. */
int pl_cm_write_connected(struct fid_eq *eq, fid_t ep, const void *data,
			  size_t len);
int pl_cm_write_shutdown(struct fid_eq *eq, fid_t ep);

/*
 * An error event for ep: err a positive FI_E* value (FI_ECONNREFUSED for
 * a reject, with the peer's reject data in data/len, copied), context
 * the endpoint's context. Owed, as above: write it once, for the end of
 * a connect or of a connection. 0 or -FI_E*.
 */
int pl_cm_write_error(struct fid_eq *eq, fid_t ep, void *context, int err,
		      const void *data, size_t len);

/*
 * A connection request handle: info->handle of a FI_CONNREQ. The provider
 * embeds it and gives free_fn, which releases what the request holds (a
 * socket, ...) when the application calls fi_close on the handle or the
 * provider ends it. Adopted by fi_endpoint or consumed by fi_reject.
 */
struct pl_connreq {
	struct fid fid;			/* FI_CLASS_CONNREQ */
	void (*free_fn)(struct pl_connreq *req);
};

void pl_connreq_init(struct pl_connreq *req, void (*free_fn)(struct pl_connreq *));

/* The request behind an info->handle, or NULL when handle is not one. */
struct pl_connreq *pl_connreq_of(fid_t handle);

struct pl_pep {
	struct fid_pep pep_fid;		/* the provider fills the ops */
	struct fid_fabric *fabric;	/* init only */
	struct fi_info *info;		/* init only: a copy, owned */
	struct fid_eq *eq;		/* bind only (before listen) */
	size_t cm_data_max;		/* init only: FI_OPT_CM_DATA_SIZE */
};

/* Initialise pep for fabric from info (copied). -FI_EINVAL, -FI_ENOMEM. */
int pl_pep_init(struct pl_pep *pep, struct fid_fabric *fabric,
		const struct fi_info *info, size_t cm_data_max, void *context);

/* The passive endpoint's fi_ops and fi_ops_ep members, for a provider's
 * tables as they are (fid: the pep_fid's, wherever the pl_pep lies in
 * the provider's object). */
/* fi_pep_bind: an EQ only, flags 0. -FI_EINVAL otherwise, -FI_EALREADY
 * when one is bound. Takes a reference on the EQ. */
int pl_pep_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
/* fi_getopt at FI_OPT_ENDPOINT: FI_OPT_CM_DATA_SIZE; -FI_ENOPROTOOPT for
 * the rest, -FI_EINVAL / -FI_ETOOSMALL as pl_ep_getopt. */
int pl_pep_getopt(struct fid *fid, int level, int optname, void *optval,
		  size_t *optlen);
/* fi_setopt: no option can be set on a passive endpoint
 * (-FI_ENOPROTOOPT). */
int pl_pep_setopt(struct fid *fid, int level, int optname,
		  const void *optval, size_t optlen);

/* Drop the EQ reference and the info copy. */
void pl_pep_fini(struct pl_pep *pep);

#endif /* PROPEL_PL_CM_H */
