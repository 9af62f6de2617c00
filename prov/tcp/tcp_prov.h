/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tcp provider (DESIGN.md section 7): FI_EP_MSG endpoints over
 * nonblocking TCP sockets, driven by the progress engine.
 *
 * Two kinds of progress:
 *  - connection management runs on the fabric's CM context, an
 *    auto-progress context whose one source is an epoll set of the
 *    sockets in a handshake (listeners, requests being read, connects in
 *    flight). Its thread sleeps in epoll, so connection set-up never waits
 *    for a data call and costs no CPU while nothing happens;
 *  - data runs on the domain's context (manual or auto, as the domain was
 *    opened), whose one source is an epoll set of the domain's connected
 *    sockets: a poll pass is one epoll_wait(0) and the work of the sockets
 *    it names, whatever the number of connections.
 * Both sets are level triggered, so an fd with unread bytes keeps its set
 * readable: a sleeper on either set (the progress thread, fi_trywait's
 * epoll) is woken by any byte or any writable socket it asked about.
 *
 * Everything registered in one of these sets starts with struct
 * tcp_sock_ev, whose handler the pass calls with the ready events.
 * Removal from a set is followed by pl_progress_ctx_sync on the set's
 * context before the object is freed, so that a pass which fetched the
 * event just before the removal has finished with it.
 */
#ifndef PROPEL_TCP_PROV_H
#define PROPEL_TCP_PROV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/providers/fi_prov.h>

#include "pl_atomic.h"
#include "pl_domain.h"
#include "pl_fabric_obj.h"
#include "pl_keymap.h"
#include "pl_log.h"
#include "pl_progress.h"

extern struct fi_provider tcp_prov;

#define TCP_IOV_MAX		4	/* tx/rx iov_limit */
/* Remote buffers one fi_readmsg / fi_writemsg may name (rma_iov_limit):
 * each is one wire operation, a part (TCP_F_PART) of the application's */
#define TCP_RMA_IOV_MAX		4
#define TCP_LOG_WARN(subsys, ...) PL_LOG(&tcp_prov, FI_LOG_WARN, subsys, __VA_ARGS__)
#define TCP_LOG_INFO(subsys, ...) PL_LOG(&tcp_prov, FI_LOG_INFO, subsys, __VA_ARGS__)

/* What one epoll set entry points at. */
struct tcp_sock_ev {
	/* returns the work it did (messages, bytes sent: > 0) or 0, which
	 * tells the progress thread whether it may go to sleep */
	int (*handle)(struct tcp_sock_ev *ev, uint32_t events);
	struct tcp_sock_ev *hot_next;	/* under the set's hot_lock */
	bool hot;			/* under the set's hot_lock */
	/* direct sets only, under the set's dlock: the socket and the
	 * interest it has in the kernel's set whenever that set holds it */
	int fd;
	uint32_t events;
	/* direct sets only, under the set's dlock: a second registration
	 * of the same socket in another set (wset: the CM set's hang-up
	 * watch), present exactly while the socket is in this set's epfd */
	bool watched;
	struct tcp_sockset *wset;
	struct tcp_sock_ev *wev;
	uint32_t wevents;
};

/*
 * An epoll set driven as one progress source (the CM set, a domain's
 * data set), plus a list of "hot" entries: objects with work that no
 * socket readiness will announce (bytes already read into a staging
 * buffer when a pass ran out of budget, sends kept for the next pass by
 * coalescing). A pass serves the hot entries first (under direct polling,
 * the call every listed socket gets serves them); arm() refuses to sleep
 * while any is listed.
 */
#define TCP_SOCKSET_DIRECT_MAX 4
/* what a direct pass hands every handler: "try both" */
#define TCP_SOCKSET_DIRECT_EVENTS (EPOLLIN | EPOLLOUT)
/* passes with no sleeper before a direct set detaches its sockets */
#define TCP_SOCKSET_DETACH_PASSES 512

