/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine CQ (engine/include/pl_cq.h): formats, readfrom, errors and
 * err_data semantics, overflow order, sread (timeout, threshold,
 * signal, wake-up), wait objects through fi_control, fi_trywait with
 * epoll, manual progress, references, peer owner ops, bad input. The
 * domain is a bare pl_domain, embedded as a provider does. */
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext.h>

#include "pl_cq.h"
#include "pl_cq_int.h"
#include "pl_domain.h"
#include "pl_progress.h"
#include "pl_trywait.h"
#include "pl_waitable.h"

static struct pl_domain *open_dom_v(enum fi_progress prog,
				    enum fi_threading th, uint32_t api)
{
	static struct fi_domain_attr da;
	static struct fi_info info;
	struct pl_domain *dom = calloc(1, sizeof(*dom));

	assert_non_null(dom);
	da.data_progress = prog;
	da.threading = th;
	da.mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
		     FI_MR_PROV_KEY;
	info.domain_attr = &da;
	assert_int_equal(pl_domain_init(dom, NULL, &info, api,
					FI_MR_VIRT_ADDR, NULL), 0);
	return dom;
}

static struct pl_domain *open_dom(enum fi_progress prog,
				  enum fi_threading th)
{
	return open_dom_v(prog, th, FI_VERSION(1, 17));
}

static struct fid_cq *open_cq(struct pl_domain *dom, enum fi_cq_format fmt,
			      enum fi_wait_obj wait, size_t size)
{
	struct fi_cq_attr attr = {
		.size = size, .format = fmt, .wait_obj = wait,
	};
	struct fid_cq *cq = NULL;

	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL), 0);
	assert_non_null(cq);
	return cq;
}

static void close_all(struct fid_cq *cq, struct pl_domain *dom)
{
	assert_int_equal(fi_close(&cq->fid), 0);
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

/* Writes one completion with every field set from k. */
static void put(struct fid_cq *cq, uintptr_t k)
{
	assert_int_equal(pl_cq_write(cq, (void *)(0x1000 + k), FI_RECV | FI_MSG,
				     100 + k, (void *)(0x2000 + k), 300 + k,
				     400 + k, 500 + k), 0);
}

/* ---- formats ---- */

static void check_formats(enum fi_threading th)
{
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, th);
	unsigned char raw[256];
	static const enum fi_cq_format fmts[] = {
		FI_CQ_FORMAT_UNSPEC, FI_CQ_FORMAT_CONTEXT, FI_CQ_FORMAT_MSG,
		FI_CQ_FORMAT_DATA, FI_CQ_FORMAT_TAGGED,
	};
	static const size_t sizes[] = {
		sizeof(struct fi_cq_entry), sizeof(struct fi_cq_entry),
		sizeof(struct fi_cq_msg_entry), sizeof(struct fi_cq_data_entry),
		sizeof(struct fi_cq_tagged_entry),
	};
	size_t i, j;

	for (i = 0; i < 5; i++) {
		struct fid_cq *cq = open_cq(dom, fmts[i], FI_WAIT_NONE, 0);
		struct fi_cq_tagged_entry *t = (void *)raw;

		put(cq, 7);
		memset(raw, 0xa5, sizeof(raw));
		assert_int_equal(fi_cq_read(cq, raw, 1), 1);
		assert_ptr_equal(t->op_context, (void *)0x1007);
		if (fmts[i] >= FI_CQ_FORMAT_MSG) {
			assert_int_equal(t->flags, FI_RECV | FI_MSG);
			assert_int_equal(t->len, 107);
		}
		if (fmts[i] >= FI_CQ_FORMAT_DATA) {
			assert_ptr_equal(t->buf, (void *)0x2007);
			assert_int_equal(t->data, 307);
		}
		if (fmts[i] == FI_CQ_FORMAT_TAGGED)
			assert_int_equal(t->tag, 407);
		/* nothing written past one entry of the format */
		for (j = sizes[i]; j < sizeof(raw); j++)
			assert_int_equal(raw[j], 0xa5);
		assert_int_equal(fi_cq_read(cq, raw, 1), -FI_EAGAIN);
		assert_int_equal(fi_close(&cq->fid), 0);
	}
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

static void test_formats_safe(void **state)
{
	(void)state;
	check_formats(FI_THREAD_SAFE);
}

static void test_formats_domain(void **state)
{
	(void)state;
	check_formats(FI_THREAD_DOMAIN);
}

static void test_batch_and_readfrom(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_MSG, FI_WAIT_NONE, 0);
	struct fi_cq_msg_entry e[8];
	fi_addr_t src[8];
	uintptr_t k;

	for (k = 0; k < 5; k++)
		put(cq, k);
	assert_int_equal(fi_cq_readfrom(cq, e, 3, src), 3);
	for (k = 0; k < 3; k++) {
		assert_ptr_equal(e[k].op_context, (void *)(0x1000 + k));
		assert_int_equal(src[k], 500 + k);
	}
	/* asks 8, gets the 2 left */
	assert_int_equal(fi_cq_readfrom(cq, e, 8, src), 2);
	assert_int_equal(src[1], 504);
	assert_int_equal(fi_cq_readfrom(cq, e, 8, src), -FI_EAGAIN);
	close_all(cq, dom);
}

