/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Peer failure on shm: a peer process is SIGKILLed in the middle of
 * transfers; the survivor's pending operations complete in error within a
 * bounded time, new sends to the dead peer fail cleanly, and /dev/shm holds
 * nothing of the dead peer afterwards. Through the public API only.
 *
 *   target MODE  the victims are targets: V1 (CMA) and V2 (FI_SHM_DISABLE_CMA
 *                =1, so large sends go by SAR) never poll after setup. The
 *                survivor sends 4 MiB to each (CMA: waits for the ack; SAR:
 *                the bounce ring fills and stalls), 8 bytes with
 *                FI_DELIVERY_COMPLETE to each (waits for the ack), and 10
 *                small plain sends (complete at once). Then both victims are
 *                killed: the four pending sends must complete with
 *                FI_ECONNRESET, the ten with success; a new send to V1 must
 *                return -FI_ECONNREFUSED; both regions must be gone.
 *   sender MODE  the victim sends to the survivor: 4 MiB by SAR (the ring's
 *                first chunks go out, then it stalls: the victim never polls
 *                again) and 8 bytes. The survivor's matching receives are
 *                posted; it drains what it can, the victim is killed; the
 *                8-byte receive completes with its data, the 4 MiB one with
 *                FI_ECONNRESET. The victim's region must be gone.
 *   cma MODE     as sender, but the 4 MiB message goes by CMA and its
 *                receive is posted only once the victim is dead: the
 *                receive completes in error (the read fails: FI_ECONNRESET)
 *                and the region is gone.
 *
 * MODE: "manual" (the survivor spins on its CQ) or "auto" (its domain has
 * FI_PROGRESS_AUTO and it looks at its CQ every 20 ms only: detection is
 * the progress thread's, woken by its liveness timer). The survivor runs
 * under an alarm (SHM_TEST_ALARM_S = 30 s): a hang fails the test.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shm_auto_test.h"

#define BIG ((size_t)4 << 20)
#define SMALL_N 10

struct pd_shared {
	struct tep_board b;	/* name[0]: survivor, [1], [2]: victims */
	_Atomic int ready[3];	/* opened, name published */
	_Atomic int sent;	/* survivor (target) / victim (sender) */
	_Atomic int killed;	/* parent: the victims are dead and reaped */
	_Atomic int drained;	/* survivor (sender): has polled a while */
	pid_t victim[2];
};

static struct pd_shared *sh;
static bool survivor_auto;

static void wait_flag(_Atomic int *f)
{
	while (!*f)
		sleep_ms(1);
}

/* Does /dev/shm still hold a region of pid? */
static bool region_left(pid_t pid)
{
	char pfx[64];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(pfx, sizeof(pfx), "propel-shm-%u-%d-", (unsigned)getuid(),
		 (int)pid);
	d = opendir("/dev/shm");
	SHM_CHECK(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, pfx, strlen(pfx))) {
			fprintf(stderr, "left: /dev/shm/%s\n", de->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* Read one completion of cq (ok or error); 0 when none. In auto mode
 * look only every 20 ms: the progress thread does the work. */
static int pd_read(struct tep *t, struct fid_cq *cq,
		   struct fi_cq_tagged_entry *e, struct fi_cq_err_entry *err)
{
	ssize_t n;

	if (survivor_auto)
		sleep_ms(20);
	n = fi_cq_read(cq, e, 1);
	if (n == 1)
		return 1;
	if (n == -FI_EAVAIL) {
		memset(err, 0, sizeof(*err));
		SHM_CHECK(fi_cq_readerr(cq, err, 0) == 1);
		return -1;
	}
	SHM_CHECK(n == -FI_EAGAIN);
	(void)t;
	return 0;
}

static void victim_open(int idx, bool nocma, struct tep *t)
{
	if (nocma)
		setenv("FI_SHM_DISABLE_CMA", "1", 1);
	SHM_CHECK(auto_open(t, FI_PROGRESS_MANUAL) == 0);
	memcpy(sh->b.name[idx], t->name, t->namelen);
	sh->ready[idx] = 1;
}

/* ---- the victims are targets ---- */

static void target_victim(void *arg)
{
	struct tep t;

	victim_open((int)(intptr_t)arg, (intptr_t)arg == 2, &t);
	for (;;)
		pause();	/* never polls again; killed here */
}

static void target_survivor(void *arg)
{
	uint8_t *big = malloc(BIG), small[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int errs[5] = { 0 }, oks = 0, nerr = 0;
	fi_addr_t v[2];
	struct tep t;
	ssize_t r;

	(void)arg;
	SHM_CHECK(big);
	memset(big, 0x5a, BIG);
	SHM_CHECK(auto_open(&t, survivor_auto ? FI_PROGRESS_AUTO :
			    FI_PROGRESS_MANUAL) == 0);
	wait_flag(&sh->ready[1]);
	wait_flag(&sh->ready[2]);
	for (int i = 0; i < 2; i++)
		SHM_CHECK(fi_av_insert(t.av, sh->b.name[1 + i], 1, &v[i], 0,
				       NULL) == 1);
	/* contexts 1, 2: 4 MiB to V1 (CMA), to V2 (SAR) */
	for (int i = 0; i < 2; i++)
		SHM_CHECK(TEP_RETRY(&t, fi_send(t.ep, big, BIG, NULL, v[i],
						(void *)(intptr_t)(1 + i))) == 0);
	/* contexts 3, 4: 8 bytes, delivery complete */
	for (int i = 0; i < 2; i++) {
		struct iovec iov = { small, sizeof(small) };
		struct fi_msg m = { .msg_iov = &iov, .iov_count = 1,
				    .addr = v[i],
				    .context = (void *)(intptr_t)(3 + i) };

		SHM_CHECK(TEP_RETRY(&t, fi_sendmsg(t.ep, &m,
			FI_DELIVERY_COMPLETE | FI_COMPLETION)) == 0);
	}
	/* plain small sends: complete once queued */
	for (int i = 0; i < SMALL_N; i++)
		SHM_CHECK(TEP_RETRY(&t, fi_send(t.ep, small, sizeof(small),
			NULL, v[0], (void *)(intptr_t)100)) == 0);
	sh->sent = 1;
	wait_flag(&sh->killed);
	while (nerr < 4 || oks < SMALL_N) {
		r = pd_read(&t, t.txcq, &e, &err);
		if (r > 0) {
			SHM_CHECK(e.op_context == (void *)(intptr_t)100);
			oks++;
		} else if (r < 0) {
			intptr_t c = (intptr_t)err.op_context;

			if (err.err != FI_ECONNRESET)
				fprintf(stderr, "ctx %ld: err %d (%s)\n",
					(long)c, err.err,
					fi_strerror(err.err));
			SHM_CHECK(err.err == FI_ECONNRESET);
			SHM_CHECK(c >= 1 && c <= 4 && !errs[c]);
			errs[c] = 1;
			nerr++;
		}
	}
	/* a new send to a dead target fails, it does not queue forever */
	do {
		r = fi_send(t.ep, small, sizeof(small), NULL, v[0], NULL);
		if (r == -FI_EAGAIN)
			pd_read(&t, t.txcq, &e, &err);
	} while (r == -FI_EAGAIN);
	SHM_CHECK(r == -FI_ECONNREFUSED);
	SHM_CHECK(!region_left(sh->victim[0]));
	SHM_CHECK(!region_left(sh->victim[1]));
	tep_close(&t);
	free(big);
}

/* ---- the victim is the sender ---- */

static bool sender_cma;

static void sender_victim(void *arg)
{
	uint8_t *big = malloc(BIG), small[8];
	fi_addr_t s;
	struct tep t;

	(void)arg;
	SHM_CHECK(big);
	shm_test_fill(big, BIG, 1);
	shm_test_fill(small, sizeof(small), 2);
	victim_open(1, !sender_cma, &t);
	wait_flag(&sh->ready[0]);
	SHM_CHECK(fi_av_insert(t.av, sh->b.name[0], 1, &s, 0, NULL) == 1);
	SHM_CHECK(TEP_RETRY(&t, fi_tsend(t.ep, big, BIG, NULL, s, 1,
					 NULL)) == 0);
	SHM_CHECK(TEP_RETRY(&t, fi_tsend(t.ep, small, sizeof(small), NULL, s,
					 2, NULL)) == 0);
	sh->sent = 1;
	for (;;)
		pause();	/* the SAR ring stalls: we never poll again */
}

static void sender_survivor(void *arg)
{
	uint8_t *big = malloc(BIG), small[8];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	bool got_small = false, got_big = false;
	struct tep t;
	int r;

	(void)arg;
	SHM_CHECK(big);
	SHM_CHECK(auto_open(&t, survivor_auto ? FI_PROGRESS_AUTO :
			    FI_PROGRESS_MANUAL) == 0);
	memcpy(sh->b.name[0], t.name, t.namelen);
	/* CMA: posted once the sender is dead, or an auto progress thread
	 * would read the data at once */
	if (!sender_cma)
		SHM_CHECK(fi_trecv(t.ep, big, BIG, NULL, FI_ADDR_UNSPEC, 1, 0,
				   (void *)(intptr_t)1) == 0);
	SHM_CHECK(fi_trecv(t.ep, small, sizeof(small), NULL, FI_ADDR_UNSPEC,
			   2, 0, (void *)(intptr_t)2) == 0);
	sh->ready[0] = 1;
	wait_flag(&sh->sent);
	if (!sender_cma) {
		/* drain the first chunks and the small message: the big
		 * one is now mid-SAR */
		for (int i = 0; i < 50; i++) {
			r = pd_read(&t, t.cq, &e, &err);
			SHM_CHECK(r >= 0);
			if (r) {
				SHM_CHECK(e.op_context == (void *)(intptr_t)2);
				SHM_CHECK(!shm_test_verify(small, 8, 2));
				got_small = true;
			}
		}
	}
	sh->drained = 1;
	wait_flag(&sh->killed);
	if (sender_cma)
		SHM_CHECK(fi_trecv(t.ep, big, BIG, NULL, FI_ADDR_UNSPEC, 1, 0,
				   (void *)(intptr_t)1) == 0);
	while (!got_big || !got_small) {
		r = pd_read(&t, t.cq, &e, &err);
		if (r > 0) {
			SHM_CHECK(e.op_context == (void *)(intptr_t)2);
			SHM_CHECK(!got_small);
			SHM_CHECK(!shm_test_verify(small, 8, 2));
			got_small = true;
		} else if (r < 0) {
			fprintf(stderr, "receive error: %d (%s)\n", err.err,
				fi_strerror(err.err));
			SHM_CHECK(err.op_context == (void *)(intptr_t)1);
			SHM_CHECK(!got_big);
			SHM_CHECK(err.err == FI_ECONNRESET);
			got_big = true;
		}
	}
	SHM_CHECK(!region_left(sh->victim[0]));
	tep_close(&t);
	free(big);
}

static void kill_victims(int n)
{
	for (int i = 0; i < n; i++) {
		SHM_CHECK(kill(sh->victim[i], SIGKILL) == 0);
		SHM_CHECK(shm_test_wait(sh->victim[i]) == 128 + SIGKILL);
	}
	sh->killed = 1;
}

int main(int argc, char **argv)
{
	pid_t surv;
	int st;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 3 || (strcmp(argv[2], "auto") && strcmp(argv[2], "manual"))) {
		fprintf(stderr, "usage: %s target|sender|cma manual|auto\n",
			argv[0]);
		return 2;
	}
	survivor_auto = !strcmp(argv[2], "auto");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	SHM_CHECK(sh != MAP_FAILED);
	if (!strcmp(argv[1], "target")) {
		surv = shm_test_spawn(target_survivor, NULL);
		sh->victim[0] = shm_test_spawn(target_victim, (void *)1);
		sh->victim[1] = shm_test_spawn(target_victim, (void *)2);
		wait_flag(&sh->sent);
		kill_victims(2);
	} else if (!strcmp(argv[1], "sender") || !strcmp(argv[1], "cma")) {
		sender_cma = !strcmp(argv[1], "cma");
		surv = shm_test_spawn(sender_survivor, NULL);
		sh->victim[0] = shm_test_spawn(sender_victim, NULL);
		wait_flag(&sh->drained);
		kill_victims(1);
	} else {
		fprintf(stderr, "unknown scenario %s\n", argv[1]);
		return 2;
	}
	st = shm_test_wait(surv);
	if (st)
		fprintf(stderr, "survivor exited %d%s\n", st,
			st == 128 + SIGALRM ? " (watchdog: it hung)" : "");
	return st ? 1 : 0;
}
