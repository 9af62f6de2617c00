/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenarios "rma" and "auto" (test_tcp_ep.c).
 *
 *   rma   the server is the target, the client the initiator: fi_write,
 *         fi_read (1 MiB, and a part inside the region) and fi_writedata
 *         (the target's CQ gets FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA with
 *         the data), verified. Then the refusals: an unknown key, a write
 *         and a read past the end, a write before the start, a write to
 *         a region registered FI_REMOTE_READ only and a read from one
 *         registered FI_REMOTE_WRITE only each complete in error at the
 *         initiator, and the target's memory (guard pages around every
 *         region included) is exactly what the allowed operations left;
 *         the connection still carries a write afterwards.
 *   auto  the client is the target, on a FI_PROGRESS_AUTO domain: it
 *         registers 1 MiB, connects, and then never calls the library
 *         while the server reads and writes the whole region; both
 *         complete and verify (the target's progress thread served them).
 *
 * Keys and addresses follow the domain's mr_mode as fi_getinfo returned
 * it: FI_MR_PROV_KEY (fi_mr_key) or keys we choose, FI_MR_VIRT_ADDR
 * (virtual addresses) or offsets from the region's start.
 */
#include <stdio.h>
#include <time.h>
#include <dirent.h>
#include <string.h>

#include "tcp_test.h"

#define RGUARD 0x5a
#define PAGE 4096
#define A_LEN ((size_t)1 << 20)
#define S_LEN 4096		/* the read-only and write-only regions */
/* layout of the target's memory: guard A guard R guard W guard */
#define OFF_A PAGE
#define OFF_R (OFF_A + A_LEN + PAGE)
#define OFF_W (OFF_R + S_LEN + PAGE)
#define MEM_LEN (OFF_W + S_LEN + PAGE)
#define WDATA 0x1122334455667788ull
#define PART_OFF 5000
#define PART_LEN 1000
#define LATE_OFF 100000

enum { V_KEY_A, V_KEY_R, V_KEY_W, V_ADDR_A, V_ADDR_R, V_ADDR_W, V_READY,
       V_DONE, V_RESULT };

static struct fid_mr *reg(struct tt_side *t, uint64_t mr_mode, void *buf,
			  size_t len, uint64_t access, uint64_t want_key,
			  int vkey, int vaddr)
{
	struct fid_mr *mr;

	TT_EQ(fi_mr_reg(t->domain, buf, len, access, 0, want_key, 0, &mr,
			NULL), 0);
	atomic_store(&tt_board->val[vkey], (mr_mode & FI_MR_PROV_KEY) ?
		     fi_mr_key(mr) : want_key);
	atomic_store(&tt_board->val[vaddr], (mr_mode & FI_MR_VIRT_ADDR) ?
		     (uint64_t)(uintptr_t)buf : 0);
	return mr;
}

static int guard_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != RGUARD)
			return 0;
	return 1;
}

/* Does p[0..n) hold stream seq from offset `from` on? */
static int pattern_at(const uint8_t *p, size_t n, uint64_t seq, size_t from)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != tt_byte(seq, from + i))
			return 0;
	return 1;
}

/* ---- rma: the client initiates ---- */

static void rma_ok(struct tt_side *c, uint64_t flags)
{
	struct fi_cq_tagged_entry e;

	tt_cq_wait(c->txcq, &e);
	TT_CHECK((e.flags & (FI_RMA | flags)) == (FI_RMA | flags));
}

/* An RMA call that must be accepted and then complete in error. */
static void rma_refused(struct tt_side *c, const char *what, ssize_t posted)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;

	tt_watch(what, TT_WATCHDOG_S);
	TT_EQ(posted, 0);
	if (tt_cq_wait_any(c->txcq, &e, &err) > 0) {
		fprintf(stderr, "%s: completed with success\n", what);
		TT_CHECK(!"a refused RMA completed with success");
	}
	TT_CHECK(err.err != 0);
	TT_CHECK(err.op_context == (void *)what);
	printf("%s: err %d (%s)\n", what, err.err, fi_strerror(err.err));
}

