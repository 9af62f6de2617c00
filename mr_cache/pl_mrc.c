/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The registration cache (pl_mrc.h).
 *
 * State of an entry:
 *   CACHED    in the tree (and on the LRU while refcnt is 0)
 *   DETACHED  out of the tree, still held: its memory changed while in
 *             use, or a merged entry replaced it; deregistered at the
 *             last pl_mrc_put
 *   UNCACHED  never in the tree (limits, no monitor, memory the monitor
 *             cannot watch); deregistered at its pl_mrc_put
 *
 * Lock: cache->lock guards the tree, the LRU, refcounts, states, the
 * counters and the invalidation cursor. It is never held across reg,
 * dereg, the monitor's subscribe/unsubscribe (a system call or the
 * application's code) or free(); work for those is collected on a local
 * "dead" list and done after unlocking. Lock order: cache->lock alone; the
 * monitor selection lock is taken only by open/close without it.
 *
 * Invalidations (pl_mrc_apply) are drained under the lock at the top of
 * every get, put, flush, stats and close, after the monitor's sync, so an
 * entry whose memory changed before the call began is never returned.
 * A miss registers without the lock. It notes the log position before
 * subscribing the range to the monitor (any change after the subscription
 * is logged at or after it) and, once the registration is made and the
 * lock retaken, re-reads the log from there with a private cursor (other
 * threads may have drained the cache's cursor past those ranges
 * meanwhile). A range that meets the new one, or a log that overflowed,
 * means the registration may be of the old pages: it is dropped and the
 * lookup starts again.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include <rdma/fi_errno.h>

#include "pl_compiler.h"
#include "pl_log.h"
#include "pl_mrc.h"
#include "pl_mrc_inval.h"
#include "pl_mrc_itree.h"
#include "pl_mrc_monitor.h"
#include "pl_mrc_param.h"

/* A miss that keeps losing its new registration to invalidations gives
 * up caching it after this many tries. */
#define PL_MRC_RETRIES 8

enum pl_mrc_state {
	PL_MRC_CACHED,
	PL_MRC_DETACHED,
	PL_MRC_UNCACHED,
};

struct pl_mrc_entry {
	struct pl_mrc_itree_node node;	/* range; lock */
	struct pl_mrc_entry *lru_prev;	/* lock; on the LRU iff CACHED && !refcnt */
	struct pl_mrc_entry *lru_next;
	struct pl_mrc_entry *next;	/* lock; a walk's or a dead list's link */
	uint64_t access;		/* constant */
	uint32_t refcnt;		/* lock */
	uint8_t state;			/* lock */
	bool subscribed;		/* constant once CACHED */
	alignas(max_align_t) unsigned char data[];
};

struct pl_mrc {
	pthread_mutex_t lock;
	struct pl_mrc_itree tree;		/* lock */
	struct pl_mrc_entry lru;		/* lock; sentinel, head = LRU */
	size_t count;				/* lock; CACHED entries */
	size_t bytes;				/* lock */
	size_t held;				/* lock; entries handed out */
	uint64_t cursor;			/* lock; invalidation log */
	struct pl_mrc_stats stats;		/* lock */
	/* Read-only after open. */
	struct pl_mrc_attr attr;
	struct pl_mrc_monitor *mon;
	size_t max_count;
	size_t max_size;
	bool enabled;		/* a monitor and non-zero limits */
};

/* Caching now: enabled, and not a forked child whose monitor watches
 * the parent (pl_mrc_monitor.h). */
static bool pl_mrc_live(const struct pl_mrc *cache)
{
	return cache->enabled && pl_mrc_monitor_usable(cache->mon);
}

/* Drain state: what pl_mrc_apply collected. */
struct pl_mrc_drain {
	struct pl_mrc *cache;
	struct pl_mrc_entry *dead;	/* to deregister after unlock */
	struct pl_mrc_entry *hits;	/* a walk's result list */
};

void *pl_mrc_entry_addr(const struct pl_mrc_entry *e)
{
	return (void *)e->node.start;
}

size_t pl_mrc_entry_len(const struct pl_mrc_entry *e)
{
	return e->node.end - e->node.start;
}

uint64_t pl_mrc_entry_access(const struct pl_mrc_entry *e)
{
	return e->access;
}

void *pl_mrc_entry_data(struct pl_mrc_entry *e)
{
	return e->data;
}

