/* SPDX-License-Identifier: BSD-2-Clause */
/* The generic endpoint object (pl_ep.h): bind references make the bound
 * CQ, counter and AV refuse fi_close until the endpoint goes; enable's
 * -FI_ENOAV / -FI_ENOCQ; binds refused after enable or twice per
 * direction; FI_OPT_MIN_MULTI_RECV and the options an RDM endpoint does
 * not have. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "pl_av.h"
#include "pl_cntr.h"
#include "pl_cq.h"
#include "pl_domain.h"
#include "pl_ep.h"

struct env {
	struct pl_domain *dom;
	struct fid_cq *cq;
	struct fid_cntr *cntr;
	struct fid_av *av;
};

static int env_setup(void **state)
{
	static struct fi_domain_attr da;
	static struct fi_info info;
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->dom = calloc(1, sizeof(*e->dom));
	assert_non_null(e->dom);
	da.data_progress = FI_PROGRESS_MANUAL;
	da.threading = FI_THREAD_SAFE;
	info.domain_attr = &da;
	assert_int_equal(pl_domain_init(e->dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	assert_int_equal(pl_cq_open(&e->dom->domain_fid, NULL, &e->cq, NULL),
			 0);
	assert_int_equal(pl_cntr_open(&e->dom->domain_fid, &ca, &e->cntr,
				      NULL), 0);
	assert_int_equal(pl_av_open(&e->dom->domain_fid, &ava, 8, NULL,
				    &e->av, NULL), 0);
	*state = e;
	return 0;
}

static int env_teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(fi_close(&e->av->fid), 0);
	assert_int_equal(fi_close(&e->cntr->fid), 0);
	assert_int_equal(fi_close(&e->cq->fid), 0);
	assert_int_equal(pl_domain_fini(e->dom), 0);
	free(e->dom);
	free(e);
	return 0;
}

static void ep_init(struct env *e, struct pl_ep *ep, uint64_t caps)
{
	struct fi_ep_attr ea = { .type = FI_EP_RDM };
	struct fi_info info = { .caps = caps, .ep_attr = &ea };

	assert_int_equal(pl_ep_init(ep, &e->dom->domain_fid, &info, NULL), 0);
}

static void test_bind_refs_block_close(void **state)
{
	struct env *e = *state;
	struct pl_ep ep;

	ep_init(e, &ep, FI_MSG);
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, FI_TRANSMIT | FI_RECV),
			 0);
	assert_int_equal(pl_ep_bind(&ep, &e->cntr->fid, FI_SEND | FI_RECV), 0);
	assert_int_equal(pl_ep_bind(&ep, &e->av->fid, 0), 0);
	assert_ptr_equal(ep.tx_cq, e->cq);
	assert_ptr_equal(ep.rx_cq, e->cq);
	assert_ptr_equal(pl_ep_cntr(&ep, PL_EP_CNTR_SEND), e->cntr);
	assert_null(pl_ep_cntr(&ep, PL_EP_CNTR_READ));
	/* bound: close refuses; the domain counts the endpoint */
	assert_int_equal(fi_close(&e->cq->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&e->cntr->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&e->av->fid), -FI_EBUSY);
	assert_int_equal(pl_domain_fini(e->dom), -FI_EBUSY);
	pl_ep_fini(&ep);
	/* teardown closes them: the references are gone */
}

