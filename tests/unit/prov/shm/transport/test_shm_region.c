/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm regions (prov/shm/transport/shm_region.c): create, map from another
 * process, mode 0600, name collisions, and removal of regions whose owner died
 * or whose pid was reused (start time differs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <cmocka.h>

#include <rdma/fi_errno.h>

#include "pl_proc.h"
#include "shm_addr.h"
#include "shm_region.h"
#include "shm_test.h"

static const struct shm_layout_req req = {
	.cmdq_slots = 64, .inline_max = 192, .peer_count = 8,
	.sar_chan_count = 2, .sar_buf_size = 4096, .split_count = 4,
};

static void region_name(pid_t pid, unsigned idx, char *buf, size_t len)
{
	char addr[SHM_NAME_MAX];

	assert_true(shm_addr_format(pid, getuid(), idx, addr, sizeof(addr)) > 0);
	assert_true(shm_addr_region_name(addr, buf, len) > 0);
}

static bool shm_exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/dev/shm%s", name);
	return access(path, F_OK) == 0;
}

static void test_layout_geometry(void **state)
{
	struct shm_region_hdr hdr;
	struct shm_layout_req r = req;
	size_t size;

	r.cmdq_slots = 100;
	r.inline_max = 100;
	size = shm_layout_compute(&r, &hdr);
	assert_true(size > 0);
	assert_int_equal(hdr.cmdq_slots, 128);
	assert_int_equal(hdr.inline_max, 128);
	assert_int_equal(hdr.cmdq_slot_size, 192);
	/* slot 0 on the page that starts with the claim line of 0..7 */
	assert_int_equal((hdr.claim_off - 64) % 4096, 0);
	assert_int_equal(hdr.cmdq_off, hdr.claim_off + 192);
	assert_true(hdr.claim_off - 128 * 8 >= hdr.sar_off +
		    2 * sizeof(struct shm_sar_chan));
	assert_int_equal(hdr.cmdq_off % 4096, 256);
	assert_int_equal(hdr.sarbuf_off % 4096, 0);
	assert_int_equal(size % 4096, 0);
	assert_true(hdr.split_off + 4 * sizeof(struct shm_split_job) <= size);
	r.cmdq_slots = 0;
	assert_int_equal(shm_layout_compute(&r, &hdr), 0);
}

struct map_arg {
	char name[SHM_REGION_NAME_MAX];
};

static void child_map(void *p)
{
	struct map_arg *a = p;
	struct shm_region *r;

	SHM_CHECK(shm_region_map(a->name, &r) == 0);
	SHM_CHECK(r->hdr->owner_pid == getppid());
	SHM_CHECK(r->hdr->cmdq_slots == 64);
	SHM_CHECK(!r->owner);
	/* a byte written here is seen by the owner */
	r->sarbuf[0] = 0xab;
	shm_region_unmap(r);
}

static void test_create_map_close(void **state)
{
	struct map_arg a;
	struct shm_region *r, *r2;
	struct stat st;
	char path[300];

	region_name(getpid(), 1, a.name, sizeof(a.name));
	assert_int_equal(shm_region_create(a.name, &req, 0, &r), 0);
	snprintf(path, sizeof(path), "/dev/shm%s", a.name);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a live owner keeps its name */
	assert_int_equal(shm_region_create(a.name, &req, 0, &r2),
			 -FI_EADDRINUSE);
	assert_int_equal(shm_test_wait(shm_test_spawn(child_map, &a)), 0);
	assert_int_equal(r->sarbuf[0], 0xab);
	shm_region_close(r);
	assert_false(shm_exists(a.name));
	assert_int_equal(shm_region_map(a.name, &r2), -FI_ENOENT);
}

/* A header whose queue geometry no producer could use (a slot count not
 * a power of two, slots not whole lines, a queue past the end of the
 * file) is refused at map time, before anything indexes the queue. */
