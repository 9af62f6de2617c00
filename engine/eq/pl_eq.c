/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Event queues. Two FIFO lists under `lock`: events and errors
 * (fi_eq(3): an error goes to a separate queue, and fi_eq_read answers
 * -FI_EAVAIL while that queue holds anything). `count` mirrors the sum
 * of both lengths for a lock-free ready() (fi_trywait, wait sets):
 * updated under the lock with acq_rel, read with acquire.
 * The full synchronization table is in pl_eq.h.
 */
#include "pl_eq.h"
#include "pl_fabric_obj.h"
#include "pl_info.h"
#include "pl_waitable.h"
#include "pl_atomic.h"
#include "pl_fid_nosys.h"
#include "pl_cm.h"
#include "pl_info.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pl_eq_ent {
	struct pl_eq_ent *next;
	uint32_t event;
	bool owns_info;			/* a provider's FI_CONNREQ: its
					 * fi_info is ours until read */
	size_t len;
	struct fi_eq_err_entry err;	/* error entries */
	void *err_data;			/* owned copy, for readerr */
	char buf[];
};

struct pl_eq_list {
	struct pl_eq_ent *head, *tail;
};

struct pl_eq {
	struct fid_eq eq;
	struct pl_waitable w;
	uint64_t flags;			/* attr->flags; immutable */
	pthread_mutex_t lock;
	struct pl_eq_list ev, err;	/* under lock */
	void *last_err_data;		/* under lock: kept for the app */
	pl_atomic_u64 count;
	pl_atomic_int refs;
	struct fid_fabric *fabric;	/* immutable: counted parent */
	size_t size;			/* immutable: most entries queued */
};

#define PL_EQ(e) ((struct pl_eq *)(e))

static bool pl_eq_ready(struct pl_waitable *w)
{
	struct pl_eq *q = (struct pl_eq *)((char *)w -
					   offsetof(struct pl_eq, w));

	/* acquire: pairs with the acq_rel increment in pl_eq_push */
	return pl_load_acquire(&q->count) > 0;
}

/* -FI_EAGAIN (nothing queued) when the EQ holds its size already,
 * unless the entry is owed (pl_eq.h, overrun). */
static int pl_eq_push(struct pl_eq *q, struct pl_eq_list *l,
		      struct pl_eq_ent *e, bool owed)
{
	pthread_mutex_lock(&q->lock);
	/* relaxed: count only changes under the lock, which we hold */
	if (!owed && pl_load_relaxed(&q->count) >= q->size) {
		pthread_mutex_unlock(&q->lock);
		return -FI_EAGAIN;
	}
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
	/* acq_rel: pairs with the acquire in pl_eq_ready */
	pl_fetch_add_acq_rel(&q->count, 1);
	pthread_mutex_unlock(&q->lock);
	/* after the entry is visible: a waiter that checked before it
	 * sleeps on a sequence this signal changes */
	pl_waitable_signal(&q->w);
	return 0;
}

static void pl_eq_pop_locked(struct pl_eq *q, struct pl_eq_list *l)
{
	struct pl_eq_ent *e = l->head;

	l->head = e->next;
	if (!l->head)
		l->tail = NULL;
	/* acq_rel, under q->lock like the list: the lock orders the lists;
	 * the count is only the lock-free hint pl_eq_ready reads (its
	 * acquire pairs with this and with pl_eq_push's increment). */
	pl_fetch_sub_acq_rel(&q->count, 1);
	if (l == &q->err) {
		/* fi_eq(3): a provider-owned err_data stays valid until
		 * the next read */
		free(q->last_err_data);
		q->last_err_data = e->err_data;
	}
	free(e);
}

/* The smallest entry each event type carries (fi_eq(3) EVENT FIELDS). */
static int pl_eq_min_len(uint32_t event, size_t *min_p)
{
	switch (event) {
	case FI_NOTIFY:			/* free-form */
		*min_p = 0;
		return 0;
	case FI_CONNREQ: case FI_CONNECTED: case FI_SHUTDOWN:
		*min_p = sizeof(struct fi_eq_cm_entry);
		return 0;
	case FI_MR_COMPLETE: case FI_AV_COMPLETE: case FI_JOIN_COMPLETE:
		*min_p = sizeof(struct fi_eq_entry);
		return 0;
	default:
		return -FI_EINVAL;
	}
}

static bool pl_eq_is_cm(uint32_t event)
{
	return event == FI_CONNREQ || event == FI_CONNECTED ||
	       event == FI_SHUTDOWN;
}

/* by_app: fi_eq_write, whose FI_CONNREQ info (if any) stays the
 * application's; a provider's becomes the reader's, or is freed with an
 * entry nobody read. */
