/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where an auto-progress thread runs (DESIGN.md section 3), first match:
 *  1. FI_PROGRESS_THREAD_CPUS: exactly that CPU list;
 *  2. FI_PROGRESS_THREAD_NUMA: every CPU of that node (an explicit
 *     choice, so it may leave the opener's own binding);
 *  3. the node of the device (pl_progress_attr.numa_node), else of the
 *     CPU the opening thread runs on, restricted to the CPUs the opener
 *     may use: an MPI rank bound to one core keeps its thread there, and
 *     the back-off keeps the two from competing.
 * 2 and 3 need libnuma; when it reports NUMA unavailable they are skipped
 * silently and the thread inherits the opener's affinity, as it does
 * when nothing applies. Called at open, never concurrently with itself
 * for one context; libnuma's queries used here are thread-safe.
 */
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "pl_log.h"
#include "pl_progress_int.h"

static int pl_progress_pin_number(const char **s, long max, long *v_p)
{
	char *end;
	long v;

	if (**s < '0' || **s > '9')
		return -FI_EINVAL;
	errno = 0;
	v = strtol(*s, &end, 10);
	if (errno || v > max)
		return -FI_EINVAL;
	*s = end;
	*v_p = v;
	return 0;
}

/* "1", "0-3,6": comma-separated CPUs or inclusive ranges, each CPU below
 * the number of configured CPUs. */
int pl_progress_pin_parse_cpus(const char *text, cpu_set_t *set_p)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), lo, hi, max;
	const char *s = text;
	cpu_set_t set;

	if (!text || !set_p)
		return -FI_EINVAL;
	max = PL_MIN(ncpus > 0 ? ncpus : 1, (long)CPU_SETSIZE) - 1;
	CPU_ZERO(&set);
	for (;;) {
		if (pl_progress_pin_number(&s, max, &lo))
			return -FI_EINVAL;
		hi = lo;
		if (*s == '-') {
			s++;
			if (pl_progress_pin_number(&s, max, &hi) || hi < lo)
				return -FI_EINVAL;
		}
		for (; lo <= hi; lo++)
			CPU_SET(lo, &set);
		if (*s == '\0')
			break;
		if (*s++ != ',')
			return -FI_EINVAL;
	}
	*set_p = set;
	return 0;
}

/* The CPUs of node into *set_p; false if the node has none. */
static bool pl_progress_pin_node_cpus(int node, cpu_set_t *set_p)
{
	struct bitmask *bm;
	unsigned cpu;
	bool any = false;

	bm = numa_allocate_cpumask();
	if (!bm)
		return false;
	CPU_ZERO(set_p);
	if (numa_node_to_cpus(node, bm) == 0) {
		for (cpu = 0; cpu < bm->size && cpu < CPU_SETSIZE; cpu++) {
			if (numa_bitmask_isbitset(bm, cpu)) {
				CPU_SET(cpu, set_p);
				any = true;
			}
		}
	}
	numa_free_cpumask(bm);
	return any;
}

bool pl_progress_pin_choose(int hint_node, cpu_set_t *set_p)
{
	const struct pl_progress_param *prm = pl_progress_param_get();
	cpu_set_t node_cpus, mine, both;
	int node, cpu;

	if (prm->have_cpus) {
		*set_p = prm->cpus;
		return true;
	}
	if (numa_available() < 0)
		return false;

	if (prm->numa_node >= 0) {
		if (!pl_progress_pin_node_cpus(prm->numa_node, &node_cpus)) {
			PL_WARN(FI_LOG_CORE, "FI_PROGRESS_THREAD_NUMA=%d: the "
				"node has no CPUs; not pinning the progress "
				"thread\n", prm->numa_node);
			return false;
		}
		*set_p = node_cpus;
		return true;
	}

	node = hint_node;
	if (node < 0) {
		cpu = sched_getcpu();
		node = cpu < 0 ? -1 : numa_node_of_cpu(cpu);
	}
	if (node < 0 || !pl_progress_pin_node_cpus(node, &node_cpus))
		return false;
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return false;
	CPU_AND(&both, &node_cpus, &mine);
	/* Nothing in common (bound elsewhere), or nothing to narrow: the
	 * inherited affinity is the right answer. */
	if (CPU_COUNT(&both) == 0 || CPU_EQUAL(&both, &mine))
		return false;
	*set_p = both;
	return true;
}
