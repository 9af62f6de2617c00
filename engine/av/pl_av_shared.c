/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A named AV: the append-only table in shared memory (protocol and labels
 * S0..S4 / L0..L3: pl_av_shared_layout.h) and this process's view of it.
 *
 * The view is the current mapping of the slot area. When another process
 * grows the table past it, the next access to a slot beyond it maps the
 * larger file (under the view mutex), publishes the new view with RCU and
 * unmaps the old one after a grace period, so a lookup that still holds a
 * pointer into the old mapping keeps reading valid memory. The mapping is
 * the only thing RCU protects here: the slots themselves are never
 * rewritten once published, by any process.
 *
 * The reverse map is process-local (liburcu-cds nodes cannot live in
 * shared memory) and lags behind the shared table: it is brought up to
 * date from the slots below hdr.count (L2) whenever a reverse lookup
 * misses and before every insert (which also makes duplicate detection
 * see the other processes' inserts). A node whose slot another process
 * marked removed is ignored by lookups and replaced when the address is
 * inserted again.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_rcu.h"
#include "pl_av_rhash.h"
#include "pl_av_shared.h"
#include "pl_av_shared_layout.h"
#include "pl_av_table.h"
#include "pl_compiler.h"
#include "pl_log.h"

/* the fi_addr_t table's entries are 64-bit words (layout header) */
static_assert(sizeof(fi_addr_t) == sizeof(uint64_t), "table entries");

#define PL_AV_SHARED_MIN_SLOTS	64
#define PL_AV_SHARED_OPEN_TRIES	100

struct pl_av_shared_view {
	struct rcu_head rcu;
	unsigned char *base;	/* slot 0 */
	uint64_t nslots;	/* slots mapped (all within the file) */
	size_t map_len;
};

/* A local reverse-map node: the address is copied behind it. */
struct pl_av_shared_node {
	struct rcu_head rcu;
	struct pl_av_rhash_node rnode;
	unsigned char key[] __attribute__((aligned(8)));
};

struct pl_av_shared {
	pl_atomic_ptr view;		/* struct pl_av_shared_view *, RCU */
	pthread_mutex_t lock;		/* the view mutex: view, rhash
					 * membership, synced */
	struct pl_av_shm_hdr *hdr;	/* header page, mapped while open */
	pl_atomic_u64 *map;		/* the fi_addr_t table, mapped while
					 * open (read-only for FI_READ) */
	struct pl_av_rhash *rhash;	/* local reverse map */
	uint64_t synced;		/* slots scanned into rhash (lock) */
	size_t addrlen;
	size_t slot_size;
	int fd;
	bool read_only;
	char shm_name[NAME_MAX + 1];
};

/* Take (type F_RDLCK/F_WRLCK) or drop (F_UNLCK) the OFD lock on byte. */
static int pl_av_shared_ofd(int fd, short type, off_t byte, bool wait)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = byte,
		.l_len = 1,
	};

	while (fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

int pl_av_shared_shm_name(const char *name, char *buf, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char clean[97];
	size_t i, n = 0;
	int ret;

	if (!name || !*name || !buf)
		return -FI_EINVAL;
	/* Readable prefix, plus a hash of the whole name so that two names
	 * that clean up to the same prefix still get distinct objects. */
	for (i = 0; name[i]; i++) {
		unsigned char c = (unsigned char)name[i];

		h = (h ^ c) * 0x100000001b3ULL;
		if (n < sizeof(clean) - 1)
			clean[n++] = (isalnum(c) || c == '-' || c == '_') ?
				     (char)c : '_';
	}
	clean[n] = '\0';
	ret = snprintf(buf, len, "/propel-av.%u.%s.%016llx",
		       (unsigned)geteuid(), clean, (unsigned long long)h);
	if (ret < 0 || (size_t)ret >= len)
		return -FI_EINVAL;
	return 0;
}

static void pl_av_shared_view_free_cb(struct rcu_head *head)
{
	struct pl_av_shared_view *v =
		caa_container_of(head, struct pl_av_shared_view, rcu);

	pl_rcu_reclaim_begin(head);
	munmap(v->base, v->map_len);
	free(v);
}

static struct pl_av_shared_view *pl_av_shared_view_map(struct pl_av_shared *sh,
							uint64_t nslots)
{
	struct pl_av_shared_view *v = malloc(sizeof(*v));
	int prot = sh->read_only ? PROT_READ : PROT_READ | PROT_WRITE;

	if (!v)
		return NULL;
	v->nslots = nslots;
	v->map_len = (size_t)nslots * sh->slot_size;
	v->base = mmap(NULL, v->map_len, prot, MAP_SHARED, sh->fd,
		       PL_AV_SHM_SLOTS_OFF);
	if (v->base == MAP_FAILED) {
		PL_WARN(FI_LOG_AV, "mmap of %s (%zu bytes): %s\n",
			sh->shm_name, v->map_len, strerror(errno));
		free(v);
		return NULL;
	}
	return v;
}

static struct pl_av_shm_slot *pl_av_shared_slot(struct pl_av_shared *sh,
						struct pl_av_shared_view *v,
						uint64_t idx)
{
	if (idx >= v->nslots)
		return NULL;
	return (struct pl_av_shm_slot *)(v->base + idx * sh->slot_size);
}

/*
 * View mutex held: a view that maps slot idx if the file has it, else the
 * current one. Never waits for a grace period (the old view goes through
 * call_rcu), so it may run inside a read-side section.
 */
static struct pl_av_shared_view *pl_av_shared_refresh(struct pl_av_shared *sh,
						      uint64_t idx)
{
	/* Relaxed: only the mutex holder stores the view. */
	struct pl_av_shared_view *v = pl_load_relaxed(&sh->view), *nv;
	uint64_t cap;

	if (idx < v->nslots)
		return v;
	cap = pl_load_acquire(&sh->hdr->capacity);	/* L3, pairs with S3 */
	if (idx >= cap)
		return v;
	nv = pl_av_shared_view_map(sh, cap);
	if (!nv)
		return v;
	pl_rcu_assign(&sh->view, nv);	/* pairs with the lookup's deref */
	pl_rcu_call(&v->rcu, pl_av_shared_view_free_cb);
	return nv;
}

const void *pl_av_shared_lookup(struct pl_av_shared *sh, fi_addr_t handle)
{
	struct pl_av_shared_view *v;
	struct pl_av_shm_slot *slot;

	/* Generation 0 only: shared slots are never reused. */
	if (PL_UNLIKELY(handle > PL_AV_IDX_MAX))
		return NULL;
	v = pl_rcu_deref(&sh->view);
	slot = pl_av_shared_slot(sh, v, handle);
	if (PL_UNLIKELY(!slot)) {
		/* Another process grew the table: map the larger file. */
		pthread_mutex_lock(&sh->lock);
		v = pl_av_shared_refresh(sh, handle);
		pthread_mutex_unlock(&sh->lock);
		slot = pl_av_shared_slot(sh, v, handle);
		if (!slot)
			return NULL;
	}
	/* L1, pairs with S1: the address bytes were written before. */
	if (pl_load_acquire(&slot->state) != PL_AV_SHM_VALID)
		return NULL;
	return slot->addr;
}

static void pl_av_shared_node_free_cb(struct rcu_head *head)
{
	struct pl_av_shared_node *node =
		caa_container_of(head, struct pl_av_shared_node, rcu);

	pl_rcu_reclaim_begin(head);
	free(node);
}

static void pl_av_shared_node_drop(struct pl_av_shared_node *node)
{
	pl_rcu_call(&node->rcu, pl_av_shared_node_free_cb);
}

/* Whether slot idx holds a published address; view mutex held. */
static bool pl_av_shared_valid_locked(struct pl_av_shared *sh, uint64_t idx)
{
	struct pl_av_shm_slot *slot;

	slot = pl_av_shared_slot(sh, pl_av_shared_refresh(sh, idx), idx);
	/* L1 (or under the writer lock, where it reads our own S1/S4). */
	return slot && pl_load_acquire(&slot->state) == PL_AV_SHM_VALID;
}

/* Map addr to idx in the local reverse map; view mutex held. */
static int pl_av_shared_node_add(struct pl_av_shared *sh, uint64_t idx,
				 const void *addr)
{
	struct pl_av_shared_node *node;
	struct pl_av_rhash_node *got;

	node = malloc(sizeof(*node) + sh->addrlen);
	if (!node)
		return -FI_ENOMEM;
	memcpy(node->key, addr, sh->addrlen);
	node->rnode.key = node->key;
	node->rnode.fi_addr = idx;
	got = pl_av_rhash_add(sh->rhash, &node->rnode);
	if (got == &node->rnode)
		return 0;
	/* The address was mapped before. Nodes are added and deleted only
	 * under the view mutex, which we hold, so got stays linked. */
	if (pl_av_shared_valid_locked(sh, got->fi_addr)) {
		free(node);	/* never linked: no grace period needed */
		return 0;
	}
	pl_av_rhash_del(sh->rhash, got);
	pl_av_shared_node_drop(caa_container_of(got, struct pl_av_shared_node,
						rnode));
	got = pl_av_rhash_add(sh->rhash, &node->rnode);
	if (got != &node->rnode)
		free(node);
	return 0;
}

/* Bring the reverse map up to date with the shared table; view mutex
 * held. */
static void pl_av_shared_sync(struct pl_av_shared *sh)
{
	uint64_t count = pl_load_acquire(&sh->hdr->count); /* L2, pairs S2 */
	struct pl_av_shared_view *v;
	uint64_t i;

	if (count <= sh->synced)
		return;
	v = pl_av_shared_refresh(sh, count - 1);
	for (i = sh->synced; i < count; i++) {
		struct pl_av_shm_slot *slot = pl_av_shared_slot(sh, v, i);

		if (!slot)
			break;
		/* L1, pairs with S1. */
		if (pl_load_acquire(&slot->state) != PL_AV_SHM_VALID)
			continue;
		if (pl_av_shared_node_add(sh, i, slot->addr))
			break;	/* out of memory: retried next time */
	}
	sh->synced = i;
}

int pl_av_shared_reverse(struct pl_av_shared *sh, const void *addr,
			 fi_addr_t *fi_addr_p)
{
	struct pl_av_rhash_node *node;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		node = pl_av_rhash_lookup(sh->rhash, addr);
		if (node && pl_av_shared_lookup(sh, node->fi_addr)) {
			*fi_addr_p = node->fi_addr;
			return 0;
		}
		if (pass == 0) {
			pthread_mutex_lock(&sh->lock);
			pl_av_shared_sync(sh);
			pthread_mutex_unlock(&sh->lock);
		}
	}
	return -FI_ENODATA;
}

