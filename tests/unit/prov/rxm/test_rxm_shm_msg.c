/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ofi_rxm endpoints on one node through shm (FI_OFI_RXM_USE_SHM): two
 * endpoints, each with its own fabric, domain, CQ and AV, exchange
 * tagged and untagged messages of every size class (inline, eager,
 * segmented, over 64 KiB) both ways, with FI_SOURCE and directed
 * receives, the message arriving before and after its receive.
 *   shm   FI_OFI_RXM_USE_SHM=1: every message goes by shm (rxm's INFO
 *         line "peer reached over shm" is read back from our own log);
 *   tcp   FI_OFI_RXM_USE_SHM=0: the same exchange, over tcp, no such
 *         line;
 *   shm_auto  as shm with FI_PROGRESS_AUTO: the progress thread hands
 *         listed sends to shm and completes them while the application
 *         sends (ThreadSanitizer runs it in CI);
 *   dead  two processes: one message each way through shm, then the
 *         child dies (no close) and the parent's next send to it ends
 *         in an error completion, not a hang;
 *   fallback  two processes, the child without shm (FI_OFI_RXM_USE_SHM=0
 *         there): the parent's shm finds no endpoint by the child's
 *         name, and its messages go over tcp instead (INFO line), both
 *         ways, in order;
 *   mixed  one endpoint hears from a peer over shm and from one over tcp
 *         (its AV named: no shm endpoint) at once, any-source receives,
 *         eager and rendezvous sizes: each sender's messages take the
 *         receives in order.
 *   offset  as shm, with a remote address first in A's AV: the node-local
 *         peer has one index in the AV and another in the shm twin;
 *   late  messages reach A over shm before A has their sender in its AV:
 *         directed receives posted after the insert match them;
 *   cntr  A's receive counter counts the messages that came over shm.
 * The log is captured by pointing stderr at a file; it is copied back to
 * the real stderr at exit, so a failed check still shows.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "rxm_test.h"

static char log_path[] = "/tmp/rxm_shm_msg_XXXXXX";
static int real_stderr = -1;

static void log_copy_back(void)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fflush(stderr);
	fd = open(log_path, O_RDONLY);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(real_stderr, buf, (size_t)n) != n)
			break;
	close(fd);
	unlink(log_path);
	/* what comes after the exit handlers (a sanitizer's report) goes
	 * to the real stderr */
	(void)dup2(real_stderr, 2);
}

static void log_capture(void)
{
	int fd = mkstemp(log_path);

	CHECK(fd >= 0);
	real_stderr = dup(2);
	CHECK(real_stderr >= 0);
	CHECK(dup2(fd, 2) == 2);
	close(fd);
	setvbuf(stderr, NULL, _IONBF, 0);
	CHECK_EQ(atexit(log_copy_back), 0);
}

