/* SPDX-License-Identifier: BSD-2-Clause */
/* Poll sets (fi_poll(3)): add/del rules and bad input, what fi_poll
 * reports for EQs, counters and CQs, the count limit, busy closes, and
 * manual progress of the members' domain. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_poll.h"
#include "pl_cntr.h"
#include "pl_eq.h"
#include "pl_domain.h"
#include "pl_progress.h"

/* Weak references: the test links without the CQ object, and tests
 * it when present. */
extern int pl_cq_open(struct fid_domain *d, struct fi_cq_attr *attr,
		      struct fid_cq **cq_p, void *context)
	__attribute__((weak));
extern int pl_cq_write(struct fid_cq *cq, void *op_context, uint64_t flags,
		       size_t len, void *buf, uint64_t data, uint64_t tag,
		       fi_addr_t src_addr) __attribute__((weak));

static int ctx_a, ctx_b, ctx_c;

static struct fid_poll *open_ps(struct fid_domain *d)
{
	struct fi_poll_attr attr = { .flags = 0 };
	struct fid_poll *ps = NULL;

	assert_int_equal(pl_poll_open(d, &attr, &ps), 0);
	return ps;
}

static struct fid_cntr *open_cntr(struct fid_domain *d, void *context)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_NONE };
	struct fid_cntr *c = NULL;

	assert_int_equal(pl_cntr_open(d, &attr, &c, context), 0);
	return c;
}

static struct fid_eq *open_eq(void *context)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_NONE };
	struct fid_eq *eq = NULL;

	assert_int_equal(pl_eq_open(NULL, &attr, &eq, context), 0);
	return eq;
}

static void test_open_bad_input(void **s)
{
	struct fi_poll_attr attr = { .flags = 1 };
	struct fid_poll *ps = NULL;

	(void)s;
	assert_int_equal(pl_poll_open(NULL, NULL, NULL), -FI_EINVAL);
	assert_int_equal(pl_poll_open(NULL, &attr, &ps), -FI_EINVAL);
	assert_null(ps);
	assert_int_equal(pl_poll_open(NULL, NULL, &ps), 0);
	assert_int_equal(fi_close(&ps->fid), 0);
}