/* More entries than the ring holds, in one burst: none lost, in order. */
/* 1000 completions through a ring of 4: the overflow keeps them all, in
 * order, in each queue mode the CQ can pick (serial: FI_THREAD_DOMAIN
 * with manual progress, where no write can race a read). */
static void check_overflow_order(enum fi_progress prog, enum fi_threading th,
				 bool serial)
{
	struct pl_domain *dom = open_dom(prog, th);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_NONE, 4);
	struct fi_cq_entry e[7];
	uintptr_t k, next = 0;
	ssize_t n, i;

	assert_int_equal(pl_cq_of(cq)->serial, serial);

	for (k = 0; k < 1000; k++)
		put(cq, k);
	while ((n = fi_cq_read(cq, e, 7)) > 0) {
		for (i = 0; i < n; i++)
			assert_ptr_equal(e[i].op_context,
					 (void *)(0x1000 + next++));
		/* interleave writes while the overflow drains */
		if (next < 500) {
			put(cq, k);
			k++;
		}
	}
	assert_int_equal(n, -FI_EAGAIN);
	assert_int_equal(next, k);
	close_all(cq, dom);
}

static void test_overflow_order(void **state)
{
	(void)state;
	check_overflow_order(FI_PROGRESS_MANUAL, FI_THREAD_SAFE, false);
	check_overflow_order(FI_PROGRESS_MANUAL, FI_THREAD_COMPLETION, false);
	check_overflow_order(FI_PROGRESS_AUTO, FI_THREAD_DOMAIN, false);
	check_overflow_order(FI_PROGRESS_MANUAL, FI_THREAD_DOMAIN, true);
}

/* ---- errors ---- */

static void write_err(struct fid_cq *cq, int err, void *data, size_t len)
{
	struct fi_cq_err_entry e = {
		.op_context = (void *)0x77, .flags = FI_SEND, .err = err,
		.prov_errno = 12, .err_data = data, .err_data_size = len,
	};

	assert_int_equal(pl_cq_write_err(cq, &e, FI_ADDR_NOTAVAIL), 0);
}

static void test_eavail_errors_first(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_NONE, 0);
	struct fi_cq_err_entry ee;
	struct fi_cq_entry e;
	fi_addr_t src;

	assert_int_equal(fi_cq_readerr(cq, &ee, 0), -FI_EAGAIN);
	put(cq, 1);
	write_err(cq, FI_ECANCELED, NULL, 0);
	/* the error is pending: every read says so, successes wait */
	assert_int_equal(fi_cq_read(cq, &e, 1), -FI_EAVAIL);
	assert_int_equal(fi_cq_readfrom(cq, &e, 1, &src), -FI_EAVAIL);
	memset(&ee, 0, sizeof(ee));
	assert_int_equal(fi_cq_readerr(cq, &ee, 0), 1);
	assert_int_equal(ee.err, FI_ECANCELED);
	assert_int_equal(ee.prov_errno, 12);
	assert_ptr_equal(ee.op_context, (void *)0x77);
	assert_null(ee.err_data);
	assert_int_equal(ee.err_data_size, 0);
	assert_int_equal(fi_cq_readerr(cq, &ee, 0), -FI_EAGAIN);
	assert_int_equal(fi_cq_read(cq, &e, 1), 1);
	assert_ptr_equal(e.op_context, (void *)0x1001);
	close_all(cq, dom);
}

