/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An address removed from the AV while other threads send to it, through
 * rxm (the reference crashes here): two sender threads post tagged sends
 * and injects from A to B as fast as they go, a third thread removes B
 * from A's AV and inserts it again, round after round, and a fourth
 * posts B's receives and reads its CQ. One FI_THREAD_SAFE endpoint each.
 *
 * fi_av(3) leaves operations in flight to a removed address undefined;
 * what this asserts is what a program may count on regardless:
 *   - every send returns 0, -FI_EAGAIN or -FI_EADDRNOTAVAIL: never a
 *     crash, another error or a hang (the watchdog);
 *   - B's completions are successes carrying intact bytes and the tag;
 *   - sends accepted after the last insert all arrive: once the remover
 *     stops, a closing batch of tagged sends is received in full;
 *   - everything closes.
 * Over tcp (default) and, with "shm", to the node-local peer through
 * shm. ASan and TSan (suite concurrency) turn a use of freed address
 * state into a failure.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

#define SENDERS		2
#define ROUNDS		300	/* removals */
#define RX_POSTED	64
#define MSG		48	/* bytes per send: the tag's byte repeated */
#define FINAL		200	/* the closing batch, after the last insert */
#define TAG		0x5a
#define TAG_FINAL	0xa5	/* the closing batch's tag and byte */

static struct ep a, b;
/* the remover's latest insert: senders load it (acquire), the remover
 * stores it (release) after fi_av_insert returned */
static _Atomic fi_addr_t dest;
/* set (release) once the remover is done; read (acquire) by the others */
static atomic_int stop_senders, stop_receiver;
/* counts for the report: each thread adds its own (relaxed: read after
 * the joins, which order them) */
static atomic_ullong accepted, refused, received;

/* A's completions, read by whichever sender finds the queue full: errors
 * are allowed (an operation in flight to a removed address). */
static void drain_a(void)
{
	struct fi_cq_tagged_entry e[16];
	struct fi_cq_err_entry err;
	ssize_t n;

	n = fi_cq_read(a.cq, e, 16);
	if (n == -FI_EAVAIL) {
		/* the other sender may take the entry first */
		memset(&err, 0, sizeof(err));
		n = fi_cq_readerr(a.cq, &err, 0);
		CHECK(n == 1 || n == -FI_EAGAIN);
	} else {
		CHECK(n > 0 || n == -FI_EAGAIN);
	}
}

static void *sender(void *arg)
{
	uint8_t buf[MSG];
	unsigned long i = (uintptr_t)arg;
	ssize_t r;

	memset(buf, TAG, sizeof(buf));
	while (!atomic_load_explicit(&stop_senders, memory_order_acquire)) {
		fi_addr_t to = atomic_load_explicit(&dest, memory_order_acquire);

		if (i++ & 1)
			r = fi_tinject(a.ep, buf, 8, to, TAG);
		else
			r = fi_tsend(a.ep, buf, MSG, NULL, to, TAG, NULL);
		if (r == 0)
			atomic_fetch_add_explicit(&accepted, 1, memory_order_relaxed);
		else if (r == -FI_EADDRNOTAVAIL)
			atomic_fetch_add_explicit(&refused, 1, memory_order_relaxed);
		else
			CHECK_EQ(r, -FI_EAGAIN);
		if (r || !(i & 15))
			drain_a();
	}
	return NULL;
}

static void *remover(void *arg)
{
	fi_addr_t now;

	(void)arg;
	for (int round = 0; round < ROUNDS; round++) {
		now = atomic_load_explicit(&dest, memory_order_acquire);
		CHECK_EQ(fi_av_remove(a.av, &now, 1, 0), 0);
		usleep(100);
		now = insert(&a, &b);
		atomic_store_explicit(&dest, now, memory_order_release);
		usleep(300);
	}
	atomic_store_explicit(&stop_senders, 1, memory_order_release);
	return NULL;
}

/* Post one of B's receives for tag into slot. */
static void post(uint8_t (*slot)[MSG], uint64_t tag)
{
	ssize_t r;

	do {
		r = fi_trecv(b.ep, slot, MSG, NULL, FI_ADDR_UNSPEC, tag, 0,
			     slot);
		if (r == -FI_EAGAIN)
			drive((struct ep *[]){ &b }, 1);
	} while (r == -FI_EAGAIN);
	CHECK_EQ(r, 0);
}

static void *receiver(void *arg)
{
	static uint8_t slots[RX_POSTED][MSG];
	struct fi_cq_tagged_entry e[16];
	ssize_t n;

	(void)arg;
	for (int i = 0; i < RX_POSTED; i++)
		post(&slots[i], TAG);
	while (!atomic_load_explicit(&stop_receiver, memory_order_acquire)) {
		n = fi_cq_read(b.cq, e, 16);
		if (n == -FI_EAGAIN)
			continue;
		CHECK(n > 0);	/* no error entry at the receiver */
		for (ssize_t k = 0; k < n; k++) {
			uint8_t (*slot)[MSG] = e[k].op_context;

			CHECK_EQ(e[k].tag, TAG);
			CHECK(e[k].len == 8 || e[k].len == MSG);
			for (size_t j = 0; j < e[k].len; j++)
				CHECK_EQ((*slot)[j], TAG);
			memset(slot, 0, MSG);
			post(slot, TAG);
		}
		atomic_fetch_add_explicit(&received, (unsigned long long)n,
					  memory_order_relaxed);
		rxm_test_beat();	/* the one thread that beats meanwhile */
	}
	return NULL;
}

