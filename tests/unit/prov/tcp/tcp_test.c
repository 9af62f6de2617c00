/* SPDX-License-Identifier: BSD-2-Clause */
/* Helpers of the tcp end-to-end tests (tcp_test.h). */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "tcp_test.h"

pid_t tt_child;
static bool tt_is_child;
const char *tt_phase = "start";
struct tt_board *tt_board;
volatile sig_atomic_t tt_child_may_die;
static volatile sig_atomic_t tt_child_reaped;
static int tt_child_status;

/* A child that fails ends the test at once (the parent would otherwise
 * wait for a peer that is gone until its watchdog fires). */
static void tt_on_child(int sig)
{
	char msg[160];
	int st, n, saved = errno;	/* the interrupted code's errno */

	(void)sig;
	if (tt_child <= 0 || waitpid(tt_child, &st, WNOHANG) != tt_child) {
		errno = saved;
		return;
	}
	tt_child_status = st;
	tt_child_reaped = 1;
	if (tt_child_may_die || (WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		errno = saved;
		return;
	}
	n = snprintf(msg, sizeof(msg), "the client (pid %d) failed (status "
		     "%#x) while the server was in phase '%s'\n",
		     (int)tt_child, st, tt_phase);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	_exit(1);
}

void tt_fail(const char *file, int line, const char *what, long long val)
{
	fprintf(stderr, "CHECK FAILED %s:%d (pid %d, %s, phase %s): %s "
		"[value %lld]\n", file, line, (int)getpid(),
		tt_child ? "server" : "client/only", tt_phase, what, val);
	fflush(stderr);
	tt_child_may_die = 1;
	if (tt_child > 0)
		kill(tt_child, SIGKILL);
	_exit(1);
}

static unsigned tt_period;	/* the current phase's period, seconds */
static uint64_t tt_beat_seen;	/* the count at the last look */

void tt_progress(void)
{
	/* relaxed: a liveness hint, it orders nothing */
	if (tt_board)
		atomic_fetch_add_explicit(&tt_board->beat, 1,
					  memory_order_relaxed);
}

static uint64_t tt_beat(void)
{
	/* relaxed: see tt_progress */
	return tt_board ? atomic_load_explicit(&tt_board->beat,
					       memory_order_relaxed) : 0;
}

static void tt_on_alarm(int sig)
{
	char msg[256];
	uint64_t now = tt_beat();
	int n;

	(void)sig;
	if (now != tt_beat_seen) {
		/* progress since the last look: a slow run, not a hang */
		tt_beat_seen = now;
		alarm(tt_period);
		return;
	}
	n = snprintf(msg, sizeof(msg), "WATCHDOG (pid %d): no progress "
		     "in phase '%s': failing instead of hanging\n",
		     (int)getpid(), tt_phase);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	tt_child_may_die = 1;
	if (tt_child > 0)
		kill(tt_child, SIGKILL);
	_exit(1);
}

void tt_watch(const char *phase, unsigned secs)
{
	static bool installed;

	if (!installed) {
		struct sigaction sa = { .sa_handler = tt_on_alarm };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		installed = true;
	}
	tt_phase = phase;
	/* a child outlives the parent's watchdog, so that a hang is named
	 * by the server, which then kills the child */
	tt_period = secs && tt_is_child ? secs + 15 : secs;
	tt_beat_seen = tt_beat();
	alarm(tt_period);
}

void tt_board_init(void)
{
	tt_board = mmap(NULL, sizeof(*tt_board), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	TT_CHECK(tt_board != MAP_FAILED);
	memset(tt_board, 0, sizeof(*tt_board));
}

pid_t tt_spawn(void (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	TT_CHECK(pid >= 0);
	if (pid == 0) {
		tt_child = 0;
		tt_is_child = true;
		tt_watch("child start", TT_WATCHDOG_S);
		fn(arg);
		_exit(0);
	}
	tt_child = pid;
	{
		struct sigaction sa = { .sa_handler = tt_on_child,
					.sa_flags = SA_RESTART };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
	}
	return pid;
}

int tt_join(void)
{
	pid_t pid = tt_child;
	int st;

	while (!tt_child_reaped && waitpid(pid, &st, 0) < 0)
		if (errno != EINTR && !tt_child_reaped)
			return -1;
	if (tt_child_reaped)
		st = tt_child_status;
	tt_child = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "child %d killed by signal %d\n", (int)pid,
		WTERMSIG(st));
	return 128 + WTERMSIG(st);
}

void tt_step(int side, int n)
{
	atomic_store(&tt_board->step[side], n);
	tt_progress();
}

void tt_wait_step(int side, int n, void (*poke)(void *), void *arg)
{
	while (atomic_load(&tt_board->step[side]) < n) {
		if (poke)
			poke(arg);
		else
			usleep(100);
	}
}

void tt_check_propel(void)
{
	const char *dir = getenv("PROPEL_LIBDIR");
	char want[PATH_MAX] = "", line[PATH_MAX + 256];
	int found = 0;
	FILE *f;

	if (dir && !realpath(dir, want))
		want[0] = 0;
	f = fopen("/proc/self/maps", "r");
	TT_CHECK(f);
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path || !strstr(path, "libfabric.so"))
			continue;
		path[strcspn(path, "\n")] = 0;
		if (want[0] ? strncmp(path, want, strlen(want)) != 0 :
			      strncmp(path, "/usr/", 5) == 0) {
			fprintf(stderr, "not propel: %s is mapped (build: "
				"%s)\n", path, want[0] ? want : "?");
			fclose(f);
			_exit(1);
		}
		found++;
	}
	fclose(f);
	if (!found) {
		fprintf(stderr, "no libfabric.so mapped in this process\n");
		_exit(1);
	}
}

