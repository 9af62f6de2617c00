/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Creating, mapping and removing shm regions (shm_region.h).
 *
 * Identity of an owner is (pid, start time), base's pl_proc.h: a pid
 * alone can be reused by an unrelated process after a crash, and then a
 * stale region would look alive forever.
 */
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_proc.h"
#include "shm_region.h"

/* The inverse of odd d modulo 2^64 (Newton's iteration: each step
 * doubles the correct low bits; d * d == 1 mod 8 gives three). */
static uint64_t shm_inverse_odd(uint64_t d)
{
	uint64_t x = d;
	int i;

	for (i = 0; i < 5; i++)
		x *= 2 - d * x;
	return x;
}

/* Pointers and the hot geometry, from the private copy r->geo (ours,
 * or checked by shm_layout_check): never from the shared header. */
static void shm_region_set_ptrs(struct shm_region *r)
{
	const struct shm_region_hdr *g = &r->geo;
	uint8_t *b = r->base;

	r->hdr = r->base;
	r->ctl = (struct shm_ctl *)(b + g->ctl_off);
	r->cmdq = b + g->cmdq_off;
	r->peers = (struct shm_peer_ent *)(b + g->peer_off);
	r->sar = (struct shm_sar_chan *)(b + g->sar_off);
	r->sarbuf = b + g->sarbuf_off;
	r->split = (struct shm_split_job *)(b + g->split_off);
	r->slot_mask = g->cmdq_slots - 1;
	r->slot_size = g->cmdq_slot_size;
	r->inline_max = g->inline_max;
	r->claim_top = (pl_atomic_u64 *)(b + g->claim_off);
	/* shm_region_slot_index's constants: the slot size is a non-zero
	 * multiple of 64 (shm_layout_compute) */
	r->slot_shift = (unsigned)__builtin_ctzll(g->cmdq_slot_size);
	r->slot_inv = shm_inverse_odd(g->cmdq_slot_size >> r->slot_shift);
	r->cons_pid = (uint32_t)getpid();
}

/* Copy the header of a mapping into r->geo, all but `state`: the owner
 * stores that word (atomically) while we copy, every other byte is
 * written once before READY, or by a process that breaks the rules,
 * which shm_layout_check then catches on the copy. */
static void shm_region_snapshot(struct shm_region *r)
{
	const uint8_t *src = r->base;
	uint8_t *dst = (uint8_t *)&r->geo;
	size_t at = offsetof(struct shm_region_hdr, state),
	       after = at + sizeof(r->geo.state);

	memcpy(dst, src, at);
	memcpy(dst + after, src + after, sizeof(r->geo) - after);
	pl_store_relaxed(&r->geo.state, (uint32_t)SHM_REGION_READY);
}

/* The creator a region name carries: "/propel-shm-<our uid>-<pid>-<idx>"
 * (shm_addr_region_name), 0 for any other name ("-n-" names carry
 * none). */
