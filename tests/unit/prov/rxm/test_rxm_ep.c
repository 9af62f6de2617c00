/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm endpoints over tcp on 127.0.0.1, through the public API only
 * (fi_getinfo with prov_name "tcp;ofi_rxm"), two endpoints A and B in
 * this process, each with its own domain, CQ and AV, driven by reading
 * their CQs:
 *
 *   self     A sends to its own name (untagged, tagged, eager and
 *            segmented sizes): every message arrives, checked
 *   pair     A to B and back: sizes from 0 bytes to 3 segments, tagged
 *            with FI_DIRECTED_RECV, remote CQ data; a segmented message
 *            sent before its receive is posted (unexpected), and one
 *            larger than the receive (truncated: error completion with
 *            olen); FI_SOURCE names the sender
 *   unknown  B receives from A before A is in B's AV: FI_SOURCE reports
 *            FI_ADDR_NOTAVAIL; after the insert, the next one names A
 *
 * The reference is installed too: the test checks in /proc/self/maps that
 * the libfabric.so.1 it runs on is the build's (PROPEL_LIBDIR). A
 * watchdog fails a scenario after 30 s with no completion (a hang).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

#define BIG (3 * 16384 + 100)	/* three segments of the default buffer */

static int scn_self(void)
{
	static const size_t sizes[] = { 0, 1, 64, 4000, 16000, BIG };
	uint8_t *out = malloc(BIG), *in = malloc(BIG);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep a, *all[1] = { &a };
	fi_addr_t me;
	size_t i;

	CHECK(out && in);
	ep_open(&a);
	me = insert(&a, &a);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		phase = "self: a message to our own name";
		fill(out, sizes[i], (unsigned)i);
		memset(in, 0, BIG);
		CHECK_EQ(fi_trecv(a.ep, in, BIG, NULL, me, 100 + i, 0, in), 0);
		send_one(all, 1, &a, out, sizes[i], me, true, 100 + i);
		CHECK_EQ(wait_one(all, 1, a.cq, &e, &err, NULL), 1);
		CHECK(e.op_context == in);
		CHECK_EQ(e.len, sizes[i]);
		CHECK_EQ(e.tag, 100 + i);
		CHECK(!memcmp(in, out, sizes[i]));
	}
	ep_close(&a);
	free(out);
	free(in);
	return 0;
}

static int scn_pair(void)
{
	static const size_t sizes[] = { 0, 8, 1000, 16343, 16344, 16345,
					BIG };
	uint8_t *out = malloc(BIG), *in = malloc(BIG);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep a, b, *all[2] = { &a, &b };
	fi_addr_t b_at_a, a_at_b, src;
	size_t i;

	CHECK(out && in);
	ep_open(&a);
	ep_open(&b);
	b_at_a = insert(&a, &b);
	a_at_b = insert(&b, &a);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		phase = "pair: expected messages, each size";
		fill(out, sizes[i], (unsigned)i + 10);
		memset(in, 0, BIG);
		CHECK_EQ(fi_recv(b.ep, in, BIG, NULL, FI_ADDR_UNSPEC, in), 0);
		send_one(all, 2, &a, out, sizes[i], b_at_a, false, 0);
		CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, &src), 1);
		CHECK(e.op_context == in);
		CHECK_EQ(e.len, sizes[i]);
		CHECK_EQ(src, a_at_b);
		CHECK(!memcmp(in, out, sizes[i]));
	}

	phase = "pair: a segmented message before its receive";
	fill(out, BIG, 77);
	memset(in, 0, BIG);
	send_one(all, 2, &a, out, BIG, b_at_a, true, 0x77);
	/* the message is held by B now; the receive takes it */
	CHECK_EQ(fi_trecv(b.ep, in, BIG, NULL, a_at_b, 0x77, 0, in), 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, NULL), 1);
	CHECK_EQ(e.len, BIG);
	CHECK(!memcmp(in, out, BIG));

	phase = "pair: truncated";
	CHECK_EQ(fi_recv(b.ep, in, 5000, NULL, FI_ADDR_UNSPEC, in), 0);
	send_one(all, 2, &a, out, BIG, b_at_a, false, 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, NULL), -1);
	CHECK_EQ(err.err, FI_ETRUNC);
	CHECK(err.op_context == in);
	CHECK_EQ(err.olen, BIG - 5000);
	CHECK(!memcmp(in, out, 5000));

	phase = "pair: B answers A";
	fill(out, 100, 5);
	CHECK_EQ(fi_recv(a.ep, in, BIG, NULL, b_at_a, in), 0);
	send_one(all, 2, &b, out, 100, a_at_b, false, 0);
	CHECK_EQ(wait_one(all, 2, a.cq, &e, &err, &src), 1);
	CHECK_EQ(src, b_at_a);
	CHECK(!memcmp(in, out, 100));
	ep_close(&a);
	ep_close(&b);
	free(out);
	free(in);
	return 0;
}

static int scn_unknown(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep a, b, *all[2] = { &a, &b };
	fi_addr_t b_at_a, a_at_b, src;
	char in[64], out[64] = "from a stranger";

	ep_open(&a);
	ep_open(&b);
	b_at_a = insert(&a, &b);
	phase = "unknown: a sender not in the AV";
	CHECK_EQ(fi_recv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, in), 0);
	send_one(all, 2, &a, out, sizeof(out), b_at_a, false, 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, &src), 1);
	CHECK_EQ(src, FI_ADDR_NOTAVAIL);
	CHECK(!strcmp(in, out));
	a_at_b = insert(&b, &a);
	phase = "unknown: the same sender once inserted";
	CHECK_EQ(fi_recv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, in), 0);
	send_one(all, 2, &a, out, sizeof(out), b_at_a, false, 0);
	CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, &src), 1);
	CHECK_EQ(src, a_at_b);
	ep_close(&a);
	ep_close(&b);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} scn[] = {
		{ "self", scn_self },
		{ "pair", scn_pair },
		{ "unknown", scn_unknown },
	};
	size_t i;

	rxm_test_start();
	for (i = 0; argc == 2 && i < sizeof(scn) / sizeof(scn[0]); i++)
		if (!strcmp(argv[1], scn[i].name))
			return scn[i].fn();
	fprintf(stderr, "usage: %s self|pair|unknown\n", argv[0]);
	return 2;
}