static bool log_has(const char *what)
{
	static char text[1 << 20];
	ssize_t n;
	int fd = open(log_path, O_RDONLY);

	CHECK(fd >= 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	CHECK(n >= 0);
	text[n] = '\0';
	return strstr(text, what) != NULL;
}

/* One message from s to r: its receive posted first (before) or after
 * the message had time to arrive; both completions read, the receive's
 * checked (length, bytes, FI_SOURCE). */
static void exchange(struct ep **all, struct ep *s, struct ep *r,
		     fi_addr_t dest, fi_addr_t src_at_r, size_t size,
		     bool tagged, bool before, uint8_t *out, uint8_t *in)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	uint64_t tag = 0x5100 + size;
	bool sent = false, got = false;
	fi_addr_t src = FI_ADDR_NOTAVAIL;
	ssize_t ret;
	int i;

	fill(out, size, (unsigned)size + tagged);
	memset(in, 0, size + 16);
	for (i = 0; i < 2; i++) {
		if (i == (before ? 1 : 0)) {
			do {
				ret = tagged ?
				      fi_tsend(s->ep, out, size, NULL, dest,
					       tag, out) :
				      fi_send(s->ep, out, size, NULL, dest,
					      out);
				if (ret == -FI_EAGAIN)
					drive(all, 2);
			} while (ret == -FI_EAGAIN);
			CHECK_EQ(ret, 0);
			/* long enough for it to arrive unexpected */
			for (int k = 0; !before && k < 200; k++)
				drive(all, 2);
			continue;
		}
		/* directed when tagged: only this sender matches */
		ret = tagged ? fi_trecv(r->ep, in, size + 16, NULL, src_at_r,
					tag, 0, in) :
			       fi_recv(r->ep, in, size + 16, NULL,
				       FI_ADDR_UNSPEC, in);
		CHECK_EQ(ret, 0);
	}
	while (!sent || !got) {
		if (!sent) {
			ret = fi_cq_read(s->cq, &e, 1);
			if (ret == -FI_EAVAIL) {
				CHECK_EQ(fi_cq_readerr(s->cq, &err, 0), 1);
				fprintf(stderr, "send error %d\n", err.err);
				CHECK(0);
			}
			if (ret == 1) {
				CHECK(e.op_context == out);
				sent = true;
				rxm_test_beat();
			}
		}
		if (!got) {
			ret = fi_cq_readfrom(r->cq, &e, 1, &src);
			if (ret == -FI_EAVAIL) {
				CHECK_EQ(fi_cq_readerr(r->cq, &err, 0), 1);
				fprintf(stderr, "receive error %d\n", err.err);
				CHECK(0);
			}
			if (ret == 1) {
				CHECK(e.op_context == in);
				CHECK_EQ(e.len, size);
				CHECK(e.flags & FI_RECV);
				CHECK(!!(e.flags & FI_TAGGED) == tagged);
				if (tagged)
					CHECK_EQ(e.tag, tag);
				CHECK_EQ(src, src_at_r);
				CHECK(!memcmp(in, out, size));
				got = true;
				rxm_test_beat();
			}
		}
	}
}

/* Wait for one completion on e's CQ: 1, or -1 with err filled. */
static int wait_self(struct ep *e, struct fi_cq_err_entry *err)
{
	struct ep *all[1] = { e };
	struct fi_cq_tagged_entry ce;

	return wait_one(all, 1, e->cq, &ce, err, NULL);
}

static void send_self(struct ep *e, fi_addr_t dest, void *buf, size_t len)
{
	ssize_t ret;

	do {
		ret = fi_tsend(e->ep, buf, len, NULL, dest, 7, buf);
		if (ret == -FI_EAGAIN)
			(void)fi_cq_read(e->cq, NULL, 0);
	} while (ret == -FI_EAGAIN);
	CHECK_EQ(ret, 0);
}