void tt_fill(void *buf, size_t len, uint64_t seq)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = tt_byte(seq, i);
}

long long tt_verify(const void *buf, size_t len, uint64_t seq)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != tt_byte(seq, i))
			return (long long)i;
	return -1;
}

struct fi_info *tt_hints(const struct tt_opts *o)
{
	struct fi_info *h = fi_allocinfo();

	TT_CHECK(h);
	h->ep_attr->type = FI_EP_MSG;
	h->caps = FI_MSG | FI_TAGGED | FI_RMA | FI_MULTI_RECV;
	h->addr_format = FI_SOCKADDR_IN;
	/* what these tests can honour: they read the answer's bits */
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY |
				  FI_MR_ALLOCATED;
	h->domain_attr->data_progress = o->data_progress;
	h->fabric_attr->prov_name = strdup("tcp");
	return h;
}

static void tt_check_info(const struct fi_info *info)
{
	TT_CHECK(info && info->fabric_attr && info->fabric_attr->prov_name);
	TT_CHECK(!strcmp(info->fabric_attr->prov_name, "tcp"));
	TT_EQ(info->ep_attr->type, FI_EP_MSG);
	tt_check_propel();
}

void tt_open_cqs(struct tt_side *t)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED, .size = 4096 };
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP };

	ca.wait_obj = t->opts.tx_wait;
	TT_EQ(fi_cq_open(t->domain, &ca, &t->txcq, NULL), 0);
	ca.wait_obj = t->opts.rx_wait;
	TT_EQ(fi_cq_open(t->domain, &ca, &t->rxcq, NULL), 0);
	if (t->opts.cntrs) {
		TT_EQ(fi_cntr_open(t->domain, &na, &t->txcntr, NULL), 0);
		TT_EQ(fi_cntr_open(t->domain, &na, &t->rxcntr, NULL), 0);
	}
	if (t->opts.remote_cntr)
		TT_EQ(fi_cntr_open(t->domain, &na, &t->rwcntr, NULL), 0);
}