/* Append addr as a new slot; view mutex and writer lock held. */
uint64_t pl_av_shared_count(struct pl_av_shared *sh)
{
	/* Acquire: pairs with S2 in pl_av_shared_append (any process); the
	 * caller only reports the number, but the pairing keeps it no older
	 * than what this process's lookups can already see. */
	return pl_load_acquire(&sh->hdr->count);
}

/*
 * Writer lock held: blocks for a table of cap slots (and their entries of
 * the fi_addr_t table, entries [from, cap) set to FI_ADDR_NOTAVAIL).
 * fallocate, not ftruncate: a full tmpfs must fail here, not with SIGBUS
 * when a slot is first written. The table's range past the capacity
 * stays a hole.
 */
static int pl_av_shared_alloc(struct pl_av_shared *sh, uint64_t from,
			      uint64_t cap)
{
	uint64_t nmap = cap < PL_AV_SHM_MAP_ENTRIES ? cap :
			PL_AV_SHM_MAP_ENTRIES, i;
	int ret;

	ret = posix_fallocate(sh->fd, PL_AV_SHM_SLOTS_OFF,
			      (off_t)(cap * sh->slot_size));
	if (!ret && nmap)
		ret = posix_fallocate(sh->fd, PL_AV_SHM_MAP_OFF,
				      (off_t)(nmap * sizeof(uint64_t)));
	if (ret) {
		PL_WARN(FI_LOG_AV, "growing %s: %s\n", sh->shm_name,
			strerror(ret));
		return ret == ENOSPC ? -FI_ENOSPC : -FI_EIO;
	}
	for (i = from; i < nmap; i++)
		/* relaxed: published with the capacity (S3) or the magic
		 * (S0) that follows */
		pl_store_relaxed(&sh->map[i], (uint64_t)FI_ADDR_NOTAVAIL);
	return 0;
}

