/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_log_enabled / fi_log_ready / fi_log, their configuration, and the
 * "logging" object through which an application imports its own ops.
 *
 * Fast path: fi_log_enabled is two acquire loads (imported ops, config
 * ready) and integer compares; the provider filter costs a string compare
 * only when FI_LOG_PROV is set and the level and subsystem already pass.
 *
 * Set-up: the configuration is read once (pthread_once) from parameters,
 * which may warn (a bad FI_LOG_LEVEL, a malformed tuning profile), and a
 * warning calls fi_log_enabled. A thread re-entering the logging calls
 * from inside its own set-up must neither wait for itself nor print with
 * half a configuration, so it sees "enabled", and fi_log parks the text;
 * once the configuration is complete the same thread replays what it
 * parked through the real filter.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext.h>

#include "pl_atomic.h"
#include "pl_compiler.h"
#include "pl_core_params.h"
#include "pl_log.h"
#include "pl_param.h"

/* The reference formats into 1024 bytes too; longer text is cut. */
#define PL_LOG_MSG_MAX		1024
#define PL_LOG_PARKED_MAX	16
#define PL_LOG_PARKED_MSG_MAX	512

struct fi_provider pl_core_prov = {
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.name = "core",
};

static const char *const pl_log_level_names[FI_LOG_MAX] = {
	[FI_LOG_WARN] = "warn",
	[FI_LOG_TRACE] = "trace",
	[FI_LOG_INFO] = "info",
	[FI_LOG_DEBUG] = "debug",
};

static const char *const pl_log_subsys_names[FI_LOG_SUBSYS_MAX] = {
	[FI_LOG_CORE] = "core",
	[FI_LOG_FABRIC] = "fabric",
	[FI_LOG_DOMAIN] = "domain",
	[FI_LOG_EP_CTRL] = "ep_ctrl",
	[FI_LOG_EP_DATA] = "ep_data",
	[FI_LOG_AV] = "av",
	[FI_LOG_CQ] = "cq",
	[FI_LOG_EQ] = "eq",
	[FI_LOG_MR] = "mr",
	[FI_LOG_CNTR] = "cntr",
};

#define PL_LOG_SUBSYS_ALL ((1u << FI_LOG_SUBSYS_MAX) - 1)

/*
 * Written only by pl_log_configure() before pl_log_ready is released,
 * read-only afterwards.
 */
static struct {
	unsigned int	levels;		/* level L shows when L < levels */
	uint32_t	subsys_mask;	/* bit per enum fi_log_subsys */
	bool		prov_exclude;	/* prov_names lists whom to drop */
	size_t		prov_count;	/* 0: no provider filter */
	char		**prov_names;
	uint64_t	interval_ms;
} pl_log_cfg;

/* 1 once pl_log_cfg is complete. Released at the end of
 * pl_log_configure(), acquired by pl_log_config_ready(). */
static pl_atomic_int pl_log_ready;
static pthread_once_t pl_log_once = PTHREAD_ONCE_INIT;

/* The imported struct fid_logging, or NULL. Set once by a CAS in
 * pl_log_fid_bind() (release: the caller's ops are complete), loaded with
 * acquire by every entry point before it touches those ops. */
static pl_atomic_ptr pl_log_import;

/* True in the thread running pl_log_configure(), while it runs. */
static __thread bool pl_log_configuring;
/* True in that thread from the end of the set-up until its replay. */
static __thread bool pl_log_must_replay;

/* Messages parked by the configuring thread; only that thread touches
 * them (every other thread waits in pthread_once meanwhile). */
static struct pl_log_parked {
	const struct fi_provider	*prov;
	enum fi_log_level		level;
	enum fi_log_subsys		subsys;
	const char			*func;
	int				line;
	char				msg[PL_LOG_PARKED_MSG_MAX];
} pl_log_parked[PL_LOG_PARKED_MAX];
static size_t pl_log_nparked;

/* ---- configuration ---- */

static unsigned int pl_log_parse_level(const char *text)
{
	unsigned int i;

	if (!text)
		return FI_LOG_WARN + 1;
	for (i = 0; i < FI_LOG_MAX; i++) {
		if (!strcasecmp(text, pl_log_level_names[i]))
			return i + 1;
	}
	if (!strcasecmp(text, "none") || !strcasecmp(text, "off"))
		return 0;
	PL_WARN(FI_LOG_CORE, "FI_LOG_LEVEL=\"%s\" is not valid: expected "
		"warn, trace, info, debug or none; using warn\n", text);
	return FI_LOG_WARN + 1;
}

