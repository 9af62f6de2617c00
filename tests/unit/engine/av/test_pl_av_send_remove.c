/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Removing an address while other threads send to it (DESIGN.md section
 * 5, where the reference segfaults): the sends must fail cleanly, never
 * crash or read freed memory.
 *
 * A "send" here is what a provider's data path does: enter the read-side
 * section, pl_av_lookup_peer(), copy the peer's address into a packet
 * header, then keep using the address for a while (it is compared with
 * the packet again and again, as a transport would while it builds and
 * posts the message), and only then leave the section. Three senders do
 * that to random peers, a fourth goes through the public fi_av_lookup(),
 * while the main thread removes every peer in random order and puts them
 * back, round after round (private AV: slots are reused, generations go
 * up; named AV: fresh slots each round).
 *
 * Checked on every send:
 *   - the result is 0 or -FI_EADDRNOTAVAIL (-FI_ENODATA for fi_av_lookup);
 *   - a peer returned is whole: its bytes name the index the sender asked
 *     for, its handle is the one asked for, and they do not change while
 *     the sender holds them, even if the remove completes meanwhile;
 *   - a send that starts after the remover reported a removal complete
 *     (acquire of gone[i] == the handle) fails: removal is not "eventual".
 * ASan and TSan turn any use-after-free or unordered access into a
 * failure (suite concurrency runs under TSan in CI).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pl_atomic.h"
#include "pl_av_test_util.h"
#include "pl_av_int.h"

#define PEERS		64
#define SENDERS		4	/* the last one uses fi_av_lookup() */
#define HOLD_LOOPS	32	/* re-reads of the address per send */
#define NO_HANDLE	UINT64_MAX
#define WATCHDOG_S	600

static struct fid_av *av;
/* Per peer index: the handle of its current insert (released after the
 * insert returned) and the last handle whose removal completed (released
 * after fi_av_remove returned); both acquired by the senders. */
static pl_atomic_u64 cur[PEERS];
static pl_atomic_u64 gone[PEERS];
static pl_atomic_int stop;
static pl_atomic_int failed;

