/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Attacks on shm regions (DESIGN.md section 7a): a separate process of
 * the same user writes into a victim endpoint's region (or its honest
 * peer's) while the honest peer sends. Each scenario asserts that the
 * victim and the honest sender neither crash nor see honest data changed
 * (every byte checked, guard bytes around the receive buffer intact),
 * and that the honest traffic completes. One scenario per run:
 * test_shm_attack SCENARIO (see main).
 *
 * Roles: V, the victim (receiver, endpoint 0); H, the honest sender
 * (endpoint 1); X, the attacker. H sends message 0, waits for its
 * completion (so V has mapped H), X attacks once and says so, then H
 * sends the rest while X keeps attacking (continuous scenarios) or stays
 * alive doing nothing (a live process that never commits).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <time.h>

#include "shm_cmdq.h"
#include "shm_xfer_test.h"

#define MSGS		360
#define TAG_FOREIGN	0xdead000000000000ull	/* X's own commands */
#define GUARD		64
#define GUARD_BYTE	0xa5

struct atk_shared {
	_Atomic pid_t	v, h;
	_Atomic int	v_ready;	/* V received message 0 */
	_Atomic int	attacked;	/* X wrote its first blow */
	_Atomic int	h_done;		/* every send of H completed */
	_Atomic int	v_done;		/* V received every message */
};

static struct atk_shared *sh;
static const char *scenario;

