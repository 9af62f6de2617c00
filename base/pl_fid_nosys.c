/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -FI_ENOSYS stubs and all-stub tables for the control-path and
 * completion objects: fid, fabric, domain, MR, AV, AV set, CQ, counter,
 * EQ, wait set, poll set. The endpoint's tables are in pl_fid_nosys_ep.c.
 * See pl_fid_nosys.h for how objects use them.
 */
#include <rdma/fabric.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_fid_nosys.h"

/* A stub in the wrong slot must not compile, whatever the warning
 * flags of the build. */
#pragma GCC diagnostic error "-Wincompatible-pointer-types"

/* struct fi_ops */

int pl_fid_nosys_close(struct fid *fid)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_control(struct fid *fid, int command, void *arg)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_ops_open(struct fid *fid, const char *name, uint64_t flags,
			  void **ops, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_tostr(const struct fid *fid, char *buf, size_t len)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_ops_set(struct fid *fid, const char *name, uint64_t flags,
			 void *ops, void *context)
{
	return -FI_ENOSYS;
}

const struct fi_ops pl_fid_nosys_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_fid_nosys_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_fid_nosys_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

/* struct fi_ops_fabric */

int pl_fid_nosys_fabric_domain(struct fid_fabric *fabric, struct fi_info *info,
			       struct fid_domain **dom, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_fabric_passive_ep(struct fid_fabric *fabric,
				   struct fi_info *info, struct fid_pep **pep,
				   void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_fabric_eq_open(struct fid_fabric *fabric,
				struct fi_eq_attr *attr, struct fid_eq **eq,
				void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_fabric_wait_open(struct fid_fabric *fabric,
				  struct fi_wait_attr *attr,
				  struct fid_wait **waitset)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_fabric_trywait(struct fid_fabric *fabric, struct fid **fids,
				int count)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_fabric_domain2(struct fid_fabric *fabric,
				struct fi_info *info, struct fid_domain **dom,
				uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

const struct fi_ops_fabric pl_fid_nosys_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = pl_fid_nosys_fabric_domain,
	.passive_ep = pl_fid_nosys_fabric_passive_ep,
	.eq_open = pl_fid_nosys_fabric_eq_open,
	.wait_open = pl_fid_nosys_fabric_wait_open,
	.trywait = pl_fid_nosys_fabric_trywait,
	.domain2 = pl_fid_nosys_fabric_domain2,
};

/* struct fi_ops_domain */

int pl_fid_nosys_domain_av_open(struct fid_domain *domain,
				struct fi_av_attr *attr, struct fid_av **av,
				void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_cq_open(struct fid_domain *domain,
				struct fi_cq_attr *attr, struct fid_cq **cq,
				void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_endpoint(struct fid_domain *domain,
				 struct fi_info *info, struct fid_ep **ep,
				 void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_scalable_ep(struct fid_domain *domain,
				    struct fi_info *info, struct fid_ep **sep,
				    void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_cntr_open(struct fid_domain *domain,
				  struct fi_cntr_attr *attr,
				  struct fid_cntr **cntr, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_poll_open(struct fid_domain *domain,
				  struct fi_poll_attr *attr,
				  struct fid_poll **pollset)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_stx_ctx(struct fid_domain *domain,
				struct fi_tx_attr *attr, struct fid_stx **stx,
				void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_srx_ctx(struct fid_domain *domain,
				struct fi_rx_attr *attr, struct fid_ep **rx_ep,
				void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_query_atomic(struct fid_domain *domain,
				     enum fi_datatype datatype, enum fi_op op,
				     struct fi_atomic_attr *attr,
				     uint64_t flags)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_query_collective(struct fid_domain *domain,
					 enum fi_collective_op coll,
					 struct fi_collective_attr *attr,
					 uint64_t flags)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_domain_endpoint2(struct fid_domain *domain,
				  struct fi_info *info, struct fid_ep **ep,
				  uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

const struct fi_ops_domain pl_fid_nosys_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = pl_fid_nosys_domain_av_open,
	.cq_open = pl_fid_nosys_domain_cq_open,
	.endpoint = pl_fid_nosys_domain_endpoint,
	.scalable_ep = pl_fid_nosys_domain_scalable_ep,
	.cntr_open = pl_fid_nosys_domain_cntr_open,
	.poll_open = pl_fid_nosys_domain_poll_open,
	.stx_ctx = pl_fid_nosys_domain_stx_ctx,
	.srx_ctx = pl_fid_nosys_domain_srx_ctx,
	.query_atomic = pl_fid_nosys_domain_query_atomic,
	.query_collective = pl_fid_nosys_domain_query_collective,
	.endpoint2 = pl_fid_nosys_domain_endpoint2,
};

/* struct fi_ops_mr */

int pl_fid_nosys_mr_reg(struct fid *fid, const void *buf, size_t len,
			uint64_t access, uint64_t offset,
			uint64_t requested_key, uint64_t flags,
			struct fid_mr **mr, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_mr_regv(struct fid *fid, const struct iovec *iov,
			 size_t count, uint64_t access, uint64_t offset,
			 uint64_t requested_key, uint64_t flags,
			 struct fid_mr **mr, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			    uint64_t flags, struct fid_mr **mr)
{
	return -FI_ENOSYS;
}

const struct fi_ops_mr pl_fid_nosys_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = pl_fid_nosys_mr_reg,
	.regv = pl_fid_nosys_mr_regv,
	.regattr = pl_fid_nosys_mr_regattr,
};

/* struct fi_ops_av */

int pl_fid_nosys_av_insert(struct fid_av *av, const void *addr, size_t count,
			   fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_insertsvc(struct fid_av *av, const char *node,
			      const char *service, fi_addr_t *fi_addr,
			      uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_insertsym(struct fid_av *av, const char *node,
			      size_t nodecnt, const char *service,
			      size_t svccnt, fi_addr_t *fi_addr,
			      uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_remove(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
			   uint64_t flags)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_lookup(struct fid_av *av, fi_addr_t fi_addr, void *addr,
			   size_t *addrlen)
{
	return -FI_ENOSYS;
}

const char *pl_fid_nosys_av_straddr(struct fid_av *av, const void *addr,
				    char *buf, size_t *len)
{
	/* fi_av_straddr(3) reports failure as NULL */
	return NULL;
}

int pl_fid_nosys_av_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
			   struct fid_av_set **av_set, void *context)
{
	return -FI_ENOSYS;
}

const struct fi_ops_av pl_fid_nosys_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = pl_fid_nosys_av_insert,
	.insertsvc = pl_fid_nosys_av_insertsvc,
	.insertsym = pl_fid_nosys_av_insertsym,
	.remove = pl_fid_nosys_av_remove,
	.lookup = pl_fid_nosys_av_lookup,
	.straddr = pl_fid_nosys_av_straddr,
	.av_set = pl_fid_nosys_av_av_set,
};

/* struct fi_ops_av_set */

int pl_fid_nosys_av_set_set_union(struct fid_av_set *dst,
				  const struct fid_av_set *src)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_set_intersect(struct fid_av_set *dst,
				  const struct fid_av_set *src)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_set_diff(struct fid_av_set *dst,
			     const struct fid_av_set *src)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_set_insert(struct fid_av_set *set, fi_addr_t addr)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_set_remove(struct fid_av_set *set, fi_addr_t addr)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_av_set_addr(struct fid_av_set *set, fi_addr_t *coll_addr)
{
	return -FI_ENOSYS;
}

const struct fi_ops_av_set pl_fid_nosys_av_set_ops = {
	.size = sizeof(struct fi_ops_av_set),
	.set_union = pl_fid_nosys_av_set_set_union,
	.intersect = pl_fid_nosys_av_set_intersect,
	.diff = pl_fid_nosys_av_set_diff,
	.insert = pl_fid_nosys_av_set_insert,
	.remove = pl_fid_nosys_av_set_remove,
	.addr = pl_fid_nosys_av_set_addr,
};

/* struct fi_ops_cq */

ssize_t pl_fid_nosys_cq_read(struct fid_cq *cq, void *buf, size_t count)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_cq_readfrom(struct fid_cq *cq, void *buf, size_t count,
				 fi_addr_t *src_addr)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
				uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_cq_sread(struct fid_cq *cq, void *buf, size_t count,
			      const void *cond, int timeout)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_cq_sreadfrom(struct fid_cq *cq, void *buf, size_t count,
				  fi_addr_t *src_addr, const void *cond,
				  int timeout)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cq_signal(struct fid_cq *cq)
{
	return -FI_ENOSYS;
}

/* Never NULL: callers print the result unchecked. */
const char *pl_fid_nosys_cq_strerror(struct fid_cq *cq, int prov_errno,
				     const void *err_data, char *buf,
				     size_t len)
{
	return fi_strerror(FI_ENOSYS);
}

const struct fi_ops_cq pl_fid_nosys_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = pl_fid_nosys_cq_read,
	.readfrom = pl_fid_nosys_cq_readfrom,
	.readerr = pl_fid_nosys_cq_readerr,
	.sread = pl_fid_nosys_cq_sread,
	.sreadfrom = pl_fid_nosys_cq_sreadfrom,
	.signal = pl_fid_nosys_cq_signal,
	.strerror = pl_fid_nosys_cq_strerror,
};

/* struct fi_ops_cntr */

/* fi_cntr_read(3) has no error channel: nothing counted. */
uint64_t pl_fid_nosys_cntr_read(struct fid_cntr *cntr)
{
	return 0;
}

/* Likewise: no error counted. */
uint64_t pl_fid_nosys_cntr_readerr(struct fid_cntr *cntr)
{
	return 0;
}

int pl_fid_nosys_cntr_add(struct fid_cntr *cntr, uint64_t value)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cntr_set(struct fid_cntr *cntr, uint64_t value)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cntr_wait(struct fid_cntr *cntr, uint64_t threshold,
			   int timeout)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cntr_adderr(struct fid_cntr *cntr, uint64_t value)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cntr_seterr(struct fid_cntr *cntr, uint64_t value)
{
	return -FI_ENOSYS;
}

const struct fi_ops_cntr pl_fid_nosys_cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = pl_fid_nosys_cntr_read,
	.readerr = pl_fid_nosys_cntr_readerr,
	.add = pl_fid_nosys_cntr_add,
	.set = pl_fid_nosys_cntr_set,
	.wait = pl_fid_nosys_cntr_wait,
	.adderr = pl_fid_nosys_cntr_adderr,
	.seterr = pl_fid_nosys_cntr_seterr,
};

/* struct fi_ops_eq */

ssize_t pl_fid_nosys_eq_read(struct fid_eq *eq, uint32_t *event, void *buf,
			     size_t len, uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_eq_readerr(struct fid_eq *eq, struct fi_eq_err_entry *buf,
				uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_eq_write(struct fid_eq *eq, uint32_t event,
			      const void *buf, size_t len, uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_eq_sread(struct fid_eq *eq, uint32_t *event, void *buf,
			      size_t len, int timeout, uint64_t flags)
{
	return -FI_ENOSYS;
}

/* Never NULL: callers print the result unchecked. */
const char *pl_fid_nosys_eq_strerror(struct fid_eq *eq, int prov_errno,
				     const void *err_data, char *buf,
				     size_t len)
{
	return fi_strerror(FI_ENOSYS);
}

const struct fi_ops_eq pl_fid_nosys_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = pl_fid_nosys_eq_read,
	.readerr = pl_fid_nosys_eq_readerr,
	.write = pl_fid_nosys_eq_write,
	.sread = pl_fid_nosys_eq_sread,
	.strerror = pl_fid_nosys_eq_strerror,
};

/* struct fi_ops_wait */

int pl_fid_nosys_wait_wait(struct fid_wait *waitset, int timeout)
{
	return -FI_ENOSYS;
}

const struct fi_ops_wait pl_fid_nosys_wait_ops = {
	.size = sizeof(struct fi_ops_wait),
	.wait = pl_fid_nosys_wait_wait,
};

/* struct fi_ops_poll */

int pl_fid_nosys_poll_poll(struct fid_poll *pollset, void **context, int count)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_poll_poll_add(struct fid_poll *pollset, struct fid *event_fid,
			       uint64_t flags)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_poll_poll_del(struct fid_poll *pollset, struct fid *event_fid,
			       uint64_t flags)
{
	return -FI_ENOSYS;
}

const struct fi_ops_poll pl_fid_nosys_poll_ops = {
	.size = sizeof(struct fi_ops_poll),
	.poll = pl_fid_nosys_poll_poll,
	.poll_add = pl_fid_nosys_poll_poll_add,
	.poll_del = pl_fid_nosys_poll_poll_del,
};