static void scenario_dead(bool fallback)
{
	int to_child[2], to_parent[2];
	struct fi_cq_err_entry err;
	struct ep me;
	char name[64];
	size_t namelen;
	uint8_t buf[100000];
	fi_addr_t peer;
	pid_t pid;
	int st;

	CHECK(!pipe(to_child) && !pipe(to_parent));
	pid = fork();
	CHECK(pid >= 0);
	/* before the child's first fi_* call: read once */
	if (!pid && fallback)
		CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", "0", 1), 0);
	ep_open(&me);
	namelen = me.namelen;
	CHECK(write(pid ? to_child[1] : to_parent[1], me.name, namelen) ==
	      (ssize_t)namelen);
	CHECK(read(pid ? to_parent[0] : to_child[0], name, namelen) ==
	      (ssize_t)namelen);
	CHECK_EQ(fi_av_insert(me.av, name, 1, &peer, 0, NULL), 1);
	if (!pid) {
		/* the child: messages in (checked for order), one out, then
		 * it dies, or closes when it is the fallback's */
		for (int k = 0; k < (fallback ? 3 : 1); k++) {
			CHECK_EQ(fi_trecv(me.ep, buf, sizeof(buf), NULL, peer,
					  7, 0, buf), 0);
			CHECK_EQ(wait_self(&me, &err), 1);
			CHECK_EQ(buf[0], 1 + k);
		}
		send_self(&me, peer, buf, sizeof(buf));
		CHECK_EQ(wait_self(&me, &err), 1);
		if (fallback) {
			/* the parent's receive done: then we may go */
			CHECK(read(to_child[0], name, 1) == 1);
			ep_close(&me);
		}
		_exit(0);
	}
	/* three sends at once, small and large: their order survives the
	 * move to tcp */
	static uint8_t bufs[3][100000];

	for (int k = 0; k < (fallback ? 3 : 1); k++) {
		memset(bufs[k], 1 + k, sizeof(bufs[k]));
		send_self(&me, peer, bufs[k], k == 1 ? 8 : sizeof(bufs[k]));
	}
	CHECK_EQ(fi_trecv(me.ep, buf, sizeof(buf), NULL, peer, 7, 0, buf), 0);
	/* our sends' completions and the child's message, in any order */
	for (int k = 0; k < (fallback ? 4 : 2); k++)
		CHECK_EQ(wait_self(&me, &err), 1);
	if (fallback)
		CHECK(write(to_child[1], "x", 1) == 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (fallback) {
		CHECK(log_has("has no shm endpoint: its messages go over the "
			      "core"));
		ep_close(&me);
		return;
	}
	phase = "dead: a send to a peer that died";
	send_self(&me, peer, buf, sizeof(buf));
	CHECK_EQ(wait_self(&me, &err), -1);
	CHECK(err.err != 0);
	CHECK(log_has("peer reached over shm"));
	ep_close(&me);
}

/* e as ep_open, its AV named (a named AV has no shm twin: e has no shm
 * endpoint, its peers reach it over tcp). */
static void ep_open_named(struct ep *e)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
	char name[64];
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .count = 16,
				      .name = name };

	(void)snprintf(name, sizeof(name), "/rxm-shm-mixed-%d", getpid());
	memset(e, 0, sizeof(*e));
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			    hints, &e->info), 0);
	fi_freeinfo(hints);
	CHECK_EQ(fi_fabric(e->info->fabric_attr, &e->fabric, NULL), 0);
	CHECK_EQ(fi_domain(e->fabric, e->info, &e->domain, NULL), 0);
	CHECK_EQ(fi_cq_open(e->domain, &cq_attr, &e->cq, NULL), 0);
	CHECK_EQ(fi_av_open(e->domain, &av_attr, &e->av, NULL), 0);
	CHECK_EQ(fi_endpoint(e->domain, e->info, &e->ep, NULL), 0);
	CHECK_EQ(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV), 0);
	CHECK_EQ(fi_ep_bind(e->ep, &e->av->fid, 0), 0);
	CHECK_EQ(fi_enable(e->ep), 0);
	e->namelen = sizeof(e->name);
	CHECK_EQ(fi_getname(&e->ep->fid, e->name, &e->namelen), 0);
}

/* A hears from B over shm and from C over tcp at once: any-source
 * receives, many messages of mixed sizes, each sender's order checked. */
