/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The userfaultfd monitor.
 *
 * Registration mode. A cached range is registered with the uffd in
 * write-protect mode (UFFDIO_REGISTER_MODE_WP) and nothing is ever
 * write-protected, so no page fault of the application is ever reported
 * to us or delayed: WP faults only arise on pages marked with
 * UFFDIO_WRITEPROTECT. (MODE_MISSING would make every first touch of a
 * page wait for a reader.) The registration is what makes the kernel
 * report the non-cooperative events for the range: UNMAP (munmap, brk
 * shrink, mmap MAP_FIXED over it, mremap shrink), REMOVE
 * (madvise DONTNEED/FREE/REMOVE) and REMAP (mremap moving it). Without
 * UFFD_FEATURE_EVENT_FORK a forked child's copies of the ranges are not
 * registered, so the child's munmaps neither wait for us nor reach us.
 * The uffd is opened with UFFD_USER_MODE_ONLY (no kernel-mode faults:
 * we handle none), which unprivileged users need when
 * vm.unprivileged_userfaultfd is 0; older kernels reject the flag, and we
 * retry without it.
 *
 * Subscriptions. Every subscribed range (page-aligned) is kept in an
 * interval tree under sub_lock; unsubscribing one unregisters the pages
 * of it that no other subscription covers, so memory no cache holds any
 * more stops costing an event per munmap (see the benchmark: the
 * unmapping thread sleeps until the reader has read its event).
 * sub_lock is taken by cache threads only, around the ioctls; never by
 * the reader. What cannot be unregistered (part of the range is gone)
 * stays registered until unmapped or until the monitor stops (closing the
 * uffd drops every registration), which costs events, not correctness.
 *
 * The reader. The kernel holds the thread that unmaps (munmap, brk,
 * madvise, mremap) until our reader has read the event. That thread may
 * hold any user-space lock (malloc's arena lock when free() trims the
 * heap, a cache's lock, the application's), so the reader calls nothing
 * that takes one: poll, read, atomics and the static invalidation log.
 * No malloc, no logging, no cache lock; problems are counted and logged
 * later by whoever stops the monitor. Signals are blocked in the reader
 * so no handler of the application runs on it.
 *
 * Ordering with lookups (R1/R2). read() completes the unmapping thread's
 * wait inside the kernel, before we have published the range. So the
 * reader brackets every batch of reads with busy_seq: odd (R1, acq_rel)
 * before the first read(), even (R2, release) after publishing the last
 * range. A thread whose munmap has returned had its event consumed inside
 * such a bracket; pl_mrc_uffd_sync waits while busy_seq still shows that
 * bracket open (an odd value), then its acquire load pairs with R2 (or a
 * later increment, R2's release sequence), so the log position it reads
 * next includes the range. (That munmap's return is ordered after R1 by
 * the kernel's locks around the event queue.)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_log.h"
#include "pl_mrc_inval.h"
#include "pl_mrc_itree.h"
#include "pl_mrc_monitor.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#define PL_MRC_UFFD_FEATURES \
	(UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE | \
	 UFFD_FEATURE_EVENT_REMAP)
#define PL_MRC_UFFD_BATCH 32

struct pl_mrc_uffd {
	struct pl_mrc_monitor mon;
	/* Set by start, read-only until stop (selection lock). */
	int fd;
	int stop_fd;
	uintptr_t page_mask;
	pthread_t reader;
	/* Odd while the reader consumes events (R1/R2). */
	pl_atomic_u64 busy_seq PL_CACHE_ALIGNED;
	/* Counted by the reader (relaxed: statistics), logged at stop. */
	pl_atomic_u64 events;
	pl_atomic_u64 faults;
	pl_atomic_int read_errno;
	/* True between start and stop; read by the fork handler. */
	pl_atomic_int running;
	/* Set by the reader when it has left its loop (S1). */
	pl_atomic_int reader_done;
	/* Set by the reader just before its loop (S3); start waits for it. */
	pl_atomic_int reader_ready;
	/* Subscribed ranges, page-aligned, repeated once per subscriber. */
	pthread_mutex_t sub_lock;
	struct pl_mrc_itree subs;		/* sub_lock */
};

static struct pl_mrc_uffd pl_mrc_uffd_mon = {
	.sub_lock = PTHREAD_MUTEX_INITIALIZER,
};
static pthread_once_t pl_mrc_uffd_atfork_once = PTHREAD_ONCE_INIT;

static void pl_mrc_uffd_consume(struct pl_mrc_uffd *u)
{
	struct uffd_msg msg[PL_MRC_UFFD_BATCH];
	uintptr_t start, end;
	ssize_t n, i;

	for (;;) {
		n = read(u->fd, msg, sizeof(msg));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				pl_store_relaxed(&u->read_errno, errno);
			return;
		}
		for (i = 0; i < n / (ssize_t)sizeof(msg[0]); i++) {
			switch (msg[i].event) {
			case UFFD_EVENT_UNMAP:
			case UFFD_EVENT_REMOVE:
				start = (uintptr_t)msg[i].arg.remove.start;
				end = (uintptr_t)msg[i].arg.remove.end;
				break;
			case UFFD_EVENT_REMAP:
				start = (uintptr_t)msg[i].arg.remap.from;
				end = start + (uintptr_t)msg[i].arg.remap.len;
				break;
			case UFFD_EVENT_PAGEFAULT: {
				/* Cannot happen (nothing is write-protected);
				 * if it does, let the thread go on. */
				struct uffdio_range r = {
					.start = msg[i].arg.pagefault.address &
						 ~(uint64_t)u->page_mask,
					.len = u->page_mask + 1,
				};

				(void)ioctl(u->fd, UFFDIO_WAKE, &r);
				pl_fetch_add_relaxed(&u->faults, 1);
				continue;
			}
			default:
				continue;
			}
			pl_fetch_add_relaxed(&u->events, 1);
			pl_mrc_inval_publish(start, end);
		}
	}
}

static void *pl_mrc_uffd_reader(void *arg)
{
	struct pl_mrc_uffd *u = arg;
	struct pollfd pfd[2] = {
		{ .fd = u->fd, .events = POLLIN },
		{ .fd = u->stop_fd, .events = POLLIN },
	};

	/* S3 release: pairs with the acquire in pl_mrc_uffd_start. From
	 * here on this thread takes no lock (the file comment). */
	pl_store_release(&u->reader_ready, 1);
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno != EINTR)
				pl_store_relaxed(&u->read_errno, errno);
			continue;
		}
		if (pfd[1].revents)
			break;
		/* R1: see the file comment. */
		pl_fetch_add_acq_rel(&u->busy_seq, 1);
		pl_mrc_uffd_consume(u);
		/* R2 release: pairs with the acquire in pl_mrc_uffd_sync. */
		pl_fetch_add_acq_rel(&u->busy_seq, 1);
	}
	/* S1 release: pairs with the acquire in pl_mrc_uffd_stop; from here
	 * on this thread never touches the uffd again. */
	pl_store_release(&u->reader_done, 1);
	return NULL;
}

