/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Split copies (prov/shm/xfer/shm_xfer_split.c): the receiver of a large CMA
 * message reads chunks from the front while its sender, when it polls,
 * writes chunks from the back.
 *
 * Most tests run receiver R and sender S in ONE process and poll them by
 * hand, so that who copies which chunk is decided by the test, not by
 * timing: S polls before R copies (S does it all), R polls alone (R does
 * it all), R copies one chunk then S the other. Each checks the bytes,
 * the statuses both sides see and the chunk counters. Process-crossing
 * cases (the copies are real process_vm_readv/writev either way) fork a
 * sender: one killed before R reads, one that dies holding a claim.
 * `threads` (suite concurrency, under ThreadSanitizer in CI) runs R and S
 * in two threads of one process, so that the job's publication and the
 * helper's counting are checked by the race detector.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm_xfer_test.h"

#define LEN	(1u << 20)	/* two chunks of 512 KiB */

struct split_ctx {
	struct node		r, s;
	struct shm_xfer_peer	*p;	/* S's view of R */
	uint8_t			*src, *dst;
	struct shm_xfer_stats	r0, s0;	/* counters before the message */
};

static void fill(uint8_t *b, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 31 + seed + (i >> 12));
}

static void stats_mark(struct split_ctx *c)
{
	shm_xfer_ep_stats(c->r.ep, &c->r0);
	shm_xfer_ep_stats(c->s.ep, &c->s0);
}

/* chunks R read / S wrote since stats_mark */
static uint64_t own_chunks(struct split_ctx *c)
{
	struct shm_xfer_stats st;

	shm_xfer_ep_stats(c->r.ep, &st);
	return st.split_chunks_own - c->r0.split_chunks_own;
}

static uint64_t help_chunks(struct split_ctx *c)
{
	struct shm_xfer_stats st;

	shm_xfer_ep_stats(c->s.ep, &st);
	return st.split_chunks_help - c->s0.split_chunks_help;
}

static uint64_t splits(struct split_ctx *c)
{
	struct shm_xfer_stats st;

	shm_xfer_ep_stats(c->r.ep, &st);
	return st.split_rx - c->r0.split_rx;
}

/* R and S in this process; one plain CMA message first, because R
 * splits only messages of a sender it has read from already. */
static int ctx_setup(void **state)
{
	struct split_ctx *c = calloc(1, sizeof(*c));
	struct shm_xfer_rx *rx;
	int status;

	node_open(&c->r, 0);
	node_open(&c->s, 1);
	c->p = peer_of(&c->s, getpid(), 0);
	c->src = malloc(LEN);
	c->dst = malloc(LEN);
	SHM_CHECK(c->src && c->dst);
	fill(c->src, LEN, 1);
	stats_mark(c);
	SHM_CHECK(send_msg(&c->s, c->p, c->src, LEN, 2, 0, NULL) == 1);
	rx = next_rx(&c->r);
	SHM_CHECK(recv_into(&c->r, rx, c->dst, LEN, false, &status) == LEN);
	SHM_CHECK(status == 0 && !memcmp(c->src, c->dst, LEN));
	SHM_CHECK(splits(c) == 0);	/* the first one is read alone */
	wait_tx(&c->s);
	*state = c;
	return 0;
}

static int ctx_teardown(void **state)
{
	struct split_ctx *c = *state;

	shm_xfer_peer_close(c->p);
	shm_xfer_ep_close(c->s.ep);
	if (c->r.ep)
		shm_xfer_ep_close(c->r.ep);
	free(c->src);
	free(c->dst);
	free(c);
	return 0;
}

/* S sends LEN (one iovec, or three with odd tag); R's delivery into
 * iov must start a split. */
static void start(struct split_ctx *c, uint64_t tag, const struct iovec *iov,
		  size_t cnt)
{
	struct shm_xfer_rx *rx;
	uint64_t len = 0;

	fill(c->src, LEN, (unsigned)tag);
	memset(c->dst, 0, LEN);
	stats_mark(c);
	SHM_CHECK(send_msg(&c->s, c->p, c->src, LEN, tag, 0, NULL) == 1);
	rx = next_rx(&c->r);
	SHM_CHECK(shm_xfer_rx_deliver(rx, iov, cnt, &len) == 1);
	SHM_CHECK(splits(c) == 1);
}

static void poll_r_until_done(struct split_ctx *c, unsigned before)
{
	while (c->r.rx_done == before)
		(void)shm_xfer_ep_poll(c->r.ep, 64);
}