static int pl_av_shared_append(struct pl_av_shared *sh, const void *addr,
			       fi_addr_t *fi_addr_p)
{
	struct pl_av_shm_hdr *hdr = sh->hdr;
	struct pl_av_shm_slot *slot;
	uint64_t idx, cap;
	int ret;

	/* Acquire: the previous writer (maybe another process) stored them. */
	idx = pl_load_acquire(&hdr->count);
	cap = pl_load_acquire(&hdr->capacity);
	if (idx > PL_AV_IDX_MAX)
		return -FI_ENOSPC;
	if (idx >= cap) {
		uint64_t ncap = cap * 2;

		ret = pl_av_shared_alloc(sh, cap, ncap);
		if (ret)
			return ret;
		pl_store_release(&hdr->capacity, ncap);	/* S3, pairs with L3 */
	}
	slot = pl_av_shared_slot(sh, pl_av_shared_refresh(sh, idx), idx);
	if (!slot)
		return -FI_ENOMEM;
	/* A writer that died between S1 and S2 may have left a VALID slot
	 * here; nobody was given its index, so it is ours to rewrite. */
	pl_store_relaxed(&slot->state, PL_AV_SHM_FREE);
	memcpy(slot->addr, addr, sh->addrlen);
	slot->refcnt = 1;
	pl_store_release(&slot->state, PL_AV_SHM_VALID);	/* S1 */
	if (idx < PL_AV_SHM_MAP_ENTRIES)
		pl_store_release(&sh->map[idx], idx);		/* S5 */
	pl_store_release(&hdr->count, idx + 1);			/* S2 */
	if (sh->synced == idx && !pl_av_shared_node_add(sh, idx, addr))
		sh->synced = idx + 1;
	*fi_addr_p = idx;
	return 0;
}