static void test_map_refuses_bad_queue(void **state)
{
	struct map_arg a;
	struct shm_region *r, *peer;
	uint32_t slots, size;
	uint64_t off;

	(void)state;
	region_name(getpid(), 5, a.name, sizeof(a.name));
	assert_int_equal(shm_region_create(a.name, &req, 0, &r), 0);
	assert_int_equal(shm_region_map(a.name, &peer), 0);
	shm_region_unmap(peer);
	slots = r->hdr->cmdq_slots;
	size = r->hdr->cmdq_slot_size;
	off = r->hdr->cmdq_off;
	r->hdr->cmdq_slots = slots - 1;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->cmdq_slots = slots;
	r->hdr->cmdq_slot_size = size + 8;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->cmdq_slot_size = size;
	r->hdr->cmdq_off = r->hdr->total_size - size;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->cmdq_off = off;
	assert_int_equal(shm_region_map(a.name, &peer), 0);
	shm_region_unmap(peer);
	shm_region_close(r);
}

/* The SAR geometry and the table sizes of a header are input too: a
 * header claiming more than our limits, or more than the file holds, is
 * refused at map time; and once mapped, what the header says later
 * changes nothing of the peer's private copy. */
static void test_map_refuses_bad_geometry(void **state)
{
	struct map_arg a;
	struct shm_region *r, *peer;
	struct shm_region_hdr saved;

	(void)state;
	region_name(getpid(), 6, a.name, sizeof(a.name));
	assert_int_equal(shm_region_create(a.name, &req, 0, &r), 0);
	saved = r->geo;
	r->hdr->sar_chan_count = 1u << 31;
	r->hdr->sar_buf_size = 16u << 20;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->sar_chan_count = saved.sar_chan_count;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->sar_buf_size = saved.sar_buf_size;
	r->hdr->peer_count = 65535;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->peer_count = saved.peer_count;
	r->hdr->inline_max = saved.inline_max + 64;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->inline_max = saved.inline_max;
	r->hdr->total_size += 4096;
	assert_int_equal(shm_region_map(a.name, &peer), -FI_ENOPROTOOPT);
	r->hdr->total_size = saved.total_size;

	assert_int_equal(shm_region_map(a.name, &peer), 0);
	r->hdr->peer_count = 65535;
	r->hdr->cmdq_slots = 1u << 20;
	r->hdr->inline_max = 1u << 20;
	r->hdr->sar_chan_count = 1u << 31;
	r->hdr->owner_pid = 1;
	assert_int_equal(peer->geo.peer_count, saved.peer_count);
	assert_int_equal(peer->slot_mask + 1, saved.cmdq_slots);
	assert_int_equal(peer->inline_max, saved.inline_max);
	assert_int_equal(peer->geo.sar_chan_count, saved.sar_chan_count);
	assert_true(shm_region_owner_alive(peer));
	/* and the owner's own copy is what it computed */
	assert_int_equal(r->geo.peer_count, saved.peer_count);
	assert_int_equal(r->slot_mask + 1, saved.cmdq_slots);
	shm_region_unmap(peer);
	shm_region_close(r);
}

static void child_create_and_die(void *p)
{
	struct map_arg *a = p;
	struct shm_region *r;

	SHM_CHECK(shm_region_create(a->name, &req, 0, &r) == 0);
	/* crash: no close */
	kill(getpid(), SIGKILL);
}

static void test_cleanup_dead_owner(void **state)
{
	struct map_arg a, live;
	struct shm_region *mine, *r;
	unsigned removed = 0;
	pid_t pid;

	/* the child's region is named after the child */
	pid = fork();
	if (pid == 0) {
		region_name(getpid(), 7, a.name, sizeof(a.name));
		alarm(SHM_TEST_ALARM_S);
		child_create_and_die(&a);
		_exit(0);
	}
	region_name(pid, 7, a.name, sizeof(a.name));
	assert_int_equal(shm_test_wait(pid), 128 + SIGKILL);
	assert_true(shm_exists(a.name));
	/* a dead owner's region cannot be mapped... */
	assert_int_equal(shm_region_map(a.name, &r), -FI_ECONNREFUSED);

	region_name(getpid(), 8, live.name, sizeof(live.name));
	assert_int_equal(shm_region_create(live.name, &req, 0, &mine), 0);
	/* (removed may be 0: a test running beside us may have cleaned it) */
	assert_int_equal(shm_region_cleanup_dead(&removed), 0);
	assert_false(shm_exists(a.name));
	/* ...and a live one is never removed */
	assert_true(shm_exists(live.name));
	shm_region_close(mine);
}

