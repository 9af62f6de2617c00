/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Names nobody else can take (DESIGN.md section 7a): before two
 * processes open their endpoints, a third one (the test's parent) takes
 * every name they would use first: the region files
 * /dev/shm/propel-shm-<uid>-<pid>-<idx> (some empty, some full of
 * garbage) and the abstract sockets "@propel-shm-<uid>-<pid>-<idx>.wk"
 * the wake-up used to be bound to. Both endpoints must still open (under
 * another index), exchange messages of every protocol both ways with
 * auto progress (the receiver sleeps, so wake-ups must reach it), and
 * leave the squatter's files as they were.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "shm_ep_test.h"

#define CAPS		(FI_MSG | FI_TAGGED)
#define SQUAT_N		8	/* indexes taken, per process */
#define GARBAGE		0xa5

static struct tep_board *board;
static const size_t sizes[] = { 8, 1000, 6000, 20000, 1 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void squat_file_name(pid_t pid, int idx, char *buf, size_t len)
{
	snprintf(buf, len, "/propel-shm-%u-%d-%d", (unsigned)getuid(),
		 (int)pid, idx);
}

/* The names an endpoint of pid would have used: files and sockets. */
static void squat(pid_t pid, int *socks)
{
	static uint8_t junk[8192];
	char name[128];

	memset(junk, GARBAGE, sizeof(junk));
	for (int i = 0; i < SQUAT_N; i++) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		int fd, n;

		squat_file_name(pid, i, name, sizeof(name));
		fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0644);
		SHM_CHECK(fd >= 0);
		/* odd indexes: a file of garbage (no header at all) */
		if (i & 1)
			SHM_CHECK(write(fd, junk, sizeof(junk)) ==
				  (ssize_t)sizeof(junk));
		close(fd);
		n = snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
			     "%s.wk", name + 1);
		socks[i] = socket(AF_UNIX, SOCK_DGRAM, 0);
		SHM_CHECK(socks[i] >= 0);
		SHM_CHECK(bind(socks[i], (struct sockaddr *)&sun,
			       (socklen_t)(offsetof(struct sockaddr_un,
						    sun_path) + 1 + n)) == 0);
	}
}

/* The squatter's files are untouched; then remove them. */
static int unsquat(pid_t pid, int *socks)
{
	char name[128];
	uint8_t buf[8192];
	int bad = 0;

	for (int i = 0; i < SQUAT_N; i++) {
		ssize_t want = (i & 1) ? (ssize_t)sizeof(buf) : 0, got;
		int fd;

		close(socks[i]);
		squat_file_name(pid, i, name, sizeof(name));
		fd = shm_open(name, O_RDONLY, 0);
		if (fd < 0) {
			fprintf(stderr, "squatter's %s is gone\n", name);
			bad = 1;
			continue;
		}
		got = pread(fd, buf, sizeof(buf), 0);
		if (got != want) {
			fprintf(stderr, "%s: %zd bytes, not %zd\n", name, got,
				want);
			bad = 1;
		}
		for (ssize_t j = 0; j < got && j < want; j++)
			if (buf[j] != GARBAGE) {
				fprintf(stderr, "%s changed at %zd\n", name, j);
				bad = 1;
				break;
			}
		close(fd);
		shm_unlink(name);
	}
	return bad;
}

static void rank_main(void *arg)
{
	int rank = (int)(intptr_t)arg, peer = !rank;
	struct fi_cq_tagged_entry e;
	fi_addr_t addrs[2];
	const char *idx;
	struct tep t;
	uint8_t *buf = malloc(1 << 20);

	SHM_CHECK(buf);
	/* the squatter goes first */
	while (!atomic_load(&board->flag[rank]))
		sched_yield();
	SHM_CHECK(tep_open_progress(&t, CAPS, FI_PROGRESS_AUTO) == 0);
	SHM_CHECK(t.namelen <= TEP_NAME_MAX);
	/* a fresh index: past every taken one */
	idx = strrchr(t.name, ':');
	SHM_CHECK(idx && atoi(idx + 1) >= SQUAT_N);
	memcpy(board->name[rank], t.name, t.namelen);
	tep_barrier(board, &t, 2, 1);
	tep_insert_all(&t, board, 2, addrs);
	for (size_t i = 0; i < NSIZES; i++) {
		for (int turn = 0; turn < 2; turn++) {
			uint64_t seq = i * 2 + (uint64_t)turn;

			if (turn == rank) {
				shm_test_fill(buf, sizes[i], seq);
				SHM_CHECK(TEP_RETRY(&t, fi_send(t.ep, buf,
					sizes[i], NULL, addrs[peer],
					NULL)) == 0);
				tep_tx_wait(&t, t.tx_done + 1);
			} else {
				SHM_CHECK(fi_recv(t.ep, buf, sizes[i], NULL,
						  FI_ADDR_UNSPEC, NULL) == 0);
				tep_wait(&t, &e);
				SHM_CHECK(e.len == sizes[i]);
				SHM_CHECK(shm_test_verify(buf, sizes[i],
							  seq) == 0);
			}
		}
	}
	tep_barrier(board, &t, 2, 2);
	tep_close(&t);
	free(buf);
}

int main(void)
{
	int socks[2][SQUAT_N], fail = 0;
	pid_t pid[2];

	board = tep_board_new();
	if (!board)
		return 1;
	for (intptr_t r = 0; r < 2; r++)
		pid[r] = shm_test_spawn(rank_main, (void *)r);
	for (int r = 0; r < 2; r++) {
		squat(pid[r], socks[r]);
		atomic_store(&board->flag[r], 1);
	}
	for (int r = 0; r < 2; r++) {
		int st = shm_test_wait(pid[r]);

		if (st) {
			fprintf(stderr, "rank %d exited %d\n", r, st);
			fail = 1;
		}
	}
	for (int r = 0; r < 2; r++)
		fail |= unsquat(pid[r], socks[r]);
	return fail;
}