static void scenario_mixed(void)
{
	enum { N = 200, BIGM = 40000 };
	/* a send's buffer stays until its completion: one per message */
	static uint8_t rbuf[N * 2][BIGM], sb[N][BIGM], sc[N][BIGM];
	struct ep a, b, c, *all[3] = { &a, &b, &c };
	fi_addr_t b_at_a, c_at_a, a_at_b, a_at_c, src;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	unsigned next_b = 0, next_c = 0, got = 0, sent = 0, k;
	unsigned sb_i = 0, sc_i = 0;
	static uint8_t from[N * 2];	/* 1: B, 2: C, by receive slot */
	ssize_t ret;

	ep_open(&a);
	ep_open(&b);
	ep_open_named(&c);
	b_at_a = insert(&a, &b);
	c_at_a = insert(&a, &c);
	a_at_b = insert(&b, &a);
	a_at_c = insert(&c, &a);
	for (k = 0; k < 2 * N; k++)
		CHECK_EQ(fi_trecv(a.ep, rbuf[k], sizeof(rbuf[k]), NULL,
				  FI_ADDR_UNSPEC, 9, 0, rbuf[k]), 0);
	while (got < 2 * N || sent < 2 * N) {
		/* one from each sender when it can; the size by index */
		if (sb_i < N) {
			size_t len = (sb_i % 3 == 0) ? BIGM : 16 + sb_i;

			memset(sb[sb_i], (int)(sb_i & 0xff), len);
			ret = fi_tsend(b.ep, sb[sb_i], len, NULL, a_at_b, 9,
				       NULL);
			if (!ret)
				sb_i++;
			else
				CHECK_EQ(ret, -FI_EAGAIN);
		}
		if (sc_i < N) {
			size_t len = (sc_i % 3 == 1) ? BIGM : 16 + sc_i;

			memset(sc[sc_i], (int)((sc_i + 128) & 0xff), len);
			ret = fi_tsend(c.ep, sc[sc_i], len, NULL, a_at_c, 9,
				       NULL);
			if (!ret)
				sc_i++;
			else
				CHECK_EQ(ret, -FI_EAGAIN);
		}
		for (int i = 1; i < 3; i++) {
			ret = fi_cq_read(all[i]->cq, &e, 1);
			if (ret == -FI_EAVAIL) {
				CHECK_EQ(fi_cq_readerr(all[i]->cq, &err, 0), 1);
				fprintf(stderr, "send error %d\n", err.err);
				CHECK(0);
			}
			if (ret == 1) {
				sent++;
				rxm_test_beat();
			}
		}
		ret = fi_cq_readfrom(a.cq, &e, 1, &src);
		if (ret == -FI_EAVAIL) {
			CHECK_EQ(fi_cq_readerr(a.cq, &err, 0), 1);
			fprintf(stderr, "recv error %d\n", err.err);
			CHECK(0);
		}
		if (ret == 1) {
			/* completions may come out of order (a rendezvous
			 * completes after a later eager message); matching
			 * may not: checked below, slot by slot */
			CHECK(src == b_at_a || src == c_at_a);
			from[(uint8_t(*)[BIGM])e.op_context - rbuf] =
				src == b_at_a ? 1 : 2;
			got++;
			rxm_test_beat();
		}
	}
	/* each sender's messages took the receives in posting order */
	for (k = 0; k < 2 * N; k++) {
		if (from[k] == 1) {
			CHECK_EQ(rbuf[k][0], next_b & 0xff);
			next_b++;
		} else {
			CHECK_EQ(from[k], 2);
			CHECK_EQ(rbuf[k][0], (next_c + 128) & 0xff);
			next_c++;
		}
	}
	/* B went by shm; C has none (its AV is named), so it used tcp */
	CHECK(log_has("peer reached over shm"));
	ep_close(&c);
	ep_close(&b);
	ep_close(&a);
}

/* An address that is no interface's here (TEST-NET-1, RFC 5737) goes
 * into e's AV first: a remote peer, which the shm twin does not hold, so
 * that the node-local peers inserted after it have one index in the AV
 * and another in the twin, as on a host whose job also spans others. No
 * message is ever sent to it. */
static void insert_remote(struct ep *e)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(9) };
	fi_addr_t fa;

	CHECK_EQ(inet_pton(AF_INET, "192.0.2.1", &sin.sin_addr), 1);
	CHECK_EQ(fi_av_insert(e->av, &sin, 1, &fa, 0, NULL), 1);
	CHECK_EQ(fa, 0);
}

/* Messages that reach A over shm before A has B in its AV (as Open MPI
 * inserts a peer only when it first talks to it): queued without a
 * source, they must take B's address once A inserts it, so that the
 * directed receives A posts then match them, in order, with FI_SOURCE
 * B. A's AV holds a remote address first, so that B's index in the AV
 * (1) is not its index in the shm twin (0). */