static void test_err_data_semantics(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_NONE, 0);
	char data[16] = "0123456789abcde", mine[8], big[32];
	struct fi_cq_err_entry ee;

	write_err(cq, FI_EIO, data, sizeof(data));
	write_err(cq, FI_EIO, data, sizeof(data));
	write_err(cq, FI_EIO, data, sizeof(data));
	data[0] = 'X';	/* the CQ copied it */

	/* 1.5+: a caller buffer is filled up to its size */
	memset(&ee, 0, sizeof(ee));
	ee.err_data = mine;
	ee.err_data_size = sizeof(mine);
	assert_int_equal(fi_cq_readerr(cq, &ee, 0), 1);
	assert_ptr_equal(ee.err_data, mine);
	assert_int_equal(ee.err_data_size, sizeof(mine));
	assert_memory_equal(mine, "01234567", 8);

	memset(&ee, 0, sizeof(ee));
	ee.err_data = big;
	ee.err_data_size = sizeof(big);
	assert_int_equal(fi_cq_readerr(cq, &ee, 0), 1);
	assert_int_equal(ee.err_data_size, 16);
	assert_memory_equal(big, "0123456789abcde", 16);

	/* size 0: the CQ's own copy, valid until the next readerr */
	memset(&ee, 0, sizeof(ee));
	ee.err_data = big;
	assert_int_equal(fi_cq_readerr(cq, &ee, 0), 1);
	assert_non_null(ee.err_data);
	assert_ptr_not_equal(ee.err_data, big);
	assert_int_equal(ee.err_data_size, 16);
	assert_memory_equal(ee.err_data, "0123456789abcde", 16);
	close_all(cq, dom);
}

/* API 1.4: the application's struct ends before err_data_size; the CQ
 * must not write there, and err_data is always the CQ's copy. */
static void test_err_data_old_api(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom_v(FI_PROGRESS_MANUAL, FI_THREAD_SAFE,
					   FI_VERSION(1, 4));
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_NONE, 0);
	char data[4] = "abc", mine[4] = "zzz";
	struct fi_cq_err_entry ee;

	write_err(cq, FI_EIO, data, sizeof(data));
	memset(&ee, 0, sizeof(ee));
	ee.err_data = mine;
	ee.err_data_size = 0x5a5a;	/* past the 1.4 struct: untouched */
	assert_int_equal(fi_cq_readerr(cq, &ee, 0), 1);
	assert_int_equal(ee.err, FI_EIO);
	assert_int_equal(ee.err_data_size, 0x5a5a);
	assert_ptr_not_equal(ee.err_data, mine);
	assert_memory_equal(ee.err_data, "abc", 4);
	assert_memory_equal(mine, "zzz", 4);
	close_all(cq, dom);
}

/* ---- blocking reads ---- */

static void test_sread_timeout(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_UNSPEC,
				    0);
	struct fi_cq_entry e;

	assert_int_equal(fi_cq_sread(cq, &e, 1, NULL, 0), -FI_EAGAIN);
	assert_int_equal(fi_cq_sread(cq, &e, 1, NULL, 20), -FI_EAGAIN);
	put(cq, 3);
	assert_int_equal(fi_cq_sread(cq, &e, 1, NULL, 20), 1);
	assert_ptr_equal(e.op_context, (void *)0x1003);
	write_err(cq, FI_EIO, NULL, 0);
	assert_int_equal(fi_cq_sread(cq, &e, 1, NULL, -1), -FI_EAVAIL);
	close_all(cq, dom);
}

struct writer_arg {
	struct fid_cq *cq;
	unsigned n;
	unsigned delay_us;
};

static void *writer(void *p)
{
	struct writer_arg *a = p;
	unsigned i;

	for (i = 0; i < a->n; i++) {
		usleep(a->delay_us);
		put(a->cq, i);
	}
	return NULL;
}