/*
 * Split a "a,b,c" or "^a,b,c" list in place; calls fn for every non-empty
 * item with surrounding blanks (and a stray per-item '^') removed. Returns
 * whether the list is an exclusion list.
 */
static bool pl_log_split_list(char *list, void (*fn)(const char *, void *),
			      void *arg)
{
	bool exclude = false;
	char *item, *save = NULL;
	size_t n;

	while (*list == ' ' || *list == '\t')
		list++;
	if (*list == '^') {
		exclude = true;
		list++;
	}
	for (item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		while (*item == ' ' || *item == '\t' || *item == '^')
			item++;
		n = strlen(item);
		while (n && (item[n - 1] == ' ' || item[n - 1] == '\t'))
			item[--n] = '\0';
		if (n)
			fn(item, arg);
	}
	return exclude;
}

static void pl_log_add_subsys(const char *name, void *arg)
{
	uint32_t *mask = arg;
	unsigned int i;

	for (i = 0; i < FI_LOG_SUBSYS_MAX; i++) {
		if (!strcasecmp(name, pl_log_subsys_names[i])) {
			*mask |= 1u << i;
			return;
		}
	}
	PL_WARN(FI_LOG_CORE, "FI_LOG_SUBSYS: unknown subsystem \"%s\" "
		"ignored; expected core, fabric, domain, ep_ctrl, ep_data, av, "
		"cq, eq, mr or cntr\n", name);
}

static uint32_t pl_log_parse_subsys(const char *text)
{
	uint32_t mask = 0;
	char *copy;
	bool exclude;

	if (!text || !(copy = strdup(text)))
		return PL_LOG_SUBSYS_ALL;
	exclude = pl_log_split_list(copy, pl_log_add_subsys, &mask);
	free(copy);
	if (exclude)
		return PL_LOG_SUBSYS_ALL & ~mask;
	/* Nothing usable named: keep the default rather than go silent. */
	return mask ? mask : PL_LOG_SUBSYS_ALL;
}

static void pl_log_add_prov(const char *name, void *arg)
{
	char *copy = strdup(name);

	(void)arg;
	if (copy)
		pl_log_cfg.prov_names[pl_log_cfg.prov_count++] = copy;
}

static void pl_log_parse_prov(const char *text)
{
	char *copy;
	size_t commas = 1;
	const char *p;

	if (!text)
		return;
	for (p = text; *p; p++)
		commas += *p == ',';
	copy = strdup(text);
	pl_log_cfg.prov_names = calloc(commas, sizeof(char *));
	if (!copy || !pl_log_cfg.prov_names) {
		free(copy);
		free(pl_log_cfg.prov_names);
		pl_log_cfg.prov_names = NULL;
		return;
	}
	pl_log_cfg.prov_exclude = pl_log_split_list(copy, pl_log_add_prov,
						    NULL);
	free(copy);
}

static void pl_log_configure(void)
{
	pl_log_configuring = true;
	pl_core_params_init();
	pl_log_cfg.levels =
		pl_log_parse_level(pl_param_lookup(&pl_core_prov, "log_level",
						   NULL));
	pl_log_cfg.subsys_mask =
		pl_log_parse_subsys(pl_param_lookup(&pl_core_prov,
						    "log_subsys", NULL));
	pl_log_parse_prov(pl_param_lookup(&pl_core_prov, "log_prov", NULL));
	pl_log_cfg.interval_ms = (uint64_t)pl_param_get_int(&pl_core_prov,
		"log_interval", PL_LOG_INTERVAL_MS_DEFAULT, 0, INT_MAX);
	pl_log_configuring = false;
	pl_log_must_replay = true;
	/* Pairs with the acquire in pl_log_config_ready(): readers that see
	 * 1 see every field of pl_log_cfg. */
	pl_store_release(&pl_log_ready, 1);
}

static void pl_log_emit(const struct fi_provider *prov,
			enum fi_log_level level, enum fi_log_subsys subsys,
			const char *func, int line, const char *msg);

static void pl_log_replay(void)
{
	struct pl_log_parked *p;
	size_t i;

	/* What was said while reading the configuration is about the
	 * configuration (a misspelt FI_LOG_SUBSYS, a broken profile): only
	 * FI_LOG_LEVEL may hide it, or a typo in a filter would hide the
	 * warning about itself. */
	pl_log_must_replay = false;
	for (i = 0; i < pl_log_nparked; i++) {
		p = &pl_log_parked[i];
		if ((unsigned int)p->level < pl_log_cfg.levels)
			pl_log_emit(p->prov, p->level, p->subsys, p->func,
				    p->line, p->msg);
	}
	pl_log_nparked = 0;
}

