/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the AV tests share: a pretend provider (16-byte addresses that
 * carry a magic word, so the validate hook has something to reject, an id
 * and a port), its hooks, and a minimal EQ whose write op records what the
 * AV reports for FI_EVENT inserts (written before the engine's EQ existed; the AV
 * only uses the public fi_eq_write()).
 */
#ifndef PROPEL_TESTS_PL_AV_TEST_UTIL_H
#define PROPEL_TESTS_PL_AV_TEST_UTIL_H

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "pl_av.h"

#define TEST_ADDR_MAGIC 0x7e57add7u

struct test_addr {
	uint32_t magic;		/* TEST_ADDR_MAGIC, else validate refuses */
	uint32_t port;
	uint64_t id;
};

static inline struct test_addr test_addr_make(uint64_t id, uint32_t port)
{
	struct test_addr a = { .magic = TEST_ADDR_MAGIC, .port = port,
			       .id = id };
	return a;
}

static int test_validate(struct fid_av *av, const void *addr)
{
	const struct test_addr *a = addr;

	return a->magic == TEST_ADDR_MAGIC ? 0 : -FI_EINVAL;
}

static void test_straddr(struct fid_av *av, const void *addr, char *buf,
			 size_t *len)
{
	const struct test_addr *a = addr;
	char tmp[64];
	int n;

	n = snprintf(tmp, sizeof(tmp), "test://%llu:%u",
		     (unsigned long long)a->id, a->port);
	if (*len) {
		size_t c = (size_t)n < *len - 1 ? (size_t)n : *len - 1;

		memcpy(buf, tmp, c);
		buf[c] = '\0';
	}
	*len = (size_t)n + 1;
}

/* node: an IPv4 literal (id = the address) or "host<N>" (id = 1000000 + N);
 * service: the port (or "http", 80). */
static int test_resolve(struct fid_av *av, const char *node,
			const char *service, void *addr)
{
	struct test_addr a = test_addr_make(0, 0);
	struct in_addr in;
	char *end;

	if (inet_pton(AF_INET, node, &in) == 1)
		a.id = ntohl(in.s_addr);
	else if (!strncmp(node, "host", 4) && node[4])
		a.id = 1000000 + strtoull(node + 4, NULL, 10);
	else
		return -FI_EINVAL;
	if (service && !strcmp(service, "http")) {
		a.port = 80;
	} else if (service) {
		a.port = (uint32_t)strtoul(service, &end, 10);
		if (*end)
			return -FI_EINVAL;
	}
	memcpy(addr, &a, sizeof(a));
	return 0;
}

static const struct pl_av_addr_ops test_ops = {
	.validate = test_validate,
	.straddr = test_straddr,
	.resolve = test_resolve,
};

/* ---- a recording EQ ---- */

#define TEST_EQ_MAX 32

struct test_eq_rec {
	uint32_t event;
	uint64_t flags;
	size_t len;
	struct fi_eq_err_entry entry;	/* the first len bytes are valid */
};

struct test_eq {
	struct fid_eq eq;
	int n;
	struct test_eq_rec rec[TEST_EQ_MAX];
};

static ssize_t test_eq_write(struct fid_eq *eq, uint32_t event,
			     const void *buf, size_t len, uint64_t flags)
{
	struct test_eq *t = (struct test_eq *)eq;
	struct test_eq_rec *r;

	if (t->n == TEST_EQ_MAX || len > sizeof(r->entry))
		return -FI_EAGAIN;
	r = &t->rec[t->n++];
	r->event = event;
	r->flags = flags;
	r->len = len;
	memcpy(&r->entry, buf, len);
	return (ssize_t)len;
}

static ssize_t test_eq_read(struct fid_eq *eq, uint32_t *event, void *buf,
			    size_t len, uint64_t flags)
{
	return -FI_ENOSYS;
}

static ssize_t test_eq_readerr(struct fid_eq *eq, struct fi_eq_err_entry *buf,
			       uint64_t flags)
{
	return -FI_ENOSYS;
}

static ssize_t test_eq_sread(struct fid_eq *eq, uint32_t *event, void *buf,
			     size_t len, int timeout, uint64_t flags)
{
	return -FI_ENOSYS;
}

static const char *test_eq_strerror(struct fid_eq *eq, int prov_errno,
				    const void *err_data, char *buf,
				    size_t len)
{
	return NULL;
}

static struct fi_ops_eq test_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = test_eq_read,
	.readerr = test_eq_readerr,
	.write = test_eq_write,
	.sread = test_eq_sread,
	.strerror = test_eq_strerror,
};

static inline void test_eq_init(struct test_eq *t)
{
	memset(t, 0, sizeof(*t));
	t->eq.fid.fclass = FI_CLASS_EQ;
	t->eq.ops = &test_eq_ops;
}

#endif /* PROPEL_TESTS_PL_AV_TEST_UTIL_H */