/* A thread blocked in sread is woken by a write from another thread. */
static void check_sread_wakeup(enum fi_wait_obj wait, enum fi_progress prog)
{
	struct pl_domain *dom = open_dom(prog, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, wait, 0);
	struct writer_arg a = { .cq = cq, .n = 3, .delay_us = 2000 };
	struct fi_cq_entry e;
	pthread_t t;
	unsigned got = 0;
	ssize_t n;

	assert_int_equal(pthread_create(&t, NULL, writer, &a), 0);
	while (got < 3) {
		n = fi_cq_sread(cq, &e, 1, NULL, -1);
		assert_int_equal(n, 1);
		assert_ptr_equal(e.op_context, (void *)(uintptr_t)(0x1000 + got));
		got++;
	}
	pthread_join(t, NULL);
	close_all(cq, dom);
}

static void test_sread_wakeup_kinds(void **state)
{
	(void)state;
	check_sread_wakeup(FI_WAIT_UNSPEC, FI_PROGRESS_MANUAL);
	check_sread_wakeup(FI_WAIT_FD, FI_PROGRESS_MANUAL);
	check_sread_wakeup(FI_WAIT_POLLFD, FI_PROGRESS_MANUAL);
	check_sread_wakeup(FI_WAIT_MUTEX_COND, FI_PROGRESS_MANUAL);
	check_sread_wakeup(FI_WAIT_YIELD, FI_PROGRESS_MANUAL);
	check_sread_wakeup(FI_WAIT_UNSPEC, FI_PROGRESS_AUTO);
	check_sread_wakeup(FI_WAIT_FD, FI_PROGRESS_AUTO);
}

static void test_sread_threshold(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fi_cq_attr attr = {
		.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_UNSPEC,
		.wait_cond = FI_CQ_COND_THRESHOLD,
	};
	struct fid_cq *cq;
	struct writer_arg a;
	struct fi_cq_entry e[10];
	size_t thresh = 5;
	pthread_t t;

	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL), 0);
	/* five entries, one at a time: sread returns once all 5 are in */
	a = (struct writer_arg){ .cq = cq, .n = 5, .delay_us = 1000 };
	assert_int_equal(pthread_create(&t, NULL, writer, &a), 0);
	assert_int_equal(fi_cq_sread(cq, e, 10, &thresh, -1), 5);
	pthread_join(t, NULL);
	/* below the threshold at the timeout: what there is */
	put(cq, 0);
	put(cq, 1);
	assert_int_equal(fi_cq_sread(cq, e, 10, &thresh, 10), 2);
	assert_int_equal(fi_cq_sread(cq, e, 10, &thresh, 10), -FI_EAGAIN);
	close_all(cq, dom);
}

static void *sread_forever(void *p)
{
	struct fi_cq_entry e;

	return (void *)(intptr_t)fi_cq_sread(p, &e, 1, NULL, -1);
}

static void test_signal(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_UNSPEC,
				    0);
	void *ret;
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, sread_forever, cq), 0);
	usleep(10000);
	/* whether the reader is asleep yet or not, it returns -FI_EAGAIN */
	assert_int_equal(fi_cq_signal(cq), 0);
	pthread_join(t, &ret);
	assert_int_equal((intptr_t)ret, -FI_EAGAIN);
	close_all(cq, dom);
}

/* ---- wait objects ---- */

