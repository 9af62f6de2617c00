/* SPDX-License-Identifier: BSD-2-Clause */
/* membarrier(2) for the asymmetric exclusion (pl_progress_asym.h). */
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_progress_asym.h"

static long pl_membarrier(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

int pl_progress_asym_init(void)
{
	/* Registering again is harmless and cheap; a kernel without the
	 * command (before 4.14) or a filter that refuses it answers -1. */
	if (pl_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		return -FI_ENOSYS;
	return 0;
}

void pl_progress_asym_membarrier(void)
{
	/* Cannot fail once registered (init succeeded before any context
	 * chose this mode); EINTR is not among its errors. */
	(void)pl_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}
