/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FI_SHM_* table (prov/shm/shm_params.c): defaults, the reference's
 * names, environment overrides, bad values keeping the default, and the
 * table being listed like every other component's. Each scenario runs in
 * a child (values are read once per process).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pl_param.h"
#include "shm_cma.h"
#include "shm_params.h"
#include "shm_test.h"

static void child_defaults(void *arg)
{
	const struct shm_params *p = shm_params_get();

	SHM_CHECK(p->tx_size == SHM_TX_SIZE_DEFAULT);
	SHM_CHECK(p->rx_size == SHM_RX_SIZE_DEFAULT);
	SHM_CHECK(!p->disable_cma);
	SHM_CHECK(p->sar_threshold == SHM_SAR_THRESHOLD_DEFAULT);
	SHM_CHECK(p->inline_size == SHM_INLINE_SIZE_DEFAULT);
	SHM_CHECK(p->sar_buf_size == SHM_SAR_BUF_SIZE_DEFAULT);
	SHM_CHECK(p->sar_buf_count == SHM_SAR_BUF_COUNT_DEFAULT);
	SHM_CHECK(p->cma_split_min == SHM_CMA_SPLIT_MIN_DEFAULT);
	SHM_CHECK(p->peer_timeout_ms == SHM_PEER_TIMEOUT_MS_DEFAULT);
}

static void test_defaults(void **state)
{
	static const char *const unset[] = { "FI_SHM_TX_SIZE", "FI_SHM_RX_SIZE",
		"FI_SHM_DISABLE_CMA", "FI_SHM_SAR_THRESHOLD",
		"FI_SHM_INLINE_SIZE", "FI_SHM_SAR_BUF_SIZE",
		"FI_SHM_SAR_BUF_COUNT", "FI_SHM_CMA_SPLIT_MIN",
		"FI_SHM_PEER_TIMEOUT_MS", "FI_TUNING_PROFILE", NULL };

	for (int i = 0; unset[i]; i++)
		unsetenv(unset[i]);
	assert_int_equal(shm_test_wait(shm_test_spawn(child_defaults, NULL)), 0);
}

static void child_env(void *arg)
{
	const struct shm_params *p;

	setenv("FI_SHM_TX_SIZE", "77", 1);
	setenv("FI_SHM_RX_SIZE", "4096", 1);
	setenv("FI_SHM_DISABLE_CMA", "1", 1);
	setenv("FI_SHM_SAR_THRESHOLD", "65536", 1);
	setenv("FI_SHM_INLINE_SIZE", "512", 1);
	setenv("FI_SHM_SAR_BUF_SIZE", "8192", 1);
	setenv("FI_SHM_SAR_BUF_COUNT", "16", 1);
	setenv("FI_SHM_CMA_SPLIT_MIN", "0", 1);
	setenv("FI_SHM_PEER_TIMEOUT_MS", "0", 1);
	p = shm_params_get();
	SHM_CHECK(p->tx_size == 77 && p->rx_size == 4096);
	SHM_CHECK(p->disable_cma);
	SHM_CHECK(p->sar_threshold == 65536 && p->inline_size == 512);
	SHM_CHECK(p->sar_buf_size == 8192 && p->sar_buf_count == 16);
	SHM_CHECK(p->cma_split_min == 0 && p->peer_timeout_ms == 0);
	SHM_CHECK(shm_cma_state() == SHM_CMA_OFF_PARAM);
}

static void test_environment(void **state)
{
	assert_int_equal(shm_test_wait(shm_test_spawn(child_env, NULL)), 0);
}

static void child_bad(void *arg)
{
	const struct shm_params *p;

	setenv("FI_SHM_RX_SIZE", "lots", 1);
	setenv("FI_SHM_SAR_BUF_SIZE", "1", 1);	/* below 4096 */
	p = shm_params_get();
	SHM_CHECK(p->rx_size == SHM_RX_SIZE_DEFAULT);
	SHM_CHECK(p->sar_buf_size == SHM_SAR_BUF_SIZE_DEFAULT);
}

static void test_bad_values_keep_defaults(void **state)
{
	/* the warnings go to the child's stderr; the values are what count */
	assert_int_equal(shm_test_wait(shm_test_spawn(child_bad, NULL)), 0);
}

static int count_shm(const struct pl_param_info *info, void *arg)
{
	if (!strcmp(info->prov_name, "shm"))
		(*(int *)arg)++;
	return 0;
}

static void test_table_listed(void **state)
{
	int n = 0;

	shm_params_define();
	shm_params_define();	/* idempotent */
	assert_int_equal(pl_param_foreach(count_shm, &n), 0);
	assert_int_equal(n, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_bad_values_keep_defaults),
		cmocka_unit_test(test_table_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
