/* SPDX-License-Identifier: BSD-2-Clause */
/* shm names (prov/shm/transport/shm_addr.c): the reference's FI_ADDR_STR
 * forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "shm_addr.h"
#include "shm_layout.h"

static void test_resolve(void **state)
{
	char buf[SHM_NAME_MAX], want[64];

	assert_true(shm_addr_resolve("n", "s", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fi_ns://n:s");
	assert_true(shm_addr_resolve(NULL, "1234", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fi_ns://1234");
	assert_true(shm_addr_resolve("node", NULL, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fi_shm://node");
	assert_true(shm_addr_resolve(NULL, NULL, buf, sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "fi_shm://%d", (int)getpid());
	assert_string_equal(buf, want);
	/* already an FI_ADDR_STR: as is */
	assert_true(shm_addr_resolve("fi_foo://x:y", "s", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fi_foo://x:y");
	assert_int_equal(shm_addr_resolve(NULL, NULL, buf, 4), -FI_ETOOSMALL);
}

static void test_ep_name_and_parse(void **state)
{
	char buf[SHM_NAME_MAX];
	unsigned idx;
	pid_t pid;
	uid_t uid;

	assert_true(shm_addr_ep_name("fi_shm://4321", 1000, 3, buf,
				     sizeof(buf)) > 0);
	assert_string_equal(buf, "fi_shm://4321:1000:3");
	assert_int_equal(shm_addr_parse(buf, &pid, &uid, &idx), 0);
	assert_int_equal(pid, 4321);
	assert_int_equal(uid, 1000);
	assert_int_equal(idx, 3);
	assert_true(shm_addr_ep_name("fi_ns://a:b", 1000, 3, buf,
				     sizeof(buf)) > 0);
	assert_string_equal(buf, "fi_ns://a:b");
	assert_true(shm_addr_format(77, 0, 12, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fi_shm://77:0:12");
	assert_int_equal(shm_addr_parse("fi_shm://77:0", &pid, &uid, &idx),
			 -FI_EINVAL);
	assert_int_equal(shm_addr_parse("fi_shm://x:0:1", &pid, &uid, &idx),
			 -FI_EINVAL);
	assert_int_equal(shm_addr_parse("fi_shm://1:0:1x", &pid, &uid, &idx),
			 -FI_EINVAL);
	assert_int_equal(shm_addr_parse("fi_ns://1:0:1", &pid, &uid, &idx),
			 -FI_EINVAL);
	assert_int_equal(shm_addr_parse("fi_shm://99999999999:0:1", &pid,
					&uid, &idx), -FI_EINVAL);
}

static void test_check(void **state)
{
	char longname[SHM_NAME_MAX + 10];

	assert_int_equal(shm_addr_check("fi_shm://1:2:3", 15), 0);
	/* not terminated within addrlen */
	assert_int_equal(shm_addr_check("fi_shm://1:2:3", 14), -FI_EINVAL);
	assert_int_equal(shm_addr_check("nocolon", 8), -FI_EINVAL);
	assert_int_equal(shm_addr_check("://x", 5), -FI_EINVAL);
	assert_int_equal(shm_addr_check("a://", 5), -FI_EINVAL);
	assert_int_equal(shm_addr_check(NULL, 5), -FI_EINVAL);
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "fi_ns://", 8);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(shm_addr_check(longname, sizeof(longname)),
			 -FI_EINVAL);
}

static void test_region_name(void **state)
{
	char buf[256], want[256];

	assert_true(shm_addr_region_name("fi_shm://12:34:5", buf,
					 sizeof(buf)) > 0);
	assert_string_equal(buf, "/propel-shm-34-12-5");
	assert_true(shm_addr_region_name("fi_ns://h/x:svc", buf,
					 sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "/propel-shm-%u-n-h_x:svc",
		 (unsigned)getuid());
	assert_string_equal(buf, want);
	/* the prefix does not matter, as with the reference */
	assert_true(shm_addr_region_name("other://h/x:svc", buf,
					 sizeof(buf)) > 0);
	assert_string_equal(buf, want);
	assert_int_equal(shm_addr_region_name("fi_shm://12:34:5", buf, 8),
			 -FI_ETOOSMALL);
	assert_int_equal(shm_addr_region_name("bad", buf, sizeof(buf)),
			 -FI_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_ep_name_and_parse),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_region_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
