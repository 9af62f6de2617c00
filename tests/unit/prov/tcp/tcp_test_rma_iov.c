/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario "rma_iov" (test_tcp_ep.c): RMA that names several remote
 * buffers (fi_writemsg / fi_readmsg, rma_iov_limit 4 as fi_getinfo says).
 * The server is the target, with an FI_REMOTE_WRITE counter; the client
 * initiates:
 *
 *   - a write of two local buffers into three scattered remote ranges,
 *     with remote CQ data: each range holds its bytes, nothing between
 *     them changed, the target's CQ has ONE entry with the data and its
 *     counter counted ONE operation; the initiator gets one completion;
 *   - a read of four scattered ranges into three local buffers, checked;
 *   - a write whose second range has a wrong key: one error completion
 *     with the application's context (never a success), the other
 *     ranges' bytes landed (each range is checked and placed on its
 *     own at the target), the target counted it once, at its last range,
 *     and the connection carries the next write;
 *   - five remote buffers, and buffers whose lengths do not add up to
 *     the local ones: -FI_EINVAL at the call.
 */
#include <string.h>
#include <sys/uio.h>

#include "tcp_test.h"

#define RI_LEN 65536
#define RI_FILL 0x3c
#define WDATA 0xabcdef0123ull

enum { V_KEY, V_ADDR, V_READY, V_WRITES };

static const struct { size_t off, len; } ri_w[3] = {
	{ 100, 3000 }, { 9000, 5000 }, { 40000, 192 },
};
static const struct { size_t off, len; } ri_r[4] = {
	{ 0, 1 }, { 20000, 7000 }, { 33333, 10 }, { 65000, 536 },
};

static void ri_ok(struct tt_side *c, void *ctx, uint64_t flags)
{
	struct fi_cq_tagged_entry e;

	tt_cq_wait(c->txcq, &e);
	TT_CHECK(e.op_context == ctx);
	TT_CHECK((e.flags & (FI_RMA | flags)) == (FI_RMA | flags));
}

static void ri_client(void *arg)
{
	struct tt_opts o = { 0 };
	struct tt_side c;
	uint8_t *src = malloc(RI_LEN), *dst = malloc(RI_LEN);
	struct fi_rma_iov rma[5];
	struct iovec iov[3];
	struct fi_msg_rma m;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	uint64_t key, addr;
	size_t total = 0, i, off;

	(void)arg;
	TT_CHECK(src && dst);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	TT_EQ(c.info->tx_attr->rma_iov_limit, 4);
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	tt_watch("rma_iov client: keys", TT_WATCHDOG_S);
	while (!atomic_load(&tt_board->val[V_READY]))
		usleep(100);
	key = tt_board->val[V_KEY];
	addr = tt_board->val[V_ADDR];

	/* three remote ranges from two local buffers (cut across them) */
	tt_watch("rma_iov client: scattered write", TT_WATCHDOG_S);
	for (i = 0; i < 3; i++) {
		rma[i] = (struct fi_rma_iov){ .addr = addr + ri_w[i].off,
					      .len = ri_w[i].len, .key = key };
		total += ri_w[i].len;
	}
	tt_fill(src, total, 50);
	iov[0] = (struct iovec){ src, 4000 };
	iov[1] = (struct iovec){ src + 4000, total - 4000 };
	m = (struct fi_msg_rma){ .msg_iov = iov, .iov_count = 2,
				 .rma_iov = rma, .rma_iov_count = 3,
				 .context = src, .data = WDATA };
	TT_EQ(fi_writemsg(c.ep, &m, FI_COMPLETION | FI_REMOTE_CQ_DATA), 0);
	ri_ok(&c, src, FI_WRITE);
	TT_EQ(tt_cq_poll(c.txcq, &e, &err), 0);	/* one completion only */
	tt_step(TT_CLIENT, 1);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);

	/* four remote ranges into three local buffers */
	tt_watch("rma_iov client: scattered read", TT_WATCHDOG_S);
	for (i = 0, total = 0; i < 4; i++) {
		rma[i] = (struct fi_rma_iov){ .addr = addr + ri_r[i].off,
					      .len = ri_r[i].len, .key = key };
		total += ri_r[i].len;
	}
	memset(dst, 0, RI_LEN);
	iov[0] = (struct iovec){ dst, 2 };
	iov[1] = (struct iovec){ dst + 2, 5000 };
	iov[2] = (struct iovec){ dst + 5002, total - 5002 };
	m = (struct fi_msg_rma){ .msg_iov = iov, .iov_count = 3,
				 .rma_iov = rma, .rma_iov_count = 4,
				 .context = dst };
	TT_EQ(fi_readmsg(c.ep, &m, FI_COMPLETION), 0);
	ri_ok(&c, dst, FI_READ);
	for (i = 0, off = 0; i < 4; i++) {
		/* the server filled its region with stream 51 */
		for (size_t k = 0; k < ri_r[i].len; k++)
			TT_EQ(dst[off + k], tt_byte(51, ri_r[i].off + k));
		off += ri_r[i].len;
	}

	/* the second range's key is wrong: the operation fails, once */
	tt_watch("rma_iov client: a refused part", TT_WATCHDOG_S);
	for (i = 0, total = 0; i < 3; i++) {
		rma[i] = (struct fi_rma_iov){ .addr = addr + ri_w[i].off,
					      .len = ri_w[i].len, .key = key };
		total += ri_w[i].len;
	}
	rma[1].key = key ^ 0x77770000ull;
	tt_fill(src, total, 52);
	iov[0] = (struct iovec){ src, total };
	m = (struct fi_msg_rma){ .msg_iov = iov, .iov_count = 1,
				 .rma_iov = rma, .rma_iov_count = 3,
				 .context = (void *)"refused part" };
	TT_EQ(fi_writemsg(c.ep, &m, FI_COMPLETION), 0);
	TT_EQ(tt_cq_wait_any(c.txcq, &e, &err), -1);
	TT_CHECK(err.op_context == (void *)"refused part");
	TT_CHECK(err.err != 0);
	TT_EQ(err.len, total);
	TT_EQ(tt_cq_poll(c.txcq, &e, &err), 0);	/* and nothing else */
	/* the connection still works */
	tt_fill(src, 64, 53);
	TT_EQ(fi_write(c.ep, src, 64, NULL, 0, addr + 60000, key, src), 0);
	ri_ok(&c, src, FI_WRITE);

	/* refused at the call */
	tt_watch("rma_iov client: bad calls", TT_WATCHDOG_S);
	for (i = 0; i < 5; i++)
		rma[i] = (struct fi_rma_iov){ .addr = addr + i * 100,
					      .len = 100, .key = key };
	iov[0] = (struct iovec){ src, 500 };
	m = (struct fi_msg_rma){ .msg_iov = iov, .iov_count = 1,
				 .rma_iov = rma, .rma_iov_count = 5 };
	TT_EQ(fi_writemsg(c.ep, &m, 0), -FI_EINVAL);
	TT_EQ(fi_readmsg(c.ep, &m, 0), -FI_EINVAL);
	m.rma_iov_count = 4;		/* 400 remote bytes, 500 local */
	TT_EQ(fi_writemsg(c.ep, &m, 0), -FI_EINVAL);
	tt_step(TT_CLIENT, 2);
	tt_wait_step(TT_SERVER, 2, NULL, NULL);
	tt_close(&c);
	free(src);
	free(dst);
}

