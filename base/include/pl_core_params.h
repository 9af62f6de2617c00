/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core's own FI_* variables (no provider part in their names):
 * logging, provider selection, the tuning profile, the universe size and
 * the progress engine's knobs. They are defined here, in one table, so
 * that fi_info -e lists them whether or not their consumer ran yet; the
 * consumers read them with the pl_param_get_* getters and the defaults
 * below, which the table shows as text.
 */
#ifndef PROPEL_PL_CORE_PARAMS_H
#define PROPEL_PL_CORE_PARAMS_H

#define PL_LOG_INTERVAL_MS_DEFAULT	2000
#define PL_PROGRESS_SPIN_US_DEFAULT	50
/* FI_PROGRESS_BACKOFF_MAX_US: the longest nap of an auto-progress thread
 * while the application polls (pl_progress_thread.c, back-off). */
#define PL_PROGRESS_BACKOFF_MAX_US_DEFAULT	8000
/* FI_PROGRESS_THREAD_NUMA: pick the node of the device, else the caller's. */
#define PL_PROGRESS_THREAD_NUMA_AUTO	(-1)

/* Define the core table; idempotent and thread-safe (pthread_once). */
void pl_core_params_init(void);

#endif /* PROPEL_PL_CORE_PARAMS_H */