static ssize_t pl_eq_write_ent(struct fid_eq *eq, uint32_t event,
			       const void *buf, size_t len, bool by_app,
			       bool owed)
{
	struct pl_eq_ent *e;
	size_t min;
	int ret;

	if (!pl_eq_waitable(eq) || (len && !buf))
		return -FI_EINVAL;
	if (pl_eq_min_len(event, &min) || len < min)
		return -FI_EINVAL;
	e = calloc(1, sizeof(*e) + len);
	if (!e)
		return -FI_ENOMEM;
	e->event = event;
	e->owns_info = !by_app && event == FI_CONNREQ;
	e->len = len;
	if (len)
		memcpy(e->buf, buf, len);
	ret = pl_eq_push(PL_EQ(eq), &PL_EQ(eq)->ev, e, owed);
	if (ret) {
		free(e);	/* the caller keeps what it passed */
		return ret;
	}
	return (ssize_t)len;
}

ssize_t pl_eq_write_event(struct fid_eq *eq, uint32_t event,
			  const void *buf, size_t len, uint64_t flags)
{
	if (flags & ~PL_EQ_OWED)
		return -FI_EINVAL;
	return pl_eq_write_ent(eq, event, buf, len, false,
			       (flags & PL_EQ_OWED) != 0);
}

static ssize_t pl_eq_write_err_ent(struct fid_eq *eq, fid_t fid,
				   void *context, uint64_t data, int err,
				   int prov_errno, void *err_data,
				   size_t err_data_size, bool owed)
{
	struct pl_eq_ent *e;

	if (!pl_eq_waitable(eq) || (err_data_size && !err_data))
		return -FI_EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FI_ENOMEM;
	e->err.fid = fid;
	e->err.context = context;
	e->err.data = data;
	e->err.err = err < 0 ? -err : err;
	e->err.prov_errno = prov_errno;
	if (err_data_size) {
		e->err_data = malloc(err_data_size);
		if (!e->err_data) {
			free(e);
			return -FI_ENOMEM;
		}
		memcpy(e->err_data, err_data, err_data_size);
		e->err.err_data_size = err_data_size;
	}
	if (pl_eq_push(PL_EQ(eq), &PL_EQ(eq)->err, e, owed)) {
		free(e->err_data);
		free(e);
		return -FI_EAGAIN;
	}
	return 0;
}

ssize_t pl_eq_write_error(struct fid_eq *eq, fid_t fid, void *context,
			  uint64_t data, int err, int prov_errno,
			  void *err_data, size_t err_data_size)
{
	return pl_eq_write_err_ent(eq, fid, context, data, err, prov_errno,
				   err_data, err_data_size, false);
}

ssize_t pl_eq_write_error_owed(struct fid_eq *eq, fid_t fid, void *context,
			       uint64_t data, int err, int prov_errno,
			       void *err_data, size_t err_data_size)
{
	return pl_eq_write_err_ent(eq, fid, context, data, err, prov_errno,
				   err_data, err_data_size, true);
}

static ssize_t pl_eq_read(struct fid_eq *feq, uint32_t *event, void *buf,
			  size_t len, uint64_t flags)
{
	struct pl_eq *q = PL_EQ(feq);
	struct pl_eq_ent *e;
	size_t n;
	ssize_t ret;

	/* Empty: no lock (a layered provider polls its core EQ every
	 * pass). Acquire: pairs with pl_eq_push's acq_rel increment, which
	 * follows the linking; a push racing with this read is ordered
	 * after it. */
	if (!pl_load_acquire(&q->count))
		return -FI_EAGAIN;
	pthread_mutex_lock(&q->lock);
	e = q->ev.head;
	if (q->err.head) {
		ret = -FI_EAVAIL;
	} else if (!e) {
		ret = -FI_EAGAIN;
	} else if (len && !buf) {
		ret = -FI_EINVAL;
	} else {
		/* CM events: the connection data beyond the header is cut to
		 * the caller's buffer (fi_eq(3)); other entries fit whole */
		n = e->len;
		if (pl_eq_is_cm(e->event) && len >= sizeof(struct fi_eq_cm_entry)
		    && len < n)
			n = len;
		if (len < n) {
			ret = -FI_ETOOSMALL;
			goto out;
		}
		if (event)
			*event = e->event;
		if (n)
			memcpy(buf, e->buf, n);
		ret = (ssize_t)n;
		if (!(flags & FI_PEEK))
			pl_eq_pop_locked(q, &q->ev);
	}
out:
	pthread_mutex_unlock(&q->lock);
	return ret;
}

