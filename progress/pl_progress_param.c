/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The progress engine's FI_* variables, read once per process through the
 * core parameter table (base/pl_core_params.c defines them, so
 * fi_info -e lists them before any context exists):
 *   FI_PROGRESS_SPIN_US      0..PL_PROGRESS_SPIN_US_MAX, default 50
 *   FI_PROGRESS_BACKOFF_MAX_US  PL_PROGRESS_BACKOFF_MIN_US..
 *                            PL_PROGRESS_BACKOFF_MAX_US_MAX, default 8000
 *   FI_PROGRESS_THREAD_CPUS  a CPU list ("1", "0-3,6"): exact affinity
 *   FI_PROGRESS_THREAD_NUMA  a node number, -1 for automatic
 * Once, so that a bad value earns one warning (the typed getters warn and
 * keep the default), not one per domain. A value set after the first
 * context was opened is not seen; job launchers set them before.
 *
 * Concurrency: pthread_once; the result is read-only afterwards.
 */
#include <limits.h>
#include <numa.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "pl_core_params.h"
#include "pl_log.h"
#include "pl_param.h"
#include "pl_progress_int.h"

/* A second of spinning is already far past any useful budget; a nap
 * of a second leaves auto progress off for too long to be useful. */
#define PL_PROGRESS_SPIN_US_MAX 1000000
#define PL_PROGRESS_BACKOFF_MAX_US_MAX 1000000

static struct pl_progress_param pl_progress_param_val;
static char pl_progress_param_cpus_text[64];
static pthread_once_t pl_progress_param_once = PTHREAD_ONCE_INIT;

static void pl_progress_param_read_cpus(struct pl_progress_param *p)
{
	const char *text;
	long ncpus;

	text = pl_param_get_str(&pl_core_prov, "progress_thread_cpus", NULL);
	/* "FI_PROGRESS_THREAD_CPUS=" in a job script means "not set". */
	if (!text || !*text)
		return;
	snprintf(pl_progress_param_cpus_text,
		 sizeof(pl_progress_param_cpus_text), "%s", text);
	p->cpus_text = pl_progress_param_cpus_text;
	if (!pl_progress_pin_parse_cpus(text, &p->cpus)) {
		p->have_cpus = true;
		return;
	}
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	PL_WARN(FI_LOG_CORE, "FI_PROGRESS_THREAD_CPUS=\"%s\" is not valid: "
		"expected a CPU list such as 1 or 0-3,6 with CPUs in 0..%ld; "
		"using the default placement\n", text,
		PL_MIN(ncpus, (long)CPU_SETSIZE) - 1);
}

static void pl_progress_param_read(void)
{
	struct pl_progress_param *p = &pl_progress_param_val;
	int max_node = INT_MAX;

	p->spin_us = (unsigned)pl_param_get_int(&pl_core_prov,
						"progress_spin_us",
						PL_PROGRESS_SPIN_US_DEFAULT, 0,
						PL_PROGRESS_SPIN_US_MAX);
	p->backoff_max_us = (unsigned)pl_param_get_int(&pl_core_prov,
				"progress_backoff_max_us",
				PL_PROGRESS_BACKOFF_MAX_US_DEFAULT,
				PL_PROGRESS_BACKOFF_MIN_US,
				PL_PROGRESS_BACKOFF_MAX_US_MAX);
	p->asym = pl_param_get_bool(&pl_core_prov, "progress_asym", true);
	pl_progress_param_read_cpus(p);
	/* The range the warning states is the machine's, when known. */
	if (numa_available() >= 0)
		max_node = numa_max_node();
	p->numa_node = pl_param_get_int(&pl_core_prov, "progress_thread_numa",
					PL_PROGRESS_THREAD_NUMA_AUTO,
					PL_PROGRESS_THREAD_NUMA_AUTO,
					max_node);
}

const struct pl_progress_param *pl_progress_param_get(void)
{
	pthread_once(&pl_progress_param_once, pl_progress_param_read);
	return &pl_progress_param_val;
}
