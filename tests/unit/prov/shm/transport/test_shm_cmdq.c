/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The MPSC command queue (prov/shm/transport/shm_cmdq.c) across real processes:
 * several producer processes, one consumer; every message arrives exactly
 * once and in each producer's order; a full queue refuses instead of
 * overwriting; a producer that dies holding a claimed slot does not stall
 * the queue. With argument "stress": producer processes of two threads
 * each, more messages, and a tiny queue so that it is full most of the
 * time.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "shm_addr.h"
#include "shm_cmdq.h"
#include "shm_test.h"

static unsigned n_producers = 4, n_msgs = 20000, n_slots = 64;

struct q_arg {
	char name[SHM_REGION_NAME_MAX];
	unsigned id;
	unsigned count;
};

static void make_name(unsigned idx, char *buf, size_t len)
{
	char addr[SHM_NAME_MAX];

	shm_addr_format(getpid(), getuid(), idx, addr, sizeof(addr));
	shm_addr_region_name(addr, buf, len);
}

static struct shm_region *make_region(const char *name, unsigned slots)
{
	struct shm_layout_req req = {
		.cmdq_slots = slots, .inline_max = 64, .peer_count = 4,
	};
	struct shm_region *r = NULL;

	assert_int_equal(shm_region_create(name, &req, 0, &r), 0);
	return r;
}

static void push(struct shm_region *r, unsigned id, uint64_t seq)
{
	struct shm_cmd *cmd;
	int ret;

	while ((ret = shm_cmdq_claim(r, (uint32_t)getpid(), &cmd)) == -FI_EAGAIN)
		sched_yield();
	SHM_CHECK(ret == 0);
	cmd->op = SHM_OP_NOP;
	cmd->src_idx = (uint16_t)id;
	cmd->tag = seq;
	/* payload: a checksum the consumer recomputes */
	((uint64_t *)shm_cmd_payload(cmd))[0] = seq * 2654435761u + id;
	shm_cmdq_commit(r, cmd);
}

struct thr_arg {
	struct shm_region *r;
	unsigned id, count;
};

static void *producer_thread(void *p)
{
	struct thr_arg *t = p;

	for (uint64_t s = 0; s < t->count; s++) {
		push(t->r, t->id, s);
		if (!(s & 255))
			shm_test_progress();	/* the watchdog's heartbeat */
	}
	return NULL;
}

/* n_threads producer threads per process (ids id * n_threads + k), so
 * that the stress run also puts same-process producers under TSan. */
static unsigned n_threads = 1;

static void producer(void *p)
{
	struct q_arg *a = p;
	struct thr_arg t[8];
	pthread_t th[8];
	struct shm_region *r;
	unsigned k;

	SHM_CHECK(shm_region_map(a->name, &r) == 0);
	for (k = 0; k < n_threads; k++) {
		t[k] = (struct thr_arg){ r, a->id * n_threads + k, a->count };
		if (n_threads == 1)
			producer_thread(&t[k]);
		else
			SHM_CHECK(!pthread_create(&th[k], NULL,
						  producer_thread, &t[k]));
	}
	if (n_threads > 1)
		for (k = 0; k < n_threads; k++)
			pthread_join(th[k], NULL);
	shm_region_unmap(r);
}

static void test_single_process_basics(void **state)
{
	char name[SHM_REGION_NAME_MAX];
	struct shm_region *r;
	struct shm_cmd *cmd;
	unsigned i, round;

	make_name(100, name, sizeof(name));
	r = make_region(name, 8);
	assert_null(shm_cmdq_peek(r));
	assert_false(shm_cmdq_pending(r));
	for (round = 0; round < 5; round++) {	/* wraps several times */
		for (i = 0; i < 8; i++) {
			assert_int_equal(shm_cmdq_claim(r, getpid(), &cmd), 0);
			cmd->tag = round * 8 + i;
			/* claimed but not committed: pending, not readable */
			assert_true(shm_cmdq_pending(r));
			shm_cmdq_commit(r, cmd);
		}
		/* full: refused, nothing overwritten */
		assert_int_equal(shm_cmdq_claim(r, getpid(), &cmd), -FI_EAGAIN);
		for (i = 0; i < 8; i++) {
			cmd = shm_cmdq_peek(r);
			assert_non_null(cmd);
			assert_int_equal(cmd->tag, round * 8 + i);
			shm_cmdq_release(r, cmd);
		}
		assert_null(shm_cmdq_peek(r));
	}
	shm_region_close(r);
}

