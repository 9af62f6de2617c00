/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The name grammars, unit by unit: FI_PROVIDER (pl_prov_filter) and
 * hints->fabric_attr->prov_name (pl_prov_sel). Expected answers are the
 * reference's, observed with Debian's libfabric 1.17 and its tcp, udp,
 * ofi_rxm and ofi_rxd providers (FI_PROVIDER=... fi_info, fi_info -p).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_prov_filter.h"
#include "pl_prov_sel.h"

struct filter_case {
	const char	*core;
	const char	*util;	/* NULL: the core on its own */
	bool		allowed;
};

static void check_filter(const char *raw, const struct filter_case *cases,
			 size_t n)
{
	struct pl_prov_filter f;
	size_t i;

	assert_int_equal(pl_prov_filter_parse(raw, &f), 0);
	for (i = 0; i < n; i++) {
		if (pl_prov_filter_allows(&f, cases[i].core, cases[i].util) !=
		    cases[i].allowed)
			fail_msg("FI_PROVIDER=%s: %s%s%s expected %s", raw,
				 cases[i].core, cases[i].util ? ";" : "",
				 cases[i].util ? cases[i].util : "",
				 cases[i].allowed ? "allowed" : "refused");
	}
	pl_prov_filter_fini(&f);
}

#define CHECK_FILTER(raw, ...)						\
	do {								\
		const struct filter_case c_[] = { __VA_ARGS__ };	\
		check_filter(raw, c_, sizeof(c_) / sizeof(c_[0]));	\
	} while (0)

static void test_filter_unset_allows_everything(void **state)
{
	CHECK_FILTER(NULL, { "tcp", NULL, true }, { "tcp", "ofi_rxm", true });
}

static void test_filter_include_core_brings_its_pairs(void **state)
{
	CHECK_FILTER("tcp", { "tcp", NULL, true }, { "tcp", "ofi_rxm", true },
		     { "udp", NULL, false }, { "udp", "ofi_rxd", false });
	CHECK_FILTER("TCP", { "tcp", NULL, true });
	CHECK_FILTER(",tcp,", { "tcp", NULL, true }, { "udp", NULL, false });
}

static void test_filter_include_pair_not_its_core(void **state)
{
	CHECK_FILTER("tcp;ofi_rxm,udp", { "tcp", NULL, false },
		     { "tcp", "ofi_rxm", true }, { "udp", NULL, true },
		     { "udp", "ofi_rxd", true }, { "net", "ofi_rxm", false });
	/* Core first, as fi_info prints it; the reverse names nothing. */
	CHECK_FILTER("ofi_rxm;tcp", { "tcp", "ofi_rxm", false });
}

static void test_filter_include_utility_alone_lists_nothing(void **state)
{
	CHECK_FILTER("ofi_rxm", { "tcp", NULL, false },
		     { "tcp", "ofi_rxm", false });
}

static void test_filter_exclusions(void **state)
{
	CHECK_FILTER("^tcp", { "tcp", NULL, false },
		     { "tcp", "ofi_rxm", false }, { "net", "ofi_rxm", true },
		     { "udp", NULL, true });
	CHECK_FILTER("^ofi_rxm", { "tcp", NULL, true },
		     { "tcp", "ofi_rxm", false }, { "udp", "ofi_rxd", true });
	CHECK_FILTER("^tcp;ofi_rxm", { "tcp", NULL, true },
		     { "tcp", "ofi_rxm", false }, { "net", "ofi_rxm", true });
	/* The caret applies to the whole list, once. */
	CHECK_FILTER("^tcp,udp", { "tcp", NULL, false },
		     { "udp", NULL, false });
	CHECK_FILTER("^tcp,^udp", { "tcp", NULL, false },
		     { "udp", NULL, true });
	CHECK_FILTER("tcp,^udp", { "tcp", NULL, true },
		     { "udp", NULL, false });
}

static void test_filter_empty_values(void **state)
{
	CHECK_FILTER("", { "tcp", NULL, false }, { "tcp", "ofi_rxm", false });
	CHECK_FILTER("^", { "tcp", NULL, true }, { "tcp", "ofi_rxm", true });
}

static void test_filter_base_for_utilities(void **state)
{
	struct pl_prov_filter f;

	assert_int_equal(pl_prov_filter_parse("tcp;ofi_rxm", &f), 0);
	assert_true(pl_prov_filter_allows_base(&f, "tcp"));
	assert_false(pl_prov_filter_allows_base(&f, "tc"));
	assert_false(pl_prov_filter_allows_base(&f, "udp"));
	pl_prov_filter_fini(&f);
	assert_int_equal(pl_prov_filter_parse("^tcp", &f), 0);
	assert_false(pl_prov_filter_allows_base(&f, "tcp"));
	assert_true(pl_prov_filter_allows_base(&f, "udp"));
	pl_prov_filter_fini(&f);
}