static void rma_client(void *arg)
{
	struct tt_opts o = { 0 };
	struct tt_side c;
	uint8_t *buf = malloc(A_LEN);
	uint64_t ka, kr, kw, aa, ar, aw, bad;

	(void)arg;
	TT_CHECK(buf);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	tt_watch("rma client: keys", TT_WATCHDOG_S);
	while (!atomic_load(&tt_board->val[V_READY]))
		usleep(100);
	ka = tt_board->val[V_KEY_A];
	kr = tt_board->val[V_KEY_R];
	kw = tt_board->val[V_KEY_W];
	aa = tt_board->val[V_ADDR_A];
	ar = tt_board->val[V_ADDR_R];
	aw = tt_board->val[V_ADDR_W];

	tt_watch("rma client: write 1 MiB", TT_WATCHDOG_S);
	tt_fill(buf, A_LEN, 10);
	TT_EQ(fi_write(c.ep, buf, A_LEN, NULL, 0, aa, ka, buf), 0);
	rma_ok(&c, FI_WRITE);
	tt_step(TT_CLIENT, 1);

	tt_watch("rma client: read 1 MiB", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);
	memset(buf, 0, A_LEN);
	TT_EQ(fi_read(c.ep, buf, A_LEN, NULL, 0, aa, ka, buf), 0);
	rma_ok(&c, FI_READ);
	TT_EQ(tt_verify(buf, A_LEN, 11), -1);

	/* a part inside the region, read back around it */
	tt_watch("rma client: partial", TT_WATCHDOG_S);
	tt_fill(buf, PART_LEN, 12);
	TT_EQ(fi_write(c.ep, buf, PART_LEN, NULL, 0, aa + PART_OFF, ka, buf),
	      0);
	rma_ok(&c, FI_WRITE);
	memset(buf, 0, 3 * PART_LEN);
	TT_EQ(fi_read(c.ep, buf, 3 * PART_LEN, NULL, 0,
		      aa + PART_OFF - PART_LEN, ka, buf), 0);
	rma_ok(&c, FI_READ);
	TT_CHECK(pattern_at(buf, PART_LEN, 11, PART_OFF - PART_LEN));
	TT_CHECK(pattern_at(buf + PART_LEN, PART_LEN, 12, 0));
	TT_CHECK(pattern_at(buf + 2 * PART_LEN, PART_LEN, 11,
			    PART_OFF + PART_LEN));

	tt_watch("rma client: writedata", TT_WATCHDOG_S);
	tt_fill(buf, PAGE, 13);
	TT_EQ(fi_writedata(c.ep, buf, PAGE, NULL, WDATA, 0, aa, ka, buf), 0);
	rma_ok(&c, FI_WRITE);
	tt_wait_step(TT_SERVER, 2, NULL, NULL);

	/* refusals; then the allowed counterparts */
	bad = ka ^ kr ^ kw ^ 0x5a5a5a5a00ull;
	if (bad == ka || bad == kr || bad == kw)
		bad = ka + kr + kw + 1;
	tt_fill(buf, A_LEN, 99);
	rma_refused(&c, "write with an unknown key",
		    fi_write(c.ep, buf, 256, NULL, 0, aa, bad,
			     "write with an unknown key"));
	rma_refused(&c, "write past the end",
		    fi_write(c.ep, buf, 200, NULL, 0, aa + A_LEN - 100, ka,
			     "write past the end"));
	rma_refused(&c, "read past the end",
		    fi_read(c.ep, buf, 200, NULL, 0, aa + A_LEN - 100, ka,
			    "read past the end"));
	rma_refused(&c, "write before the start",
		    fi_write(c.ep, buf, 128, NULL, 0, aa - 64, ka,
			     "write before the start"));
	rma_refused(&c, "write to a read-only region",
		    fi_write(c.ep, buf, 256, NULL, 0, ar, kr,
			     "write to a read-only region"));
	rma_refused(&c, "read from a write-only region",
		    fi_read(c.ep, buf, 256, NULL, 0, aw, kw,
			    "read from a write-only region"));
	tt_watch("rma client: allowed after refusals", TT_WATCHDOG_S);
	memset(buf, 0, S_LEN);
	TT_EQ(fi_read(c.ep, buf, S_LEN, NULL, 0, ar, kr, buf), 0);
	rma_ok(&c, FI_READ);
	TT_EQ(tt_verify(buf, S_LEN, 20), -1);
	tt_fill(buf, S_LEN, 21);
	TT_EQ(fi_write(c.ep, buf, S_LEN, NULL, 0, aw, kw, buf), 0);
	rma_ok(&c, FI_WRITE);
	tt_fill(buf, 64, 22);
	TT_EQ(fi_write(c.ep, buf, 64, NULL, 0, aa + LATE_OFF, ka, buf), 0);
	rma_ok(&c, FI_WRITE);
	tt_step(TT_CLIENT, 3);
	tt_wait_step(TT_SERVER, 3, NULL, NULL);
	tt_close(&c);
	free(buf);
}