struct tcp_sockset {
	struct pl_progress_source src;	/* fd = epfd, or -1 when shared */
	int epfd;
	/*
	 * Shared (the data set): epfd is the progress context's own set,
	 * not one of ours, so that a socket sits one level under the
	 * context instead of two. The kernel allows a chain of at most five
	 * epoll sets above a descriptor; under ofi_rxm the chain from an
	 * application CQ's descriptor to a socket was five already (CQ,
	 * rxm's context, rxm's wait set, our context, this set), and an
	 * application could not add that descriptor to an epoll set of its
	 * own (epoll_ctl: ELOOP). The context's entries carry no pointer
	 * (pl_progress_source.c): a pass skips them. Not closed here.
	 */
	bool shared;
	/*
	 * Direct polling (a data set opened with direct): while the set
	 * holds at most TCP_SOCKSET_DIRECT_MAX sockets, a pass calls their
	 * handlers with EPOLLIN | EPOLLOUT instead of asking epoll which are
	 * ready. A handler's nonblocking recv costs what epoll_wait would,
	 * and a message then takes one system call instead of two.
	 *
	 * Detached sockets: a socket in an epoll set costs every segment
	 * that reaches it a wake-up callback, and through the nested sets
	 * above (the context's, a CQ's) one callback per level, on the
	 * sender's critical path (measured: 0.1 us per level per one-way
	 * message on loopback). A pass that polls every socket directly
	 * needs none of it; only a sleeper does. So after
	 * TCP_SOCKSET_DETACH_PASSES passes with no arm() between them, a
	 * pass takes the listed sockets out of epfd (detached), and arm()
	 * puts them back before anyone may sleep on epfd: level-triggered,
	 * a socket readable at that moment makes epfd readable at once. A
	 * thread that sleeps often never detaches; one that polls without
	 * sleeping pays two epoll_ctl per socket once per sleep at most.
	 * A socket's watch (tcp_sockset_watch: the CM context's hang-up
	 * registration, which costs every segment its own callback) leaves
	 * and comes back with it. While detached, the pollers see a hang-up
	 * themselves; on_detach lets the owner make sure that, once they
	 * stop, the sockets come back (tcp_sockset_watch_tick).
	 */
	bool direct;			/* init only */
	pthread_mutex_t dlock;		/* guards the five below */
	struct tcp_sock_ev *dev[TCP_SOCKSET_DIRECT_MAX];
	int ndev;			/* entries in dev[] */
	int nfds;			/* sockets in the set */
	/* the listed sockets are in epfd; false only while every socket
	 * is listed (nfds == ndev) */
	bool attached;
	uint64_t attach_pass;		/* passes at the last arm() */
	uint64_t tick_pass;		/* passes at the last watch tick */
	/* init only: called under dlock when the sockets leave epfd */
	void (*on_detach)(void *arg);
	void *on_detach_arg;
	pthread_mutex_t hot_lock;
	struct tcp_sock_ev *hot;	/* under hot_lock */
	/* hot != NULL, for arm() without the lock: written under hot_lock
	 * (release), read with acquire */
	pl_atomic_int any_hot;
	/* Passes begun over this set. Senders compare it with the value
	 * they saw at their last immediate flush: sends posted between two
	 * passes are coalesced (tcp_ep_tx.c). Relaxed everywhere: a stale
	 * value only decides whether a send leaves now or at the next
	 * pass, and no data is published through it. */
	pl_atomic_u64 passes;
};

/* shared_epfd: a progress context's set to hold the sockets (the data
 * set), or any negative value for one of the set's own (the connection
 * set). */
int tcp_sockset_init(struct tcp_sockset *set, const char *name,
		     bool direct, int shared_epfd);
void tcp_sockset_fini(struct tcp_sockset *set);
/* epoll_ctl ADD / MOD / DEL; 0 or -FI_E* (from errno). */
int tcp_sockset_add(struct tcp_sockset *set, int fd, struct tcp_sock_ev *ev,
		    uint32_t events);
int tcp_sockset_mod(struct tcp_sockset *set, int fd, struct tcp_sock_ev *ev,
		    uint32_t events);
void tcp_sockset_del(struct tcp_sockset *set, int fd,
		     struct tcp_sock_ev *ev);
/* Direct sets: register ev's socket in wset too, with wev and wevents,
 * for as long as it is in set's epfd (tcp_sockset_del ends it). 0 or
 * -FI_E*. */
int tcp_sockset_watch(struct tcp_sockset *set, struct tcp_sock_ev *ev,
		      struct tcp_sockset *wset, struct tcp_sock_ev *wev,
		      uint32_t wevents);
/* A periodic look at a direct set (any thread): detached sockets whose
 * set saw no pass since the last tick go back into the kernel's sets.
 * True while the set stays detached. */