/* False only for the thread that is inside its own set-up. */
static bool pl_log_config_slow(void)
{
	if (pl_log_configuring)
		return false;
	pthread_once(&pl_log_once, pl_log_configure);
	if (pl_log_must_replay)
		pl_log_replay();
	return true;
}

static inline bool pl_log_config_ready(void)
{
	/* Pairs with the release store at the end of pl_log_configure(). */
	if (PL_LIKELY(pl_load_acquire(&pl_log_ready)))
		return true;
	return pl_log_config_slow();
}

/* ---- filtering ---- */

static bool pl_log_prov_passes(const struct fi_provider *prov)
{
	bool listed = false;
	size_t i;

	/* The reference never filters the core by FI_LOG_PROV. */
	if (!prov || prov == &pl_core_prov)
		return true;
	for (i = 0; prov->name && i < pl_log_cfg.prov_count; i++) {
		if (!strcasecmp(prov->name, pl_log_cfg.prov_names[i])) {
			listed = true;
			break;
		}
	}
	return listed != pl_log_cfg.prov_exclude;
}

/* The filter proper; the configuration must be ready. */
static bool pl_log_passes(const struct fi_provider *prov,
			  enum fi_log_level level, enum fi_log_subsys subsys)
{
	if ((unsigned int)level >= pl_log_cfg.levels)
		return false;
	if ((unsigned int)subsys >= FI_LOG_SUBSYS_MAX ||
	    !(pl_log_cfg.subsys_mask & (1u << subsys)))
		return false;
	if (PL_UNLIKELY(pl_log_cfg.prov_count) && !pl_log_prov_passes(prov))
		return false;
	return true;
}

static inline bool pl_log_default_enabled(const struct fi_provider *prov,
					  enum fi_log_level level,
					  enum fi_log_subsys subsys)
{
	/* Inside our own set-up: say yes, fi_log parks it for the replay. */
	if (PL_UNLIKELY(!pl_log_config_ready()))
		return true;
	return pl_log_passes(prov, level, subsys);
}

static inline struct fid_logging *pl_log_imported(void)
{
	/* Pairs with the CAS (release) in pl_log_fid_bind(). */
	return pl_load_acquire(&pl_log_import);
}

PL_EXPORT int fi_log_enabled(const struct fi_provider *prov,
			     enum fi_log_level level,
			     enum fi_log_subsys subsys)
{
	struct fid_logging *imp = pl_log_imported();

	if (PL_UNLIKELY(imp != NULL))
		return imp->ops->enabled(prov, level, subsys, 0);
	return pl_log_default_enabled(prov, level, subsys);
}

static uint64_t pl_log_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * *showtime is the call site's "not before" time in ms. It is the
 * caller's plain uint64_t (a static in FI_LOG_SPARSE), shared by every
 * thread passing that site; accessing it as an atomic (same size and
 * alignment on our targets) lets exactly one of them win each interval.
 */
PL_EXPORT int fi_log_ready(const struct fi_provider *prov,
			   enum fi_log_level level, enum fi_log_subsys subsys,
			   uint64_t *showtime)
{
	struct fid_logging *imp = pl_log_imported();
	pl_atomic_u64 *site = (pl_atomic_u64 *)showtime;
	uint64_t now, next;

	if (PL_UNLIKELY(imp != NULL))
		return imp->ops->ready(prov, level, subsys, 0, showtime);
	if (!pl_log_default_enabled(prov, level, subsys))
		return 0;
	/* Not ready yet means this thread is inside its own set-up (any
	 * other would have waited for it): no interval is known, let it go.
	 * Acquire pairs with the release at the end of pl_log_configure(). */
	if (!site || PL_UNLIKELY(!pl_load_acquire(&pl_log_ready)))
		return 1;
	now = pl_log_now_ms();
	/* Relaxed: the value orders nothing else; the CAS decides. */
	next = pl_load_relaxed(site);
	if (now < next)
		return 0;
	return pl_cas_acq_rel(site, &next, now + pl_log_cfg.interval_ms);
}

/* ---- output ---- */

/* libfabric:<pid>:<seconds>::<prov>:<subsys>:<func>():<line><<level>> msg
 * as the reference prints it (its empty fourth field included), so tools
 * that parse those lines keep working. One fprintf per line: stdio locks
 * stderr for the call, so lines of different threads do not mix. */