static void check_done(struct split_ctx *c, uint64_t want_len, int want)
{
	SHM_CHECK(c->r.rx_status == want);
	SHM_CHECK(c->r.rx_len == want_len);
	SHM_CHECK(!memcmp(c->src, c->dst, want_len));
	wait_tx(&c->s);		/* and S's send completed with 0 */
}

static void test_sender_copies_all(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov = { c->dst, LEN };
	unsigned before = c->r.rx_done;

	start(c, 2, &iov, 1);
	/* S polls before R copies anything: it takes both chunks */
	(void)shm_xfer_ep_poll(c->s.ep, 64);
	SHM_CHECK(help_chunks(c) == 2);
	poll_r_until_done(c, before);
	SHM_CHECK(own_chunks(c) == 0);
	check_done(c, LEN, 0);
}

static void test_receiver_copies_all(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov = { c->dst, LEN };
	unsigned before = c->r.rx_done;

	start(c, 4, &iov, 1);
	/* S does not poll: R does not wait for it */
	poll_r_until_done(c, before);
	SHM_CHECK(own_chunks(c) == 2);
	check_done(c, LEN, 0);
	/* S's late look at the job finds nothing left */
	SHM_CHECK(help_chunks(c) == 0);
}

/* R copies the front chunk, S the back one; with iovecs that cut both
 * chunks (3 source pieces, 2 destination pieces of odd sizes). */
static void one_each(struct split_ctx *c, uint64_t tag, const struct iovec *iov,
		     size_t cnt)
{
	unsigned before = c->r.rx_done;

	start(c, tag, iov, cnt);
	(void)shm_xfer_ep_poll(c->r.ep, 1);	/* budget 1: one chunk */
	SHM_CHECK(own_chunks(c) == 1);
	(void)shm_xfer_ep_poll(c->s.ep, 64);
	SHM_CHECK(help_chunks(c) == 1);
	poll_r_until_done(c, before);
}

static void test_one_chunk_each(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov = { c->dst, LEN };

	one_each(c, 6, &iov, 1);
	check_done(c, LEN, 0);
}

static void test_one_chunk_each_iovecs(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov[2] = { { c->dst, 300001 },
				{ c->dst + 300001, LEN - 300001 } };

	one_each(c, 7, iov, 2);		/* odd tag: 3 source iovecs */
	check_done(c, LEN, 0);
}

static void test_truncated(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov = { c->dst, LEN / 4 * 3 };

	one_each(c, 8, &iov, 1);
	check_done(c, LEN / 4 * 3, -FI_ETRUNC);
	SHM_CHECK(c->dst[LEN / 4 * 3] == 0);	/* nothing past the buffer */
}

/* S's kernel refuses its write: R copies S's chunk again itself. */
static void test_sender_refused(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov = { c->dst, LEN };
	unsigned before = c->r.rx_done;

	start(c, 10, &iov, 1);
	(void)shm_xfer_ep_poll(c->r.ep, 1);
	shm_cma_fail_for_test(true);
	(void)shm_xfer_ep_poll(c->s.ep, 64);
	shm_cma_fail_for_test(false);
	SHM_CHECK(help_chunks(c) == 0);
	poll_r_until_done(c, before);
	check_done(c, LEN, 0);
}

/* R's kernel refuses its read: the whole message comes again by SAR. */
static void test_receiver_refused(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov = { c->dst, LEN };
	unsigned before = c->r.rx_done;
	struct shm_xfer_stats st;

	start(c, 12, &iov, 1);
	shm_cma_fail_for_test(true);
	(void)shm_xfer_ep_poll(c->r.ep, 1);
	shm_cma_fail_for_test(false);
	while (c->r.rx_done == before || c->s.tx_pending) {
		(void)shm_xfer_ep_poll(c->s.ep, 64);
		(void)shm_xfer_ep_poll(c->r.ep, 64);
	}
	shm_xfer_ep_stats(c->s.ep, &st);
	/* the resend: SAR chunks */
	SHM_CHECK(st.sar_chunks_tx > c->s0.sar_chunks_tx);
	check_done(c, LEN, 0);
}

/* R closes with the split in flight: S's send fails, nothing hangs. */
static void test_receiver_closes(void **state)
{
	struct split_ctx *c = *state;
	struct iovec iov = { c->dst, LEN };

	start(c, 14, &iov, 1);
	shm_xfer_ep_close(c->r.ep);
	c->r.ep = NULL;
	while (c->s.tx_pending)
		(void)shm_xfer_ep_poll(c->s.ep, 64);
	SHM_CHECK(c->s.tx_status == -FI_ECONNRESET);
	SHM_CHECK(help_chunks(c) == 0);
}