static pid_t shm_region_name_pid(const char *name)
{
	char prefix[64];
	unsigned long pid = 0;
	const char *p;
	size_t plen;

	snprintf(prefix, sizeof(prefix), "%s%u-", SHM_REGION_PREFIX,
		 (unsigned)getuid());
	plen = strlen(prefix);
	if (strncmp(name, prefix, plen))
		return 0;
	for (p = name + plen; *p >= '0' && *p <= '9'; p++)
		if ((pid = pid * 10 + (unsigned long)(*p - '0')) > INT_MAX)
			return 0;
	if (p == name + plen || *p != '-' || !p[1])
		return 0;
	for (p++; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return (pid_t)pid;
}

/* Read the header of an open region fd: is its owner gone? */
static bool shm_region_fd_stale(int fd, const char *name)
{
	struct shm_region_hdr hdr;
	struct stat st;
	pid_t pid;

	if (fstat(fd, &st) || st.st_uid != getuid())
		return false;
	if (pread(fd, &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) &&
	    hdr.magic == SHM_LAYOUT_MAGIC)
		return !pl_proc_alive(hdr.owner_pid, hdr.owner_start);
	/* No header of ours: scribbled over, cut short, or an owner between
	 * shm_open and ftruncate. The name still says who made it (an
	 * endpoint creates only names that carry its own pid,
	 * shm_xfer_ep_open): once that process is gone, nobody uses it. A
	 * name without a pid is never removed for want of a header. */
	pid = shm_region_name_pid(name);
	if (pid > 0 && !pl_proc_alive(pid, 0))
		return true;
	/* empty: only an owner that died between open and truncate is old */
	return st.st_size == 0 && st.st_mtime + 10 < time(NULL);
}

static int shm_region_remove_if_stale(const char *name)
{
	int fd, ret = 0;

	fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (shm_region_fd_stale(fd, name)) {
		if (!shm_unlink(name))
			ret = 1;
	}
	close(fd);
	return ret;
}

int shm_region_create(const char *name, const struct shm_layout_req *req,
		      uint32_t flags, struct shm_region **region_p)
{
	struct shm_region_hdr hdr;
	struct shm_region *r;
	struct stat st;
	uint64_t start;
	size_t size;
	int fd, ret, tries;

	if (!name || name[0] != '/' || strlen(name) >= SHM_REGION_NAME_MAX ||
	    strchr(name + 1, '/'))
		return -FI_EINVAL;
	size = shm_layout_compute(req, &hdr);
	if (!size)
		return -FI_EINVAL;
	ret = pl_proc_start_time(getpid(), &start);
	if (ret)
		return ret;

	for (tries = 0;; tries++) {
		fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			      0600);
		if (fd >= 0)
			break;
		if (errno != EEXIST || tries)
			return errno == EEXIST ? -FI_EADDRINUSE : -errno;
		if (!shm_region_remove_if_stale(name))
			return -FI_EADDRINUSE;
	}
	/* O_EXCL made the file ours; say so anyway, cheaply, before a
	 * byte goes in (a filesystem that ignored O_EXCL would hand us a
	 * stranger's file here) */
	if (fstat(fd, &st) || st.st_uid != geteuid() || st.st_size) {
		close(fd);
		return -FI_EADDRINUSE;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -FI_ENOMEM;
		goto err_unlink;
	}
	if (ftruncate(fd, (off_t)size)) {
		ret = -errno;
		goto err_free;
	}
	r->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		ret = -errno;
		goto err_free;
	}
	close(fd);
	r->size = size;
	r->owner = true;
	snprintf(r->name, sizeof(r->name), "%s", name);

	hdr.owner_pid = getpid();
	hdr.owner_start = start;
	hdr.owner_uid = getuid();
	hdr.flags = flags;
	/* the file is zero-filled, and zero is what every table starts
	 * with: each claim word FREE (its slot's first round, shm_cmdq.c
	 * (1)), no state word READY, every peer entry FREE, every channel
	 * idle. So nothing but the header is written here, and a peer's
	 * fault-around finds no page of ours to map (shm_layout.h). */
	memcpy(r->base, &hdr, sizeof(hdr));
	/* our geometry is what we computed, never what the mapping says
	 * later (any process of the user may write it) */
	r->geo = hdr;
	shm_region_set_ptrs(r);
	/* release: pairs with the acquire load in shm_region_map, so a peer
	 * that sees READY sees the header. */
	pl_store_release(&r->hdr->state, (uint32_t)SHM_REGION_READY);
	*region_p = r;
	return 0;

err_free:
	free(r);
err_unlink:
	close(fd);
	shm_unlink(name);
	return ret;
}