static void scenario_late(void)
{
	enum { N = 4 };
	static const size_t len[N] = { 8, 100, 3000, 8 };
	static uint8_t out[N][3000], in[N][3000 + 16];
	struct ep a, b, *all[2] = { &a, &b };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	fi_addr_t a_at_b, b_at_a, src;
	unsigned sent = 0;
	ssize_t ret;
	int k;

	ep_open(&a);
	ep_open(&b);
	insert_remote(&a);
	a_at_b = insert(&b, &a);
	/* tagged (two with one tag: their order counts) and untagged */
	for (k = 0; k < N; k++) {
		fill(out[k], len[k], 40 + (unsigned)k);
		do {
			ret = k == 1 ?
			      fi_send(b.ep, out[k], len[k], NULL, a_at_b,
				      out[k]) :
			      fi_tsend(b.ep, out[k], len[k], NULL, a_at_b,
				       0x77, out[k]);
			if (ret == -FI_EAGAIN)
				drive(all, 2);
		} while (ret == -FI_EAGAIN);
		CHECK_EQ(ret, 0);
	}
	/* time to arrive: A queues them, from a sender it does not know */
	for (k = 0; k < 500; k++)
		drive(all, 2);
	b_at_a = insert(&a, &b);
	CHECK_EQ(b_at_a, 1);
	for (k = 0; k < N; k++)
		CHECK_EQ(k == 1 ?
			 fi_recv(a.ep, in[k], sizeof(in[k]), NULL, b_at_a,
				 in[k]) :
			 fi_trecv(a.ep, in[k], sizeof(in[k]), NULL, b_at_a,
				  0x77, 0, in[k]), 0);
	for (k = 0; k < N; k++) {
		src = FI_ADDR_NOTAVAIL;
		CHECK_EQ(wait_one(all, 2, a.cq, &e, &err, &src), 1);
		CHECK(e.flags & FI_RECV);
		CHECK_EQ(src, b_at_a);
	}
	for (k = 0; k < N; k++)
		CHECK(!memcmp(in[k], out[k], len[k]));
	while (sent < N) {
		CHECK_EQ(wait_one(all, 2, b.cq, &e, &err, NULL), 1);
		sent++;
	}
	CHECK(log_has("peer reached over shm"));
	ep_close(&b);
	ep_close(&a);
}

/* A's receive counter (bound to A's rxm endpoint; arg: where to keep
 * it), closed with A by ep_close. */
static void bind_recv_cntr(struct ep *e, void *arg)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_UNSPEC };
	struct fid_cntr **c = arg;

	CHECK_EQ(fi_cntr_open(e->domain, &attr, c, NULL), 0);
	CHECK_EQ(fi_ep_bind(e->ep, &(*c)->fid, FI_RECV), 0);
	e->extra[e->nextra++] = &(*c)->fid;
}

/* The receive counter an application bound to its rxm endpoint counts
 * the messages that came over shm (as fi_rdm_cntr_pingpong waits on
 * it): three, of three sizes, and fi_cntr_wait returns. */
