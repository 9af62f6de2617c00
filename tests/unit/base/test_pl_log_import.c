/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_open(..., "logging", ...) as pl_log_open serves it, and imported
 * logging ops (fi_import_log). An import lasts for the whole process, so
 * each scenario runs in a forked child. The children replay what
 * fi_import() does inline (open, fi_import_fid, close), with pl_log_open
 * standing in for fi_open's "logging" branch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext.h>
#include <rdma/providers/fi_log.h>

#include "pl_log.h"
#include "pl_test_child.h"

static struct fi_provider prov_imp = { .name = "imp" };
static struct pl_child_result res;

/* What the user's ops saw. */
static struct {
	int				enabled_calls;
	int				ready_calls;
	int				log_calls;
	const struct fi_provider	*prov;
	enum fi_log_level		level;
	enum fi_log_subsys		subsys;
	uint64_t			flags;
	uint64_t			*showtime;
	char				func[64];
	int				line;
	char				msg[256];
} seen;

static int user_enabled(const struct fi_provider *prov,
			enum fi_log_level level, enum fi_log_subsys subsys,
			uint64_t flags)
{
	seen.enabled_calls++;
	seen.prov = prov;
	seen.level = level;
	seen.subsys = subsys;
	seen.flags = flags;
	return level != FI_LOG_DEBUG;
}

static int user_ready(const struct fi_provider *prov, enum fi_log_level level,
		      enum fi_log_subsys subsys, uint64_t flags,
		      uint64_t *showtime)
{
	seen.ready_calls++;
	seen.flags = flags;
	seen.showtime = showtime;
	return 7;
}

static void user_log(const struct fi_provider *prov, enum fi_log_level level,
		     enum fi_log_subsys subsys, const char *func, int line,
		     const char *msg)
{
	seen.log_calls++;
	seen.prov = prov;
	seen.level = level;
	seen.subsys = subsys;
	snprintf(seen.func, sizeof(seen.func), "%s", func);
	seen.line = line;
	snprintf(seen.msg, sizeof(seen.msg), "%s", msg);
}

static struct fi_ops_log user_ops = {
	.enabled = user_enabled,
	.ready = user_ready,
	.log = user_log,
};

static struct fid_logging user_log_fid = { .ops = &user_ops };

/* fi_import_log() without fi_open: set what it sets, then import. */
static int import(struct fid_logging *lf, uint64_t flags)
{
	struct fid *open_fid;
	int ret;

	lf->fid.fclass = FI_CLASS_LOG;
	lf->ops->size = sizeof(struct fi_ops_log);
	ret = pl_log_open(FI_VERSION(1, 17), 0, &open_fid, lf);
	if (ret)
		return ret;
	ret = fi_import_fid(open_fid, &lf->fid, flags);
	PL_CHILD_CHECK(fi_close(open_fid) == 0);
	return ret;
}

static void run(void (*fn)(void *))
{
	const char *env[] = { "FI_LOG_LEVEL=warn", "FI_LOG_PROV",
			      "FI_LOG_SUBSYS", "FI_TUNING_PROFILE", NULL };

	assert_int_equal(pl_child_run(fn, NULL, env, &res), 0);
	if (res.status)
		fprintf(stderr, "child output:\n%s", res.out);
	assert_int_equal(res.status, 0);
}

static void test_open_checks_arguments(void **state)
{
	struct fid *fid = NULL;
	int ctx;

	assert_int_equal(pl_log_open(FI_VERSION(1, 17), 0, NULL, NULL),
			 -FI_EINVAL);
	assert_int_equal(pl_log_open(FI_VERSION(1, 17), 1, &fid, NULL),
			 -FI_EBADFLAGS);
	assert_null(fid);
	assert_int_equal(pl_log_open(FI_VERSION(1, 17), 0, &fid, &ctx), 0);
	assert_non_null(fid);
	assert_int_equal(fid->fclass, FI_CLASS_LOG);
	assert_ptr_equal(fid->context, &ctx);
	assert_int_equal(fi_control(fid, 0, NULL), -FI_ENOSYS);
	assert_int_equal(fi_close(fid), 0);
}

