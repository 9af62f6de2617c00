/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What one peer costs a sender in resident memory: the pages of the
 * target's region that the sender's mapping holds after it opened the
 * peer and sent it one small message (docs/transport.md, "What a peer
 * costs"). The target runs with the default geometry (1024 slots of 1 KiB
 * inline, 256 peer entries, 32 SAR channels), in its own process.
 *
 * The count is of pages, read from /proc/self/smaps for the one mapping
 * of the target's file: no timing, nothing the machine's load changes.
 * Page 0 carries the header, the control lines and the first peer
 * entries; the slot of the message (with its claim word) is the other.
 */
#include "shm_xfer_test.h"

#include <inttypes.h>

#define PEER_MEM_MAX_PAGES	2

/* Resident KiB of this process's mapping of /dev/shm<region>, or -1. */
static long mapping_rss_kib(const char *region)
{
	char line[512], path[SHM_REGION_NAME_MAX + 16];
	unsigned long start, end;
	bool in_map = false;
	long rss = -1, kib;
	FILE *f;

	snprintf(path, sizeof(path), "/dev/shm%s", region);
	f = fopen("/proc/self/smaps", "r");
	SHM_CHECK(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			/* a mapping's first line: "start-end perms ... path" */
			line[strcspn(line, "\n")] = '\0';
			in_map = strstr(line, path) != NULL;
			continue;
		}
		if (in_map && sscanf(line, "Rss: %ld kB", &kib) == 1) {
			SHM_CHECK(rss < 0);	/* one mapping of the file */
			rss = kib;
		}
	}
	fclose(f);
	return rss;
}

static void one_receiver(void *p)
{
	struct pair_arg *a = p;
	uint8_t buf[64];
	struct node n;
	char c;
	int st;

	node_open(&n, 0);
	SHM_CHECK(recv_into(&n, next_rx(&n), buf, sizeof(buf), false, &st) ==
		  8 && st == 0);
	SHM_CHECK(shm_test_verify(buf, 8, 3) == 0);
	SHM_CHECK(write(a->pipe_wr, "r", 1) == 1);
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);
	shm_xfer_ep_close(n.ep);
}

static void one_sender(void *p)
{
	char name[SHM_NAME_MAX], region[SHM_REGION_NAME_MAX];
	long page_kib = sysconf(_SC_PAGESIZE) / 1024, rss;
	struct pair_arg *a = p;
	struct shm_xfer_peer *peer;
	uint8_t buf[8];
	struct node n;
	char c;

	node_open(&n, 0);
	peer = peer_of(&n, a->peer, 0);
	shm_test_fill(buf, sizeof(buf), 3);
	send_msg(&n, peer, buf, sizeof(buf), 2, 0, NULL);
	wait_tx(&n);
	SHM_CHECK(read(a->pipe_rd, &c, 1) == 1);	/* it has the message */
	shm_addr_format(a->peer, getuid(), 0, name, sizeof(name));
	SHM_CHECK(shm_addr_region_name(name, region, sizeof(region)) > 0);
	rss = mapping_rss_kib(region);
	fprintf(stderr, "sender's mapping of the target's region: %ld KiB "
		"resident (at most %ld)\n", rss,
		PEER_MEM_MAX_PAGES * page_kib);
	SHM_CHECK(rss >= 0 && rss <= PEER_MEM_MAX_PAGES * page_kib);
	SHM_CHECK(write(a->pipe_wr, "x", 1) == 1);
	shm_xfer_peer_close(peer);
	shm_xfer_ep_close(n.ep);
}

static void test_one_message_two_pages(void **state)
{
	struct pair_arg ra = { 0 }, sa = { 0 };

	(void)state;
	run_pair(one_receiver, one_sender, &ra, &sa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_message_two_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
