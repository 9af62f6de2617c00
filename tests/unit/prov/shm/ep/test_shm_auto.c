/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_PROGRESS_AUTO on shm, between fork()ed processes, through the public
 * API only. One scenario per run, named by argv[1]:
 *
 *   getinfo  hints that leave data_progress open get FI_PROGRESS_MANUAL
 *            (as the reference answers); hints asking for
 *            FI_PROGRESS_AUTO get it
 *   idle     the target opens FI_PROGRESS_AUTO, pre-posts its receives
 *            and then never calls the library again (it sleeps in
 *            nanosleep until the test ends). The initiator sends every
 *            size class (inline, SAR, CMA; SAR only with
 *            FI_SHM_DISABLE_CMA=1) with FI_DELIVERY_COMPLETE: each send
 *            completes only once the target's progress thread placed the
 *            data. A first round back to back, a second with pauses so
 *            that every message finds the thread asleep. Between the
 *            rounds the target's CPU time (all its threads, from
 *            /proc/PID/task/TID/schedstat) over 2 s of idleness must stay
 *            below 10% of the wall time: its progress thread sleeps
 *            instead of spinning. The data is verified in a shared
 *            mapping.
 *   rma      the target opens FI_PROGRESS_AUTO, registers memory and
 *            never calls the library again; the initiator's fi_write and
 *            fi_read of every size class, fi_atomic (FI_SUM),
 *            fi_fetch_atomic and fi_compare_atomic complete, each finding
 *            the target's thread asleep; the data and the atomic word are
 *            verified in the target's memory, and its idle CPU use is
 *            checked as in idle (run also with FI_SHM_DISABLE_CMA=1)
 *   late     a 1 MiB message reaches an FI_PROGRESS_AUTO target before
 *            its receive is posted; the target's thread goes back to
 *            sleep; the target then posts the receive (its last call)
 *            and sleeps: the post must wake the thread to drain the SAR
 *            channel (run with FI_SHM_DISABLE_CMA=1; with CMA the read
 *            happens inside the post)
 *   pollstop the target's thread sleeps; the application then reads its
 *            CQ once (a poll that disarms the endpoint) and never calls
 *            again: a later message must still be progressed (the poll
 *            wakes the thread so that it re-arms)
 *   busy     the target opens FI_PROGRESS_AUTO and ALSO reads its CQ in a
 *            loop while 600 messages of mixed sizes arrive: the progress
 *            thread and the application drive one endpoint at once
 *            (suite concurrency, for ThreadSanitizer)
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include "shm_auto_test.h"