/* Whatever A's CQ holds: the closing batch's completions (context
 * &marker) counted, error entries of the race's sends (context NULL)
 * allowed, one of the batch's a failure. */
static int closing_marker;

static int read_a_closing(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	ssize_t n = fi_cq_read(a.cq, &e, 1);

	if (n == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		CHECK_EQ(fi_cq_readerr(a.cq, &err, 0), 1);
		CHECK(err.op_context != &closing_marker);
		return 0;
	}
	if (n == -FI_EAGAIN)
		return 0;
	CHECK_EQ(n, 1);
	return e.op_context == &closing_marker;
}

/* B's next reception, if any: 1 for one of the closing batch (tag and
 * bytes TAG_FINAL, whole), 0 otherwise (a late one of the race's,
 * checked as the receiver thread checks them). */
static int read_b_closing(void)
{
	struct fi_cq_tagged_entry e;
	const uint8_t *p;
	ssize_t n = fi_cq_read(b.cq, &e, 1);

	if (n == -FI_EAGAIN)
		return 0;
	CHECK_EQ(n, 1);
	p = e.op_context;
	if (e.tag == TAG) {
		CHECK(e.len == 8 || e.len == MSG);
		CHECK_EQ(p[e.len - 1], TAG);
		return 0;
	}
	CHECK_EQ(e.tag, TAG_FINAL);
	CHECK_EQ(e.len, MSG);
	for (size_t j = 0; j < MSG; j++)
		CHECK_EQ(p[j], TAG_FINAL);
	return 1;
}

/* After the race: FINAL sends to the address now in the AV, under their
 * own tag, all complete at A and all arrive at B. */
static void closing_batch(void)
{
	static uint8_t in[FINAL][MSG], out[MSG];
	struct ep *all[] = { &a, &b };
	fi_addr_t to = atomic_load_explicit(&dest, memory_order_acquire);
	int done = 0, got = 0, i;
	ssize_t r;

	memset(out, TAG_FINAL, sizeof(out));
	for (i = 0; i < FINAL; i++)
		post(&in[i], TAG_FINAL);
	for (i = 0; i < FINAL; i++) {
		while ((r = fi_tsend(a.ep, out, MSG, NULL, to, TAG_FINAL,
				     &closing_marker)) == -FI_EAGAIN) {
			done += read_a_closing();
			got += read_b_closing();
		}
		CHECK_EQ(r, 0);
	}
	while (done < FINAL || got < FINAL) {
		int before = done + got;

		drive(all, 2);
		done += read_a_closing();
		got += read_b_closing();
		if (done + got != before)
			rxm_test_beat();	/* the watchdog's, on progress */
	}
	CHECK_EQ(done, FINAL);
	CHECK_EQ(got, FINAL);
}

int main(int argc, char **argv)
{
	pthread_t t[SENDERS + 2];
	int i;

	if (argc == 2 && !strcmp(argv[1], "shm"))
		CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", "1", 1), 0);
	else
		CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", "0", 1), 0);
	rxm_test_start();
	phase = "avrace: open";
	ep_open(&a);
	ep_open(&b);
	CHECK_EQ(a.info->domain_attr->threading, FI_THREAD_SAFE);
	atomic_store_explicit(&dest, insert(&a, &b), memory_order_release);
	phase = "avrace: sends while the address is removed and inserted";
	for (i = 0; i < SENDERS; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, sender,
					(void *)(uintptr_t)i), 0);
	CHECK_EQ(pthread_create(&t[SENDERS], NULL, remover, NULL), 0);
	CHECK_EQ(pthread_create(&t[SENDERS + 1], NULL, receiver, NULL), 0);
	for (i = 0; i <= SENDERS; i++)
		CHECK_EQ(pthread_join(t[i], NULL), 0);
	atomic_store_explicit(&stop_receiver, 1, memory_order_release);
	CHECK_EQ(pthread_join(t[SENDERS + 1], NULL), 0);
	phase = "avrace: every send after the last insert arrives";
	closing_batch();
	printf("avrace: %llu sends accepted, %llu refused (removed), "
	       "%llu received during the race; %d after it\n",
	       atomic_load_explicit(&accepted, memory_order_relaxed),
	       atomic_load_explicit(&refused, memory_order_relaxed),
	       atomic_load_explicit(&received, memory_order_relaxed), FINAL);
	CHECK(atomic_load_explicit(&accepted, memory_order_relaxed) > 0);
	CHECK(atomic_load_explicit(&refused, memory_order_relaxed) > 0);
	phase = "avrace: close";
	ep_close(&a);
	ep_close(&b);
	return 0;
}