static void tt_open_eq(struct tt_side *t)
{
	struct fi_eq_attr ea = { .size = 64, .wait_obj = FI_WAIT_UNSPEC };

	TT_EQ(fi_eq_open(t->fabric, &ea, &t->eq, NULL), 0);
}

/* Bind the shared receive context, EQ, CQs and counters to t->ep and
 * enable it (unless opts.no_enable). */
static void tt_ep_setup(struct tt_side *t)
{
	if (t->srx)
		TT_EQ(fi_ep_bind(t->ep, &t->srx->fid, 0), 0);
	TT_EQ(fi_ep_bind(t->ep, &t->eq->fid, 0), 0);
	TT_EQ(fi_ep_bind(t->ep, &t->txcq->fid, FI_TRANSMIT), 0);
	TT_EQ(fi_ep_bind(t->ep, &t->rxcq->fid, FI_RECV), 0);
	if (t->txcntr) {
		TT_EQ(fi_ep_bind(t->ep, &t->txcntr->fid, FI_SEND), 0);
		TT_EQ(fi_ep_bind(t->ep, &t->rxcntr->fid, FI_RECV), 0);
	}
	if (t->rwcntr)
		TT_EQ(fi_ep_bind(t->ep, &t->rwcntr->fid, FI_REMOTE_WRITE), 0);
	if (!t->opts.no_enable)
		TT_EQ(fi_enable(t->ep), 0);
	if (t->opts.min_multi_recv) {
		size_t v = t->opts.min_multi_recv;

		TT_EQ(fi_setopt(&t->ep->fid, FI_OPT_ENDPOINT,
				FI_OPT_MIN_MULTI_RECV, &v, sizeof(v)), 0);
	}
}

void tt_server_listen(struct tt_side *s, const struct tt_opts *o)
{
	struct fi_info *hints = tt_hints(o);
	struct sockaddr_in sin;
	size_t len = sizeof(sin);

	memset(s, 0, sizeof(*s));
	s->opts = *o;
	TT_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "0", FI_SOURCE,
			 hints, &s->info), 0);
	fi_freeinfo(hints);
	tt_check_info(s->info);
	TT_EQ(fi_fabric(s->info->fabric_attr, &s->fabric, NULL), 0);
	tt_open_eq(s);
	TT_EQ(fi_passive_ep(s->fabric, s->info, &s->pep, NULL), 0);
	TT_EQ(fi_pep_bind(s->pep, &s->eq->fid, 0), 0);
	TT_EQ(fi_listen(s->pep), 0);
	TT_EQ(fi_getname(&s->pep->fid, &sin, &len), 0);
	TT_EQ(sin.sin_family, AF_INET);
	TT_EQ(sin.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	s->port = ntohs(sin.sin_port);
	TT_CHECK(s->port != 0);
	if (tt_board)
		atomic_store(&tt_board->port, s->port);
}

void tt_server_connreq(struct tt_side *s, void *data, size_t *len)
{
	uint8_t buf[sizeof(struct fi_eq_cm_entry) + 1024];
	struct fi_eq_cm_entry *e = (void *)buf;
	size_t got;

	got = (size_t)tt_eq_wait(s, FI_CONNREQ, buf, sizeof(buf), NULL,
				 NULL) - sizeof(*e);
	TT_CHECK(e->fid == &s->pep->fid);
	TT_CHECK(e->info != NULL);
	if (s->conn_info)
		fi_freeinfo(s->conn_info);
	s->conn_info = e->info;
	if (len) {
		TT_CHECK(got <= *len);
		memcpy(data, e->data, got);
		*len = got;
	}
}