static void test_add_del_bad_input(void **s)
{
	struct fid_poll *ps = open_ps(NULL);
	struct fid_cntr *c = open_cntr(NULL, &ctx_a);
	struct fid av = { .fclass = FI_CLASS_AV };
	struct fid fake_cq = { .fclass = FI_CLASS_CQ };
	struct fid fake_cntr = { .fclass = FI_CLASS_CNTR };
	void *out[2];

	(void)s;
	assert_int_equal(fi_poll_add(ps, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_poll_add(ps, &av, 0), -FI_EINVAL);
	assert_int_equal(fi_poll_add(ps, &ps->fid, 0), -FI_EINVAL);
	/* right class, but not an engine object */
	assert_int_equal(fi_poll_add(ps, &fake_cq, 0), -FI_EINVAL);
	assert_int_equal(fi_poll_add(ps, &fake_cntr, 0), -FI_EINVAL);
	assert_int_equal(fi_poll_del(ps, &c->fid, 0), -FI_ENOENT);
	assert_int_equal(fi_poll_del(ps, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_poll_add(ps, &c->fid, 0), 0);
	assert_int_equal(fi_poll_add(ps, &c->fid, 0), -FI_EALREADY);
	assert_int_equal(fi_poll(ps, out, -1), -FI_EINVAL);
	assert_int_equal(fi_poll(ps, NULL, 2), -FI_EINVAL);
	assert_int_equal(fi_poll(ps, out, 2), 0);
	assert_int_equal(fi_poll_del(ps, &c->fid, 0), 0);
	assert_int_equal(fi_poll_del(ps, &c->fid, 0), -FI_ENOENT);
	assert_int_equal(fi_close(&c->fid), 0);
	assert_int_equal(fi_close(&ps->fid), 0);
}

/* members and the set each refuse fi_close while associated */
static void test_busy_closes(void **s)
{
	struct fid_poll *ps = open_ps(NULL);
	struct fid_cntr *c = open_cntr(NULL, &ctx_a);
	struct fid_eq *eq = open_eq(&ctx_b);

	(void)s;
	assert_int_equal(fi_poll_add(ps, &c->fid, 0), 0);
	assert_int_equal(fi_poll_add(ps, &eq->fid, 0), 0);
	assert_int_equal(fi_close(&ps->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&c->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&eq->fid), -FI_EBUSY);
	assert_int_equal(fi_poll_del(ps, &c->fid, 0), 0);
	assert_int_equal(fi_poll_del(ps, &eq->fid, 0), 0);
	assert_int_equal(fi_close(&c->fid), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
	assert_int_equal(fi_close(&ps->fid), 0);
}

/* an EQ is reported while it is not empty */
static void test_eq_reported_while_not_empty(void **s)
{
	struct fid_poll *ps = open_ps(NULL);
	struct fid_eq *eq = open_eq(&ctx_b);
	struct fi_eq_entry ent = { .data = 1 };
	uint32_t ev;
	void *out[4];

	(void)s;
	assert_int_equal(fi_poll_add(ps, &eq->fid, 0), 0);
	assert_int_equal(fi_poll(ps, out, 4), 0);
	assert_int_equal(pl_eq_write_event(eq, FI_AV_COMPLETE, &ent,
					   sizeof(ent), 0), sizeof(ent));
	assert_int_equal(fi_poll(ps, out, 4), 1);
	assert_ptr_equal(out[0], &ctx_b);
	assert_int_equal(fi_poll(ps, out, 4), 1);
	assert_int_equal(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0),
			 sizeof(ent));
	assert_int_equal(fi_poll(ps, out, 4), 0);
	assert_int_equal(fi_poll_del(ps, &eq->fid, 0), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
	assert_int_equal(fi_close(&ps->fid), 0);
}

/* a counter is reported once per change of its value or error count */
static void test_counter_reported_once_per_change(void **s)
{
	struct fid_poll *ps = open_ps(NULL);
	struct fid_cntr *c = open_cntr(NULL, &ctx_a);
	void *out[4];

	(void)s;
	assert_int_equal(fi_cntr_add(c, 3), 0);	/* before the add */
	assert_int_equal(fi_poll_add(ps, &c->fid, 0), 0);
	assert_int_equal(fi_poll(ps, out, 4), 0);
	assert_int_equal(fi_cntr_add(c, 1), 0);
	assert_int_equal(fi_poll(ps, out, 4), 1);
	assert_ptr_equal(out[0], &ctx_a);
	assert_int_equal(fi_poll(ps, out, 4), 0);
	assert_int_equal(fi_cntr_adderr(c, 1), 0);
	assert_int_equal(fi_poll(ps, out, 4), 1);
	assert_int_equal(fi_poll(ps, out, 4), 0);
	assert_int_equal(fi_poll_del(ps, &c->fid, 0), 0);
	assert_int_equal(fi_close(&c->fid), 0);
	assert_int_equal(fi_close(&ps->fid), 0);
}

/* no more than count contexts, in the order of fi_poll_add */
static void test_count_limit_and_order(void **s)
{
	struct fid_poll *ps = open_ps(NULL);
	struct fid_cntr *a = open_cntr(NULL, &ctx_a);
	struct fid_cntr *b = open_cntr(NULL, &ctx_b);
	struct fid_cntr *c = open_cntr(NULL, &ctx_c);
	void *out[3];

	(void)s;
	assert_int_equal(fi_poll_add(ps, &a->fid, 0), 0);
	assert_int_equal(fi_poll_add(ps, &b->fid, 0), 0);
	assert_int_equal(fi_poll_add(ps, &c->fid, 0), 0);
	fi_cntr_add(a, 1);
	fi_cntr_add(b, 1);
	fi_cntr_add(c, 1);
	assert_int_equal(fi_poll(ps, out, 2), 2);
	assert_ptr_equal(out[0], &ctx_a);
	assert_ptr_equal(out[1], &ctx_b);
	assert_int_equal(fi_poll(ps, out, 3), 1);	/* c still pending */
	assert_ptr_equal(out[0], &ctx_c);
	assert_int_equal(fi_poll(ps, out, 0), 0);
	fi_poll_del(ps, &a->fid, 0);
	fi_poll_del(ps, &b->fid, 0);
	fi_poll_del(ps, &c->fid, 0);
	fi_close(&a->fid);
	fi_close(&b->fid);
	fi_close(&c->fid);
	assert_int_equal(fi_close(&ps->fid), 0);
}

struct src_state {
	struct pl_progress_source src;
	struct fid_cntr *cntr;
	int produce;
};

static int src_poll(struct pl_progress_source *src, unsigned budget)
{
	struct src_state *st = (struct src_state *)src;

	(void)budget;
	if (!st->produce)
		return 0;
	st->produce = 0;
	pl_cntr_inc(st->cntr);
	return 1;
}

/* fi_poll drives the members' domain (manual progress); the set is a
 * child of its domain */
static void test_manual_progress(void **s)
{
	struct fi_domain_attr da = { .data_progress = FI_PROGRESS_MANUAL,
				     .threading = FI_THREAD_SAFE,
				     .mr_mode = FI_MR_LOCAL };
	struct fi_info info = { .domain_attr = &da };
	struct pl_domain *dom = calloc(1, sizeof(*dom));
	struct src_state st = { .src = { .poll = src_poll, .fd = -1 } };
	struct fid_domain *d;
	struct fid_poll *ps;
	void *out[1];

	(void)s;
	assert_non_null(dom);
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	d = &dom->domain_fid;
	ps = open_ps(d);
	assert_int_equal(pl_domain_fini(dom), -FI_EBUSY);
	st.cntr = open_cntr(d, &ctx_a);
	assert_int_equal(fi_poll_add(ps, &st.cntr->fid, 0), 0);
	assert_int_equal(pl_progress_source_add(dom->ctx, &st.src), 0);
	st.produce = 1;
	assert_int_equal(fi_poll(ps, out, 1), 1);
	assert_ptr_equal(out[0], &ctx_a);
	assert_int_equal(st.produce, 0);
	assert_int_equal(pl_progress_source_remove(dom->ctx, &st.src), 0);
	assert_int_equal(fi_poll_del(ps, &st.cntr->fid, 0), 0);
	assert_int_equal(fi_close(&st.cntr->fid), 0);
	assert_int_equal(fi_close(&ps->fid), 0);
	assert_int_equal(pl_domain_fini(dom), 0);
	free(dom);
}

/* a CQ is reported while it is not empty (needs engine/cq/pl_cq.c) */
static void test_cq_member(void **s)
{
	struct fi_domain_attr da = { .data_progress = FI_PROGRESS_MANUAL,
				     .threading = FI_THREAD_SAFE,
				     .mr_mode = FI_MR_LOCAL };
	struct fi_info info = { .domain_attr = &da };
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_CONTEXT,
				   .wait_obj = FI_WAIT_NONE };
	struct fi_cq_entry ent;
	struct pl_domain *dom;
	struct fid_poll *ps;
	struct fid_cq *cq;
	void *out[2];

	(void)s;
	if (!pl_cq_open || !pl_cq_write)
		skip();
	dom = calloc(1, sizeof(*dom));
	assert_non_null(dom);
	assert_int_equal(pl_domain_init(dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	assert_int_equal(pl_cq_open(&dom->domain_fid, &attr, &cq, &ctx_c), 0);
	ps = open_ps(&dom->domain_fid);
	assert_int_equal(fi_poll_add(ps, &cq->fid, 0), 0);
	assert_int_equal(fi_poll(ps, out, 2), 0);
	assert_int_equal(pl_cq_write(cq, &ctx_a, FI_SEND, 0, NULL, 0, 0,
				     FI_ADDR_NOTAVAIL), 0);
	assert_int_equal(fi_poll(ps, out, 2), 1);
	assert_ptr_equal(out[0], &ctx_c);
	assert_int_equal(fi_close(&cq->fid), -FI_EBUSY);
	assert_int_equal(fi_cq_read(cq, &ent, 1), 1);
	assert_int_equal(fi_poll(ps, out, 2), 0);
	assert_int_equal(fi_poll_del(ps, &cq->fid, 0), 0);
	assert_int_equal(fi_close(&cq->fid), 0);
	assert_int_equal(fi_close(&ps->fid), 0);
	assert_int_equal(pl_domain_fini(dom), 0);
	free(dom);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_bad_input),
		cmocka_unit_test(test_add_del_bad_input),
		cmocka_unit_test(test_busy_closes),
		cmocka_unit_test(test_eq_reported_while_not_empty),
		cmocka_unit_test(test_counter_reported_once_per_change),
		cmocka_unit_test(test_count_limit_and_order),
		cmocka_unit_test(test_manual_progress),
		cmocka_unit_test(test_cq_member),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