static void test_cleanup_reused_pid(void **state)
{
	struct map_arg a;
	struct shm_region *r, *r2;
	unsigned removed = 0;

	/* a region that claims our pid but another start time: the pid was
	 * reused, the region is stale */
	region_name(getpid(), 9, a.name, sizeof(a.name));
	assert_int_equal(shm_region_create(a.name, &req, 0, &r), 0);
	r->hdr->owner_start += 1;
	r->owner = false;	/* forget it without unlinking */
	shm_region_unmap(r);
	assert_int_equal(shm_region_cleanup_dead(&removed), 0);
	assert_false(shm_exists(a.name));

	/* create() itself replaces a stale region of its own name */
	assert_int_equal(shm_region_create(a.name, &req, 0, &r), 0);
	r->hdr->owner_start += 1;
	r->owner = false;
	shm_region_unmap(r);
	assert_int_equal(shm_region_create(a.name, &req, 0, &r2), 0);
	shm_region_close(r2);
}

static void test_foreign_file_kept(void **state)
{
	char name[SHM_REGION_NAME_MAX];
	unsigned removed = 0;
	int fd;

	/* a file with our prefix that is not a region: never removed */
	snprintf(name, sizeof(name), "/propel-shm-%u-foreign-%d",
		 (unsigned)getuid(), (int)getpid());
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	close(fd);
	assert_int_equal(shm_region_cleanup_dead(&removed), 0);
	assert_true(shm_exists(name));
	shm_unlink(name);
}

/* Scribble over the first page of the region file `name`. */
static void scribble(const char *name)
{
	uint8_t junk[4096];
	int fd = shm_open(name, O_RDWR, 0);

	assert_true(fd >= 0);
	memset(junk, 0x5c, sizeof(junk));
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 0),
			 (ssize_t)sizeof(junk));
	close(fd);
}

static void test_cleanup_scribbled_dead(void **state)
{
	struct map_arg dead, live;
	struct shm_region *mine;
	unsigned removed = 0;
	pid_t pid;

	/* a crashed owner's region whose header was scribbled over: its
	 * name says who made it, and that process is gone */
	pid = fork();
	if (pid == 0) {
		region_name(getpid(), 12, dead.name, sizeof(dead.name));
		alarm(SHM_TEST_ALARM_S);
		child_create_and_die(&dead);
		_exit(0);
	}
	region_name(pid, 12, dead.name, sizeof(dead.name));
	assert_int_equal(shm_test_wait(pid), 128 + SIGKILL);
	scribble(dead.name);
	/* a live owner's region, scribbled the same way: kept */
	region_name(getpid(), 13, live.name, sizeof(live.name));
	assert_int_equal(shm_region_create(live.name, &req, 0, &mine), 0);
	scribble(live.name);
	assert_int_equal(shm_region_cleanup_dead(&removed), 0);
	assert_false(shm_exists(dead.name));
	assert_true(shm_exists(live.name));
	/* the owner still closes (and unlinks) it by its own name */
	shm_region_close(mine);
	assert_false(shm_exists(live.name));
}

static void test_proc_identity(void **state)
{
	uint64_t s1 = 0, s2 = 0;

	assert_int_equal(pl_proc_start_time(getpid(), &s1), 0);
	assert_int_equal(pl_proc_start_time(getpid(), &s2), 0);
	assert_true(s1 > 0 && s1 == s2);
	assert_true(pl_proc_alive(getpid(), s1));
	assert_false(pl_proc_alive(getpid(), s1 + 1));
	assert_false(pl_proc_alive(0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_geometry),
		cmocka_unit_test(test_create_map_close),
		cmocka_unit_test(test_map_refuses_bad_queue),
		cmocka_unit_test(test_map_refuses_bad_geometry),
		cmocka_unit_test(test_cleanup_dead_owner),
		cmocka_unit_test(test_cleanup_reused_pid),
		cmocka_unit_test(test_foreign_file_kept),
		cmocka_unit_test(test_cleanup_scribbled_dead),
		cmocka_unit_test(test_proc_identity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
