/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Extension interfaces: provider-specific code space, fid export/import,
 * memory-monitor and logging import, and the peer-provider objects of
 * fi_peer(3) through which two providers share one AV, AV set, CQ,
 * domain, EQ or shared receive context.
 *
 * Peer objects are plain tables of callbacks exchanged between
 * independently built providers, so every layout here is ABI.
 */
#ifndef PROPEL_RDMA_FI_EXT_H
#define PROPEL_RDMA_FI_EXT_H

#include <stdbool.h>
#include <rdma/fabric.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_endpoint.h>
#include <rdma/providers/fi_prov.h>
#include <rdma/providers/fi_log.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Provider-specific value space                                       */
/* ------------------------------------------------------------------ */

/*
 * A provider reserves a 12-bit code and shifts it into bits 16..27;
 * bits 28..31 stay clear so the negated value is still a valid int, and
 * the low 16 bits number the provider's own values.  A provider's enum
 * of private options/codes starts at -(its base) and counts up from
 * there, so it can never collide with the generic (non-negative) ones
 * or with another provider's range.
 */
#define FI_PROV_SPECIFIC_EFA	(0x0efa << 16)
#define FI_PROV_SPECIFIC_TCP	(0x07cb << 16)

/* Provider-specific endpoint options (fi_setopt/fi_getopt). */
enum {
	FI_OPT_EFA_RNR_RETRY = -FI_PROV_SPECIFIC_EFA,
};

/* ------------------------------------------------------------------ */
/* Exporting and importing fids                                        */
/* ------------------------------------------------------------------ */

/* Argument block for fi_control(FI_EXPORT_FID). */
struct fi_fid_export {
	struct fid	**fid;
	uint64_t	flags;
	void		*context;
};

static inline int
fi_export_fid(struct fid *fid, uint64_t flags, struct fid **expfid,
	      void *context)
{
	struct fi_fid_export exp;

	exp.fid = expfid;
	exp.flags = flags;
	exp.context = context;
	return fi_control(fid, FI_EXPORT_FID, &exp);
}

/* Importing is expressed as binding the foreign fid to the local one. */
static inline int
fi_import_fid(struct fid *fid, struct fid *expfid, uint64_t flags)
{
	return fid->ops->bind(fid, expfid, flags);
}

/* ------------------------------------------------------------------ */
/* Memory monitor import                                               */
/* ------------------------------------------------------------------ */

/*
 * Lets an application supply its own memory-region change monitor to
 * the registration cache: open the "mr_cache" object and import a
 * fid_mem_monitor.  export_ops are implemented by the application,
 * import_ops by the library (notify is how the application reports
 * that a range has been unmapped/changed).
 */
struct fid_mem_monitor;

struct fi_ops_mem_monitor {
	size_t	size;
	int	(*start)(struct fid_mem_monitor *monitor);
	void	(*stop)(struct fid_mem_monitor *monitor);
	int	(*subscribe)(struct fid_mem_monitor *monitor,
			     const void *addr, size_t len);
	void	(*unsubscribe)(struct fid_mem_monitor *monitor,
			       const void *addr, size_t len);
	bool	(*valid)(struct fid_mem_monitor *monitor,
			 const void *addr, size_t len);
};

struct fi_ops_mem_notify {
	size_t	size;
	void	(*notify)(struct fid_mem_monitor *monitor, const void *addr,
			  size_t len);
};

struct fid_mem_monitor {
	struct fid			fid;
	struct fi_ops_mem_monitor	*export_ops;
	struct fi_ops_mem_notify	*import_ops;
};

/* ------------------------------------------------------------------ */
/* Peer AV                                                             */
/* ------------------------------------------------------------------ */

/*
 * The owner wraps its fid_av in a fid_peer_av and passes it (via
 * fi_peer_av_context, with FI_PEER) to the peer's fi_av_open().
 */
struct fid_peer_av;

struct fi_ops_av_owner {
	size_t		size;
	int		(*query)(struct fid_peer_av *av,
				 struct fi_av_attr *attr);
	fi_addr_t	(*ep_addr)(struct fid_peer_av *av, struct fid_ep *ep);
};

