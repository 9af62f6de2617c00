/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork() and rdma-core (DESIGN.md section 7; provider.md, "Fork").
 *
 * Two hazards, two answers:
 *  - the parent's registrations. On kernels before 5.13 a fork makes
 *    registered pages copy-on-write: the parent's next write moves it to
 *    a new page while the device keeps the old one, so the wire carries
 *    stale bytes. ibv_fork_init marks registered ranges MADV_DONTFORK
 *    (the child then has no mapping there); it must run before the first
 *    registration, so every entry into rdma-core here (fi_getinfo,
 *    fi_fabric) goes through vrb_fork_check first. Kernels from 5.13 copy
 *    pinned pages into the child at the fork, which rdma-core reports as
 *    IBV_FORK_UNNEEDED; then nothing is marked and the child may touch
 *    every page. RDMAV_FORK_SAFE / IBV_FORK_SAFE make rdma-core call
 *    ibv_fork_init at its own start; calling it again is harmless.
 *  - the child's rdma-core. librdmacm opens each device once per
 *    process and keeps the context; a child inherits the parent's, whose
 *    queues and doorbells it cannot use (posts fail, or worse), and
 *    there is no call that reopens them. So in a child of a process that
 *    used verbs, the provider answers fi_getinfo with -FI_ENODATA (an
 *    application that names no provider gets the next one) and refuses
 *    fabric, domain and endpoint opens with -FI_EOPNOTSUPP, each with a
 *    warning that says why. A child that execs starts afresh. Objects the
 *    parent opened must not be used in the child (rdma-core's rule).
 */
#include <pthread.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "vrb_prov.h"

/* Written once inside pthread_once, which orders it before every read
 * after the pthread_once call returns (in any thread). A child forked
 * later inherits the value, and pthread_once does not run again there:
 * that is how the child knows. */
static pthread_once_t vrb_fork_once = PTHREAD_ONCE_INIT;
static pid_t vrb_fork_pid;

static void vrb_fork_setup(void)
{
	vrb_fork_pid = getpid();
	if (ibv_is_fork_initialized() != IBV_FORK_DISABLED)
		return;	/* the kernel copies pinned pages, or already done */
	if (ibv_fork_init())
		VRB_LOG_WARN(FI_LOG_CORE, "ibv_fork_init failed: a fork "
			     "after registrations may corrupt what is sent "
			     "from registered memory\n");
}

int vrb_fork_check(void)
{
	pthread_once(&vrb_fork_once, vrb_fork_setup);
	if (getpid() == vrb_fork_pid)
		return 0;
	VRB_LOG_WARN(FI_LOG_CORE, "this process is a fork of %d, which "
		     "used rdma-core: its device contexts are the parent's "
		     "and unusable here, so verbs is not offered (exec, or "
		     "open the provider only after the fork)\n",
		     (int)vrb_fork_pid);
	return -FI_EOPNOTSUPP;
}
