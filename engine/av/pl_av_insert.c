/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_av_insert and the core the whole insert family shares: flag checks,
 * FI_AV_USER_ID, FI_SYNC_ERR, duplicate addresses, and FI_EVENT
 * completions on the bound EQ.
 *
 * Duplicates: inserting an address already in the AV returns its fi_addr_t
 * again and counts one more insert of it; the address goes away with the
 * last fi_av_remove of that fi_addr_t (what the reference's AVs do, and
 * what MPI runtimes that insert a peer once per communicator expect). The
 * first insert's FI_AV_USER_ID value stays.
 *
 * FI_EVENT: the addresses are inserted before the call returns; what is
 * asynchronous is the report. After the AV mutex is released (no lock
 * across a call into the EQ), each failed address gets an error entry
 * (fi_eq_err_entry: fid = the AV, context = the insert's, data = the
 * address's index, err = a positive fi_errno) and then one FI_AV_COMPLETE
 * entry (data = the number inserted). The engine's own EQ (pl_eq) takes
 * them through its provider-side calls, which need no FI_WRITE on the EQ
 * and queue errors where fi_eq_read reports -FI_EAVAIL; any other EQ gets
 * the public fi_eq_write(), error entries marked PL_AV_EQ_WRITE_ERROR.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "pl_av_int.h"
#include "pl_eq.h"
#include "pl_log.h"

#define PL_AV_INSERT_FLAGS	(FI_MORE | FI_SYNC_ERR | FI_AV_USER_ID)

int pl_av_insert_check(struct pl_av *av, size_t count, fi_addr_t *fi_addr,
		       uint64_t flags, void *context)
{
	if (flags & ~PL_AV_INSERT_FLAGS)
		return -FI_EBADFLAGS;
	/* FI_SYNC_ERR reports synchronous failures only (fi_av(3)). */
	if ((flags & FI_SYNC_ERR) && (av->flags & FI_EVENT))
		return -FI_EBADFLAGS;
	if ((flags & FI_SYNC_ERR) && !context && count)
		return -FI_EINVAL;
	/* fi_addr carries the user IDs in; a map AV's handles come out only
	 * through it (a table AV's are predictable, so it may be NULL). */
	if (!fi_addr && count &&
	    ((flags & FI_AV_USER_ID) || av->type == FI_AV_MAP))
		return -FI_EINVAL;
	/* User IDs are per process; a named AV's slots are not. */
	if ((flags & FI_AV_USER_ID) && av->shared)
		return -FI_EOPNOTSUPP;
	if (av->flags & FI_READ)
		return -FI_EOPBADSTATE;
	return 0;
}

/* One address of a private AV; AV mutex held. */
static int pl_av_insert_private(struct pl_av *av, const void *addr,
				const fi_addr_t *user_id, fi_addr_t *fi_addr_p)
{
	struct pl_av_rhash_node *node;
	struct pl_av_entry *e;
	fi_addr_t handle;
	int ret;

	pl_rcu_read_lock();
	node = pl_av_rhash_lookup(av->rhash, addr);
	if (node) {
		/* Nodes come and go only under the AV mutex: e stays. */
		e = pl_container_of(node, struct pl_av_entry, rnode);
		e->refcnt++;
		*fi_addr_p = e->fi_addr;
	}
	pl_rcu_read_unlock();
	if (node)
		return 0;

	ret = __pl_av_table_reserve(&av->table, &handle);
	if (ret)
		return ret;
	e = malloc(sizeof(*e) + av->addrlen);
	if (!e)
		return -FI_ENOMEM;
	memcpy(e->addr, addr, av->addrlen);
	e->addrlen = (uint32_t)av->addrlen;
	e->refcnt = 1;
	e->fi_addr = handle;
	e->user_id = user_id ? *user_id : handle;
	e->rnode.key = e->addr;
	e->rnode.fi_addr = handle;
	__pl_av_table_publish(&av->table, e);
	/* Cannot find another node: duplicates were looked up above, under
	 * the same mutex. */
	(void)pl_av_rhash_add(av->rhash, &e->rnode);
	if (av->ops && av->ops->inserted)
		av->ops->inserted(&av->av_fid, e->addr, handle);
	*fi_addr_p = handle;
	return 0;
}

/* One address; AV mutex held. 0 or a negative fi_errno. */
static int pl_av_insert_one(struct pl_av *av, const void *addr,
			    const fi_addr_t *user_id, fi_addr_t *fi_addr_p)
{
	int ret;

	if (av->ops && av->ops->validate) {
		ret = av->ops->validate(&av->av_fid, addr);
		if (ret)
			return ret < 0 ? ret : -FI_EINVAL;
	}
	if (av->shared)
		return pl_av_shared_insert(av->shared, addr, fi_addr_p);
	return pl_av_insert_private(av, addr, user_id, fi_addr_p);
}

/* Report an FI_EVENT insert: one error entry per failure, then the
 * completion. No lock held. */
static void pl_av_insert_report(struct pl_av *av, struct fid_eq *eq,
				const int *errs, size_t count, size_t done,
				void *context)
{
	struct fi_eq_entry entry = {
		.fid = &av->av_fid.fid, .context = context, .data = done,
	};
	size_t i;
	ssize_t ret;

	for (i = 0; errs && i < count; i++) {
		struct fi_eq_err_entry err = {
			.fid = &av->av_fid.fid, .context = context,
			.data = i, .err = -errs[i],
		};

		if (!errs[i])
			continue;
		if (pl_eq_waitable(eq))
			ret = pl_eq_write_error(eq, err.fid, err.context,
						err.data, err.err, 0, NULL, 0);
		else
			ret = fi_eq_write(eq, FI_AV_COMPLETE, &err, sizeof(err),
					  PL_AV_EQ_WRITE_ERROR);
		if (ret < 0)
			PL_WARN(FI_LOG_AV, "EQ refused an insert error entry: "
				"%zd\n", ret);
	}
	if (pl_eq_waitable(eq))
		ret = pl_eq_write_event(eq, FI_AV_COMPLETE, &entry,
					sizeof(entry), 0);
	else
		ret = fi_eq_write(eq, FI_AV_COMPLETE, &entry, sizeof(entry), 0);
	if (ret < 0)
		PL_WARN(FI_LOG_AV, "EQ refused FI_AV_COMPLETE: %zd\n", ret);
}

int pl_av_insert_batch(struct pl_av *av, const void *addrs, size_t count,
		       const int *pre_err, fi_addr_t *fi_addr, uint64_t flags,
		       void *context)
{
	const unsigned char *p = addrs;
	int *sync_err = (flags & FI_SYNC_ERR) ? context : NULL;
	bool event = av->flags & FI_EVENT;
	int *errs = NULL;
	struct fid_eq *eq;
	size_t i, done = 0;

	if (count && !addrs)
		return -FI_EINVAL;
	if (event && count) {
		errs = calloc(count, sizeof(*errs));
		if (!errs)
			return -FI_ENOMEM;
	}
	pthread_mutex_lock(&av->lock);
	eq = av->eq;
	if (event && !eq) {
		pthread_mutex_unlock(&av->lock);
		free(errs);
		return -FI_ENOEQ;
	}
	for (i = 0; i < count; i++) {
		fi_addr_t out = FI_ADDR_NOTAVAIL, user_id;
		int ret = pre_err ? pre_err[i] : 0;

		if (!ret) {
			user_id = (flags & FI_AV_USER_ID) ? fi_addr[i] : 0;
			ret = pl_av_insert_one(av, p + i * av->addrlen,
					       (flags & FI_AV_USER_ID) ?
					       &user_id : NULL, &out);
		}
		if (ret)
			PL_DBG(FI_LOG_AV, "address %zu not inserted: %d\n", i,
			       ret);
		else
			done++;
		if (fi_addr)
			fi_addr[i] = out;
		if (sync_err)
			sync_err[i] = -ret;
		if (errs)
			errs[i] = ret;
	}
	/* release (under lock, the only writer): pairs with the acquire
	 * load in pl_av_insert_gen, so that a reader seeing the new value
	 * finds the entries published before it */
	if (done)
		pl_store_release(&av->inserts,
				 pl_load_relaxed(&av->inserts) + 1);
	/* relaxed: set before the entries' fi_addr_t reach the caller, who
	 * orders them before any message that reports them (as an
	 * insert's entries themselves, pl_av_lookup_peer) */
	if (done && (flags & FI_AV_USER_ID))
		pl_store_relaxed(&av->user_ids, 1u);
	pthread_mutex_unlock(&av->lock);
	if (!event)
		return (int)done;
	pl_av_insert_report(av, eq, errs, count, done, context);
	free(errs);
	return 0;
}

int pl_av_insert(struct fid_av *av_fid, const void *addr, size_t count,
		 fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct pl_av *av = pl_av_of(av_fid);
	int ret;

	ret = pl_av_insert_check(av, count, fi_addr, flags, context);
	if (ret)
		return ret;
	return pl_av_insert_batch(av, addr, count, NULL, fi_addr, flags,
				  context);
}
