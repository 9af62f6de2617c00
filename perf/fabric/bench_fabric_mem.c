/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Memory per peer. A helper process opens P + 1 endpoints (-P, default
 * 32, at most 64; each with its own fabric and domain) and posts one
 * receive on each. The measuring process opens one endpoint, inserts the
 * first helper address and sends it 8 B (-s) (the untimed warm-up: first
 * AV growth, first mapping), reads its resident set, then inserts the
 * other P addresses one at a time, sends one message to each, waits for
 * every send and reads its resident set again. Rows:
 *
 *   mem_per_peer        (RSS after - RSS before) / P, KiB
 *   shm_per_ep          tmpfs blocks allocated by the /dev/shm files that
 *                       either process has mapped, per endpoint (P + 2)
 *   shm_mapped_per_ep   the same files' sizes (what each maps), per
 *                       endpoint
 *
 * The size column holds P. One sample each: this is a count of pages,
 * not a time, but other work in the process (another thread's malloc) is
 * not excluded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "bf_common.h"
#include "pl_bench.h"

#define MEM_MAX_PEERS 64
#define MEM_NAME_MAX 256

struct mem_names {
	size_t len[MEM_MAX_PEERS + 1];
	char name[MEM_MAX_PEERS + 1][MEM_NAME_MAX];
};

static void mem_die(const char *what, long ret)
{
	fprintf(stderr, "bench_fabric_mem: %s: %ld (%s)\n", what, ret,
		fi_strerror((int)(ret < 0 ? -ret : ret)));
	exit(1);
}

/* Adds the /dev/shm files pid maps to paths (n of them, unique). */
static void mem_shm_files(pid_t pid, char (*paths)[MEM_NAME_MAX * 2],
			  unsigned *n, unsigned max)
{
	char line[1024], file[64], *p;
	unsigned i;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "r");
	if (!f)
		mem_die("reading a maps file", -FI_EOTHER);
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "/dev/shm/");
		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		for (i = 0; i < *n && strcmp(paths[i], p); i++)
			;
		if (i == *n && *n < max)
			snprintf(paths[(*n)++], MEM_NAME_MAX * 2, "%s", p);
	}
	fclose(f);
}

/* The helper: P + 1 endpoints, one receive each, until told to go. */
static int mem_helper(const struct bf_opts *o, int sock)
{
	static struct bf_side sides[MEM_MAX_PEERS + 1];
	unsigned i, n = o->peers + 1;
	char name[MEM_NAME_MAX], c;
	size_t len;
	long ret;

	for (i = 0; i < n; i++) {
		sides[i] = (struct bf_side){ .rank = 1, .sock = sock, .opts = o };
		bf_side_open(&sides[i]);
		len = sizeof(name);
		if ((ret = fi_getname(&sides[i].ep->fid, name, &len)))
			mem_die("fi_getname", ret);
		bf_sock_write(&sides[0], &len, sizeof(len));
		bf_sock_write(&sides[0], name, len);
		bf_recv(&sides[i], o->size, 0);
	}
	for (i = 0; i < n; i++)
		bf_wait(&sides[i], 0, 1);
	c = 'd';
	bf_sock_write(&sides[0], &c, 1);
	bf_sock_read(&sides[0], &c, 1);	/* the measurer has looked */
	for (i = 0; i < n; i++)
		bf_side_close(&sides[i]);
	return 0;
}

static void mem_row(const char *bench, unsigned peers, double kib)
{
	struct pl_bench_stats stats;

	pl_bench_stats_compute(&kib, 1, &stats);
	pl_bench_csv_row(stdout, bench, pl_bench_library_name(), peers, "KiB",
			 &stats);
}

static void mem_send_to(struct bf_side *s, const char *name, unsigned i)
{
	long ret = fi_av_insert(s->av, name, 1, &s->peer, 0, NULL);

	if (ret != 1)
		mem_die("fi_av_insert", ret);
	bf_send(s, s->opts->size, i);
}

static int mem_measure(const struct bf_opts *o, int sock, pid_t helper)
{
	static struct mem_names names;
	static char paths[2 * (MEM_MAX_PEERS + 2)][MEM_NAME_MAX * 2];
	struct bf_side s = { .rank = 0, .sock = sock, .opts = o };
	double rss0, rss1, blocks = 0, bytes = 0;
	unsigned i, npaths = 0, eps = o->peers + 2;
	struct stat st;
	char c;

	bf_side_open(&s);
	for (i = 0; i <= o->peers; i++) {
		bf_sock_read(&s, &names.len[i], sizeof(names.len[i]));
		if (names.len[i] > MEM_NAME_MAX)
			mem_die("peer name too long", -FI_EINVAL);
		bf_sock_read(&s, names.name[i], names.len[i]);
	}
	mem_send_to(&s, names.name[0], 0);	/* warm-up */
	bf_wait(&s, 1, 0);
	rss0 = bf_rss_kib();
	for (i = 1; i <= o->peers; i++)
		mem_send_to(&s, names.name[i], i);
	bf_wait(&s, o->peers + 1, 0);
	rss1 = bf_rss_kib();
	bf_sock_read(&s, &c, 1);	/* every message arrived */
	mem_shm_files(getpid(), paths, &npaths, 2 * (MEM_MAX_PEERS + 2));
	mem_shm_files(helper, paths, &npaths, 2 * (MEM_MAX_PEERS + 2));
	for (i = 0; i < npaths; i++) {
		if (stat(paths[i], &st))
			continue;	/* unlinked once mapped */
		blocks += (double)st.st_blocks * 512.0;
		bytes += (double)st.st_size;
	}
	mem_row("mem_per_peer", o->peers, (rss1 - rss0) / o->peers);
	if (npaths) {
		mem_row("shm_per_ep", o->peers, blocks / 1024.0 / eps);
		mem_row("shm_mapped_per_ep", o->peers, bytes / 1024.0 / eps);
	} else {
		printf("# shm_per_ep n/a on this library (%s): no /dev/shm "
		       "file mapped\n", pl_bench_library_name());
	}
	fflush(stdout);
	c = 'q';
	bf_sock_write(&s, &c, 1);
	bf_side_close(&s);
	return 0;
}

int main(int argc, char **argv)
{
	struct bf_opts opts;
	int sv[2], status, rc;
	pid_t pid;

	bf_opts_parse(argc, argv, NULL, &opts);
	opts.tagged = true;
	if (!opts.size)
		opts.size = 8;
	if (!opts.peers)
		opts.peers = 32;
	if (opts.peers > MEM_MAX_PEERS) {
		fprintf(stderr, "%s: at most %d peers\n", argv[0],
			MEM_MAX_PEERS);
		return 2;
	}
	opts.min_size = opts.max_size = opts.size;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	pl_bench_csv_header(stdout);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		_exit(mem_helper(&opts, sv[1]));
	}
	close(sv[1]);
	rc = mem_measure(&opts, sv[0], pid);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return rc | WEXITSTATUS(status);
}