/* ---- a sender in another process ---- */

struct remote_arg {
	pid_t	receiver;
	int	to_r, from_r;	/* pipe ends */
	bool	hold_claim;	/* take the back chunk, then die */
};

static void remote_sender(void *arg)
{
	struct remote_arg *a = arg;
	struct shm_xfer_peer *p;
	char addr[SHM_NAME_MAX], rname[SHM_REGION_NAME_MAX], go;
	struct shm_region *r;
	struct node s;
	uint8_t *buf = malloc(LEN);

	SHM_CHECK(buf);
	fill(buf, LEN, 3);
	node_open(&s, 1);
	p = peer_of(&s, a->receiver, 0);
	SHM_CHECK(send_msg(&s, p, buf, LEN, 2, 0, NULL) == 1);
	wait_tx(&s);
	SHM_CHECK(send_msg(&s, p, buf, LEN, 4, 0, NULL) == 1);
	SHM_CHECK(write(a->to_r, "s", 1) == 1);
	SHM_CHECK(read(a->from_r, &go, 1) == 1);	/* R delivered */
	if (a->hold_claim) {
		/* act as a helper that took the back chunk and died in its
		 * copy: job 0 (R's first split), hi - 1, no help_done */
		uint64_t w;

		shm_addr_format(a->receiver, getuid(), 0, addr, sizeof(addr));
		SHM_CHECK(shm_addr_region_name(addr, rname, sizeof(rname)) >= 0);
		SHM_CHECK(shm_region_map(rname, &r) == 0);
		w = pl_load_acquire(&r->split[0].claim);
		SHM_CHECK((w & ((1ull << SHM_SPLIT_IDX_BITS) - 1)) == 2);
		SHM_CHECK(pl_cas_acq_rel(&r->split[0].claim, &w, w - 1));
	}
	_exit(0);	/* dead: no ACK handled, no cleanup */
}

static void remote_case(bool hold_claim, uint64_t want_own)
{
	struct remote_arg a = { .receiver = getpid(), .hold_claim = hold_claim };
	struct shm_xfer_stats st0, st;
	struct shm_xfer_rx *rx;
	uint8_t *dst = malloc(LEN);
	int to_r[2], from_r[2], status;
	struct iovec iov = { dst, LEN };
	struct node r;
	uint64_t len;
	pid_t child;
	char ch;

	SHM_CHECK(dst);
	assert_int_equal(pipe(to_r), 0);
	assert_int_equal(pipe(from_r), 0);
	a.to_r = to_r[1];
	a.from_r = from_r[0];
	node_open(&r, 0);
	child = shm_test_spawn(remote_sender, &a);
	rx = next_rx(&r);
	SHM_CHECK(recv_into(&r, rx, dst, LEN, false, &status) == LEN);
	SHM_CHECK(status == 0);
	rx = next_rx(&r);
	SHM_CHECK(read(to_r[0], &ch, 1) == 1);
	shm_xfer_ep_stats(r.ep, &st0);
	if (!hold_claim) {
		/* the sender is gone before we read a byte of it */
		kill(child, SIGKILL);
		assert_int_equal(waitpid(child, NULL, 0), child);
	}
	SHM_CHECK(shm_xfer_rx_deliver(rx, &iov, 1, &len) == 1);
	if (hold_claim)
		/* the front chunk, read while the sender lives */
		(void)shm_xfer_ep_poll(r.ep, 1);
	SHM_CHECK(write(from_r[1], "g", 1) == 1);
	if (hold_claim)
		assert_int_equal(shm_test_wait(child), 0);
	/* R copies what it can, then learns that the sender died: from
	 * its own failed read, or from the liveness check that a claim
	 * never finished sends it to */
	while (!r.rx_done)
		(void)shm_xfer_ep_poll(r.ep, 64);
	SHM_CHECK(r.rx_status == -FI_ECONNRESET);
	shm_xfer_ep_stats(r.ep, &st);
	SHM_CHECK(st.split_rx == st0.split_rx + 1);
	SHM_CHECK(st.split_chunks_own - st0.split_chunks_own == want_own);
	shm_xfer_ep_close(r.ep);
	close(to_r[0]);
	close(to_r[1]);
	close(from_r[0]);
	close(from_r[1]);
	free(dst);
}