void tt_server_accept(struct tt_side *s, const void *data, size_t len)
{
	uint8_t buf[sizeof(struct fi_eq_cm_entry) + 1024];
	struct fi_eq_cm_entry *e = (void *)buf;

	if (!s->domain) {
		TT_EQ(fi_domain(s->fabric, s->conn_info, &s->domain, NULL), 0);
		tt_open_cqs(s);
	}
	TT_EQ(fi_endpoint(s->domain, s->conn_info, &s->ep, NULL), 0);
	tt_ep_setup(s);
	TT_EQ(fi_accept(s->ep, data, len), 0);
	tt_eq_wait(s, FI_CONNECTED, buf, sizeof(buf), NULL, NULL);
	TT_CHECK(e->fid == &s->ep->fid);
}

void tt_client_open(struct tt_side *c, const struct tt_opts *o, int port)
{
	struct fi_info *hints = tt_hints(o);
	char svc[16];

	memset(c, 0, sizeof(*c));
	c->opts = *o;
	snprintf(svc, sizeof(svc), "%d", port);
	TT_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", svc, 0, hints,
			 &c->info), 0);
	fi_freeinfo(hints);
	tt_check_info(c->info);
	TT_EQ(fi_fabric(c->info->fabric_attr, &c->fabric, NULL), 0);
	TT_EQ(fi_domain(c->fabric, c->info, &c->domain, NULL), 0);
	tt_open_eq(c);
	tt_open_cqs(c);
}

void tt_client_ep(struct tt_side *c)
{
	TT_EQ(fi_endpoint(c->domain, c->info, &c->ep, NULL), 0);
	tt_ep_setup(c);
}

void tt_client_connect(struct tt_side *c, const void *data, size_t len,
		       void *rdata, size_t *rlen)
{
	uint8_t buf[sizeof(struct fi_eq_cm_entry) + 1024];
	struct fi_eq_cm_entry *e = (void *)buf;
	size_t got;

	TT_EQ(fi_connect(c->ep, c->info->dest_addr, data, len), 0);
	got = (size_t)tt_eq_wait(c, FI_CONNECTED, buf, sizeof(buf), NULL,
				 NULL) - sizeof(*e);
	TT_CHECK(e->fid == &c->ep->fid);
	if (rlen) {
		TT_CHECK(got <= *rlen);
		memcpy(rdata, e->data, got);
		*rlen = got;
	}
}

ssize_t tt_eq_wait(struct tt_side *t, uint32_t want, void *buf, size_t size,
		   void (*poke)(void *), void *arg)
{
	struct fi_eq_err_entry err;
	uint32_t ev;
	ssize_t n;

	for (;;) {
		n = fi_eq_read(t->eq, &ev, buf, size, 0);
		if (n >= 0) {
			if (ev != want)
				fprintf(stderr, "EQ event %u (fid %p; ours: "
					"ep %p, pep %p), waiting for %u\n",
					ev, (void *)((struct fi_eq_entry *)
						     buf)->fid,
					t->ep ? (void *)&t->ep->fid : NULL,
					t->pep ? (void *)&t->pep->fid : NULL,
					want);
			TT_EQ(ev, want);
			tt_progress();
			return n;
		}
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			TT_CHECK(fi_eq_readerr(t->eq, &err, 0) > 0);
			fprintf(stderr, "EQ error event while waiting for "
				"%u: err %d (%s) prov_errno %d\n", want,
				err.err, fi_strerror(err.err),
				err.prov_errno);
			TT_EQ(err.err, 0);
		}
		TT_EQ(n, -FI_EAGAIN);
		if (poke)
			poke(arg);
		else
			usleep(100);
	}
}

void tt_eq_wait_err(struct tt_side *t, struct fi_eq_err_entry *err)
{
	uint8_t buf[sizeof(struct fi_eq_cm_entry) + 1024];
	uint32_t ev;
	ssize_t n;

	for (;;) {
		n = fi_eq_read(t->eq, &ev, buf, sizeof(buf), 0);
		if (n >= 0)
			fprintf(stderr, "EQ event %u, waiting for an error\n",
				ev);
		TT_CHECK(n < 0);
		if (n == -FI_EAVAIL)
			break;
		TT_EQ(n, -FI_EAGAIN);
		usleep(100);
	}
	memset(err, 0, sizeof(*err));
	TT_CHECK(fi_eq_readerr(t->eq, err, 0) > 0);
	tt_progress();
}

