/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "pl_waitable.h"
#include "pl_cntr.h"
#include "pl_eq.h"
#include "pl_cm.h"
#include <string.h>

/* a test-local waitable object: ready when `count` > 0 */
struct obj {
	struct pl_waitable w;
	atomic_int count;
};

static bool obj_ready(struct pl_waitable *w)
{
	return atomic_load(&((struct obj *)w)->count) > 0;
}

static void test_bad_kind(void **s)
{
	struct obj o = {0};

	(void)s;
	assert_int_equal(pl_waitable_init(&o.w, FI_WAIT_SET, NULL, NULL,
					  obj_ready), -FI_EINVAL);
	assert_int_equal(pl_waitable_init(&o.w, (enum fi_wait_obj)99, NULL,
					  NULL, obj_ready), -FI_EINVAL);
}

static void test_none(void **s)
{
	struct obj o = {0};
	int fd;

	(void)s;
	assert_int_equal(pl_waitable_init(&o.w, FI_WAIT_NONE, NULL, NULL,
					  obj_ready), 0);
	assert_int_not_equal(pl_waitable_wait(&o.w, 0), 0);
	assert_int_equal(pl_waitable_control(&o.w, FI_GETWAIT, &fd), -FI_EINVAL);
	pl_waitable_fini(&o.w);
}

static void test_fd_timeout_then_ready(void **s)
{
	struct obj o = {0};
	struct pollfd p;
	int fd;

	(void)s;
	assert_int_equal(pl_waitable_init(&o.w, FI_WAIT_UNSPEC, NULL, NULL,
					  obj_ready), 0);
	assert_int_equal(pl_waitable_kind(&o.w), FI_WAIT_FD);
	assert_int_equal(pl_waitable_control(&o.w, FI_GETWAIT, &fd), 0);
	assert_int_equal(pl_waitable_wait(&o.w, 10), -FI_EAGAIN);
	assert_int_equal(pl_waitable_trywait(&o.w), 0);
	p.fd = fd; p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 0), 0);
	atomic_store(&o.count, 1);
	pl_waitable_signal(&o.w);
	assert_int_equal(poll(&p, 1, 0), 1);
	assert_int_equal(pl_waitable_trywait(&o.w), -FI_EAGAIN);
	assert_int_equal(pl_waitable_wait(&o.w, 10), 0);
	atomic_store(&o.count, 0);
	assert_int_equal(pl_waitable_trywait(&o.w), 0);
	assert_int_equal(poll(&p, 1, 0), 0);	/* stale signal drained */
	pl_waitable_fini(&o.w);
}

static void test_interrupt(void **s)
{
	struct obj o = {0};

	(void)s;
	assert_int_equal(pl_waitable_init(&o.w, FI_WAIT_MUTEX_COND, NULL, NULL,
					  obj_ready), 0);
	pl_waitable_interrupt(&o.w);
	assert_int_equal(pl_waitable_wait(&o.w, -1), -FI_EINTR);
	pl_waitable_fini(&o.w);
}

/* A counter without a wait object: fi_cntr_wait polls (what clients of
 * the reference, fabtests' fi_multi_mr among them, rely on). */
static void test_cntr_wait_none(void **s)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_NONE };
	struct fid_cntr *c;

	(void)s;
	assert_int_equal(pl_cntr_open(NULL, &attr, &c, NULL), 0);
	assert_int_equal(fi_cntr_wait(c, 1, 10), -FI_ETIMEDOUT);
	pl_cntr_inc(c);
	assert_int_equal(fi_cntr_wait(c, 1, 10), 0);
	pl_cntr_inc_err(c);
	assert_int_equal(fi_cntr_wait(c, 5, -1), -FI_EAVAIL);
	assert_int_equal(fi_cntr_readerr(c), 1);
	assert_int_equal(fi_close(&c->fid), 0);
}

static void test_cntr(void **s)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_UNSPEC };
	struct fid_cntr *c;

	(void)s;
	assert_int_equal(pl_cntr_open(NULL, &attr, &c, NULL), 0);
	assert_int_equal(fi_cntr_wait(c, 1, 10), -FI_ETIMEDOUT);
	pl_cntr_inc(c);
	assert_int_equal(fi_cntr_wait(c, 1, 10), 0);
	assert_int_equal(fi_cntr_read(c), 1);
	assert_int_equal(fi_cntr_add(c, 4), 0);
	assert_int_equal(fi_cntr_read(c), 5);
	assert_int_equal(fi_cntr_set(c, 2), 0);
	assert_int_equal(fi_cntr_read(c), 2);
	pl_cntr_inc_err(c);
	assert_int_equal(fi_cntr_wait(c, 10, 10), -FI_EAVAIL);
	assert_int_equal(fi_cntr_readerr(c), 1);
	assert_int_equal(fi_cntr_wait(c, 10, 10), -FI_ETIMEDOUT);
	pl_cntr_ref(c);
	assert_int_equal(fi_close(&c->fid), -FI_EBUSY);
	pl_cntr_unref(c);
	assert_int_equal(fi_close(&c->fid), 0);
}

