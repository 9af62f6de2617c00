/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Process liveness: is the peer at the other end of a shared region or a
 * connection still there? A pid alone is not an identity (the kernel
 * reuses pids after a crash), so a process is named by (pid, start time).
 * Reads /proc; any thread, no shared state.
 */
#ifndef PROPEL_PL_PROC_H
#define PROPEL_PL_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Start time of pid (clock ticks since boot) in *start_p, set only on
 * success; 0, -FI_ENOENT when pid does not exist, -FI_EAGAIN when
 * /proc could not tell (no file descriptor left, ...). */
int pl_proc_start_time(pid_t pid, uint64_t *start_p);

/* pid exists, is not a zombie, and has start time `start` (0: any).
 * False only on the kernel's word: when /proc cannot be read, the
 * process counts as alive (the next look decides). */
bool pl_proc_alive(pid_t pid, uint64_t start);

#endif /* PROPEL_PL_PROC_H */