int tt_cq_poll(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
	       struct fi_cq_err_entry *err)
{
	ssize_t n = fi_cq_read(cq, e, 1);

	if (n == -FI_EAGAIN)
		return 0;
	tt_progress();
	if (n == 1)
		return 1;
	TT_EQ(n, -FI_EAVAIL);
	memset(err, 0, sizeof(*err));
	TT_EQ(fi_cq_readerr(cq, err, 0), 1);
	return -1;
}

int tt_cq_wait_any(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		   struct fi_cq_err_entry *err)
{
	int r;

	while (!(r = tt_cq_poll(cq, e, err)))
		;
	return r;
}

void tt_cq_wait(struct fid_cq *cq, struct fi_cq_tagged_entry *e)
{
	struct fi_cq_err_entry err;

	if (tt_cq_wait_any(cq, e, &err) < 0) {
		fprintf(stderr, "error completion: err %d (%s) len %zu "
			"olen %zu ctx %p\n", err.err, fi_strerror(err.err),
			err.len, err.olen, err.op_context);
		TT_EQ(err.err, 0);
	}
}

void tt_poke_empty(void *side)
{
	struct tt_side *t = side;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;

	if (t->txcq)
		TT_EQ(tt_cq_poll(t->txcq, &e, &err), 0);
	if (t->rxcq)
		TT_EQ(tt_cq_poll(t->rxcq, &e, &err), 0);
	usleep(50);
}

int tt_drain(struct fid_cq *cq)
{
	struct fi_cq_tagged_entry e[16];
	struct fi_cq_err_entry err;
	int total = 0;
	ssize_t n;

	for (;;) {
		n = fi_cq_read(cq, e, 16);
		if (n > 0) {
			total += (int)n;
			tt_progress();
			continue;
		}
		if (n == -FI_EAGAIN)
			return total;
		TT_EQ(n, -FI_EAVAIL);
		memset(&err, 0, sizeof(err));
		TT_EQ(fi_cq_readerr(cq, &err, 0), 1);
		fprintf(stderr, "error completion: err %d (%s)\n", err.err,
			fi_strerror(err.err));
		TT_EQ(err.err, 0);
	}
}

static void tt_close_fid(struct fid **f)
{
	if (*f)
		TT_EQ(fi_close(*f), 0);
	*f = NULL;
}

void tt_close_ep(struct tt_side *t)
{
	tt_close_fid((struct fid **)&t->ep);
}

void tt_close(struct tt_side *t)
{
	tt_close_fid((struct fid **)&t->ep);
	tt_close_fid((struct fid **)&t->pep);
	tt_close_fid((struct fid **)&t->srx);
	tt_close_fid((struct fid **)&t->txcntr);
	tt_close_fid((struct fid **)&t->rxcntr);
	tt_close_fid((struct fid **)&t->rwcntr);
	tt_close_fid((struct fid **)&t->txcq);
	tt_close_fid((struct fid **)&t->rxcq);
	tt_close_fid((struct fid **)&t->domain);
	tt_close_fid((struct fid **)&t->eq);
	tt_close_fid((struct fid **)&t->fabric);
	if (t->conn_info)
		fi_freeinfo(t->conn_info);
	if (t->info)
		fi_freeinfo(t->info);
	t->conn_info = t->info = NULL;
}

int tt_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	TT_CHECK(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own */
}

long long tt_rss(void)
{
	long long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	TT_CHECK(f);
	TT_EQ(fscanf(f, "%lld %lld", &size, &res), 2);
	fclose(f);
	return res * sysconf(_SC_PAGESIZE);
}