static ssize_t pl_eq_readerr(struct fid_eq *feq, struct fi_eq_err_entry *buf,
			     uint64_t flags)
{
	struct pl_eq *q = PL_EQ(feq);
	struct pl_eq_ent *e;
	void *user_data;
	size_t user_size;

	if (!buf)
		return -FI_EINVAL;
	pthread_mutex_lock(&q->lock);
	e = q->err.head;
	if (!e) {
		pthread_mutex_unlock(&q->lock);
		return -FI_EAGAIN;
	}
	user_data = buf->err_data;
	user_size = buf->err_data_size;
	*buf = e->err;
	if (user_size && user_data) {
		/* the app gave a buffer: copy what fits */
		if (user_size > e->err.err_data_size)
			user_size = e->err.err_data_size;
		if (user_size)
			memcpy(user_data, e->err_data, user_size);
		buf->err_data = user_data;
		buf->err_data_size = user_size;
	} else {
		/* our copy stays valid until the next readerr or close */
		buf->err_data = e->err.err_data_size ? e->err_data : NULL;
	}
	if (!(flags & FI_PEEK))
		pl_eq_pop_locked(q, &q->err);
	pthread_mutex_unlock(&q->lock);
	return sizeof(*buf);
}

/* fi_eq_write: only on an EQ opened with FI_WRITE (fi_eq(3)) */
static ssize_t pl_eq_write(struct fid_eq *eq, uint32_t event, const void *buf,
			   size_t len, uint64_t flags)
{
	(void)flags;
	if (!(PL_EQ(eq)->flags & FI_WRITE))
		return -FI_EINVAL;
	return pl_eq_write_ent(eq, event, buf, len, true, false);
}

static int64_t pl_eq_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * fi_eq(3): the bytes read, -FI_EAVAIL for an error entry, -FI_EAGAIN
 * when the timeout expires or the wait is interrupted with nothing to
 * read, -FI_EINVAL on FI_WAIT_NONE / FI_WAIT_SET EQs.
 */
static ssize_t pl_eq_sread(struct fid_eq *eq, uint32_t *event, void *buf,
			   size_t len, int timeout, uint64_t flags)
{
	enum fi_wait_obj kind = pl_waitable_kind(&PL_EQ(eq)->w);
	int64_t deadline = pl_eq_now_ms() + timeout;
	ssize_t ret;
	int left = timeout;

	if (kind == FI_WAIT_NONE || kind == FI_WAIT_SET)
		return -FI_EINVAL;
	for (;;) {
		ret = pl_eq_read(eq, event, buf, len, flags);
		if (ret != -FI_EAGAIN)
			return ret;
		if (timeout >= 0) {
			left = (int)(deadline - pl_eq_now_ms());
			if (left < 0)
				return -FI_EAGAIN;
		}
		/* another reader may take the entry that ended the wait:
		 * then read again until the deadline */
		ret = pl_waitable_wait(&PL_EQ(eq)->w, left);
		if (ret == -FI_EINTR)
			return -FI_EAGAIN;
		if (ret && ret != -FI_EAGAIN)
			return ret;
	}
}

static const char *pl_eq_strerror(struct fid_eq *eq, int prov_errno,
				  const void *err_data, char *buf, size_t len)
{
	const char *s = fi_strerror(prov_errno < 0 ? -prov_errno : prov_errno);

	(void)eq; (void)err_data;
	if (buf && len) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = '\0';
		return buf;
	}
	return s;
}

static int pl_eq_close(struct fid *fid)
{
	struct pl_eq *q = (struct pl_eq *)fid;

	/* acquire: pairs with the acq_rel decrement in pl_eq_unref */
	if (pl_load_acquire(&q->refs) > 0)
		return -FI_EBUSY;
	pl_waitable_fini(&q->w);
	while (q->ev.head) {
		struct pl_eq_ent *e = q->ev.head;

		/* an unread connection request's fi_info would leak: the
		 * reader that owned it never came */
		if (e->owns_info)
			fi_freeinfo_1_3(((struct fi_eq_cm_entry *)
					 (void *)e->buf)->info);
		pl_eq_pop_locked(q, &q->ev);
	}
	while (q->err.head)
		pl_eq_pop_locked(q, &q->err);
	free(q->last_err_data);
	pthread_mutex_destroy(&q->lock);
	pl_fabric_obj_child_put(q->fabric);
	free(q);
	return 0;
}

static int pl_eq_control(struct fid *fid, int command, void *arg)
{
	return pl_waitable_control(&((struct pl_eq *)fid)->w, command, arg);
}

static struct fi_ops pl_eq_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_eq_close,
	.bind = pl_fid_nosys_bind,
	.control = pl_eq_control,
	.ops_open = pl_fid_nosys_ops_open,
	.tostr = pl_fid_nosys_tostr,
	.ops_set = pl_fid_nosys_ops_set,
};

