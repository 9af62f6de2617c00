/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Single copy between processes through process_vm_readv/writev
 * ("cross-memory attach"). Whether it may be used is decided once per
 * process by shm_cma_available(): FI_SHM_DISABLE_CMA, a probe of the
 * system call (seccomp filters in containers refuse it with EPERM or
 * ENOSYS) and the Yama ptrace scope (1: only descendants may be read,
 * unless the target named us with PR_SET_PTRACER; 2 and 3: never).
 * An endpoint advertises the answer in its region (SHM_RF_CMA); a sender
 * uses CMA towards a peer only when both sides advertise it, and falls
 * back to SAR when a copy is refused at run time (shm_proto_*.c).
 *
 * All functions are thread-safe.
 */
#ifndef PROPEL_SHM_CMA_H
#define PROPEL_SHM_CMA_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Why CMA is on or off, for logs and tests. */
enum shm_cma_state {
	SHM_CMA_ON = 1,
	SHM_CMA_OFF_PARAM,	/* FI_SHM_DISABLE_CMA=1 */
	SHM_CMA_OFF_SYSCALL,	/* probe failed (ENOSYS/EPERM) */
	SHM_CMA_OFF_PTRACE,	/* Yama ptrace scope forbids it */
};

/* Decided once (first call), then constant. */
enum shm_cma_state shm_cma_state(void);

static inline bool shm_cma_available(void)
{
	return shm_cma_state() == SHM_CMA_ON;
}

/*
 * Copy from/to process pid. Loops over partial transfers, so the whole
 * range moves or an error comes back. The two iovec lists describe the
 * same number of bytes (the caller checks). Returns bytes moved, or
 * -FI_EPERM / -FI_ENOSYS (not allowed: fall back), -FI_EFAULT (a bad
 * address on either side), -FI_ECONNRESET (pid gone), -FI_EIO.
 */
ssize_t shm_cma_read(pid_t pid, const struct iovec *local, size_t lcnt,
		     const struct iovec *remote, size_t rcnt);
ssize_t shm_cma_write(pid_t pid, const struct iovec *local, size_t lcnt,
		      const struct iovec *remote, size_t rcnt);

/* Tests only: forget the decision so the next call probes again. */
void shm_cma_reset_for_test(void);
/* Tests only: make every copy fail with -FI_EPERM, as a kernel that
 * forbids it after the probe passed (a peer with another ptrace policy,
 * a seccomp filter installed later). */
void shm_cma_fail_for_test(bool fail);

#endif /* PROPEL_SHM_CMA_H */
