/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_peer(3), owner side of the peer AV: the fid_peer_av every AV exports,
 * its query and ep_addr owner ops, and a pretend peer provider that
 * imports it through fi_peer_av_context and resolves the owner's
 * fi_addr_t values on its own data path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_ext.h>

#include "pl_av_test_util.h"
#include "pl_av_int.h"
#include "pl_fid_nosys.h"

/* ---- a local endpoint whose fi_getname reports a test_addr ---- */

struct test_ep {
	struct fid_ep ep;
	struct test_addr name;
	int getname_ret;
};

static int test_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct test_ep *t = (struct test_ep *)fid;	/* fid is first */
	size_t len = *addrlen;

	if (t->getname_ret)
		return t->getname_ret;
	*addrlen = sizeof(t->name);
	if (len < sizeof(t->name))
		return -FI_ETOOSMALL;
	memcpy(addr, &t->name, sizeof(t->name));
	return 0;
}

static struct fi_ops_cm test_ep_cm = {
	.size = sizeof(struct fi_ops_cm),
	.setname = pl_fid_nosys_cm_setname,
	.getname = test_ep_getname,
	.getpeer = pl_fid_nosys_cm_getpeer,
	.connect = pl_fid_nosys_cm_connect,
	.listen = pl_fid_nosys_cm_listen,
	.accept = pl_fid_nosys_cm_accept,
	.reject = pl_fid_nosys_cm_reject,
	.shutdown = pl_fid_nosys_cm_shutdown,
	.join = pl_fid_nosys_cm_join,
};

static void test_ep_init(struct test_ep *t, uint64_t id)
{
	memset(t, 0, sizeof(*t));
	t->ep.fid.fclass = FI_CLASS_EP;
	t->ep.cm = &test_ep_cm;
	t->name = test_addr_make(id, 1);
}

/* ---- a pretend peer provider: its fi_av_open with FI_PEER ---- */

struct peer_prov_av {
	struct fid_peer_av *owner;
	struct fid_av *engine_av;	/* owner resolved through the engine */
};

static int peer_prov_av_open(struct fi_av_attr *attr, uint64_t flags,
			     void *context, struct peer_prov_av *out)
{
	struct fi_peer_av_context *pctx = context;

	if (!(flags & FI_PEER) || !pctx || pctx->size < sizeof(*pctx))
		return -FI_EINVAL;
	/* fi_ext.h keeps 1.17's misspelt member type (struct fi_peer_av). */
	out->owner = (struct fid_peer_av *)pctx->av;
	out->engine_av = pl_av_peer_owner(out->owner);
	return out->owner->owner_ops->query(out->owner, attr);
}

/* The peer's "send": resolve the owner's handle to the address bytes. */
static long long peer_prov_resolve(struct peer_prov_av *p, fi_addr_t fa)
{
	struct pl_av_peer peer;
	long long id = -1;

	pl_rcu_read_lock();
	if (!pl_av_lookup_peer(p->engine_av, fa, &peer))
		id = (long long)((const struct test_addr *)peer.addr)->id;
	pl_rcu_read_unlock();
	return id;
}

static struct fid_av *open_av(enum fi_av_type type, int rx_ctx_bits)
{
	struct fi_av_attr attr = { .type = type, .rx_ctx_bits = rx_ctx_bits,
				   .ep_per_node = 4 };
	struct fid_av *av = NULL;

	assert_int_equal(pl_av_open(NULL, &attr, sizeof(struct test_addr),
				    &test_ops, &av, NULL), 0);
	return av;
}