static struct fi_ops_eq pl_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = pl_eq_read,
	.readerr = pl_eq_readerr,
	.write = pl_eq_write,
	.sread = pl_eq_sread,
	.strerror = pl_eq_strerror,
};

int pl_eq_open(struct fid_fabric *f, struct fi_eq_attr *attr,
	       struct fid_eq **eq_p, void *context)
{
	enum fi_wait_obj kind = attr ? attr->wait_obj : FI_WAIT_UNSPEC;
	struct pl_eq *q;
	int ret;

	if (!eq_p)
		return -FI_EINVAL;
	/* fi_peer(3): a provider without peer EQs fails FI_PEER with
	 * -FI_EINVAL rather than open an EQ the owner would never see
	 * (docs/peer.md) */
	if (attr && (attr->flags & FI_PEER))
		return -FI_EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -FI_ENOMEM;
	q->flags = attr ? attr->flags : 0;
	q->size = attr && attr->size ? attr->size : PL_EQ_DEFAULT_SIZE;
	pthread_mutex_init(&q->lock, NULL);
	ret = pl_waitable_init(&q->w, kind,
			       kind == FI_WAIT_SET ? attr->wait_set : NULL,
			       NULL, pl_eq_ready);
	if (ret)
		goto err_free;
	q->eq.fid.fclass = FI_CLASS_EQ;
	q->eq.fid.context = context;
	q->eq.fid.ops = &pl_eq_fid_ops;
	q->eq.ops = &pl_eq_ops;
	q->fabric = f;
	pl_fabric_obj_child_get(f);
	*eq_p = &q->eq;
	return 0;
err_free:
	pthread_mutex_destroy(&q->lock);
	free(q);
	return ret;
}

void pl_eq_ref(struct fid_eq *eq)
{
	/* acq_rel: pairs with the acquire load in close */
	if (pl_eq_waitable(eq))
		pl_fetch_add_acq_rel(&PL_EQ(eq)->refs, 1);
}

void pl_eq_unref(struct fid_eq *eq)
{
	/* acq_rel: the holder's last use happens before close's acquire */
	if (pl_eq_waitable(eq))
		pl_fetch_sub_acq_rel(&PL_EQ(eq)->refs, 1);
}

bool pl_eq_pending(struct fid_eq *eq)
{
	if (!eq || eq->fid.ops != &pl_eq_fid_ops)
		return true;
	return pl_eq_ready(&PL_EQ(eq)->w);
}

struct pl_waitable *pl_eq_waitable(struct fid_eq *eq)
{
	return eq && eq->fid.ops == &pl_eq_fid_ops ? &PL_EQ(eq)->w : NULL;
}

/* Remove from l every entry whose fid is fid; under q->lock. */
static size_t pl_eq_purge_list(struct pl_eq *q, struct pl_eq_list *l,
			       fid_t fid, bool errors)
{
	struct pl_eq_ent **pp = &l->head, *e, *prev = NULL;
	struct fi_eq_cm_entry *cm;
	size_t n = 0;
	fid_t owner;

	while ((e = *pp)) {
		if (errors) {
			owner = e->err.fid;
		} else if (e->event != FI_NOTIFY &&
			   e->len >= sizeof(fid_t)) {
			/* every entry but FI_NOTIFY starts with its fid
			 * (struct fi_eq_entry, struct fi_eq_cm_entry) */
			memcpy(&owner, e->buf, sizeof(owner));
		} else {
			owner = NULL;
		}
		if (owner != fid) {
			prev = e;
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		if (l->tail == e)
			l->tail = prev;
		if (!errors && e->event == FI_CONNREQ &&
		    e->len >= sizeof(*cm)) {
			/* the reader will never take this info */
			cm = (struct fi_eq_cm_entry *)e->buf;
			if (cm->info) {
				struct pl_connreq *req =
					pl_connreq_of(cm->info->handle);

				if (req)	/* its socket goes too */
					req->free_fn(req);
				cm->info->handle = NULL;
				fi_freeinfo_1_3(cm->info);
			}
		}
		/* acq_rel, under q->lock: as pl_eq_pop_locked */
		pl_fetch_sub_acq_rel(&q->count, 1);
		free(e->err_data);
		free(e);
		n++;
	}
	return n;
}

size_t pl_eq_purge_fid(struct fid_eq *eq, fid_t fid)
{
	struct pl_eq *q;
	size_t n;

	if (!pl_eq_waitable(eq) || !fid)
		return 0;
	q = PL_EQ(eq);
	pthread_mutex_lock(&q->lock);
	n = pl_eq_purge_list(q, &q->ev, fid, false);
	n += pl_eq_purge_list(q, &q->err, fid, true);
	pthread_mutex_unlock(&q->lock);
	return n;
}