static void pl_mrc_uffd_sync(struct pl_mrc_monitor *m)
{
	struct pl_mrc_uffd *u = pl_container_of(m, struct pl_mrc_uffd, mon);
	uint64_t s;
	unsigned spins = 0;

	/* acquire: pairs with R2 (see the file comment). */
	s = pl_load_acquire(&u->busy_seq);
	if (!(s & 1))
		return;
	while (pl_load_acquire(&u->busy_seq) == s) {
		if (++spins % 64 == 0)
			sched_yield();
		else
			pl_cpu_relax();
	}
}

static int pl_mrc_uffd_subscribe(struct pl_mrc_monitor *m, uintptr_t start,
				 uintptr_t end)
{
	struct pl_mrc_uffd *u = pl_container_of(m, struct pl_mrc_uffd, mon);
	struct pl_mrc_itree_node *sub;
	struct uffdio_register reg;
	int tries = 0, ret;

	sub = calloc(1, sizeof(*sub));
	if (!sub)
		return -FI_ENOMEM;
	sub->start = start & ~u->page_mask;
	sub->end = (end + u->page_mask) & ~u->page_mask;
	pthread_mutex_lock(&u->sub_lock);
	for (;;) {
		memset(&reg, 0, sizeof(reg));
		reg.range.start = sub->start;
		reg.range.len = sub->end - sub->start;
		reg.mode = UFFDIO_REGISTER_MODE_WP;
		if (!ioctl(u->fd, UFFDIO_REGISTER, &reg)) {
			pl_mrc_itree_insert(&u->subs, sub);
			pthread_mutex_unlock(&u->sub_lock);
			return 0;
		}
		/* EAGAIN: the address space is changing under an event in
		 * flight; the reader drains it shortly. */
		if (errno != EAGAIN || ++tries > 100)
			break;
		sched_yield();
	}
	/* ENOMEM: not mapped; EINVAL: memory uffd cannot watch (file
	 * pages, SysV shm, VM_PFNMAP); EBUSY: another uffd has it. */
	ret = errno == ENOMEM ? -FI_EFAULT : -FI_EINVAL;
	pthread_mutex_unlock(&u->sub_lock);
	free(sub);
	return ret;
}