int pl_av_shared_insert(struct pl_av_shared *sh, const void *addr,
			fi_addr_t *fi_addr_p)
{
	struct pl_av_rhash_node *node;
	fi_addr_t fi_addr = FI_ADDR_NOTAVAIL;
	int ret;

	pthread_mutex_lock(&sh->lock);
	ret = pl_av_shared_ofd(sh->fd, F_WRLCK, PL_AV_SHM_LOCK_WRITER, true);
	if (ret) {
		ret = -FI_EIO;
		goto out_unlock;
	}
	pl_av_shared_sync(sh);
	pl_rcu_read_lock();
	node = pl_av_rhash_lookup(sh->rhash, addr);
	if (node && pl_av_shared_valid_locked(sh, node->fi_addr)) {
		struct pl_av_shm_slot *slot;

		/* Relaxed: the view mutex is held; only its holder
		 * stores the view. */
		slot = pl_av_shared_slot(sh, pl_load_relaxed(&sh->view),
					 node->fi_addr);
		slot->refcnt++;		/* writer lock held */
		fi_addr = node->fi_addr;
	}
	pl_rcu_read_unlock();
	if (fi_addr == FI_ADDR_NOTAVAIL)
		ret = pl_av_shared_append(sh, addr, &fi_addr);
	(void)pl_av_shared_ofd(sh->fd, F_UNLCK, PL_AV_SHM_LOCK_WRITER, false);
	if (!ret)
		*fi_addr_p = fi_addr;
out_unlock:
	pthread_mutex_unlock(&sh->lock);
	return ret;
}