static void test_bind_errors(void **state)
{
	struct env *e = *state;
	struct pl_ep ep;

	ep_init(e, &ep, FI_MSG);
	assert_int_equal(pl_ep_bind(&ep, NULL, 0), -FI_EINVAL);
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, 0), -FI_EINVAL);
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, FI_READ), -FI_EINVAL);
	assert_int_equal(pl_ep_bind(&ep, &e->av->fid, FI_SEND), -FI_EINVAL);
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, FI_TRANSMIT), 0);
	/* one CQ per direction */
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, FI_TRANSMIT),
			 -FI_EINVAL);
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, FI_RECV |
				    FI_SELECTIVE_COMPLETION), 0);
	assert_true(ep.rx_cq_flags & FI_SELECTIVE_COMPLETION);
	assert_false(ep.tx_cq_flags & FI_SELECTIVE_COMPLETION);
	assert_int_equal(pl_ep_bind(&ep, &e->av->fid, 0), 0);
	assert_int_equal(pl_ep_bind(&ep, &e->av->fid, 0), -FI_EINVAL);
	assert_int_equal(pl_ep_enable(&ep), 0);
	assert_int_equal(pl_ep_enable(&ep), -FI_EOPBADSTATE);
	/* after enable nothing more binds */
	assert_int_equal(pl_ep_bind(&ep, &e->cntr->fid, FI_SEND),
			 -FI_EOPBADSTATE);
	pl_ep_fini(&ep);
}

static void test_enable_needs_av_and_cqs(void **state)
{
	struct env *e = *state;
	struct pl_ep ep;

	ep_init(e, &ep, FI_MSG | FI_SEND | FI_RECV);
	assert_int_equal(pl_ep_enable(&ep), -FI_ENOAV);
	assert_int_equal(pl_ep_bind(&ep, &e->av->fid, 0), 0);
	assert_int_equal(pl_ep_enable(&ep), -FI_ENOCQ);
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, FI_TRANSMIT), 0);
	assert_int_equal(pl_ep_enable(&ep), -FI_ENOCQ);	/* no receive side */
	/* a counter serves a direction as well as a CQ */
	assert_int_equal(pl_ep_bind(&ep, &e->cntr->fid, FI_RECV), 0);
	assert_int_equal(pl_ep_enable(&ep), 0);
	pl_ep_fini(&ep);

	/* receive-only capabilities need no transmit CQ */
	ep_init(e, &ep, FI_MSG | FI_RECV);
	assert_int_equal(pl_ep_bind(&ep, &e->av->fid, 0), 0);
	assert_int_equal(pl_ep_bind(&ep, &e->cq->fid, FI_RECV), 0);
	assert_int_equal(pl_ep_enable(&ep), 0);
	pl_ep_fini(&ep);
}

static void test_options(void **state)
{
	struct env *e = *state;
	size_t v = 4096, out = 0, len = sizeof(out), small = 1;
	struct pl_ep ep;

	ep_init(e, &ep, FI_MSG);
	assert_int_equal(pl_ep_getopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_MIN_MULTI_RECV, &out, &len), 0);
	assert_int_equal(out, PL_EP_MIN_MULTI_RECV_DEFAULT);
	assert_int_equal(pl_ep_setopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_MIN_MULTI_RECV, &v, sizeof(v)), 0);
	assert_int_equal(pl_ep_getopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_MIN_MULTI_RECV, &out, &len), 0);
	assert_int_equal(out, 4096);
	assert_int_equal(len, sizeof(size_t));
	assert_int_equal(pl_ep_setopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_MIN_MULTI_RECV, &v, 4),
			 -FI_EINVAL);
	assert_int_equal(pl_ep_setopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_MIN_MULTI_RECV, NULL, sizeof(v)),
			 -FI_EINVAL);
	assert_int_equal(pl_ep_getopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_MIN_MULTI_RECV, &out, &small),
			 -FI_ETOOSMALL);
	assert_int_equal(small, sizeof(size_t));
	/* no CM data on a connectionless endpoint */
	assert_int_equal(pl_ep_getopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_CM_DATA_SIZE, &out, &len),
			 -FI_ENOPROTOOPT);
	assert_int_equal(pl_ep_setopt(&ep, FI_OPT_ENDPOINT,
				      FI_OPT_CM_DATA_SIZE, &v, sizeof(v)),
			 -FI_ENOPROTOOPT);
	assert_int_equal(pl_ep_setopt(&ep, FI_OPT_ENDPOINT + 1,
				      FI_OPT_MIN_MULTI_RECV, &v, sizeof(v)),
			 -FI_ENOPROTOOPT);
	pl_ep_fini(&ep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bind_refs_block_close,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_bind_errors, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_enable_needs_av_and_cqs,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_options, env_setup,
						env_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