bool pl_mrc_entry_cached(const struct pl_mrc_entry *e)
{
	return e->state != PL_MRC_UNCACHED;
}

bool pl_mrc_enabled(const struct pl_mrc *cache)
{
	return pl_mrc_live(cache);
}

static const char *pl_mrc_name(const struct pl_mrc *cache)
{
	return cache->attr.name ? cache->attr.name : "mr_cache";
}

/* ---- LRU (lock held) ---- */

static void pl_mrc_lru_del(struct pl_mrc_entry *e)
{
	e->lru_prev->lru_next = e->lru_next;
	e->lru_next->lru_prev = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

static void pl_mrc_lru_add_tail(struct pl_mrc *cache, struct pl_mrc_entry *e)
{
	e->lru_prev = cache->lru.lru_prev;
	e->lru_next = &cache->lru;
	cache->lru.lru_prev->lru_next = e;
	cache->lru.lru_prev = e;
}

/* ---- removal from the tree (lock held) ---- */

/* Take e out of the tree: unused entries go to the dead list, held ones
 * become DETACHED. */
static void pl_mrc_detach(struct pl_mrc_drain *d, struct pl_mrc_entry *e)
{
	struct pl_mrc *cache = d->cache;

	pl_mrc_itree_remove(&cache->tree, &e->node);
	cache->count--;
	cache->bytes -= pl_mrc_entry_len(e);
	if (e->refcnt) {
		e->state = PL_MRC_DETACHED;
		return;
	}
	pl_mrc_lru_del(e);
	e->next = d->dead;
	d->dead = e;
}

static int pl_mrc_collect(struct pl_mrc_itree_node *n, void *arg)
{
	struct pl_mrc_drain *d = arg;
	struct pl_mrc_entry *e = pl_container_of(n, struct pl_mrc_entry, node);

	e->next = d->hits;
	d->hits = e;
	return 0;
}

static void pl_mrc_inval_range(uintptr_t start, uintptr_t end, void *arg)
{
	struct pl_mrc_drain *d = arg;
	struct pl_mrc_entry *e;

	d->hits = NULL;
	pl_mrc_itree_walk(&d->cache->tree, start, end, false, pl_mrc_collect,
			  d);
	while ((e = d->hits)) {
		d->hits = e->next;
		pl_mrc_detach(d, e);
		d->cache->stats.invalidations++;
	}
}

static void pl_mrc_inval_all(struct pl_mrc_drain *d)
{
	pl_mrc_inval_range(0, UINTPTR_MAX, d);
}

/* Drain the monitor's invalidations into the tree (lock held). */
static void pl_mrc_apply(struct pl_mrc_drain *d)
{
	struct pl_mrc *cache = d->cache;

	if (!cache->enabled)
		return;
	if (!pl_mrc_monitor_usable(cache->mon)) {
		/* Forked child: nothing watches this address space. */
		pl_mrc_inval_all(d);
		return;
	}
	if (cache->mon->ops->sync)
		cache->mon->ops->sync(cache->mon);
	if (pl_mrc_inval_consume(&cache->cursor, pl_mrc_inval_range, d)) {
		PL_INFO(FI_LOG_MR, "%s: invalidation log overflowed; dropping "
			"every cached registration\n", pl_mrc_name(cache));
		pl_mrc_inval_all(d);
	}
}

/* A registration made without the lock, not yet inserted. */
struct pl_mrc_pend {
	uintptr_t start;
	uintptr_t end;
	bool stale;
};

static void pl_mrc_pend_check(uintptr_t start, uintptr_t end, void *arg)
{
	struct pl_mrc_pend *p = arg;

	if (start < p->end && end > p->start)
		p->stale = true;
}

/*
 * Did [p->start, p->end) change since log position pos (read before the
 * range was subscribed)? Its own cursor, not the cache's: another thread
 * may have drained those ranges into the tree meanwhile. Lock held, after
 * pl_mrc_apply (whose sync makes every returned unmap visible).
 */
static bool pl_mrc_pend_stale(struct pl_mrc_pend *p, uint64_t pos)
{
	p->stale = false;
	if (pl_mrc_inval_consume(&pos, pl_mrc_pend_check, p))
		return true;	/* overwritten: cannot tell, assume so */
	return p->stale;
}

/* Deregister and free a dead list (lock not held). */
static void pl_mrc_release(struct pl_mrc *cache, struct pl_mrc_entry *dead)
{
	struct pl_mrc_entry *e;

	while ((e = dead)) {
		dead = e->next;
		cache->attr.dereg(cache->attr.ctx, e);
		if (e->subscribed && cache->mon->ops->unsubscribe)
			cache->mon->ops->unsubscribe(cache->mon, e->node.start,
						     e->node.end);
		free(e);
	}
}

/* ---- open / close ---- */

static size_t pl_mrc_limit(size_t attr_value, size_t (*env)(void))
{
	return attr_value == PL_MRC_LIMIT_ENV ? env() : attr_value;
}

int pl_mrc_open(const struct pl_mrc_attr *attr, struct pl_mrc **cache_p)
{
	struct pl_mrc *cache;
	int ret;

	if (!attr || !attr->reg || !attr->dereg || !cache_p)
		return -FI_EINVAL;
	cache = calloc(1, sizeof(*cache));
	if (!cache)
		return -FI_ENOMEM;
	cache->attr = *attr;
	pthread_mutex_init(&cache->lock, NULL);
	pl_mrc_itree_init(&cache->tree);
	cache->lru.lru_prev = cache->lru.lru_next = &cache->lru;
	cache->max_count = pl_mrc_limit(attr->max_count,
					pl_mrc_param_max_count);
	cache->max_size = pl_mrc_limit(attr->max_size, pl_mrc_param_max_size);
	ret = pl_mrc_monitor_get(&cache->mon);
	if (ret)
		goto err_free;
	/* Positions published before now concern no entry of ours. */
	cache->cursor = pl_mrc_inval_pos();
	cache->enabled = cache->mon && cache->max_count && cache->max_size;
	if (cache->mon && !cache->enabled)
		PL_INFO(FI_LOG_MR, "%s: FI_MR_CACHE_MAX_%s=0: registrations "
			"are not cached\n", pl_mrc_name(cache),
			cache->max_count ? "SIZE" : "COUNT");
	*cache_p = cache;
	return 0;

err_free:
	pthread_mutex_destroy(&cache->lock);
	free(cache);
	return ret;
}

int pl_mrc_close(struct pl_mrc *cache)
{
	struct pl_mrc_drain d = { .cache = cache };

	if (!cache)
		return -FI_EINVAL;
	pthread_mutex_lock(&cache->lock);
	if (cache->held) {
		pthread_mutex_unlock(&cache->lock);
		PL_WARN(FI_LOG_MR, "%s: closing with %zu registrations still "
			"held\n", pl_mrc_name(cache), cache->held);
		return -FI_EBUSY;
	}
	pl_mrc_apply(&d);
	d.hits = NULL;
	pl_mrc_itree_walk_all(&cache->tree, pl_mrc_collect, &d);
	while (d.hits) {
		struct pl_mrc_entry *e = d.hits;

		d.hits = e->next;
		pl_mrc_detach(&d, e);
	}
	pthread_mutex_unlock(&cache->lock);
	pl_mrc_release(cache, d.dead);

	PL_INFO(FI_LOG_MR, "%s: MR cache statistics: %llu hits, %llu misses, "
		"%llu evictions, %llu invalidations, %llu uncached\n",
		pl_mrc_name(cache), (unsigned long long)cache->stats.hits,
		(unsigned long long)cache->stats.misses,
		(unsigned long long)cache->stats.evictions,
		(unsigned long long)cache->stats.invalidations,
		(unsigned long long)cache->stats.uncached);
	pl_mrc_monitor_put(cache->mon);
	pthread_mutex_destroy(&cache->lock);
	free(cache);
	return 0;
}

/* ---- get / put ---- */

struct pl_mrc_find {
	uintptr_t start;
	uintptr_t end;
	uint64_t access;
	struct pl_mrc_entry *found;
	/* merge: the union of everything met */
	uintptr_t ustart;
	uintptr_t uend;
	uint64_t uaccess;
};

static int pl_mrc_find_containing(struct pl_mrc_itree_node *n, void *arg)
{
	struct pl_mrc_find *f = arg;
	struct pl_mrc_entry *e = pl_container_of(n, struct pl_mrc_entry, node);

	if (n->start <= f->start && n->end >= f->end &&
	    (e->access & f->access) == f->access) {
		f->found = e;
		return 1;
	}
	return 0;
}

static int pl_mrc_find_union(struct pl_mrc_itree_node *n, void *arg)
{
	struct pl_mrc_find *f = arg;
	struct pl_mrc_entry *e = pl_container_of(n, struct pl_mrc_entry, node);

	f->ustart = PL_MIN(f->ustart, n->start);
	f->uend = PL_MAX(f->uend, n->end);
	f->uaccess |= e->access;
	return 0;
}

static struct pl_mrc_entry *pl_mrc_entry_new(struct pl_mrc *cache,
					     uintptr_t start, uintptr_t end,
					     uint64_t access)
{
	struct pl_mrc_entry *e;

	e = calloc(1, sizeof(*e) + cache->attr.data_size);
	if (!e)
		return NULL;
	e->node.start = start;
	e->node.end = end;
	e->access = access;
	e->refcnt = 1;
	e->state = PL_MRC_UNCACHED;
	return e;
}

/* A registration outside the cache. */
static int pl_mrc_get_uncached(struct pl_mrc *cache, uintptr_t start,
			       uintptr_t end, uint64_t access,
			       struct pl_mrc_entry **entry_p)
{
	struct pl_mrc_entry *e;
	int ret;

	e = pl_mrc_entry_new(cache, start, end, access);
	if (!e)
		return -FI_ENOMEM;
	ret = cache->attr.reg(cache->attr.ctx, e);
	if (ret) {
		free(e);
		return ret;
	}
	pthread_mutex_lock(&cache->lock);
	cache->stats.uncached++;
	cache->held++;
	pthread_mutex_unlock(&cache->lock);
	*entry_p = e;
	return 0;
}

/* Make room for len more bytes; false if entries in use leave none. */
static bool pl_mrc_make_room(struct pl_mrc_drain *d, size_t len)
{
	struct pl_mrc *cache = d->cache;
	struct pl_mrc_entry *e;

	/* Evicting cannot help an entry larger than the whole cache. */
	if (len > cache->max_size)
		return false;
	while (cache->count + 1 > cache->max_count ||
	       cache->bytes > cache->max_size - len) {
		e = cache->lru.lru_next;
		if (e == &cache->lru)
			return false;
		pl_mrc_detach(d, e);
		cache->stats.evictions++;
	}
	return true;
}

static bool pl_mrc_args_valid(const void *addr, size_t len, uint64_t access)
{
	uintptr_t start = (uintptr_t)addr;

	return addr && len && start + len > start && access &&
	       !(access & ~(uint64_t)PL_MRC_ACCESS_MASK);
}

int pl_mrc_get(struct pl_mrc *cache, const void *addr, size_t len,
	       uint64_t access, struct pl_mrc_entry **entry_p)
{
	struct pl_mrc_drain d = { .cache = cache };
	struct pl_mrc_pend pend;
	struct pl_mrc_find f;
	struct pl_mrc_entry *e = NULL;
	uint64_t pos;
	uintptr_t start = (uintptr_t)addr, end = start + len;
	int ret, tries;

	if (!cache || !entry_p || !pl_mrc_args_valid(addr, len, access))
		return -FI_EINVAL;
	if (!pl_mrc_live(cache))
		goto uncached;

	for (tries = 0; tries < PL_MRC_RETRIES; tries++) {
		pthread_mutex_lock(&cache->lock);
		pl_mrc_apply(&d);
		if (!pl_mrc_live(cache)) {
			pthread_mutex_unlock(&cache->lock);
			pl_mrc_release(cache, d.dead);
			goto uncached;
		}
		f = (struct pl_mrc_find){ .start = start, .end = end,
			.access = access, .ustart = start, .uend = end,
			.uaccess = access };
		pl_mrc_itree_walk(&cache->tree, start, end, false,
				  pl_mrc_find_containing, &f);
		if (f.found && cache->mon->ops->valid &&
		    !cache->mon->ops->valid(cache->mon, f.found->node.start,
					    f.found->node.end)) {
			pl_mrc_detach(&d, f.found);
			cache->stats.invalidations++;
			f.found = NULL;
		}
		if (f.found) {
			e = f.found;
			if (!e->refcnt++)
				pl_mrc_lru_del(e);
			cache->stats.hits++;
			cache->held++;
			pthread_mutex_unlock(&cache->lock);
			pl_mrc_release(cache, d.dead);
			*entry_p = e;
			return 0;
		}
		if (!tries)
			cache->stats.misses++;
		if (cache->attr.flags & PL_MRC_MERGE)
			pl_mrc_itree_walk(&cache->tree, start, end, true,
					  pl_mrc_find_union, &f);
		pthread_mutex_unlock(&cache->lock);
		pl_mrc_release(cache, d.dead);
		d.dead = NULL;

		e = pl_mrc_entry_new(cache, f.ustart, f.uend, f.uaccess);
		if (!e)
			return -FI_ENOMEM;
		/* Whatever changes the range once it is subscribed is logged
		 * at or after pos; checked before the entry is inserted. */
		pos = pl_mrc_inval_pos();
		if (cache->mon->ops->subscribe(cache->mon, f.ustart, f.uend)) {
			/* Memory the monitor cannot watch: never cached. */
			free(e);
			goto uncached;
		}
		e->subscribed = true;
		ret = cache->attr.reg(cache->attr.ctx, e);
		if (ret) {
			if (cache->mon->ops->unsubscribe)
				cache->mon->ops->unsubscribe(cache->mon,
							     f.ustart, f.uend);
			free(e);
			/* The merged range may hold what this one lacks. */
			if (f.ustart != start || f.uend != end)
				goto uncached;
			return ret;
		}

		pthread_mutex_lock(&cache->lock);
		pl_mrc_apply(&d);
		pend.start = f.ustart;
		pend.end = f.uend;
		if (!pl_mrc_live(cache) || pl_mrc_pend_stale(&pend, pos)) {
			/* Pages changed while we registered: start again. */
			pthread_mutex_unlock(&cache->lock);
			e->next = d.dead;
			pl_mrc_release(cache, e);
			d.dead = NULL;
			continue;
		}
		if (cache->attr.flags & PL_MRC_MERGE) {
			/* Entries inside the new range are redundant now. */
			d.hits = NULL;
			pl_mrc_itree_walk(&cache->tree, f.ustart, f.uend,
					  false, pl_mrc_collect, &d);
			while (d.hits) {
				struct pl_mrc_entry *o = d.hits;

				d.hits = o->next;
				if (o->node.start >= f.ustart &&
				    o->node.end <= f.uend)
					pl_mrc_detach(&d, o);
			}
		}
		if (pl_mrc_make_room(&d, f.uend - f.ustart)) {
			e->state = PL_MRC_CACHED;
			pl_mrc_itree_insert(&cache->tree, &e->node);
			cache->count++;
			cache->bytes += f.uend - f.ustart;
		} else {
			cache->stats.uncached++;
		}
		cache->held++;
		pthread_mutex_unlock(&cache->lock);
		pl_mrc_release(cache, d.dead);
		*entry_p = e;
		return 0;
	}
uncached:
	return pl_mrc_get_uncached(cache, start, end, access, entry_p);
}

void pl_mrc_put(struct pl_mrc *cache, struct pl_mrc_entry *e)
{
	struct pl_mrc_drain d = { .cache = cache };

	if (!cache || !e)
		return;
	pthread_mutex_lock(&cache->lock);
	pl_mrc_apply(&d);
	cache->held--;
	if (!--e->refcnt) {
		if (e->state == PL_MRC_CACHED) {
			pl_mrc_lru_add_tail(cache, e);
		} else {
			e->next = d.dead;
			d.dead = e;
		}
	}
	pthread_mutex_unlock(&cache->lock);
	pl_mrc_release(cache, d.dead);
}

void pl_mrc_flush(struct pl_mrc *cache)
{
	struct pl_mrc_drain d = { .cache = cache };

	pthread_mutex_lock(&cache->lock);
	pl_mrc_apply(&d);
	while (cache->lru.lru_next != &cache->lru)
		pl_mrc_detach(&d, cache->lru.lru_next);
	pthread_mutex_unlock(&cache->lock);
	pl_mrc_release(cache, d.dead);
}

void pl_mrc_stats_get(struct pl_mrc *cache, struct pl_mrc_stats *stats_p)
{
	struct pl_mrc_drain d = { .cache = cache };

	pthread_mutex_lock(&cache->lock);
	pl_mrc_apply(&d);
	*stats_p = cache->stats;
	stats_p->count = cache->count;
	stats_p->bytes = cache->bytes;
	pthread_mutex_unlock(&cache->lock);
	pl_mrc_release(cache, d.dead);
}