int pl_av_shared_remove(struct pl_av_shared *sh, fi_addr_t handle)
{
	struct pl_av_shm_slot *slot;
	struct pl_av_rhash_node *node;
	int ret;

	if (handle > PL_AV_IDX_MAX)
		return -FI_EINVAL;
	pthread_mutex_lock(&sh->lock);
	ret = pl_av_shared_ofd(sh->fd, F_WRLCK, PL_AV_SHM_LOCK_WRITER, true);
	if (ret) {
		ret = -FI_EIO;
		goto out_unlock;
	}
	if (!pl_av_shared_valid_locked(sh, handle)) {
		ret = -FI_EINVAL;
		goto out_ofd;
	}
	/* Relaxed: view mutex held (only its holder stores the view). */
	slot = pl_av_shared_slot(sh, pl_load_relaxed(&sh->view), handle);
	if (--slot->refcnt)
		goto out_ofd;
	pl_store_release(&slot->state, PL_AV_SHM_REMOVED);	/* S4 */
	if (handle < PL_AV_SHM_MAP_ENTRIES)			/* S5 */
		pl_store_release(&sh->map[handle],
				 (uint64_t)FI_ADDR_NOTAVAIL);
	pl_rcu_read_lock();
	node = pl_av_rhash_lookup(sh->rhash, slot->addr);
	if (node && node->fi_addr == handle) {
		pl_av_rhash_del(sh->rhash, node);
		pl_av_shared_node_drop(caa_container_of(
			node, struct pl_av_shared_node, rnode));
	}
	pl_rcu_read_unlock();
out_ofd:
	(void)pl_av_shared_ofd(sh->fd, F_UNLCK, PL_AV_SHM_LOCK_WRITER, false);
out_unlock:
	pthread_mutex_unlock(&sh->lock);
	return ret;
}

/* Map the fi_addr_t table (the file covers its range: format, or the
 * size check of a formatted table). */
static int pl_av_shared_map_table(struct pl_av_shared *sh)
{
	void *p;

	if (sh->map)
		return 0;
	p = mmap(NULL, PL_AV_SHM_MAP_ENTRIES * sizeof(uint64_t),
		 sh->read_only ? PROT_READ : PROT_READ | PROT_WRITE,
		 MAP_SHARED, sh->fd, PL_AV_SHM_MAP_OFF);
	if (p == MAP_FAILED) {
		PL_WARN(FI_LOG_AV, "mmap of %s's table: %s\n", sh->shm_name,
			strerror(errno));
		return -FI_ENOMEM;
	}
	sh->map = p;
	return 0;
}

static void pl_av_shared_unmap_table(struct pl_av_shared *sh)
{
	if (sh->map)
		munmap(sh->map, PL_AV_SHM_MAP_ENTRIES * sizeof(uint64_t));
	sh->map = NULL;
}

/* Writer lock held: lay out a fresh table, discarding any old content. */
static int pl_av_shared_format(struct pl_av_shared *sh, size_t count,
			       enum fi_av_type type, uint64_t map_addr)
{
	struct pl_av_shm_hdr *hdr = sh->hdr;
	uint64_t cap = PL_AV_SHARED_MIN_SLOTS;
	int ret;

	while (cap < count && cap <= PL_AV_IDX_MAX / 2)
		cap *= 2;
	if (ftruncate(sh->fd, 0) ||
	    ftruncate(sh->fd, (off_t)PL_AV_SHM_SLOTS_OFF))
		return -FI_EIO;
	ret = posix_fallocate(sh->fd, 0, PL_AV_SHM_HDR_SIZE);
	if (ret)
		return ret == ENOSPC ? -FI_ENOSPC : -FI_EIO;
	ret = pl_av_shared_map_table(sh);
	if (ret)
		return ret;
	ret = pl_av_shared_alloc(sh, 0, cap);
	if (ret)
		return ret;
	hdr->version = PL_AV_SHM_VERSION;
	hdr->hdr_size = PL_AV_SHM_HDR_SIZE;
	hdr->addrlen = (uint32_t)sh->addrlen;
	hdr->slot_size = (uint32_t)sh->slot_size;
	hdr->av_type = (uint32_t)type;
	hdr->map_addr = map_addr;
	pl_store_relaxed(&hdr->count, 0);	/* published by S0 */
	pl_store_relaxed(&hdr->capacity, cap);	/* published by S0 */
	pl_store_release(&hdr->magic, PL_AV_SHM_MAGIC);		/* S0 */
	return 0;
}

