/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the registration cache tests: a stand-in provider whose
 * "registration" snapshots a token from the first word of every page it
 * covers, so a test can tell whether an entry was made on the pages
 * mapped now (pl_mrc_test_fresh) or on pages that have since been
 * replaced. pl_mrc_test_fill writes fresh tokens into a mapping.
 *
 * The counters are atomics: the stress test's threads register
 * concurrently. Threads never call cmocka.
 */
#ifndef PROPEL_TESTS_PL_MRC_TEST_H
#define PROPEL_TESTS_PL_MRC_TEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_mrc.h"
#include "pl_mrc_monitor.h"

struct pl_mrc_test_reg {
	uintptr_t base;		/* first page of the entry */
	size_t npages;
	uint64_t *tokens;	/* snapshot, one per page */
};

static _Atomic uint64_t pl_mrc_test_next_token = 1;
static _Atomic uint64_t pl_mrc_test_regs;
static _Atomic uint64_t pl_mrc_test_deregs;
/* When set, reg fails with this error. */
static _Atomic int pl_mrc_test_reg_error;
/* When set, called by reg after its snapshot (single-threaded tests). */
static void (*pl_mrc_test_after_reg)(struct pl_mrc_entry *e);

static inline size_t pl_mrc_test_page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static inline uint64_t pl_mrc_test_fill(void *addr, size_t len)
{
	size_t pg = pl_mrc_test_page(), off;
	uint64_t first = 0, t;

	for (off = 0; off < len; off += pg) {
		t = atomic_fetch_add_explicit(&pl_mrc_test_next_token, 1,
					      memory_order_relaxed);
		if (!first)
			first = t;
		memcpy((char *)addr + off, &t, sizeof(t));
	}
	return first;
}

static inline int pl_mrc_test_reg_cb(void *ctx, struct pl_mrc_entry *e)
{
	struct pl_mrc_test_reg *r = pl_mrc_entry_data(e);
	size_t pg = pl_mrc_test_page(), i;
	uintptr_t start = (uintptr_t)pl_mrc_entry_addr(e);
	uintptr_t end = start + pl_mrc_entry_len(e);
	int err = atomic_load(&pl_mrc_test_reg_error);

	(void)ctx;
	if (err)
		return err;
	r->base = start & ~(uintptr_t)(pg - 1);
	r->npages = (end - r->base + pg - 1) / pg;
	r->tokens = calloc(r->npages, sizeof(uint64_t));
	if (!r->tokens)
		return -FI_ENOMEM;
	for (i = 0; i < r->npages; i++)
		memcpy(&r->tokens[i], (void *)(r->base + i * pg),
		       sizeof(uint64_t));
	atomic_fetch_add(&pl_mrc_test_regs, 1);
	if (pl_mrc_test_after_reg)
		pl_mrc_test_after_reg(e);
	return 0;
}

static inline void pl_mrc_test_dereg_cb(void *ctx, struct pl_mrc_entry *e)
{
	struct pl_mrc_test_reg *r = pl_mrc_entry_data(e);

	(void)ctx;
	free(r->tokens);
	r->tokens = NULL;
	atomic_fetch_add(&pl_mrc_test_deregs, 1);
}

/* True when e's snapshot matches the live tokens of [addr, addr + len). */
static inline bool pl_mrc_test_fresh(struct pl_mrc_entry *e, const void *addr,
				     size_t len)
{
	struct pl_mrc_test_reg *r = pl_mrc_entry_data(e);
	size_t pg = pl_mrc_test_page();
	uintptr_t p = (uintptr_t)addr & ~(uintptr_t)(pg - 1);
	uint64_t live;

	for (; p < (uintptr_t)addr + len; p += pg) {
		size_t i = (p - r->base) / pg;

		if (p < r->base || i >= r->npages)
			return false;
		memcpy(&live, (void *)p, sizeof(live));
		if (live != r->tokens[i])
			return false;
	}
	return true;
}

static inline struct pl_mrc_attr pl_mrc_test_attr(uint64_t flags)
{
	struct pl_mrc_attr a = {
		.reg = pl_mrc_test_reg_cb,
		.dereg = pl_mrc_test_dereg_cb,
		.data_size = sizeof(struct pl_mrc_test_reg),
		.name = "test",
		.flags = flags,
		.max_count = PL_MRC_LIMIT_ENV,
		.max_size = PL_MRC_LIMIT_ENV,
	};

	return a;
}

/* True when the run asks for the memhooks monitor (meson runs the same
 * scenarios once per monitor). */
static inline bool pl_mrc_test_memhooks(void)
{
	const char *mon = getenv("FI_MR_CACHE_MONITOR");

	return mon && !strcmp(mon, "memhooks");
}

/* The name of the monitor behind a cache ("userfaultfd", "memhooks"),
 * so a run meant for one monitor cannot pass on a fallback. */
static inline const char *pl_mrc_test_monitor_name(void)
{
	struct pl_mrc_monitor *mon;
	const char *name;

	if (pl_mrc_monitor_get(&mon))
		return "";
	name = mon ? mon->name : "disabled";
	pl_mrc_monitor_put(mon);
	return name;
}

/*
 * Exit 77 (skip) when the monitor asked for cannot be used here
 * (userfaultfd: asks the kernel directly, not the library, so the
 * process's logging configuration is not read yet; tests fork children
 * with their own FI_LOG_LEVEL). memhooks needs nothing of the kernel.
 */
static inline void pl_mrc_test_require_monitor(void)
{
	const char *mon = getenv("FI_MR_CACHE_MONITOR");
	int fd;

	if (mon && !strcmp(mon, "disabled")) {
		printf("SKIP: FI_MR_CACHE_MONITOR=disabled\n");
		exit(77);
	}
	if (pl_mrc_test_memhooks())
		return;
	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* USER_MODE_ONLY */);
	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (fd < 0) {
		printf("SKIP: userfaultfd is refused here (%s): see "
		       "vm.unprivileged_userfaultfd or the seccomp filter\n",
		       strerror(errno));
		exit(77);
	}
	close(fd);
}

#endif /* PROPEL_TESTS_PL_MRC_TEST_H */
