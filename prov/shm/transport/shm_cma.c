/* SPDX-License-Identifier: BSD-2-Clause */
/* Cross-memory attach: probe, policy and copy loops (shm_cma.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_atomic.h"
#include "pl_log.h"
#include "shm_cma.h"
#include "shm_params.h"

/* relaxed: the value is computed idempotently; racing first callers
 * compute the same answer (the prctl is idempotent too). */
static pl_atomic_int shm_cma_cached;

static int shm_cma_ptrace_scope(void)
{
	char buf[8] = "";
	ssize_t n;
	int fd;

	fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* no Yama: classic ptrace rules (same uid) */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? buf[0] - '0' : 0;
}

static enum shm_cma_state shm_cma_decide(void)
{
	uint64_t src = 0x5eedf00dcafebeefull, dst = 0;
	struct iovec l = { &dst, sizeof(dst) }, r = { &src, sizeof(src) };
	int scope;

	if (shm_params_get()->disable_cma)
		return SHM_CMA_OFF_PARAM;
	/* Reading ourselves is always allowed by ptrace rules, so this only
	 * probes that the system call exists and no filter refuses it. */
	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != sizeof(dst) ||
	    dst != src)
		return SHM_CMA_OFF_SYSCALL;
	scope = shm_cma_ptrace_scope();
	if (scope >= 2)
		return SHM_CMA_OFF_PTRACE;
	/* scope 1: peers are not our descendants; naming any process as
	 * an allowed tracer is what lets same-user peers read us. */
	if (scope == 1 && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0))
		return SHM_CMA_OFF_PTRACE;
	return SHM_CMA_ON;
}

enum shm_cma_state shm_cma_state(void)
{
	int st = pl_load_relaxed(&shm_cma_cached);

	if (!st) {
		st = shm_cma_decide();
		pl_store_relaxed(&shm_cma_cached, st);
		if (st != SHM_CMA_ON)
			SHM_INFO(FI_LOG_EP_DATA, "single copy off (%s), "
				"large messages use bounce buffers\n",
				st == SHM_CMA_OFF_PARAM ? "FI_SHM_DISABLE_CMA" :
				st == SHM_CMA_OFF_SYSCALL ?
				"process_vm_readv refused" : "ptrace scope");
	}
	return (enum shm_cma_state)st;
}

void shm_cma_reset_for_test(void)
{
	pl_store_relaxed(&shm_cma_cached, 0);
}

/* relaxed: a test switch, set before any copy */
static pl_atomic_int shm_cma_test_fail;

void shm_cma_fail_for_test(bool fail)
{
	pl_store_relaxed(&shm_cma_test_fail, fail ? 1 : 0);
}

static int shm_cma_errno(int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return -FI_EPERM;
	case ENOSYS:
		return -FI_ENOSYS;
	case EFAULT:
		return -FI_EFAULT;
	case ESRCH:
		return -FI_ECONNRESET;	/* the peer process is gone */
	default:
		return -FI_EIO;
	}
}

/* Advance an iovec cursor by n bytes. */
static void shm_iov_advance(struct iovec *v, size_t *cnt, size_t *first,
			    size_t n)
{
	while (n && *first < *cnt) {
		size_t k = v[*first].iov_len < n ? v[*first].iov_len : n;

		v[*first].iov_base = (char *)v[*first].iov_base + k;
		v[*first].iov_len -= k;
		n -= k;
		if (!v[*first].iov_len)
			(*first)++;
	}
	while (*first < *cnt && !v[*first].iov_len)
		(*first)++;
}

#define SHM_CMA_IOV_BATCH 64

static ssize_t shm_cma_copy(bool write, pid_t pid,
			    const struct iovec *local, size_t lcnt,
			    const struct iovec *remote, size_t rcnt)
{
	struct iovec lv[SHM_CMA_IOV_BATCH], rv[SHM_CMA_IOV_BATCH];
	size_t li = 0, ri = 0, total = 0;
	size_t ln = lcnt < SHM_CMA_IOV_BATCH ? lcnt : SHM_CMA_IOV_BATCH;
	size_t rn = rcnt < SHM_CMA_IOV_BATCH ? rcnt : SHM_CMA_IOV_BATCH;
	ssize_t n;

	if (lcnt > SHM_CMA_IOV_BATCH || rcnt > SHM_CMA_IOV_BATCH)
		return -FI_EINVAL;	/* callers pass a few iovecs */
	if (pl_load_relaxed(&shm_cma_test_fail))
		return -FI_EPERM;
	memcpy(lv, local, ln * sizeof(*lv));
	memcpy(rv, remote, rn * sizeof(*rv));
	shm_iov_advance(lv, &ln, &li, 0);
	shm_iov_advance(rv, &rn, &ri, 0);
	while (li < ln && ri < rn) {
		n = write ? process_vm_writev(pid, lv + li, ln - li,
					      rv + ri, rn - ri, 0) :
			    process_vm_readv(pid, lv + li, ln - li,
					     rv + ri, rn - ri, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return shm_cma_errno(errno);
		}
		if (n == 0)
			return -FI_EFAULT;	/* partial with no progress */
		total += (size_t)n;
		shm_iov_advance(lv, &ln, &li, (size_t)n);
		shm_iov_advance(rv, &rn, &ri, (size_t)n);
	}
	return (ssize_t)total;
}

ssize_t shm_cma_read(pid_t pid, const struct iovec *local, size_t lcnt,
		     const struct iovec *remote, size_t rcnt)
{
	return shm_cma_copy(false, pid, local, lcnt, remote, rcnt);
}

ssize_t shm_cma_write(pid_t pid, const struct iovec *local, size_t lcnt,
		      const struct iovec *remote, size_t rcnt)
{
	return shm_cma_copy(true, pid, local, lcnt, remote, rcnt);
}
