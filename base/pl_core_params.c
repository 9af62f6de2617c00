/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core parameter table. The help texts are what fi_info -e prints;
 * the table mechanism appends "(default: ...)" from the third column.
 */
#include <pthread.h>

#include "pl_compiler.h"
#include "pl_core_params.h"
#include "pl_log.h"
#include "pl_param.h"

#define PL_STR_(x) #x
#define PL_STR(x) PL_STR_(x)

static const struct pl_param_def pl_core_param_table[] = {
	{ "log_level", FI_PARAM_STRING, "warn",
	  "Logging level: warn, trace, info or debug; none turns logging off" },
	{ "log_prov", FI_PARAM_STRING, "all",
	  "Log only these providers: a comma-separated list of names, or "
	  "^list to log all but those. Core messages are always logged" },
	{ "log_subsys", FI_PARAM_STRING, "all",
	  "Log only these subsystems: a comma-separated list of core, "
	  "fabric, domain, ep_ctrl, ep_data, av, cq, eq, mr, cntr, or ^list "
	  "to log all but those" },
	{ "log_interval", FI_PARAM_INT, PL_STR(PL_LOG_INTERVAL_MS_DEFAULT),
	  "Milliseconds between two messages from one rate-limited call site" },
	{ "tuning_profile", FI_PARAM_STRING, NULL,
	  "Path of an environment file (KEY=VALUE lines, # comments, optional "
	  "export) whose FI_* assignments act as defaults; variables set in "
	  "the environment override them" },
	{ "provider", FI_PARAM_STRING, "all available",
	  "Use only these providers: a comma-separated list of names, or "
	  "^list to use all but those" },
	{ "provider_path", FI_PARAM_STRING, NULL,
	  "Directories searched for loadable providers (*-fi.so), separated "
	  "by ':'; a leading @ ranks providers by discovery order rather "
	  "than by version" },
	{ "universe_size", FI_PARAM_SIZE_T, "provider specific",
	  "Largest number of processes the job will use; providers size "
	  "their connection and queue resources from it" },
	{ "progress_spin_us", FI_PARAM_INT, PL_STR(PL_PROGRESS_SPIN_US_DEFAULT),
	  "Microseconds an auto-progress thread keeps polling after its last "
	  "event before it arms its sources and sleeps" },
	{ "progress_backoff_max_us", FI_PARAM_INT,
	  PL_STR(PL_PROGRESS_BACKOFF_MAX_US_DEFAULT),
	  "Longest nap, in microseconds, of an auto-progress thread while "
	  "the application itself polls (naps start at 50 and double); "
	  "after the application stops polling, the thread resumes within "
	  "about twice this. Each nap's end costs the application's core a "
	  "context switch: shorter naps resume sooner and cost more" },
	{ "progress_thread_cpus", FI_PARAM_STRING, "the CPUs of the chosen NUMA node",
	  "CPUs the auto-progress threads may run on, as a list such as "
	  "0-3,8,10" },
	{ "progress_thread_numa", FI_PARAM_INT, "-1",
	  "NUMA node the auto-progress threads are bound to; -1 picks the "
	  "node of the device, else that of the thread opening the domain" },
	{ "progress_asym", FI_PARAM_BOOL, "1",
	  "FI_THREAD_DOMAIN auto-progress domains exclude their thread with "
	  "plain loads and stores on the application side and membarrier(2) "
	  "on the thread's; 0 takes the same token as other domains" },
};

static pthread_once_t pl_core_params_once = PTHREAD_ONCE_INIT;

static void pl_core_params_define(void)
{
	/* Nothing can be logged from here (logging reads these very
	 * parameters). A row lost to ENOMEM shows up later as -FI_ENOENT
	 * from fi_param_get, and the getters then keep their defaults. */
	(void)pl_param_table_define(&pl_core_prov, pl_core_param_table,
				    PL_ARRAY_SIZE(pl_core_param_table));
}

void pl_core_params_init(void)
{
	pthread_once(&pl_core_params_once, pl_core_params_define);
}