static void scenario_cntr(void)
{
	static uint8_t out[3][20000], in[3][20000];
	static const size_t len[3] = { 8, 3000, 20000 };
	struct ep a, b, *all[2] = { &a, &b };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fid_cntr *rc = NULL;
	fi_addr_t a_at_b, b_at_a;
	int k;

	ep_open_with(&a, 0, 0, bind_recv_cntr, &rc);
	ep_open(&b);
	b_at_a = insert(&a, &b);
	a_at_b = insert(&b, &a);
	for (k = 0; k < 3; k++)
		CHECK_EQ(fi_trecv(a.ep, in[k], len[k], NULL, b_at_a, 0x10 + k,
				  0, in[k]), 0);
	for (k = 0; k < 3; k++) {
		fill(out[k], len[k], 60 + (unsigned)k);
		send_one(all, 2, &b, out[k], len[k], a_at_b, true, 0x10 + k);
	}
	for (k = 0; k < 3; k++)
		CHECK_EQ(wait_one(all, 2, a.cq, &e, &err, NULL), 1);
	/* the wait drives progress itself (FI_WAIT_UNSPEC) */
	CHECK_EQ(fi_cntr_wait(rc, 3, 10000), 0);
	CHECK_EQ(fi_cntr_read(rc), 3);
	CHECK_EQ(fi_cntr_readerr(rc), 0);
	for (k = 0; k < 3; k++)
		CHECK(!memcmp(in[k], out[k], len[k]));
	CHECK(log_has("peer reached over shm"));
	ep_close(&b);
	ep_close(&a);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 0, 8, 1000, 20000, 70000, 300000 };
	const char *s = argc > 1 ? argv[1] : "";
	bool shm = !strcmp(s, "shm") || !strcmp(s, "shm_auto");
	uint8_t *out = malloc(300016), *in = malloc(300016);
	struct ep a, b, *all[2] = { &a, &b };
	fi_addr_t b_at_a, a_at_b;

	bool two = !strcmp(s, "dead") || !strcmp(s, "fallback");
	bool mixed = !strcmp(s, "mixed");
	bool offset = !strcmp(s, "offset");
	bool late = !strcmp(s, "late");
	bool cntr = !strcmp(s, "cntr");

	if (strcmp(s, "shm") && strcmp(s, "tcp") && strcmp(s, "shm_auto") &&
	    !two && !mixed && !offset && !late && !cntr) {
		fprintf(stderr, "usage: %s shm|tcp|shm_auto|dead|fallback|mixed|offset|late|cntr\n",
			argv[0]);
		return 2;
	}
	shm = shm || two || mixed || offset || late || cntr;
	if (!strcmp(s, "shm_auto"))
		rxm_test_progress = FI_PROGRESS_AUTO;
	CHECK(out && in);
	/* before the first fi_* call: variables are read once */
	CHECK_EQ(setenv("FI_OFI_RXM_USE_SHM", shm ? "1" : "0", 1), 0);
	CHECK_EQ(setenv("FI_LOG_LEVEL", "info", 1), 0);
	CHECK_EQ(setenv("FI_LOG_PROV", "ofi_rxm", 1), 0);
	log_capture();
	rxm_test_start();
	if (cntr) {
		scenario_cntr();
		free(out);
		free(in);
		printf("ok: %s\n", s);
		return 0;
	}
	if (late) {
		scenario_late();
		free(out);
		free(in);
		printf("ok: %s\n", s);
		return 0;
	}
	if (mixed) {
		scenario_mixed();
		free(out);
		free(in);
		printf("ok: %s\n", s);
		return 0;
	}
	if (two) {
		scenario_dead(!strcmp(s, "fallback"));
		free(out);
		free(in);
		printf("ok: %s\n", s);
		return 0;
	}
	ep_open(&a);
	ep_open(&b);
	if (offset)
		insert_remote(&a);
	b_at_a = insert(&a, &b);
	a_at_b = insert(&b, &a);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int k = 0; k < 8; k++) {
			bool tagged = k & 1, before = k & 2, back = k & 4;

			phase = "exchange";
			if (back)
				exchange(all, &b, &a, a_at_b, b_at_a, sizes[i],
					 tagged, before, out, in);
			else
				exchange(all, &a, &b, b_at_a, a_at_b, sizes[i],
					 tagged, before, out, in);
		}
	CHECK_EQ(log_has("peer reached over shm"), shm);
	/* left unreceived at close, both kinds: the close drops them
	 * (the domains close too, so nothing of shm's stays open) */
	phase = "close with messages queued";
	fill(out, 70000, 3);
	CHECK_EQ(fi_tsend(a.ep, out, 8, NULL, b_at_a, 1, out), 0);
	CHECK_EQ(fi_send(a.ep, out, 70000, NULL, b_at_a, out), 0);
	for (int k = 0; k < 200; k++)
		drive(all, 2);
	ep_close(&b);
	ep_close(&a);
	free(out);
	free(in);
	printf("ok: %s\n", s);
	return 0;
}
