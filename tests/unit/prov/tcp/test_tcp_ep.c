/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp provider end to end through the public API: the server runs in
 * this process, the client in a fork()ed child, over 127.0.0.1 on a port
 * the kernel picks (suite integration). One scenario per run, named by
 * argv[1]:
 *
 *   cm       connect with 200 bytes of CM data (FI_CONNREQ carries them,
 *            with an fi_info that has a handle and the peer's address),
 *            accept with 100 bytes (FI_CONNECTED carries them), names
 *            agree across the sides; a reject with data reaches the
 *            client as an FI_ECONNREFUSED error event with that data; a
 *            port nobody listens on gives FI_ECONNREFUSED; CM data over
 *            FI_OPT_CM_DATA_SIZE is refused with -FI_EINVAL; fi_shutdown
 *            on the client gives FI_SHUTDOWN on the server's EQ (which
 *            the server only reads: control progress is automatic);
 *            closing the client's endpoint leaves no event of it in
 *            the client's EQ
 *   storm    1,000 connect / accept / one message / shutdown / close
 *            cycles (endpoints new each cycle, the listener kept; the
 *            side that calls fi_shutdown takes an FI_SHUTDOWN of its own
 *            if one is queued and closes, the other waits for
 *            FI_SHUTDOWN); no event of a closed endpoint is left in an
 *            EQ; open fds and RSS of both processes do not grow
 *            between cycle 100 and cycle 1000 beyond a small slack
 *   sizes    tcp_test_xfer.c;  rma, auto: tcp_test_rma.c
 *   rma_iov  tcp_test_rma_iov.c
 *   kill     tcp_test_fail.c
 *   trywait, trywait_big, trywait_rma, burst   tcp_test_wait.c
 *   held                                       tcp_test_held.c
 *   spin_wait                                  tcp_test_spin.c
 *   srx_cancel                                 tcp_test_srx.c
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp_test.h"

/* fi_close(ep) leaves no event of that endpoint in the EQ (its fid is
 * gone: the application could not tell it from the next endpoint). */
static void no_stale_event(struct tt_side *t)
{
	uint8_t buf[sizeof(struct fi_eq_cm_entry) + 64];
	uint32_t ev;
	ssize_t n = fi_eq_read(t->eq, &ev, buf, sizeof(buf), 0);

	if (n >= 0)
		fprintf(stderr, "event %u delivered after its endpoint was "
			"closed\n", ev);
	TT_EQ(n, -FI_EAGAIN);
}

/* ---- cm ---- */

#define CM_REQ_LEN 200
#define CM_ACC_LEN 100
#define CM_REJ_REQ_LEN 50
#define CM_REJ_LEN 60

static void cm_names(struct fid_ep *ep, uint8_t *out)
{
	size_t len = sizeof(struct sockaddr_in);

	memset(out, 0, 32);
	TT_EQ(fi_getname(&ep->fid, out, &len), 0);
	TT_EQ(len, sizeof(struct sockaddr_in));
	len = sizeof(struct sockaddr_in);
	TT_EQ(fi_getpeer(ep, out + 16, &len), 0);
	TT_EQ(len, sizeof(struct sockaddr_in));
}