static void test_exported_peer_av_links_back_to_the_av(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0);
	struct fid_peer_av *peer = pl_av_peer_export(av);
	struct fid_peer_av foreign = { .owner_ops = NULL };

	assert_non_null(peer);
	assert_ptr_equal(pl_av_peer_export(av), peer);	/* one per AV */
	assert_int_equal(peer->fid.fclass, FI_CLASS_PEER_AV);
	assert_ptr_equal(peer->fid.context, av);
	assert_non_null(peer->owner_ops);
	assert_int_equal(peer->owner_ops->size, sizeof(struct fi_ops_av_owner));
	assert_non_null(peer->owner_ops->query);
	assert_non_null(peer->owner_ops->ep_addr);
	assert_ptr_equal(pl_av_peer_owner(peer), av);
	assert_null(pl_av_peer_owner(&foreign));
	assert_null(pl_av_peer_owner(NULL));
	/* Not the peer's to close: the AV's lifetime is the owner's. */
	assert_int_equal(fi_close(&peer->fid), -FI_ENOSYS);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_query_reports_current_attributes(void **state)
{
	struct fid_av *av = open_av(FI_AV_MAP, 4);
	struct fid_peer_av *peer = pl_av_peer_export(av);
	struct test_addr a[3] = { test_addr_make(1, 1), test_addr_make(2, 2),
				  test_addr_make(3, 3) };
	struct fi_av_attr attr;
	fi_addr_t fa[3];

	assert_int_equal(peer->owner_ops->query(peer, NULL), -FI_EINVAL);
	memset(&attr, 0xa5, sizeof(attr));
	assert_int_equal(peer->owner_ops->query(peer, &attr), 0);
	assert_int_equal(attr.type, FI_AV_MAP);
	assert_int_equal(attr.rx_ctx_bits, 4);
	assert_int_equal(attr.ep_per_node, 4);
	assert_int_equal(attr.count, 0);
	assert_int_equal(attr.flags, 0);
	assert_null(attr.name);
	assert_int_equal(fi_av_insert(av, a, 3, fa, 0, NULL), 3);
	assert_int_equal(peer->owner_ops->query(peer, &attr), 0);
	assert_int_equal(attr.count, 3);
	assert_int_equal(fi_av_remove(av, &fa[1], 1, 0), 0);
	assert_int_equal(peer->owner_ops->query(peer, &attr), 0);
	assert_int_equal(attr.count, 2);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_ep_addr_finds_the_endpoints_own_address(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 0);
	struct fid_peer_av *peer = pl_av_peer_export(av);
	struct test_ep ep;
	fi_addr_t fa;

	test_ep_init(&ep, 42);
	/* Not inserted yet. */
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep),
			 FI_ADDR_NOTAVAIL);
	fa = 0;
	{
		struct test_addr others[2] = { test_addr_make(7, 1),
					       test_addr_make(8, 1) };
		fi_addr_t ofa[2];

		assert_int_equal(fi_av_insert(av, others, 2, ofa, 0, NULL), 2);
	}
	assert_int_equal(fi_av_insert(av, &ep.name, 1, &fa, 0, NULL), 1);
	assert_int_equal(fa, 2);
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep), fa);
	/* A failing fi_getname, an endpoint without cm ops: not available. */
	ep.getname_ret = -FI_EOPBADSTATE;
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep),
			 FI_ADDR_NOTAVAIL);
	ep.getname_ret = 0;
	assert_int_equal(peer->owner_ops->ep_addr(peer, NULL),
			 FI_ADDR_NOTAVAIL);
	/* Removed: no longer available. */
	assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep),
			 FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_close(&av->fid), 0);
}

/* An endpoint of another provider (a longer address) is never in the AV,
 * even when its first bytes match an address that is. */
static void test_ep_addr_of_a_foreign_endpoint_is_not_available(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fid_av *av = NULL;
	struct fid_peer_av *peer;
	struct test_ep ep;
	fi_addr_t fa;

	/* An AV of 8-byte addresses: the endpoint's name is 16 bytes. */
	assert_int_equal(pl_av_open(NULL, &attr, 8, NULL, &av, NULL), 0);
	peer = pl_av_peer_export(av);
	test_ep_init(&ep, 5);
	assert_int_equal(fi_av_insert(av, &ep.name, 1, &fa, 0, NULL), 1);
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep),
			 FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_peer_provider_resolves_the_owners_handles(void **state)
{
	struct fid_av *av = open_av(FI_AV_TABLE, 2);
	struct fi_peer_av_context pctx = {
		.size = sizeof(pctx),
		.av = (struct fi_peer_av *)pl_av_peer_export(av),
	};
	struct test_addr a[4];
	struct peer_prov_av p;
	struct fi_av_attr attr;
	fi_addr_t fa[4];
	int i;

	for (i = 0; i < 4; i++)
		a[i] = test_addr_make(100 + i, 9);
	assert_int_equal(fi_av_insert(av, a, 4, fa, 0, NULL), 4);
	assert_int_equal(peer_prov_av_open(&attr, 0, &pctx, &p), -FI_EINVAL);
	assert_int_equal(peer_prov_av_open(&attr, FI_PEER, &pctx, &p), 0);
	assert_int_equal(attr.count, 4);
	assert_int_equal(attr.rx_ctx_bits, 2);
	assert_ptr_equal(p.engine_av, av);
	for (i = 0; i < 4; i++)
		assert_int_equal(peer_prov_resolve(&p, fa[i]), 100 + i);
	/* The peer sees the owner's receive-context bits and removals. */
	assert_int_equal(peer_prov_resolve(&p, fi_rx_addr(fa[3], 1, 2)), 103);
	assert_int_equal(fi_av_remove(av, &fa[0], 1, 0), 0);
	assert_int_equal(peer_prov_resolve(&p, fa[0]), -1);
	assert_int_equal(fi_close(&av->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exported_peer_av_links_back_to_the_av),
		cmocka_unit_test(test_query_reports_current_attributes),
		cmocka_unit_test(test_ep_addr_finds_the_endpoints_own_address),
		cmocka_unit_test(test_ep_addr_of_a_foreign_endpoint_is_not_available),
		cmocka_unit_test(test_peer_provider_resolves_the_owners_handles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
