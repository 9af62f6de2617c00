/* SPDX-License-Identifier: BSD-2-Clause */
#include "pl_eq.h"
#include "pl_waitable.h"
#include "pl_atomic.h"
#include "pl_fid_nosys.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/*
 * Entries are a FIFO list under `lock` (any thread writes, any thread
 * reads). `count` mirrors the list length: release after the insert,
 * pairs with the acquire in pl_eq_ready (lock-free readiness for trywait).
 * `refs`: acq_rel, pairs with the acquire load in close.
 */
struct pl_eq_ent {
	struct pl_eq_ent *next;
	uint32_t event;
	bool is_err;
	size_t len;
	struct fi_eq_err_entry err;
	void *err_data;		/* owned copy, for readerr */
	char buf[];
};

struct pl_eq {
	struct fid_eq eq;
	struct pl_waitable w;
	pthread_mutex_t lock;
	struct pl_eq_ent *head, *tail;	/* under lock */
	void *last_err_data;		/* under lock: kept for the app */
	_Atomic size_t count;
	_Atomic int refs;
};

#define PL_EQ(e) ((struct pl_eq *)(e))

static bool pl_eq_ready(struct pl_waitable *w)
{
	struct pl_eq *q = (struct pl_eq *)((char *)w -
					   offsetof(struct pl_eq, w));

	return pl_load_acquire(&q->count) > 0;
}

static ssize_t pl_eq_push(struct pl_eq *q, struct pl_eq_ent *e)
{
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	/* release: pairs with the acquire in pl_eq_ready */
	pl_fetch_add_acq_rel(&q->count, 1);
	pthread_mutex_unlock(&q->lock);
	pl_waitable_signal(&q->w);
	return 0;
}

static void pl_eq_pop_locked(struct pl_eq *q)
{
	struct pl_eq_ent *e = q->head;

	q->head = e->next;
	if (!q->head)
		q->tail = NULL;
	pl_fetch_sub_acq_rel(&q->count, 1);
	if (e->is_err) {
		free(q->last_err_data);
		q->last_err_data = e->err_data;
	}
	free(e);
}

ssize_t pl_eq_write_event(struct fid_eq *eq, uint32_t event,
			  const void *buf, size_t len, uint64_t flags)
{
	struct pl_eq_ent *e;

	(void)flags;
	if (len && !buf)
		return -FI_EINVAL;
	e = calloc(1, sizeof(*e) + len);
	if (!e)
		return -FI_ENOMEM;
	e->event = event;
	e->len = len;
	if (len)
		memcpy(e->buf, buf, len);
	pl_eq_push(PL_EQ(eq), e);
	return (ssize_t)len;
}

ssize_t pl_eq_write_error(struct fid_eq *eq, fid_t fid, void *context,
			  uint64_t data, int err, int prov_errno,
			  void *err_data, size_t err_data_size)
{
	struct pl_eq_ent *e = calloc(1, sizeof(*e));

	if (!e)
		return -FI_ENOMEM;
	e->is_err = true;
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
	pl_eq_push(PL_EQ(eq), e);
	return 0;
}

static ssize_t pl_eq_read(struct fid_eq *feq, uint32_t *event, void *buf,
			  size_t len, uint64_t flags)
{
	struct pl_eq *q = PL_EQ(feq);
	struct pl_eq_ent *e;
	ssize_t ret;

	pthread_mutex_lock(&q->lock);
	e = q->head;
	if (!e) {
		ret = -FI_EAGAIN;
	} else if (e->is_err) {
		ret = -FI_EAVAIL;
	} else if (len < e->len || (e->len && !buf)) {
		ret = -FI_ETOOSMALL;
	} else {
		if (event)
			*event = e->event;
		if (e->len)
			memcpy(buf, e->buf, e->len);
		ret = (ssize_t)e->len;
		if (!(flags & FI_PEEK))
			pl_eq_pop_locked(q);
	}
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
	e = q->head;
	if (!e || !e->is_err) {
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
		pl_eq_pop_locked(q);
	pthread_mutex_unlock(&q->lock);
	return sizeof(*buf);
}

static ssize_t pl_eq_write(struct fid_eq *eq, uint32_t event, const void *buf,
			   size_t len, uint64_t flags)
{
	return pl_eq_write_event(eq, event, buf, len, flags);
}

static ssize_t pl_eq_sread(struct fid_eq *eq, uint32_t *event, void *buf,
			   size_t len, int timeout, uint64_t flags)
{
	ssize_t ret;

	if (pl_waitable_kind(&PL_EQ(eq)->w) == FI_WAIT_NONE)
		return -FI_EINVAL;
	ret = pl_eq_read(eq, event, buf, len, flags);
	if (ret != -FI_EAGAIN)
		return ret;
	ret = pl_waitable_wait(&PL_EQ(eq)->w, timeout);
	if (ret)
		return ret;
	return pl_eq_read(eq, event, buf, len, flags);
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
	while (q->head)
		pl_eq_pop_locked(q);
	free(q->last_err_data);
	pl_waitable_fini(&q->w);
	pthread_mutex_destroy(&q->lock);
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

	(void)f;
	if (!eq_p)
		return -FI_EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -FI_ENOMEM;
	ret = pl_waitable_init(&q->w, kind,
			       kind == FI_WAIT_SET ? attr->wait_set : NULL,
			       NULL, pl_eq_ready);
	if (ret)
		goto err_free;
	pthread_mutex_init(&q->lock, NULL);
	q->eq.fid.fclass = FI_CLASS_EQ;
	q->eq.fid.context = context;
	q->eq.fid.ops = &pl_eq_fid_ops;
	q->eq.ops = &pl_eq_ops;
	*eq_p = &q->eq;
	return 0;
err_free:
	free(q);
	return ret;
}

void pl_eq_ref(struct fid_eq *eq)
{
	pl_fetch_add_acq_rel(&PL_EQ(eq)->refs, 1);
}

void pl_eq_unref(struct fid_eq *eq)
{
	pl_fetch_sub_acq_rel(&PL_EQ(eq)->refs, 1);
}

struct pl_waitable *pl_eq_waitable(struct fid_eq *eq)
{
	return eq->fid.ops == &pl_eq_fid_ops ? &PL_EQ(eq)->w : NULL;
}