static void cm_client(void *arg)
{
	uint8_t data[CM_REQ_LEN], rdata[512], names[32], *big;
	struct sockaddr_in *peer = (void *)(names + 16), dead;
	socklen_t dlen = sizeof(dead);
	struct fi_eq_err_entry err;
	struct fi_eq_entry ev;
	uint32_t evno;
	struct fid_ep *ep1;
	struct tt_opts o = { 0 };
	struct tt_side c;
	size_t max = 0, olen = sizeof(max), rlen = sizeof(rdata);
	int sock;
	ssize_t r;

	(void)arg;
	tt_watch("cm client: connect", TT_WATCHDOG_S);
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	tt_client_ep(&c);

	/* CM data past the limit is refused at the call */
	TT_EQ(fi_getopt(&c.ep->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE,
			&max, &olen), 0);
	TT_CHECK(max >= CM_REQ_LEN);
	big = calloc(1, max + 1);
	TT_CHECK(big);
	TT_EQ(fi_connect(c.ep, c.info->dest_addr, big, max + 1),
	      -FI_EINVAL);
	free(big);

	tt_fill(data, CM_REQ_LEN, 1);
	tt_client_connect(&c, data, CM_REQ_LEN, rdata, &rlen);
	TT_EQ(rlen, CM_ACC_LEN);
	TT_EQ(tt_verify(rdata, rlen, 2), -1);

	/* our peer is the listener's address and port */
	cm_names(c.ep, names);
	TT_EQ(peer->sin_family, AF_INET);
	TT_EQ(peer->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	TT_EQ(ntohs(peer->sin_port), atomic_load(&tt_board->port));
	memcpy(tt_board->bytes + 32, names, 32);
	tt_step(TT_CLIENT, 1);
	tt_wait_step(TT_SERVER, 1, NULL, NULL);
	/* server's name is our peer, its peer is our name */
	TT_CHECK(!memcmp(tt_board->bytes, names + 16, 16));
	TT_CHECK(!memcmp(tt_board->bytes + 16, names, 16));

	/* a second endpoint is rejected, with the server's data */
	tt_watch("cm client: rejected", TT_WATCHDOG_S);
	ep1 = c.ep;
	c.ep = NULL;
	tt_client_ep(&c);
	tt_fill(data, CM_REJ_REQ_LEN, 3);
	TT_EQ(fi_connect(c.ep, c.info->dest_addr, data, CM_REJ_REQ_LEN), 0);
	tt_eq_wait_err(&c, &err);
	TT_CHECK(err.fid == &c.ep->fid);
	TT_EQ(err.err, FI_ECONNREFUSED);
	TT_EQ(err.err_data_size, CM_REJ_LEN);
	TT_CHECK(err.err_data);
	TT_EQ(tt_verify(err.err_data, CM_REJ_LEN, 4), -1);
	tt_close_ep(&c);

	/* a port bound but not listening refuses */
	tt_watch("cm client: nobody listens", TT_WATCHDOG_S);
	sock = socket(AF_INET, SOCK_STREAM, 0);
	TT_CHECK(sock >= 0);
	memset(&dead, 0, sizeof(dead));
	dead.sin_family = AF_INET;
	dead.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	TT_EQ(bind(sock, (void *)&dead, sizeof(dead)), 0);
	TT_EQ(getsockname(sock, (void *)&dead, &dlen), 0);
	tt_client_ep(&c);
	r = fi_connect(c.ep, &dead, NULL, 0);
	if (r == 0) {
		tt_eq_wait_err(&c, &err);
		TT_CHECK(err.fid == &c.ep->fid);
		TT_EQ(err.err, FI_ECONNREFUSED);
	} else {
		TT_EQ(r, -FI_ECONNREFUSED);
	}
	tt_close_ep(&c);
	close(sock);

	/* no stray event was left by the failed endpoints */
	TT_EQ(fi_eq_read(c.eq, &evno, &ev, sizeof(ev), 0), -FI_EAGAIN);

	/* shutdown: the server gets FI_SHUTDOWN */
	tt_watch("cm client: shutdown", TT_WATCHDOG_S);
	c.ep = ep1;
	TT_EQ(fi_shutdown(c.ep, 0), 0);
	/* whatever this side's EQ got for the endpoint goes with it */
	tt_close_ep(&c);
	no_stale_event(&c);
	tt_wait_step(TT_SERVER, 2, NULL, NULL);
	tt_close(&c);
}

int tt_scn_cm(void)
{
	uint8_t data[512], names[32], buf[sizeof(struct fi_eq_cm_entry) + 64];
	struct fi_eq_cm_entry *e = (void *)buf;
	struct sockaddr_in *dest;
	struct tt_opts o = { 0 };
	struct tt_side s;
	size_t len = sizeof(data);

	tt_board_init();
	tt_spawn(cm_client, NULL);
	tt_watch("cm server: connreq", TT_WATCHDOG_S);
	tt_server_listen(&s, &o);
	tt_server_connreq(&s, data, &len);
	TT_EQ(len, CM_REQ_LEN);
	TT_EQ(tt_verify(data, len, 1), -1);
	TT_CHECK(s.conn_info->handle != NULL);
	TT_CHECK(s.conn_info->dest_addr != NULL);
	TT_CHECK(s.conn_info->dest_addrlen >= sizeof(*dest));
	dest = s.conn_info->dest_addr;
	TT_EQ(dest->sin_family, AF_INET);
	TT_EQ(dest->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	TT_CHECK(dest->sin_port != 0);
	TT_CHECK(!strcmp(s.conn_info->fabric_attr->prov_name, "tcp"));

	tt_fill(data, CM_ACC_LEN, 2);
	tt_watch("cm server: accept", TT_WATCHDOG_S);
	tt_server_accept(&s, data, CM_ACC_LEN);
	cm_names(s.ep, names);
	/* the request's address is the peer's */
	TT_CHECK(!memcmp(names + 16, s.conn_info->dest_addr, 8));
	memcpy(tt_board->bytes, names, 32);
	tt_step(TT_SERVER, 1);
	tt_wait_step(TT_CLIENT, 1, NULL, NULL);
	TT_CHECK(!memcmp(tt_board->bytes + 32, names + 16, 16));
	TT_CHECK(!memcmp(tt_board->bytes + 48, names, 16));

	/* reject the second request, with data */
	tt_watch("cm server: reject", TT_WATCHDOG_S);
	len = sizeof(data);
	tt_server_connreq(&s, data, &len);
	TT_EQ(len, CM_REJ_REQ_LEN);
	TT_EQ(tt_verify(data, len, 3), -1);
	tt_fill(data, CM_REJ_LEN, 4);
	TT_EQ(fi_reject(s.pep, s.conn_info->handle, data, CM_REJ_LEN), 0);

	/* the client shuts down: we only read our EQ */
	tt_watch("cm server: FI_SHUTDOWN on the EQ", TT_WATCHDOG_S);
	tt_eq_wait(&s, FI_SHUTDOWN, buf, sizeof(buf), NULL, NULL);
	TT_CHECK(e->fid == &s.ep->fid);
	tt_step(TT_SERVER, 2);
	TT_EQ(tt_join(), 0);
	tt_close(&s);
	return 0;
}

/* ---- storm ---- */

#define STORM_CYCLES 1000
#define STORM_FIRST 100
#define STORM_FD_SLACK 2
#define STORM_RSS_SLACK (2ll << 20)

/* AddressSanitizer keeps freed memory in quarantine (256 MiB by default),
 * so RSS grows with every cycle whatever the code does: under it the
 * storm checks descriptors only, and LeakSanitizer checks memory at
 * exit. */
#if defined(__SANITIZE_ADDRESS__)
#define STORM_CHECK_RSS 0
#else
#define STORM_CHECK_RSS 1
#endif

/* The side that shuts down in cycle i; the other waits FI_SHUTDOWN. */
#define STORM_SERVER_SHUTS(i) ((i) % 2 == 0)

static void storm_wait_shutdown(struct tt_side *t)
{
	uint8_t buf[sizeof(struct fi_eq_cm_entry) + 64];
	struct fi_eq_cm_entry *e = (void *)buf;

	/* drive the data path too: this is about resources, not about
	 * which call notices the peer's close */
	tt_eq_wait(t, FI_SHUTDOWN, buf, sizeof(buf), tt_poke_empty, t);
	TT_CHECK(e->fid == &t->ep->fid);
}

/* The side that called fi_shutdown: an FI_SHUTDOWN of its own may be
 * queued already; take it before the close. */
static void storm_own_shutdown(struct tt_side *t)
{
	uint8_t buf[sizeof(struct fi_eq_cm_entry) + 64];
	struct fi_eq_cm_entry *e = (void *)buf;
	uint32_t ev;
	ssize_t n;

	TT_EQ(fi_shutdown(t->ep, 0), 0);
	n = fi_eq_read(t->eq, &ev, buf, sizeof(buf), 0);
	if (n == -FI_EAGAIN)
		return;
	if (n == -FI_EAVAIL) {
		struct fi_eq_err_entry err = { 0 };

		TT_CHECK(fi_eq_readerr(t->eq, &err, 0) > 0);
		fprintf(stderr, "error event after fi_shutdown: err %d (%s), "
			"fid %p (ours %p)\n", err.err, fi_strerror(err.err),
			(void *)err.fid, (void *)&t->ep->fid);
	}
	TT_CHECK(n >= (ssize_t)sizeof(struct fi_eq_cm_entry));
	TT_EQ(ev, FI_SHUTDOWN);
	TT_CHECK(e->fid == &t->ep->fid);
}

static void storm_sample(int i, int *fds, long long *rss)
{
	if (i == STORM_FIRST) {
		fds[0] = tt_count_fds();
		rss[0] = tt_rss();
	} else if (i == STORM_CYCLES) {
		fds[1] = tt_count_fds();
		rss[1] = tt_rss();
	}
}

static char phase[64];

static void storm_client(void *arg)
{
	struct fi_cq_tagged_entry e;
	struct tt_opts o = { 0 };
	struct tt_side c;
	int fds[2] = { 0 };
	long long rss[2] = { 0 };
	uint64_t msg;

	(void)arg;
	while (!atomic_load(&tt_board->port))
		usleep(100);
	tt_client_open(&c, &o, atomic_load(&tt_board->port));
	for (int i = 1; i <= STORM_CYCLES; i++) {
		snprintf(phase, sizeof(phase), "storm client: cycle %d", i);
		tt_watch(phase, TT_WATCHDOG_S);
		tt_client_ep(&c);
		tt_client_connect(&c, NULL, 0, NULL, NULL);
		msg = (uint64_t)i;
		TT_EQ(fi_send(c.ep, &msg, sizeof(msg), NULL, 0, &msg), 0);
		tt_cq_wait(c.txcq, &e);
		TT_CHECK(e.op_context == &msg);
		if (STORM_SERVER_SHUTS(i))
			storm_wait_shutdown(&c);
		else
			storm_own_shutdown(&c);
		tt_close_ep(&c);
		no_stale_event(&c);
		/* lock step: the next request must not overtake this
		 * connection's FI_SHUTDOWN on the server's EQ */
		tt_wait_step(TT_SERVER, i, NULL, NULL);
		storm_sample(i, fds, rss);
	}
	atomic_store(&tt_board->val[0], (uint64_t)fds[0]);
	atomic_store(&tt_board->val[1], (uint64_t)fds[1]);
	atomic_store(&tt_board->val[2], (uint64_t)rss[0]);
	atomic_store(&tt_board->val[3], (uint64_t)rss[1]);
	tt_close(&c);
}

int tt_scn_storm(void)
{
	struct fi_cq_tagged_entry e;
	struct tt_opts o = { 0 };
	struct tt_side s;
	int fds[2] = { 0 }, cfds[2];
	long long rss[2] = { 0 }, crss[2];
	uint64_t msg;

	tt_board_init();
	tt_spawn(storm_client, NULL);
	tt_server_listen(&s, &o);
	for (int i = 1; i <= STORM_CYCLES; i++) {
		snprintf(phase, sizeof(phase), "storm server: cycle %d", i);
		tt_watch(phase, TT_WATCHDOG_S);
		tt_server_connreq(&s, NULL, NULL);
		tt_server_accept(&s, NULL, 0);
		msg = 0;
		TT_EQ(fi_recv(s.ep, &msg, sizeof(msg), NULL, 0, &msg), 0);
		tt_cq_wait(s.rxcq, &e);
		TT_EQ(e.len, sizeof(msg));
		TT_EQ(msg, (uint64_t)i);
		if (STORM_SERVER_SHUTS(i))
			storm_own_shutdown(&s);
		else
			storm_wait_shutdown(&s);
		tt_close_ep(&s);
		no_stale_event(&s);
		tt_step(TT_SERVER, i);
		storm_sample(i, fds, rss);
	}
	tt_watch("storm server: join", TT_WATCHDOG_S);
	TT_EQ(tt_join(), 0);
	cfds[0] = (int)tt_board->val[0];
	cfds[1] = (int)tt_board->val[1];
	crss[0] = (long long)tt_board->val[2];
	crss[1] = (long long)tt_board->val[3];
	printf("server: fds %d -> %d, rss %lld -> %lld KiB\n", fds[0], fds[1],
	       rss[0] >> 10, rss[1] >> 10);
	printf("client: fds %d -> %d, rss %lld -> %lld KiB\n", cfds[0],
	       cfds[1], crss[0] >> 10, crss[1] >> 10);
	TT_CHECK(fds[1] <= fds[0] + STORM_FD_SLACK);
	TT_CHECK(cfds[1] <= cfds[0] + STORM_FD_SLACK);
	if (STORM_CHECK_RSS) {
		TT_CHECK(rss[1] <= rss[0] + STORM_RSS_SLACK);
		TT_CHECK(crss[1] <= crss[0] + STORM_RSS_SLACK);
	} else {
		printf("RSS not checked under AddressSanitizer (quarantine)\n");
	}
	tt_close(&s);
	return 0;
}

/* ---- entry ---- */

static const struct {
	const char *name;
	int (*fn)(void);
} scenarios[] = {
	{ "cm", tt_scn_cm },
	{ "storm", tt_scn_storm },
	{ "sizes", tt_scn_sizes },
	{ "rma", tt_scn_rma },
	{ "rma_iov", tt_scn_rma_iov },
	{ "auto", tt_scn_auto },
	{ "kill", tt_scn_kill },
	{ "trywait", tt_scn_trywait },
	{ "trywait_big", tt_scn_trywait_big },
	{ "trywait_rma", tt_scn_trywait_rma },
	{ "burst", tt_scn_burst },
	{ "held", tt_scn_held },
	{ "spin_wait", tt_scn_spin_wait },
	{ "srx_cancel", tt_scn_srx_cancel },
};

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; argc == 2 && i < sizeof(scenarios) / sizeof(scenarios[0]);
	     i++)
		if (!strcmp(argv[1], scenarios[i].name))
			return scenarios[i].fn();
	fprintf(stderr, "usage: %s SCENARIO (cm, storm, sizes, rma, auto, "
		"rma_iov, kill, trywait, trywait_big, trywait_rma, burst, "
		"held, spin_wait, srx_cancel)\n",
		argv[0]);
	return 2;
}
