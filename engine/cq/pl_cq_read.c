/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The application side of the CQ (struct fi_ops_cq): read, readfrom,
 * readerr, sread, sreadfrom, signal, strerror. Layout and
 * synchronization: pl_cq_int.h; the wake-up protocol: pl_cq.c.
 *
 * Decisions where fi_cq(3) leaves room:
 *  - count 0: drives progress (manual mode) and returns 0, even with an
 *    error pending (fi_cq(3): "a count value of 0 may be used to drive
 *    progress"); buf NULL with count > 0 is -FI_EINVAL.
 *  - errors first: any read while an error entry is queued returns
 *    -FI_EAVAIL, even if successes were queued before it.
 *  - sread / sreadfrom / signal on an FI_WAIT_NONE CQ: -FI_ENOSYS (no
 *    wait object); sread on FI_WAIT_SET: -FI_EINVAL (fi_cq(3) forbids
 *    it: wait on the set with fi_wait). sread after fi_cq_signal, or on
 *    timeout, returns whatever can be read, else -FI_EAGAIN.
 *  - FI_CQ_COND_THRESHOLD (a hint, fi_cq(3)): sread sleeps until
 *    threshold entries are queued, an error is, the timeout expires or
 *    the CQ is signalled, and then returns what it can read (possibly
 *    fewer). A threshold of 0 counts as 1; cond is ignored with
 *    FI_CQ_COND_NONE, and NULL cond means no threshold.
 *  - readerr flags must be 0 (-FI_EBADFLAGS otherwise).
 *  - a read with count > 0 drives progress only when the CQ is empty
 *    (see pl_cq_read_common), as the reference's CQs do.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_errno.h>

#include "pl_cq.h"
#include "pl_cq_int.h"
#include "pl_domain.h"
#include "pl_progress.h"

/* Entries taken per dequeue into the stack buffer before conversion. */
#define PL_CQ_READ_CHUNK 32

static void pl_cq_convert(const struct pl_cq *cq, const struct pl_cq_ent *e,
			  size_t n, void *buf, fi_addr_t *src_addr)
{
	size_t i;

	switch (cq->format) {
	case FI_CQ_FORMAT_MSG: {
		struct fi_cq_msg_entry *o = buf;

		for (i = 0; i < n; i++) {
			o[i].op_context = e[i].op_context;
			o[i].flags = e[i].flags;
			o[i].len = e[i].len;
		}
		break;
	}
	case FI_CQ_FORMAT_DATA: {
		struct fi_cq_data_entry *o = buf;

		for (i = 0; i < n; i++) {
			o[i].op_context = e[i].op_context;
			o[i].flags = e[i].flags;
			o[i].len = e[i].len;
			o[i].buf = e[i].buf;
			o[i].data = e[i].data;
		}
		break;
	}
	case FI_CQ_FORMAT_TAGGED: {
		struct fi_cq_tagged_entry *o = buf;

		/* same field order: the entry minus src_addr */
		for (i = 0; i < n; i++)
			memcpy(&o[i], &e[i], sizeof(o[i]));
		break;
	}
	default: {
		struct fi_cq_entry *o = buf;

		for (i = 0; i < n; i++)
			o[i].op_context = e[i].op_context;
		break;
	}
	}
	if (src_addr)
		for (i = 0; i < n; i++)
			src_addr[i] = e[i].src_addr;
}

static size_t pl_cq_entry_size(const struct pl_cq *cq)
{
	switch (cq->format) {
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	case FI_CQ_FORMAT_TAGGED:
		return sizeof(struct fi_cq_tagged_entry);
	default:
		return sizeof(struct fi_cq_entry);
	}
}

/* Up to count entries of a serial CQ that has some, one at a time,
 * copied inline (pl_spillq.h): a ping-pong reads one, and the burst
 * path's stack buffer and run-time-sized copies cost more than the
 * entries. */
static PL_NOINLINE ssize_t pl_cq_read_serial(struct pl_cq *cq, void *buf,
					     size_t count, fi_addr_t *src_addr)
{
	size_t esz = pl_cq_entry_size(cq), n = 0;
	struct pl_cq_ent e;

	while (n < count &&
	       __pl_spillq_dequeue_sized(&cq->q, &e, sizeof(e)) == 0) {
		pl_cq_convert(cq, &e, 1, (char *)buf + n * esz,
			      src_addr ? src_addr + n : NULL);
		n++;
	}
	return n ? (ssize_t)n : -FI_EAGAIN;
}

/* Up to count entries of a concurrent CQ that has some, in bursts. */
static PL_NOINLINE ssize_t pl_cq_read_burst(struct pl_cq *cq, void *buf,
					    size_t count, fi_addr_t *src_addr)
{
	struct pl_cq_ent tmp[PL_CQ_READ_CHUNK];
	size_t esz = pl_cq_entry_size(cq), n = 0;
	ssize_t k;

	while (n < count) {
		size_t want = count - n;

		if (want > PL_CQ_READ_CHUNK)
			want = PL_CQ_READ_CHUNK;
		k = cq->deq(&cq->q, tmp, want);
		if (k <= 0)
			break;
		pl_cq_convert(cq, tmp, (size_t)k, (char *)buf + n * esz,
			      src_addr ? src_addr + n : NULL);
		n += (size_t)k;
		if ((size_t)k < want)
			break;
	}
	return n ? (ssize_t)n : -FI_EAGAIN;
}

static ssize_t pl_cq_read_common(struct pl_cq *cq, void *buf, size_t count,
				 fi_addr_t *src_addr)
{
	if (count && !buf)
		return -FI_EINVAL;
	/* E2: acquire, pairs with E1 in pl_cq_write_err */
	if (PL_UNLIKELY(count && pl_load_acquire(&cq->err_count)))
		return -FI_EAVAIL;
	/* Progress runs when the CQ has nothing to give (or for count 0):
	 * a read that finds entries returns them without a pass, as the
	 * reference's CQs do. An application that polls its TX and its RX
	 * CQ in turn would otherwise pay a full pass (about 250
	 * instructions on shm) between the pass that wrote its receive
	 * completion and the read that returns it. Progress is not starved
	 * by this: in manual mode the CQ fills only during a pass, so it
	 * empties after a bounded number of reads.
	 *
	 * Both modes drive the domain's sources: manual progress needs it,
	 * and under auto progress an application polling its CQ does the
	 * work itself while the thread backs off (docs/progress.md,
	 * "Back-off while the application polls"); without it a thread
	 * sharing the application's core answers only at the scheduler's
	 * pace (shm 8 B ping-pong: ~200 us, S3). cq->ctx (manual only) is
	 * the same context. The emptiness test is a hint (pl_spillq.h):
	 * an entry still being written counts as present, and its read
	 * then returns -FI_EAGAIN without a pass; the next one has it. */
	if (!count || pl_spillq_empty_approx(&cq->q)) {
		if (cq->dom->ctx)
			pl_progress_ctx_poll(cq->dom->ctx);
		if (!count)
			return 0;
		/* E2, as above: the pass may have queued an error */
		if (PL_UNLIKELY(pl_load_acquire(&cq->err_count)))
			return -FI_EAVAIL;
		if (pl_spillq_empty_approx(&cq->q))
			return -FI_EAGAIN;
	}
	/* out of line, both: an empty read (the spinning poller's) pays
	 * for neither's frame */
	if (cq->serial)
		return pl_cq_read_serial(cq, buf, count, src_addr);
	return pl_cq_read_burst(cq, buf, count, src_addr);
}

static struct pl_cq *pl_cq_app(struct fid_cq *cq)
{
	/* the ops table is ours, so cq is a pl_cq unless the application
	 * passes a NULL or a foreign fid, which we refuse */
	if (!cq || cq->fid.fclass != FI_CLASS_CQ)
		return NULL;
	return pl_cq_of(cq);
}

ssize_t pl_cq_read(struct fid_cq *fcq, void *buf, size_t count)
{
	struct pl_cq *cq = pl_cq_app(fcq);

	if (!cq)
		return -FI_EINVAL;
	return pl_cq_read_common(cq, buf, count, NULL);
}

ssize_t pl_cq_readfrom(struct fid_cq *fcq, void *buf, size_t count,
		       fi_addr_t *src_addr)
{
	struct pl_cq *cq = pl_cq_app(fcq);

	if (!cq || (count && !src_addr))
		return -FI_EINVAL;
	return pl_cq_read_common(cq, buf, count, src_addr);
}

ssize_t pl_cq_readerr(struct fid_cq *fcq, struct fi_cq_err_entry *buf,
		      uint64_t flags)
{
	struct pl_cq *cq = pl_cq_app(fcq);
	struct pl_cq_err_ent *e;
	void *user_data;
	size_t user_size, n;

	if (!cq || !buf)
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	if (cq->ctx)
		pl_progress_ctx_poll(cq->ctx);
	/* E2 */
	if (!pl_load_acquire(&cq->err_count))
		return -FI_EAGAIN;
	pthread_mutex_lock(&cq->err_lock);
	e = cq->err_head;
	if (!e) {
		/* another reader took it */
		pthread_mutex_unlock(&cq->err_lock);
		return -FI_EAGAIN;
	}
	cq->err_head = e->next;
	if (!cq->err_head)
		cq->err_tail = NULL;
	/* E3, under err_lock like the list: acq_rel, so that a reader's E2
	 * acquire that sees the lower count also sees the entry gone; the
	 * list itself is ordered by err_lock. */
	pl_fetch_sub_acq_rel(&cq->err_count, 1);
	/* the data handed out before stays valid until now */
	free(cq->err_hold);
	cq->err_hold = e;

	if (cq->api_version < FI_VERSION(1, 5)) {
		/* the 1.4 struct ends at err_data: never write past it;
		 * err_data is ours (the input is ignored) */
		memcpy(buf, &e->err, offsetof(struct fi_cq_err_entry,
					      err_data_size));
	} else {
		user_data = buf->err_data;
		user_size = buf->err_data_size;
		*buf = e->err;
		if (user_size && user_data) {
			n = e->err.err_data_size < user_size ?
			    e->err.err_data_size : user_size;
			if (n)
				memcpy(user_data, e->err.err_data, n);
			buf->err_data = user_data;
			buf->err_data_size = n;
		}
		/* else: err_data points at our copy (kept in err_hold
		 * until the next readerr or close) */
	}
	pthread_mutex_unlock(&cq->err_lock);
	return 1;
}

static int64_t pl_cq_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static ssize_t pl_cq_sread_common(struct fid_cq *fcq, void *buf, size_t count,
				  fi_addr_t *src_addr, const void *cond,
				  int timeout)
{
	struct pl_cq *cq = pl_cq_app(fcq);
	size_t thresh = 1;
	int64_t deadline = 0, left;
	ssize_t ret;
	int wret;

	if (!cq)
		return -FI_EINVAL;
	if (cq->wait_obj == FI_WAIT_NONE)
		return -FI_ENOSYS;
	if (cq->wait_obj == FI_WAIT_SET)
		return -FI_EINVAL;
	if (cq->wait_cond == FI_CQ_COND_THRESHOLD && cond)
		thresh = *(const size_t *)cond;
	if (!thresh)
		thresh = 1;
	if (timeout >= 0)
		deadline = pl_cq_now_ms() + timeout;
	for (;;) {
		if (thresh == 1 || !count || pl_cq_count_approx(cq) >= thresh ||
		    pl_load_acquire(&cq->err_count)) {
			ret = pl_cq_read_common(cq, buf, count, src_addr);
			if (ret != -FI_EAGAIN)
				return ret;
		}
		left = -1;
		if (timeout >= 0) {
			left = deadline - pl_cq_now_ms();
			if (left <= 0)
				break;
		}
		wret = pl_waitable_wait_until(&cq->w, (int)left,
					      pl_cq_wait_pred, &thresh);
		if (wret == -FI_EINTR || wret == -FI_EAGAIN)
			break;	/* signalled or timed out */
		if (wret)
			return wret;
		/* ready: read at the top (another reader may win it) */
	}
	return pl_cq_read_common(cq, buf, count, src_addr);
}

ssize_t pl_cq_sread(struct fid_cq *cq, void *buf, size_t count,
		    const void *cond, int timeout)
{
	return pl_cq_sread_common(cq, buf, count, NULL, cond, timeout);
}

ssize_t pl_cq_sreadfrom(struct fid_cq *cq, void *buf, size_t count,
			fi_addr_t *src_addr, const void *cond, int timeout)
{
	if (count && !src_addr)
		return -FI_EINVAL;
	return pl_cq_sread_common(cq, buf, count, src_addr, cond, timeout);
}

int pl_cq_signal(struct fid_cq *fcq)
{
	struct pl_cq *cq = pl_cq_app(fcq);

	if (!cq)
		return -FI_EINVAL;
	if (cq->wait_obj == FI_WAIT_NONE)
		return -FI_ENOSYS;
	pl_waitable_interrupt(&cq->w);
	return 0;
}

const char *pl_cq_strerror(struct fid_cq *cq, int prov_errno,
			   const void *err_data, char *buf, size_t len)
{
	const char *s = fi_strerror(prov_errno < 0 ? -prov_errno : prov_errno);

	(void)cq;
	(void)err_data;
	if (buf && len) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = '\0';
		return buf;
	}
	return s;
}
