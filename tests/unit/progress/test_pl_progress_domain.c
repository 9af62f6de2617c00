/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DESIGN.md section 3: an auto-progress *domain* (pl_domain_init with
 * FI_PROGRESS_AUTO) with a test source completes work while the
 * application never calls into the library, and its progress thread is
 * asleep when idle: its CPU time, read from /proc, grows by less than 1%
 * of wall time over 2 idle seconds. That bound is the functional
 * property "an idle auto-progress domain costs no CPU" (DESIGN.md
 * section 3), not a speed threshold: a spinning thread uses ~100%.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <rdma/fabric.h>

#include "pl_domain.h"
#include "pl_progress_test.h"

/* Set when schedstat (ns resolution) was read, not the tick counts. */
static bool precise;

/* Time the thread has spent on a CPU, in ns: the first field of
 * /proc/self/task/<tid>/schedstat. */
static uint64_t proc_thread_cpu_ns(pid_t tid)
{
	unsigned long long ns = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	f = fopen(path, "r");
	if (!f) {
		/* kernels without schedstats: utime+stime of .../stat */
		unsigned long ut = 0, st = 0;

		snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
			 (int)tid);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_int_equal(fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d "
					"%*u %*u %*u %*u %*u %lu %lu",
					&ut, &st), 2);
		fclose(f);
		return (uint64_t)(ut + st) *
		       (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
	}
	assert_int_equal(fscanf(f, "%llu", &ns), 1);
	fclose(f);
	precise = true;
	return ns;
}

struct producer_arg {
	struct pt_src *s;
	unsigned count;
};

static void *producer(void *p)
{
	struct producer_arg *a = p;

	for (unsigned i = 0; i < a->count; i++) {
		pt_efd_produce(a->s, 1);
		if (i % 16 == 0)
			pt_sleep_ms(1);
	}
	return NULL;
}

static void test_auto_domain_works_alone_and_sleeps_idle(void **state)
{
	struct fi_domain_attr da = { .data_progress = FI_PROGRESS_AUTO,
				     .threading = FI_THREAD_SAFE };
	struct fi_info info = { .domain_attr = &da };
	struct producer_arg arg = { .count = 200 };
	struct pl_progress_info pi;
	struct pl_progress_stats st;
	struct pl_progress_ctx *ctx;
	struct pl_domain dom;
	uint64_t cpu0, cpu1, t0, t1;
	struct pt_src s;
	pthread_t t;

	(void)state;
	assert_int_equal(pl_domain_init(&dom, NULL, &info, FI_VERSION(1, 17),
					0, NULL), 0);
	ctx = pl_domain_progress(&dom.domain_fid);
	assert_non_null(ctx);
	pl_progress_ctx_info(ctx, &pi);
	assert_int_equal(pi.data_progress, FI_PROGRESS_AUTO);
	assert_true(pi.thread_tid > 0);

	/* Work completes with no application call into the library: this
	 * thread only reads the source's own counter. */
	pt_src_init_efd(&s);
	arg.s = &s;
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	assert_int_equal(pthread_create(&t, NULL, producer, &arg), 0);
	assert_true(pt_wait_done(&s, arg.count, PT_WATCHDOG_S));
	pthread_join(t, NULL);
	pl_progress_ctx_stats(ctx, &st);
	assert_int_equal(st.app_polls_seen, 0);
	assert_true(st.thread_passes > 0);

	/* Idle: past the spin budget, then 2 s with nothing to do. */
	pt_sleep_ms(pi.spin_us / 1000 + 100);
	cpu0 = proc_thread_cpu_ns(pi.thread_tid);
	t0 = pt_now_ns();
	/* the reading is live: the thread's 200+ passes show in it */
	if (precise)
		assert_true(cpu0 > 0);
	pt_sleep_ms(2000);
	cpu1 = proc_thread_cpu_ns(pi.thread_tid);
	t1 = pt_now_ns();
	print_message("idle auto-progress domain: thread used %llu ns of CPU "
		      "in %llu ns\n", (unsigned long long)(cpu1 - cpu0),
		      (unsigned long long)(t1 - t0));
	assert_true((cpu1 - cpu0) * 100 < t1 - t0);

	/* Asleep, not gone: new work still completes. */
	pt_efd_produce(&s, 1);
	assert_true(pt_wait_done(&s, arg.count + 1, PT_WATCHDOG_S));
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_domain_fini(&dom), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_domain_works_alone_and_sleeps_idle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