static void test_eq(void **s)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_UNSPEC };
	struct fi_eq_cm_entry cm = { .fid = NULL }, out;
	struct fi_eq_err_entry err;
	struct fid_eq *eq;
	uint32_t ev;
	char ed[4] = "abc";

	(void)s;
	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	assert_int_equal(fi_eq_sread(eq, &ev, &out, sizeof(out), 10, 0),
			 -FI_EAGAIN);
	assert_int_equal(pl_eq_write_event(eq, FI_CONNECTED, &cm, sizeof(cm), 0),
			 sizeof(cm));
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), FI_PEEK),
			 sizeof(cm));
	assert_int_equal(fi_eq_sread(eq, &ev, &out, sizeof(out), 10, 0),
			 sizeof(cm));
	assert_int_equal(ev, FI_CONNECTED);
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0), -FI_EAGAIN);
	assert_int_equal(pl_eq_write_error(eq, NULL, NULL, 7, -FI_ECONNREFUSED,
					   5, ed, sizeof(ed)), 0);
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(err.err, FI_ECONNREFUSED);
	assert_int_equal(err.err_data_size, sizeof(ed));
	assert_memory_equal(err.err_data, ed, sizeof(ed));
	assert_int_equal(fi_close(&eq->fid), 0);
}

/* fi_eq(3) rules: FI_WRITE for fi_eq_write, entry sizes per event type,
 * CM data cut to the reader's buffer, errors before events, err_data
 * into the reader's buffer, FI_PEEK on readerr, sread on FI_WAIT_NONE */
static void test_eq_rules(void **s)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_NONE };
	struct fi_eq_entry ent = { .data = 1 };
	struct {
		struct fi_eq_cm_entry cm;
		char data[16];
	} in, out;
	struct fi_eq_err_entry err;
	struct fid_eq *eq;
	uint32_t ev;
	char ed[8] = "1234567", got[4];

	(void)s;
	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &ent, sizeof(ent), 0),
			 -FI_EINVAL);	/* no FI_WRITE */
	assert_int_equal(fi_eq_sread(eq, &ev, &ent, sizeof(ent), 0, 0),
			 -FI_EINVAL);	/* FI_WAIT_NONE */
	/* short entries and unknown events */
	assert_int_equal(pl_eq_write_event(eq, FI_MR_COMPLETE, &ent, 4, 0),
			 -FI_EINVAL);
	assert_int_equal(pl_eq_write_event(eq, FI_CONNREQ, &ent,
					   sizeof(struct fi_eq_cm_entry) - 1,
					   0), -FI_EINVAL);
	assert_int_equal(pl_eq_write_event(eq, 1000, &ent, sizeof(ent), 0),
			 -FI_EINVAL);
	/* a CM event with 16 bytes of data, read into a 4-byte tail */
	memset(&in, 0, sizeof(in));
	memset(in.data, 'x', sizeof(in.data));
	assert_int_equal(pl_eq_write_event(eq, FI_CONNECTED, &in, sizeof(in),
					   0), sizeof(in));
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out.cm) - 1, 0),
			 -FI_ETOOSMALL);
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out.cm) + 4, 0),
			 sizeof(out.cm) + 4);
	assert_int_equal(ev, FI_CONNECTED);
	/* an error written after an event is reported first */
	assert_int_equal(pl_eq_write_event(eq, FI_AV_COMPLETE, &ent,
					   sizeof(ent), 0), sizeof(ent));
	assert_int_equal(pl_eq_write_error(eq, NULL, NULL, 0, FI_EIO, 0, ed,
					   sizeof(ed)), 0);
	assert_int_equal(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0),
			 -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	err.err_data = got;
	err.err_data_size = sizeof(got);
	assert_int_equal(fi_eq_readerr(eq, &err, FI_PEEK), sizeof(err));
	assert_ptr_equal(err.err_data, got);
	assert_int_equal(err.err_data_size, sizeof(got));
	assert_memory_equal(got, "1234", 4);
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(err.err, FI_EIO);
	assert_int_equal(fi_eq_readerr(eq, &err, 0), -FI_EAGAIN);
	assert_int_equal(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0),
			 sizeof(ent));
	assert_int_equal(ev, FI_AV_COMPLETE);
	assert_int_equal(fi_close(&eq->fid), 0);
}

/* An EQ holds attr->size entries, events and errors together; beyond
 * that writes are -FI_EAGAIN and queue nothing, until a read makes
 * room. */
