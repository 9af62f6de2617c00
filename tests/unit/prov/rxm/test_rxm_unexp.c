/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bound on unexpected messages (FI_OFI_RXM_UNEXP_LIMIT) on ofi_rxm
 * over tcp (127.0.0.1), two endpoints in this process, manual progress:
 * A sends B 128 MiB of tagged messages while B has no receive posted:
 * 8 KiB ones (eager: each copied out of its buffer) or, with the
 * argument "sar", 24 KiB ones (segmented: each staged whole). With a 64 KiB limit, B must stop taking them once its copies
 * pass the limit: A's sends then stall (its queue and the sockets fill;
 * nothing moves in STALL_ROUNDS passes of both endpoints) well before
 * the 128 MiB are out. Without the bound B would copy all of them and A
 * would never stall. Then B posts its receives: every message arrives,
 * in order, intact, the stalled connection included (nothing dropped).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

#define LEN_MAX		(24 * 1024)
#define TOTAL		((size_t)128 << 20)
#define WINDOW		256	/* receives B keeps posted */
#define STALL_ROUNDS	20000

static size_t LEN = 8192, NMSG;
static uint8_t out[LEN_MAX];
static uint8_t in[WINDOW][LEN_MAX];

/* Read A's send completions (none may fail). */
static size_t reap_sends(struct ep *a)
{
	struct fi_cq_tagged_entry e[64];
	ssize_t n;

	n = fi_cq_read(a->cq, e, 64);
	if (n == -FI_EAGAIN)
		return 0;
	CHECK(n > 0);
	rxm_test_beat();
	return (size_t)n;
}

/* One try to send message seq (its bytes made from seq). */
static ssize_t try_send(struct ep *a, fi_addr_t dest, size_t seq)
{
	fill(out, LEN, (unsigned)seq);
	return fi_tsend(a->ep, out, LEN, NULL, dest, seq, NULL);
}

int main(int argc, char **argv)
{
	struct ep a, b, *all[2] = { &a, &b };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	size_t sent = 0, done = 0, posted = 0, got = 0, rounds, slot, i;
	static uint8_t want[LEN_MAX];
	fi_addr_t b_at_a;
	ssize_t r;

	if (argc == 2 && !strcmp(argv[1], "sar")) {
		/* segmented: above one buffer, up to the SAR limit */
		LEN = LEN_MAX;
		CHECK_EQ(setenv("FI_OFI_RXM_SAR_LIMIT", "32768", 1), 0);
	}
	NMSG = TOTAL / LEN;
	/* read once, when the provider first opens an endpoint */
	CHECK_EQ(setenv("FI_OFI_RXM_UNEXP_LIMIT", "65536", 1), 0);
	rxm_test_start();
	ep_open(&a);
	ep_open(&b);
	b_at_a = insert(&a, &b);
	(void)insert(&b, &a);

	phase = "A sends until B's bound stops it";
	for (rounds = 0; sent < NMSG && rounds < STALL_ROUNDS;) {
		r = try_send(&a, b_at_a, sent);
		if (r == 0) {
			sent++;
			rounds = 0;
			continue;
		}
		CHECK_EQ(r, -FI_EAGAIN);
		done += reap_sends(&a);
		drive(all, 2);
		rounds++;
	}
	printf("A had %zu of %zu messages taken before it stalled "
	       "(%zu completed)\n", sent, NMSG, done);
	CHECK(sent < NMSG);

	phase = "B receives everything, in order";
	while (got < NMSG) {
		while (posted < NMSG && posted - got < WINDOW) {
			slot = posted % WINDOW;
			CHECK_EQ(fi_trecv(b.ep, in[slot], LEN, NULL,
					  FI_ADDR_UNSPEC, posted, 0, in[slot]),
				 0);
			posted++;
		}
		if (sent < NMSG && try_send(&a, b_at_a, sent) == 0)
			sent++;
		done += reap_sends(&a);
		r = fi_cq_read(b.cq, &e, 1);
		if (r == -FI_EAGAIN) {
			drive(all, 2);
			continue;
		}
		if (r == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			CHECK_EQ(fi_cq_readerr(b.cq, &err, 0), 1);
			fprintf(stderr, "receive %zu failed: %d\n", got,
				err.err);
			CHECK(0);
		}
		CHECK_EQ(r, 1);
		rxm_test_beat();
		slot = got % WINDOW;
		CHECK(e.op_context == in[slot]);
		CHECK_EQ(e.tag, got);
		CHECK_EQ(e.len, LEN);
		fill(want, LEN, (unsigned)got);
		CHECK(!memcmp(in[slot], want, LEN));
		got++;
	}
	phase = "A's last completions";
	while (done < NMSG) {
		done += reap_sends(&a);
		drive(all, 2);
	}
	for (i = 0; i < 100; i++)	/* no completion more than sent */
		CHECK_EQ(reap_sends(&a), 0);
	ep_close(&a);
	ep_close(&b);
	printf("ok: %zu messages of %zu bytes, in order\n", NMSG, LEN);
	return 0;
}