struct pl_mrc_uffd_sweep {
	uintptr_t start;
	uintptr_t end;
	struct pl_mrc_itree_node *exact;	/* the subscription to drop */
	uintptr_t cur;				/* uncovered from here */
	int fd;
};

static int pl_mrc_uffd_find_exact(struct pl_mrc_itree_node *n, void *arg)
{
	struct pl_mrc_uffd_sweep *w = arg;

	if (n->start == w->start && n->end == w->end) {
		w->exact = n;
		return 1;
	}
	return 0;
}

static void pl_mrc_uffd_unregister(int fd, uintptr_t start, uintptr_t end)
{
	struct uffdio_range r = { .start = start, .len = end - start };

	/* Fails where part of the range is gone already: it then stays
	 * registered (an event later), see the file comment. */
	(void)ioctl(fd, UFFDIO_UNREGISTER, &r);
}

/* Ascending over the remaining subscriptions that overlap the range:
 * unregister each gap between them. */
static int pl_mrc_uffd_sweep_gap(struct pl_mrc_itree_node *n, void *arg)
{
	struct pl_mrc_uffd_sweep *w = arg;

	if (n->start > w->cur)
		pl_mrc_uffd_unregister(w->fd, w->cur, PL_MIN(n->start, w->end));
	if (n->end > w->cur)
		w->cur = n->end;
	return w->cur >= w->end;
}

static void pl_mrc_uffd_unsubscribe(struct pl_mrc_monitor *m, uintptr_t start,
				    uintptr_t end)
{
	struct pl_mrc_uffd *u = pl_container_of(m, struct pl_mrc_uffd, mon);
	struct pl_mrc_uffd_sweep w = {
		.start = start & ~u->page_mask,
		.end = (end + u->page_mask) & ~u->page_mask,
		.fd = u->fd,
	};

	/* A forked child's uffd works on the parent's address space. */
	if (!pl_mrc_monitor_usable(m))
		return;
	pthread_mutex_lock(&u->sub_lock);
	pl_mrc_itree_walk(&u->subs, w.start, w.end, false,
			  pl_mrc_uffd_find_exact, &w);
	if (w.exact) {
		pl_mrc_itree_remove(&u->subs, w.exact);
		w.cur = w.start;
		pl_mrc_itree_walk(&u->subs, w.start, w.end, false,
				  pl_mrc_uffd_sweep_gap, &w);
		if (w.cur < w.end)
			pl_mrc_uffd_unregister(u->fd, w.cur, w.end);
	}
	pthread_mutex_unlock(&u->sub_lock);
	free(w.exact);
}

static int pl_mrc_uffd_free_sub(struct pl_mrc_itree_node *n, void *arg)
{
	struct pl_mrc_itree_node **list = arg;

	n->left = *list;	/* the tree is dropped whole afterwards */
	*list = n;
	return 0;
}

