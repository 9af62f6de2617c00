/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_TUNING_PROFILE: profile values act as defaults, the environment
 * overrides them, the file syntax, and the warnings for a malformed line
 * and a missing file. The profile is read once per process, so every
 * scenario runs in a forked child (pl_test_child.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#include "pl_log.h"
#include "pl_param.h"
#include "pl_tuning_profile.h"
#include "pl_test_child.h"

static struct fi_provider prov_tp = { .name = "tp" };
static struct pl_child_result res;
static char profile[64];
static char env_profile[96];

static void write_profile(const char *text)
{
	FILE *f;
	int fd;

	snprintf(profile, sizeof(profile), "/tmp/pl_profile_XXXXXX");
	fd = mkstemp(profile);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(env_profile, sizeof(env_profile), "FI_TUNING_PROFILE=%s",
		 profile);
}

static int teardown(void **state)
{
	if (profile[0])
		unlink(profile);
	profile[0] = '\0';
	return 0;
}

static void run(void (*fn)(void *), const char *extra_env)
{
	const char *env[] = { env_profile, "FI_LOG_LEVEL=warn", "FI_LOG_PROV",
			      "FI_LOG_SUBSYS", extra_env, NULL };

	assert_int_equal(pl_child_run(fn, NULL, env, &res), 0);
	if (res.status)
		fprintf(stderr, "child output:\n%s", res.out);
	assert_int_equal(res.status, 0);
}

static void define_tp(void)
{
	PL_CHILD_CHECK(!fi_param_define(&prov_tp, "spin", FI_PARAM_INT, "s"));
	PL_CHILD_CHECK(!fi_param_define(&prov_tp, "name", FI_PARAM_STRING,
					"n"));
	PL_CHILD_CHECK(!fi_param_define(&prov_tp, "flag", FI_PARAM_BOOL,
					"f"));
}

static void child_profile_value_is_used(void *arg)
{
	int v = 0;

	define_tp();
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == 0);
	PL_CHILD_CHECK(v == 20);
	PL_CHILD_CHECK(pl_tuning_profile_path() != NULL);
	PL_CHILD_CHECK(!strcmp(pl_tuning_profile_path(),
			       getenv("FI_TUNING_PROFILE")));
}

static void test_profile_value_is_the_default(void **state)
{
	write_profile("FI_TP_SPIN=20\n");
	run(child_profile_value_is_used, NULL);
	assert_null(strstr(res.out, "<warn>"));
}

static void child_env_overrides(void *arg)
{
	int v = 0;

	define_tp();
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == 0);
	PL_CHILD_CHECK(v == 30);
	PL_CHILD_CHECK(pl_param_get_int(&prov_tp, "spin", 1, 0, 100) == 30);
}

static void test_environment_overrides_profile(void **state)
{
	write_profile("FI_TP_SPIN=20\n");
	run(child_env_overrides, "FI_TP_SPIN=30");
}

static void child_syntax(void *arg)
{
	char *s = NULL;
	int v = 0, b = 0;

	define_tp();
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == 0);
	PL_CHILD_CHECK(v == 3);	/* the last assignment wins */
	PL_CHILD_CHECK(fi_param_get_str(&prov_tp, "name", &s) == 0);
	PL_CHILD_CHECK(!strcmp(s, "a b # not a comment"));
	PL_CHILD_CHECK(fi_param_get_bool(&prov_tp, "flag", &b) == 0);
	PL_CHILD_CHECK(b == 1);
	PL_CHILD_CHECK(!strcmp(pl_tuning_profile_lookup("OTHER"), "x#y"));
	PL_CHILD_CHECK(!strcmp(pl_tuning_profile_lookup("EMPTY"), ""));
	PL_CHILD_CHECK(!strcmp(pl_tuning_profile_lookup("SQ"), "single"));
	PL_CHILD_CHECK(pl_tuning_profile_lookup("NOT_THERE") == NULL);
}

static void test_profile_syntax(void **state)
{
	write_profile("# a comment\n"
		      "\n"
		      "   \t\n"
		      "FI_TP_SPIN=1\n"
		      "export FI_TP_SPIN=2\n"
		      "  FI_TP_SPIN = 3   # spaced, commented\r\n"
		      "FI_TP_NAME=\"a b # not a comment\"\n"
		      "FI_TP_FLAG=on\n"
		      "OTHER=x#y\n"
		      "EMPTY=\n"
		      "SQ='single'  # trailing comment\n");
	run(child_syntax, NULL);
	assert_null(strstr(res.out, "<warn>"));
}

static void child_malformed(void *arg)
{
	int v = 0;

	define_tp();
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == 0);
	PL_CHILD_CHECK(v == 5);
	/* Later lookups do not repeat the warning. */
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == 0);
}