static void test_sender_killed_before_copy(void **state)
{
	(void)state;
	/* R's first chunk read fails; the rest is taken and dropped */
	remote_case(false, 1);
}

static void test_sender_dies_holding_a_chunk(void **state)
{
	(void)state;
	/* R reads the front chunk; the back one never comes: only the
	 * liveness check ends the wait */
	remote_case(true, 1);
}

/* ---- R and S in two threads ---- */

#define TH_MSGS	24
#define TH_BUFS	4

struct th_arg {
	struct node	*s;
	struct shm_xfer_peer *p;
	uint8_t		*bufs[TH_BUFS];
};

static void *th_sender(void *arg)
{
	struct th_arg *a = arg;

	for (unsigned i = 0; i < TH_MSGS; i++) {
		uint8_t *b = a->bufs[i % TH_BUFS];

		/* a buffer is written again only after its send completed */
		while (a->s->tx_pending >= TH_BUFS)
			drive(a->s);
		fill(b, LEN, i);
		(void)send_msg(a->s, a->p, b, LEN, 2 * i, 0, NULL);
	}
	wait_tx(a->s);
	return NULL;
}

static int run_threads(void)
{
	struct node r, s;
	struct th_arg a = { .s = &s };
	struct shm_xfer_stats rs, ss;
	uint8_t *dst = malloc(LEN), *want = malloc(LEN);
	pthread_t th;
	int status;

	SHM_CHECK(dst && want);
	node_open(&r, 0);
	node_open(&s, 1);
	a.p = peer_of(&s, getpid(), 0);
	for (unsigned i = 0; i < TH_BUFS; i++)
		SHM_CHECK((a.bufs[i] = malloc(LEN)));
	SHM_CHECK(!pthread_create(&th, NULL, th_sender, &a));
	for (unsigned i = 0; i < TH_MSGS; i++) {
		struct shm_xfer_rx *rx = next_rx(&r);

		memset(dst, 0, LEN);
		SHM_CHECK(recv_into(&r, rx, dst, LEN, false, &status) == LEN);
		SHM_CHECK(status == 0);
		fill(want, LEN, i);
		SHM_CHECK(!memcmp(dst, want, LEN));
	}
	SHM_CHECK(!pthread_join(th, NULL));
	shm_xfer_ep_stats(r.ep, &rs);
	shm_xfer_ep_stats(s.ep, &ss);
	fprintf(stderr, "split %llu of %u messages; chunks: receiver %llu, "
		"sender %llu\n", (unsigned long long)rs.split_rx, TH_MSGS,
		(unsigned long long)rs.split_chunks_own,
		(unsigned long long)ss.split_chunks_help);
	/* all but the first (R had not read from S yet), two chunks each */
	SHM_CHECK(rs.split_rx == TH_MSGS - 1);
	SHM_CHECK(rs.split_chunks_own + ss.split_chunks_help ==
		  2 * (TH_MSGS - 1));
	shm_xfer_peer_close(a.p);
	shm_xfer_ep_close(s.ep);
	shm_xfer_ep_close(r.ep);
	for (unsigned i = 0; i < TH_BUFS; i++)
		free(a.bufs[i]);
	free(dst);
	free(want);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sender_copies_all,
						ctx_setup, ctx_teardown),
		cmocka_unit_test_setup_teardown(test_receiver_copies_all,
						ctx_setup, ctx_teardown),
		cmocka_unit_test_setup_teardown(test_one_chunk_each,
						ctx_setup, ctx_teardown),
		cmocka_unit_test_setup_teardown(test_one_chunk_each_iovecs,
						ctx_setup, ctx_teardown),
		cmocka_unit_test_setup_teardown(test_truncated,
						ctx_setup, ctx_teardown),
		cmocka_unit_test_setup_teardown(test_sender_refused,
						ctx_setup, ctx_teardown),
		cmocka_unit_test_setup_teardown(test_receiver_refused,
						ctx_setup, ctx_teardown),
		cmocka_unit_test_setup_teardown(test_receiver_closes,
						ctx_setup, ctx_teardown),
		cmocka_unit_test(test_sender_killed_before_copy),
		cmocka_unit_test(test_sender_dies_holding_a_chunk),
	};

	if (!shm_cma_available()) {
		fprintf(stderr, "skipped: CMA (process_vm_readv/writev) is "
			"not available here, and split copies are made of it\n");
		return 77;
	}
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return run_threads();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