/* Stop: forget every subscription (closing the uffd dropped them). */
static void pl_mrc_uffd_subs_clear(struct pl_mrc_uffd *u)
{
	struct pl_mrc_itree_node *list = NULL, *n;

	pthread_mutex_lock(&u->sub_lock);
	pl_mrc_itree_walk_all(&u->subs, pl_mrc_uffd_free_sub, &list);
	pl_mrc_itree_init(&u->subs);
	pthread_mutex_unlock(&u->sub_lock);
	while ((n = list)) {
		list = n->left;
		free(n);
	}
}

/*
 * Stopping. The uffd is closed after the reader has left its loop but
 * before it is joined: whatever the thread does on its way out (a
 * sanitizer's runtime unmaps per-thread memory, which a MAP_FIXED of the
 * application may have made part of a watched range) must not wait for
 * an event only that thread could read. Closing the uffd releases every
 * thread the kernel holds for an unread event, and drops every
 * registration. Events not read by then concern no cache: the last one
 * is closing.
 */
static void pl_mrc_uffd_stop(struct pl_mrc_monitor *m)
{
	struct pl_mrc_uffd *u = pl_container_of(m, struct pl_mrc_uffd, mon);
	uint64_t one = 1;
	bool reader = pl_mrc_monitor_usable(m);	/* none in a forked child */
	int err;

	pl_store_relaxed(&u->running, 0);
	if (reader && write(u->stop_fd, &one, sizeof(one)) != sizeof(one)) {
		PL_WARN(FI_LOG_MR, "userfaultfd monitor: cannot wake its "
			"reader (%s); it keeps running\n", strerror(errno));
		return;
	}
	/* S2 acquire: pairs with S1. */
	while (reader && !pl_load_acquire(&u->reader_done))
		sched_yield();
	close(u->fd);
	if (reader)
		pthread_join(u->reader, NULL);
	close(u->stop_fd);
	pl_mrc_uffd_subs_clear(u);
	err = pl_load_relaxed(&u->read_errno);
	if (err)
		PL_WARN(FI_LOG_MR, "userfaultfd monitor: reading events "
			"failed: %s\n", strerror(err));
	if (pl_load_relaxed(&u->faults))
		PL_WARN(FI_LOG_MR, "userfaultfd monitor: %llu unexpected page "
			"faults were woken\n",
			(unsigned long long)pl_load_relaxed(&u->faults));
	PL_INFO(FI_LOG_MR, "userfaultfd monitor stopped: %llu events\n",
		(unsigned long long)pl_load_relaxed(&u->events));
}

static void pl_mrc_uffd_atfork_child(void)
{
	struct pl_mrc_uffd *u = &pl_mrc_uffd_mon;

	/* The child has no reader and its uffd watches the parent. */
	if (!pl_load_relaxed(&u->running))
		return;
	pl_store_release(&u->mon.broken, 1);
	/* Another thread of the parent may have held sub_lock, mid-way
	 * through the tree, at the fork: the child starts both afresh (its
	 * copies of the nodes are left; the child never unregisters). */
	pthread_mutex_init(&u->sub_lock, NULL);
	pl_mrc_itree_init(&u->subs);
}

static void pl_mrc_uffd_atfork_register(void)
{
	(void)pthread_atfork(NULL, NULL, pl_mrc_uffd_atfork_child);
}

static const struct pl_mrc_monitor_ops pl_mrc_uffd_ops = {
	.subscribe = pl_mrc_uffd_subscribe,
	.unsubscribe = pl_mrc_uffd_unsubscribe,
	.valid = NULL,
	.sync = pl_mrc_uffd_sync,
	.stop = pl_mrc_uffd_stop,
};

static int pl_mrc_uffd_open(const char **why_p)
{
	int fd;

	fd = (int)syscall(SYS_userfaultfd,
			  O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0)
		return fd;
	if (errno == ENOSYS)
		*why_p = "the kernel has no userfaultfd (ENOSYS)";
	else if (errno == EPERM)
		*why_p = "refused (EPERM): vm.unprivileged_userfaultfd=0 "
			 "without CAP_SYS_PTRACE, or a seccomp filter";
	else
		*why_p = "userfaultfd() failed";
	return -1;
}

