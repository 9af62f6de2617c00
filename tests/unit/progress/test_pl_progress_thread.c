/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Auto progress: the thread completes work nobody polls for, sleeps when
 * idle, wakes on every kick, backs off while the application polls, is
 * pinned as FI_PROGRESS_THREAD_* say, and stops cleanly.
 *
 * argv[1] picks a group; meson runs each group as its own test() with
 * the environment it needs (the variables are read once per process):
 *   default   (no variables)
 *   storm     FI_PROGRESS_SPIN_US=0, so that the thread tries to sleep
 *             after every idle pass and kicks meet it in every phase
 *   badspin   FI_PROGRESS_SPIN_US=abc
 *   badcpus   FI_PROGRESS_THREAD_CPUS=0-x
 *   pin       FI_PROGRESS_THREAD_CPUS=1
 *   numa      FI_PROGRESS_THREAD_NUMA=0
 *   backoff   FI_PROGRESS_BACKOFF_MAX_US=200
 *   badbackoff FI_PROGRESS_BACKOFF_MAX_US=10 (below the first nap)
 */
#include <numa.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "pl_progress_test.h"

static struct pl_progress_ctx *open_auto(void)
{
	struct pl_progress_ctx *ctx = NULL;
	struct pl_progress_info info;

	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_AUTO, FI_THREAD_SAFE,
					      NULL, &ctx), 0);
	pl_progress_ctx_info(ctx, &info);
	assert_int_equal(info.data_progress, FI_PROGRESS_AUTO);
	assert_true(info.thread_tid > 0);
	return ctx;
}

static pid_t thread_tid(struct pl_progress_ctx *ctx)
{
	struct pl_progress_info info;

	pl_progress_ctx_info(ctx, &info);
	return info.thread_tid;
}

/* CPU time of a thread of this process, by tid: the clock encoding
 * glibc's pthread_getcpuclockid uses (per-thread, scheduler clock). */
static uint64_t thread_cpu_ns(pid_t tid)
{
	clockid_t cid = (clockid_t)((~(unsigned)tid << 3) | 6u);
	unsigned long ut = 0, st = 0;
	struct timespec ts;
	char path[64];
	FILE *f;

	if (clock_gettime(cid, &ts) == 0)
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	assert_non_null(f);
	/* utime and stime are fields 14 and 15; comm has no spaces here. */
	assert_int_equal(fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u "
				"%*u %*u %*u %lu %lu", &ut, &st), 2);
	fclose(f);
	return (uint64_t)(ut + st) * (1000000000u / sysconf(_SC_CLK_TCK));
}

/* ---- default group ---- */

struct producer_arg {
	struct pt_src *s;
	unsigned count;
};

static void *efd_producer(void *p)
{
	struct producer_arg *a = p;
	unsigned i;

	for (i = 0; i < a->count; i++) {
		pt_efd_produce(a->s, 1);
		if (i % 16 == 0)
			pt_sleep_ms(1);
	}
	return NULL;
}