static void test_closing_refuses(void **state)
{
	char name[SHM_REGION_NAME_MAX];
	struct shm_region *r, *peer;
	struct shm_cmd *cmd;

	make_name(101, name, sizeof(name));
	r = make_region(name, 8);
	assert_int_equal(shm_region_map(name, &peer), 0);
	pl_store_release(&r->hdr->state, (uint32_t)SHM_REGION_CLOSING);
	assert_int_equal(shm_cmdq_claim(peer, getpid(), &cmd),
			 -FI_ECONNREFUSED);
	shm_region_unmap(peer);
	shm_region_close(r);
}

/* A producer that failed (a CHECK, a sanitizer report) will never send
 * its share: fail now instead of waiting for it until the suite's
 * timeout. WNOWAIT: the exit stays to be collected by shm_test_wait. */
static void assert_producers_alive(const pid_t *pids, unsigned n)
{
	siginfo_t info;
	unsigned i;

	for (i = 0; i < n; i++) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pids[i], &info,
			   WEXITED | WNOHANG | WNOWAIT) || !info.si_pid)
			continue;	/* still running */
		if (info.si_code != CLD_EXITED || info.si_status != 0)
			fail_msg("producer %d ended early (code %d, status %d)",
				 (int)pids[i], info.si_code, info.si_status);
	}
}

static void run_mpsc(unsigned producers, unsigned msgs, unsigned slots)
{
	struct q_arg a[64];
	unsigned ids = producers * n_threads;
	uint64_t *next = calloc(ids, sizeof(*next));
	char name[SHM_REGION_NAME_MAX];
	uint64_t total = 0, want, idle = 0;
	struct shm_region *r;
	struct shm_cmd *cmd;
	pid_t pids[64];
	unsigned i;

	assert_true(producers <= 64);
	want = (uint64_t)ids * msgs;
	make_name(102, name, sizeof(name));
	r = make_region(name, slots);
	for (i = 0; i < producers; i++) {
		snprintf(a[i].name, sizeof(a[i].name), "%s", name);
		a[i].id = i;
		a[i].count = msgs;
		pids[i] = shm_test_spawn(producer, &a[i]);
		assert_true(pids[i] > 0);
	}
	while (total < want) {
		cmd = shm_cmdq_peek(r);
		if (!cmd) {
			if (!(++idle & 0xffff))
				assert_producers_alive(pids, producers);
			sched_yield();
			continue;
		}
		assert_int_equal(cmd->op, SHM_OP_NOP);
		assert_true(cmd->src_idx < ids);
		/* per-producer order + count == exactly once */
		assert_int_equal(cmd->tag, next[cmd->src_idx]);
		assert_int_equal(((uint64_t *)shm_cmd_payload(cmd))[0],
				 cmd->tag * 2654435761u + cmd->src_idx);
		next[cmd->src_idx]++;
		if (!(++total & 255))
			shm_test_progress();
		shm_cmdq_release(r, cmd);
	}
	print_message("%llu messages from %u producers through %u slots\n",
		      (unsigned long long)total, ids, slots);
	for (i = 0; i < producers; i++)
		assert_int_equal(shm_test_wait(pids[i]), 0);
	for (i = 0; i < ids; i++)
		assert_int_equal(next[i], msgs);
	assert_null(shm_cmdq_peek(r));
	assert_int_equal(pl_load_relaxed(&r->ctl->dropped), 0);
	shm_region_close(r);
	free(next);
}

static void test_mpsc_processes(void **state)
{
	run_mpsc(n_producers, n_msgs, n_slots);
}

static void claim_and_die(void *p)
{
	struct q_arg *a = p;
	struct shm_region *r;
	struct shm_cmd *cmd;

	SHM_CHECK(shm_region_map(a->name, &r) == 0);
	SHM_CHECK(shm_cmdq_claim(r, getpid(), &cmd) == 0);
	kill(getpid(), SIGKILL);	/* dies between claim and commit */
}

static void test_dead_claimer_skipped(void **state)
{
	struct q_arg a;
	struct shm_region *r;
	struct shm_cmd *cmd;
	unsigned got = 0;
	pid_t pid;

	make_name(103, a.name, sizeof(a.name));
	r = make_region(a.name, 16);
	a.id = 0;
	a.count = 40;	/* more than the queue: producer waits for us */
	pid = shm_test_spawn(claim_and_die, &a);
	assert_int_equal(shm_test_wait(pid), 128 + SIGKILL);
	assert_true(shm_cmdq_pending(r));
	pid = shm_test_spawn(producer, &a);
	while (got < a.count) {
		cmd = shm_cmdq_peek(r);
		if (!cmd)
			continue;
		assert_int_equal(cmd->tag, got);
		got++;
		shm_cmdq_release(r, cmd);
	}
	assert_int_equal(shm_test_wait(pid), 0);
	assert_int_equal(pl_load_relaxed(&r->ctl->dropped), 1);
	shm_region_close(r);
}