struct sender {
	pthread_t th;
	int public_api;
	uint64_t seed;
	uint64_t sent, refused;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fail_at(const char *what, uint64_t i, fi_addr_t fa)
{
	fprintf(stderr, "FAIL: %s (peer %llu, fi_addr 0x%llx)\n", what,
		(unsigned long long)i, (unsigned long long)fa);
	pl_store_relaxed(&failed, 1);	/* read after the joins */
}

/* One send through the provider's data path. 1 sent, 0 refused. */
static int send_internal(uint64_t i, fi_addr_t fa)
{
	struct pl_av_peer peer;
	struct test_addr pkt;
	int ret, k;

	pl_rcu_read_lock();
	ret = pl_av_lookup_peer(av, fa, &peer);
	if (ret == 0) {
		memcpy(&pkt, peer.addr, sizeof(pkt));
		if (pkt.magic != TEST_ADDR_MAGIC || pkt.port != i ||
		    pkt.id % PEERS != i || peer.fi_addr != fa)
			fail_at("peer is not the one asked for", i, fa);
		/* Keep using the address: it must stay whole and unchanged
		 * until the section ends, removed or not. */
		for (k = 0; k < HOLD_LOOPS; k++) {
			if (memcmp(peer.addr, &pkt, sizeof(pkt)))
				fail_at("address changed under the sender",
					i, fa);
		}
	} else if (ret != -FI_EADDRNOTAVAIL) {
		fail_at("lookup_peer returned neither 0 nor "
			"-FI_EADDRNOTAVAIL", i, fa);
	}
	pl_rcu_read_unlock();
	return ret == 0;
}

/* The same through fi_av_lookup(): it copies under its own section. */
static int send_public(uint64_t i, fi_addr_t fa)
{
	struct test_addr pkt;
	size_t len = sizeof(pkt);
	int ret;

	ret = fi_av_lookup(av, fa, &pkt, &len);
	if (ret == 0) {
		if (len != sizeof(pkt) || pkt.magic != TEST_ADDR_MAGIC ||
		    pkt.port != i || pkt.id % PEERS != i)
			fail_at("fi_av_lookup copied a wrong address", i, fa);
	} else if (ret != -FI_ENODATA) {
		fail_at("fi_av_lookup returned neither 0 nor -FI_ENODATA",
			i, fa);
	}
	return ret == 0;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;

	/* Relaxed: stop only ends the loop; the join orders the rest. */
	while (!pl_load_relaxed(&stop)) {
		uint64_t i = rnd(&s->seed) % PEERS;
		/* Acquire: pair with the remover's releases after its
		 * insert and its remove of peer i returned. */
		fi_addr_t fa = pl_load_acquire(&cur[i]);
		fi_addr_t done = pl_load_acquire(&gone[i]);
		int ok;

		if (fa == NO_HANDLE)
			continue;
		ok = s->public_api ? send_public(i, fa) : send_internal(i, fa);
		if (ok && done == fa)
			fail_at("send to an address whose removal had "
				"completed", i, fa);
		if (ok)
			s->sent++;
		else
			s->refused++;
	}
	return NULL;
}

static void insert_all(uint64_t round)
{
	uint64_t i;

	for (i = 0; i < PEERS; i++) {
		struct test_addr a = test_addr_make(round * PEERS + i,
						    (uint32_t)i);
		fi_addr_t fa;

		assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
		pl_store_release(&cur[i], fa);	/* pairs with sender_main */
	}
}

static void remove_all(uint64_t *seed)
{
	uint64_t order[PEERS], i, j, t;

	for (i = 0; i < PEERS; i++)
		order[i] = i;
	for (i = PEERS - 1; i > 0; i--) {
		j = rnd(seed) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < PEERS; i++) {
		/* Relaxed: only this thread stores cur[]. */
		fi_addr_t fa = pl_load_relaxed(&cur[order[i]]);

		assert_int_equal(fi_av_remove(av, &fa, 1, 0), 0);
		pl_store_release(&gone[order[i]], fa); /* pairs with senders */
		if (i % 8 == 0)
			sched_yield();	/* let the senders catch up */
	}
}

static void run(struct fi_av_attr *attr, uint64_t rounds)
{
	struct sender senders[SENDERS];
	uint64_t r, seed = 0xabcdef, sent = 0, refused = 0;
	int i;

	assert_int_equal(pl_av_open(NULL, attr, sizeof(struct test_addr),
				    &test_ops, &av, NULL), 0);
	for (i = 0; i < PEERS; i++) {
		pl_store_relaxed(&cur[i], NO_HANDLE);	/* before threads */
		pl_store_relaxed(&gone[i], NO_HANDLE);
	}
	pl_store_relaxed(&stop, 0);
	pl_store_relaxed(&failed, 0);
	insert_all(0);
	for (i = 0; i < SENDERS; i++) {
		senders[i] = (struct sender){ .public_api = i == SENDERS - 1,
					      .seed = 0x1234 + (uint64_t)i };
		assert_int_equal(pthread_create(&senders[i].th, NULL,
						sender_main, &senders[i]), 0);
	}
	for (r = 1; r <= rounds; r++) {
		remove_all(&seed);
		insert_all(r);
	}
	pl_store_relaxed(&stop, 1);
	for (i = 0; i < SENDERS; i++) {
		assert_int_equal(pthread_join(senders[i].th, NULL), 0);
		sent += senders[i].sent;
		refused += senders[i].refused;
	}
	printf("send/remove: %llu rounds, %llu sends, %llu refused\n",
	       (unsigned long long)rounds, (unsigned long long)sent,
	       (unsigned long long)refused);
	assert_int_equal(pl_load_relaxed(&failed), 0);
	/* After the storm every peer of the last round is reachable, and a
	 * handle of an earlier round is not. */
	for (i = 0; i < PEERS; i++) {
		fi_addr_t fa = pl_load_relaxed(&cur[i]);
		fi_addr_t old = pl_load_relaxed(&gone[i]);

		assert_int_equal(send_internal((uint64_t)i, fa), 1);
		assert_int_equal(send_internal((uint64_t)i, old), 0);
		assert_int_equal(send_public((uint64_t)i, old), 0);
	}
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_private_av_sends_fail_cleanly_during_removal(void **state)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };

	run(&attr, 300);
}

static void test_named_av_sends_fail_cleanly_during_removal(void **state)
{
	char name[64];
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = name };

	snprintf(name, sizeof(name), "pl_av_test/sendrm.%d", (int)getpid());
	run(&attr, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_av_sends_fail_cleanly_during_removal),
		cmocka_unit_test(test_named_av_sends_fail_cleanly_during_removal),
	};

	alarm(WATCHDOG_S);	/* SIGALRM ends a hung run, reported failed */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