static void test_completes_without_app_poll(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct producer_arg arg = { .count = 200 };
	struct pl_progress_stats st;
	struct pt_src s;
	pthread_t t;

	pt_src_init_efd(&s);
	arg.s = &s;
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	assert_int_equal(pthread_create(&t, NULL, efd_producer, &arg), 0);
	/* This thread never calls pl_progress_ctx_poll. */
	assert_true(pt_wait_done(&s, arg.count, PT_WATCHDOG_S));
	pthread_join(t, NULL);
	pl_progress_ctx_stats(ctx, &st);
	assert_int_equal(st.app_polls_seen, 0);
	assert_true(st.thread_passes > 0);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_thread_is_named(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm",
		 (int)thread_tid(ctx));
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	assert_string_equal(comm, "fi_progress\n");
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_idle_thread_sleeps(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct pl_progress_stats st;
	uint64_t cpu0, cpu1, t0, t1;
	struct pt_src s;

	pt_src_init_efd(&s);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pt_efd_produce(&s, 1);
	assert_true(pt_wait_done(&s, 1, PT_WATCHDOG_S));
	pt_sleep_ms(100);	/* past the spin budget */

	cpu0 = thread_cpu_ns(thread_tid(ctx));
	t0 = pt_now_ns();
	pt_sleep_ms(2000);
	cpu1 = thread_cpu_ns(thread_tid(ctx));
	t1 = pt_now_ns();
	print_message("idle progress thread: %llu ns of CPU in %llu ns\n",
		      (unsigned long long)(cpu1 - cpu0),
		      (unsigned long long)(t1 - t0));
	/* The functional property of DESIGN.md section 3 (an idle
	 * auto-progress domain costs no CPU), allowed by DESIGN.md section 3. */
	assert_true((cpu1 - cpu0) * 100 < t1 - t0);
	pl_progress_ctx_stats(ctx, &st);
	assert_true(st.sleeps > 0);

	/* And it still wakes for new work. */
	pt_efd_produce(&s, 1);
	assert_true(pt_wait_done(&s, 2, PT_WATCHDOG_S));
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_remove_while_thread_runs(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct pt_src *s;
	int round;

	for (round = 0; round < 300; round++) {
		s = malloc(sizeof(*s));
		assert_non_null(s);
		if (round & 1)
			pt_src_init_efd(s);
		else
			pt_src_init_kick(s);
		s->busy = round % 3 == 0;	/* keep the thread polling */
		assert_int_equal(pl_progress_source_add(ctx, &s->src), 0);
		if (round & 1)
			pt_efd_produce(s, 1);
		else
			pt_kick_produce(ctx, s, 1);
		assert_true(pt_wait_done(s, 1, PT_WATCHDOG_S));
		assert_int_equal(pl_progress_source_remove(ctx, &s->src), 0);
		/* From here the engine must not touch s. */
		pl_store_relaxed(&s->alive, 0);
		assert_int_equal(pl_load_relaxed(&s->inside), 0);
		assert_int_equal(pl_load_relaxed(&s->violations), 0);
		assert_int_equal(pl_load_relaxed(&s->overlaps), 0);
		pt_src_fini(s);
		memset(s, 0xa5, sizeof(*s));
		free(s);
	}
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_close_while_busy(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	uint64_t before, after;
	struct pt_src s;

	pt_src_init_kick(&s);
	s.busy = 1;
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	while (pl_load_relaxed(&s.polls) < 100)
		sched_yield();
	/* The source is still registered and hot. */
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
	before = pl_load_relaxed(&s.polls);
	assert_int_equal(pl_load_relaxed(&s.inside), 0);
	assert_null(s.src.ctx);
	pt_sleep_ms(20);
	after = pl_load_relaxed(&s.polls);
	assert_int_equal(before, after);
}

static void test_backs_off_while_app_polls(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct pl_progress_stats st0, st1;
	uint64_t end, app_passes, thread_passes, produced = 0;
	unsigned i = 0;
	struct pt_src s;

	pt_src_init_efd(&s);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pl_progress_ctx_stats(ctx, &st0);
	/* Poll in windows of 300 ms until the thread has napped at least
	 * once, for at most 10 s. The thread can only see the
	 * application poll while both run at once: on a loaded machine (two
	 * cores, other tests beside this one, TSan) a whole window may pass
	 * with the thread scheduled only while the application is off the
	 * CPU, and then it rightly polls. A thread that never backs off
	 * still fails, after 10 s. */
	end = pt_now_ns() + 10 * 1000000000ull;
	do {
		uint64_t window = pt_now_ns() + 300 * 1000000ull;

		while (pt_now_ns() < window) {
			if (++i % 64 == 0) {
				pt_efd_produce(&s, 1);
				produced++;
			}
			(void)pl_progress_ctx_poll(ctx);
		}
		pl_progress_ctx_stats(ctx, &st1);
	} while (st1.backoffs == st0.backoffs && pt_now_ns() < end);
	app_passes = (st1.passes - st0.passes) -
		     (st1.thread_passes - st0.thread_passes);
	thread_passes = st1.thread_passes - st0.thread_passes;
	print_message("while the application polled: %llu app passes, "
		      "%llu thread passes, %llu back-off naps\n",
		      (unsigned long long)app_passes,
		      (unsigned long long)thread_passes,
		      (unsigned long long)(st1.backoffs - st0.backoffs));
	/* How many passes the thread still made depends on how often the
	 * scheduler took the application off its CPU (the thread then
	 * rightly resumes), so only the back-off itself is asserted. */
	assert_true(st1.backoffs > st0.backoffs);

	/* The application stops polling: the thread takes over again. */
	pt_efd_produce(&s, 1);
	produced++;
	assert_true(pt_wait_done(&s, produced, PT_WATCHDOG_S));
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_several_contexts(void **state)
{
	struct pl_progress_ctx *ctx[4];
	struct pt_src s[4];
	int i;

	for (i = 0; i < 4; i++) {
		ctx[i] = open_auto();
		pt_src_init_kick(&s[i]);
		assert_int_equal(pl_progress_source_add(ctx[i], &s[i].src), 0);
		pt_kick_produce(ctx[i], &s[i], (uint64_t)i + 1);
	}
	for (i = 0; i < 4; i++) {
		assert_true(pt_wait_done(&s[i], (uint64_t)i + 1,
					 PT_WATCHDOG_S));
		assert_int_equal(pl_progress_source_remove(ctx[i], &s[i].src),
				 0);
		assert_int_equal(pl_progress_ctx_close(ctx[i]), 0);
	}
}

/* ---- storm group (FI_PROGRESS_SPIN_US=0) ---- */

#define STORM_BURSTS 4000

struct storm_arg {
	struct pl_progress_ctx *ctx;
	struct pt_src *s;
	unsigned seed;
	int lost;		/* burst index that timed out, or -1 */
};

static void *storm_producer(void *p)
{
	struct storm_arg *a = p;
	uint64_t target = 0, k;
	unsigned b, j, jitter;

	a->lost = -1;
	for (b = 0; b < STORM_BURSTS; b++) {
		a->seed = a->seed * 1103515245u + 12345u;
		k = 1 + (a->seed >> 16) % 3;
		/* Vary where the kick lands in the thread's cycle. */
		jitter = (a->seed >> 8) % 2000;
		for (j = 0; j < jitter; j++)
			pl_cpu_relax();
		target += k;
		if (a->s->efd >= 0)
			pt_efd_produce(a->s, k);
		else
			pt_kick_produce(a->ctx, a->s, k);
		if (!pt_wait_done(a->s, target, PT_WATCHDOG_S)) {
			a->lost = (int)b;
			break;
		}
	}
	return NULL;
}

static void storm(int producers, bool use_fd)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct storm_arg arg[2];
	struct pl_progress_stats st;
	struct pl_progress_info info;
	struct pt_src s[2];
	pthread_t t[2];
	int i;

	pl_progress_ctx_info(ctx, &info);
	assert_int_equal(info.spin_us, 0);
	for (i = 0; i < producers; i++) {
		if (use_fd)
			pt_src_init_efd(&s[i]);
		else
			pt_src_init_kick(&s[i]);
		assert_int_equal(pl_progress_source_add(ctx, &s[i].src), 0);
		arg[i] = (struct storm_arg){ .ctx = ctx, .s = &s[i],
					     .seed = 7u + (unsigned)i };
		assert_int_equal(pthread_create(&t[i], NULL, storm_producer,
						&arg[i]), 0);
	}
	for (i = 0; i < producers; i++) {
		pthread_join(t[i], NULL);
		if (arg[i].lost >= 0)
			print_message("producer %d: burst %d never completed "
				      "(lost wake-up)\n", i, arg[i].lost);
		assert_int_equal(arg[i].lost, -1);
	}
	pl_progress_ctx_stats(ctx, &st);
	print_message("%d producer(s), %s: %llu sleeps, %llu wakeups, "
		      "%llu kicks, %llu arm races\n", producers,
		      use_fd ? "fd" : "kick",
		      (unsigned long long)st.sleeps,
		      (unsigned long long)st.wakeups,
		      (unsigned long long)st.kicks,
		      (unsigned long long)st.arm_races);
	/* The storm did cross the sleep path, else it proved nothing. */
	assert_true(st.sleeps > 0);
	if (!use_fd)
		assert_true(st.kicks > 0);
	for (i = 0; i < producers; i++) {
		assert_int_equal(pl_progress_source_remove(ctx, &s[i].src), 0);
		assert_int_equal(pl_load_relaxed(&s[i].overlaps), 0);
		pt_src_fini(&s[i]);
	}
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_kick_storm_one_producer(void **state)
{
	storm(1, false);
}

static void test_kick_storm_two_producers(void **state)
{
	storm(2, false);
}

static void test_fd_storm(void **state)
{
	storm(2, true);
}

/* ---- variable groups ---- */

/* Run fn with stderr captured; returns how many times needle appears. */
static int count_in_stderr(void (*fn)(void), const char *needle)
{
	char buf[8192], *p;
	int saved, n = 0;
	size_t len;
	FILE *cap;

	cap = tmpfile();
	assert_non_null(cap);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(cap), STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(cap);
	len = fread(buf, 1, sizeof(buf) - 1, cap);
	buf[len] = '\0';
	fclose(cap);
	fprintf(stderr, "captured: %s", buf);
	for (p = buf; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void open_two_and_check_spin(void)
{
	struct pl_progress_ctx *a, *m = NULL;
	struct pl_progress_info info;

	a = open_auto();
	assert_int_equal(pl_progress_ctx_open(FI_PROGRESS_MANUAL,
					      FI_THREAD_SAFE, NULL, &m), 0);
	pl_progress_ctx_info(a, &info);
	assert_int_equal(info.spin_us, 50);
	pl_progress_ctx_info(m, &info);
	assert_int_equal(info.spin_us, 50);
	assert_int_equal(pl_progress_ctx_close(m), 0);
	assert_int_equal(pl_progress_ctx_close(a), 0);
}

static void test_bad_spin_warns_once_and_defaults(void **state)
{
	/* Two contexts, one warning: the variable is read once. */
	assert_int_equal(count_in_stderr(open_two_and_check_spin,
					 "FI_PROGRESS_SPIN_US"), 1);
}

static void open_and_run_one(void)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct pt_src s;

	pt_src_init_kick(&s);
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pt_kick_produce(ctx, &s, 1);
	assert_true(pt_wait_done(&s, 1, PT_WATCHDOG_S));
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void test_bad_cpus_warns_and_runs(void **state)
{
	assert_int_equal(count_in_stderr(open_and_run_one,
					 "FI_PROGRESS_THREAD_CPUS"), 1);
}

static void test_pinned_to_cpu_1(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(thread_tid(ctx), sizeof(set), &set),
			 0);
	assert_int_equal(CPU_COUNT(&set), 1);
	assert_true(CPU_ISSET(1, &set));
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
	open_and_run_one();
}

static void test_pinned_to_node_0(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct bitmask *bm = numa_allocate_cpumask();
	cpu_set_t set;
	int cpu;

	assert_int_equal(numa_node_to_cpus(0, bm), 0);
	assert_int_equal(sched_getaffinity(thread_tid(ctx), sizeof(set), &set),
			 0);
	assert_true(CPU_COUNT(&set) > 0);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			assert_true(numa_bitmask_isbitset(bm, (unsigned)cpu));
	numa_free_cpumask(bm);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

/* ---- backoff groups ---- */

/* The thread's timer slack, which it sets to the length of each nap. */
static unsigned long thread_slack_ns(pid_t tid)
{
	unsigned long ns = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", (int)tid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu", &ns), 1);
	fclose(f);
	return ns;
}

struct poller_arg {
	struct pl_progress_ctx *ctx;
	struct pt_src *s;
	pl_atomic_int stop;
};

/* The application: polls without a pause until told to stop, and now
 * and then makes work (so that a thread asleep in epoll wakes up, sees
 * the polls and backs off, as in test_backs_off_while_app_polls). */
static void *poller(void *p)
{
	struct poller_arg *a = p;
	unsigned i = 0;

	/* relaxed: a flag; join orders the rest */
	while (!pl_load_relaxed(&a->stop)) {
		if (++i % 64 == 0)
			pt_efd_produce(a->s, 1);
		(void)pl_progress_ctx_poll(a->ctx);
	}
	return NULL;
}

/* FI_PROGRESS_BACKOFF_MAX_US=200: while the application polls, the naps
 * double from 50 us up to 200 us and no further; each nap's timer slack
 * is its own length (the kernel's per-thread value, read from /proc by
 * this thread while another one polls, so that reading it pauses no
 * poll). */
static void test_naps_grow_to_the_cap(void **state)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct poller_arg arg = { .ctx = ctx };
	struct pl_progress_info info;
	unsigned long slack, most = 0;
	struct pt_src s;
	uint64_t end;
	pthread_t t;

	pt_src_init_efd(&s);
	arg.s = &s;
	assert_int_equal(pl_progress_source_add(ctx, &s.src), 0);
	pl_progress_ctx_info(ctx, &info);
	assert_int_equal(info.backoff_max_us, 200);
	assert_int_equal(pthread_create(&t, NULL, poller, &arg), 0);
	/* Until the slack reads the cap, for at most 10 s: on a loaded
	 * machine a nap may pass without a poll (the poller preempted),
	 * and the thread then resumes and starts again from 50 us. */
	end = pt_now_ns() + 10 * 1000000000ull;
	do {
		pt_sleep_ms(1);
		slack = thread_slack_ns(info.thread_tid);
		if (slack > most)
			most = slack;
	} while (slack != 200000 && pt_now_ns() < end);
	/* relaxed: see poller */
	pl_store_relaxed(&arg.stop, 1);
	pthread_join(t, NULL);
	print_message("timer slack of the napping thread: %lu ns\n", slack);
	assert_int_equal(slack, 200000);
	assert_int_equal(most, 200000);
	assert_int_equal(pl_progress_source_remove(ctx, &s.src), 0);
	pt_src_fini(&s);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
}

static void open_one_and_check_backoff(void)
{
	struct pl_progress_ctx *ctx = open_auto();
	struct pl_progress_info info;

	pl_progress_ctx_info(ctx, &info);
	assert_int_equal(info.backoff_max_us, 8000);
	assert_int_equal(pl_progress_ctx_close(ctx), 0);
	open_and_run_one();
}

static void test_bad_backoff_warns_and_defaults(void **state)
{
	assert_int_equal(count_in_stderr(open_one_and_check_backoff,
					 "FI_PROGRESS_BACKOFF_MAX_US"), 1);
}

/* CPU 1 must exist and be ours, or pinning to it says nothing. */
static int need_cpu_1(void)
{
	cpu_set_t mine;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("skipped: this machine has fewer than 2 CPUs\n");
		return 77;
	}
	if (sched_getaffinity(0, sizeof(mine), &mine) ||
	    !CPU_ISSET(1, &mine)) {
		printf("skipped: CPU 1 is not in this process's affinity\n");
		return 77;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *group = argc > 1 ? argv[1] : "default";
	const struct CMUnitTest dflt[] = {
		cmocka_unit_test(test_completes_without_app_poll),
		cmocka_unit_test(test_thread_is_named),
		cmocka_unit_test(test_idle_thread_sleeps),
		cmocka_unit_test(test_remove_while_thread_runs),
		cmocka_unit_test(test_close_while_busy),
		cmocka_unit_test(test_backs_off_while_app_polls),
		cmocka_unit_test(test_several_contexts),
	};
	const struct CMUnitTest storm_tests[] = {
		cmocka_unit_test(test_kick_storm_one_producer),
		cmocka_unit_test(test_kick_storm_two_producers),
		cmocka_unit_test(test_fd_storm),
	};
	const struct CMUnitTest badspin[] = {
		cmocka_unit_test(test_bad_spin_warns_once_and_defaults),
	};
	const struct CMUnitTest badcpus[] = {
		cmocka_unit_test(test_bad_cpus_warns_and_runs),
	};
	const struct CMUnitTest pin[] = {
		cmocka_unit_test(test_pinned_to_cpu_1),
	};
	const struct CMUnitTest numa[] = {
		cmocka_unit_test(test_pinned_to_node_0),
	};
	const struct CMUnitTest backoff[] = {
		cmocka_unit_test(test_naps_grow_to_the_cap),
		cmocka_unit_test(test_backs_off_while_app_polls),
	};
	const struct CMUnitTest badbackoff[] = {
		cmocka_unit_test(test_bad_backoff_warns_and_defaults),
	};
	int ret;

	if (!strcmp(group, "default"))
		return cmocka_run_group_tests_name("default", dflt, NULL, NULL);
	if (!strcmp(group, "storm"))
		return cmocka_run_group_tests_name("storm", storm_tests, NULL,
						   NULL);
	if (!strcmp(group, "badspin"))
		return cmocka_run_group_tests_name("badspin", badspin, NULL,
						   NULL);
	if (!strcmp(group, "badcpus"))
		return cmocka_run_group_tests_name("badcpus", badcpus, NULL,
						   NULL);
	if (!strcmp(group, "pin")) {
		ret = need_cpu_1();
		return ret ? ret :
		       cmocka_run_group_tests_name("pin", pin, NULL, NULL);
	}
	if (!strcmp(group, "numa")) {
		if (numa_available() < 0) {
			printf("skipped: libnuma reports NUMA unavailable\n");
			return 77;
		}
		return cmocka_run_group_tests_name("numa", numa, NULL, NULL);
	}
	if (!strcmp(group, "backoff"))
		return cmocka_run_group_tests_name("backoff", backoff, NULL,
						   NULL);
	if (!strcmp(group, "badbackoff"))
		return cmocka_run_group_tests_name("badbackoff", badbackoff,
						   NULL, NULL);
	fprintf(stderr, "unknown group %s\n", group);
	return 2;
}
