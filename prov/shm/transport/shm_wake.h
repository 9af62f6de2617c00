/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Waking a sleeping receiver (DESIGN.md sections 3 and 7).
 *
 * Each endpoint binds one Unix datagram socket in the abstract namespace
 * under a name the kernel picks (autobind: nobody can take it first) and
 * publishes it in its region's header (shm_region_hdr.wake_addr), where
 * peers read it once, checked, when they map the region. It sleeps only after shm_wake_arm() declared it
 * asleep in its region (ctl.asleep = 1) and found its queue empty; a
 * sender that published a command and reads asleep == 1 swaps in 0 and
 * sends one datagram, which makes the socket readable (level-triggered,
 * so epoll in the progress engine wakes). While the receiver is awake no
 * sender makes a system call: the fast path costs a fence and a load.
 *
 * Why a datagram socket in the abstract namespace, not a named FIFO:
 *  - it vanishes with its process: nothing to clean up in the filesystem
 *    after a crash (regions are cleaned up by shm_region_cleanup_dead);
 *  - any number of senders sendto() it without opening anything per
 *    peer, and without the "no reader: ENXIO / EOF: POLLHUP" rules of
 *    FIFOs; a send to a dead receiver fails (ECONNREFUSED) at once;
 *  - a full socket buffer (EAGAIN) means datagrams are already queued,
 *    so the socket is readable and no wake-up is lost.
 * Limits: the abstract namespace is per network namespace (peers must
 * share it, as they share /dev/shm); any local process may send a
 * datagram, which only costs the receiver a spurious wake-up.
 *
 * Synchronization (Dekker with two seq_cst fences):
 *   receiver (arm)                     sender (signal)
 *   store asleep = 1      (relaxed)    store READY in the slot (release)
 *   fence seq_cst         (W1)         fence seq_cst            (W2)
 *   load head slot        (relaxed)    load asleep              (relaxed)
 * W1 and W2 are totally ordered: either the sender sees 1 and signals, or
 * the receiver sees the command and does not sleep. No lost wake-up.
 *
 * Liveness timer (peer failure, S3). A receiver that sleeps while it
 * waits for a peer (a send waiting for an ack or a drained bounce
 * buffer, a reception waiting for chunks) would never learn that the
 * peer died: a dead process signals nothing. Before sleeping with such
 * work, the owner starts a one-shot timerfd (shm_wake_timer_start); the
 * descriptor the progress engine sleeps on is an epoll set over the
 * socket and the timer, so the sleep ends after at most that delay and
 * the owner checks its peers. Owner-only state; the fast path reads one
 * bool (timer_set) per poll and calls the clock only while it is set.
 *
 * Progress source fit (progress/include/pl_progress.h): fd = shm_wake_fd(), arm =
 * a provider function that calls shm_wake_arm() after checking its own
 * local work, and the source's poll() starts with shm_wake_awake().
 * All receiver-side calls are owner-only (under the progress token);
 * shm_wake_signal may run in any thread of any process.
 */
#ifndef PROPEL_SHM_WAKE_H
#define PROPEL_SHM_WAKE_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "shm_region.h"

/* Where to send a wake-up: a peer's published abstract address. */
struct shm_wake_addr {
	struct sockaddr_un	sun;
	socklen_t		len;
};

/* The receiver side of one endpoint. */
struct shm_wake {
	int			fd;	/* bound, non-blocking, close-on-exec */
	int			tx_fd;	/* unbound, for signalling peers */
	int			timer_fd;	/* one-shot liveness timer */
	int			ep_fd;	/* epoll over fd and timer_fd: what
					 * the owner sleeps on */
	bool			armed;	/* we stored asleep = 1 */
	bool			timer_set;	/* timer_fd started, not yet
						 * consumed */
	uint64_t		deadline_ns;	/* CLOCK_MONOTONIC, when set */
	uint64_t		signals_rx;	/* datagrams drained */
	struct shm_wake_addr	self;	/* fd's address, to publish */
};

/* The wake address a mapped region publishes, copied and checked (an
 * abstract name of 1 to SHM_WAKE_ADDR_MAX - 1 bytes). Call once, when
 * the region is mapped, and keep the copy. 0 or -FI_ENOPROTOOPT. */
int shm_wake_addr_of(struct shm_wake_addr *a, const struct shm_region *peer);

/* Bind the receiver's socket (autobind; w->self gets its address, for
 * shm_layout_req.wake_addr). Returns 0 or -errno. */
int shm_wake_open(struct shm_wake *w);
void shm_wake_close(struct shm_wake *w);

/* What the owner sleeps on (EPOLLIN, level-triggered): readable when a
 * datagram is queued or the liveness timer expired. */
static inline int shm_wake_fd(const struct shm_wake *w)
{
	return w->ep_fd;
}

/* Owner: make shm_wake_fd() readable in `ms` milliseconds unless a timer
 * is already running. 0 or -errno. */
int shm_wake_timer_start(struct shm_wake *w, unsigned ms);

/* Owner: true (once) when the running timer has expired; consumes it.
 * One branch when no timer runs. */
bool shm_wake_timer_due_slow(struct shm_wake *w);
static inline bool shm_wake_timer_due(struct shm_wake *w)
{
	return w->timer_set && shm_wake_timer_due_slow(w);
}

/*
 * Receiver: declare ourselves asleep in own region, then re-check its
 * queue. 0: safe to block on shm_wake_fd(); -FI_EAGAIN: a command raced
 * in (we are awake again). Call only when the caller has no local work.
 */
int shm_wake_arm(struct shm_wake *w, struct shm_region *own);

/* Receiver: we are polling again: clear asleep and drain datagrams.
 * Nearly free when we never armed (one branch). */
void shm_wake_awake(struct shm_wake *w, struct shm_region *own);

/*
 * Sender: after shm_cmdq_commit to peer, wake its owner if it declared
 * itself asleep. tx_fd: the sender's shm_wake.tx_fd. Returns 1 when a
 * datagram was sent, 0 when none was needed, -FI_ECONNREFUSED when the
 * receiver's socket is gone (dead or closed).
 */
int shm_wake_signal(int tx_fd, struct shm_region *peer,
		    const struct shm_wake_addr *addr);

#endif /* PROPEL_SHM_WAKE_H */