struct fid_peer_av {
	struct fid		fid;
	struct fi_ops_av_owner	*owner_ops;
};

/*
 * NB: the member type is 'struct fi_peer_av', a tag that is never
 * defined (not fid_peer_av).  libfabric 1.17 declares it this way and
 * we keep it so that the type is identical for C++ mangling and for C
 * pointer compatibility.
 */
struct fi_peer_av_context {
	size_t			size;
	struct fi_peer_av	*av;
};

/* ------------------------------------------------------------------ */
/* Peer AV set                                                         */
/* ------------------------------------------------------------------ */

struct fid_peer_av_set;

struct fi_ops_av_set_owner {
	size_t	size;
	/* Fills addr[0..*count); -FI_ETOOSMALL if *count is too small. */
	int	(*members)(struct fid_peer_av_set *av, fi_addr_t *addr,
			   size_t *count);
};

struct fid_peer_av_set {
	struct fid			fid;
	struct fi_ops_av_set_owner	*owner_ops;
};

/* Same 1.17 quirk as fi_peer_av_context: undefined 'fi_peer_av_set' tag. */
struct fi_peer_av_set_context {
	size_t			size;
	struct fi_peer_av_set	*av_set;
};

/* ------------------------------------------------------------------ */
/* Peer CQ                                                             */
/* ------------------------------------------------------------------ */

/* Lets a peer provider post its completions into the owner's CQ. */
struct fid_peer_cq;

struct fi_ops_cq_owner {
	size_t	size;
	ssize_t	(*write)(struct fid_peer_cq *cq, void *context,
			 uint64_t flags, size_t len, void *buf,
			 uint64_t data, uint64_t tag, fi_addr_t src);
	ssize_t	(*writeerr)(struct fid_peer_cq *cq,
			    const struct fi_cq_err_entry *err_entry);
};

struct fid_peer_cq {
	struct fid		fid;
	struct fi_ops_cq_owner	*owner_ops;
};

struct fi_peer_cq_context {
	size_t			size;
	struct fid_peer_cq	*cq;
};

/* ------------------------------------------------------------------ */
/* Peer domain and EQ: the owner simply hands over its own object      */
/* ------------------------------------------------------------------ */

struct fi_peer_domain_context {
	size_t			size;
	struct fid_domain	*domain;
};

struct fi_peer_eq_context {
	size_t		size;
	struct fid_eq	*eq;
};

/* ------------------------------------------------------------------ */
/* Peer shared receive context                                         */
/* ------------------------------------------------------------------ */

/*
 * The owner keeps the posted-receive queues; a peer that gets a message
 * asks the owner for a matching buffer (get_msg/get_tag).  If none is
 * posted yet the peer queues the entry back (queue_msg/queue_tag) and
 * the owner later calls the peer's start_* / discard_* once matched.
 */
struct fid_peer_srx;

/*
 * next/prev come first so an entry can be linked on a dlist directly
 * (it is layout-compatible with a { next, prev } list node).
 */
struct fi_peer_rx_entry {
	struct fi_peer_rx_entry	*next;
	struct fi_peer_rx_entry	*prev;
	struct fid_peer_srx	*srx;
	fi_addr_t		addr;
	size_t			size;
	uint64_t		tag;
	uint64_t		flags;
	void			*context;
	size_t			count;
	void			**desc;
	void			*peer_context;
	void			*owner_context;
	struct iovec		*iov;
};

/* Implemented by the owner, called by the peer. */
struct fi_ops_srx_owner {
	size_t	size;
	int	(*get_msg)(struct fid_peer_srx *srx, fi_addr_t addr,
			   size_t size, struct fi_peer_rx_entry **entry);
	int	(*get_tag)(struct fid_peer_srx *srx, fi_addr_t addr,
			   uint64_t tag, struct fi_peer_rx_entry **entry);
	int	(*queue_msg)(struct fi_peer_rx_entry *entry);
	int	(*queue_tag)(struct fi_peer_rx_entry *entry);
	void	(*free_entry)(struct fi_peer_rx_entry *entry);
};