static void child_bad_imports(void *arg)
{
	struct fi_ops_log no_log = { .enabled = user_enabled,
				     .ready = user_ready };
	struct fid_logging partial = { .ops = &no_log };
	struct fid_logging no_ops = { .fid = { .fclass = FI_CLASS_LOG } };
	struct fid_logging wrong_class = { .ops = &user_ops };
	struct fid *open_fid;

	PL_CHILD_CHECK(pl_log_open(FI_VERSION(1, 17), 0, &open_fid, NULL) == 0);
	PL_CHILD_CHECK(fi_import_fid(open_fid, NULL, 0) == -FI_EINVAL);
	wrong_class.fid.fclass = FI_CLASS_EQ;
	PL_CHILD_CHECK(fi_import_fid(open_fid, &wrong_class.fid, 0) ==
		       -FI_EINVAL);
	PL_CHILD_CHECK(fi_import_fid(open_fid, &no_ops.fid, 0) == -FI_EINVAL);
	PL_CHILD_CHECK(fi_close(open_fid) == 0);

	PL_CHILD_CHECK(import(&partial, 0) == -FI_EINVAL);
	user_ops.size = 8;
	user_log_fid.fid.fclass = FI_CLASS_LOG;
	PL_CHILD_CHECK(pl_log_open(FI_VERSION(1, 17), 0, &open_fid, NULL) == 0);
	PL_CHILD_CHECK(fi_import_fid(open_fid, &user_log_fid.fid, 0) ==
		       -FI_EINVAL);
	PL_CHILD_CHECK(fi_close(open_fid) == 0);
	PL_CHILD_CHECK(import(&user_log_fid, 1) == -FI_EBADFLAGS);

	/* None of that took: the default logger still prints. */
	FI_WARN(&prov_imp, FI_LOG_CORE, "still default\n");
	PL_CHILD_CHECK(seen.enabled_calls == 0 && seen.log_calls == 0);
}

static void test_bad_imports_are_refused(void **state)
{
	run(child_bad_imports);
	assert_non_null(strstr(res.out, "still default\n"));
}

static void child_import_routes(void *arg)
{
	uint64_t site = 0;

	PL_CHILD_CHECK(import(&user_log_fid, 0) == 0);

	PL_CHILD_CHECK(fi_log_enabled(&prov_imp, FI_LOG_INFO, FI_LOG_AV) == 1);
	PL_CHILD_CHECK(seen.enabled_calls == 1);
	PL_CHILD_CHECK(seen.prov == &prov_imp && seen.level == FI_LOG_INFO &&
		       seen.subsys == FI_LOG_AV && seen.flags == 0);
	PL_CHILD_CHECK(fi_log_enabled(&prov_imp, FI_LOG_DEBUG, FI_LOG_AV) == 0);

	PL_CHILD_CHECK(fi_log_ready(&prov_imp, FI_LOG_WARN, FI_LOG_CQ,
				    &site) == 7);
	PL_CHILD_CHECK(seen.ready_calls == 1 && seen.showtime == &site);

	fi_log(&prov_imp, FI_LOG_INFO, FI_LOG_MR, "fn", 42, "hello %d\n", 7);
	PL_CHILD_CHECK(seen.log_calls == 1);
	PL_CHILD_CHECK(!strcmp(seen.msg, "hello 7\n"));	/* the text only */
	PL_CHILD_CHECK(!strcmp(seen.func, "fn") && seen.line == 42);
	PL_CHILD_CHECK(seen.level == FI_LOG_INFO && seen.subsys == FI_LOG_MR);

	/* Our own messages, the macros included, take the same road. */
	PL_WARN(FI_LOG_CORE, "from the core\n");
	PL_CHILD_CHECK(seen.log_calls == 2);
	PL_CHILD_CHECK(seen.prov == &pl_core_prov);
	PL_CHILD_CHECK(!strcmp(seen.msg, "from the core\n"));
}

static void test_imported_ops_receive_the_calls(void **state)
{
	run(child_import_routes);
	assert_string_equal(res.out, "");	/* nothing went to stderr */
}

static void child_second_import(void *arg)
{
	struct fi_ops_log other_ops = user_ops;
	struct fid_logging other = { .ops = &other_ops };

	PL_CHILD_CHECK(import(&user_log_fid, 0) == 0);
	PL_CHILD_CHECK(import(&other, 0) == -FI_EALREADY);
	fi_log(&prov_imp, FI_LOG_WARN, FI_LOG_CORE, "f", 1, "x\n");
	PL_CHILD_CHECK(seen.log_calls == 1);
}

/* As with the reference: the first import stays, later ones fail. */
static void test_second_import_is_ealready(void **state)
{
	run(child_second_import);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_checks_arguments),
		cmocka_unit_test(test_bad_imports_are_refused),
		cmocka_unit_test(test_imported_ops_receive_the_calls),
		cmocka_unit_test(test_second_import_is_ealready),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