static void test_wait_objects_control(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_AUTO, FI_THREAD_SAFE);
	struct fi_wait_pollfd pfd = { 0 };
	struct fi_mutex_cond mc = { 0 };
	enum fi_wait_obj k;
	struct fid_cq *cq;
	struct fi_cq_entry e;
	struct pollfd pf[2];
	int fd = -1;

	cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_NONE, 0);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAIT, &fd), -FI_EINVAL);
	assert_int_equal(fi_cq_sread(cq, &e, 1, NULL, 0), -FI_ENOSYS);
	assert_int_equal(fi_cq_signal(cq), -FI_ENOSYS);
	assert_int_equal(fi_control(&cq->fid, 12345, &fd), -FI_ENOSYS);
	assert_int_equal(fi_close(&cq->fid), 0);

	cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_UNSPEC, 0);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAITOBJ, &k), 0);
	assert_int_equal(k, FI_WAIT_MUTEX_COND);
	assert_int_equal(fi_close(&cq->fid), 0);

	cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_FD, 0);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAITOBJ, &k), 0);
	assert_int_equal(k, FI_WAIT_FD);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAIT, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAIT, NULL), -FI_EINVAL);
	assert_int_equal(fi_close(&cq->fid), 0);

	cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_POLLFD, 0);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAITOBJ, &k), 0);
	assert_int_equal(k, FI_WAIT_POLLFD);
	pfd.nfds = 0;
	assert_int_equal(fi_control(&cq->fid, FI_GETWAIT, &pfd), -FI_ETOOSMALL);
	assert_true(pfd.nfds >= 1 && pfd.nfds <= 2);
	pfd.fd = pf;
	pfd.nfds = 2;
	assert_int_equal(fi_control(&cq->fid, FI_GETWAIT, &pfd), 0);
	assert_true(pf[0].fd >= 0);
	assert_int_equal(fi_close(&cq->fid), 0);

	cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_MUTEX_COND, 0);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAITOBJ, &k), 0);
	assert_int_equal(k, FI_WAIT_MUTEX_COND);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAIT, &mc), 0);
	assert_non_null(mc.mutex);
	assert_non_null(mc.cond);
	assert_int_equal(fi_close(&cq->fid), 0);

	cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_YIELD, 0);
	assert_int_equal(fi_control(&cq->fid, FI_GETWAITOBJ, &k), 0);
	assert_int_equal(k, FI_WAIT_YIELD);
	assert_int_equal(fi_cq_sread(cq, &e, 1, NULL, 5), -FI_EAGAIN);
	assert_int_equal(fi_close(&cq->fid), 0);

	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

static int epoll_ready(int epfd)
{
	struct epoll_event ev;

	return epoll_wait(epfd, &ev, 1, 0);
}

/* The fi_trywait protocol on FI_WAIT_FD: 0 only when empty; a write
 * after a successful trywait makes the fd readable; a write that no
 * waiter armed for does not touch it (no system call per completion). */
static void check_trywait_epoll(enum fi_progress prog)
{
	struct pl_domain *dom = open_dom(prog, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_FD, 0);
	struct epoll_event ev = { .events = EPOLLIN };
	struct fid *f = &cq->fid;
	struct fi_cq_entry e;
	int fd, epfd;

	assert_int_equal(fi_control(&cq->fid, FI_GETWAIT, &fd), 0);
	epfd = epoll_create1(0);
	assert_true(epfd >= 0);
	assert_int_equal(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);

	/* unarmed: the write leaves the fd alone */
	put(cq, 1);
	assert_int_equal(epoll_ready(epfd), 0);
	assert_int_equal(pl_trywait(NULL, &f, 1), -FI_EAGAIN);
	assert_int_equal(fi_cq_read(cq, &e, 1), 1);

	assert_int_equal(pl_trywait(NULL, &f, 1), 0);
	assert_int_equal(epoll_ready(epfd), 0);
	put(cq, 2);
	assert_int_equal(epoll_ready(epfd), 1);
	assert_int_equal(pl_trywait(NULL, &f, 1), -FI_EAGAIN);
	assert_int_equal(fi_cq_read(cq, &e, 1), 1);
	assert_ptr_equal(e.op_context, (void *)0x1002);
	assert_int_equal(pl_trywait(NULL, &f, 1), 0);
	assert_int_equal(epoll_ready(epfd), 0);

	/* an error wakes too */
	write_err(cq, FI_EIO, NULL, 0);
	assert_int_equal(epoll_ready(epfd), 1);
	assert_int_equal(pl_trywait(NULL, &f, 1), -FI_EAGAIN);

	close(epfd);
	close_all(cq, dom);
}

static void test_trywait_epoll(void **state)
{
	(void)state;
	check_trywait_epoll(FI_PROGRESS_AUTO);
	check_trywait_epoll(FI_PROGRESS_MANUAL);
}

/* ---- manual progress: reads drive the domain's sources ---- */

struct src_state {
	struct pl_progress_source src;
	struct fid_cq *cq;
	unsigned polls;
};