/* A provider's own peer (rxm's shm): an include list does not hide it,
 * an exclude list naming it does. */
static void test_filter_peer_of_a_provider(void **state)
{
	struct pl_prov_filter f;

	(void)state;
	assert_int_equal(pl_prov_filter_parse("tcp;ofi_rxm", &f), 0);
	assert_false(pl_prov_filter_allows(&f, "shm", NULL));
	assert_true(pl_prov_filter_allows_peer(&f, "shm"));
	pl_prov_filter_fini(&f);
	assert_int_equal(pl_prov_filter_parse("^shm", &f), 0);
	assert_false(pl_prov_filter_allows_peer(&f, "shm"));
	assert_true(pl_prov_filter_allows_peer(&f, "tcp"));
	pl_prov_filter_fini(&f);
	assert_int_equal(pl_prov_filter_parse("^tcp", &f), 0);
	assert_true(pl_prov_filter_allows_peer(&f, "shm"));
	pl_prov_filter_fini(&f);
}

static void check_sel(const char *prov_name, const struct filter_case *cases,
		      size_t n)
{
	struct pl_prov_sel sel;
	size_t i;

	assert_int_equal(pl_prov_sel_parse(prov_name, &sel), 0);
	for (i = 0; i < n; i++) {
		if (pl_prov_sel_allows(&sel, cases[i].core, cases[i].util) !=
		    cases[i].allowed)
			fail_msg("prov_name=%s: %s%s%s expected %s", prov_name,
				 cases[i].core, cases[i].util ? ";" : "",
				 cases[i].util ? cases[i].util : "",
				 cases[i].allowed ? "allowed" : "refused");
	}
	pl_prov_sel_fini(&sel);
}

#define CHECK_SEL(name, ...)						\
	do {								\
		const struct filter_case c_[] = { __VA_ARGS__ };	\
		check_sel(name, c_, sizeof(c_) / sizeof(c_[0]));	\
	} while (0)

static void test_sel_core_name(void **state)
{
	CHECK_SEL("tcp", { "tcp", NULL, true }, { "tcp", "ofi_rxm", true },
		  { "net", "ofi_rxm", false }, { "udp", NULL, false });
	CHECK_SEL("TCP", { "tcp", NULL, true });
}

static void test_sel_utility_name(void **state)
{
	CHECK_SEL("ofi_rxm", { "tcp", NULL, false },
		  { "tcp", "ofi_rxm", true }, { "net", "ofi_rxm", true },
		  { "udp", "ofi_rxd", false });
}

static void test_sel_pair_either_order(void **state)
{
	CHECK_SEL("tcp;ofi_rxm", { "tcp", NULL, false },
		  { "tcp", "ofi_rxm", true }, { "net", "ofi_rxm", false });
	CHECK_SEL("ofi_rxm;tcp", { "tcp", "ofi_rxm", true });
}

static void test_sel_refusals(void **state)
{
	CHECK_SEL("tcp;^ofi_rxm", { "tcp", NULL, true },
		  { "tcp", "ofi_rxm", false });
	CHECK_SEL("ofi_rxm;^net", { "tcp", "ofi_rxm", true },
		  { "net", "ofi_rxm", false });
	CHECK_SEL("^ofi_rxm;tcp", { "tcp", NULL, true },
		  { "tcp", "ofi_rxm", false });
}

static void test_sel_nonsense_matches_nothing(void **state)
{
	CHECK_SEL("tcp,udp", { "tcp", NULL, false }, { "udp", NULL, false });
	CHECK_SEL("tcp;ofi_rxm;shm", { "tcp", "ofi_rxm", false },
		  { "shm", NULL, false });
}

static void test_sel_empty_selects_everything(void **state)
{
	CHECK_SEL("", { "tcp", NULL, true }, { "tcp", "ofi_rxm", true });
	CHECK_SEL(NULL, { "tcp", NULL, true });
	CHECK_SEL(";tcp;", { "tcp", NULL, true });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_unset_allows_everything),
		cmocka_unit_test(test_filter_include_core_brings_its_pairs),
		cmocka_unit_test(test_filter_include_pair_not_its_core),
		cmocka_unit_test(test_filter_include_utility_alone_lists_nothing),
		cmocka_unit_test(test_filter_exclusions),
		cmocka_unit_test(test_filter_empty_values),
		cmocka_unit_test(test_filter_base_for_utilities),
		cmocka_unit_test(test_filter_peer_of_a_provider),
		cmocka_unit_test(test_sel_core_name),
		cmocka_unit_test(test_sel_utility_name),
		cmocka_unit_test(test_sel_pair_either_order),
		cmocka_unit_test(test_sel_refusals),
		cmocka_unit_test(test_sel_nonsense_matches_nothing),
		cmocka_unit_test(test_sel_empty_selects_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