static void test_malformed_line_warns_with_file_and_line(void **state)
{
	char where[96];

	write_profile("# header\n"
		      "FI_TP_SPIN=5\n"
		      "this is not an assignment\n"
		      "FI_TP_NAME=\"unterminated\n");
	run(child_malformed, NULL);
	snprintf(where, sizeof(where), "%s:3: malformed line", profile);
	assert_non_null(strstr(res.out, where));
	assert_non_null(strstr(res.out, "this is not an assignment"));
	snprintf(where, sizeof(where), "%s:4: malformed line", profile);
	assert_non_null(strstr(res.out, where));
	assert_int_equal(pl_count(res.out, "<warn>"), 2);
}

static void child_missing(void *arg)
{
	int v = 0;

	define_tp();
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == -FI_ENODATA);
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == -FI_ENODATA);
	PL_CHILD_CHECK(pl_tuning_profile_path() == NULL);
}

static void test_missing_file_warns_once(void **state)
{
	snprintf(env_profile, sizeof(env_profile),
		 "FI_TUNING_PROFILE=/nonexistent/pl_profile");
	run(child_missing, NULL);
	assert_int_equal(pl_count(res.out, "<warn>"), 1);
	assert_non_null(strstr(res.out,
			       "FI_TUNING_PROFILE=/nonexistent/pl_profile"));
}

static void child_unreadable(void *arg)
{
	int v = 0;

	define_tp();
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == -FI_ENODATA);
	PL_CHILD_CHECK(fi_param_get_int(&prov_tp, "spin", &v) == -FI_ENODATA);
}

/* A directory opens but does not read. */
static void test_unreadable_file_warns(void **state)
{
	snprintf(env_profile, sizeof(env_profile), "FI_TUNING_PROFILE=/tmp");
	run(child_unreadable, NULL);
	assert_int_equal(pl_count(res.out, "<warn>"), 1);
	assert_non_null(strstr(res.out, "FI_TUNING_PROFILE=/tmp"));
}

static void child_bad_profile_value(void *arg)
{
	define_tp();
	PL_CHILD_CHECK(pl_param_get_int(&prov_tp, "spin", 7, 0, 100) == 7);
}

/* A bad value from the profile is reported as coming from it. */
static void test_bad_profile_value_names_its_source(void **state)
{
	write_profile("FI_TP_SPIN=fast\n");
	run(child_bad_profile_value, NULL);
	assert_int_equal(pl_count(res.out, "<warn>"), 1);
	assert_non_null(strstr(res.out, "FI_TP_SPIN=\"fast\" (from the "
				       "tuning profile)"));
}

static void child_getparams(void *arg)
{
	struct fi_param *params;
	int count, i, found = 0;

	define_tp();
	PL_CHILD_CHECK(fi_getparams(&params, &count) == 0);
	for (i = 0; i < count; i++) {
		if (!strcmp(params[i].name, "FI_TP_SPIN")) {
			PL_CHILD_CHECK(params[i].value != NULL);
			PL_CHILD_CHECK(!strcmp(params[i].value, "11"));
			found = 1;
		}
		if (!strcmp(params[i].name, "FI_UNIVERSE_SIZE")) {
			PL_CHILD_CHECK(params[i].value != NULL);
			PL_CHILD_CHECK(!strcmp(params[i].value, "64"));
		}
	}
	fi_freeparams(params);
	PL_CHILD_CHECK(found);
}

static void test_getparams_shows_profile_values(void **state)
{
	write_profile("FI_TP_SPIN=11\nFI_UNIVERSE_SIZE=64\n");
	run(child_getparams, NULL);
}

static void child_log_first(void *arg)
{
	PL_WARN(FI_LOG_CORE, "first message\n");
	PL_INFO(FI_LOG_CORE, "info message\n");
}

/*
 * The logging set-up reads FI_LOG_LEVEL through the profile and the
 * profile's warnings go through logging: whichever starts first, both
 * complete, and the profile's level applies.
 */
static void test_profile_sets_log_level_and_reports_through_logging(void **state)
{
	write_profile("FI_LOG_LEVEL=info\nbroken line\n");
	run(child_log_first, "FI_LOG_LEVEL");
	assert_non_null(strstr(res.out, "first message"));
	assert_non_null(strstr(res.out, "info message"));
	assert_non_null(strstr(res.out, ":2: malformed line"));
}

static void test_profile_can_silence_logging(void **state)
{
	write_profile("FI_LOG_LEVEL=none\n");
	run(child_log_first, "FI_LOG_LEVEL");
	assert_string_equal(res.out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_profile_value_is_the_default, teardown),
		cmocka_unit_test_teardown(test_environment_overrides_profile, teardown),
		cmocka_unit_test_teardown(test_profile_syntax, teardown),
		cmocka_unit_test_teardown(test_malformed_line_warns_with_file_and_line, teardown),
		cmocka_unit_test_teardown(test_missing_file_warns_once, teardown),
		cmocka_unit_test_teardown(test_unreadable_file_warns, teardown),
		cmocka_unit_test_teardown(test_bad_profile_value_names_its_source, teardown),
		cmocka_unit_test_teardown(test_getparams_shows_profile_values, teardown),
		cmocka_unit_test_teardown(test_profile_sets_log_level_and_reports_through_logging, teardown),
		cmocka_unit_test_teardown(test_profile_can_silence_logging, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