/* Implemented by the peer, called by the owner. */
struct fi_ops_srx_peer {
	size_t	size;
	int	(*start_msg)(struct fi_peer_rx_entry *entry);
	int	(*start_tag)(struct fi_peer_rx_entry *entry);
	int	(*discard_msg)(struct fi_peer_rx_entry *entry);
	int	(*discard_tag)(struct fi_peer_rx_entry *entry);
};

/* An SRX is an endpoint, hence fid_ep rather than a bare fid. */
struct fid_peer_srx {
	struct fid_ep		ep_fid;
	struct fi_ops_srx_owner	*owner_ops;
	struct fi_ops_srx_peer	*peer_ops;
};

struct fi_peer_srx_context {
	size_t			size;
	struct fid_peer_srx	*srx;
};

/* ------------------------------------------------------------------ */
/* Peer transfers (FI_PEER_TRANSFER)                                   */
/* ------------------------------------------------------------------ */

struct fi_peer_transfer_context;

/* Called by the offload peer to report completions of transfers it ran. */
struct fi_ops_transfer_peer {
	size_t	size;
	ssize_t	(*complete)(struct fid_ep *ep, struct fi_cq_tagged_entry *buf,
			    fi_addr_t *src_addr);
	ssize_t	(*comperr)(struct fid_ep *ep, struct fi_cq_err_entry *buf);
};

struct fi_peer_transfer_context {
	size_t				size;
	struct fi_info			*info;
	struct fid_ep			*ep;
	struct fi_ops_transfer_peer	*peer_ops;
};

/* ------------------------------------------------------------------ */
/* Logging import                                                      */
/* ------------------------------------------------------------------ */

/*
 * An application may replace the library's log sink: it fills in a
 * fid_logging whose ops implement the three fi_log*() entry points and
 * imports it into the "logging" object with fi_import_log().
 */

/*
 * Set by the core in the 'flags' it passes to the enabled/ready
 * callbacks when the calling provider is excluded by the user's
 * provider log filter (FI_LOG_PROV); the sink decides what to do.
 */
#define FI_LOG_PROV_FILTERED	(1ULL << 0)

struct fi_ops_log {
	size_t	size;
	int	(*enabled)(const struct fi_provider *prov,
			   enum fi_log_level level,
			   enum fi_log_subsys subsys, uint64_t flags);
	int	(*ready)(const struct fi_provider *prov,
			 enum fi_log_level level,
			 enum fi_log_subsys subsys, uint64_t flags,
			 uint64_t *showtime);
	void	(*log)(const struct fi_provider *prov,
		       enum fi_log_level level,
		       enum fi_log_subsys subsys, const char *func,
		       int line, const char *msg);
};

struct fid_logging {
	struct fid		fid;
	struct fi_ops_log	*ops;
};

/*
 * Open the named library object, import 'fid' into it, then drop our
 * reference to the named object again; the import is what persists.
 */
static inline int
fi_import(uint32_t version, const char *name, void *attr, size_t attr_len,
	  uint64_t flags, struct fid *fid, void *context)
{
	struct fid *open_fid;
	int ret;

	ret = fi_open(version, name, attr, attr_len, flags, &open_fid,
		      context);
	if (ret != FI_SUCCESS)
		return ret;

	ret = fi_import_fid(open_fid, fid, flags);
	fi_close(open_fid);
	return ret;
}

/* Caller supplies log_fid->ops; fclass and ops->size are set here. */
static inline int
fi_import_log(uint32_t version, uint64_t flags, struct fid_logging *log_fid)
{
	log_fid->fid.fclass = FI_CLASS_LOG;
	log_fid->ops->size = sizeof(struct fi_ops_log);

	return fi_import(version, "logging", NULL, 0, flags, &log_fid->fid,
			 log_fid);
}

#ifdef __cplusplus
}
#endif

#endif /* PROPEL_RDMA_FI_EXT_H */