/* Register and unregister a scratch page: the kernel must accept
 * write-protect mode on anonymous memory. Unregistered before munmap:
 * an unmap event with no reader yet would hold us forever. */
static int pl_mrc_uffd_probe(struct pl_mrc_uffd *u)
{
	size_t len = u->page_mask + 1;
	struct uffdio_register reg;
	struct uffdio_range range;
	void *p;
	int ret;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)p;
	reg.range.len = len;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	ret = ioctl(u->fd, UFFDIO_REGISTER, &reg);
	if (!ret) {
		range.start = (uintptr_t)p;
		range.len = len;
		ret = ioctl(u->fd, UFFDIO_UNREGISTER, &range);
		if (ret) {
			/* Still registered: only closing the uffd makes the
			 * munmap below safe without a reader. */
			close(u->fd);
			u->fd = -1;
		}
	}
	munmap(p, len);
	return ret;
}

int pl_mrc_uffd_start(struct pl_mrc_monitor **mon_p, const char **why_p)
{
	struct pl_mrc_uffd *u = &pl_mrc_uffd_mon;
	struct uffdio_api api;
	sigset_t all, old;
	int ret;

	u->mon.name = "userfaultfd";
	u->mon.ops = &pl_mrc_uffd_ops;
	pl_store_relaxed(&u->mon.broken, 0);
	pl_store_relaxed(&u->busy_seq, 0);
	pl_store_relaxed(&u->events, 0);
	pl_store_relaxed(&u->faults, 0);
	pl_store_relaxed(&u->read_errno, 0);
	pl_store_relaxed(&u->reader_done, 0);
	pl_store_relaxed(&u->reader_ready, 0);
	pl_mrc_itree_init(&u->subs);
	u->page_mask = (uintptr_t)sysconf(_SC_PAGESIZE) - 1;

	u->fd = pl_mrc_uffd_open(why_p);
	if (u->fd < 0)
		return -FI_ENOSYS;
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	api.features = PL_MRC_UFFD_FEATURES;
	if (ioctl(u->fd, UFFDIO_API, &api) ||
	    (api.features & PL_MRC_UFFD_FEATURES) != PL_MRC_UFFD_FEATURES) {
		*why_p = "the kernel lacks the unmap, remove and remap events";
		ret = -FI_ENOSYS;
		goto err_fd;
	}
	if (pl_mrc_uffd_probe(u)) {
		*why_p = "the kernel cannot register anonymous memory in "
			 "write-protect mode";
		ret = -FI_ENOSYS;
		goto err_fd;
	}
	u->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (u->stop_fd < 0) {
		*why_p = "eventfd() failed";
		ret = -FI_ENOMEM;
		goto err_fd;
	}
	(void)pthread_once(&pl_mrc_uffd_atfork_once,
			   pl_mrc_uffd_atfork_register);
	/* The reader inherits this mask: no signal handler runs on it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&u->reader, NULL, pl_mrc_uffd_reader, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		*why_p = "cannot start the reader thread";
		ret = -FI_ENOMEM;
		goto err_stop_fd;
	}
	/* No range is registered before the reader is in its loop: a new
	 * thread's start-up can take locks (the C library's, a sanitizer
	 * runtime's) that a thread the kernel holds in munmap for an unread
	 * event may own, and then nobody would read it (seen under ASan in a
	 * forked child: the start-up waited on a futex while the unmapping
	 * thread waited for the reader). S3 acquire: pairs with the release
	 * in the reader. */
	while (!pl_load_acquire(&u->reader_ready))
		sched_yield();
	pl_store_relaxed(&u->running, 1);
	*mon_p = &u->mon;
	return 0;

err_stop_fd:
	close(u->stop_fd);
err_fd:
	if (u->fd >= 0)
		close(u->fd);
	return ret;
}