/*
 * Open the object and get it initialized, once: the open lock first (and
 * a check that the name was not unlinked meanwhile by a last closer), then
 * the writer lock, under which an opener that finds itself alone or the
 * table unformatted formats it.
 */
static int pl_av_shared_attach(struct pl_av_shared *sh, size_t count,
			       enum fi_av_type type, uint64_t map_addr)
{
	struct stat st;
	bool alone;
	int tries, ret;

	for (tries = 0; tries < PL_AV_SHARED_OPEN_TRIES; tries++) {
		sh->fd = shm_open(sh->shm_name, O_RDWR | O_CLOEXEC |
				  (sh->read_only ? 0 : O_CREAT), 0600);
		if (sh->fd < 0)
			return errno == ENOENT ? -FI_ENOENT :
			       errno == EACCES ? -FI_EACCES : -FI_EIO;
		ret = -FI_EIO;
		if (fstat(sh->fd, &st))
			goto err_close;
		if (st.st_uid != geteuid() || (st.st_mode & 077)) {
			PL_WARN(FI_LOG_AV, "%s: not ours or not mode 0600\n",
				sh->shm_name);
			ret = -FI_EACCES;
			goto err_close;
		}
		if (pl_av_shared_ofd(sh->fd, F_RDLCK, PL_AV_SHM_LOCK_OPEN, true))
			goto err_close;
		if (fstat(sh->fd, &st))
			goto err_close;
		if (st.st_nlink == 0) {		/* unlinked by a last closer */
			close(sh->fd);
			continue;
		}
		break;
	}
	if (tries == PL_AV_SHARED_OPEN_TRIES)
		return -FI_EIO;
	if (pl_av_shared_ofd(sh->fd, F_WRLCK, PL_AV_SHM_LOCK_WRITER, true))
		goto err_close;
	alone = !pl_av_shared_ofd(sh->fd, F_WRLCK, PL_AV_SHM_LOCK_OPEN, false);
	if (alone)	/* back to a shared hold; our own lock, cannot fail */
		(void)pl_av_shared_ofd(sh->fd, F_RDLCK, PL_AV_SHM_LOCK_OPEN,
				       false);
	sh->hdr = mmap(NULL, PL_AV_SHM_HDR_SIZE,
		       sh->read_only ? PROT_READ : PROT_READ | PROT_WRITE,
		       MAP_SHARED, sh->fd, 0);
	if (sh->hdr == MAP_FAILED) {
		sh->hdr = NULL;
		goto err_unlock;
	}
	if (fstat(sh->fd, &st))
		goto err_unlock;
	/* Alone: any content is a dead job's. Not alone and formatted: the
	 * live openers' table. The header is touched only once the file is
	 * known to cover it. */
	if (alone || st.st_size < PL_AV_SHM_HDR_SIZE ||
	    pl_load_acquire(&sh->hdr->magic) != PL_AV_SHM_MAGIC) { /* L0 */
		ret = sh->read_only ? -FI_ENOENT :
		      pl_av_shared_format(sh, count, type, map_addr);
		if (ret)
			goto err_unlock;
	} else if (sh->hdr->version != PL_AV_SHM_VERSION ||
		   sh->hdr->hdr_size != PL_AV_SHM_HDR_SIZE ||
		   sh->hdr->addrlen != sh->addrlen ||
		   sh->hdr->slot_size != sh->slot_size) {
		PL_WARN(FI_LOG_AV, "%s: layout v%u addrlen %u, want v%u "
			"addrlen %zu\n", sh->shm_name, sh->hdr->version,
			sh->hdr->addrlen, PL_AV_SHM_VERSION, sh->addrlen);
		ret = -FI_EINVAL;
		goto err_unlock;
	} else {
		/* a formatted table of our version: the file covers the
		 * fi_addr_t table's range (format made it so) */
		ret = -FI_EINVAL;
		if (fstat(sh->fd, &st) ||
		    (uint64_t)st.st_size < PL_AV_SHM_SLOTS_OFF)
			goto err_unlock;
		ret = pl_av_shared_map_table(sh);
		if (ret)
			goto err_unlock;
	}
	(void)pl_av_shared_ofd(sh->fd, F_UNLCK, PL_AV_SHM_LOCK_WRITER, false);
	return 0;

err_unlock:
	pl_av_shared_unmap_table(sh);
	if (sh->hdr)
		munmap(sh->hdr, PL_AV_SHM_HDR_SIZE);
	sh->hdr = NULL;
err_close:
	close(sh->fd);	/* drops every OFD lock of this description */
	sh->fd = -1;
	return ret;
}

