/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_fid_nosys: every all-stub table has its size set and every slot
 * filled, every stub returns -FI_ENOSYS (or its slot's documented
 * no-error value), and the tables plug into the public inline wrappers
 * that applications call, including the ones that check the table size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "pl_fid_nosys.h"

/* Every ops table is a size_t followed by function pointers only. */
static bool pl_test_all_slots_set(const void *table, size_t size)
{
	const unsigned char *p = table;
	size_t off;

	for (off = sizeof(size_t); off + sizeof(void (*)(void)) <= size;
	     off += sizeof(void (*)(void))) {
		void (*fn)(void);

		memcpy(&fn, p + off, sizeof(fn));
		if (!fn)
			return false;
	}
	return off == size;
}

static void test_fid_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops *t = &pl_fid_nosys_fid_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->close(NULL), -FI_ENOSYS);
	assert_int_equal(t->bind(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->control(NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->ops_open(NULL, NULL, 0, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->tostr(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->ops_set(NULL, NULL, 0, NULL, NULL), -FI_ENOSYS);
}

static void test_fabric_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_fabric *t = &pl_fid_nosys_fabric_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_fabric));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->domain(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->passive_ep(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->eq_open(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->wait_open(NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->trywait(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->domain2(NULL, NULL, NULL, 0, NULL), -FI_ENOSYS);
}

static void test_domain_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_domain *t = &pl_fid_nosys_domain_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_domain));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->av_open(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->cq_open(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->endpoint(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->scalable_ep(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->cntr_open(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->poll_open(NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->stx_ctx(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->srx_ctx(NULL, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->query_atomic(NULL, 0, 0, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->query_collective(NULL, 0, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->endpoint2(NULL, NULL, NULL, 0, NULL), -FI_ENOSYS);
}

static void test_mr_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_mr *t = &pl_fid_nosys_mr_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_mr));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->reg(NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->regv(NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->regattr(NULL, NULL, 0, NULL), -FI_ENOSYS);
}

static void test_av_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_av *t = &pl_fid_nosys_av_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_av));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->insert(NULL, NULL, 0, NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->insertsvc(NULL, NULL, NULL, NULL, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->insertsym(NULL, NULL, 0, NULL, 0, NULL, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->remove(NULL, NULL, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->lookup(NULL, 0, NULL, NULL), -FI_ENOSYS);
	assert_null(t->straddr(NULL, NULL, NULL, NULL));
	assert_int_equal(t->av_set(NULL, NULL, NULL, NULL), -FI_ENOSYS);
}

static void test_av_set_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_av_set *t = &pl_fid_nosys_av_set_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_av_set));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->set_union(NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->intersect(NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->diff(NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->insert(NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->remove(NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->addr(NULL, NULL), -FI_ENOSYS);
}

static void test_cq_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_cq *t = &pl_fid_nosys_cq_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_cq));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->read(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->readfrom(NULL, NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->readerr(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->sread(NULL, NULL, 0, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->sreadfrom(NULL, NULL, 0, NULL, NULL, 0),
			 -FI_ENOSYS);
	assert_int_equal(t->signal(NULL), -FI_ENOSYS);
	assert_string_equal(t->strerror(NULL, 0, NULL, NULL, 0),
			    fi_strerror(FI_ENOSYS));
}

static void test_cntr_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_cntr *t = &pl_fid_nosys_cntr_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_cntr));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->read(NULL), 0);
	assert_int_equal(t->readerr(NULL), 0);
	assert_int_equal(t->add(NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->set(NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->wait(NULL, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->adderr(NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->seterr(NULL, 0), -FI_ENOSYS);
}

static void test_eq_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_eq *t = &pl_fid_nosys_eq_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_eq));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->read(NULL, NULL, NULL, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->readerr(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->write(NULL, 0, NULL, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->sread(NULL, NULL, NULL, 0, 0, 0), -FI_ENOSYS);
	assert_string_equal(t->strerror(NULL, 0, NULL, NULL, 0),
			    fi_strerror(FI_ENOSYS));
}

static void test_wait_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_wait *t = &pl_fid_nosys_wait_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_wait));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->wait(NULL, 0), -FI_ENOSYS);
}

static void test_poll_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_poll *t = &pl_fid_nosys_poll_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_poll));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->poll(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->poll_add(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->poll_del(NULL, NULL, 0), -FI_ENOSYS);
}

static void test_ep_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_ep *t = &pl_fid_nosys_ep_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_ep));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->cancel(NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->getopt(NULL, 0, 0, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->setopt(NULL, 0, 0, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->tx_ctx(NULL, 0, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->rx_ctx(NULL, 0, NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->rx_size_left(NULL), -FI_ENOSYS);
	assert_int_equal(t->tx_size_left(NULL), -FI_ENOSYS);
}

static void test_msg_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_msg *t = &pl_fid_nosys_msg_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_msg));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->recv(NULL, NULL, 0, NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->recvv(NULL, NULL, NULL, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->recvmsg(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->send(NULL, NULL, 0, NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->sendv(NULL, NULL, NULL, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->sendmsg(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->inject(NULL, NULL, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->senddata(NULL, NULL, 0, NULL, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->injectdata(NULL, NULL, 0, 0, 0), -FI_ENOSYS);
}

static void test_tagged_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_tagged *t = &pl_fid_nosys_tagged_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_tagged));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->recv(NULL, NULL, 0, NULL, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->recvv(NULL, NULL, NULL, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->recvmsg(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->send(NULL, NULL, 0, NULL, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->sendv(NULL, NULL, NULL, 0, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->sendmsg(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->inject(NULL, NULL, 0, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->senddata(NULL, NULL, 0, NULL, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->injectdata(NULL, NULL, 0, 0, 0, 0), -FI_ENOSYS);
}

static void test_rma_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_rma *t = &pl_fid_nosys_rma_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_rma));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->read(NULL, NULL, 0, NULL, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->readv(NULL, NULL, NULL, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->readmsg(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->write(NULL, NULL, 0, NULL, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->writev(NULL, NULL, NULL, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->writemsg(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->inject(NULL, NULL, 0, 0, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->writedata(NULL, NULL, 0, NULL, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->injectdata(NULL, NULL, 0, 0, 0, 0, 0), -FI_ENOSYS);
}

static void test_atomic_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_atomic *t = &pl_fid_nosys_atomic_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_atomic));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->write(NULL, NULL, 0, NULL, 0, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->writev(NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->writemsg(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->inject(NULL, NULL, 0, 0, 0, 0, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->readwrite(NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0,
		 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->readwritev(NULL, NULL, NULL, 0, NULL, NULL, 0, 0,
		 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->readwritemsg(NULL, NULL, NULL, NULL, 0, 0),
			 -FI_ENOSYS);
	assert_int_equal(t->compwrite(NULL, NULL, 0, NULL, NULL, NULL, NULL,
		 NULL, 0, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->compwritev(NULL, NULL, NULL, 0, NULL, NULL, 0,
		 NULL, NULL, 0, 0, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->compwritemsg(NULL, NULL, NULL, NULL, 0, NULL, NULL,
		 0, 0),
			 -FI_ENOSYS);
	assert_int_equal(t->writevalid(NULL, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->readwritevalid(NULL, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->compwritevalid(NULL, 0, 0, NULL), -FI_ENOSYS);
}

static void test_cm_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_cm *t = &pl_fid_nosys_cm_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_cm));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->setname(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->getname(NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->getpeer(NULL, NULL, NULL), -FI_ENOSYS);
	assert_int_equal(t->connect(NULL, NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->listen(NULL), -FI_ENOSYS);
	assert_int_equal(t->accept(NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->reject(NULL, NULL, NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->shutdown(NULL, 0), -FI_ENOSYS);
	assert_int_equal(t->join(NULL, NULL, 0, NULL, NULL), -FI_ENOSYS);
}

static void test_collective_table_is_complete_and_returns_enosys(void **state)
{
	const struct fi_ops_collective *t = &pl_fid_nosys_collective_ops;

	assert_int_equal(t->size, sizeof(struct fi_ops_collective));
	assert_true(pl_test_all_slots_set(t, sizeof(*t)));
	assert_int_equal(t->barrier(NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(t->broadcast(NULL, NULL, 0, NULL, 0, 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->alltoall(NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0,
		 NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->allreduce(NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0,
		 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->allgather(NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0,
		 NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->reduce_scatter(NULL, NULL, 0, NULL, NULL, NULL, 0,
		 0, 0, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->reduce(NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0,
		 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->scatter(NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0,
		 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->gather(NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0,
		 NULL),
			 -FI_ENOSYS);
	assert_int_equal(t->msg(NULL, NULL, NULL, NULL, 0, 0), -FI_ENOSYS);
	assert_int_equal(t->barrier2(NULL, 0, 0, NULL), -FI_ENOSYS);
}

#define PL_TABLE_TEST(short) \
	cmocka_unit_test(test_##short##_table_is_complete_and_returns_enosys)
static const struct CMUnitTest pl_table_tests[] = {
	PL_TABLE_TEST(fid),
	PL_TABLE_TEST(fabric),
	PL_TABLE_TEST(domain),
	PL_TABLE_TEST(mr),
	PL_TABLE_TEST(av),
	PL_TABLE_TEST(av_set),
	PL_TABLE_TEST(cq),
	PL_TABLE_TEST(cntr),
	PL_TABLE_TEST(eq),
	PL_TABLE_TEST(wait),
	PL_TABLE_TEST(poll),
	PL_TABLE_TEST(ep),
	PL_TABLE_TEST(msg),
	PL_TABLE_TEST(tagged),
	PL_TABLE_TEST(rma),
	PL_TABLE_TEST(atomic),
	PL_TABLE_TEST(cm),
	PL_TABLE_TEST(collective),
};

/* An endpoint wired to the all-stub tables, as an object would be. */
static struct fid_ep pl_test_ep = {
	.fid = { .fclass = FI_CLASS_EP,
		 .ops = (struct fi_ops *)&pl_fid_nosys_fid_ops },
	.ops = (struct fi_ops_ep *)&pl_fid_nosys_ep_ops,
	.cm = (struct fi_ops_cm *)&pl_fid_nosys_cm_ops,
	.msg = (struct fi_ops_msg *)&pl_fid_nosys_msg_ops,
	.rma = (struct fi_ops_rma *)&pl_fid_nosys_rma_ops,
	.tagged = (struct fi_ops_tagged *)&pl_fid_nosys_tagged_ops,
	.atomic = (struct fi_ops_atomic *)&pl_fid_nosys_atomic_ops,
	.collective = (struct fi_ops_collective *)&pl_fid_nosys_collective_ops,
};

static void test_endpoint_wrappers_reach_the_stubs(void **state)
{
	struct fid_ep *ep = &pl_test_ep;
	char buf[8];
	size_t len = sizeof(buf);

	assert_int_equal(fi_close(&ep->fid), -FI_ENOSYS);
	assert_int_equal(fi_enable(ep), -FI_ENOSYS);
	assert_int_equal(fi_send(ep, buf, 1, NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_recv(ep, buf, 1, NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_inject(ep, buf, 1, 0), -FI_ENOSYS);
	assert_int_equal(fi_tsend(ep, buf, 1, NULL, 0, 7, NULL), -FI_ENOSYS);
	assert_int_equal(fi_trecv(ep, buf, 1, NULL, 0, 7, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_read(ep, buf, 1, NULL, 0, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_write(ep, buf, 1, NULL, 0, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_atomic(ep, buf, 1, NULL, 0, 0, 0, FI_UINT64,
				   FI_SUM, NULL), -FI_ENOSYS);
	assert_int_equal(fi_atomicvalid(ep, FI_UINT64, FI_SUM, &len),
			 -FI_ENOSYS);
	assert_int_equal(fi_connect(ep, buf, NULL, 0), -FI_ENOSYS);
	assert_int_equal(fi_getname(&ep->fid, buf, &len), -FI_ENOSYS);
	assert_int_equal(fi_cancel(&ep->fid, NULL), -FI_ENOSYS);
	assert_int_equal(fi_barrier(ep, 0, NULL), -FI_ENOSYS);
	/* these two check the table's size before calling */
	assert_int_equal(fi_barrier2(ep, 0, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_join(ep, buf, 0, NULL, NULL), -FI_ENOSYS);
}

static void test_object_wrappers_reach_the_stubs(void **state)
{
	struct fid_fabric fabric = {
		.fid = { .fclass = FI_CLASS_FABRIC,
			 .ops = (struct fi_ops *)&pl_fid_nosys_fid_ops },
		.ops = (struct fi_ops_fabric *)&pl_fid_nosys_fabric_ops,
	};
	struct fid_domain domain = {
		.fid = { .fclass = FI_CLASS_DOMAIN,
			 .ops = (struct fi_ops *)&pl_fid_nosys_fid_ops },
		.ops = (struct fi_ops_domain *)&pl_fid_nosys_domain_ops,
		.mr = (struct fi_ops_mr *)&pl_fid_nosys_mr_ops,
	};
	struct fid_cq cq = {
		.fid = { .fclass = FI_CLASS_CQ,
			 .ops = (struct fi_ops *)&pl_fid_nosys_fid_ops },
		.ops = (struct fi_ops_cq *)&pl_fid_nosys_cq_ops,
	};
	struct fid_cntr cntr = {
		.fid = { .fclass = FI_CLASS_CNTR,
			 .ops = (struct fi_ops *)&pl_fid_nosys_fid_ops },
		.ops = (struct fi_ops_cntr *)&pl_fid_nosys_cntr_ops,
	};
	struct fid_eq eq = {
		.fid = { .fclass = FI_CLASS_EQ,
			 .ops = (struct fi_ops *)&pl_fid_nosys_fid_ops },
		.ops = (struct fi_ops_eq *)&pl_fid_nosys_eq_ops,
	};
	struct fid_av av = {
		.fid = { .fclass = FI_CLASS_AV,
			 .ops = (struct fi_ops *)&pl_fid_nosys_fid_ops },
		.ops = (struct fi_ops_av *)&pl_fid_nosys_av_ops,
	};
	struct fid_domain *dom_out = NULL;
	struct fid_ep *ep_out = NULL;
	struct fid_mr *mr_out = NULL;
	struct fid_av_set *set_out = NULL;
	struct fi_av_set_attr set_attr = { 0 };
	struct fi_cq_entry entry;
	uint32_t event;
	char buf[8];

	assert_int_equal(fi_domain(&fabric, NULL, &dom_out, NULL), -FI_ENOSYS);
	/* fi_domain2 and fi_endpoint2 check the table's size first */
	assert_int_equal(fi_domain2(&fabric, NULL, &dom_out, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(fi_endpoint2(&domain, NULL, &ep_out, 0, NULL),
			 -FI_ENOSYS);
	assert_int_equal(fi_mr_reg(&domain, buf, 1, FI_SEND, 0, 0, 0,
				   &mr_out, NULL), -FI_ENOSYS);
	assert_int_equal(fi_cq_read(&cq, &entry, 1), -FI_ENOSYS);
	assert_int_equal(fi_cq_signal(&cq), -FI_ENOSYS);
	assert_int_equal(fi_cntr_add(&cntr, 1), -FI_ENOSYS);
	assert_int_equal(fi_cntr_adderr(&cntr, 1), -FI_ENOSYS);
	assert_int_equal(fi_cntr_read(&cntr), 0);
	assert_int_equal(fi_eq_read(&eq, &event, buf, sizeof(buf), 0),
			 -FI_ENOSYS);
	assert_int_equal(fi_av_insert(&av, buf, 1, NULL, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_av_set(&av, &set_attr, &set_out, NULL),
			 -FI_ENOSYS);
	assert_int_equal(fi_control(&cq.fid, FI_GETWAIT, buf), -FI_ENOSYS);
	assert_null(dom_out);
	assert_null(ep_out);
	assert_null(mr_out);
	assert_null(set_out);
}

int main(void)
{
	static const struct CMUnitTest wrapper_tests[] = {
		cmocka_unit_test(test_endpoint_wrappers_reach_the_stubs),
		cmocka_unit_test(test_object_wrappers_reach_the_stubs),
	};
	int failed;

	failed = cmocka_run_group_tests_name("pl_fid_nosys tables",
					     pl_table_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("pl_fid_nosys wrappers",
					      wrapper_tests, NULL, NULL);
	return failed;
}