bool tcp_sockset_watch_tick(struct tcp_sockset *set);
/* Run the handlers of the listed (hot) entries now, as a pass would:
 * from a thread other than the set's passes (tcp_fabric.c's flush
 * timer). The work done. */
int tcp_sockset_serve_hot(struct tcp_sockset *set);
/* List ev for the next pass (its handler then runs with EPOLLIN); remove
 * it (before its owner is freed). Any thread. */
void tcp_sockset_mark_hot(struct tcp_sockset *set, struct tcp_sock_ev *ev);
void tcp_sockset_unmark_hot(struct tcp_sockset *set, struct tcp_sock_ev *ev);

/* A one-shot timerfd in the fabric's CM set (tcp_fabric.c): any thread
 * arms it, its handler runs in the CM context. */
struct tcp_cm_timer {
	int tfd;			/* once cm_started */
	struct tcp_sock_ev ev;
	long delay_ns;			/* init only */
	/* 1 while armed: exchanged to 1 (acq_rel) by whoever arms it,
	 * stored 0 (release) by the handler before it looks at what it
	 * serves, so that what comes after the look arms it again */
	pl_atomic_int armed;
};

struct tcp_fabric {
	/* first: the engine's fabric object counts its children (domains,
	 * EQs, wait sets, passive endpoints) for fi_close's -FI_EBUSY */
	struct pl_fabric_obj base;
	pthread_mutex_t cm_lock;	/* guards the lazy CM context start */
	struct pl_progress_ctx *cm_ctx;	/* CM context, auto progress */
	struct tcp_sockset cm_set;	/* its one source */
	/* set (release) under cm_lock once cm_ctx and cm_set are ready;
	 * read with acquire by close paths that need to sync with them */
	pl_atomic_int cm_started;
	/* The watch timer: armed while a domain's data set is detached;
	 * its handler puts back the sockets of sets nobody polls any more,
	 * so that a hang-up reaches an application that only reads its EQ.
	 * The sets' dlock orders a detach against the handler's look. */
	struct tcp_cm_timer watch;
	/* The flush timer: armed when an endpoint keeps sends for the next
	 * pass (coalescing, tcp_ep_tx.c); its handler serves what is still
	 * kept, so that a send leaves even when the application makes no
	 * further call. */
	struct tcp_cm_timer flush;
	pthread_mutex_t watch_lock;	/* guards doms */
	struct tcp_domain *doms;	/* the fabric's open domains */
};

struct tcp_domain {
	struct pl_domain base;		/* first: engine's domain */
	struct pl_keymap keymap;	/* MR keys for RMA target checks */
	struct tcp_fabric *fab;		/* open only */
	struct tcp_sockset data_set;	/* connected sockets */
	bool virt_addr;			/* open only: FI_MR_VIRT_ADDR */
	/* open only: small sends posted between two progress passes leave
	 * in one system call (tcp_ep_tx.c). Manual data progress only: the
	 * application's next progress call is what sends them, and an auto
	 * thread asleep in epoll would need a kick, which costs what the
	 * coalescing saves. FI_TCP_TX_COALESCE turns it off. */
	bool coalesce;
	struct tcp_domain *watch_next;	/* fab->doms, under watch_lock */
};

/* The fabric's CM context and set, started on first use. 0 or -FI_E*. */
int tcp_fabric_cm_start(struct tcp_fabric *fab);
/* A domain's data set detached (on_detach): arm the watch timer. */
void tcp_fabric_watch_arm(void *fab);
/* An endpoint kept sends for the next pass: arm the flush timer. */
void tcp_fabric_flush_arm(struct tcp_fabric *fab);
/* Domains join the watch at open and leave it before they close. */
void tcp_fabric_watch_join(struct tcp_fabric *fab, struct tcp_domain *d);
void tcp_fabric_watch_leave(struct tcp_fabric *fab, struct tcp_domain *d);


int tcp_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric_p,
		    void *context);
int tcp_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain_p, void *context);
/* fi_domain2: flags 0 or FI_PEER (pl_domain_init2, docs/peer.md). */
int tcp_domain_open2(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain_p, uint64_t flags,
		     void *context);
int tcp_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		 struct fid_pep **pep_p, void *context);
int tcp_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_p, void *context);
int tcp_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep_p, void *context);

int tcp_info_get(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info_p);

/* The tcp domain behind a domain fid, or NULL. */
struct tcp_domain *tcp_domain_of(struct fid_domain *d);

#endif /* PROPEL_TCP_PROV_H */
