/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PL_WAIT_SET_H
#define PL_WAIT_SET_H
/*
 * Wait sets (fi_poll(3): fi_wait_open, fi_wait, fi_trywait on the set,
 * fi_control FI_GETWAIT / FI_GETWAITOBJ). A provider's
 * fi_ops_fabric.wait_open points at pl_wait_open. Members are the
 * CQs, EQs and counters opened with wait_obj FI_WAIT_SET and this set as
 * attr->wait_set: pl_waitable_init/fini register and unregister them,
 * pl_waitable_signal signals the set.
 *
 * What fi_wait waits for: the set keeps a signal sequence `seq` and the
 * last value a waiter consumed, `seen`. fi_wait returns 0 at once when a
 * member signalled since the last return (seq != seen; the return
 * consumes it) or when a live member's ready() holds (a CQ or EQ that is
 * not empty, a counter changed since the application last read it);
 * otherwise it sleeps until a signal or the timeout, -FI_ETIMEDOUT. A
 * signal between the application's last read and fi_wait is therefore
 * never lost, and a stale one costs one early return, never a spin.
 * Manual progress: while it sleeps, fi_wait keeps polling the members'
 * progress contexts in 1 ms slices.
 *
 * Native objects (FI_GETWAIT): FD (and UNSPEC, which is FD) an epoll fd
 * over the set's eventfd and the wait fds of the members' progress
 * contexts; POLLFD the same fds as a list (change_index moves when the
 * list does); MUTEX_COND the set's mutex and condition; YIELD none.
 * fi_trywait(set): arms every member context, drains the eventfd, then
 * -FI_EAGAIN when a signal is pending or a member is ready (the pending
 * signal is consumed), 0 when blocking on the native object is safe.
 *
 * Synchronization table:
 *   field              writer                  reader           protection
 *   kind, efd, epfd    open/close only         any              immutable
 *   seq, seen          signal / wait, trywait  wait, trywait    lock
 *   members, nmem,     add/del (member         wait, trywait,   mlock (write;
 *   ctxs, nctx,        open/close)             control, close   readers read)
 *   change_index
 *   w->set_live        signal (0 -> 1)         wait, trywait    release/acquire
 *
 *                 | wait | trywait | signal | add/del | control | close
 *   wait          | yes  | yes     | yes    | yes     | yes     | no
 *   trywait       | yes  | yes     | yes    | yes     | yes     | no
 *   signal        | yes  | yes     | yes    | yes     | yes     | no
 *   add/del       | yes  | yes     | yes    | yes     | yes     | no
 * Lock order: mlock before a member's own locks (ready(), the progress
 * token); `lock` is a leaf (signal takes it with no other lock held).
 * close: -FI_EBUSY while members remain.
 */
#include <stdbool.h>
#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

struct pl_waitable;

/* fi_ops_fabric.wait_open. attr NULL: FI_WAIT_UNSPEC. -FI_EINVAL for a
 * NULL waitset_p, attr->flags != 0, or wait_obj NONE / SET / unknown;
 * -FI_ENOMEM. *waitset_p set only on success. */
int pl_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		 struct fid_wait **waitset_p);

/* true when ws is a wait set opened by pl_wait_open */
bool pl_wait_set_is(const struct fid_wait *ws);
/* FI_WAIT_FD, POLLFD, MUTEX_COND or YIELD; FI_WAIT_NONE if not a set */
enum fi_wait_obj pl_wait_set_kind(const struct fid_wait *ws);

/* Member side (pl_waitable). add: 0, -FI_EINVAL (not a pl wait set),
 * -FI_ENOMEM. del: unknown members are ignored. */
int pl_wait_set_add(struct fid_wait *ws, struct pl_waitable *w);
void pl_wait_set_del(struct fid_wait *ws, struct pl_waitable *w);
/* Called after w's owner published its entry; takes only the set's leaf
 * lock. */
void pl_wait_set_signal(struct fid_wait *ws, struct pl_waitable *w);

/* fi_trywait on the set: 0, -FI_EAGAIN, -FI_EINVAL (not a set). */
int pl_wait_set_trywait(struct fid_wait *ws);

#endif