int pl_av_shared_open(const char *name, size_t addrlen, bool read_only,
		      size_t count, enum fi_av_type *type, void **map_addr,
		      struct pl_av_shared **sh_p)
{
	struct pl_av_shared_view *v;
	struct pl_av_shared *sh;
	int ret;

	if (!addrlen || addrlen > PL_AV_SHM_ADDRLEN_MAX)
		return -FI_EINVAL;
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return -FI_ENOMEM;
	sh->addrlen = addrlen;
	sh->slot_size = pl_av_shm_slot_size(addrlen);
	sh->read_only = read_only;
	sh->fd = -1;
	ret = pl_av_shared_shm_name(name, sh->shm_name, sizeof(sh->shm_name));
	if (ret)
		goto err_free;
	ret = pthread_mutex_init(&sh->lock, NULL) ? -FI_ENOMEM : 0;
	if (ret)
		goto err_free;
	ret = pl_av_shared_attach(sh, count, *type, (uintptr_t)*map_addr);
	if (ret)
		goto err_mutex;
	ret = pl_av_rhash_open(addrlen, count, &sh->rhash);
	if (ret)
		goto err_detach;
	ret = -FI_ENOMEM;
	v = pl_av_shared_view_map(sh, pl_load_acquire(&sh->hdr->capacity));
	if (!v)						/* L3 above */
		goto err_rhash;
	pl_store_relaxed(&sh->view, v);		/* not shared yet */
	if (*type == FI_AV_UNSPEC)
		*type = (enum fi_av_type)sh->hdr->av_type;
	if (!*map_addr)
		*map_addr = sh->map;
	*sh_p = sh;
	return 0;

err_rhash:
	pl_av_rhash_close(sh->rhash);
err_detach:
	pl_av_shared_unmap_table(sh);
	munmap(sh->hdr, PL_AV_SHM_HDR_SIZE);
	close(sh->fd);
err_mutex:
	pthread_mutex_destroy(&sh->lock);
err_free:
	free(sh);
	return ret;
}

static void pl_av_shared_drain_node(struct pl_av_rhash_node *rnode,
				    void *arg)
{
	pl_av_shared_node_drop(caa_container_of(rnode,
						struct pl_av_shared_node,
						rnode));
}

void pl_av_shared_close(struct pl_av_shared *sh)
{
	struct pl_av_shared_view *v = pl_load_relaxed(&sh->view); /* alone */

	pl_rcu_call(&v->rcu, pl_av_shared_view_free_cb);
	pl_av_rhash_drain(sh->rhash, pl_av_shared_drain_node, NULL);
	pl_av_rhash_close(sh->rhash);
	/* Whoever can take the open lock exclusively holds the last open
	 * AV of this name on the node: the name goes, the memory goes when
	 * the last mapping does. */
	if (!pl_av_shared_ofd(sh->fd, F_WRLCK, PL_AV_SHM_LOCK_OPEN, false))
		shm_unlink(sh->shm_name);
	pl_av_shared_unmap_table(sh);
	munmap(sh->hdr, PL_AV_SHM_HDR_SIZE);
	close(sh->fd);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}