static int src_poll(struct pl_progress_source *s, unsigned budget)
{
	struct src_state *st = (struct src_state *)s;

	(void)budget;
	if (st->polls++)
		return 0;
	put(st->cq, 42);
	return 1;
}

static void test_manual_progress_read(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_DOMAIN);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_NONE, 0);
	struct src_state st = {
		.src = { .poll = src_poll, .fd = -1, .name = "test" },
		.cq = cq,
	};
	struct fi_cq_entry e;

	assert_int_equal(pl_progress_source_add(pl_domain_progress(
		&dom->domain_fid), &st.src), 0);
	/* the completion appears only because the read polled */
	assert_int_equal(fi_cq_read(cq, &e, 1), 1);
	assert_ptr_equal(e.op_context, (void *)(0x1000 + 42));
	assert_true(st.polls >= 1);
	/* count 0 drives progress too, and returns 0 */
	assert_int_equal(fi_cq_read(cq, NULL, 0), 0);
	assert_true(st.polls >= 2);
	assert_int_equal(pl_progress_source_remove(pl_domain_progress(
		&dom->domain_fid), &st.src), 0);
	close_all(cq, dom);
}

/* ---- lifetime, peer, bad input ---- */

static void test_close_busy(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_CONTEXT, FI_WAIT_FD, 0);

	/* the CQ is a domain child */
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), -FI_EBUSY);
	pl_cq_ref(cq);
	pl_cq_ref(cq);
	assert_int_equal(fi_close(&cq->fid), -FI_EBUSY);
	pl_cq_unref(cq);
	assert_int_equal(fi_close(&cq->fid), -FI_EBUSY);
	pl_cq_unref(cq);
	put(cq, 1);	/* entries still queued are dropped at close */
	write_err(cq, FI_EIO, "x", 1);
	close_all(cq, dom);
}