static void pl_log_emit(const struct fi_provider *prov,
			enum fi_log_level level, enum fi_log_subsys subsys,
			const char *func, int line, const char *msg)
{
	const char *pname = prov && prov->name ? prov->name : "core";
	const char *lname = (unsigned int)level < FI_LOG_MAX ?
			    pl_log_level_names[level] : "?";
	const char *sname = (unsigned int)subsys < FI_LOG_SUBSYS_MAX ?
			    pl_log_subsys_names[subsys] : "?";

	fprintf(stderr, "libfabric:%d:%lld::%s:%s:%s():%d<%s> %s",
		(int)getpid(), (long long)time(NULL), pname, sname,
		func ? func : "?", line, lname, msg);
}

static void pl_log_park(const struct fi_provider *prov,
			enum fi_log_level level, enum fi_log_subsys subsys,
			const char *func, int line, const char *msg)
{
	struct pl_log_parked *p;
	size_t n;

	if (pl_log_nparked == PL_LOG_PARKED_MAX)
		return;
	p = &pl_log_parked[pl_log_nparked++];
	p->prov = prov;
	p->level = level;
	p->subsys = subsys;
	p->func = func;
	p->line = line;
	/* A parked message may be cut shorter than a live one. */
	n = strnlen(msg, sizeof(p->msg) - 1);
	memcpy(p->msg, msg, n);
	p->msg[n] = '\0';
}

PL_EXPORT void fi_log(const struct fi_provider *prov, enum fi_log_level level,
		      enum fi_log_subsys subsys, const char *func, int line,
		      const char *fmt, ...)
{
	struct fid_logging *imp;
	char msg[PL_LOG_MSG_MAX];
	va_list ap;

	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	imp = pl_log_imported();
	if (imp)
		imp->ops->log(prov, level, subsys, func, line, msg);
	else if (PL_UNLIKELY(pl_log_configuring))
		pl_log_park(prov, level, subsys, func, line, msg);
	else
		pl_log_emit(prov, level, subsys, func, line, msg);
}

/* ---- fi_open(..., "logging", ...) ---- */

static int pl_log_fid_close(struct fid *fid)
{
	free(fid);
	return 0;
}

static int pl_log_fid_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct fid_logging *lf;
	void *none = NULL;

	if (flags)
		return -FI_EBADFLAGS;
	if (!bfid || bfid->fclass != FI_CLASS_LOG)
		return -FI_EINVAL;
	lf = pl_container_of(bfid, struct fid_logging, fid);
	if (!lf->ops || lf->ops->size < sizeof(struct fi_ops_log) ||
	    !lf->ops->enabled || !lf->ops->ready || !lf->ops->log)
		return -FI_EINVAL;
	/* Release publishes the caller's ops to the acquire loads in
	 * pl_log_imported(). As with the reference, the first import stays:
	 * swapping ops under a running fi_log would hand a message to ops
	 * its owner may be tearing down. */
	if (!pl_cas_acq_rel(&pl_log_import, &none, lf))
		return -FI_EALREADY;
	return 0;
}

static int pl_log_fid_control(struct fid *fid, int command, void *arg)
{
	return -FI_ENOSYS;
}

static int pl_log_fid_ops_open(struct fid *fid, const char *name,
			       uint64_t flags, void **ops, void *context)
{
	return -FI_ENOSYS;
}

static int pl_log_fid_tostr(const struct fid *fid, char *buf, size_t len)
{
	return -FI_ENOSYS;
}

static int pl_log_fid_ops_set(struct fid *fid, const char *name,
			      uint64_t flags, void *ops, void *context)
{
	return -FI_ENOSYS;
}

static struct fi_ops pl_log_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = pl_log_fid_close,
	.bind = pl_log_fid_bind,		/* fi_import_fid */
	.control = pl_log_fid_control,
	.ops_open = pl_log_fid_ops_open,
	.tostr = pl_log_fid_tostr,
	.ops_set = pl_log_fid_ops_set,
};

int pl_log_open(uint32_t version, uint64_t flags, struct fid **fid_p,
		void *context)
{
	struct fid *fid;

	if (!fid_p)
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	fid = calloc(1, sizeof(*fid));
	if (!fid)
		return -FI_ENOMEM;
	fid->fclass = FI_CLASS_LOG;
	fid->context = context;
	fid->ops = &pl_log_fid_ops;
	*fid_p = fid;
	return 0;
}