static uint64_t msg_size(uint64_t seq)
{
	static const uint64_t sizes[] = { 100000, 64, 5000, 8, 1088, 100000,
					  0, 200, 65536 };

	return sizes[seq % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void wait_flag(_Atomic int *f)
{
	while (!atomic_load(f))
		usleep(100);
}

/* ---- the victim: receives every honest message, checks each byte ---- */

static void victim(void *arg)
{
	static uint8_t buf[100000 + 2 * GUARD];
	bool seen[MSGS] = { false };
	unsigned got = 0;
	struct node n;

	(void)arg;
	node_open(&n, 0);
	atomic_store(&sh->v, getpid());
	while (got < MSGS) {
		struct shm_xfer_rx *rx = next_rx(&n);
		uint64_t seq = rx->tag, len;
		int st;

		if (seq >= MSGS) {	/* X's: not ours to check */
			shm_xfer_rx_discard(rx);
			continue;
		}
		SHM_CHECK(!seen[seq]);
		SHM_CHECK(rx->size == msg_size(seq));
		memset(buf, GUARD_BYTE, sizeof(buf));
		len = recv_into(&n, rx, buf + GUARD, msg_size(seq), seq & 1,
				&st);
		SHM_CHECK(st == 0 && len == msg_size(seq));
		SHM_CHECK(!shm_test_verify(buf + GUARD, len, seq));
		for (unsigned i = 0; i < GUARD; i++)
			SHM_CHECK(buf[i] == GUARD_BYTE &&
				  buf[GUARD + len + i] == GUARD_BYTE);
		seen[seq] = true;
		got++;
		shm_test_progress();
		if (seq == 0)
			atomic_store(&sh->v_ready, 1);
	}
	atomic_store(&sh->v_done, 1);
	/* acknowledgements and SAR channels of H's last sends */
	while (!atomic_load(&sh->h_done))
		drive(&n);
	shm_xfer_ep_close(n.ep);
}

/* ---- the honest sender ---- */

static void honest(void *arg)
{
	struct shm_xfer_peer *p;
	struct node n;
	uint64_t seq;
	uint8_t *buf;

	(void)arg;
	node_open(&n, 1);
	n.free_ctx = true;	/* each send's buffer is its context */
	atomic_store(&sh->h, getpid());
	while (!atomic_load(&sh->v))
		usleep(100);
	p = peer_of(&n, atomic_load(&sh->v), 0);
	for (seq = 0; seq < MSGS; seq++) {
		if (seq == 1) {
			wait_tx(&n);
			while (!atomic_load(&sh->attacked))
				drive(&n);
		}
		/* two sends in flight (two SAR channels), each from its own
		 * buffer, freed when it completes (cb_tx_done) */
		while (n.tx_pending > 1)
			drive(&n);
		SHM_CHECK(n.tx_status == 0);
		buf = malloc(msg_size(seq) + 1);
		SHM_CHECK(buf);
		shm_test_fill(buf, msg_size(seq), seq);
		if (!send_msg(&n, p, buf, msg_size(seq), seq,
			      seq % 3 ? 0 : SHM_XF_DELIVERY, buf))
			free(buf);	/* complete already */
		shm_test_progress();
	}
	wait_tx(&n);
	atomic_store(&sh->h_done, 1);
	while (!atomic_load(&sh->v_done))
		drive(&n);
	shm_xfer_peer_close(p);
	shm_xfer_ep_close(n.ep);
}

/* ---- the attacker ---- */

static struct shm_region *map_of(pid_t pid, unsigned idx)
{
	char addr[SHM_NAME_MAX], name[SHM_REGION_NAME_MAX];
	struct shm_region *r;

	SHM_CHECK(shm_addr_format(pid, getuid(), idx, addr, sizeof(addr)) > 0);
	SHM_CHECK(shm_addr_region_name(addr, name, sizeof(name)) > 0);
	SHM_CHECK(shm_region_map(name, &r) == 0);
	return r;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void rnd_bytes(void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		((uint8_t *)p)[i] = (uint8_t)rnd();
}

/* A command of X's own in r's queue: random fields (random op, proto,
 * size, peer index, payload), correctly committed so that V reads it. */
static void inject_random(struct shm_region *r, bool any_idx)
{
	struct shm_cmd *cmd;

	if (shm_cmdq_claim(r, (uint32_t)getpid(), &cmd))
		return;
	rnd_bytes((uint8_t *)cmd + sizeof(cmd->state),
		  r->slot_size - sizeof(cmd->state));
	cmd->op = (uint8_t)(rnd() % 10);
	cmd->proto = (uint8_t)(rnd() % 4);
	cmd->src_idx = any_idx ? (uint16_t)rnd() :
			(uint16_t)(60000 + rnd() % 5535);
	switch (rnd() % 4) {
	case 0:
		cmd->size = rnd() % 64;
		break;
	case 1:
		cmd->size = rnd() % 70000;
		break;
	default:
		break;		/* random, mostly huge */
	}
	cmd->tag = TAG_FOREIGN | (rnd() & 0xffff);
	shm_cmdq_commit(r, cmd);
}

/* One blow of the scenario (first: the one before H goes on). */
/* The claim word of position pos's slot in r. */
static pl_atomic_u64 *claim_at(struct shm_region *r, uint64_t pos)
{
	return shm_region_claim(r, (uint32_t)(pos & r->slot_mask));
}

static void attack_step(struct shm_region *v, struct shm_region *h,
			bool first)
{
	struct shm_region_hdr *vh = v->hdr;
	uint64_t tail, n = v->slot_mask + 1ull;

	if (!strcmp(scenario, "peer_count")) {
		vh->peer_count = 65535;
		for (int i = 0; i < 4; i++)
			inject_random(v, false);
	} else if (!strcmp(scenario, "hdr_random")) {
		/* all of the header but its state word: a CLOSING or INIT
		 * there is a clean refusal of every send, not an attack
		 * the traffic can survive */
		rnd_bytes(vh, offsetof(struct shm_region_hdr, state));
		rnd_bytes((uint8_t *)vh + offsetof(struct shm_region_hdr,
						   state) + 4,
			  sizeof(*vh) - offsetof(struct shm_region_hdr,
						 state) - 4);
		if (first)	/* control words and claim table, once,
				 * while no honest claim is in flight */
			rnd_bytes((uint8_t *)v->base + sizeof(*vh),
				  4096 - sizeof(*vh));
	} else if (!strcmp(scenario, "inline_max")) {
		vh->inline_max = 200000;
		vh->cmdq_slot_size = 200064;
	} else if (!strcmp(scenario, "sar_geometry")) {
		/* H's region: its SAR channels are what V reads */
		h->hdr->sar_chan_count = 1u << 31;
		h->hdr->sar_buf_size = 16u << 20;
		vh->sar_chan_count = 1u << 31;
		vh->sar_buf_size = 16u << 20;
	} else if (!strcmp(scenario, "peer_table")) {
		/* every entry of both peer tables, H's own in V's among
		 * them: a receiver works from its private record of a
		 * sender (shm_rpeer), never from the entry again */
		rnd_bytes(v->peers, v->geo.peer_count * sizeof(*v->peers));
		rnd_bytes(h->peers, h->geo.peer_count * sizeof(*h->peers));
	} else if (!strcmp(scenario, "commands")) {
		for (int i = 0; i < 16; i++)
			inject_random(v, true);
	} else if (!strcmp(scenario, "stuck_claim") && first) {
		/* the position the next honest claim would take, claimed
		 * by a live process (us) that never commits */
		tail = pl_load_relaxed(&v->ctl->tail);
		pl_store_relaxed(claim_at(v, tail),
				 shm_st(SHM_PH_CLAIMED, tail, getpid()));
	} else if (!strcmp(scenario, "far_claim") && first) {
		/* claims far ahead of anything claimable, a hint past the
		 * window, a head word behind the consumer */
		tail = pl_load_relaxed(&v->ctl->tail);
		pl_store_relaxed(claim_at(v, tail),
				 shm_st(SHM_PH_CLAIMED, tail + 1000 * n + 1,
					getpid()));
		pl_store_relaxed(claim_at(v, tail + 1),
				 shm_st(SHM_PH_CLAIMED, tail + 1 + 5 * n,
					getpid()));
		pl_store_relaxed(claim_at(v, tail + 2),
				 shm_st(SHM_PH_READY, tail + 2, 0));
		pl_store_relaxed(&v->ctl->tail, tail + (1ull << 38));
		pl_store_relaxed(&v->ctl->head, tail - 3 * n);
	}
}

static void attacker(void *arg)
{
	struct shm_region *v, *h;
	bool continuous = strcmp(scenario, "stuck_claim") &&
			  strcmp(scenario, "far_claim");

	(void)arg;
	while (!atomic_load(&sh->v) || !atomic_load(&sh->h))
		usleep(100);
	v = map_of(atomic_load(&sh->v), 0);
	h = map_of(atomic_load(&sh->h), 1);
	wait_flag(&sh->v_ready);
	attack_step(v, h, true);
	atomic_store(&sh->attacked, 1);
	while (!atomic_load(&sh->v_done)) {
		if (continuous)
			attack_step(v, h, false);
		usleep(continuous ? 50 : 1000);
	}
	shm_region_unmap(v);
	shm_region_unmap(h);
}

static void run_attack(void)
{
	pid_t v, h, x;

	shm_test_watchdog_init();
	memset(sh, 0, sizeof(*sh));
	v = shm_test_spawn(victim, NULL);
	h = shm_test_spawn(honest, NULL);
	x = shm_test_spawn(attacker, NULL);
	assert_int_equal(shm_test_wait(v), 0);
	assert_int_equal(shm_test_wait(h), 0);
	assert_int_equal(shm_test_wait(x), 0);
}

/* ---- a stopped or dead peer must not hold back another's acks ---- */

/*
 * A sends V two messages that V must acknowledge (V maps A for the
 * first), then stops (SIGSTOP) or is killed before V reads the second; its queue is filled so that V's acknowledgement to it finds
 * no room. B then sends V 100 KB messages (single copy, acknowledged;
 * or bounce buffers) and small delivery-complete ones: all of them
 * complete although A's acknowledgement waits. With A dead, V's queued
 * acknowledgement is dropped and V becomes idle.
 */
struct hol_shared {
	_Atomic pid_t	v, a;
	_Atomic int	a_sent, a_full, b_done, v_done;
};
static struct hol_shared *hs;
static bool hol_kill;

static void hol_victim(void *arg)
{
	static uint8_t buf[100000];
	struct node n;
	unsigned got = 0;

	(void)arg;
	node_open(&n, 0);
	atomic_store(&hs->v, getpid());
	/* A's first message (acknowledged: we map A), then nothing until
	 * A's queue is full; then A's second and every one of B's */
	while (got < 2 + MSGS / 4) {
		struct shm_xfer_rx *rx = next_rx(&n);
		uint64_t len;
		int st;

		uint64_t tag = rx->tag, size = rx->size;

		len = recv_into(&n, rx, buf, sizeof(buf), false, &st);
		if (st != 0 || len != size)
			fprintf(stderr, "victim: message tag %#" PRIx64 " of %"
				PRIu64 " bytes: status %d, %" PRIu64 " bytes\n",
				tag, size, st, len);
		SHM_CHECK(st == 0 && len == size);
		if (!got++)
			wait_flag(&hs->a_full);
		shm_test_progress();
	}
	while (!atomic_load(&hs->b_done))
		drive(&n);
	if (hol_kill)	/* a dead A's stall clears */
		while (!shm_xfer_ep_idle(n.ep))
			drive(&n);
	atomic_store(&hs->v_done, 1);
	/* a stopped A gets its ack once it runs again */
	while (!hol_kill && !shm_xfer_ep_idle(n.ep))
		drive(&n);
	shm_xfer_ep_close(n.ep);
}

static void hol_a(void *arg)
{
	static uint8_t buf[64];
	struct shm_xfer_peer *p;
	struct node n;

	(void)arg;
	node_open(&n, 2);
	atomic_store(&hs->a, getpid());
	while (!atomic_load(&hs->v))
		usleep(100);
	p = peer_of(&n, atomic_load(&hs->v), 0);
	shm_test_fill(buf, sizeof(buf), 1000);
	send_msg(&n, p, buf, sizeof(buf), 1000, SHM_XF_DELIVERY, NULL);
	wait_tx(&n);
	send_msg(&n, p, buf, sizeof(buf), 1001, SHM_XF_DELIVERY, NULL);
	atomic_store(&hs->a_sent, 1);
	raise(SIGSTOP);
	/* continued: our ack is in the queue behind the filler */
	wait_tx(&n);
	while (!atomic_load(&hs->v_done))
		drive(&n);
	shm_xfer_peer_close(p);
	shm_xfer_ep_close(n.ep);
}

static void hol_b(void *arg)
{
	static uint8_t buf[100000];
	struct shm_xfer_peer *p;
	struct node n;

	(void)arg;
	node_open(&n, 3);
	wait_flag(&hs->a_full);
	p = peer_of(&n, atomic_load(&hs->v), 0);
	for (uint64_t seq = 0; seq < MSGS / 4; seq++) {
		uint64_t len = seq & 1 ? 100000 : 32;

		shm_test_fill(buf, len, seq);
		send_msg(&n, p, buf, len, seq << 1, SHM_XF_DELIVERY, NULL);
		wait_tx(&n);
		shm_test_progress();
	}
	atomic_store(&hs->b_done, 1);
	while (!atomic_load(&hs->v_done))
		drive(&n);
	shm_xfer_peer_close(p);
	shm_xfer_ep_close(n.ep);
}

static void run_hol(bool kill_a)
{
	struct shm_region *ar;
	struct shm_cmd *cmd;
	pid_t v, a, b;
	int st;

	hol_kill = kill_a;
	shm_test_watchdog_init();
	memset(hs, 0, sizeof(*hs));
	v = shm_test_spawn(hol_victim, NULL);
	a = shm_test_spawn(hol_a, NULL);
	b = shm_test_spawn(hol_b, NULL);
	/* A stopped after its send: fill its queue, V's ack finds it full */
	SHM_CHECK(waitpid(a, &st, WUNTRACED) == a && WIFSTOPPED(st));
	ar = map_of(a, 2);
	while (!shm_cmdq_claim(ar, (uint32_t)getpid(), &cmd)) {
		cmd->op = SHM_OP_NOP;
		shm_cmdq_commit(ar, cmd);
	}
	shm_region_unmap(ar);
	if (kill_a) {
		kill(a, SIGKILL);
		assert_int_equal(shm_test_wait(a), 128 + SIGKILL);
	}
	atomic_store(&hs->a_full, 1);
	assert_int_equal(shm_test_wait(b), 0);
	if (!kill_a) {
		kill(a, SIGCONT);
		assert_int_equal(shm_test_wait(a), 0);
	}
	assert_int_equal(shm_test_wait(v), 0);
}

/* ---- a live peer that stops reading: its operations time out ---- */

/*
 * DESIGN.md 7a, liveness: run with FI_SHM_PEER_TIMEOUT_MS=500.
 *
 * stalled_peer: V takes H's first message, then stops (SIGSTOP) with
 * H's next send (100 KB: single copy, or bounce buffers without CMA)
 * unread in its queue. H's 100 KB sends to another receiver W keep
 * completing meanwhile; H's send to V completes with -FI_ETIMEDOUT, not
 * before the timeout; a later send to V is refused (-FI_ECONNREFUSED).
 * V, continued, reads the stale commands and ends cleanly.
 *
 * stalled_sender: S stops in the middle of a 1 MiB message through
 * bounce buffers (FI_SHM_DISABLE_CMA=1) that R has matched: R's
 * reception completes with -FI_ETIMEDOUT instead of waiting forever.
 */
#define STALL_TIMEOUT_NS	500000000ull
#define STALL_W_MSGS		20
#define STALL_BIG		(1u << 20)

struct stall_shared {
	_Atomic pid_t	v, w;
	_Atomic int	v_stopped, h_done, rx_started;
};
static struct stall_shared *ss;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void stall_v(void *arg)
{
	static uint8_t buf[100000];
	struct node n;
	uint64_t len;
	int st;

	(void)arg;
	node_open(&n, 0);
	atomic_store(&ss->v, getpid());
	len = recv_into(&n, next_rx(&n), buf, sizeof(buf), false, &st);
	SHM_CHECK(st == 0 && len == 64 && !shm_test_verify(buf, 64, 7));
	/* our acknowledgement of it is out; stop with the rest unread */
	raise(SIGSTOP);
	/* continued after H gave up on us: whatever we read now is stale
	 * for H (its buffer may be gone): take it or drop it, no crash */
	while (!atomic_load(&ss->h_done))
		drive(&n);
	for (int i = 0; i < 20000; i++) {
		drive(&n);
		while (n.ulen)
			shm_xfer_rx_discard(next_rx(&n));
	}
	shm_xfer_ep_close(n.ep);
}

static void stall_w(void *arg)
{
	static uint8_t buf[100000];
	struct node n;

	(void)arg;
	node_open(&n, 3);
	atomic_store(&ss->w, getpid());
	for (uint64_t seq = 0; seq < STALL_W_MSGS; seq++) {
		struct shm_xfer_rx *rx = next_rx(&n);
		uint64_t len;
		int st;

		SHM_CHECK(rx->tag == seq);
		len = recv_into(&n, rx, buf, sizeof(buf), false, &st);
		SHM_CHECK(st == 0 && len == sizeof(buf));
		SHM_CHECK(!shm_test_verify(buf, len, seq));
		shm_test_progress();
	}
	while (!atomic_load(&ss->h_done))
		drive(&n);
	shm_xfer_ep_close(n.ep);
}

static void stall_h(void *arg)
{
	static uint8_t small[64], to_v[100000], to_w[100000];
	struct shm_xfer_peer *pv, *pw;
	struct shm_xfer_msg m = { .flags = SHM_XF_TAGGED };
	struct iovec iov;
	struct node n;
	uint64_t t0;

	(void)arg;
	node_open(&n, 1);
	while (!atomic_load(&ss->v) || !atomic_load(&ss->w))
		usleep(100);
	pv = peer_of(&n, atomic_load(&ss->v), 0);
	pw = peer_of(&n, atomic_load(&ss->w), 3);
	shm_test_fill(small, sizeof(small), 7);
	send_msg(&n, pv, small, sizeof(small), 0, SHM_XF_DELIVERY, NULL);
	wait_tx(&n);
	wait_flag(&ss->v_stopped);

	shm_test_fill(to_v, sizeof(to_v), 99);
	t0 = now_ns();
	SHM_CHECK(send_msg(&n, pv, to_v, sizeof(to_v), 99, 0, NULL) == 1);
	/* others are not held up by the stalled peer */
	for (uint64_t seq = 0; seq < STALL_W_MSGS; seq++) {
		unsigned before = n.tx_done;

		shm_test_fill(to_w, sizeof(to_w), seq);
		if (send_msg(&n, pw, to_w, sizeof(to_w), seq, SHM_XF_DELIVERY,
			     NULL) == 1)
			while (n.tx_done == before)
				drive(&n);
		SHM_CHECK(n.tx_status == 0);
	}
	while (n.tx_pending)
		drive(&n);
	SHM_CHECK(n.tx_status == -FI_ETIMEDOUT);
	SHM_CHECK(now_ns() - t0 >= STALL_TIMEOUT_NS);
	/* a lost peer refuses new sends */
	iov = (struct iovec){ small, sizeof(small) };
	m.iov = &iov;
	m.iov_count = 1;
	SHM_CHECK(shm_xfer_send(n.ep, pv, &m) == -FI_ECONNREFUSED);
	atomic_store(&ss->h_done, 1);
	shm_xfer_peer_close(pv);
	shm_xfer_peer_close(pw);
	shm_xfer_ep_close(n.ep);
}

static void run_stalled_peer(void)
{
	pid_t v, h, w;
	int st;

	shm_test_watchdog_init();
	memset(ss, 0, sizeof(*ss));
	v = shm_test_spawn(stall_v, NULL);
	w = shm_test_spawn(stall_w, NULL);
	h = shm_test_spawn(stall_h, NULL);
	SHM_CHECK(waitpid(v, &st, WUNTRACED) == v && WIFSTOPPED(st));
	atomic_store(&ss->v_stopped, 1);
	st = shm_test_wait(h);
	/* V goes on whatever H's fate: a failed check must not leave a
	 * stopped process behind */
	kill(v, SIGCONT);
	assert_int_equal(st, 0);
	assert_int_equal(shm_test_wait(w), 0);
	assert_int_equal(shm_test_wait(v), 0);
}

static void stall_r(void *arg)
{
	static uint8_t buf[STALL_BIG];
	struct shm_xfer_rx *rx;
	struct node n;
	int st;

	(void)arg;
	node_open(&n, 0);
	atomic_store(&ss->v, getpid());
	rx = next_rx(&n);
	SHM_CHECK(rx->size == STALL_BIG);
	atomic_store(&ss->rx_started, 1);
	(void)recv_into(&n, rx, buf, sizeof(buf), false, &st);
	SHM_CHECK(st == -FI_ETIMEDOUT);
	shm_xfer_ep_close(n.ep);
}

static void stall_s(void *arg)
{
	static uint8_t buf[STALL_BIG];
	struct shm_xfer_peer *p;
	struct node n;

	(void)arg;
	node_open(&n, 1);
	while (!atomic_load(&ss->v))
		usleep(100);
	p = peer_of(&n, atomic_load(&ss->v), 0);
	shm_test_fill(buf, sizeof(buf), 5);
	SHM_CHECK(send_msg(&n, p, buf, sizeof(buf), 5, 0, NULL) == 1);
	/* R has the message but has not placed a byte of it: what we sent
	 * fills at most the bounce ring, far less than the message */
	while (!atomic_load(&ss->rx_started))
		drive(&n);
	raise(SIGSTOP);
	/* continued after R gave up and left: our send fails, we end */
	while (n.tx_pending)
		drive(&n);
	SHM_CHECK(n.tx_status != 0);
	shm_xfer_peer_close(p);
	shm_xfer_ep_close(n.ep);
}

static void run_stalled_sender(void)
{
	pid_t r, s;
	int st;

	shm_test_watchdog_init();
	memset(ss, 0, sizeof(*ss));
	r = shm_test_spawn(stall_r, NULL);
	s = shm_test_spawn(stall_s, NULL);
	SHM_CHECK(waitpid(s, &st, WUNTRACED) == s && WIFSTOPPED(st));
	st = shm_test_wait(r);
	kill(s, SIGCONT);
	assert_int_equal(st, 0);
	assert_int_equal(shm_test_wait(s), 0);
}

static void test_attack(void **state)
{
	(void)state;
	if (!strcmp(scenario, "stopped_peer"))
		run_hol(false);
	else if (!strcmp(scenario, "dead_peer"))
		run_hol(true);
	else if (!strcmp(scenario, "stalled_peer"))
		run_stalled_peer();
	else if (!strcmp(scenario, "stalled_sender"))
		run_stalled_sender();
	else
		run_attack();
}

int main(int argc, char **argv)
{
	static const char *const known[] = {
		"peer_count", "hdr_random", "inline_max", "sar_geometry",
		"peer_table", "commands", "stuck_claim", "far_claim", "stopped_peer",
		"dead_peer", "stalled_peer", "stalled_sender",
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attack),
	};
	bool ok = false;
	void *m;

	scenario = argc > 1 ? argv[1] : "";
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		ok |= !strcmp(scenario, known[i]);
	if (!ok) {
		fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
		return 2;
	}
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	sh = m;
	hs = (struct hol_shared *)((char *)m + 2048);
	ss = (struct stall_shared *)((char *)m + 3072);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