int shm_region_map(const char *name, struct shm_region **region_p)
{
	struct shm_region_hdr hdr;
	struct shm_region *r;
	struct stat st;
	uint32_t state;
	void *base;
	int fd, ret;

	if (!name || name[0] != '/' || strlen(name) >= SHM_REGION_NAME_MAX)
		return -FI_EINVAL;
	fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == ENOENT ? -FI_ENOENT : -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto err_close;
	}
	if (st.st_uid != geteuid()) {
		/* another user's file under our user's name: a trap */
		ret = -FI_ENOPROTOOPT;
		goto err_close;
	}
	if ((size_t)st.st_size < sizeof(hdr)) {
		ret = -FI_EAGAIN;	/* owner between open and truncate */
		goto err_close;
	}
	if (pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		ret = -FI_EIO;
		goto err_close;
	}
	if (hdr.magic != SHM_LAYOUT_MAGIC || hdr.version != SHM_LAYOUT_VERSION ||
	    hdr.hdr_size != sizeof(hdr) ||
	    hdr.total_size != (uint64_t)st.st_size) {
		/* all-zero header: the owner has not written it yet */
		ret = hdr.magic ? -FI_ENOPROTOOPT : -FI_EAGAIN;
		goto err_close;
	}
	base = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
	close(fd);
	r = calloc(1, sizeof(*r));
	if (!r) {
		munmap(base, st.st_size);
		return -FI_ENOMEM;
	}
	r->base = base;
	r->size = st.st_size;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->hdr = base;
	/* acquire: pairs with the release store of READY in create */
	state = pl_load_acquire(&r->hdr->state);
	if (state != SHM_REGION_READY) {
		ret = state == SHM_REGION_INIT ? -FI_EAGAIN : -FI_ECONNREFUSED;
		shm_region_unmap(r);
		return ret;
	}
	/* offsets and geometry as published with READY (the pread above
	 * may have seen a half-written header), copied once and checked on
	 * the copy, which is all we use from now on: the shared header may
	 * change under us at any time */
	shm_region_snapshot(r);
	if (!shm_layout_check(&r->geo, (uint64_t)st.st_size)) {
		shm_region_unmap(r);
		return -FI_ENOPROTOOPT;
	}
	shm_region_set_ptrs(r);
	if (!pl_proc_alive(r->geo.owner_pid, r->geo.owner_start)) {
		/* its owner died without closing: remove the name now
		 * rather than at some later process's first endpoint */
		(void)shm_region_remove_if_stale(name);
		shm_region_unmap(r);
		return -FI_ECONNREFUSED;
	}
	*region_p = r;
	return 0;

err_close:
	close(fd);
	return ret;
}

void shm_region_unmap(struct shm_region *r)
{
	if (!r)
		return;
	munmap(r->base, r->size);
	free(r);
}

void shm_region_close(struct shm_region *r)
{
	if (!r)
		return;
	/* release: a peer that loads CLOSING (acquire) stops pushing */
	pl_store_release(&r->hdr->state, (uint32_t)SHM_REGION_CLOSING);
	if (r->owner)
		shm_unlink(r->name);
	shm_region_unmap(r);
}

bool shm_region_owner_alive(const struct shm_region *r)
{
	/* the owner as it was when we mapped: a header rewritten since
	 * cannot make a live owner look dead, or a dead one alive */
	return pl_proc_alive(r->geo.owner_pid, r->geo.owner_start);
}

int shm_region_unlink_dead(const struct shm_region *r)
{
	if (!r || r->owner || shm_region_owner_alive(r))
		return 0;
	/* re-checks the header under the name: a live owner that took the
	 * name since is never touched */
	return shm_region_remove_if_stale(r->name);
}

int shm_region_cleanup_dead(unsigned *removed_p)
{
	char prefix[64], name[SHM_REGION_NAME_MAX + 8];
	unsigned removed = 0;
	struct dirent *de;
	size_t plen;
	DIR *dir;

	/* the prefix without its leading '/', as /dev/shm lists it */
	snprintf(prefix, sizeof(prefix), "%s%u-", SHM_REGION_PREFIX + 1,
		 (unsigned)getuid());
	plen = strlen(prefix);
	dir = opendir("/dev/shm");
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, prefix, plen) ||
		    strlen(de->d_name) >= SHM_REGION_NAME_MAX)
			continue;
		snprintf(name, sizeof(name), "/%s", de->d_name);
		removed += shm_region_remove_if_stale(name);
	}
	closedir(dir);
	if (removed_p)
		*removed_p = removed;
	return 0;
}