static void test_peer_owner_ops(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_cq *cq = open_cq(dom, FI_CQ_FORMAT_TAGGED, FI_WAIT_NONE, 0);
	struct fid_peer_cq *peer = pl_cq_peer(cq);
	struct fi_cq_err_entry ee = { .err = FI_ETRUNC, .olen = 9 };
	struct fi_cq_tagged_entry t;
	fi_addr_t src;

	assert_non_null(peer);
	assert_ptr_equal(peer->owner_ops, pl_cq_owner_ops(cq));
	assert_int_equal(peer->fid.fclass, FI_CLASS_PEER_CQ);
	assert_int_equal(peer->owner_ops->write(peer, (void *)5, FI_TAGGED, 1,
						NULL, 2, 3, 4), 0);
	assert_int_equal(fi_cq_readfrom(cq, &t, 1, &src), 1);
	assert_ptr_equal(t.op_context, (void *)5);
	assert_int_equal(t.tag, 3);
	assert_int_equal(src, 4);
	assert_int_equal(peer->owner_ops->writeerr(peer, &ee), 0);
	assert_int_equal(fi_cq_read(cq, &t, 1), -FI_EAVAIL);
	memset(&ee, 0, sizeof(ee));
	assert_int_equal(fi_cq_readerr(cq, &ee, 0), 1);
	assert_int_equal(ee.err, FI_ETRUNC);
	assert_int_equal(ee.olen, 9);
	close_all(cq, dom);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct pl_domain *dom = open_dom(FI_PROGRESS_MANUAL, FI_THREAD_SAFE);
	struct fid_domain plain = { .fid = { .fclass = FI_CLASS_DOMAIN } };
	struct fid_cq foreign = { .fid = { .fclass = FI_CLASS_CQ } };
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_cq_err_entry ee = { 0 };
	struct fi_cq_entry e;
	struct fid_cq *cq = NULL;

	assert_int_equal(pl_cq_open(NULL, &attr, &cq, NULL), -FI_EINVAL);
	assert_int_equal(pl_cq_open(&plain, &attr, &cq, NULL), -FI_EINVAL);
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, NULL, NULL),
			 -FI_EINVAL);
	attr.format = 99;
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL),
			 -FI_EINVAL);
	attr.format = FI_CQ_FORMAT_CONTEXT;
	attr.wait_obj = 99;
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL),
			 -FI_EINVAL);
	attr.wait_obj = FI_WAIT_SET;	/* without a set */
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL),
			 -FI_EINVAL);
	attr.wait_obj = FI_WAIT_NONE;
	attr.wait_cond = 7;
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL),
			 -FI_EINVAL);
	attr.wait_cond = FI_CQ_COND_NONE;
	attr.flags = FI_PEER;	/* without its fi_peer_cq_context */
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL),
			 -FI_EINVAL);
	assert_null(cq);	/* outputs set only on success */
	attr.flags = 0;
	/* sizes beyond the documented bound: refused, nothing allocated */
	attr.size = (size_t)1 << 40;
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL),
			 -FI_EINVAL);
	attr.size = (size_t)PL_CQ_MAX_SIZE + 1;
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL),
			 -FI_EINVAL);
	assert_null(cq);
	attr.size = 4096;
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL), 0);
	assert_int_equal(fi_close(&cq->fid), 0);
	attr.size = 0;
	attr.flags = FI_AFFINITY;
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, NULL), 0);
	assert_int_equal(fi_close(&cq->fid), 0);

	/* NULL attr: the defaults */
	assert_int_equal(pl_cq_open(&dom->domain_fid, NULL, &cq, NULL), 0);
	assert_int_equal(fi_cq_read(cq, NULL, 1), -FI_EINVAL);
	assert_int_equal(fi_cq_read(cq, NULL, 0), 0);
	assert_int_equal(fi_cq_readfrom(cq, &e, 1, NULL), -FI_EINVAL);
	assert_int_equal(fi_cq_readerr(cq, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_cq_readerr(cq, &ee, FI_PEEK), -FI_EBADFLAGS);
	assert_int_equal(pl_cq_write_err(cq, NULL, 0), -FI_EINVAL);
	ee.err = 0;
	assert_int_equal(pl_cq_write_err(cq, &ee, 0), -FI_EINVAL);
	ee.err = FI_EIO;
	ee.err_data_size = 4;	/* with no data */
	assert_int_equal(pl_cq_write_err(cq, &ee, 0), -FI_EINVAL);
	assert_non_null(fi_cq_strerror(cq, FI_EIO, NULL, NULL, 0));
	{
		char b[8];

		assert_ptr_equal(fi_cq_strerror(cq, FI_EIO, NULL, b, sizeof(b)),
				 b);
		assert_true(strlen(b) < sizeof(b));
	}
	assert_int_equal(fi_close(&cq->fid), 0);

	/* fids that are not ours */
	assert_int_equal(pl_cq_write(NULL, NULL, 0, 0, NULL, 0, 0, 0),
			 -FI_EINVAL);
	assert_int_equal(pl_cq_write(&foreign, NULL, 0, 0, NULL, 0, 0, 0),
			 -FI_EINVAL);
	assert_int_equal(pl_cq_write_err(&foreign, &ee, 0), -FI_EINVAL);
	assert_null(pl_cq_waitable(&foreign));
	assert_null(pl_cq_waitable(NULL));
	assert_null(pl_cq_owner_ops(&foreign));
	assert_null(pl_cq_peer(NULL));
	pl_cq_ref(NULL);
	pl_cq_unref(&foreign);
	{
		struct fid *f = &foreign.fid;

		assert_int_equal(pl_trywait(NULL, &f, 1), -FI_EINVAL);
	}
	assert_int_equal(pl_domain_close(&dom->domain_fid.fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats_safe),
		cmocka_unit_test(test_formats_domain),
		cmocka_unit_test(test_batch_and_readfrom),
		cmocka_unit_test(test_overflow_order),
		cmocka_unit_test(test_eavail_errors_first),
		cmocka_unit_test(test_err_data_semantics),
		cmocka_unit_test(test_err_data_old_api),
		cmocka_unit_test(test_sread_timeout),
		cmocka_unit_test(test_sread_wakeup_kinds),
		cmocka_unit_test(test_sread_threshold),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_wait_objects_control),
		cmocka_unit_test(test_trywait_epoll),
		cmocka_unit_test(test_manual_progress_read),
		cmocka_unit_test(test_close_busy),
		cmocka_unit_test(test_peer_owner_ops),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
