/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The asymmetric exclusion of FI_THREAD_DOMAIN auto-progress contexts
 * (progress/pl_progress_asym.h), one group per run (argv[1]):
 *
 *   on   the mode is chosen for auto FI_THREAD_DOMAIN only (auto
 *        FI_THREAD_SAFE keeps the token, manual FI_THREAD_DOMAIN takes
 *        neither); and the exclusion holds: an application thread
 *        enters its side 200 000 times (every 256th entry followed by a
 *        pause, so that the progress thread takes leases in between;
 *        every 8th also drives a pass itself, pl_progress_ctx_poll)
 *        while the thread polls a source that always reports work. Both
 *        sides bump one plain counter and a detector of overlapping
 *        sections; the counter must come out exact, the detector at 0,
 *        and both sides must have run. Under ThreadSanitizer a missing
 *        happens-before edge between the sides is a reported race.
 *   off  FI_PROGRESS_ASYM=0: auto FI_THREAD_DOMAIN takes the token.
 *
 * A kernel without membarrier(2) cannot offer the mode: "on" then skips,
 * saying so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pl_progress_asym.h"
#include "pl_progress_test.h"

#define ASYM_ROUNDS	200000u
#define ASYM_PAUSE_EVERY 256u

struct asym_src {
	struct pt_src pt;
	uint64_t *counter;	/* plain: the exclusion is what protects it */
};

static uint64_t asym_counter;

static int asym_poll(struct pl_progress_source *src, unsigned budget)
{
	struct asym_src *s = (struct asym_src *)src;

	(void)budget;
	pt_enter(&s->pt);
	(*s->counter)++;
	pt_leave(&s->pt);
	return 1;	/* always work: the thread keeps its lease */
}

static int asym_arm(struct pl_progress_source *src)
{
	(void)src;
	return -FI_EAGAIN;
}

static struct pl_progress_ctx *asym_open(enum fi_progress p,
					 enum fi_threading th)
{
	struct pl_progress_ctx *ctx = NULL;

	assert_int_equal(pl_progress_ctx_open(p, th, NULL, &ctx), 0);
	return ctx;
}

static void asym_expect(enum fi_progress p, enum fi_threading th,
			int uses_asym, int uses_token)
{
	struct pl_progress_ctx *ctx = asym_open(p, th);
	struct pl_progress_info info;

	pl_progress_ctx_info(ctx, &info);
	assert_int_equal(info.uses_asym, uses_asym);
	assert_int_equal(info.uses_token, uses_token);
	assert_int_equal(pl_progress_ctx_uses_asym(ctx), uses_asym);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_chosen_where_it_applies(void **state)
{
	(void)state;
	asym_expect(FI_PROGRESS_AUTO, FI_THREAD_DOMAIN, 1, 0);
	asym_expect(FI_PROGRESS_AUTO, FI_THREAD_SAFE, 0, 1);
	asym_expect(FI_PROGRESS_AUTO, FI_THREAD_COMPLETION, 0, 1);
	asym_expect(FI_PROGRESS_MANUAL, FI_THREAD_DOMAIN, 0, 0);
}

static void test_exclusion(void **state)
{
	struct pl_progress_ctx *ctx = asym_open(FI_PROGRESS_AUTO,
						FI_THREAD_DOMAIN);
	struct pl_progress_stats st;
	struct asym_src s;
	uint64_t app = 0, app_passes = 0, thread_polls;
	int n;
	unsigned i;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.pt.efd = -1;
	s.pt.src.poll = asym_poll;
	s.pt.src.arm = asym_arm;
	s.pt.src.fd = -1;
	s.pt.src.name = "test-asym";
	pl_store_relaxed(&s.pt.alive, 1);
	s.counter = &asym_counter;
	assert_int_equal(pl_progress_source_add(ctx, &s.pt.src), 0);

	for (i = 0; i < ASYM_ROUNDS; i++) {
		pl_progress_ctx_app_enter(ctx);
		pt_enter(&s.pt);
		asym_counter++;
		pt_leave(&s.pt);
		pl_progress_ctx_app_leave(ctx);
		app++;
		if (i % 8 == 0) {
			n = pl_progress_ctx_poll(ctx);
			assert_true(n >= 0);
			app_passes += (uint64_t)n;	/* 1 per pass */
		}
		if (i % ASYM_PAUSE_EVERY == ASYM_PAUSE_EVERY - 1)
			pt_sleep_ms(1);	/* the thread takes a lease */
	}
	/* the thread's passes end with the removal (app side, nested
	 * inside nothing) */
	assert_int_equal(pl_progress_source_remove(ctx, &s.pt.src), 0);
	pl_store_relaxed(&s.pt.alive, 0);
	pl_progress_ctx_stats(ctx, &st);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);

	thread_polls = pl_load_relaxed(&s.pt.polls) - app - app_passes;
	assert_true(app_passes > 0);
	assert_int_equal(pl_load_relaxed(&s.pt.overlaps), 0);
	assert_int_equal(pl_load_relaxed(&s.pt.violations), 0);
	assert_true(thread_polls > 0);		/* the thread did run */
	assert_true(st.thread_passes > 0);
	assert_int_equal(asym_counter, app + app_passes + thread_polls);
	printf("asym: %llu application sections, %llu application passes, "
	       "%llu thread polls\n", (unsigned long long)app,
	       (unsigned long long)app_passes,
	       (unsigned long long)thread_polls);
}

static void test_off(void **state)
{
	(void)state;
	asym_expect(FI_PROGRESS_AUTO, FI_THREAD_DOMAIN, 0, 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest on[] = {
		cmocka_unit_test(test_chosen_where_it_applies),
		cmocka_unit_test(test_exclusion),
	};
	const struct CMUnitTest off[] = {
		cmocka_unit_test(test_off),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s on|off\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "off"))
		return cmocka_run_group_tests(off, NULL, NULL);
	if (pl_progress_asym_init() != 0) {
		printf("SKIP: membarrier(2) private expedited is not available "
		       "on this kernel: the asymmetric mode cannot be chosen\n");
		return 77;
	}
	return cmocka_run_group_tests(on, NULL, NULL);
}