int tt_scn_rma(void)
{
	struct tt_opts o = { 0 };
	struct fi_cq_tagged_entry e;
	struct fid_mr *ma, *mr, *mw;
	struct tt_side s;
	uint8_t *mem = malloc(MEM_LEN), *a = mem + OFF_A;
	uint64_t mode;

	TT_CHECK(mem);
	memset(mem, RGUARD, MEM_LEN);
	tt_fill(mem + OFF_R, S_LEN, 20);
	tt_board_init();
	tt_spawn(rma_client, NULL);
	tt_watch("rma server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	mode = (uint64_t)s.conn_info->domain_attr->mr_mode;
	printf("target mr_mode %#llx\n", (unsigned long long)mode);
	ma = reg(&s, mode, a, A_LEN, FI_REMOTE_READ | FI_REMOTE_WRITE, 0x100,
		 V_KEY_A, V_ADDR_A);
	mr = reg(&s, mode, mem + OFF_R, S_LEN, FI_REMOTE_READ, 0x200,
		 V_KEY_R, V_ADDR_R);
	mw = reg(&s, mode, mem + OFF_W, S_LEN, FI_REMOTE_WRITE, 0x300,
		 V_KEY_W, V_ADDR_W);
	atomic_store(&tt_board->val[V_READY], 1);

	tt_watch("rma server: serving the 1 MiB write", TT_WATCHDOG_S);
	tt_wait_step(TT_CLIENT, 1, tt_poke_empty, &s);
	TT_EQ(tt_verify(a, A_LEN, 10), -1);
	TT_CHECK(guard_ok(mem, OFF_A));
	TT_CHECK(guard_ok(a + A_LEN, PAGE));
	tt_fill(a, A_LEN, 11);
	tt_step(TT_SERVER, 1);

	/* the read, the partial write and read, then writedata's entry */
	tt_watch("rma server: writedata completion", TT_WATCHDOG_S);
	tt_cq_wait(s.rxcq, &e);
	TT_CHECK(e.flags & FI_REMOTE_CQ_DATA);
	TT_CHECK(e.flags & FI_REMOTE_WRITE);
	TT_EQ(e.data, WDATA);
	TT_EQ(tt_verify(a, PAGE, 13), -1);
	TT_CHECK(pattern_at(a + PART_OFF, PART_LEN, 12, 0));
	tt_step(TT_SERVER, 2);

	tt_watch("rma server: serving the refusals", TT_WATCHDOG_S);
	tt_wait_step(TT_CLIENT, 3, tt_poke_empty, &s);
	TT_CHECK(guard_ok(mem, OFF_A));
	TT_EQ(tt_verify(a, PAGE, 13), -1);	/* unknown key, before start */
	TT_CHECK(pattern_at(a + PAGE, PART_OFF - PAGE, 11, PAGE));
	TT_CHECK(pattern_at(a + PART_OFF, PART_LEN, 12, 0));
	TT_CHECK(pattern_at(a + LATE_OFF, 64, 22, 0));
	TT_CHECK(pattern_at(a + LATE_OFF + 64, A_LEN - LATE_OFF - 64, 11,
			    LATE_OFF + 64));	/* past the end: untouched */
	TT_CHECK(guard_ok(a + A_LEN, PAGE));
	TT_EQ(tt_verify(mem + OFF_R, S_LEN, 20), -1);	/* read-only */
	TT_CHECK(guard_ok(mem + OFF_R + S_LEN, PAGE));
	TT_EQ(tt_verify(mem + OFF_W, S_LEN, 21), -1);
	TT_CHECK(guard_ok(mem + OFF_W + S_LEN, PAGE));
	tt_step(TT_SERVER, 3);
	tt_watch("rma server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	TT_EQ(fi_close(&ma->fid), 0);
	TT_EQ(fi_close(&mr->fid), 0);
	TT_EQ(fi_close(&mw->fid), 0);
	tt_close(&s);
	free(mem);
	return 0;
}

/* ---- auto: the client is a target that never calls the library ---- */

static void auto_client(void *arg)
{
	struct tt_opts o = { .data_progress = FI_PROGRESS_AUTO,
			     .remote_cntr = true };
	struct fid_mr *mr;
	struct tt_side c;
	uint8_t *mem = malloc(A_LEN);
	uint64_t mode;

	(void)arg;
	TT_CHECK(mem);
	tt_fill(mem, A_LEN, 30);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	TT_EQ(c.info->domain_attr->data_progress, FI_PROGRESS_AUTO);
	mode = (uint64_t)c.info->domain_attr->mr_mode;
	mr = reg(&c, mode, mem, A_LEN, FI_REMOTE_READ | FI_REMOTE_WRITE,
		 0x400, V_KEY_A, V_ADDR_A);
	tt_client_ep(&c);
	tt_client_connect(&c, NULL, 0, NULL, NULL);
	atomic_store(&tt_board->val[V_READY], 1);
	/* from here on, no call into the library until the server is done */
	tt_watch("auto target: asleep", TT_WATCHDOG_S);
	while (!atomic_load(&tt_board->val[V_DONE]))
		usleep(1000);
	/* the server's write completed: its remote-write count is here
	 * already (the counter is read only now, and only to order this
	 * thread's reads after the progress thread's stores: the write
	 * went through another process, which no tool can see) */
	TT_CHECK(fi_cntr_read(c.rwcntr) >= 1);
	atomic_store(&tt_board->val[V_RESULT],
		     tt_verify(mem, A_LEN, 31) == -1 ? 1 : 2);
	tt_watch("auto target: close", TT_WATCHDOG_S);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);
	TT_EQ(fi_close(&mr->fid), 0);
	tt_close(&c);
	free(mem);
}

/* CPU time of every thread of pid, in ns (schedstat's first field). */
static uint64_t auto_cpu_ns(pid_t pid)
{
	char path[300];
	struct dirent *de;
	uint64_t sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	TT_CHECK(d);
	while ((de = readdir(d))) {
		unsigned long long run = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
			 (int)pid, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* a thread gone meanwhile */
		if (fscanf(f, "%llu", &run) == 1)
			sum += run;
		fclose(f);
	}
	closedir(d);
	return sum;
}

static uint64_t auto_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The connected target, with its domain's progress thread and the
 * fabric's CM thread, idle for 2 s: a thread that spins instead of
 * sleeping in epoll uses about a whole core; sleeping ones, next to
 * nothing. Fails at 10% of one core (a bound no sleeper reaches, even
 * on a loaded machine, and every spinner does). */
static void auto_idle_check(pid_t pid)
{
	uint64_t c0, c1, w0, w1;

	usleep(100000);
	c0 = auto_cpu_ns(pid);
	w0 = auto_now_ns();
	usleep(2000000);
	c1 = auto_cpu_ns(pid);
	w1 = auto_now_ns();
	printf("idle target (auto progress, connected): %.2f%% of one core\n",
	       100.0 * (double)(c1 - c0) / (double)(w1 - w0));
	TT_CHECK((c1 - c0) * 10 < w1 - w0);
}

int tt_scn_auto(void)
{
	struct tt_opts o = { 0 };
	struct fi_cq_tagged_entry e;
	struct tt_side s;
	uint8_t *buf = malloc(A_LEN);
	uint64_t key, addr;

	TT_CHECK(buf);
	tt_board_init();
	tt_spawn(auto_client, NULL);
	tt_watch("auto server: connect", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, NULL, NULL);
	tt_server_accept(&s, NULL, 0);
	while (!atomic_load(&tt_board->val[V_READY]))
		usleep(100);
	key = tt_board->val[V_KEY_A];
	addr = tt_board->val[V_ADDR_A];
	tt_watch("auto server: idle CPU of the target", TT_WATCHDOG_S);
	auto_idle_check(tt_child);

	tt_watch("auto server: read 1 MiB from a sleeping target",
		 TT_WATCHDOG_S);
	TT_EQ(fi_read(s.ep, buf, A_LEN, NULL, 0, addr, key, buf), 0);
	tt_cq_wait(s.txcq, &e);
	TT_EQ(tt_verify(buf, A_LEN, 30), -1);

	tt_watch("auto server: write 1 MiB to a sleeping target",
		 TT_WATCHDOG_S);
	tt_fill(buf, A_LEN, 31);
	TT_EQ(fi_write(s.ep, buf, A_LEN, NULL, 0, addr, key, buf), 0);
	tt_cq_wait(s.txcq, &e);
	atomic_store(&tt_board->val[V_DONE], 1);

	tt_watch("auto server: the target's check", TT_WATCHDOG_S);
	while (!atomic_load(&tt_board->val[V_RESULT]))
		usleep(100);
	TT_EQ(atomic_load(&tt_board->val[V_RESULT]), 1);
	tt_step(TT_SERVER, 1);
	TT_EQ(tt_join(), 0);
	tt_close(&s);
	free(buf);
	return 0;
}