/* Peek until a command comes (skipping what peek_slow repairs), at
 * most `polls` times; NULL if none came. */
static struct shm_cmd *peek_within(struct shm_region *r, unsigned polls)
{
	struct shm_cmd *cmd = NULL;

	while (polls-- && !(cmd = shm_cmdq_peek(r)))
		;
	return cmd;
}

/* One command through the queue: claimed, committed, read back. */
static void one_through(struct shm_region *r, uint64_t tag)
{
	struct shm_cmd *cmd;
	unsigned tries = 0;
	int ret;

	/* the producer may need the consumer's repair first (a foreign
	 * word in the window is the consumer's to fix): peek between */
	while ((ret = shm_cmdq_claim(r, (uint32_t)getpid(), &cmd)) ==
	       -FI_EAGAIN) {
		assert_true(tries++ < 64);
		assert_null(peek_within(r, 2 * SHM_CMDQ_STALL_CHECK));
	}
	assert_int_equal(ret, 0);
	cmd->op = SHM_OP_NOP;
	cmd->tag = tag;
	shm_cmdq_commit(r, cmd);
	cmd = peek_within(r, 64 * SHM_CMDQ_STALL_CHECK);
	assert_non_null(cmd);
	assert_int_equal(cmd->tag, tag);
	shm_cmdq_release(r, cmd);
}

/* Words another process wrote (shm_cmdq.c (6)) never stop the queue: a
 * claim far ahead at the head, a READY word in the claim table, a hint
 * far ahead or far behind, a head word moved back; the consumer repairs
 * and skips, the producer resets the hint, and the next command goes
 * through each time. */
/* The claim word of position pos's slot in r. */
static pl_atomic_u64 *claim_at(struct shm_region *r, uint64_t pos)
{
	return shm_region_claim(r, (uint32_t)(pos & r->slot_mask));
}

static void test_foreign_words(void **state)
{
	char name[SHM_REGION_NAME_MAX];
	struct shm_region *r;
	uint64_t pos, n = 16;

	(void)state;
	make_name(104, name, sizeof(name));
	r = make_region(name, (unsigned)n);
	one_through(r, 1);

	pos = pl_load_relaxed(&r->ctl->tail);
	pl_store_relaxed(claim_at(r, pos),
			 shm_st(SHM_PH_CLAIMED, pos + 1000 * n + 3, 1));
	assert_true(shm_cmdq_pending(r));	/* no sleeping on it */
	one_through(r, 2);

	pos = pl_load_relaxed(&r->ctl->tail);
	pl_store_relaxed(claim_at(r, pos),
			 shm_st(SHM_PH_READY, pos, 0));
	one_through(r, 3);

	pos = pl_load_relaxed(&r->ctl->tail);
	pl_store_relaxed(&r->ctl->tail, pos + (1ull << 38));
	one_through(r, 4);

	pos = pl_load_relaxed(&r->ctl->tail);
	pl_store_relaxed(&r->ctl->tail, pos - 5 * n);
	pl_store_relaxed(&r->ctl->head, pos - 3 * n);
	one_through(r, 5);

	/* a hint moved past an unclaimed head: the consumer claims it */
	pos = pl_load_relaxed(&r->ctl->tail);
	pl_store_relaxed(&r->ctl->tail, pos + 2);
	assert_true(shm_cmdq_pending(r));
	one_through(r, 6);

	for (uint64_t t = 7; t < 7 + 3 * n; t++)	/* still wraps */
		one_through(r, t);
	shm_region_close(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_process_basics),
		cmocka_unit_test(test_closing_refuses),
		cmocka_unit_test(test_mpsc_processes),
		cmocka_unit_test(test_dead_claimer_skipped),
		cmocka_unit_test(test_foreign_words),
	};
	const struct CMUnitTest stress[] = {
		cmocka_unit_test(test_mpsc_processes),
	};

	if (argc > 1 && !strcmp(argv[1], "stress")) {
		n_producers = 4;
		n_threads = 2;
		n_msgs = 250000;
		n_slots = 16;
		return cmocka_run_group_tests(stress, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