/* CPU time of every thread of pid, in ns (schedstat field 1). */
static uint64_t proc_cpu_ns(pid_t pid)
{
	char path[300];
	struct dirent *de;
	uint64_t sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	SHM_CHECK(d);
	while ((de = readdir(d))) {
		unsigned long long run = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
			 (int)pid, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* thread gone meanwhile */
		if (fscanf(f, "%llu", &run) == 1)
			sum += run;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* 1 (and a message) when pid's threads used 10% of one core or more
 * over 2 s; a spinning progress thread would use ~100%. */
static int idle_cpu_check(pid_t pid)
{
	uint64_t c0, c1, w0, w1;

	sleep_ms(100);
	c0 = proc_cpu_ns(pid);
	w0 = now_ns();
	sleep_ms(2000);
	c1 = proc_cpu_ns(pid);
	w1 = now_ns();
	printf("target CPU while idle: %.2f%% of one core (%" PRIu64
	       " ns over %" PRIu64 " ns)\n",
	       100.0 * (double)(c1 - c0) / (double)(w1 - w0), c1 - c0,
	       w1 - w0);
	if ((c1 - c0) * 10 >= w1 - w0) {
		fprintf(stderr, "the idle target burns CPU\n");
		return 1;
	}
	return 0;
}

/* ---- getinfo ---- */

static int progress_of(enum fi_progress ask, enum fi_progress *got)
{
	struct fi_info *hints = fi_allocinfo(), *info = NULL;
	int ret;

	SHM_CHECK(hints);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = CAPS;
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY |
				      FI_MR_ALLOCATED;
	hints->domain_attr->data_progress = ask;
	hints->fabric_attr->prov_name = strdup("shm");
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (ret) {
		fprintf(stderr, "fi_getinfo(data_progress %d): %d\n", ask, ret);
		return ret;
	}
	*got = info->domain_attr->data_progress;
	fi_freeinfo(info);
	return 0;
}

static int run_getinfo(void)
{
	enum fi_progress got;

	SHM_CHECK(progress_of(FI_PROGRESS_UNSPEC, &got) == 0);
	SHM_CHECK(got == FI_PROGRESS_MANUAL);
	SHM_CHECK(progress_of(FI_PROGRESS_MANUAL, &got) == 0);
	SHM_CHECK(got == FI_PROGRESS_MANUAL);
	SHM_CHECK(progress_of(FI_PROGRESS_AUTO, &got) == 0);
	SHM_CHECK(got == FI_PROGRESS_AUTO);
	return 0;
}

/* ---- idle ---- */

/* inline (8, 150), SAR (1000, 16384 and above without CMA), CMA */
static const size_t idle_sizes[] = { 8, 150, 1000, 16384, 100000, 4 << 20 };
#define IDLE_N (sizeof(idle_sizes) / sizeof(idle_sizes[0]))
#define IDLE_ROUNDS 2
#define IDLE_SLOT ((size_t)(4 << 20))

struct idle_shared {
	struct tep_board b;
	_Atomic int posted;	/* target: receives posted, going to sleep */
	_Atomic int round_done;	/* initiator: rounds completed */
	_Atomic int go;		/* parent: rounds the initiator may run */
	_Atomic int quit;	/* parent: target may tear down */
	_Atomic int data_progress;	/* what the target's domain got */
	uint8_t rbuf[IDLE_ROUNDS][IDLE_N][IDLE_SLOT];
};

static struct idle_shared *sh;

static void idle_target(void *arg)
{
	struct tep t;

	(void)arg;
	SHM_CHECK(auto_open(&t, FI_PROGRESS_AUTO) == 0);
	sh->data_progress = t.info->domain_attr->data_progress;
	memcpy(sh->b.name[0], t.name, t.namelen);
	for (int r = 0; r < IDLE_ROUNDS; r++)
		for (size_t i = 0; i < IDLE_N; i++)
			SHM_CHECK(fi_trecv(t.ep, sh->rbuf[r][i], IDLE_SLOT,
					   NULL, FI_ADDR_UNSPEC,
					   r * IDLE_N + i, 0, NULL) == 0);
	sh->posted = 1;
	/* from here on, no library call until the test is over */
	while (!sh->quit)
		sleep_ms(10);
	tep_close(&t);
}

static void idle_initiator(void *arg)
{
	uint8_t *buf = malloc(IDLE_SLOT);
	fi_addr_t dst;
	struct tep t;

	(void)arg;
	SHM_CHECK(buf);
	SHM_CHECK(auto_open(&t, FI_PROGRESS_MANUAL) == 0);
	while (!sh->posted)
		sleep_ms(1);
	SHM_CHECK(fi_av_insert(t.av, sh->b.name[0], 1, &dst, 0, NULL) == 1);
	for (int r = 0; r < IDLE_ROUNDS; r++) {
		while (sh->go <= r)
			sleep_ms(1);
		for (size_t i = 0; i < IDLE_N; i++) {
			uint64_t tag = r * IDLE_N + i;
			struct iovec iov = { buf, idle_sizes[i] };
			struct fi_msg_tagged m = {
				.msg_iov = &iov, .iov_count = 1,
				.addr = dst, .tag = tag,
			};

			/* round 1: the target's progress thread is asleep
			 * (it spins FI_PROGRESS_SPIN_US, 50 us by default)
			 * when each message arrives */
			if (r)
				sleep_ms(20);
			shm_test_fill(buf, idle_sizes[i], tag);
			SHM_CHECK(TEP_RETRY(&t, fi_tsendmsg(t.ep, &m,
				FI_DELIVERY_COMPLETE | FI_COMPLETION)) == 0);
			/* complete = placed in the target's buffer */
			tep_tx_wait(&t, t.tx_done + 1);
		}
		sh->round_done = r + 1;
	}
	tep_close(&t);
	free(buf);
}

static int run_idle(void)
{
	pid_t target, init;
	int fail = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	SHM_CHECK(sh != MAP_FAILED);
	target = shm_test_spawn(idle_target, NULL);
	init = shm_test_spawn(idle_initiator, NULL);
	alarm(SHM_TEST_ALARM_S + 10);
	while (!sh->posted)
		sleep_ms(1);
	SHM_CHECK(sh->data_progress == FI_PROGRESS_AUTO);
	sh->go = 1;
	while (sh->round_done < 1)
		sleep_ms(1);
	/* idle: the target has nothing pending; measure its CPU use */
	fail |= idle_cpu_check(target);
	sh->go = 2;
	if (shm_test_wait(init)) {
		fprintf(stderr, "initiator failed\n");
		fail = 1;
	}
	for (int r = 0; r < IDLE_ROUNDS && !fail; r++)
		for (size_t i = 0; i < IDLE_N; i++)
			if (shm_test_verify(sh->rbuf[r][i], idle_sizes[i],
					    r * IDLE_N + i)) {
				fprintf(stderr, "round %d size %zu: bad data\n",
					r, idle_sizes[i]);
				fail = 1;
			}
	sh->quit = 1;
	if (shm_test_wait(target)) {
		fprintf(stderr, "target failed\n");
		fail = 1;
	}
	return fail;
}

/* ---- busy ---- */

#define BUSY_N 600
#define BUSY_MAX (256 * 1024)

static size_t busy_len(uint64_t i)
{
	static const size_t l[] = { 8, 100, 3000, 20000, BUSY_MAX };

	return l[i % 5];
}

static struct tep_board *bboard;

static void busy_target(void *arg)
{
	uint8_t *buf = malloc(BUSY_MAX);
	struct fi_cq_tagged_entry e;
	struct tep t;

	(void)arg;
	SHM_CHECK(buf);
	SHM_CHECK(auto_open(&t, FI_PROGRESS_AUTO) == 0);
	memcpy(bboard->name[0], t.name, t.namelen);
	bboard->flag[0] = 1;
	for (uint64_t i = 0; i < BUSY_N; i++) {
		SHM_CHECK(fi_trecv(t.ep, buf, BUSY_MAX, NULL, FI_ADDR_UNSPEC,
				   i, 0, NULL) == 0);
		/* the application polls while the thread progresses */
		tep_wait(&t, &e);
		SHM_CHECK(e.tag == i && e.len == busy_len(i));
		SHM_CHECK(shm_test_verify(buf, e.len, i) == 0);
	}
	bboard->flag[1] = 1;
	tep_close(&t);
	free(buf);
}

static void busy_initiator(void *arg)
{
	uint8_t *buf = malloc(BUSY_MAX);
	fi_addr_t dst;
	struct tep t;

	(void)arg;
	SHM_CHECK(buf);
	SHM_CHECK(auto_open(&t, FI_PROGRESS_AUTO) == 0);
	while (!bboard->flag[0])
		sleep_ms(1);
	SHM_CHECK(fi_av_insert(t.av, bboard->name[0], 1, &dst, 0, NULL) == 1);
	for (uint64_t i = 0; i < BUSY_N; i++) {
		shm_test_fill(buf, busy_len(i), i);
		SHM_CHECK(TEP_RETRY(&t, fi_tsend(t.ep, buf, busy_len(i), NULL,
						 dst, i, NULL)) == 0);
		tep_tx_wait(&t, i + 1);
	}
	while (!bboard->flag[1])
		sleep_ms(1);
	tep_close(&t);
	free(buf);
}

static int run_busy(void)
{
	pid_t a, b;
	int fail = 0;

	bboard = tep_board_new();
	SHM_CHECK(bboard);
	a = shm_test_spawn(busy_target, NULL);
	b = shm_test_spawn(busy_initiator, NULL);
	if (shm_test_wait(a) || shm_test_wait(b))
		fail = 1;
	return fail;
}

/* ---- late ---- */

#define LATE_LEN ((size_t)1 << 20)

struct late_shared {
	_Atomic int ready, sent, posted, done, quit;
	char name[TEP_NAME_MAX];
	uint8_t rbuf[LATE_LEN];
};

static struct late_shared *lsh;

static void late_target(void *arg)
{
	struct tep t;

	(void)arg;
	SHM_CHECK(auto_open(&t, FI_PROGRESS_AUTO) == 0);
	memcpy(lsh->name, t.name, t.namelen);
	lsh->ready = 1;
	while (!lsh->sent)
		sleep_ms(1);
	/* the message has arrived unexpected and the thread went back to
	 * sleep: this post starts the drain, and is our last call */
	sleep_ms(100);
	SHM_CHECK(fi_trecv(t.ep, lsh->rbuf, LATE_LEN, NULL, FI_ADDR_UNSPEC,
			   7, 0, NULL) == 0);
	lsh->posted = 1;
	while (!lsh->quit)
		sleep_ms(10);
	tep_close(&t);
}

static void late_initiator(void *arg)
{
	uint8_t *buf = malloc(LATE_LEN);
	fi_addr_t dst;
	struct tep t;

	(void)arg;
	SHM_CHECK(buf);
	SHM_CHECK(auto_open(&t, FI_PROGRESS_MANUAL) == 0);
	while (!lsh->ready)
		sleep_ms(1);
	SHM_CHECK(fi_av_insert(t.av, lsh->name, 1, &dst, 0, NULL) == 1);
	shm_test_fill(buf, LATE_LEN, 7);
	SHM_CHECK(TEP_RETRY(&t, fi_tsend(t.ep, buf, LATE_LEN, NULL, dst, 7,
					 NULL)) == 0);
	lsh->sent = 1;
	/* SAR: complete once drained; CMA: once read and acknowledged */
	tep_tx_wait(&t, 1);
	SHM_CHECK(lsh->posted);
	lsh->done = 1;
	tep_close(&t);
	free(buf);
}

static int run_late(void)
{
	pid_t target, init;
	int fail = 0;

	lsh = mmap(NULL, sizeof(*lsh), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	SHM_CHECK(lsh != MAP_FAILED);
	target = shm_test_spawn(late_target, NULL);
	init = shm_test_spawn(late_initiator, NULL);
	if (shm_test_wait(init)) {
		fprintf(stderr, "initiator failed\n");
		fail = 1;
	}
	if (!fail && shm_test_verify(lsh->rbuf, LATE_LEN, 7)) {
		fprintf(stderr, "bad data\n");
		fail = 1;
	}
	lsh->quit = 1;
	if (shm_test_wait(target))
		fail = 1;
	return fail;
}

/* ---- pollstop ---- */

static void pollstop_target(void *arg)
{
	struct fi_cq_tagged_entry e;
	struct tep t;

	(void)arg;
	SHM_CHECK(auto_open(&t, FI_PROGRESS_AUTO) == 0);
	memcpy(lsh->name, t.name, t.namelen);
	SHM_CHECK(fi_trecv(t.ep, lsh->rbuf, LATE_LEN, NULL, FI_ADDR_UNSPEC,
			   9, 0, NULL) == 0);
	/* the thread goes to sleep; then one application poll (it drives
	 * the endpoint itself, disarming it) and no call ever again */
	sleep_ms(100);
	SHM_CHECK(fi_cq_read(t.cq, &e, 1) == -FI_EAGAIN);
	lsh->ready = 1;
	while (!lsh->quit)
		sleep_ms(10);
	tep_close(&t);
}

static void pollstop_initiator(void *arg)
{
	uint8_t buf[64];
	fi_addr_t dst;
	struct tep t;
	struct iovec iov = { buf, sizeof(buf) };
	struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1, .tag = 9 };

	(void)arg;
	SHM_CHECK(auto_open(&t, FI_PROGRESS_MANUAL) == 0);
	while (!lsh->ready)
		sleep_ms(1);
	SHM_CHECK(fi_av_insert(t.av, lsh->name, 1, &dst, 0, NULL) == 1);
	m.addr = dst;
	sleep_ms(50);
	shm_test_fill(buf, sizeof(buf), 9);
	/* completes only once the target's thread placed it */
	SHM_CHECK(TEP_RETRY(&t, fi_tsendmsg(t.ep, &m,
		FI_DELIVERY_COMPLETE | FI_COMPLETION)) == 0);
	tep_tx_wait(&t, 1);
	tep_close(&t);
}

static int run_pollstop(void)
{
	pid_t target, init;
	int fail = 0;

	lsh = mmap(NULL, sizeof(*lsh), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	SHM_CHECK(lsh != MAP_FAILED);
	target = shm_test_spawn(pollstop_target, NULL);
	init = shm_test_spawn(pollstop_initiator, NULL);
	if (shm_test_wait(init)) {
		fprintf(stderr, "initiator failed (the message was never "
			"progressed?)\n");
		fail = 1;
	}
	if (!fail && shm_test_verify(lsh->rbuf, 64, 9))
		fail = 1;
	lsh->quit = 1;
	if (shm_test_wait(target))
		fail = 1;
	return fail;
}

/* ---- rma ---- */

#define RMA_CAPS (FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_READ | \
		  FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT)
#define RMA_MEM ((size_t)12 << 20)

struct rma_shared {
	_Atomic int posted, done, quit, data_progress;
	uint64_t addr, key;
	char name[TEP_NAME_MAX];
	uint64_t word;			/* the atomics' target */
	uint8_t mem[RMA_MEM];		/* the writes' and reads' target */
};

static struct rma_shared *rsh;

static void rma_target(void *arg)
{
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *mrc;
	struct fid_mr *mr;
	struct tep t;

	(void)arg;
	SHM_CHECK(auto_open_caps(&t, FI_PROGRESS_AUTO, RMA_CAPS) == 0);
	rsh->data_progress = t.info->domain_attr->data_progress;
	/* one MR over the word and the memory (they are adjacent), with
	 * the key the test picks when the application chooses keys, and a
	 * counter bound to it, as OpenSHMEM runtimes set up their heaps */
	SHM_CHECK(fi_mr_reg(t.domain, &rsh->word,
			    sizeof(rsh->word) + RMA_MEM,
			    FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0x5348, 0,
			    &mr, NULL) == 0);
	SHM_CHECK(fi_cntr_open(t.domain, &ca, &mrc, NULL) == 0);
	SHM_CHECK(fi_mr_bind(mr, &mrc->fid, FI_REMOTE_WRITE) == 0);
	rsh->addr = (t.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
		    (uint64_t)(uintptr_t)&rsh->word : 0;
	rsh->key = fi_mr_key(mr);
	memcpy(rsh->name, t.name, t.namelen);
	rsh->posted = 1;
	/* from here on, no library call until the test is over */
	while (!rsh->quit)
		sleep_ms(10);
	/* every write and every modifying atomic counted on the MR */
	SHM_CHECK(fi_cntr_read(mrc) == IDLE_N + 5);
	SHM_CHECK(fi_close(&mr->fid) == 0);
	SHM_CHECK(fi_close(&mrc->fid) == 0);
	tep_close(&t);
}

/* Wait for the next transmit completion, which must succeed. */
static void rma_tx_ok(struct tep *t)
{
	uint64_t before = t->tx_done;

	tep_tx_wait(t, t->tx_done + t->tx_err + 1);
	SHM_CHECK(t->tx_done == before + 1);
}

static void rma_initiator(void *arg)
{
	uint8_t *src = malloc(IDLE_SLOT), *back = malloc(IDLE_SLOT);
	uint64_t one = 5, res = 0, cmp, raddr;
	fi_addr_t dst;
	size_t off = 0;
	struct tep t;

	(void)arg;
	SHM_CHECK(src && back);
	SHM_CHECK(auto_open_caps(&t, FI_PROGRESS_MANUAL, RMA_CAPS) == 0);
	while (!rsh->posted)
		sleep_ms(1);
	SHM_CHECK(fi_av_insert(t.av, rsh->name, 1, &dst, 0, NULL) == 1);
	raddr = rsh->addr + sizeof(uint64_t);
	for (size_t i = 0; i < IDLE_N; off += idle_sizes[i], i++) {
		/* each operation finds the target's thread asleep */
		sleep_ms(20);
		shm_test_fill(src, idle_sizes[i], 500 + i);
		SHM_CHECK(TEP_RETRY(&t, fi_write(t.ep, src, idle_sizes[i], NULL,
			dst, raddr + off, rsh->key, NULL)) == 0);
		rma_tx_ok(&t);
		sleep_ms(20);
		memset(back, 0, idle_sizes[i]);
		SHM_CHECK(TEP_RETRY(&t, fi_read(t.ep, back, idle_sizes[i], NULL,
			dst, raddr + off, rsh->key, NULL)) == 0);
		rma_tx_ok(&t);
		SHM_CHECK(shm_test_verify(back, idle_sizes[i], 500 + i) == 0);
	}
	/* atomics: 3 x (+5), fetch-add 1 (fetches 15), compare-swap
	 * 16 -> 100 (fetches 16) */
	for (int k = 0; k < 3; k++) {
		sleep_ms(20);
		SHM_CHECK(TEP_RETRY(&t, fi_atomic(t.ep, &one, 1, NULL, dst,
			rsh->addr, rsh->key, FI_UINT64, FI_SUM, NULL)) == 0);
		rma_tx_ok(&t);
	}
	one = 1;
	sleep_ms(20);
	SHM_CHECK(TEP_RETRY(&t, fi_fetch_atomic(t.ep, &one, 1, NULL, &res,
		NULL, dst, rsh->addr, rsh->key, FI_UINT64, FI_SUM,
		NULL)) == 0);
	rma_tx_ok(&t);
	SHM_CHECK(res == 15);
	cmp = 16;
	one = 100;
	sleep_ms(20);
	SHM_CHECK(TEP_RETRY(&t, fi_compare_atomic(t.ep, &one, 1, NULL, &cmp,
		NULL, &res, NULL, dst, rsh->addr, rsh->key, FI_UINT64,
		FI_CSWAP, NULL)) == 0);
	rma_tx_ok(&t);
	SHM_CHECK(res == 16);
	rsh->done = 1;
	tep_close(&t);
	free(src);
	free(back);
}

static int run_rma(void)
{
	pid_t target, init;
	size_t off = 0;
	int fail = 0;

	rsh = mmap(NULL, sizeof(*rsh), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	SHM_CHECK(rsh != MAP_FAILED);
	target = shm_test_spawn(rma_target, NULL);
	init = shm_test_spawn(rma_initiator, NULL);
	alarm(SHM_TEST_ALARM_S + 10);
	while (!rsh->posted)
		sleep_ms(1);
	SHM_CHECK(rsh->data_progress == FI_PROGRESS_AUTO);
	if (shm_test_wait(init)) {
		fprintf(stderr, "initiator failed\n");
		fail = 1;
	}
	/* the target's memory, seen directly */
	for (size_t i = 0; i < IDLE_N && !fail; off += idle_sizes[i], i++)
		if (shm_test_verify(rsh->mem + off, idle_sizes[i], 500 + i)) {
			fprintf(stderr, "write of %zu: bad data\n",
				idle_sizes[i]);
			fail = 1;
		}
	if (rsh->word != 100) {
		fprintf(stderr, "atomic word %" PRIu64 ", not 100\n",
			rsh->word);
		fail = 1;
	}
	fail |= idle_cpu_check(target);
	rsh->quit = 1;
	if (shm_test_wait(target)) {
		fprintf(stderr, "target failed\n");
		fail = 1;
	}
	return fail;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: %s getinfo|idle|busy|rma|late|pollstop\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "getinfo"))
		return run_getinfo();
	if (!strcmp(argv[1], "idle"))
		return run_idle();
	if (!strcmp(argv[1], "busy"))
		return run_busy();
	if (!strcmp(argv[1], "rma"))
		return run_rma();
	if (!strcmp(argv[1], "late"))
		return run_late();
	if (!strcmp(argv[1], "pollstop"))
		return run_pollstop();
	fprintf(stderr, "unknown scenario %s\n", argv[1]);
	return 2;
}