/* Drive the target's manual progress without reading its CQ. */
static void ri_drive(void *side)
{
	struct tt_side *s = side;

	TT_EQ(fi_cq_read(s->rxcq, NULL, 0), 0);
	usleep(50);
}

int tt_scn_rma_iov(void)
{
	struct tt_opts o = { .remote_cntr = true };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fid_mr *mr;
	struct tt_side s;
	uint8_t *mem = malloc(RI_LEN), *want = malloc(RI_LEN);
	uint64_t mode;
	size_t i, off;

	TT_CHECK(mem && want);
	memset(mem, RI_FILL, RI_LEN);
	tt_board_init();
	tt_spawn(ri_client, NULL);
	tt_watch("rma_iov server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	mode = (uint64_t)s.conn_info->domain_attr->mr_mode;
	TT_EQ(fi_mr_reg(s.domain, mem, RI_LEN,
			FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0x500, 0, &mr,
			NULL), 0);
	atomic_store(&tt_board->val[V_KEY], (mode & FI_MR_PROV_KEY) ?
		     fi_mr_key(mr) : 0x500);
	atomic_store(&tt_board->val[V_ADDR], (mode & FI_MR_VIRT_ADDR) ?
		     (uint64_t)(uintptr_t)mem : 0);
	atomic_store(&tt_board->val[V_READY], 1);

	tt_watch("rma_iov server: the scattered write", TT_WATCHDOG_S);
	tt_wait_step(TT_CLIENT, 1, ri_drive, &s);
	tt_cq_wait(s.rxcq, &e);		/* the one CQ-data entry */
	TT_CHECK(e.flags & FI_REMOTE_CQ_DATA);
	TT_EQ(e.data, WDATA);
	TT_EQ(tt_cq_poll(s.rxcq, &e, &err), 0);
	TT_EQ(fi_cntr_read(s.rwcntr), 1);	/* one operation, not three */
	memset(want, RI_FILL, RI_LEN);
	for (i = 0, off = 0; i < 3; i++) {
		for (size_t k = 0; k < ri_w[i].len; k++)
			want[ri_w[i].off + k] = tt_byte(50, off + k);
		off += ri_w[i].len;
	}
	TT_EQ(memcmp(mem, want, RI_LEN), 0);
	tt_fill(mem, RI_LEN, 51);
	tt_step(TT_SERVER, 1);

	tt_watch("rma_iov server: reads and refusals", TT_WATCHDOG_S);
	tt_wait_step(TT_CLIENT, 2, ri_drive, &s);
	/* the refused write: its first and third ranges landed, not its
	 * second; then the 64 bytes after it */
	for (size_t k = 0; k < ri_w[0].len; k++)
		TT_EQ(mem[ri_w[0].off + k], tt_byte(52, k));
	for (size_t k = 0; k < ri_w[1].len; k++)
		TT_EQ(mem[ri_w[1].off + k], tt_byte(51, ri_w[1].off + k));
	off = ri_w[0].len + ri_w[1].len;
	for (size_t k = 0; k < ri_w[2].len; k++)
		TT_EQ(mem[ri_w[2].off + k], tt_byte(52, off + k));
	for (size_t k = 0; k < 64; k++)
		TT_EQ(mem[60000 + k], tt_byte(53, k));
	/* the refused operation and the last write: one count each */
	TT_EQ(fi_cntr_read(s.rwcntr), 3);
	tt_step(TT_SERVER, 2);
	tt_watch("rma_iov server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	TT_EQ(fi_close(&mr->fid), 0);
	tt_close(&s);
	free(mem);
	free(want);
	return 0;
}
