/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -FI_ENOSYS stubs and all-stub tables for the endpoint's ops: ep, msg,
 * tagged, rma, atomic, cm, collective. See pl_fid_nosys.h.
 */
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "pl_fid_nosys.h"

/* A stub in the wrong slot must not compile, whatever the warning
 * flags of the build. */
#pragma GCC diagnostic error "-Wincompatible-pointer-types"

/* struct fi_ops_ep */

ssize_t pl_fid_nosys_ep_cancel(fid_t fid, void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_ep_getopt(fid_t fid, int level, int optname, void *optval,
			   size_t *optlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_ep_setopt(fid_t fid, int level, int optname,
			   const void *optval, size_t optlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_ep_tx_ctx(struct fid_ep *sep, int index,
			   struct fi_tx_attr *attr, struct fid_ep **tx_ep,
			   void *context)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_ep_rx_ctx(struct fid_ep *sep, int index,
			   struct fi_rx_attr *attr, struct fid_ep **rx_ep,
			   void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_ep_rx_size_left(struct fid_ep *ep)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_ep_tx_size_left(struct fid_ep *ep)
{
	return -FI_ENOSYS;
}

const struct fi_ops_ep pl_fid_nosys_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = pl_fid_nosys_ep_cancel,
	.getopt = pl_fid_nosys_ep_getopt,
	.setopt = pl_fid_nosys_ep_setopt,
	.tx_ctx = pl_fid_nosys_ep_tx_ctx,
	.rx_ctx = pl_fid_nosys_ep_rx_ctx,
	.rx_size_left = pl_fid_nosys_ep_rx_size_left,
	.tx_size_left = pl_fid_nosys_ep_tx_size_left,
};

/* struct fi_ops_msg */

ssize_t pl_fid_nosys_msg_recv(struct fid_ep *ep, void *buf, size_t len,
			      void *desc, fi_addr_t src_addr, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_recvv(struct fid_ep *ep, const struct iovec *iov,
			       void **desc, size_t count, fi_addr_t src_addr,
			       void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_recvmsg(struct fid_ep *ep, const struct fi_msg *msg,
				 uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_send(struct fid_ep *ep, const void *buf, size_t len,
			      void *desc, fi_addr_t dest_addr, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_sendv(struct fid_ep *ep, const struct iovec *iov,
			       void **desc, size_t count, fi_addr_t dest_addr,
			       void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_sendmsg(struct fid_ep *ep, const struct fi_msg *msg,
				 uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_inject(struct fid_ep *ep, const void *buf, size_t len,
				fi_addr_t dest_addr)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_senddata(struct fid_ep *ep, const void *buf,
				  size_t len, void *desc, uint64_t data,
				  fi_addr_t dest_addr, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_msg_injectdata(struct fid_ep *ep, const void *buf,
				    size_t len, uint64_t data,
				    fi_addr_t dest_addr)
{
	return -FI_ENOSYS;
}

const struct fi_ops_msg pl_fid_nosys_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = pl_fid_nosys_msg_recv,
	.recvv = pl_fid_nosys_msg_recvv,
	.recvmsg = pl_fid_nosys_msg_recvmsg,
	.send = pl_fid_nosys_msg_send,
	.sendv = pl_fid_nosys_msg_sendv,
	.sendmsg = pl_fid_nosys_msg_sendmsg,
	.inject = pl_fid_nosys_msg_inject,
	.senddata = pl_fid_nosys_msg_senddata,
	.injectdata = pl_fid_nosys_msg_injectdata,
};

/* struct fi_ops_tagged */

ssize_t pl_fid_nosys_tagged_recv(struct fid_ep *ep, void *buf, size_t len,
				 void *desc, fi_addr_t src_addr, uint64_t tag,
				 uint64_t ignore, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_recvv(struct fid_ep *ep, const struct iovec *iov,
				  void **desc, size_t count,
				  fi_addr_t src_addr, uint64_t tag,
				  uint64_t ignore, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_recvmsg(struct fid_ep *ep,
				    const struct fi_msg_tagged *msg,
				    uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_send(struct fid_ep *ep, const void *buf,
				 size_t len, void *desc, fi_addr_t dest_addr,
				 uint64_t tag, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_sendv(struct fid_ep *ep, const struct iovec *iov,
				  void **desc, size_t count,
				  fi_addr_t dest_addr, uint64_t tag,
				  void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_sendmsg(struct fid_ep *ep,
				    const struct fi_msg_tagged *msg,
				    uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_inject(struct fid_ep *ep, const void *buf,
				   size_t len, fi_addr_t dest_addr,
				   uint64_t tag)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_senddata(struct fid_ep *ep, const void *buf,
				     size_t len, void *desc, uint64_t data,
				     fi_addr_t dest_addr, uint64_t tag,
				     void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_tagged_injectdata(struct fid_ep *ep, const void *buf,
				       size_t len, uint64_t data,
				       fi_addr_t dest_addr, uint64_t tag)
{
	return -FI_ENOSYS;
}

const struct fi_ops_tagged pl_fid_nosys_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = pl_fid_nosys_tagged_recv,
	.recvv = pl_fid_nosys_tagged_recvv,
	.recvmsg = pl_fid_nosys_tagged_recvmsg,
	.send = pl_fid_nosys_tagged_send,
	.sendv = pl_fid_nosys_tagged_sendv,
	.sendmsg = pl_fid_nosys_tagged_sendmsg,
	.inject = pl_fid_nosys_tagged_inject,
	.senddata = pl_fid_nosys_tagged_senddata,
	.injectdata = pl_fid_nosys_tagged_injectdata,
};

/* struct fi_ops_rma */

ssize_t pl_fid_nosys_rma_read(struct fid_ep *ep, void *buf, size_t len,
			      void *desc, fi_addr_t src_addr, uint64_t addr,
			      uint64_t key, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_readv(struct fid_ep *ep, const struct iovec *iov,
			       void **desc, size_t count, fi_addr_t src_addr,
			       uint64_t addr, uint64_t key, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_readmsg(struct fid_ep *ep,
				 const struct fi_msg_rma *msg, uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_write(struct fid_ep *ep, const void *buf, size_t len,
			       void *desc, fi_addr_t dest_addr, uint64_t addr,
			       uint64_t key, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_writev(struct fid_ep *ep, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t dest_addr,
				uint64_t addr, uint64_t key, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_writemsg(struct fid_ep *ep,
				  const struct fi_msg_rma *msg, uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_inject(struct fid_ep *ep, const void *buf, size_t len,
				fi_addr_t dest_addr, uint64_t addr,
				uint64_t key)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_writedata(struct fid_ep *ep, const void *buf,
				   size_t len, void *desc, uint64_t data,
				   fi_addr_t dest_addr, uint64_t addr,
				   uint64_t key, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_rma_injectdata(struct fid_ep *ep, const void *buf,
				    size_t len, uint64_t data,
				    fi_addr_t dest_addr, uint64_t addr,
				    uint64_t key)
{
	return -FI_ENOSYS;
}

const struct fi_ops_rma pl_fid_nosys_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = pl_fid_nosys_rma_read,
	.readv = pl_fid_nosys_rma_readv,
	.readmsg = pl_fid_nosys_rma_readmsg,
	.write = pl_fid_nosys_rma_write,
	.writev = pl_fid_nosys_rma_writev,
	.writemsg = pl_fid_nosys_rma_writemsg,
	.inject = pl_fid_nosys_rma_inject,
	.writedata = pl_fid_nosys_rma_writedata,
	.injectdata = pl_fid_nosys_rma_injectdata,
};

/* struct fi_ops_atomic */

ssize_t pl_fid_nosys_atomic_write(struct fid_ep *ep, const void *buf,
				  size_t count, void *desc,
				  fi_addr_t dest_addr, uint64_t addr,
				  uint64_t key, enum fi_datatype datatype,
				  enum fi_op op, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_writev(struct fid_ep *ep, const struct fi_ioc *iov,
				   void **desc, size_t count,
				   fi_addr_t dest_addr, uint64_t addr,
				   uint64_t key, enum fi_datatype datatype,
				   enum fi_op op, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_writemsg(struct fid_ep *ep,
				     const struct fi_msg_atomic *msg,
				     uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_inject(struct fid_ep *ep, const void *buf,
				   size_t count, fi_addr_t dest_addr,
				   uint64_t addr, uint64_t key,
				   enum fi_datatype datatype, enum fi_op op)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_readwrite(struct fid_ep *ep, const void *buf,
				      size_t count, void *desc, void *result,
				      void *result_desc, fi_addr_t dest_addr,
				      uint64_t addr, uint64_t key,
				      enum fi_datatype datatype, enum fi_op op,
				      void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_readwritev(struct fid_ep *ep,
				       const struct fi_ioc *iov, void **desc,
				       size_t count, struct fi_ioc *resultv,
				       void **result_desc, size_t result_count,
				       fi_addr_t dest_addr, uint64_t addr,
				       uint64_t key, enum fi_datatype datatype,
				       enum fi_op op, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_readwritemsg(struct fid_ep *ep,
					 const struct fi_msg_atomic *msg,
					 struct fi_ioc *resultv,
					 void **result_desc,
					 size_t result_count, uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_compwrite(struct fid_ep *ep, const void *buf,
				      size_t count, void *desc,
				      const void *compare, void *compare_desc,
				      void *result, void *result_desc,
				      fi_addr_t dest_addr, uint64_t addr,
				      uint64_t key, enum fi_datatype datatype,
				      enum fi_op op, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_compwritev(struct fid_ep *ep,
				       const struct fi_ioc *iov, void **desc,
				       size_t count,
				       const struct fi_ioc *comparev,
				       void **compare_desc,
				       size_t compare_count,
				       struct fi_ioc *resultv,
				       void **result_desc, size_t result_count,
				       fi_addr_t dest_addr, uint64_t addr,
				       uint64_t key, enum fi_datatype datatype,
				       enum fi_op op, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_atomic_compwritemsg(struct fid_ep *ep,
					 const struct fi_msg_atomic *msg,
					 const struct fi_ioc *comparev,
					 void **compare_desc,
					 size_t compare_count,
					 struct fi_ioc *resultv,
					 void **result_desc,
					 size_t result_count, uint64_t flags)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_atomic_writevalid(struct fid_ep *ep,
				   enum fi_datatype datatype, enum fi_op op,
				   size_t *count)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_atomic_readwritevalid(struct fid_ep *ep,
				       enum fi_datatype datatype,
				       enum fi_op op, size_t *count)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_atomic_compwritevalid(struct fid_ep *ep,
				       enum fi_datatype datatype,
				       enum fi_op op, size_t *count)
{
	return -FI_ENOSYS;
}

const struct fi_ops_atomic pl_fid_nosys_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = pl_fid_nosys_atomic_write,
	.writev = pl_fid_nosys_atomic_writev,
	.writemsg = pl_fid_nosys_atomic_writemsg,
	.inject = pl_fid_nosys_atomic_inject,
	.readwrite = pl_fid_nosys_atomic_readwrite,
	.readwritev = pl_fid_nosys_atomic_readwritev,
	.readwritemsg = pl_fid_nosys_atomic_readwritemsg,
	.compwrite = pl_fid_nosys_atomic_compwrite,
	.compwritev = pl_fid_nosys_atomic_compwritev,
	.compwritemsg = pl_fid_nosys_atomic_compwritemsg,
	.writevalid = pl_fid_nosys_atomic_writevalid,
	.readwritevalid = pl_fid_nosys_atomic_readwritevalid,
	.compwritevalid = pl_fid_nosys_atomic_compwritevalid,
};

/* struct fi_ops_cm */

int pl_fid_nosys_cm_setname(fid_t fid, void *addr, size_t addrlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_getname(fid_t fid, void *addr, size_t *addrlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_connect(struct fid_ep *ep, const void *addr,
			    const void *param, size_t paramlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_listen(struct fid_pep *pep)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_accept(struct fid_ep *ep, const void *param,
			   size_t paramlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_reject(struct fid_pep *pep, fid_t handle,
			   const void *param, size_t paramlen)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_shutdown(struct fid_ep *ep, uint64_t flags)
{
	return -FI_ENOSYS;
}

int pl_fid_nosys_cm_join(struct fid_ep *ep, const void *addr, uint64_t flags,
			 struct fid_mc **mc, void *context)
{
	return -FI_ENOSYS;
}

const struct fi_ops_cm pl_fid_nosys_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = pl_fid_nosys_cm_setname,
	.getname = pl_fid_nosys_cm_getname,
	.getpeer = pl_fid_nosys_cm_getpeer,
	.connect = pl_fid_nosys_cm_connect,
	.listen = pl_fid_nosys_cm_listen,
	.accept = pl_fid_nosys_cm_accept,
	.reject = pl_fid_nosys_cm_reject,
	.shutdown = pl_fid_nosys_cm_shutdown,
	.join = pl_fid_nosys_cm_join,
};

/* struct fi_ops_collective */

ssize_t pl_fid_nosys_collective_barrier(struct fid_ep *ep, fi_addr_t coll_addr,
					void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_broadcast(struct fid_ep *ep, void *buf,
					  size_t count, void *desc,
					  fi_addr_t coll_addr,
					  fi_addr_t root_addr,
					  enum fi_datatype datatype,
					  uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_alltoall(struct fid_ep *ep, const void *buf,
					 size_t count, void *desc,
					 void *result, void *result_desc,
					 fi_addr_t coll_addr,
					 enum fi_datatype datatype,
					 uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_allreduce(struct fid_ep *ep, const void *buf,
					  size_t count, void *desc,
					  void *result, void *result_desc,
					  fi_addr_t coll_addr,
					  enum fi_datatype datatype,
					  enum fi_op op, uint64_t flags,
					  void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_allgather(struct fid_ep *ep, const void *buf,
					  size_t count, void *desc,
					  void *result, void *result_desc,
					  fi_addr_t coll_addr,
					  enum fi_datatype datatype,
					  uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_reduce_scatter(struct fid_ep *ep,
					       const void *buf, size_t count,
					       void *desc, void *result,
					       void *result_desc,
					       fi_addr_t coll_addr,
					       enum fi_datatype datatype,
					       enum fi_op op, uint64_t flags,
					       void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_reduce(struct fid_ep *ep, const void *buf,
				       size_t count, void *desc, void *result,
				       void *result_desc, fi_addr_t coll_addr,
				       fi_addr_t root_addr,
				       enum fi_datatype datatype,
				       enum fi_op op, uint64_t flags,
				       void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_scatter(struct fid_ep *ep, const void *buf,
					size_t count, void *desc, void *result,
					void *result_desc, fi_addr_t coll_addr,
					fi_addr_t root_addr,
					enum fi_datatype datatype,
					uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_gather(struct fid_ep *ep, const void *buf,
				       size_t count, void *desc, void *result,
				       void *result_desc, fi_addr_t coll_addr,
				       fi_addr_t root_addr,
				       enum fi_datatype datatype,
				       uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_msg(struct fid_ep *ep,
				    const struct fi_msg_collective *msg,
				    struct fi_ioc *resultv, void **result_desc,
				    size_t result_count, uint64_t flags)
{
	return -FI_ENOSYS;
}

ssize_t pl_fid_nosys_collective_barrier2(struct fid_ep *ep,
					 fi_addr_t coll_addr, uint64_t flags,
					 void *context)
{
	return -FI_ENOSYS;
}

const struct fi_ops_collective pl_fid_nosys_collective_ops = {
	.size = sizeof(struct fi_ops_collective),
	.barrier = pl_fid_nosys_collective_barrier,
	.broadcast = pl_fid_nosys_collective_broadcast,
	.alltoall = pl_fid_nosys_collective_alltoall,
	.allreduce = pl_fid_nosys_collective_allreduce,
	.allgather = pl_fid_nosys_collective_allgather,
	.reduce_scatter = pl_fid_nosys_collective_reduce_scatter,
	.reduce = pl_fid_nosys_collective_reduce,
	.scatter = pl_fid_nosys_collective_scatter,
	.gather = pl_fid_nosys_collective_gather,
	.msg = pl_fid_nosys_collective_msg,
	.barrier2 = pl_fid_nosys_collective_barrier2,
};
