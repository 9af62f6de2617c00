/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp provider's fi_getinfo answer and object rules, in one process,
 * through the public API:
 *
 *   entries   every entry is prov "tcp", FI_EP_MSG, FI_SOCKADDR_IN or
 *             IN6; its fabric is a network "address/prefix" of its
 *             family, its domain the name of an interface of this host;
 *             loopback is there as fabric "127.0.0.0/8", domain "lo"
 *   dest      node "127.0.0.1", service "1234" (no FI_SOURCE): every
 *             entry's dest_addr is 127.0.0.1:1234
 *   busy      fi_close of a fabric with an open domain is -FI_EBUSY,
 *             and succeeds once the domain is closed
 *
 * Run with argument "iface_lo" under FI_TCP_IFACE=lo (meson.build): every
 * entry is then of interface lo.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tcp_test.h"

static struct fi_info *getinfo(const char *node, const char *service,
			       uint64_t flags)
{
	struct fi_info *hints = fi_allocinfo(), *info = NULL;

	assert_non_null(hints);
	hints->ep_attr->type = FI_EP_MSG;
	hints->fabric_attr->prov_name = strdup("tcp");
	assert_int_equal(fi_getinfo(FI_VERSION(1, 17), node, service, flags,
				    hints, &info), 0);
	fi_freeinfo(hints);
	assert_non_null(info);
	return info;
}

/* Is name "a.b.c.d/n" (or IPv6) a network of family fmt? */
static void check_net_name(const char *name, uint32_t fmt)
{
	char host[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(name, '/');
	uint8_t addr[16];
	long bits;
	char *end;

	assert_non_null(slash);
	assert_true((size_t)(slash - name) < sizeof(host));
	memcpy(host, name, (size_t)(slash - name));
	host[slash - name] = 0;
	bits = strtol(slash + 1, &end, 10);
	assert_true(*end == 0);
	if (fmt == FI_SOCKADDR_IN) {
		assert_int_equal(inet_pton(AF_INET, host, addr), 1);
		assert_true(bits >= 0 && bits <= 32);
	} else {
		assert_int_equal(inet_pton(AF_INET6, host, addr), 1);
		assert_true(bits >= 0 && bits <= 128);
	}
}

static void test_entries(void **state)
{
	struct fi_info *info = getinfo(NULL, NULL, 0), *i;
	int lo = 0;

	(void)state;
	tt_check_propel();
	for (i = info; i; i = i->next) {
		assert_string_equal(i->fabric_attr->prov_name, "tcp");
		assert_int_equal(i->ep_attr->type, FI_EP_MSG);
		assert_true(i->addr_format == FI_SOCKADDR_IN ||
			    i->addr_format == FI_SOCKADDR_IN6);
		assert_non_null(i->fabric_attr->name);
		check_net_name(i->fabric_attr->name, i->addr_format);
		assert_non_null(i->domain_attr->name);
		assert_true(if_nametoindex(i->domain_attr->name) != 0);
		if (!strcmp(i->domain_attr->name, "lo") &&
		    i->addr_format == FI_SOCKADDR_IN) {
			assert_string_equal(i->fabric_attr->name,
					    "127.0.0.0/8");
			lo++;
		}
	}
	assert_int_equal(lo, 1);
	fi_freeinfo(info);
}

static void test_dest(void **state)
{
	struct fi_info *info = getinfo("127.0.0.1", "1234", 0), *i;
	struct sockaddr_in *sin;

	(void)state;
	for (i = info; i; i = i->next) {
		assert_int_equal(i->addr_format, FI_SOCKADDR_IN);
		assert_non_null(i->dest_addr);
		assert_int_equal(i->dest_addrlen, sizeof(*sin));
		sin = i->dest_addr;
		assert_int_equal(sin->sin_family, AF_INET);
		assert_int_equal(sin->sin_addr.s_addr,
				 htonl(INADDR_LOOPBACK));
		assert_int_equal(ntohs(sin->sin_port), 1234);
	}
	fi_freeinfo(info);
}

static void test_busy(void **state)
{
	struct fi_info *info = getinfo("127.0.0.1", "0", FI_SOURCE);
	struct fid_fabric *fabric;
	struct fid_domain *domain;

	(void)state;
	assert_int_equal(fi_fabric(info->fabric_attr, &fabric, NULL), 0);
	assert_int_equal(fi_domain(fabric, info, &domain, NULL), 0);
	assert_int_equal(fi_close(&fabric->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&domain->fid), 0);
	assert_int_equal(fi_close(&fabric->fid), 0);
	fi_freeinfo(info);
}

static void test_iface_lo(void **state)
{
	struct fi_info *info = getinfo(NULL, NULL, 0), *i;

	(void)state;
	assert_string_equal(getenv("FI_TCP_IFACE"), "lo");
	for (i = info; i; i = i->next)
		assert_string_equal(i->domain_attr->name, "lo");
	fi_freeinfo(info);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest all[] = {
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_dest),
		cmocka_unit_test(test_busy),
	};
	const struct CMUnitTest lo[] = {
		cmocka_unit_test(test_iface_lo),
	};

	if (argc == 2 && !strcmp(argv[1], "iface_lo"))
		return cmocka_run_group_tests(lo, NULL, NULL);
	return cmocka_run_group_tests(all, NULL, NULL);
}