static void test_eq_overrun(void **s)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_NONE, .size = 3,
				   .flags = FI_WRITE };
	struct fi_eq_entry ent = { .data = 1 };
	struct fi_eq_err_entry err;
	struct fid_eq *eq;
	uint32_t ev;

	(void)s;
	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &ent, sizeof(ent), 0),
			 sizeof(ent));
	assert_int_equal(pl_eq_write_event(eq, FI_AV_COMPLETE, &ent,
					   sizeof(ent), 0), sizeof(ent));
	assert_int_equal(pl_eq_write_error(eq, NULL, NULL, 0, FI_EIO, 0, NULL,
					   0), 0);
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &ent, sizeof(ent), 0),
			 -FI_EAGAIN);
	assert_int_equal(pl_eq_write_event(eq, FI_AV_COMPLETE, &ent,
					   sizeof(ent), 0), -FI_EAGAIN);
	assert_int_equal(pl_eq_write_error(eq, NULL, NULL, 0, FI_EIO, 0, "x",
					   1), -FI_EAGAIN);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &ent, sizeof(ent), 0),
			 sizeof(ent));
	for (int i = 0; i < 3; i++)
		assert_int_equal(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0),
				 sizeof(ent));
	assert_int_equal(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0),
			 -FI_EAGAIN);
	assert_int_equal(fi_close(&eq->fid), 0);
}

/* An endpoint's owed CM events (FI_CONNECTED, FI_SHUTDOWN, the error
 * that ends a connect) are queued even on a full EQ: the application
 * would wait for them forever. A connection request, which the provider
 * can refuse, is not; its info is freed with the refused event (the ASan
 * build's leak check sees it otherwise). Other flags are refused. */
static void test_eq_owed(void **s)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_NONE, .size = 2 };
	struct fi_eq_entry ent = { .data = 1 };
	struct {
		struct fi_eq_cm_entry cm;
		uint8_t data[8];
	} out;
	struct fi_eq_err_entry err;
	struct fid_eq *eq;
	struct fid ep_fid = { .fclass = FI_CLASS_EP };
	uint32_t ev;

	(void)s;
	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	assert_int_equal(pl_eq_write_event(eq, FI_AV_COMPLETE, &ent,
					   sizeof(ent), 1ULL << 5),
			 -FI_EINVAL);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pl_eq_write_event(eq, FI_AV_COMPLETE, &ent,
						   sizeof(ent), 0),
				 sizeof(ent));
	assert_int_equal(pl_eq_write_event(eq, FI_AV_COMPLETE, &ent,
					   sizeof(ent), 0), -FI_EAGAIN);
	assert_int_equal(pl_cm_write_connreq(eq, &ep_fid, fi_allocinfo(),
					     NULL, 0), -FI_EAGAIN);
	assert_int_equal(pl_cm_write_connected(eq, &ep_fid, "hi", 2), 0);
	assert_int_equal(pl_cm_write_shutdown(eq, &ep_fid), 0);
	assert_int_equal(pl_cm_write_error(eq, &ep_fid, NULL, FI_ECONNREFUSED,
					   "no", 2), 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(err.err, FI_ECONNREFUSED);
	assert_ptr_equal(err.fid, &ep_fid);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0),
				 sizeof(ent));
		assert_int_equal(ev, FI_AV_COMPLETE);
	}
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0),
			 sizeof(out.cm) + 2);
	assert_int_equal(ev, FI_CONNECTED);
	assert_ptr_equal(out.cm.fid, &ep_fid);
	assert_memory_equal(out.cm.data, "hi", 2);
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0),
			 sizeof(out.cm));
	assert_int_equal(ev, FI_SHUTDOWN);
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0),
			 -FI_EAGAIN);
	assert_int_equal(fi_close(&eq->fid), 0);
}

/* A provider's FI_CONNREQ gives its fi_info to the reader; unread, the
 * EQ frees it at close (the ASan build's leak check sees one that is
 * not), and a read one stays the reader's to free. */
static void test_eq_connreq_info(void **s)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_NONE };
	struct fi_eq_cm_entry cm = { 0 }, out;
	struct fid_eq *eq;
	uint32_t ev;

	(void)s;
	assert_int_equal(pl_eq_open(NULL, &attr, &eq, NULL), 0);
	cm.info = fi_allocinfo();
	assert_non_null(cm.info);
	assert_int_equal(pl_eq_write_event(eq, FI_CONNREQ, &cm, sizeof(cm),
					   0), sizeof(cm));
	cm.info = fi_allocinfo();
	assert_non_null(cm.info);
	assert_int_equal(pl_eq_write_event(eq, FI_CONNREQ, &cm, sizeof(cm),
					   0), sizeof(cm));
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0),
			 sizeof(out));
	assert_int_equal(ev, FI_CONNREQ);
	assert_int_equal(fi_close(&eq->fid), 0);	/* frees the second */
	fi_freeinfo(out.info);				/* the first is ours */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_kind),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_cntr_wait_none),
		cmocka_unit_test(test_fd_timeout_then_ready),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_cntr),
		cmocka_unit_test(test_eq),
		cmocka_unit_test(test_eq_rules),
		cmocka_unit_test(test_eq_overrun),
		cmocka_unit_test(test_eq_owed),
		cmocka_unit_test(test_eq_connreq_info),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
